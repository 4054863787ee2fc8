"""「H20 和 A800 哪个适合训练 70B」/ "4090 or 3090 for serving a 7B?": which card, and why.

A comparison of two to four cards for one named job is answered with the choice on line 1 (tools/card_choice:
fewest cards that hold the job, then compute for training or memory bandwidth for inference, priced), not
with a single-card memory verdict per card, which answers a different question.
"""

from __future__ import annotations

import re

from assistant.offline.intents import args as A
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall

NAME = "card_choice"

# the reading layer's "compare" cue, or a suitability word the cue does not carry
_SUITS_RE = re.compile(r"哪张|哪款|选什么|更适合|更合适|适合|\bwhich\b|\bor\b", re.I)
# "为什么4090比V100快5倍" asks for a cause, not a choice
_WHY_RE = re.compile(r"为什么|为啥|什么原因|原因|怎么回事|\bwhy\b|reason", re.I)


def _cards(f: Frame) -> list[str]:
    if f.gpu_alt_memory_gb and len(f.gpus) == 1 and f.gpu_memory_gb:
        # 「A100 40G和80G租哪个」: one card at two sizes is a choice between two table rows
        return [A.card_at_size(f, f.gpu_memory_gb), A.card_at_size(f, f.gpu_alt_memory_gb)]
    return list(dict.fromkeys(f.gpus))[:4]


# "on a tight budget" / 「预算有限」: the cheapest setup that fits is the question (a plan), not which of two cards
_BUDGET_RE = re.compile(r"budget|cheap|afford|预算|便宜|省钱|经费|成本最低", re.I)


def applies(f: Frame) -> bool:
    """Two or more cards, a sized job, a "which" word, and no card count of the user's own (「两张4090还是一张A100」
    compares setups the user already sized; the memory rules answer that), and no budget (a plan answers it)."""
    return (
        len(_cards(f)) >= 2
        and not f.budget_cny
        and not _BUDGET_RE.search(f.text)
        and has_size(f)
        and ("compare" in f.cues or bool(_SUITS_RE.search(f.text)))
        and not _WHY_RE.search(f.text)
        and "how_many" not in f.cues  # "how many 4090s vs how many H100s": each card's count is the question
        and not any(g.count for g in f.gpu_mentions)
        and f.gpu_count is None
    )


def calls(f: Frame) -> list[ToolCall]:
    """The choice first; then the memory rules' own per-card estimates, which stay in the details."""
    from assistant.offline.intents import memory

    kw = {k: v for k, v in A.memory_kwargs(f).items() if k not in ("gpu", "gpus")}
    if not kw.get("mode"):
        kw["mode"] = "lora" if f.finetune else "full"  # a bare 微调 is compared as LoRA, as the memory rules do
    if not kw.get("zero") and kw.get("mode") != "inference":
        kw["zero"] = 3  # a training job spread over several cards shards with ZeRO-3/FSDP
    cards = [A.card_name(f, g) or g for g in _cards(f)]
    return [A.call(NAME, "choose_gpu", cards=cards, **kw), *memory.calls(f)]
