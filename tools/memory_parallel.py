"""Tensor-parallel sizes a model can be served with (vLLM's rules), so answers only propose sizes that start.

Why: vLLM refuses a tensor-parallel size that does not divide the attention heads — "Total number of attention
heads (40) must be divisible by tensor parallel size (6)" (vllm/config.py verify_with_parallel_config) — and its
QKV layer needs the KV heads to split evenly, or (when there are fewer KV heads than GPUs) the GPU count to be a
multiple of the KV heads, which are then replicated (vllm/model_executor/layers/linear.py QKVParallelLinear).
Six cards for a 40-head model therefore means TP 4 or 8, or pipeline parallelism (--pipeline-parallel-size),
which splits whole layers and has no head rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tools.memory import MemoryJob

NODE = 8  # GPUs per server
SOURCE = (
    "vLLM vllm/config.py ModelConfig.verify_with_parallel_config ('Total number of attention heads (N) must be "
    "divisible by tensor parallel size (T)'); vllm/model_executor/layers/linear.py QKVParallelLinear (KV heads split "
    "when ≥ TP, else replicated: TP must be a multiple of the KV heads); vLLM docs distributed serving "
    "(--pipeline-parallel-size)"
)


def tp_allowed(arch: Any, tp: int) -> bool:
    """True when `tp` divides the attention heads and the KV heads split (or replicate) evenly."""
    if tp <= 1:
        return True
    heads = int(arch.num_heads)
    kv = heads if arch.is_mla else int(arch.num_kv_heads or heads)
    if heads % tp:
        return False
    vision = getattr(arch, "vision_num_heads", None)
    if vision and vision % tp:
        return False  # the ViT's attention is split by the same TP size (GLM-4.1V/4.5V: 12 heads → TP 1/2/3/4/6/12)
    return kv % tp == 0 if kv >= tp else tp % kv == 0


def valid_tp_sizes(arch: Any, limit: int = 16, group: int | None = None) -> list[int]:
    return [t for t in range(1, limit + 1) if tp_allowed(arch, t) and quant_tp_allowed(arch, t, group)]


# GPTQ/AWQ int4 checkpoints store weights in groups of 128 input channels (the usual g128 release). vLLM's GPTQ/AWQ
# create_weights refuses a row-parallel shard whose input size is not a multiple of the group ("The input size is
# not aligned with the quantized weight shape. This can be caused by too large tensor parallel size."); tensor
# parallel splits the MLP down_proj along intermediate_size, so intermediate_size ÷ TP must be a multiple of 128.
# Qwen-14B: 13696 = 128 × 107 (107 prime) → TP 1 only; Qwen-7B 11008 = 128 × 86 → TP 1/2 (Qwen/Qwen3 issue #63).
QUANT_GROUP = 128
QUANT_SOURCE = (
    "vLLM vllm/model_executor/layers/quantization/gptq.py and awq.py create_weights ('The input size is not aligned "
    "with the quantized weight shape. This can be caused by too large tensor parallel size.'); QwenLM/Qwen3 issue #63; "
    "QwenLM/Qwen3-VL issue #230 (72B AWQ/GPTQ re-quantised with intermediate_size padded to 29696); vllm-project/vllm "
    "issue #21695 (29568 / 128 = 231 → TP 1 only)"
)


def quant_tp_allowed(arch: Any, tp: int, group: int | None) -> bool:
    """True unless group-quantised weights (`group` input channels per scale) cannot be split `tp` ways along the
    dense MLP's intermediate size. MoE experts are left to the head rule (their widths vary by release)."""
    if not group or tp <= 1 or getattr(arch, "moe_intermediate_size", None):
        return True
    inter = int(arch.intermediate_size)
    return inter % tp == 0 and (inter // tp) % group == 0


def quant_limits_tp(arch: Any, group: int = QUANT_GROUP) -> bool:
    """The group rule removes TP sizes the heads allow (Qwen-14B: 13696 = 128 × 107 leaves only TP 1)."""
    return valid_tp_sizes(arch, group=group) != valid_tp_sizes(arch)


def quant_group(job: MemoryJob) -> int | None:
    """128 for GPTQ/AWQ int4 weights served by vLLM/SGLang (g128 checkpoints), else None."""
    if job.mode != "inference" or job.precision != "int4" or job.engine_id == "hf":
        return None
    return QUANT_GROUP if (job.int4_format or "awq") in ("awq", "gptq") else None


def quant_tp_note(job: MemoryJob, model: Any) -> dict[str, str] | None:
    """Why the int4 release of this model serves on fewer TP sizes than the bf16 one (None when it does not)."""
    group = quant_group(job)
    if group is None:
        return None
    arch = model.arch
    if not quant_limits_tp(arch, group):
        return None
    full, quant = valid_tp_sizes(arch), valid_tp_sizes(arch, group=group)
    inter = int(arch.intermediate_size)
    fmt = job.int4_format.upper() if job.int4_format else "GPTQ/AWQ"
    groups = f"{group} × {inter // group}" if inter % group == 0 else f"{inter} ÷ {group} = {inter / group:.2f}"
    lost = [t for t in full if t not in quant]
    return {
        "zh": f"{fmt} int4 权重按每 {group} 个输入通道一组存放，张量并行要把 MLP 的 down_proj 沿 intermediate_size 切开，"
        f"每张卡分到的宽度必须是 {group} 的整数倍：{model.name} 的 intermediate_size 是 {inter}（{groups}），"
        f"量化版能用的 TP 只有 {'、'.join(map(str, quant))}，TP {'、'.join(map(str, lost[:4]))} 会报 "
        "'The input size is not aligned with the quantized weight shape'（bf16 原版没有这个限制；官方后来按 TP 补齐后重新量化的版本"
        "不受此限，例如 Qwen2-VL-72B 的 AWQ/GPTQ 改成了 29696，以你那份权重 config.json 里的 intermediate_size 为准）",
        "en": f"{fmt} int4 weights are stored in groups of {group} input channels, and tensor parallel splits the MLP "
        f"down_proj along intermediate_size, so each GPU's share must be a multiple of {group}: {model.name} has "
        f"intermediate_size {inter} ({groups}), so the quantised release serves only on TP "
        f"{', '.join(map(str, quant))}; TP {', '.join(map(str, lost[:4]))} fails with 'The input size is not aligned "
        "with the quantized weight shape' (the bf16 original has no such limit; releases re-quantised after padding "
        "for TP are not limited — Qwen2-VL-72B's AWQ/GPTQ moved to 29696 — so the intermediate_size in your weights' "
        "config.json decides)",
    }


def _a(zh: str, en: str) -> dict[str, str]:
    return {"zh": zh, "en": en}


def tp_check(job: MemoryJob, model: Any) -> tuple[bool | None, list[int] | None, dict[str, str] | None]:
    """(valid, valid sizes, note) for inference with vLLM/SGLang over several GPUs; (None, sizes, None) otherwise."""
    arch = model.arch
    group = quant_group(job)
    sizes = valid_tp_sizes(arch, group=group)
    if job.mode != "inference" or job.gpus <= 1 or job.engine_id == "hf":
        return None, sizes, None
    if tp_allowed(arch, job.gpus) and not quant_tp_allowed(arch, job.gpus, group):
        return False, sizes, quant_tp_note(job, model)
    if tp_allowed(arch, job.gpus):
        return True, sizes, None
    if job.gpus > NODE and job.gpus % NODE == 0 and tp_allowed(arch, NODE):
        return True, sizes, None  # several servers: TP 8 inside each, pipeline stages across (vLLM multi-node)
    heads = int(arch.num_heads)
    kv = heads if arch.is_mla else int(arch.num_kv_heads or heads)
    n = job.gpus
    layouts = tp_pp_layouts(arch, n)
    lay_zh = "、".join(f"--tensor-parallel-size {t} --pipeline-parallel-size {p}（{t}×{p}）" for t, p in layouts[:2])
    lay_en = ", ".join(f"--tensor-parallel-size {t} --pipeline-parallel-size {p} ({t}×{p})" for t, p in layouts[:2])
    below = [t for t in sizes if t < n]
    above = [t for t in sizes if t > n]
    near = [str(t) for t in ([below[-1]] if below and below[-1] > 1 else []) + ([above[0]] if above else [])]
    kv_zh = f"、{kv} 个 KV 头" if kv != heads else ""
    kv_en = f" and {kv} KV heads" if kv != heads else ""
    vision = getattr(arch, "vision_num_heads", None)
    if vision and vision % n and not heads % n:  # the decoder splits, the vision encoder does not
        heads, kv_zh, kv_en = vision, "（视觉编码器）", " (in its vision encoder)"
    tp_or = " 或 ".join(near)
    fewer_zh = f"；或者改用 {tp_or} 张卡做纯张量并行（--tensor-parallel-size {' / '.join(near)}）" if near else ""
    fewer_en = (
        f"; or pure tensor parallel on {' or '.join(near)} GPUs (--tensor-parallel-size {' / '.join(near)})"
        if near
        else ""
    )
    return (
        False,
        sizes,
        {
            "zh": f"张量并行 {n} 卡起不来：{model.name} 有 {heads} 个注意力头{kv_zh}，TP 大小必须能整除 {heads}"
            f"（vLLM 报错 Total number of attention heads ({heads}) must be divisible by tensor parallel size ({n})）。"
            f"可用的 TP：{'、'.join(map(str, sizes))}；{n} 张卡要用流水线并行（按层切分，没有整除要求）："
            f"{lay_zh}{fewer_zh}。下面的显存按 {n} 卡平分估算",
            "en": f"Tensor parallel over {n} GPUs will not start: {model.name} has {heads} attention heads{kv_en}, and "
            f"the TP size must divide {heads} (vLLM: 'Total number of attention heads ({heads}) must be divisible by "
            f"tensor parallel size ({n})'). Valid TP sizes: {', '.join(map(str, sizes))}; {n} GPUs need pipeline "
            f"parallelism (whole layers, no divisibility rule): {lay_en}{fewer_en}. The memory below is split {n} ways",
            "short_zh": f"张量并行 {n} 卡起不来（{heads} 个注意力头不能被 {n} 整除），要用流水线并行 "
            f"{lay_zh.split('、')[0]}",
            "short_en": f"tensor parallel over {n} will not start ({heads} attention heads are not divisible by {n}); "
            f"use pipeline parallelism, {lay_en.split(', ')[0]}",
        },
    )


def tp_pp_layouts(arch: Any, n: int) -> list[tuple[int, int]]:
    """TP × PP splits that use exactly n GPUs with a valid TP size, widest TP first (vLLM world size = TP × PP,
    https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html): 6 GPUs, 64 heads → (2, 3), (1, 6)."""
    return [(t, n // t) for t in sorted(valid_tp_sizes(arch, n), reverse=True) if n % t == 0 and n // t > 1]


# ---- training across servers: tensor parallel inside a server, pipeline stages across servers ----------
LAYOUT_SOURCE = (
    "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM "
    "(https://arxiv.org/abs/2104.04473), takeaway #1: tensor-parallel size up to the GPUs in one server, pipeline "
    "parallelism across servers; Megatron-LM world size = TP × PP × DP (https://github.com/NVIDIA/Megatron-LM); "
    "link rates: knowledge/interconnect.yaml"
)


def training_layout(arch: Any, min_gpus: int, nvlink_gbs_bidir: float | None) -> dict[str, Any] | None:
    """A TP × PP layout for training that needs more than one server: TP = the largest size ≤ 8 that splits the
    heads (kept on NVLink inside the server, as every layer all-reduces its activations), PP = the fewest stages
    that cover the sharded minimum and divide the layers evenly (stages only pass activations at their
    boundaries, which the slower network between servers carries). None for one server or no NVLink."""
    if min_gpus <= NODE or not nvlink_gbs_bidir:
        return None
    from tools.interconnect import resolve_link

    tp = max(t for t in valid_tp_sizes(arch, NODE) if t <= NODE)
    layers = int(arch.num_layers)
    need = -(-min_gpus // tp)
    # the fewest stages that split the layers evenly, within 2× the need; else the need (uneven first/last stages)
    pp = next((p for p in range(need, min(2 * need, layers) + 1) if layers % p == 0), need)
    hdr, ndr = resolve_link("ib_hdr"), resolve_link("ib_ndr")
    nv = nvlink_gbs_bidir / 2
    hdr_bw, ndr_bw = hdr.per_direction_gbs or 25.0, ndr.per_direction_gbs or 50.0  # both rows carry the rate
    reason = {
        "zh": f"张量并行每层都要 all-reduce 激活值，留在机内走 NVLink（单向约 {nv:g} GB/s）；流水线并行只在段与段之间传激活，"
        f"跨机走 InfiniBand/RoCE（{hdr.gbit:g}–{ndr.gbit:g} Gb/s ≈ 单向 {hdr_bw:g}–{ndr_bw:g} GB/s，"
        f"约为 NVLink 的 1/{round(nv / ndr_bw):g}–1/{round(nv / hdr_bw):g}）也够用；"
        + (
            f"PP={pp} 能整除 {layers} 层，每段 {layers // pp} 层"
            if layers % pp == 0
            else f"{layers} 层不能被 {pp} 整除，首尾段层数要单独设"
        ),
        "en": f"tensor parallelism all-reduces activations in every layer, so it stays on NVLink inside a server "
        f"(about {nv:g} GB/s per direction); pipeline stages only pass activations at their boundaries, which "
        f"InfiniBand/RoCE between servers ({hdr.gbit:g}–{ndr.gbit:g} Gb/s ≈ {hdr_bw:g}–"
        f"{ndr_bw:g} GB/s per direction, 1/{round(nv / ndr_bw):g}–"
        f"1/{round(nv / hdr_bw):g} of NVLink) can carry; "
        + (
            f"PP={pp} divides the {layers} layers ({layers // pp} per stage)"
            if layers % pp == 0
            else f"{layers} layers do not split evenly into {pp} stages, so set the first/last stage sizes"
        ),
    }
    return {
        "tp": tp,
        "pp": pp,
        "gpus": tp * pp,
        "nodes": -(-tp * pp // NODE),
        "reason": reason,
        "source": LAYOUT_SOURCE,
    }


# ---- serving one model from several cards: the flag each runtime takes ----------------------------------
# Two ways to put one model on N cards. Layer split: whole layers per card, each card holds ~1/N of the weights
# (and of the KV cache for its layers) and the cards work in turn — no head-divisibility rule, little overhead.
# Tensor parallel: every layer split across the cards (all-reduce per layer), the TP size must divide the heads.
SPLIT_FLAGS: dict[str, tuple[str, str, str]] = {
    # runtime: (method, flag as typed for n cards ({n}), source)
    "transformers": ("layers", 'device_map="auto"（可加 max_memory）', "transformers docs, Big model inference"),
    "llama.cpp": (
        "layers",
        "-ts {ones}（--tensor-split，--split-mode layer 是默认）",
        "llama.cpp tools/main/README.md",
    ),
    "ExLlamaV2": (
        "layers",
        "gpu_split（--gpu-split 按卡给 GB 数，逗号分隔）",
        "exllamav2 README / text-generation-webui",
    ),
    "FastChat": ("layers", "--num-gpus {n}（可加 --max-gpu-memory）", "FastChat README, Inference with Command Line"),
    "Ollama": ("layers", "自动按层分到所有可见的卡（CUDA_VISIBLE_DEVICES 指定）", "Ollama docs/faq.md, GPU"),
    "vLLM": ("tp", "--tensor-parallel-size {n}", "vLLM docs, Distributed inference and serving"),
    "SGLang": ("tp", "--tp {n}", "SGLang docs, server arguments (--tp-size)"),
    "LMDeploy": ("tp", "--tp {n}", "LMDeploy docs, api_server --tp"),
    "TGI": ("tp", "--num-shard {n}", "text-generation-inference launcher --num-shard"),
    "TensorRT-LLM": ("tp", "--tp_size {n}", "TensorRT-LLM docs, convert_checkpoint --tp_size"),
    "Xinference": (
        "tp",
        "launch --n-gpu {n}（vLLM 引擎按张量并行切到 {n} 张卡；不设时只用一张）",
        "Xinference docs, Models — Launch: --n-gpu, the number of GPUs a model uses",
    ),
}
SPLIT_FLAGS_EN = {
    "transformers": 'device_map="auto" (max_memory to balance)',
    "llama.cpp": "-ts {ones} (--tensor-split; --split-mode layer is the default)",
    "ExLlamaV2": "gpu_split (--gpu-split: GB per card, comma-separated)",
    "FastChat": "--num-gpus {n} (with --max-gpu-memory)",
    "Ollama": "splits layers over all visible GPUs by itself (CUDA_VISIBLE_DEVICES)",
    "Xinference": "launch --n-gpu {n} (the vLLM engine splits the model tensor-parallel over {n} GPUs; unset, it uses one)",
}
LAYER_RUNTIMES = [k for k, v in SPLIT_FLAGS.items() if v[0] == "layers"]
TP_RUNTIMES = [k for k, v in SPLIT_FLAGS.items() if v[0] == "tp"]


def split_flag(runtime: str, n: int, lang: str = "zh") -> str:
    """`runtime`'s own flag for serving one model from `n` cards ('vLLM --tensor-parallel-size 2')."""
    method, zh, _ = SPLIT_FLAGS[runtime]
    text = zh if lang == "zh" else SPLIT_FLAGS_EN.get(runtime, zh)
    return f"{runtime} {text.replace('{n}', str(n)).replace('{ones}', ','.join(['1'] * n))}"


def split_how(method: str, n: int, runtimes: list[str] | None = None, lang: str = "zh") -> str:
    """The flags for `method` ('layers' / 'tp'), the runtimes the user named first, at most three."""
    pool = LAYER_RUNTIMES if method == "layers" else TP_RUNTIMES
    named = [r for r in runtimes or [] if r in pool]
    chosen = named or pool[:3]
    sep = "、" if lang == "zh" else "; "
    return sep.join(split_flag(r, n, lang) for r in chosen)
