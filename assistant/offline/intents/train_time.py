"""Training time and cost: 6·N·D over the cards' sustained throughput; if the job does not fit the
named cards, the memory estimate follows (the time is moot then)."""

from __future__ import annotations

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
