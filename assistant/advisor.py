"""The advisor API: `ask()` and `stream()` — one question (plus history) in, a checked answer out.

Shared by the CLI (`ask`, `chat`), the page and the evals (see docs / advisor_api contract).

- The offline planner (default) answers deterministically through the same agent loop.
- An OpenAI-compatible LLM answers when `backend="openai"`; its answer passes the numeric
  grounding guard (one repair turn allowed). Any LLM failure — connection error, timeout,
  429/5xx after bounded retries, a malformed tool call, endless tool calls hitting the step
  limit, numbers that stay ungrounded — gives the offline answer instead, with a visible
  bilingual notice, `backend="offline (fallback)"` and `fallback_reason`.
- The API key never appears in answers, notices, `fallback_reason` or logs.

Streaming: `stream()` yields tool_call / tool_result / token / notice events and ends with
`final`. The token texts concatenate to exactly `AskResult.answer`; for the LLM back-end the
answer is released only after the grounding guard passed, so no unchecked number is shown.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any, Generator, Iterator, Literal

from pydantic import BaseModel, Field

from assistant.grounding import check as check_grounding
from assistant.prompts import repair_prompt
from assistant.settings import BackendSettings, scrub
from tools.errors import ToolInputError
from tools.lang import detect_language

__all__ = ["ask", "stream", "AskResult", "ToolCallRecord", "Citation", "fallback_notice", "resolve_language"]

log = logging.getLogger(__name__)

# Facts the system prompt states (units) may be repeated in an answer.
_UNIT_FACTS = "GB = 10^9 bytes = 1000^3; GiB = 2^30 bytes = 1024^3; MiB = 2^20; 1 TB = 1000 GB"
_TOKEN_PIECE = re.compile(r".{1,16}", re.S)


class ToolCallRecord(BaseModel):
    name: str
    args: dict[str, Any]
    result: dict[str, Any]


class Citation(BaseModel):
    doc_id: str
    title: str = ""
    section: str = ""
    origin: Literal["guide", "user"] = Field("guide", description="'user' = the user's own document, never the guide")


class AskResult(BaseModel):
    answer: str
    language: Literal["zh", "en"]
    backend: str = Field(description='"offline" | "openai" | "offline (fallback)"')
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    grounded: bool
    latency_ms: float
    fallback_reason: str | None = None


class LLMFailure(Exception):
    """The LLM back-end could not produce a trustworthy answer; `code` says why."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


_REASONS: dict[str, tuple[str, str]] = {
    "connection_error": ("连接不上大模型接口", "Could not connect to the LLM endpoint"),
    "timeout": ("大模型接口响应超时", "The LLM endpoint timed out"),
    "rate_limited": ("大模型接口一直限流，重试后仍失败", "The LLM endpoint kept rate-limiting after retries"),
    "server_error": ("大模型接口服务端出错，重试后仍失败", "The LLM endpoint returned server errors after retries"),
    "http_error": ("大模型接口返回了错误", "The LLM endpoint returned an error"),
    "malformed_tool_call": ("大模型给出的工具调用格式有误", "The LLM sent a malformed tool call"),
    "malformed_response": ("大模型接口返回的不是正常的对话结果", "The LLM endpoint's reply was not a chat completion"),
    "step_limit": ("大模型反复调用工具，超过了步数上限", "The LLM kept calling tools past the step limit"),
    "ungrounded": ("大模型的回答里有查不到出处的数字", "The LLM's answer had numbers with no source"),
    "missing_api_key": ("没有配置大模型的 API Key", "No API key is configured for the LLM"),
    "empty_answer": ("大模型没有给出回答", "The LLM gave no answer"),
    "llm_error": ("大模型调用失败", "The LLM call failed"),
    "visitor_endpoint_disabled": (
        "本页面不接受自定义 Base URL（运营方可用 GPU_ADVISOR_ALLOW_VISITOR_ENDPOINT 开启）",
        "This page does not accept a custom Base URL (the operator can enable GPU_ADVISOR_ALLOW_VISITOR_ENDPOINT)",
    ),
    "visitor_key_required": (
        "使用自己的 Base URL 时必须填写自己的 API Key",
        "With your own Base URL you must enter your own API key",
    ),
    "visitor_endpoint_invalid": (
        "Base URL 无效（须为 http(s)://主机/…，不含用户名密码）",
        "Invalid Base URL (must be http(s)://host/… without credentials)",
    ),
    "visitor_endpoint_not_allowed": (
        "这个 Base URL 的主机不在运营方允许的列表里",
        "This Base URL's host is not on the operator's allow-list",
    ),
    "tool_error": ("工具计算出错", "A tool failed while computing"),
    "deadline": ("回答超过了总时限", "The answer ran past the overall deadline"),
    "reply_too_long": ("大模型的回答超过了长度上限", "The LLM's reply was over the length limit"),
    "tool_call_limit": ("大模型一次调用的工具太多", "The LLM called too many tools in one turn"),
}


