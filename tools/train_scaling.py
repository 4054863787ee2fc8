"""A measured training time carried over to other cards: hours_b = hours_a × (n_a × peak_a) / (n_b × peak_b).

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
    ref_hours: float = Field(..., gt=0, le=1_000_000, description="measured wall-clock hours")
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


def rescale_training_time(inp: RescaleInput) -> RescaleOutput:
    ref, mine = resolve_gpu(inp.ref_gpu), resolve_gpu(inp.gpu)
    pa, pb = _dense(ref, inp.precision), _dense(mine, inp.precision)
    hours = inp.ref_hours * inp.ref_gpus * pa / (inp.n_gpus * pb)
    arithmetic = f"{inp.ref_gpus} × {pa:g} × {inp.ref_hours:g} h / ({inp.n_gpus} × {pb:g}) = {hours:.4g} h"
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
    return RescaleOutput(
        ref_gpu=ref.name,
        gpu=mine.name,
        ref_dense_tflops=pa,
        dense_tflops=pb,
        hours=round(hours, 1),
        arithmetic=arithmetic,
        quoted=quoted,
        efficiency_ratio=ratio,
        notes=notes,
    )


TOOLS = [
    ToolSpec(
        name="rescale_training_time",
        description=(
            "Carry a measured training time to other cards at the same efficiency: hours = ref_hours × ref_gpus × "
            "ref dense TFLOPS / (n_gpus × dense TFLOPS). Checks TFLOPS figures the user quoted (flags the 2:4-sparsity "
            "datasheet figure, e.g. H800 1979 vs dense 989) and, given the user's own hours, the efficiency ratio."
        ),
        input_model=RescaleInput,
        func=rescale_training_time,
    ),
]
