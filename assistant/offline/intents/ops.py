"""Operations and how-to: delivery checks for a new server, a symptom described in words, and
questions the guide answers (one more look inside the best document as the follow-up)."""

from __future__ import annotations

from assistant.offline.intents import args as A
from assistant.offline.intents.args import ADVICE, DELIVERY
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall, ToolResult

NAME = ADVICE


def applies_delivery(f: Frame) -> bool:
    return "delivery" in f.cues and not has_size(f)


def applies_symptom(f: Frame) -> bool:
    # a symptom described in words (no log): the guide explains causes and checks
    return "diagnose" in f.cues and not has_size(f) and not f.gpus


def applies_price_advice(f: Frame) -> bool:
    return "price" in f.cues and not f.gpus


def applies(f: Frame) -> bool:
    return True  # the last resort: the guide


def delivery_calls(f: Frame) -> list[ToolCall]:
    return [
        A.call(DELIVERY, "delivery_checklist", gpus=f.gpu_count, model=A.gpu_arg(f)),
        A.call(DELIVERY, "search_guide", query=A.guide_query(f, DELIVERY), k=2),
    ]


def calls(f: Frame) -> list[ToolCall]:
    return [A.call(NAME, "search_guide", query=f.text.strip()[:300], k=3)]


def follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """Retrieval shows at most two sections per document, so look inside the best document once more —
    the section that answers may be its third (passages.rank picks)."""
    for r in results:
        if r.name != "search_guide" or r.error or r.args.get("doc_id"):
            continue
        from assistant.offline.writing.passages import rank

        hits = [h for h in r.result.get("hits") or [] if isinstance(h, dict) and not h.get("low_relevance")]
        best = rank(hits, str(r.args.get("query") or ""))[:1]
        if best and best[0].get("kind", "guide") == "guide" and best[0].get("doc_id"):
            call = A.call(NAME, "search_guide", query=r.args.get("query"), k=6, doc_id=best[0]["doc_id"])
            if "doc_id" in call.args:
                return [call]
        break
    return []
