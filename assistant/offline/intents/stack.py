"""A fit question on a Chinese accelerator also asks which software runs it: one guide call for the stack.

Why: 「寒武纪MLU370能跑qwen2.5-7b推理吗 用什么框架」 wants the verdict on that card *and* the framework; a CUDA-only
answer ("start vLLM with --max-model-len") is wrong on an MLU, a DCU or an NPU. Which cards are non-NVIDIA is the
table's `is_nvidia` flag; a card the table lacks counts when its words meet the declared subject of
knowledge/guide/domestic-accelerators.md (its front matter `about['*']` regex: the one vocabulary). The call searches
that document only, so the answer can point to the vendor's section (writing/stack_line.py).
"""

from __future__ import annotations

import re

from assistant.offline.intents import args as A
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall

DOC = "domestic-accelerators"
FIT_INTENTS = (A.MEMORY, A.MIN_GPUS, A.MAX_FIT)


def _subject():
    from tools.retrieval.subjects import guide_subject

    return guide_subject(DOC)


def domestic_cards(f: Frame) -> list[tuple[str, str | None]]:
    """(name as read, table id or None) for each named card that is not an NVIDIA GPU."""
    from tools.errors import ToolInputError
    from tools.gpus import resolve_gpu

    rx = _subject()
    out: list[tuple[str, str | None]] = []
    for g in f.gpu_mentions:
        if g.gpu_id:
            try:
                spec = resolve_gpu(g.gpu_id)
            except ToolInputError:
                continue
            if not spec.is_nvidia:
                out.append((spec.name, spec.id))
        elif rx is not None and (rx.search(g.text.lower()) or rx.search((f.text or "").lower())):
            out.append((g.name, None))
    return out


def stack_calls(f: Frame, intents: list[str]) -> list[ToolCall]:
    """The guide call for the named card's stack, when the question is a fit question on such a card."""
    if not intents or intents[0] not in FIT_INTENTS:
        return []
    cards = domestic_cards(f)
    if not cards:
        return []
    from tools.lang import has_cjk

    topic = (
        "软件栈 PyTorch 插件 推理框架" if has_cjk(f.text or "") else "software stack PyTorch plugin serving framework"
    )
    query = " ".join([(f.text or "").strip(), *(name for name, _ in cards[:2]), topic])
    return [A.call(intents[0], "search_guide", query=query[:300], k=6, doc_id=DOC)]


def asks_about_the_stack(f: Frame) -> bool:
    """The question's words beyond the card names meet the guide's declared subject (「S4000 容器里 mthreads-gmi
    看不到驱动」): a software question the guide answers, not a request for the card's spec sheet."""
    rx = _subject()
    if rx is None or not domestic_cards(f):
        return False
    rest = (f.text or "").lower()
    for g in f.gpu_mentions:
        rest = rest.replace(g.text.lower(), " ")
    if rx.search(rest):
        return True
    # 「MLU370-X8 用什么框架跑大模型」: words beyond the name that ask for no job, figure or spec (no cue at all)
    return not f.cues and len(re.sub(r"[\s\W]+", "", rest)) >= 4


def with_card_names(f: Frame, query: str) -> str:
    """The query plus the table names of the named Chinese accelerators ('MLU370-X8' → 'Cambricon MLU370-X8 …'): the
    vendor word finds that vendor's section of the guide, which the model number alone does not."""
    names = [name for name, gpu_id in domestic_cards(f) if gpu_id and name.lower() not in query.lower()]
    return " ".join([query, *names]).strip()
