"""Serving speed: decode tokens/s of a model on a card (memory-bandwidth bound)."""

from __future__ import annotations

from assistant.offline.intents import args as A
from assistant.offline.intents.args import DECODE_SPEED
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall

NAME = DECODE_SPEED


def applies(f: Frame) -> bool:
    return (
        "decode_speed" in f.cues
        and has_size(f)
        and not f.training
        and f.mode in (None, "inference")
        and not f.concurrency
        and "plan" not in f.cues
    )


def calls(f: Frame) -> list[ToolCall]:
    out = []
    for gpu in (f.gpus or [A.DEFAULT_GPU])[:2]:
        out.append(
            A.call(
                NAME,
                "decode_speed",
                **A.model_args(f),
                gpu=A.gpu_arg(f, gpu) if f.gpus else gpu,
                precision=f.precision if f.precision in ("bf16", "fp16", "fp8", "int8", "int4") else "bf16",
                context=f.context or 4096,
                gpus=f.gpu_count or 1,
            )
        )
    return out
