"""Decode speed at batch 1: how many tokens/s one sequence generates.

Single-sequence decoding is memory-bandwidth bound: every generated token reads all (active) weights and the
sequence's KV cache once, so tokens/s ≈ η_bw · BW / bytes_per_step, with achieved bandwidth η_bw ≈ 0.6–0.9 of
the datasheet figure (roofline as in Williams et al., CACM 2009; the same rule tools/planner.py uses for serving).
Weights and KV bytes come from `estimate_memory` (tools/memory.py), bandwidth from knowledge/gpus.yaml.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from tools.errors import ToolInputError
from tools.registry import ToolSpec

ETA_LOW, ETA_HIGH = 0.6, 0.9  # achieved / datasheet memory bandwidth (STREAM-style measurements reach 60–90%)


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
        description="tensor-parallel GPUs (each reads its share in parallel; communication time ignored)",
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
    eta_low: float = ETA_LOW
    eta_high: float = ETA_HIGH
    context: int
    fits: bool | None = Field(None, description="whether the model fits the GPU(s) at all (estimate_memory)")
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
    low, high = ETA_LOW * bw / step, ETA_HIGH * bw / step
    mid = (ETA_LOW + ETA_HIGH) / 2 * bw / step
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
    if inp.gpus > 1:
        A.append(
            _a(
                f"{inp.gpus} 卡张量并行：各卡并行读自己那份，卡间通信时间未计入（实际会更慢）",
                f"{inp.gpus}-way tensor parallel: each GPU reads its share in parallel; communication time is "
                "not included (real runs are slower)",
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
        context=inp.context,
        fits=est.fits,
        assumptions=A,
        sources=[
            f"memory bandwidth: {spec.source}",
            "decode tok/s ≈ η_bw·BW / (weight bytes + KV bytes), η_bw 0.6–0.9 (memory-bound roofline, Williams et al. 2009)",
        ],
    )


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
