"""The offline planner as a LangChain chat model, so `create_agent` runs it like any LLM.

Protocol (one conversation):
- last message is the user's → an AIMessage with tool calls (the plan), or the final answer
  straight away when nothing needs a tool (out of scope);
- tail is ToolMessages → a second round of tool calls (allowed once), or the final answer
  composed from the results in the answer language.

Answer language: model kwarg / bound `language` ("zh"/"en"), else a system message saying
`language: zh|en` (or additional_kwargs {"language": ...}), else detected from the question.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from assistant.offline import compose as compose_answer
from assistant.offline import next_calls, plan, resolve_language
from assistant.offline.types import ToolCall, ToolResult

_LANG_RE = re.compile(r"\b(?:language|lang|answer[_ ]language)\s*[:=]\s*(zh|en)\b", re.I)
MAX_TOOL_ROUNDS = 2


class OfflinePlannerChatModel(BaseChatModel):
    """Deterministic bilingual planner; no network, no weights."""

    language: str = "auto"
    chunk_chars: int = 8

    @property
    def _llm_type(self) -> str:
        return "gpu-advisor-offline-planner"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"language": self.language}

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:  # a Runnable bound to the tools
        from langchain_core.utils.function_calling import convert_to_openai_tool

        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs)

    # ------------------------------------------------------------------ LangChain hooks
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.decide(messages, **kwargs))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        msg = self.decide(messages, **kwargs)
        if msg.tool_calls:
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        {
                            "name": tc["name"],
                            "args": json.dumps(tc["args"], ensure_ascii=False),
                            "id": tc["id"],
                            "index": i,
                            "type": "tool_call_chunk",
                        }
                        for i, tc in enumerate(msg.tool_calls)
                    ],
                )
            )
            return
        text = msg.content if isinstance(msg.content, str) else ""
        for piece in re.findall(rf".{{1,{self.chunk_chars}}}", text, re.S):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="", additional_kwargs=msg.additional_kwargs, response_metadata={"finish_reason": "stop"}
            )
        )

    # ------------------------------------------------------------------ the decision
    def decide(self, messages: list[BaseMessage], **kwargs: Any) -> AIMessage:
        question, history, tail = _split(messages)
        language = _language(kwargs.get("language") or self.language, messages, question, history)
        allowed = _tool_names(kwargs.get("tools"))
        rounds = sum(1 for m in tail if isinstance(m, AIMessage) and m.tool_calls)
        results = _results(tail)
        if rounds == 0:
            calls = _allowed(plan(question, history, language), allowed)
            if calls:
                return _tool_message(calls)
        elif rounds < MAX_TOOL_ROUNDS:
            calls = _allowed(next_calls(question, history, language, results), allowed)
            if calls:
                return _tool_message(calls)
        answer = compose_answer(question, history, language, results)
        return AIMessage(
            content=answer.text, additional_kwargs={"citations": answer.citations, "language": answer.language}
        )


def _split(messages: list[BaseMessage]) -> tuple[str, list[dict], list[BaseMessage]]:
    """(last user question, earlier turns as dicts, messages after the last user message)."""
    last = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    question = _text(messages[last].content) if last >= 0 else ""
    history: list[dict] = []
    for m in messages[: max(last, 0)]:
        if isinstance(m, HumanMessage):
            history.append({"role": "user", "content": _text(m.content)})
        elif isinstance(m, AIMessage) and not m.tool_calls and _text(m.content):
            history.append({"role": "assistant", "content": _text(m.content)})
    return question, history, messages[last + 1 :]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content or "")


def _language(preference: str | None, messages: list[BaseMessage], question: str, history: list[dict]) -> str:
    if preference in ("zh", "en"):
        return preference
    for m in messages:
        if isinstance(m, SystemMessage):
            lang = m.additional_kwargs.get("language")
            if lang in ("zh", "en"):
                return lang
            found = _LANG_RE.search(_text(m.content))
            if found:
                return found.group(1).lower()
    return resolve_language("auto", question, history)


def _tool_names(tools: Any) -> set[str] | None:
    if not tools:
        return None
    names = set()
    for t in tools:
        if isinstance(t, dict):
            names.add((t.get("function") or {}).get("name") or t.get("name"))
        else:
            names.add(getattr(t, "name", None))
    return {n for n in names if n}


def _allowed(calls: list[ToolCall], allowed: set[str] | None) -> list[ToolCall]:
    return calls if allowed is None else [c for c in calls if c.name in allowed]


def _tool_message(calls: list[ToolCall]) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": c.name, "args": c.args, "id": c.id, "type": "tool_call"} for c in calls]
    )


def _results(tail: list[BaseMessage]) -> list[ToolResult]:
    asked: dict[str, tuple[str, dict]] = {}
    out: list[ToolResult] = []
    for m in tail:
        if isinstance(m, AIMessage):
            for tc in m.tool_calls:
                asked[tc["id"] or ""] = (tc["name"], tc["args"])
        elif isinstance(m, ToolMessage):
            name, args = asked.get(m.tool_call_id, (m.name or "", {}))
            out.append(ToolResult(name=name or (m.name or ""), args=args, result=_parse(m), id=m.tool_call_id))
    return out


def _parse(m: ToolMessage) -> dict[str, Any]:
    if isinstance(m.artifact, dict):
        return m.artifact
    text = _text(m.content)
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return {"error": {"zh": text[:300], "en": text[:300]}} if m.status == "error" else {"text": text}
    return value if isinstance(value, dict) else {"value": value}
