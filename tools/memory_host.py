"""Host RAM (CPU memory, 内存) a job needs — not GPU memory (显存).

Why: users who fit a job on the GPUs still get killed by the kernel's OOM killer while the model loads, because
- `transformers` `from_pretrained` builds the model in CPU RAM in every process: plain DDP / accelerate / ZeRO-1/2
  with N ranks on one machine hold N full copies while loading (low_cpu_mem_usage only avoids a second, random-init
  copy; Hugging Face docs "Instantiate a big model"). Under ZeRO-3 with `zero.Init` (HF Trainer does this when the
  DeepSpeed config is stage 3, "zero3_init") or FSDP `cpu_ram_efficient_loading`, parameters are partitioned as they
  are created, so each rank holds about one checkpoint shard at a time (save_pretrained max_shard_size, 5 GB);
- without `torch_dtype`, transformers 4.x loads fp32 (4 B/param) whatever the checkpoint holds (transformers docs,
  from_pretrained `torch_dtype`: "defaults to torch.float32"; v5 defaults to "auto");
- ZeRO-Offload / ZeRO-Infinity keep fp32 master weights, Adam moments and fp32 gradients in RAM: 16–18 B per
  trainable parameter × 1.5 buffer (DeepSpeed docs memory.rst, estimate_zero2/zero3_model_states_mem_needs);
- preference/RL trainers load their reference, reward and value models the same way (one more copy each);
- inference: safetensors are read through the page cache, so RAM at least the size of the weight files loads them
  without swapping; CPU inference (llama.cpp / ollama GGUF without full GPU offload) keeps the weights in RAM.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from tools.memory import Breakdown, MemoryJob

GB = 10**9
GPUS_PER_NODE = 8
CHECKPOINT_SHARD_BYTES = 5 * GB  # transformers save_pretrained max_shard_size default "5GB"

SOURCES = [
    "Hugging Face transformers docs, 'Instantiate a big model' / from_pretrained (low_cpu_mem_usage, torch_dtype "
    "defaults to float32 in 4.x, max_shard_size 5GB)",
    "Hugging Face transformers DeepSpeed integration docs (ZeRO-3 zero.Init when the config is stage 3: "
    "'is_deepspeed_zero3_enabled' / zero3_init_flag)",
    "DeepSpeed docs memory.rst: estimate_zero2_model_states_mem_needs / estimate_zero3_model_states_mem_needs "
    "(CPU offload host memory, additional_buffer_factor 1.5)",
]


class HostRam(BaseModel):
    """CPU RAM per machine, decimal GB, with what each part is."""

    total_gb: float = Field(description="peak host RAM per machine: max(loading, offloaded states + one copy)")
    load_gb: float = Field(description="weights held in RAM while the model(s) load, all processes on one machine")
    offload_gb: float = Field(0.0, description="offloaded optimizer states / parameters (ZeRO-Offload), per machine")
    processes: int = Field(1, description="processes (ranks) on one machine that each load the model")
    copies_per_process: float = Field(1.0, description="models each process loads (2 with a DPO reference, …)")
    bytes_per_param: float = Field(2.0, description="dtype the weights are loaded in (4 = fp32 default of 4.x)")
    sharded_loading: bool = Field(False, description="ZeRO-3 zero.Init / FSDP: one checkpoint shard per rank")
    unsharded_load_gb: float = Field(
        0.0, description="loading without zero.Init: every process a full copy (processes × models × weights)"
    )
    per_process_model_gb: float = Field(0.0, description="one full copy of one model at the load dtype")
    unsharded_load_fp32_gb: float = Field(
        0.0, description="the same without torch_dtype (transformers 4.x loads fp32): processes × models × 4 B/param"
    )
    notes: list[dict[str, str]] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


def _gb(x: float) -> str:
    """Decimal GB as the answers print it: one decimal below 100 GB."""
    v = x / GB
    return f"{v:,.1f}" if v < 100 else f"{v:,.0f}"


def _a(zh: str, en: str) -> dict[str, str]:
    return {"zh": zh, "en": en}


def host_ram(job: MemoryJob, model: Any, b: Breakdown, whole_weights_gb: float) -> HostRam:
    """Host RAM per machine for `job` (see the module docstring for each rule and its source)."""
    notes: list[dict[str, str]] = []
    if job.mode == "inference":
        need = whole_weights_gb * GB
        notes.append(
            _a(
                f"推理：权重文件约 {whole_weights_gb:.1f} GB，加载时经过内存（页缓存）；内存不小于这个数才能不走 swap 顺利加载。"
                "纯 CPU 或 llama.cpp/ollama（GGUF）没把层全部放到 GPU 时，权重整个留在内存里，还要加上 KV 缓存",
                f"Inference: the weight files are about {whole_weights_gb:.1f} GB and pass through RAM (page cache) "
                "while loading; at least that much RAM loads them without swapping. CPU inference, or llama.cpp/ollama "
                "(GGUF) without every layer on the GPU, keeps the weights in RAM, plus the KV cache",
            )
        )
        return HostRam(
            total_gb=round(need / GB, 2),
            load_gb=round(need / GB, 2),
            processes=1,
            copies_per_process=1.0,
            bytes_per_param=round(need / max(1, model.params), 3),
            notes=notes,
            sources=SOURCES[:1],
        )
    procs = min(job.gpus, GPUS_PER_NODE)
    mm = b.method
    copies = 1.0
    if mm is not None:
        copies += (1 if mm.reference_loaded else 0) + (1 if mm.reward_bytes else 0) + (1 if mm.value_bytes else 0)
    bpp = 4.0 if (job.load_fp32 or job.precision in ("fp32", "tf32")) else 2.0
    if job.mode == "qlora":
        bpp = 2.0  # bitsandbytes quantises while loading from the 16-bit checkpoint
    per_model = model.params * bpp
    sharded = job.zero_stage >= 3 and job.gpus > 1
    if sharded:
        load = procs * copies * min(CHECKPOINT_SHARD_BYTES, per_model)
        full = procs * copies * per_model
        notes.append(
            _a(
                f"ZeRO-3（zero.Init / zero3_init）边加载边切分：每个进程一次只读一个检查点分片（约 5 GB），{procs} 个进程合计约 "
                f"{load / GB:.0f} GB。前提是 from_pretrained 之前已经建好带 ZeRO-3 配置的 TrainingArguments（HF 才会启用 "
                f"zero.Init）；否则每个进程各载一份完整模型 {_gb(per_model)} GB，{procs} 个进程 × {copies:g} 个模型 = "
                f"{full / GB:,.0f} GB",
                f"ZeRO-3 (zero.Init / zero3_init) partitions while loading: each process reads one checkpoint shard "
                f"(~5 GB) at a time, about {load / GB:.0f} GB for {procs} processes. That needs the ZeRO-3 "
                f"TrainingArguments to exist before from_pretrained (only then does HF use zero.Init); otherwise each "
                f"process loads a full {_gb(per_model)} GB copy: {procs} processes × {copies:g} model(s) = "
                f"{full / GB:,.0f} GB",
            )
        )
    else:
        load = procs * copies * per_model
        notes.append(
            _a(
                f"每个进程都在内存里加载一份完整模型：{procs} 个进程 × {copies:g} 个模型 × {model.params / 1e9:.1f}B × {bpp:g} B"
                f" = {load / GB:.0f} GB（DDP/accelerate/ZeRO-1/2 都是这样；ZeRO-3 的 zero.Init 或 FSDP 的 "
                "cpu_ram_efficient_loading 才会边加载边切分）",
                f"Each process loads a full copy into RAM: {procs} processes × {copies:g} model(s) × "
                f"{model.params / 1e9:.1f}B × {bpp:g} B = {load / GB:.0f} GB (DDP, accelerate and ZeRO-1/2 all do; only "
                "ZeRO-3 zero.Init or FSDP cpu_ram_efficient_loading partition while loading)",
            )
        )
    if bpp == 4.0 and job.load_fp32:
        notes.append(
            _a(
                "from_pretrained 没写 torch_dtype 时，transformers 4.x 按 fp32 加载（4 B/参数），比 bf16 多一倍；加上 "
                'torch_dtype=torch.bfloat16（或 "auto"）',
                "Without torch_dtype, transformers 4.x from_pretrained loads fp32 (4 B/param), twice bf16; pass "
                'torch_dtype=torch.bfloat16 (or "auto")',
            )
        )
    nodes = max(1, math.ceil(job.gpus / GPUS_PER_NODE))
    offload = b.host_ram  # already per node (tools/memory.py, DeepSpeed formula)
    total = max(load, offload)
    if offload:
        # what stays in RAM for the whole run: fp32 master weights + Adam m + v = 12 B/param (ZeRO-Offload,
        # arXiv:2101.06840); DeepSpeed's estimator adds fp32 grads and a 1.5x buffer on top (pinned memory)
        resident = (b.trainable or model.params) * 12.0 / nodes if job.mode == "full" else 0.0
        core_zh = (
            f"其中 fp32 主权重 + Adam 一阶、二阶矩 12 B/参数 = {resident / GB:,.0f} GB 整个训练期间常驻；"
            if resident
            else ""
        )
        core_en = (
            f"of which fp32 master weights + Adam m and v, 12 B/param = {resident / GB:,.0f} GB, stay resident for "
            "the whole run; "
            if resident
            else ""
        )
        notes.append(
            _a(
                f"CPU 卸载的优化器状态等每台机器约 {offload / GB:.0f} GB（DeepSpeed 公式，含 fp32 梯度和 1.5 倍缓冲），"
                f"在加载之后常驻；{core_zh}offload 的 pin_memory: true 还会锁页，内存紧时设 pin_memory: false，"
                "仍不够就加内存或多机分摊",
                f"Offloaded optimizer states take about {offload / GB:.0f} GB per machine (DeepSpeed's formula, fp32 "
                f"grads and a 1.5x buffer included) and stay resident after loading; {core_en}offload with "
                "pin_memory: true also locks pages: set pin_memory: false when RAM is tight, else add RAM or nodes",
            )
        )
    if nodes > 1:
        notes.append(_a(f"以上是每台机器（共 {nodes} 台）", f"Figures are per machine ({nodes} machines)"))
    return HostRam(
        total_gb=round(total / GB, 2),
        load_gb=round(load / GB, 2),
        offload_gb=round(offload / GB, 2),
        processes=procs,
        copies_per_process=copies,
        bytes_per_param=bpp,
        sharded_loading=sharded,
        unsharded_load_gb=round(procs * copies * per_model / GB, 2),
        unsharded_load_fp32_gb=round(procs * copies * model.params * 4.0 / GB, 2),
        per_process_model_gb=round(per_model / GB, 2),
        notes=notes,
        sources=SOURCES,
    )
