"""A measured training time carried over to other cards: hours_b = hours_a × (n_a × peak_a) / (n_b × peak_b).

The measured time is either wall-clock hours ("one week on 4 A800") or a measured rate times the work left
("230 s/kimg × 20000 kimg on a 3090", "1.77 s/it × 150k steps"). Beside the compute ratio the tool gives the
memory-bandwidth ratio as the other end of a band: a job bound by tensor-core compute (large matmuls, LLMs)
scales with dense TFLOPS; one bound by memory traffic (convolutions, GANs, diffusion at small batch, NeRF)
scales closer to bandwidth (NVIDIA Deep Learning Performance Guide, "Understanding Performance": math- vs
memory-limited operations, https://docs.nvidia.com/deeplearning/performance/dl-performance-gpu-background/).

Why: users redo a published run's arithmetic for their own cards ("6×H800 took 25 h; I have 2×A800"),
and the usual slip is the datasheet's headline figure, which for Hopper/Ampere is the 2:4-sparsity
one (H100/H800 SXM "1,979 TFLOPS*" with the footnote "with sparsity"; dense 989 — NVIDIA H100
datasheet; A100/A800 dense 312, sparse 624 — NVIDIA A100 datasheet). Dense training never reaches
the sparse figure. Same job, same efficiency (MFU) on both setups is the stated assumption; the ratio
of the user's real time to this figure is then the ratio of the two runs' efficiencies.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.errors import ToolInputError
from tools.gpus import GpuSpec, resolve_gpu
from tools.registry import ToolSpec


class RescaleInput(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    ref_gpu: str = Field(..., description="card of the measured run ('H800')")
    ref_gpus: int = Field(..., ge=1, le=100_000, description="cards in the measured run")
    ref_hours: float | None = Field(
        None, gt=0, le=1_000_000, description="measured wall-clock hours (or give ref_seconds_per_unit × ref_units)"
    )
    ref_seconds_per_unit: float | None = Field(
        None, gt=0, le=1_000_000, description="measured seconds per unit of work on the reference setup (230 s/kimg)"
    )
    ref_units: float | None = Field(None, gt=0, le=1e12, description="units of work in the whole run (20000 kimg)")
    unit: str = Field("step", description="name of the unit ('kimg', 'step', 'it', 'epoch')")
    gpu: str = Field(..., description="your card ('A800')")
    n_gpus: int = Field(..., ge=1, le=100_000, description="your card count")
    precision: Literal["bf16", "fp16", "fp8", "tf32"] = Field("bf16", description="training precision")
    quoted_tflops: list[float] = Field(
        default_factory=list, description="TFLOPS figures the user used in their own arithmetic (checked)"
    )
    actual_hours: float | None = Field(None, gt=0, le=1_000_000, description="your measured hours, if any")


class QuotedFigure(BaseModel):
    value: float
    gpu: str
    kind: Literal["dense", "sparse", "unknown"]
    dense: float | None = None


class RescaleOutput(BaseModel):
    ref_gpu: str
    gpu: str
    ref_dense_tflops: float
    dense_tflops: float
    hours: float = Field(description="expected hours on your setup at the measured run's efficiency")
    arithmetic: str
    ref_total_hours: float | None = Field(None, description="the reference run's wall-clock hours (rate × units)")
    ref_gpu_hours: float | None = Field(None, description="ref_gpus × ref_total_hours")
    days: float | None = Field(None, description="hours / 24 (the compute-ratio figure)")
    ref_bandwidth_gbs: float | None = None
    bandwidth_gbs: float | None = None
    bandwidth_hours: float | None = Field(None, description="the same carried by memory bandwidth × cards instead")
    bandwidth_arithmetic: str | None = None
    low_hours: float | None = Field(None, description="the lower of the compute and bandwidth figures")
    high_hours: float | None = Field(None, description="the higher of the two")
    low_days: float | None = None
    high_days: float | None = None
    quoted: list[QuotedFigure] = Field(default_factory=list)
    efficiency_ratio: float | None = Field(
        None, description="hours / actual_hours: >1 means your run was that many times more efficient"
    )
    notes: list[str] = Field(default_factory=list)


def _dense(spec: GpuSpec, precision: str) -> float:
    peak = spec.dense_tflops(precision) or spec.dense_tflops("fp16")
    if not peak:
        raise ToolInputError(f"{spec.name} 缺少算力数据", f"No TFLOPS figure for {spec.name}", field="gpu")
    return float(peak)


def _classify(value: float, specs: list[GpuSpec], precision: str) -> QuotedFigure:
    for s in specs:
        dense = _dense(s, precision)
        sparse = s.bf16_fp16_sparse_tflops if precision in ("bf16", "fp16") else s.fp8_sparse_tflops
        if abs(value - dense) <= 0.02 * dense:
            return QuotedFigure(value=value, gpu=s.name, kind="dense", dense=dense)
        if sparse and abs(value - sparse) <= 0.02 * sparse:
            return QuotedFigure(value=value, gpu=s.name, kind="sparse", dense=dense)
    return QuotedFigure(value=value, gpu="", kind="unknown")


def _ref_hours(inp: RescaleInput) -> tuple[float, str]:
    """The reference run's wall-clock hours and how they were got (stated, or rate × units / 3600)."""
    if inp.ref_hours:
        return inp.ref_hours, ""
    if inp.ref_seconds_per_unit and inp.ref_units:
        h = inp.ref_seconds_per_unit * inp.ref_units / 3600
        return h, f"{inp.ref_seconds_per_unit:g} s/{inp.unit} × {inp.ref_units:g} {inp.unit} / 3600 = {h:.4g} h"
    raise ToolInputError(
        "需要参考任务的时长（ref_hours），或速率 × 总量（ref_seconds_per_unit 和 ref_units）",
        "Give the reference run's hours (ref_hours), or its rate and amount (ref_seconds_per_unit and ref_units)",
        field="ref_hours",
    )


