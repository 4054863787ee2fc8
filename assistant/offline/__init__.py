"""The offline planner: a deterministic, bilingual "model" that plans tool calls and writes answers.

`plan()` turns a question (plus earlier turns) into tool calls; `next_calls()` is the one allowed
second round; `compose()` turns the tool results into the final answer; `answer()` runs the whole
loop without LangChain. `chat_model.OfflinePlannerChatModel` wraps the same functions as a
LangChain chat model for `create_agent` — LangChain is imported only there.

Three rooms, data flowing one way (docs/architecture.md): `reading/` (question → typed Frame:
names from knowledge/, pastes via tools.diagnosis.detect, the quantity grammar), `intents/` (Frame →
tool calls, one module per family, one PRECEDENCE list) and `writing/` (results → the answer: verdict,
key lines, collapsible details, the not-used line, sources).
"""

from __future__ import annotations

from typing import Any, Callable

from assistant.offline.types import ComposedAnswer, ToolCall, ToolResult

# Imported eagerly: the function `compose` must shadow the submodule of the same name.
from assistant.offline.writing.compose import compose

__all__ = [
    "plan",
    "next_calls",
    "compose",
    "answer",
    "resolve_language",
    "ToolCall",
    "ToolResult",
    "ComposedAnswer",
    "OfflinePlannerChatModel",
]


def plan(question: str, history: list[dict] | None = None, language: str = "auto") -> list[ToolCall]:
    from assistant.offline.intents import plan as _plan

    return _plan(question, history, language)


def next_calls(
    question: str, history: list[dict] | None, language: str, tool_results: list[ToolResult]
) -> list[ToolCall]:
    from assistant.offline.intents import next_calls as _next

    return _next(question, history, language, tool_results)


def answer(
    question: str,
    history: list[dict] | None = None,
    language: str = "auto",
    runner: Callable[[str, dict], dict] | None = None,
) -> tuple[ComposedAnswer, list[ToolResult]]:
    """The whole offline loop without LangChain: plan → run tools → (one more round) → compose.

    `runner(name, args) -> dict` defaults to `tools.registry.run_tool`. Used by tests and benchmarks;
    the agent runs the same steps through `OfflinePlannerChatModel`.
    """
    if runner is None:
        from tools.registry import run_tool

        runner = run_tool
    lang = resolve_language(language, question, history)
    results: list[ToolResult] = []
    calls = plan(question, history, lang)
    for _round in range(2):
        if not calls:
            break
        results += [ToolResult(c.name, c.args, runner(c.name, c.args), c.id) for c in calls]
        calls = next_calls(question, history, lang, results) if _round == 0 else []
    return compose(question, history, lang, results), results


def resolve_language(preference: str | None, question: str, history: list[dict] | None = None) -> str:
    """zh/en: an explicit preference, else the question's language; a bare pasted log (no words of
    its own) follows the language of the conversation so far."""
    if preference in ("zh", "en"):
        return preference
    from tools.lang import detect_language

    lang = detect_language(question)
    if lang == "en" and history:
        import re

        from assistant.offline.reading.slots import extract

        # a bare log, or a turn with no words in either language (「8G ？16？」, "24G?"): the conversation's language
        if extract(question).is_log or not re.search(r"[a-z]{3,}", question or "", re.I):
            for turn in reversed(history):
                if turn.get("role") == "user" and isinstance(turn.get("content"), str):
                    return detect_language(turn["content"])
    return lang


def __getattr__(name: str) -> Any:
    if name == "OfflinePlannerChatModel":
        from assistant.offline.chat_model import OfflinePlannerChatModel

        return OfflinePlannerChatModel
    raise AttributeError(name)