def fallback_notice(code: str) -> str:
    """The visible, bilingual line that tells the user the LLM was not used (no digits, no key)."""
    zh, en = _REASONS.get(code, _REASONS["llm_error"])
    return f"⚠️ {zh}，以下是离线规划器的答案。 / {en}; this is the offline planner's answer."


def resolve_language(language: str, question: str, history: list[dict] | None = None) -> Literal["zh", "en"]:
    """An explicit choice, else the question's language; a bare pasted log (no words of its own) answers in
    the language of the conversation so far (a Chinese user pasting `dmesg` wants a Chinese reply)."""
    if language in ("zh", "en"):
        return language  # type: ignore[return-value]
    if language not in ("auto", "", None):
        raise ToolInputError(
            f"不支持的语言 {language}（可选 auto、zh、en）",
            f"Unsupported language {language} (choose auto, zh or en)",
            field="language",
            suggestions=["auto", "zh", "en"],
        )
    if history:
        from assistant.offline import resolve_language as follow_conversation

        return follow_conversation("auto", question, history)  # type: ignore[return-value]
    return detect_language(question)


# One limit for every surface (CLI, page, API): long enough for a full `nvidia-smi -q` of 8 GPUs plus
# a dmesg excerpt, short enough that a stray multi-megabyte paste is refused at once.
MAX_QUESTION_CHARS = 200_000
# Per-answer limits (docs/reliability.md). History: the most recent turns that fit, oldest dropped first —
# a 10 MB history must not cost minutes of CPU; older turns add nothing a follow-up needs.
MAX_HISTORY_TURNS = 24
MAX_HISTORY_CHARS = 60_000
# The LLM: tool calls in one turn, and the length of its final answer (the page shows ~20,000 characters).
MAX_TOOL_CALLS_PER_TURN = 8
MAX_ANSWER_CHARS = 20_000


def trim_history(history: list[dict] | None) -> list[dict]:
    """The newest turns within MAX_HISTORY_TURNS and MAX_HISTORY_CHARS (a longer single turn is cut)."""
    kept: list[dict] = []
    total = 0
    for turn in reversed([t for t in (history or []) if isinstance(t, dict)][-MAX_HISTORY_TURNS:]):
        content = turn.get("content")
        if not isinstance(content, str):
            continue
        room = MAX_HISTORY_CHARS - total
        if room <= 0:
            break
        if len(content) > room:
            content = content[-room:]
        total += len(content)
        kept.append({**turn, "content": content})
    return list(reversed(kept))


def ask(
    question: str,
    *,
    history: list[dict] | None = None,
    backend: str | None = None,
    language: str = "auto",
    settings: BackendSettings | None = None,
) -> AskResult:
    """Answer one question (non-streaming model calls). See module docstring."""
    for event in _Run(question, history, backend, language, settings, tokens=False).events():
        if event["type"] == "final":
            return event["result"]
    raise RuntimeError("advisor run ended without a final result")  # pragma: no cover


def stream(
    question: str,
    *,
    history: list[dict] | None = None,
    backend: str | None = None,
    language: str = "auto",
    settings: BackendSettings | None = None,
) -> Iterator[dict]:
    """Answer one question as events: tool_call, tool_result, token, notice, then final."""
    yield from _Run(question, history, backend, language, settings, tokens=True).events()


# --------------------------------------------------------------------------------------------


