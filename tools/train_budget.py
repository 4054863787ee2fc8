"""A pre-training compute budget both ways: days for a model size, and the largest model a time budget trains.

Why: "can 8×A800 train a 2B model within a month, and what size could it train in 1–2 months" and "GPU-hours to
pretrain a 3B TTS model on 7K hours of audio" need the whole chain said out loud: tokens D (given, from audio hours
× the codec's tokens per second, or compute-optimal D ≈ 20·N — Hoffmann et al. 2022, arXiv:2203.15556), training
compute C = 6·N·D (Kaplan et al. 2020, arXiv:2001.08361, §2.1), and sustained throughput = cards × dense peak ×
MFU with the band in knowledge/mfu.yaml. The inverse solves C = 6·N·(20·N) for N = sqrt(C / 120).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.errors import ToolInputError
from tools.gpus import resolve_gpu
from tools.registry import ToolSpec

FLOPS_PER_PARAM_TOKEN = 6  # Kaplan et al. 2020, §2.1: forward 2·N + backward 4·N per token


class BudgetInput(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    gpu: str = Field(..., description="card ('A800', 'A100 40G', 'Ascend 910B')")
    n_gpus: int = Field(1, ge=1, le=100_000, description="cards")
    params_b: float | None = Field(None, gt=0, le=100_000, description="model size in billions, for days")
    tokens: float | None = Field(None, gt=0, le=1e15, description="training tokens (default: 20 per parameter)")
    audio_hours: float | None = Field(None, gt=0, le=1e8, description="hours of audio, turned into codec tokens")
    codec_tokens_per_s: float | None = Field(None, gt=0, le=10_000, description="audio tokens per second")
    budget_days: float | None = Field(None, gt=0, le=36_500, description="time budget, for the largest model")
    band: Literal["pretrain", "full", "lora", "qlora"] = Field(
        "full", description="MFU band of knowledge/mfu.yaml ('full' for one or a few nodes, 'pretrain' for a cluster)"
    )


class DaysBand(BaseModel):
    low: float
    mid: float
    high: float


class BudgetOutput(BaseModel):
    gpu: str
    n_gpus: int
    dense_tflops: float
    mfu: DaysBand
    mfu_basis: str
    mfu_basis_zh: str = ""
    params: float | None = None
    tokens: float | None = None
    tokens_basis: str | None = Field(None, description="'given', 'audio' or 'compute_optimal'")
    flops: float | None = Field(None, description="6 · N · D")
    days: DaysBand | None = Field(None, description="wall-clock days at high / mid / low MFU")
    gpu_hours: DaysBand | None = None
    arithmetic: str | None = None
    budget_days: float | None = None
    budget_flops: DaysBand | None = Field(None, description="cards × peak × MFU × budget seconds")
    largest_params_b: DaysBand | None = Field(None, description="compute-optimal N = sqrt(C / 120), in billions")
    largest_tokens_b: DaysBand | None = None
    inverse_arithmetic: str | None = None
    fits_budget: bool | None = Field(None, description="days.high ≤ budget_days (at the low MFU end)")
    notes: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


def _mfu(band: str) -> tuple[DaysBand, str, str, str]:
    from tools.train_time import mfu_data

    row = mfu_data()["bands"][band]
    return (
        DaysBand(low=row["low"], mid=row["mid"], high=row["high"]),
        str(row["en"]),
        str(row["zh"]),
        str(row["source"]),
    )


def _tokens(inp: BudgetInput, params: float | None) -> tuple[float | None, str | None, str | None]:
    """(tokens, basis, how) — given, from audio hours, or compute-optimal 20 per parameter."""
    from tools.train_time import mfu_data

    data = mfu_data()
    if inp.tokens:
        return inp.tokens, "given", None
    if inp.audio_hours:
        rate = inp.codec_tokens_per_s or float(data["data_units"]["audio_codec_tokens_per_second"]["snac_24khz"])
        d = inp.audio_hours * 3600 * rate
        return d, "audio", f"{inp.audio_hours:g} h × 3600 s × {rate:g} tokens/s = {d:.3g} tokens"
    if params:
        per = float(data["compute_optimal"]["tokens_per_param"])
        return per * params, "compute_optimal", f"{per:g} × {params:.3g} = {per * params:.3g} tokens"
    return None, None, None


def compute_budget(inp: BudgetInput) -> BudgetOutput:
    if not inp.params_b and not inp.budget_days:
        raise ToolInputError(
            "需要模型大小（params_b）或时间预算（budget_days）",
            "Give a model size (params_b) or a time budget (budget_days)",
        )
    spec = resolve_gpu(inp.gpu)
    peak = spec.dense_tflops("bf16") or spec.dense_tflops("fp16")
    if not peak:
        raise ToolInputError(f"{spec.name} 缺少算力数据", f"No TFLOPS figure for {spec.name}", field="gpu")
    mfu, basis, basis_zh, mfu_source = _mfu(inp.band)
    rate = inp.n_gpus * peak * 1e12  # FLOP/s at 100 % MFU
    out = BudgetOutput(
        gpu=spec.name,
        n_gpus=inp.n_gpus,
        dense_tflops=peak,
        mfu=mfu,
        mfu_basis=basis,
        mfu_basis_zh=basis_zh,
        budget_days=inp.budget_days,
    )
    from tools.train_time import mfu_data

    out.sources = [
        "C = 6·N·D: Kaplan et al. 2020, 'Scaling Laws for Neural Language Models', arXiv:2001.08361, §2.1",
        str(mfu_data()["compute_optimal"]["source"]),
        f"MFU band ({inp.band}): {mfu_source}",
    ]
    params = inp.params_b * 1e9 if inp.params_b else None
    tokens, tbasis, how = _tokens(inp, params)
    if params and tokens:
        flops = FLOPS_PER_PARAM_TOKEN * params * tokens
        secs = {k: flops / (rate * getattr(mfu, k)) for k in ("low", "mid", "high")}
        # days.low is the fast end (high MFU), days.high the slow end (low MFU)
        out.params, out.tokens, out.tokens_basis, out.flops = params, tokens, tbasis, flops
        out.days = DaysBand(
            low=round(secs["high"] / 86400, 2), mid=round(secs["mid"] / 86400, 2), high=round(secs["low"] / 86400, 2)
        )
        out.gpu_hours = DaysBand(
            low=round(secs["high"] * inp.n_gpus / 3600),
            mid=round(secs["mid"] * inp.n_gpus / 3600),
            high=round(secs["low"] * inp.n_gpus / 3600),
        )
        out.arithmetic = (
            (f"D = {how}; " if how else "") + f"C = 6 × {params:.3g} × {tokens:.3g} = {flops:.3g} FLOP; "
            f"{flops:.3g} / ({inp.n_gpus} × {peak:g}e12 × {mfu.high:g}–{mfu.low:g}) = "
            f"{out.days.low:g}–{out.days.high:g} days"
        )
    if inp.budget_days:
        per = float(mfu_data()["compute_optimal"]["tokens_per_param"])
        secs_b = inp.budget_days * 86400
        c = {k: rate * getattr(mfu, k) * secs_b for k in ("low", "mid", "high")}
        n = {k: math.sqrt(v / (FLOPS_PER_PARAM_TOKEN * per)) for k, v in c.items()}
        out.budget_flops = DaysBand(**{k: float(f"{v:.3g}") for k, v in c.items()})
        out.largest_params_b = DaysBand(**{k: round(v / 1e9, 2) for k, v in n.items()})
        out.largest_tokens_b = DaysBand(**{k: round(per * v / 1e9, 1) for k, v in n.items()})
        out.inverse_arithmetic = (
            f"C = {inp.n_gpus} × {peak:g}e12 × {mfu.low:g}–{mfu.high:g} × {inp.budget_days:g} × 86400 s = "
            f"{c['low']:.3g}–{c['high']:.3g} FLOP; N = sqrt(C / (6 × {per:g})) = "
            f"{out.largest_params_b.low:g}–{out.largest_params_b.high:g}B, D = {per:g}·N"
        )
        if out.days is not None:
            out.fits_budget = out.days.high <= inp.budget_days
    out.notes = [
        "6·N·D 只算稠密模型的训练计算（前向 2N + 反向 4N，每 token）；注意力在长序列下另加计算，开完整重计算约 8·N·D。 / "
        "6·N·D counts a dense model's training compute (forward 2N + backward 4N per token); attention adds more at "
        "long sequences, and full recomputation makes it about 8·N·D.",
        "每参数 20 个 token 是 Chinchilla 的算力最优配比；想要推理时更强的小模型，实际常训得更多（Llama 2 7B 训了 2T "
        "token）。 / 20 tokens per parameter is Chinchilla's compute-optimal ratio; models meant for cheap inference are "
        "often trained on far more (Llama 2 7B saw 2T tokens).",
    ]
    if tbasis == "audio":
        out.notes.append(
            "音频 token 数按编解码器的每秒 token 数算（默认 SNAC 24 kHz 约 82 token/s，Orpheus-TTS 用的就是它）；文本转写的 "
            "token 另算，数量小得多。 / Audio tokens are hours × the codec's tokens per second (default SNAC 24 kHz, "
            "≈ 82 tokens/s, the codec of Orpheus-TTS); the transcripts' text tokens come on top and are far fewer."
        )
    return out


TOOLS = [
    ToolSpec(
        name="compute_budget",
        description=(
            "Pre-training compute both ways: days and GPU-hours for a model of N parameters on D tokens (given, from "
            "hours of audio × codec tokens/s, or compute-optimal 20·N per Chinchilla) with C = 6·N·D at an MFU band; "
            "and, for a time budget, the largest compute-optimal model N = sqrt(C / 120)."
        ),
        input_model=BudgetInput,
        func=compute_budget,
    ),
]