def rescale_training_time(inp: RescaleInput) -> RescaleOutput:
    ref, mine = resolve_gpu(inp.ref_gpu), resolve_gpu(inp.gpu)
    pa, pb = _dense(ref, inp.precision), _dense(mine, inp.precision)
    ref_hours, rate_text = _ref_hours(inp)
    hours = ref_hours * inp.ref_gpus * pa / (inp.n_gpus * pb)
    arithmetic = f"{inp.ref_gpus} × {pa:g} × {ref_hours:.4g} h / ({inp.n_gpus} × {pb:g}) = {hours:.4g} h"
    if rate_text:
        arithmetic = f"{rate_text}; {arithmetic}"
    ba, bb = ref.mem_bw_gbs, mine.mem_bw_gbs
    bw_hours = ref_hours * inp.ref_gpus * ba / (inp.n_gpus * bb) if ba and bb else None
    bw_arith = (
        f"{inp.ref_gpus} × {ba:g} GB/s × {ref_hours:.4g} h / ({inp.n_gpus} × {bb:g} GB/s) = {bw_hours:.4g} h"
        if bw_hours
        else None
    )
    ends = [hours] + ([bw_hours] if bw_hours else [])
    quoted = [_classify(v, [ref, mine], inp.precision) for v in inp.quoted_tflops]
    notes = [
        "假设两边是同一个任务、同样的效率（MFU）；时间只按卡数 × 稠密峰值缩放。 / Assumes the same job at the same "
        "efficiency (MFU) on both setups; time scales with cards × dense peak only.",
    ]
    for q in quoted:
        if q.kind == "sparse":
            notes.insert(
                0,
                f"{q.value:g} TFLOPS 是 {q.gpu} 的 2:4 稀疏算力（规格表脚注 with sparsity），稠密训练用不到；稠密是 "
                f"{q.dense:g}。 / {q.value:g} TFLOPS is the {q.gpu}'s 2:4-sparsity figure (the datasheet's 'with "
                f"sparsity' footnote), which dense training never uses; dense is {q.dense:g}.",
            )
    ratio = round(hours / inp.actual_hours, 2) if inp.actual_hours else None
    if bw_hours:
        notes.append(
            "另一端按显存带宽 × 卡数缩放：卷积、GAN、扩散模型小 batch 这类受显存读写限制的任务更接近这一端，大模型的"
            "大矩阵乘更接近算力那一端（NVIDIA 深度学习性能指南：math-limited vs memory-limited）。 / The other end "
            "scales with memory bandwidth × cards: memory-bound jobs (convolutions, GANs, diffusion at small batch) "
            "sit nearer it, large-matmul LLM training nearer the compute end (NVIDIA Deep Learning Performance "
            "Guide: math- vs memory-limited operations)."
        )
    return RescaleOutput(
        ref_gpu=ref.name,
        gpu=mine.name,
        ref_dense_tflops=pa,
        dense_tflops=pb,
        hours=round(hours, 1),
        arithmetic=arithmetic,
        ref_total_hours=round(ref_hours, 2),
        ref_gpu_hours=round(ref_hours * inp.ref_gpus, 1),
        days=round(hours / 24, 1),
        ref_bandwidth_gbs=ba,
        bandwidth_gbs=bb,
        bandwidth_hours=round(bw_hours, 1) if bw_hours else None,
        bandwidth_arithmetic=bw_arith,
        low_hours=round(min(ends), 1),
        high_hours=round(max(ends), 1),
        low_days=round(min(ends) / 24, 1),
        high_days=round(max(ends) / 24, 1),
        quoted=quoted,
        efficiency_ratio=ratio,
        notes=notes,
    )


TOOLS = [
    ToolSpec(
        name="rescale_training_time",
        description=(
            "Carry a measured training time (hours, or a measured rate s/kimg or s/step × the run's units) to other "
            "cards at the same efficiency: hours = ref_hours × ref_gpus × ref dense TFLOPS / (n_gpus × dense TFLOPS), "
            "with the memory-bandwidth ratio as the other end of a band (memory-bound jobs). Checks TFLOPS figures the user quoted (flags the 2:4-sparsity "
            "datasheet figure, e.g. H800 1979 vs dense 989) and, given the user's own hours, the efficiency ratio."
        ),
        input_model=RescaleInput,
        func=rescale_training_time,
    ),
]