INTERNAL_ERROR = (
    "抱歉，这个问题我这边出了内部错误（已记录，不是你的输入有问题）。换个说法、或把问题拆成几句再问一次。\n\n"
    "Sorry, something went wrong on my side answering this (it is logged; your input is not at fault). "
    "Try rephrasing, or ask it in smaller parts."
)


@dataclass
class _Attempt:
    """What one pass of the agent loop produced."""

    new_messages: list[Any] = field(default_factory=list)
    records: list[ToolCallRecord] = field(default_factory=list)
    answer: str = ""
    final_message: Any = None


def _history_messages(history: list[dict] | None) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage

    out: list[Any] = []
    for turn in history or []:
        role = turn.get("role") if isinstance(turn, dict) else None
        content = turn.get("content") if isinstance(turn, dict) else None
        if not isinstance(content, str) or not content.strip():
            continue
        if role in ("user", "human"):
            out.append(HumanMessage(content))
        elif role in ("assistant", "ai"):
            out.append(AIMessage(content))
    return out


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            b if isinstance(b, str) else str(b.get("text", "")) for b in content if isinstance(b, (str, dict))
        )
    return str(content or "")


def _tool_result(message: Any) -> dict[str, Any]:
    artifact = getattr(message, "artifact", None)
    if isinstance(artifact, dict):
        return artifact
    text = _text_of(message.content)
    try:
        parsed = json.loads(text)
        return parsed if isinstance(parsed, dict) else {"value": parsed}
    except (json.JSONDecodeError, TypeError):
        return (
            {"error": {"zh": text, "en": text, "field": None, "suggestions": []}}
            if getattr(message, "status", "") == "error"
            else {"text": text}
        )


def _as_text(value: Any, language: str) -> str:
    if isinstance(value, dict):
        return str(value.get(language) or value.get("en") or value.get("zh") or "")
    return "" if value is None else str(value)


def _citations(records: list[ToolCallRecord], final_message: Any, language: str) -> list[Citation]:
    """Sources the answer used: the planner's own list if it gave one, else the search_guide hits."""
    raw: list[dict[str, Any]] = []
    for holder in (
        getattr(final_message, "additional_kwargs", None) or {},
        getattr(final_message, "response_metadata", None) or {},
    ):
        if isinstance(holder.get("citations"), list):
            raw = [c for c in holder["citations"] if isinstance(c, dict)]
            break
    if not raw:
        for rec in records:
            if rec.name != "search_guide" or "error" in rec.result or rec.result.get("low_relevance"):
                continue
            for hit in rec.result.get("hits") or rec.result.get("results") or []:
                if (
                    isinstance(hit, dict)
                    and hit.get("doc_id")
                    and not hit.get("low_relevance")
                    and hit.get("relevant", True) is not False
                ):
                    raw.append(hit)
    seen: set[tuple[str, str]] = set()
    out: list[Citation] = []
    for c in raw:
        doc_id = str(c.get("doc_id", ""))
        user = c.get("origin") == "user" or c.get("kind") == "user" or doc_id.startswith("u-")
        cit = Citation(
            doc_id=doc_id,
            title=_as_text(c.get("title"), language),
            section=_as_text(c.get("section"), language),
            origin="user" if user else "guide",
        )
        if cit.doc_id and (cit.doc_id, cit.section) not in seen:
            seen.add((cit.doc_id, cit.section))
            out.append(cit)
    return out


def _classify(exc: BaseException) -> LLMFailure | None:
    """Map an exception from the LLM path to a fallback reason; None means it is a bug."""
    if isinstance(exc, LLMFailure):
        return exc
    from langgraph.errors import GraphRecursionError

    if isinstance(exc, GraphRecursionError):
        return LLMFailure("step_limit", "the model kept calling tools past the step limit")
    try:
        import openai
    except ImportError:  # pragma: no cover
        return None
    detail = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, openai.APITimeoutError):
        return LLMFailure("timeout", detail)
    if isinstance(exc, openai.APIConnectionError):
        return LLMFailure("connection_error", detail)
    if isinstance(exc, openai.RateLimitError):
        return LLMFailure("rate_limited", detail)
    if isinstance(exc, openai.InternalServerError):
        return LLMFailure("server_error", detail)
    if isinstance(exc, openai.OpenAIError):
        return LLMFailure("http_error", detail)
    from pydantic import ValidationError

    if isinstance(exc, ValidationError) and exc.title in ("ToolMessage", "AIMessage", "AIMessageChunk"):
        # e.g. streamed tool-call deltas without `index` lose the call id (stack.md §5)
        return LLMFailure("malformed_tool_call", detail)
    if isinstance(exc, (ValueError, TypeError, KeyError, IndexError, AttributeError)) and _raised_by_client(exc):
        # a 200 reply that is not a chat completion (an HTML error page, JSON without `choices`,
        # truncated JSON): the client library fails while parsing it — the endpoint's fault, not ours
        return LLMFailure("malformed_response", detail)
    return None


