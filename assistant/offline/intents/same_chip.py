"""A training-time question that names two cards of one die adds their spec rows.

Why: 「A100-40G 换成 A100-80G 为什么还是 40 小时」 or 「A800 上 25 小时，他们用 A100 应该更快吧」 asks about a move
between two SKUs of the same chip; the spec table's same-chip rule (knowledge/gpus.yaml `variant_rules`: equal
peak compute, only memory or NVLink differ) is the answer, and the time estimate alone never says it. Cards that
are different chips add nothing here: the time and rescale intents already compare them by their peaks.
"""

from __future__ import annotations

from assistant.offline.intents import args as A
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall

TIME_INTENTS = (A.TRAIN_TIME, "train_time_completed", "rescale", "published_run", "carry_run")


def card_names(f: Frame) -> list[str]:
    """The two cards as the spec table reads them: two names, or one name at two stated memory sizes."""
    if len(f.gpus) == 1 and len(f.card_sizes) >= 2:
        return [A.card_at_size(f, gb) for gb in f.card_sizes[:2]]
    return [n for n in (A.card_name(f, g) for g in f.gpus[:2]) if n]


def same_chip_calls(f: Frame, intents: list[str]) -> list[ToolCall]:
    """gpu_specs for the two cards when they are one chip with the same compute and a time intent answers."""
    if A.SPECS in intents or not any(i in TIME_INTENTS for i in intents):
        return []
    names = card_names(f)
    if len(names) != 2:
        return []
    from tools.errors import ToolInputError
    from tools.gpus import compare_gpus, variant_findings

    try:
        specs = compare_gpus(names).gpus
    except (ToolInputError, ValueError):
        return []
    if len({s.id for s in specs}) < 2 or not any(
        v.rule in ("memory_variant", "same_chip") for v in variant_findings(specs)
    ):
        return []
    return [A.call(intents[0], "gpu_specs", gpus=names)]
