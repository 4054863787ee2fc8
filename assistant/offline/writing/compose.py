"""Write the final answer from tool results only: verdict first, then numbers with units and
assumptions, alternatives, next steps, and cited sources.

Every number in the answer is copied from a tool result (or the question); nothing is computed
here except choosing which result to quote. Each sentence is written in both
languages side by side in `render.py` (natural Chinese, not a translation of the English).
"""

from __future__ import annotations

from assistant.offline.intents.legacy import INVALID, NO_DATA, OUT_OF_SCOPE, analyse
from assistant.offline.types import ComposedAnswer, ToolResult
from tools.lang import detect_language


def compose(
    question: str, history: list[dict] | None, language: str, tool_results: list[ToolResult] | list[dict]
) -> ComposedAnswer:
    lang = language if language in ("zh", "en") else detect_language(question)
    results = [
        r
        if isinstance(r, ToolResult)
        else ToolResult(
            name=r.get("name", ""), args=r.get("args") or {}, result=r.get("result") or {}, id=r.get("id", "")
        )
        for r in tool_results
    ]
    intent, slots, carried = analyse(question, history)
    from assistant.offline.writing import render

    writer = render.Writer(lang)
    if intent == OUT_OF_SCOPE and not results:
        writer.scope_statement()
    elif intent == NO_DATA and not results:
        writer.no_data_statement()
    elif intent == INVALID and not results:
        writer.invalid_input(slots.invalid)
    else:
        render.write_answer(writer, intent, slots, results, question, carried)
    citations = render.citations(results, lang, first=writer.cited)
    writer.sources(citations)
    return ComposedAnswer(text=writer.text(), citations=citations, language=lang)
