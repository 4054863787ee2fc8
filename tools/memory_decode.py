"""Decode speed at batch 1: how many tokens/s one sequence generates.

Single-sequence decoding is memory-bandwidth bound: every generated token reads all (active) weights and the
sequence's KV cache once, so tokens/s ≈ η_bw · BW / bytes_per_step, with achieved bandwidth η_bw ≈ 0.6–0.9 of
the datasheet figure (roofline as in Williams et al., CACM 2009; the same rule tools/planner.py uses for serving).
Weights and KV bytes come from `estimate_memory` (tools/memory.py), bandwidth from knowledge/gpus.yaml.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from tools.errors import ToolInputError
from tools.registry import ToolSpec

ETA_LOW, ETA_HIGH = 0.6, 0.9  # achieved / datasheet memory bandwidth (STREAM-style measurements reach 60–90%)

# Tensor parallel over PCIe (cards without NVLink): every token pays the all-reduces.
# Megatron-LM (Shoeybi et al. 2019, arXiv:1909.08053 §3, Fig. 4) splits each transformer layer so the forward
# pass needs two all-reduces per layer (after attention, after the MLP), each of hidden × batch activations.
# Ring all-reduce of S bytes over n ranks moves 2(n−1)/n × S per rank (NVIDIA nccl-tests doc/PERFORMANCE.md:
# busbw = algbw × 2(n−1)/n), so one all-reduce ≈ latency + 2(n−1)/n × S / busbw. At batch 1 S is tiny (8192 ×
# 2 B = 16 KB for a 70B model) and the latency dominates: nccl-tests all_reduce_perf on 8 × RTX 4090 (PCIe, no
# P2P) takes 42.6 µs for an 8-byte all-reduce (NVIDIA/nccl issue #1530).
PCIE_ALLREDUCE_LATENCY_US = 40.0
ALLREDUCES_PER_LAYER = 2
# effective all-reduce bus bandwidth over host PCIe (GeForce drivers disable P2P, so traffic goes via the host):
# PCIe 4.0 x16 is 32 GB/s per direction in theory, ≈ 25 GB/s achieved; gen 3 half, gen 5 double.
PCIE_BUSBW_GBS = {3: 12.5, 4: 25.0, 5: 50.0}
ACT_BYTES = 2  # bf16/fp16 activations


class DecodeSpeedInput(BaseModel):
    model: str | None = Field(None, description="model name ('Llama-3-8B', 'qwen2.5 7b') or a size ('7B')")
    params: str | float | None = Field(None, description="parameter count, e.g. '7B'; overrides the catalog size")
    gpu: str = Field(..., description="GPU name: '4090', 'A100 80G', 'H100'")
    precision: str = Field("bf16", description="weight dtype: bf16 / fp16 / fp8 / int8 / int4")
    context: int = Field(
        4096,
        ge=1,
        le=10_000_000,
        description="tokens already in the sequence (prompt + output) whose KV cache each step reads",
    )
    gpus: int = Field(
        1,
        ge=1,
        le=64,
        description="tensor-parallel GPUs (each reads its share in parallel; over PCIe the per-token all-reduces "
        "are added, see tp_comm_ms)",
    )
    nvlink_bridge: bool = Field(
        False,
        description="GeForce / workstation cards: a pair joined by an NVLink bridge (rented 3090 servers rarely have "
        "one, so the default is PCIe; data-centre boards keep their own links)",
    )


class DecodeSpeedOutput(BaseModel):
    gpu: str
    model: str
    tokens_per_s_low: float = Field(description="batch-1 decode tokens/s at η_bw = 0.6")
    tokens_per_s_mid: float = Field(description="batch-1 decode tokens/s at η_bw = 0.75")
    tokens_per_s_high: float = Field(description="batch-1 decode tokens/s at η_bw = 0.9 (near the ceiling)")
    ms_per_token_low: float = Field(description="time per token at η_bw = 0.9, ms")
    ms_per_token_high: float = Field(description="time per token at η_bw = 0.6, ms")
    weights_read_gb: float = Field(
        description="weight bytes read per token per GPU, decimal GB (active experts for MoE)"
    )
    kv_read_gb: float = Field(description="KV-cache bytes read per token per GPU at `context`, decimal GB")
    bytes_per_step_gb: float = Field(description="weights_read_gb + kv_read_gb")
    mem_bw_gbs: float = Field(description="datasheet memory bandwidth per GPU, GB/s")
    tokens_per_s_ceiling: float | None = Field(
        None, description="datasheet bandwidth / bytes per token (η_bw = 1, no communication): the hard ceiling"
    )
    tp_comm_ms: float = Field(0.0, description="per-token tensor-parallel all-reduce time over PCIe, ms (0 = none)")
    tp_link: str | None = Field(None, description="'pcie' when the all-reduces go over PCIe, 'nvlink', or None")
    eta_low: float = ETA_LOW
    eta_high: float = ETA_HIGH
    context: int
    fits: bool | None = Field(None, description="whether the model fits the GPU(s) at all (estimate_memory)")
    gpu_memory_gb: float | None = Field(None, description="datasheet memory of one GPU, GB (for a does-not-fit line)")
    weights_total_gb: float | None = Field(None, description="the whole model's weights at `precision`, decimal GB")
    gpus: int = Field(1, description="GPUs the weights are split over")
    assumptions: list[dict[str, str]] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


def _a(zh: str, en: str) -> dict[str, str]:
    return {"zh": zh, "en": en}


def decode_speed(inp: DecodeSpeedInput) -> DecodeSpeedOutput:
    """tokens/s ≈ η·BW / (weights + KV) per GPU — batch 1, memory-bound."""
    from tools.gpus import resolve_gpu
    from tools.memory import EstimateMemoryInput, estimate_memory
    from tools.models import resolve_model

    spec = resolve_gpu(inp.gpu)
    if not spec.mem_bw_gbs:
        raise ToolInputError(
            f"{spec.name} 没有公开的显存带宽数据，无法估算解码速度。",
            f"No published memory bandwidth for the {spec.name}; cannot estimate decode speed.",
            field="gpu",
        )
    model = resolve_model(inp.model, inp.params)
    est = estimate_memory(
        EstimateMemoryInput(
            model=inp.model,
            params=inp.params,
            mode="inference",
            precision=inp.precision,
            context=inp.context,
            concurrency=1,
            gpus=inp.gpus,
            gpu=spec.id,
        )
    )
    active = model.active_params / model.params if model.params else 1.0
    weights = est.weights_gb * active
    kv = est.kv_cache_gb
    step = weights + kv
    if step <= 0:
        raise ToolInputError("读取量为 0，无法估算。", "Nothing to read per step; cannot estimate.", field="model")
    bw = spec.mem_bw_gbs
    comm_ms, link = _tp_comm_ms(spec, model, inp.gpus, inp.nvlink_bridge)
    low, high = _rate(ETA_LOW * bw, step, comm_ms), _rate(ETA_HIGH * bw, step, comm_ms)
    mid = _rate((ETA_LOW + ETA_HIGH) / 2 * bw, step, comm_ms)
    A = [
        _a(
            "批大小 1（单条序列）、纯解码阶段；受显存带宽限制：每生成 1 个 token 要把权重和这条序列的 KV 缓存各读一遍",
            "Batch 1 (one sequence), decode phase only; memory-bandwidth bound: each token reads the weights and the "
            "sequence's KV cache once",
        ),
        _a(
            f"实际可达带宽按标称 {bw:,.0f} GB/s 的 60%–90% 计（η_bw）；不含预填充（首 token）时间、采样和框架开销",
            f"Achieved bandwidth taken as 60–90% of the datasheet {bw:,.0f} GB/s (η_bw); excludes prefill "
            "(time to first token), sampling and framework overhead",
        ),
        _a(
            f"权重 {inp.precision}；KV 缓存按 {inp.context:,} token 的上下文",
            f"Weights in {inp.precision}; KV cache at a {inp.context:,}-token context",
        ),
    ]
    if active < 0.999:
        A.append(
            _a(
                f"MoE：每个 token 只读激活的专家，按激活参数占比 {active:.0%} 计",
                f"MoE: each token reads only the active experts, counted as {active:.0%} of the weights",
            )
        )
    if inp.gpus > 1 and link == "pcie":
        layers = model.arch.num_layers if model.arch else 0
        ways = _bridge_ways(spec)
        why_zh, why_en = (
            (
                f"NVLink 桥只连 {ways} 张卡，{inp.gpus} 张之间的 all-reduce 仍走 PCIe",
                f"an NVLink bridge joins only {ways} cards, so {inp.gpus} of them all-reduce over PCIe",
            )
            if spec.nvlink_gbs_bidir and inp.nvlink_bridge
            else (
                "按没装 NVLink 桥算：租来的机器很少带桥，有桥请说明",
                "counted without an NVLink bridge: rented servers rarely have one; say so if yours does",
            )
            if spec.nvlink_gbs_bidir
            else ("无 NVLink，GeForce 驱动不开 P2P", "no NVLink; GeForce drivers disable P2P")
        )
        A.append(
            _a(
                f"{inp.gpus} 卡张量并行走 PCIe（{why_zh}）：每个 token 要做 {ALLREDUCES_PER_LAYER} × "
                f"{layers} 层 = {ALLREDUCES_PER_LAYER * layers} 次 all-reduce，每次约 {PCIE_ALLREDUCE_LATENCY_US:.0f} µs 延迟"
                f"（数据量很小，延迟为主），共约 {comm_ms:.1f} ms/token，已加进上面的速度；"
                "按 Megatron-LM 每层 2 次 all-reduce、ring all-reduce 2(n−1)/n × 数据量 / 总线带宽 + 延迟估算",
                f"{inp.gpus}-way tensor parallel over PCIe ({why_en}): each token does "
                f"{ALLREDUCES_PER_LAYER} × {layers} layers = {ALLREDUCES_PER_LAYER * layers} all-reduces, each about "
                f"{PCIE_ALLREDUCE_LATENCY_US:.0f} µs of latency (the messages are tiny, latency dominates), about "
                f"{comm_ms:.1f} ms per token in all, included in the speeds above; Megatron-LM's 2 all-reduces per "
                "layer, ring all-reduce = latency + 2(n−1)/n × bytes / bus bandwidth",
            )
        )
    elif inp.gpus > 1:
        A.append(
            _a(
                f"{inp.gpus} 卡张量并行：各卡并行读自己那份；卡间走 NVLink，每 token 的 all-reduce 时间未计入（实际略慢）",
                f"{inp.gpus}-way tensor parallel: each GPU reads its share in parallel; the per-token all-reduces go "
                "over NVLink and are not included (real runs are a little slower)",
            )
        )
    A.append(
        _a(
            "批量并发时总吞吐会高很多（同一次读权重服务多条序列），那要用 plan_configurations 的并发估算",
            "With many concurrent sequences total throughput is much higher (one weight read serves them all); "
            "use plan_configurations for that",
        )
    )
    if est.fits is False:
        A.append(
            _a(
                f"注意：按估算这个模型在 {inp.gpus} 张 {spec.name} 上放不下，速度只是理论值",
                f"Note: by the estimate the model does not fit on {inp.gpus} × {spec.name}; the speed is theoretical",
            )
        )
    return DecodeSpeedOutput(
        gpu=spec.name,
        model=model.name,
        tokens_per_s_low=round(low, 1),
        tokens_per_s_mid=round(mid, 1),
        tokens_per_s_high=round(high, 1),
        ms_per_token_low=round(1000 / high, 1),
        ms_per_token_high=round(1000 / low, 1),
        weights_read_gb=round(weights, 2),
        kv_read_gb=round(kv, 3),
        bytes_per_step_gb=round(step, 2),
        mem_bw_gbs=bw,
        tokens_per_s_ceiling=round(bw / step, 1),
        tp_comm_ms=round(comm_ms, 2),
        tp_link=link,
        context=inp.context,
        fits=est.fits,
        gpu_memory_gb=spec.memory_gb,
        weights_total_gb=est.whole_model_weights_gb,
        gpus=inp.gpus,
        assumptions=A,
        sources=[
            f"memory bandwidth: {spec.source}",
            "decode tok/s ≈ η_bw·BW / (weight bytes + KV bytes), η_bw 0.6–0.9 (memory-bound roofline, Williams et al. 2009)",
        ],
    )


def _rate(bw_gbs: float, step_gb: float, comm_ms: float) -> float:
    """tokens/s when each token reads `step_gb` at `bw_gbs` and then waits `comm_ms` for the all-reduces."""
    return 1000.0 / (1000.0 * step_gb / bw_gbs + comm_ms)


def _bridge_ways(spec: Any) -> int:
    """How many GeForce cards one NVLink bridge joins: a pair (NVIDIA's RTX 3090 / 2080 Ti bridges are 2-way), so
    tensor parallel over four of them crosses PCIe, where GeForce drivers disable P2P; SXM boards join all eight."""
    text = f"{getattr(spec, 'nvlink_version', '') or ''} {getattr(spec, 'form_factor', '') or ''}".lower()
    consumer = "geforce" in str(getattr(spec, "name", "")).lower() or "consumer" in text
    if not consumer or ("bridge" not in text and "pairs" not in text):
        # data-centre PCIe cards keep P2P over PCIe, where the all-reduce latency model below (GeForce, P2P off,
        # through host memory) would overstate the cost: they stay on the NVLink assumption, as before
        return 8
    return 4 if "4-way" in text else 2


def _tp_comm_ms(spec: Any, model: Any, gpus: int, bridged: bool = False) -> tuple[float, str | None]:
    """Per-token all-reduce time of tensor parallel over PCIe, ms: 2 all-reduces per layer (Megatron-LM), each
    latency + 2(n−1)/n × hidden × 2 B / PCIe bus bandwidth. NVLink cards: not added (a few µs per all-reduce)."""
    if gpus <= 1:
        return 0.0, None
    ways = _bridge_ways(spec)
    if spec.nvlink_gbs_bidir and gpus <= ways and (bridged or ways >= 8):
        return 0.0, "nvlink"
    arch = getattr(model, "arch", None)
    if arch is None or not arch.num_layers or not arch.hidden_size:
        return 0.0, "pcie"
    busbw = PCIE_BUSBW_GBS.get(int(spec.pcie_gen or 4), 25.0)
    message = arch.hidden_size * ACT_BYTES  # one token's activations, bytes
    per_allreduce_s = PCIE_ALLREDUCE_LATENCY_US * 1e-6 + 2 * (gpus - 1) / gpus * message / (busbw * 1e9)
    return ALLREDUCES_PER_LAYER * arch.num_layers * per_allreduce_s * 1000.0, "pcie"


TOOLS = [
    ToolSpec(
        name="decode_speed",
        description=(
            "Single-sequence (batch 1) decode speed of a model on a GPU: tokens/s low/mid/high from "
            "η_bw·memory bandwidth (GB/s) / bytes read per token (weights + KV cache, decimal GB), "
            "η_bw 0.6–0.9; also ms per token, the bytes read, and the assumptions (memory-bound, no prefill)."
        ),
        input_model=DecodeSpeedInput,
        func=decode_speed,
    ),
]
