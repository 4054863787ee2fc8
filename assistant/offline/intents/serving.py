"""Serving: decode tokens/s of a model on a card (memory-bandwidth bound); a serving plan (self-host
vs API, cost per million tokens, concurrency that fits); whether and how a card can be rented."""

from __future__ import annotations

import re

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


# ---- serving plans: self-host vs API, cost per million tokens, concurrency and tokens/s -------------
SERVING = "serving"
RENTABILITY = "rentability"

# Words that ask about running a model as a service (not its memory or one user's decode speed).
_SERVING_RE = re.compile(
    r"调\s*api|api\s*(?:划算|便宜|贵|还是)|自建|自己部署|自部署|self[- ]?host|vs\.?\s*(?:the\s*)?api|"
    r"百万\s*token|per\s*(?:million|1m)\s*tokens?|/\s*m(?:tok|illion)|每\s*百万|"
    r"serve\s*\d+\s*users",
    re.I,
)
# "并发多少" alone is a memory question (how many sequences fit); with a serving engine named it is a serving plan
_ENGINE_CONCURRENCY_RE = re.compile(
    r"并发(?:多少|几个|能到|上限)|多少并发|how many (?:concurrent|users|requests)", re.I
)
_RENT_RE = re.compile(
    r"能租|能不能租|可以租|租得到|租不到|哪里(?:能|可以)?租|按卡租|单卡租|买得到|can i rent|where (?:can i |to )rent|"
    r"rent (?:a |one |single )?(?:card|gpu)|available (?:in|to rent)|rentable",
    re.I,
)


def applies_serving(f: Frame) -> bool:
    return (
        has_size(f)
        and not f.training
        and f.mode in (None, "inference")
        and "how_many" not in f.cues  # "要几张4090": the card count is the question
        and (
            bool(f.monthly_tokens)
            or bool(_SERVING_RE.search(f.text))
            or bool(f.engines and _ENGINE_CONCURRENCY_RE.search(f.text))
            or bool(f.concurrency and "decode_speed" in f.cues)
        )
    )


def serving_calls(f: Frame) -> list[ToolCall]:
    out = [
        A.call(
            SERVING,
            "plan_serving",
            **A.model_args(f),
            gpu=A.gpu_arg(f, gpu) if f.gpus else gpu,
            gpus=f.gpu_count,
            precision=f.precision if f.precision in ("bf16", "fp16", "fp8", "int8", "int4") else None,
            context=f.context,
            concurrency=f.concurrency,
            monthly_output_mtok=f.monthly_tokens / 1e6 if f.monthly_tokens else None,
        )
        for gpu in (f.gpus or [A.DEFAULT_GPU])[:2]
    ]
    return out


def applies_rentability(f: Frame) -> bool:
    return bool(f.gpus) and bool(_RENT_RE.search(f.text)) and not has_size(f) and not f.budget_cny


def rentability_calls(f: Frame) -> list[ToolCall]:
    return [A.call(RENTABILITY, "gpu_rentability", gpu=A.card_name(f, g)) for g in f.gpus[:3]]
