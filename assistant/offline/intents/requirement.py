"""A requirement someone else stated, checked card by card: 「官方说40G显存就能搞定，我4张3090 24G 共96G 还是 OOM」,
「（维护者：预计 >20G 显存可用）… 8G？16？」.

The model is not in the catalog (or not named), so nothing can be sized; what can be answered is the arithmetic
on the figures given: a per-card requirement against each card's own memory. Memory does not pool across cards
under data parallelism — every card holds a full replica (PyTorch DDP docs,
https://pytorch.org/docs/stable/notes/ddp.html); only sharding (ZeRO/FSDP, https://arxiv.org/abs/1910.02054) or
splitting the model spreads it. Answered as a statement (no tool has the model's size).
"""

from __future__ import annotations

import re

from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall

NAME = "stated_requirement"

# someone else's words quoted in parentheses: 「（维护者：…）」 "(maintainer - …)"
_QUOTE_RE = re.compile(r"[（(][^（()）]*?(?:维护者|作者|官方|maintainer|author|official)[^（()）]*[)）]", re.I)


def applies(f: Frame) -> bool:
    if not f.required_gb or has_size(f) or f.is_log or f.pipeline:
        return False
    if f.cues & {"price", "time"}:
        return False
    return bool(cards(f)) or bool(f.cues & {"fit", "how_many"}) or "oom_report" in f.mentions


def cards(f: Frame) -> list[tuple[str, float, int]]:
    """(label, GB per card, count) for the user's own cards: capacities asked about ('8G？16？'), the GPUs named
    outside a quoted maintainer remark, or a bare '24G显存'."""
    if f.card_sizes and not f.gpus:
        return [(f"{gb:g} GB", float(gb), 1) for gb in f.card_sizes[:4]]
    quoted = " ".join(m.group(0).lower() for m in _QUOTE_RE.finditer(f.text or ""))
    out: list[tuple[str, float, int]] = []
    for g in f.gpu_mentions:
        if g.text and g.text.lower() in quoted:
            continue  # the maintainer's test card, not the user's
        gb = g.memory_gb or _table_gb(g.name)  # the size the user gave ("A100 40G") before the table's
        if gb:
            out.append((g.name, gb, g.count or f.gpu_count or 1))
    if not out and not f.gpu_mentions and f.gpus:
        gb = _table_gb(f.gpus[0])
        if gb:
            out.append((f.gpus[0], gb, f.gpu_count or 1))
    if not out and f.vram_gb:
        out.append((f"{f.vram_gb:g} GB", f.vram_gb, f.gpu_count or 1))
    return out


def _table_gb(name: str) -> float | None:
    from tools.gpus import resolve_gpu

    try:
        return float(resolve_gpu(name).memory_gb)
    except Exception:  # a card the table lacks: nothing to compare  # noqa: BLE001
        return None


def calls(f: Frame) -> list[ToolCall]:
    return []
