"""Training time and cost: 6·N·D over the cards' sustained throughput; if the job does not fit the
named cards, the memory estimate follows (the time is moot then)."""

from __future__ import annotations

import re

from assistant.offline.intents import args as A
from assistant.offline.intents.args import TRAIN_TIME
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall, ToolResult

NAME = TRAIN_TIME


def applies(f: Frame) -> bool:
    if ("time" in f.cues or f.tokens) and has_size(f) and ("time" in f.cues or "price" in f.cues or f.tokens):
        return not ("plan" in f.cues and (f.budget_cny or f.deadline_hours))
    return False


def calls(f: Frame) -> list[ToolCall]:
    return [
        A.call(
            NAME,
            "estimate_training_time",
            **A.train_model_args(f),
            tokens=f.tokens,
            gpu=A.gpu_arg(f) or A.DEFAULT_GPU,
            n_gpus=f.gpu_count,
            nodes=f.nodes,
            mode=A.train_mode(f),
            precision=f.precision,
            zero3=True if f.zero_stage == 3 else None,
        ),
        A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2),
    ]


def follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    done = {r.name for r in results}
    if f.gpus and has_size(f) and "estimate_memory" not in done:
        # "8张4090训练13B要多久": the time is moot if the job does not fit the named cards
        mode = A.train_mode(f)
        kw = dict(A.memory_kwargs(f), mode="full" if mode == "pretrain" else mode)
        return [A.call(NAME, "estimate_memory", **kw)]
    return []


# ---- step time: compute vs communication of multi-GPU training over the real link ----------------
STEP_TIME = "step_time"

_STEP_RE = re.compile(
    r"为什么.{0,6}慢|这么慢|很慢|太慢|通信.{0,6}(?:占|多少|开销|瓶颈)|没有\s*nvlink|无\s*nvlink|不带\s*nvlink|"
    r"慢多少|so slow|why (?:is|so) .{0,20}slow|communication (?:share|overhead|time)|without nvlink|no nvlink",
    re.I,
)
_STRATEGIES = {1: "zero1", 2: "zero2", 3: "zero3"}


def applies_step_time(f: Frame) -> bool:
    multi = (f.gpu_count or 0) > 1 or (f.nodes or 0) > 1 or bool(re.search(r"多卡|multi[- ]gpu", f.text, re.I))
    return bool(f.gpus) and multi and bool(_STEP_RE.search(f.text)) and (f.training or bool(f.zero_stage))


def step_time_calls(f: Frame) -> list[ToolCall]:
    text = f.text.lower()
    strategy = (
        _STRATEGIES.get(f.zero_stage or 0)
        or ("fsdp" if "fsdp" in text else None)
        or ("ddp" if "ddp" in text else "zero3" if f.zero_stage is None and "zero" in text else None)
    )
    size = {} if A.train_model_args(f).get("model") else {"params_b": f.params_b or 7.0}
    mode = A.train_mode(f)
    return [
        A.call(
            STEP_TIME,
            "estimate_step_time",
            gpu=A.gpu_arg(f),
            n_gpus=f.gpu_count or 8,
            **{k: v for k, v in A.train_model_args(f).items() if k == "model"},
            **size,
            mode=mode if mode in ("full", "lora", "qlora") else None,
            strategy=strategy or "ddp",
            nodes=f.nodes,
            network=f.network,
        )
    ]
