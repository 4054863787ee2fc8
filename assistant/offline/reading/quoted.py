"""A memory requirement someone else stated: the official docs ("官方说明40G显存就能搞定"), a maintainer quoted in
parentheses ("（维护者：预计 >20G 显存可用）"), or an earlier answer ("你的模型要40G以上显存").

The figure is read as GB of GPU memory per card — how model cards and maintainers state requirements (one card
holds the model; data-parallel training keeps a full copy on every card, PyTorch DDP docs,
https://pytorch.org/docs/stable/notes/ddp.html). The answer says it assumed so. A total the user adds up for their
own cards ("4张3090 共96G") is not a requirement: `stated_total_gb` reads it so the answer can say it does not pool.
"""

from __future__ import annotations

import re

_NUM = r"(?P<n>\d+(?:\.\d+)?)\s*(?:gb|g|gib)(?![a-z0-9])"
# who or what states the figure, then the figure, within one clause
_SOURCE = (
    r"(?:官方|维护者|作者|文档|readme|说明|硬件要求|硬件说明|配置要求|要求|推荐|建议|需要|需|要|预计|至少|最低|官网|"
    r"maintainer|official|docs?|readme|requires?|requirements?|needs?|recommended|at least|minimum)"
)
_REQ_RES = (
    # 「官方全参数微调硬件说明40G显存就能搞定」「需要 40G 以上显存」「预计 >20G 显存可用」
    re.compile(
        rf"{_SOURCE}[^。；;！!？?\n]{{0,24}}?(?:>|≥|大于|超过|至少|不低于|不少于)?\s*{_NUM}\s*(?:以上)?\s*(?:的)?\s*(?:显存|vram|gpu memory|memory)?",
        re.I,
    ),
    # 「40G显存就能搞定 / 就够 / 可用 / 能跑」
    re.compile(
        rf"{_NUM}\s*(?:以上)?\s*(?:的)?\s*(?:显存|vram)\s*(?:就|即可|便)?\s*(?:能搞定|够|够用|可用|能跑|可以跑|能训练|可以)",
        re.I,
    ),
)
# the user's own total: 「共96G」「一共 96G 显存」「合计80G」「96GB in total」
_TOTAL_RE = re.compile(
    rf"(?:共|一共|总共|合计|总计|加起来|in total|total(?:ling)? of|combined)\s*(?:有)?\s*{_NUM}", re.I
)


# "things that would require a 48gb card", 「如果需要48G的话」: a what-if, not a requirement someone stated
_HYPOTHETICAL_BEFORE = re.compile(r"(?:would|could|might|that|如果|假如|要是|万一)\s*(?:\w+\s+)?$", re.I)


def stated_total_gb(text: str) -> float | None:
    m = _TOTAL_RE.search(text or "")
    return float(m.group("n")) if m else None


def stated_requirement_gb(text: str) -> float | None:
    """The per-card requirement someone stated, in GB; None when no source word stands before a figure. A total the
    user adds up for their own cards and figures about a card's own size ("24G显存的3090") are not requirements."""
    t = _TOTAL_RE.sub(" ", text or "")
    for rx in _REQ_RES:
        for m in rx.finditer(t):
            gb = float(m.group("n"))
            hypothetical = _HYPOTHETICAL_BEFORE.search(t[max(0, m.start() - 12) : m.start()])
            own_card = _CARD_BEFORE.search(t[max(0, m.start("n") - 10) : m.start("n")])  # 「A100 40G显卡」
            if 4 <= gb <= 2000 and not hypothetical and not own_card and not _card_size_right_after(t, m.end()):
                return gb
    return None


# a card's name just before the figure: the card's own size ("A100 40G", 「4090 24G」), not a requirement
_CARD_BEFORE = re.compile(r"(?:rtx|gtx|[a-z]{1,2}\d{2,4}[a-z]*|\d{4}(?:\s*ti)?)\s*$", re.I)


def _card_size_right_after(text: str, end: int) -> bool:
    """'需要 24G 的 3090' names a card's size, not a requirement for the job."""
    return bool(re.match(r"\s*(?:的)?\s*(?:rtx|gtx|a\d|h\d|l\d|v100|t4|\d{4})", text[end : end + 12], re.I))


# LMDeploy before v0.1 read cache_max_entry_count as the number of sequences the KV cache holds (an integer, the
# maintainer's formula in InternLM/lmdeploy#684); from v0.2.1 it is a fraction of free memory (0.8). Only the
# integer form is a sequence count.
_ENTRY_COUNT_RE = re.compile(
    r"cache_max_entry_count\D{0,12}?(?:调整为|调成|改为|改成|设为|设置为|设成|=|to)\s*(?P<n>\d+)(?![\d.])", re.I
)


def quoted_sequences(text: str) -> int | None:
    """The sequence count an integer cache_max_entry_count sets ('将cache_max_entry_count调整为12' → 12)."""
    found = [int(m.group("n")) for m in _ENTRY_COUNT_RE.finditer(text or "")]
    return found[-1] if found and found[-1] >= 1 else None
