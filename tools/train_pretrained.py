"""Published pre-training runs of released base models (knowledge/pretraining.yaml), checked and carried over.

Why: "Llama 3 8B took 1.3M GPU-hours — on 24,576 GPUs is that 53 hours?", 「预训练 Llama-2-7B 用了多少卡时」 and
"what would pre-training Qwen2.5-7B from scratch take" are answered best by what the authors published (tokens,
GPU-hours, card), with C ≈ 6·N·D (Kaplan et al., arXiv:2001.08361) as the check: the FLOPs spread over the
published hours give the efficiency the run achieved (MFU against the card's dense peak). On other cards or
another count the GPU-hours scale with the dense peak at that same efficiency (the rule of tools/train_scaling.py);
divided by a card count they give the ideal wall-clock, which a real cluster does not reach (communication, batch
limits). Where no GPU-hours were published, the hours are 6·N·D over the planning MFU band (knowledge/mfu.yaml).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tools.data import load_yaml
from tools.errors import ToolInputError
from tools.registry import ToolSpec
from tools.train_time import Band3 as Band  # the estimator's low/mid/high band, one model for both

DEFAULT_GPU = "A100 80GB"  # the estimator's default card when a row names none and the user names none
EXAMPLE_N_GPUS = 1024  # a round cluster size for "how long" asked without a count (a power of two, as clusters are)


@lru_cache(maxsize=1)
def pretraining_data() -> dict[str, Any]:
    return load_yaml("pretraining.yaml")


def find_pretraining_row(model_id: str) -> dict[str, Any] | None:
    """The row of a catalog id (case-insensitive), or None when its pre-training was not published here."""
    key = model_id.strip().lower()
    for row in pretraining_data()["runs"]:
        if key in (m.lower() for m in row["models"]):
            return dict(row)
    return None


class PretrainingInput(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    model: str = Field(..., description="a released base model ('Llama-3-8B', 'Qwen2.5-7B', 'DeepSeek-V3')")
    gpu: str | None = Field(None, description="your card, to carry the published GPU-hours over ('A100 80GB')")
    n_gpus: int | None = Field(None, ge=1, le=1_000_000, description="card count for the ideal wall-clock")
    rate_per_gpu_hour: float | None = Field(None, gt=0, description="your price per GPU-hour, in your currency")
    currency: str = Field("USD", description="currency of rate_per_gpu_hour (no conversion is applied)")


class PretrainingOutput(BaseModel):
    model: str
    params_b: float
    active_params_b: float
    tokens: float = Field(description="pre-training tokens the authors state")
    tokens_note: str | None = Field(None, description="how they state it ('15T+', '~36T')")
    flops: float = Field(description="6 × active params × tokens")
    flops_arithmetic: str
    published_gpu: str | None = Field(None, description="the card the authors used")
    published_gpu_hours: float | None = Field(None, description="the authors' GPU-hours (see scope)")
    published_n_gpus: int | None = None
    published_days: float | None = None
    scope: str | None = None
    scope_zh: str | None = None
    dense_tflops: float | None = Field(None, description="dense BF16 peak of the published card")
    achieved_tflops: float | None = Field(None, description="flops ÷ (published GPU-hours × 3600), per GPU")
    implied_mfu: float | None = Field(None, description="achieved ÷ dense peak")
    your_gpu: str | None = None
    your_dense_tflops: float | None = None
    your_gpu_hours: float | None = Field(None, description="the published GPU-hours at the same MFU on your card")
    your_gpu_hours_band: Band | None = Field(None, description="6·N·D at the planning MFU band, no published hours")
    mfu_band: Band | None = None
    n_gpus: int | None = None
    ideal_wall_hours: float | None = Field(None, description="your GPU-hours ÷ n_gpus, perfect scaling")
    ideal_wall_hours_band: Band | None = None
    ideal_wall_arithmetic: str | None = None
    ideal_wall_days: float | None = Field(None, description="ideal_wall_hours ÷ 24")
    example_n_gpus: int | None = Field(None, description="no count given: the authors' count, else 1,024")
    example_wall_hours: float | None = Field(None, description="your GPU-hours ÷ example_n_gpus, perfect scaling")
    example_wall_days: float | None = None
    cost_at_rate: float | None = Field(None, description="your GPU-hours × your rate")
    currency: str | None = None
    source: str
    as_of: str
    notes: list[str] = Field(default_factory=list)


def _row(model: str) -> tuple[str, dict[str, Any]]:
    from tools.models import find_entry

    entry = find_entry(model)
    row = find_pretraining_row(entry.id if entry else model)
    if entry is None or row is None:
        ids = sorted(m for r in pretraining_data()["runs"] for m in r["models"])
        raise ToolInputError(
            f"没有 {model} 的公开预训练记录",
            f"No published pre-training record for {model!r}",
            field="model",
            suggestions=ids[:12],
        )
    return entry.id, row


def _dense(gpu: str) -> tuple[str, float]:
    from tools.gpus import resolve_gpu
    from tools.train_scaling import _dense as dense_peak

    spec = resolve_gpu(gpu)
    return spec.name, dense_peak(spec, "bf16")


def pretraining_run(inp: PretrainingInput) -> PretrainingOutput:
    from tools.train_time import mfu_band, resolve_sizes

    model_id, row = _row(inp.model)
    total, active, _ = resolve_sizes(model_id, None, None)
    tokens = float(row["tokens"])
    flops = 6 * active * tokens
    out = PretrainingOutput(
        model=model_id,
        params_b=round(total / 1e9, 2),
        active_params_b=round(active / 1e9, 2),
        tokens=tokens,
        tokens_note=row.get("tokens_note"),
        flops=flops,
        flops_arithmetic=f"6 × {active:.3g} × {tokens:.3g} = {flops:.3g}",
        published_n_gpus=row.get("n_gpus"),
        published_days=row.get("days"),
        scope=row.get("scope"),
        scope_zh=row.get("scope_zh"),
        n_gpus=inp.n_gpus,
        source=row["source"],
        as_of=str(row["as_of"]),
    )
    mine = _dense(inp.gpu) if inp.gpu else None
    if row.get("gpu_hours"):
        ref_name, ref_peak = _dense(row["gpu"])
        gh = float(row["gpu_hours"])
        achieved = flops / (gh * 3600) / 1e12
        out.published_gpu, out.published_gpu_hours, out.dense_tflops = ref_name, gh, ref_peak
        out.achieved_tflops, out.implied_mfu = round(achieved, 1), round(achieved / ref_peak, 3)
        your_name, your_peak = mine or (ref_name, ref_peak)
        out.your_gpu, out.your_dense_tflops = your_name, your_peak
        out.your_gpu_hours = round(gh * ref_peak / your_peak, 0)
        if inp.n_gpus:
            out.ideal_wall_hours = round(out.your_gpu_hours / inp.n_gpus, 1)
            out.ideal_wall_arithmetic = (
                f"{out.your_gpu_hours:,.0f} GPU-h ÷ {inp.n_gpus:,} = {out.ideal_wall_hours:,.1f} h"
            )
        out.notes.append(
            "换卡时按稠密峰值缩放、假设效率（MFU）与原训练相同；卡数 ÷ 后的时长是线性扩展的理想值，实际集群有通信和"
            "批大小的损耗，且常常同时跑多个任务。 / On another card the GPU-hours scale with the dense peak at the run's "
            "own efficiency (MFU); divided by a card count they are the ideal of perfect linear scaling — a real "
            "cluster loses efficiency to communication and batch-size limits, and is often shared by several runs."
        )
    else:
        band, _src = mfu_band("pretrain", "bf16")
        your_name, your_peak = mine or _dense(DEFAULT_GPU)
        out.your_gpu, out.your_dense_tflops = your_name, your_peak
        out.mfu_band = Band(low=band.low, mid=band.mid, high=band.high)

        def hours(m: float) -> float:
            return round(flops / (your_peak * 1e12 * m) / 3600, 0)

        out.your_gpu_hours_band = Band(low=hours(band.high), mid=hours(band.mid), high=hours(band.low))
        out.your_gpu_hours = out.your_gpu_hours_band.mid
        if inp.n_gpus:
            b = out.your_gpu_hours_band
            out.ideal_wall_hours_band = Band(
                low=round(b.low / inp.n_gpus, 1), mid=round(b.mid / inp.n_gpus, 1), high=round(b.high / inp.n_gpus, 1)
            )
            out.ideal_wall_hours = out.ideal_wall_hours_band.mid
            out.ideal_wall_arithmetic = f"{b.mid:,.0f} GPU-h ÷ {inp.n_gpus:,} = {out.ideal_wall_hours:,.1f} h"
        out.notes.append(
            "作者没有公布卡时：按 6·N·D ÷（稠密峰值 × MFU 区间）估算。 / The authors published no GPU-hours: estimated "
            "as 6·N·D over (dense peak × the planning MFU band)."
        )
    if out.ideal_wall_hours is not None:
        out.ideal_wall_days = round(out.ideal_wall_hours / 24, 1)
    elif out.your_gpu_hours:
        out.example_n_gpus = int(row.get("n_gpus") or EXAMPLE_N_GPUS)
        out.example_wall_hours = round(out.your_gpu_hours / out.example_n_gpus, 0)
        out.example_wall_days = round(out.example_wall_hours / 24, 0)
    out.notes.append(
        "6·N·D：每个 token 前向 + 反向约 6 × 参数量（MoE 用激活参数）次浮点运算（Kaplan 等，arXiv:2001.08361）。 / "
        "6·N·D: about 6 × parameters (active parameters for MoE) FLOPs per token, forward and backward (Kaplan et "
        "al., arXiv:2001.08361)."
    )
    if inp.rate_per_gpu_hour and out.your_gpu_hours:
        out.cost_at_rate, out.currency = round(out.your_gpu_hours * inp.rate_per_gpu_hour, 2), inp.currency
    return out


TOOLS = [
    ToolSpec(
        name="pretraining_run",
        description=(
            "What a released base model's pre-training took, from its authors (Llama 1/2/3/3.1/3.2/4, DeepSeek-V2/V3, "
            "Qwen, Gemma, Phi, Falcon, TinyLlama…): tokens, GPU-hours and card where published, checked with "
            "6·N·D (the efficiency the run achieved), carried to your card at that efficiency, divided by your card "
            "count as the ideal wall-clock, and priced at your rate per GPU-hour."
        ),
        input_model=PretrainingInput,
        func=pretraining_run,
    ),
]