def _raised_in_tools(exc: BaseException) -> bool:
    """True when the traceback passes through a tool module (tools.*)."""
    tb = exc.__traceback__
    while tb is not None:
        if str(tb.tb_frame.f_globals.get("__name__", "")).startswith("tools."):
            return True
        tb = tb.tb_next
    return False


# What a limit cut by the ReplyGuard looks like to the openai client.
_TRANSPORT_CODES = ("timeout", "connection_error", "malformed_response", "http_error")


# Where the chat model receives and parses replies; tools run in langchain_core.tools / langgraph.
_CLIENT_MODULES = ("openai", "langchain_openai", "langchain_core.language_models")


def _raised_by_client(exc: BaseException) -> bool:
    """True when the exception passed through the OpenAI client or its LangChain wrapper while
    parsing a response (our tools run elsewhere, so their bugs still raise)."""
    tb = exc.__traceback__
    while tb is not None:
        module = tb.tb_frame.f_globals.get("__name__", "")
        if any(module == m or module.startswith(m + ".") for m in _CLIENT_MODULES):
            return True
        tb = tb.tb_next
    return False


class _Run:
    """One answer: pick the back-end, run the loop, guard the numbers, fall back if needed."""

    def __init__(
        self,
        question: str,
        history: list[dict] | None,
        backend: str | None,
        language: str,
        settings: BackendSettings | None,
        *,
        tokens: bool,
    ) -> None:
        if not isinstance(question, str) or not question.strip():
            raise ToolInputError("问题是空的", "The question is empty", field="question")
        if len(question) > MAX_QUESTION_CHARS:
            raise ToolInputError(
                f"内容太长（{len(question):,} 个字符，上限 {MAX_QUESTION_CHARS:,}），请只粘贴相关部分",
                f"Input too long ({len(question):,} characters, limit {MAX_QUESTION_CHARS:,}); "
                "paste only the relevant part",
                field="question",
            )
        self.question = question.strip()
        self.history = trim_history(history)
        self.language = resolve_language(language, self.question, self.history)
        base = settings or BackendSettings.from_env(backend)
        self.settings = base.with_backend(backend)
        self.tokens = tokens
        self.t0 = time.perf_counter()
        from assistant.agent import ReplyGuard

        self.deadline_at = time.monotonic() + self.settings.answer_deadline_s
        self.guard = ReplyGuard(self.settings.request_total_s, self.deadline_at)
        self._llm_active = False

    # -- the whole answer -----------------------------------------------------------------
    def events(self) -> Iterator[dict]:
        if self.settings.backend == "offline":
            try:
                attempt = yield from self._offline(prefix="")
            except ToolInputError:
                raise  # bad input: the caller turns it into its bilingual error
            except Exception:  # noqa: BLE001 — a bug in our own reading or writing: never a traceback to the user
                log.exception("offline answer failed")
                attempt = _Attempt(answer=INTERNAL_ERROR)
            yield self._final(attempt, "offline", None, prefix="")
            return
        try:
            attempt = yield from self._llm()
        except Exception as exc:  # noqa: BLE001 — classified below; bugs re-raise
            self._llm_active = False
            failure = _classify(exc)
            if failure is not None and self.guard.tripped and failure.code in _TRANSPORT_CODES:
                failure = LLMFailure(self.guard.tripped, failure.detail)
            if failure is None:
                # a tool (or our own code) failed mid-answer: the visitor still gets the offline answer;
                # the traceback goes to the log so the bug is seen, never to the page
                log.warning("LLM answer failed with %s; answering offline", type(exc).__name__, exc_info=True)
                code = "tool_error" if _raised_in_tools(exc) else "llm_error"
                failure = LLMFailure(code, type(exc).__name__)
            reason = scrub(f"{failure.code}: {failure.detail}" if failure.detail else failure.code, self.settings)
            log.info("LLM back-end failed, answering offline: %s", reason)
            notice = fallback_notice(failure.code)
            yield {"type": "notice", "text": notice}
            prefix = notice + "\n\n"
            attempt = yield from self._offline(prefix=prefix)
            yield self._final(attempt, "offline (fallback)", reason, prefix=prefix)
            return
        yield self._final(attempt, "openai", None, prefix="")

    def _final(self, attempt: _Attempt, backend: str, reason: str | None, prefix: str) -> dict:
        report = check_grounding(attempt.answer, self._sources(attempt.records))
        result = AskResult(
            answer=prefix + attempt.answer,
            language=self.language,
            backend=backend,
            tool_calls=attempt.records,
            citations=_citations(attempt.records, attempt.final_message, self.language),
            grounded=report.grounded,
            latency_ms=round((time.perf_counter() - self.t0) * 1000, 1),
            fallback_reason=reason,
        )
        return {"type": "final", "result": result}

    def _sources(self, records: list[ToolCallRecord]) -> list[Any]:
        # Tool *arguments* are deliberately not sources: a model could put an invented figure
        # into a call and then quote it back. Tools echo the inputs they actually used.
        return [self.question, _UNIT_FACTS, *(t.get("content", "") for t in self.history), *(r.result for r in records)]

    def _own_words(self) -> str:
        """What the user said themselves: a short question whole, else only the lines around a paste
        (assistant.offline.reading.slots.user_words), plus their earlier turns read the same way."""
        from assistant.offline.reading.slots import user_words

        def own(text: str) -> str:
            return text if len(text.splitlines()) <= 2 else user_words(text)

        turns = [own(str(t.get("content", ""))) for t in self.history if t.get("role") in ("user", "human")]
        return "\n".join([*turns, own(self.question)])

    def _input_messages(self) -> list[Any]:
        from langchain_core.messages import HumanMessage

        return [*_history_messages(self.history), HumanMessage(self.question)]

    # -- offline ----------------------------------------------------------------------------
    def _offline(self, prefix: str) -> Generator[dict, None, _Attempt]:
        from assistant.agent import build_agent, run_config

        offline = self.settings.with_backend("offline")
        agent = build_agent(offline, self.language)
        if prefix and self.tokens:
            yield {"type": "token", "text": prefix}
        attempt = yield from self._loop(agent, self._input_messages(), run_config(offline), live_tokens=True)
        return attempt

    # -- LLM --------------------------------------------------------------------------------
    def _llm(self) -> Generator[dict, None, _Attempt]:
        from assistant.agent import build_agent, run_config

        if self.settings.blocked:
            raise LLMFailure(self.settings.blocked, "visitor settings refused")
        if self.settings.missing_key():
            raise LLMFailure("missing_api_key", "set OPENAI_API_KEY or OPENAI_BASE_URL")
        agent = build_agent(self.settings, self.language, guard=self.guard, own_words=self._own_words())
        config = run_config(self.settings)
        messages = self._input_messages()
        self._llm_active = True
        attempt = yield from self._loop(agent, messages, config, live_tokens=False)
        self._check_well_formed(attempt)
        report = check_grounding(attempt.answer, self._sources(attempt.records))
        if not report.grounded:
            log.info("grounding guard: %d ungrounded number(s); asking the model to repair", len(report.ungrounded))
            yield {
                "type": "notice",
                "text": "核对数字：有数字找不到出处，已请模型修正。"
                " / Checking numbers: some had no source; asked the model to fix them.",
            }
            from langchain_core.messages import HumanMessage

            retry_messages = [
                *messages,
                *attempt.new_messages,
                HumanMessage(repair_prompt(report.ungrounded, self.language)),
            ]
            second = yield from self._loop(agent, retry_messages, config, live_tokens=False)
            self._check_well_formed(second)
            second.records = attempt.records + second.records
            report = check_grounding(second.answer, self._sources(second.records))
            if not report.grounded:
                raise LLMFailure("ungrounded", "numbers without a source: " + ", ".join(report.ungrounded[:12]))
            attempt = second
        if self.tokens:
            for piece in _TOKEN_PIECE.findall(attempt.answer):
                yield {"type": "token", "text": piece}
        return attempt

    def _check_well_formed(self, attempt: _Attempt) -> None:
        final = attempt.final_message
        if final is None:
            raise LLMFailure("empty_answer", "no final message from the model")
        invalid = getattr(final, "invalid_tool_calls", None) or []
        if invalid:
            names = ", ".join(str(c.get("name")) for c in invalid)
            raise LLMFailure("malformed_tool_call", f"unparseable tool call arguments for {names}")
        if not attempt.answer.strip():
            raise LLMFailure("empty_answer", "the model's final message was empty")
        if len(attempt.answer) > MAX_ANSWER_CHARS:
            raise LLMFailure("reply_too_long", f"{len(attempt.answer):,} characters")

    # -- one pass of the agent loop ---------------------------------------------------------
    def _loop(
        self, agent: Any, messages: list[Any], config: dict, *, live_tokens: bool
    ) -> Generator[dict, None, _Attempt]:
        from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage

        from tools.registry import all_tools

        known = set(all_tools())
        attempt = _Attempt()
        pending: dict[str, tuple[str, dict[str, Any]]] = {}
        # "messages" mode makes LangGraph call the model's streaming API (SSE for ChatOpenAI);
        # `live_tokens` decides whether those tokens are shown now or only after checking.
        modes = ["updates", "messages"] if self.tokens else ["updates"]
        streamed = False
        for mode, data in agent.stream({"messages": messages}, config, stream_mode=modes):
            if self._llm_active and time.monotonic() > self.deadline_at:
                raise LLMFailure("deadline", f"over {self.settings.answer_deadline_s:g} s")
            if mode == "messages":
                chunk, meta = data
                if not live_tokens or meta.get("langgraph_node") != "model":
                    continue
                if isinstance(chunk, AIMessageChunk) and chunk.tool_call_chunks:
                    continue
                if isinstance(chunk, AIMessage) and not isinstance(chunk, AIMessageChunk) and chunk.tool_calls:
                    continue
                text = _text_of(getattr(chunk, "content", ""))
                if text:
                    streamed = True
                    yield {"type": "token", "text": text}
                continue
            for update in (data or {}).values():
                for msg in (update or {}).get("messages", []) if isinstance(update, dict) else []:
                    attempt.new_messages.append(msg)
                    if isinstance(msg, AIMessage):
                        attempt.final_message = msg
                        if msg.invalid_tool_calls:
                            names = ", ".join(str(c.get("name")) for c in msg.invalid_tool_calls)
                            raise LLMFailure("malformed_tool_call", f"unparseable tool call arguments for {names}")
                        if self._llm_active and len(msg.tool_calls) > MAX_TOOL_CALLS_PER_TURN:
                            raise LLMFailure("tool_call_limit", f"{len(msg.tool_calls)} calls in one turn")
                        for call in msg.tool_calls:
                            if call["name"] not in known:
                                raise LLMFailure("malformed_tool_call", f"unknown tool {call['name']!r}")
                            pending[str(call["id"])] = (call["name"], call["args"])
                            yield {"type": "tool_call", "id": call["id"], "name": call["name"], "args": call["args"]}
                    elif isinstance(msg, ToolMessage):
                        name, args = pending.pop(msg.tool_call_id, (msg.name or "", {}))
                        result = _tool_result(msg)
                        attempt.records.append(ToolCallRecord(name=name, args=args, result=result))
                        yield {"type": "tool_result", "id": msg.tool_call_id, "name": name, "result": result}
        final = attempt.final_message
        if final is not None and not final.tool_calls:
            attempt.answer = _text_of(final.content)
        if self.tokens and live_tokens and not streamed and attempt.answer:
            for piece in _TOKEN_PIECE.findall(attempt.answer):
                yield {"type": "token", "text": piece}
        return attempt
