"""One line after the verdict on a Chinese accelerator: which software stack runs it, from the guide.

Why: 「…能跑吗 用什么框架」 on an MLU / DCU / NPU / MUSA card is two questions; the fit verdict alone leaves the
second unanswered, and the CUDA defaults in the rest of the answer do not apply there. The text is the first
sentence of the vendor's section of knowledge/guide/domestic-accelerators.md (intents/stack.py asked for it), so
no stack names live here; the section is the hit whose heading shares a word with the card or the question.
"""

from __future__ import annotations

import re

from assistant.offline.intents.stack import DOC
from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+|[\u4e00-\u9fff]{2,}")


def _hits(results: list[ToolResult]) -> list[dict]:
    for r in results:
        if r.name == "search_guide" and not r.error and (r.args or {}).get("doc_id") == DOC:
            return [h for h in (r.result or {}).get("hits") or [] if isinstance(h, dict) and h.get("text")]
    return []


def _overlap(heading: str, words: str) -> int:
    low = words.lower()
    return sum(1 for w in set(_WORD.findall(heading)) if w.lower() in low)


def _first_sentence(text: str, lang: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    m = re.search(r"。" if lang == "zh" else r"(?<=[a-z0-9)`])\.\s+(?=[A-Z`])", text)  # not at 'e.g. the
    return text[: m.end()].strip() if m else text


def stack_line(w: Writer, question: str, cards: list[str], results: list[ToolResult]) -> str | None:
    """'软件栈：<the vendor section's first sentence>（见 `domestic-accelerators`）', or None without such a hit."""
    hits = _hits(results)
    if not hits:
        return None
    words = " ".join([question, *cards])
    best = max(hits, key=lambda h: _overlap(str(h.get("section") or ""), words))  # ties: the retrieval order
    if _overlap(str(best.get("section") or ""), words) == 0:
        return None
    sentence = _first_sentence(str(best["text"]), w.lang)
    section = str(best.get("section") or "")
    if (DOC, section) not in w.cited:
        w.cited.append((DOC, section))
    return w.t(f"软件栈：{sentence}（见 `{DOC}`）", f"Software stack: {sentence} (see `{DOC}`)")
