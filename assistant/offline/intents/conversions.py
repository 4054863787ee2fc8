"""Conversions: units (GB ↔ GiB, MiB), nccl-tests algbw → busbw, published GPU-hours → implied MFU."""

from __future__ import annotations

from assistant.offline.intents import args as A
from assistant.offline.intents.args import BUSBW, CONVERT, IMPLIED_MFU
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall


def applies_convert(f: Frame) -> bool:
    return bool(f.convert) and not has_size(f)


def applies_busbw(f: Frame) -> bool:
    return bool(f.algbw_gbs) and (f.gpu_count or 0) >= 1


def applies_mfu(f: Frame) -> bool:
    return bool(f.gpu_hours and f.tokens and has_size(f) and f.gpus and ("mfu" in f.cues or "time" not in f.cues))


def convert_calls(f: Frame) -> list[ToolCall]:
    value, src, dst = f.convert  # type: ignore[misc]
    return [A.call(CONVERT, "convert_units", value=value, from_unit=src, to_unit=dst)]


def busbw_calls(f: Frame) -> list[ToolCall]:
    return [
        A.call(BUSBW, "busbw_from_algbw", algbw_gbs=f.algbw_gbs, n_gpus=f.gpu_count, op=f.collective or "all_reduce"),
        A.call(BUSBW, "search_guide", query=A.guide_query(f, BUSBW), k=2),
    ]


def mfu_calls(f: Frame) -> list[ToolCall]:
    return [
        A.call(
            IMPLIED_MFU,
            "implied_mfu",
            **A.train_model_args(f),
            tokens=f.tokens,
            gpu_hours=f.gpu_hours,
            gpu=A.gpu_arg(f),
            precision=f.precision if f.precision in ("bf16", "fp16", "fp8", "tf32") else None,
        ),
        A.call(IMPLIED_MFU, "search_guide", query=A.guide_query(f, IMPLIED_MFU), k=2),
    ]
