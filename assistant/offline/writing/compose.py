"""Write the final answer from tool results only: verdict first, then numbers with units and
assumptions, alternatives, next steps, and cited sources.

Every number in the answer is copied from a tool result (or the question); nothing is computed
here except choosing which result to quote. The question is read once (`reading.read`, cached) into
a Frame; each intent writes its own part, in the order of the question's parts.
"""

from __future__ import annotations

from assistant.offline.intents import STATEMENTS, analyse
from assistant.offline.intents.args import INVALID, NO_DATA, OUT_OF_SCOPE, intent_of
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
    intents, frame, carried = analyse(question, history)
    from assistant.offline.writing import accounting, render
    from assistant.offline.writing.lead import lead
    from assistant.offline.writing.render_requirement import requirement_statement

    writer = render.Writer(lang)
    primary = intents[0]
    if primary in STATEMENTS and not results:
        {
            OUT_OF_SCOPE: writer.scope_statement,
            NO_DATA: writer.no_data_statement,
            "unsized_model": lambda: writer.unsized_model_statement(frame.unknown_model or ""),
            "stated_requirement": lambda: requirement_statement(writer, frame),
            "forecast": writer.forecast_statement,
            "unlawful": lambda: writer.unlawful_statement(
                _decline_kind(frame.text or question), frame.text or question
            ),
        }.get(primary, lambda: writer.invalid_input(frame.invalid))()
    else:
        for intent, part in _parts(intents, results):
            writer.part_start = len(writer.parts["verdict"])
            render.write_answer(writer, intent, frame, part, frame.text or question, carried)
        lead(writer, frame, intents, results)
    if primary not in (OUT_OF_SCOPE, INVALID, "unlawful", "forecast"):
        accounting.not_used_line(writer, question, results, intents)
    citations = render.citations(results, lang, first=writer.cited)
    writer.sources(citations)
    return ComposedAnswer(text=writer.text(), citations=citations, language=lang)


def _decline_kind(text: str) -> str:
    from assistant.offline.intents.decline import cue_of

    return cue_of(text) or "unlawful"


def _parts(intents: list[str], results: list[ToolResult]) -> list[tuple[str, list[ToolResult]]]:
    """Results grouped by the intent that asked for them (the call id says which); the guide's
    passages and untagged results (an LLM's own calls) go with the first part."""
    if len(intents) == 1:
        return [(intents[0], results)]
    groups: dict[str, list[ToolResult]] = {name: [] for name in intents}
    for r in results:
        tag = intent_of(r.id)
        key = tag if tag in groups and r.name != "search_guide" else intents[0]
        groups[key].append(r)
    return [(name, groups[name]) for name in intents if groups[name]]
