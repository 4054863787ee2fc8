"""The agent loop: LangChain 1.x `create_agent` over every registry tool, with a chosen chat model.

`offline` plugs the deterministic planner (`assistant.offline.chat_model.OfflinePlannerChatModel`)
into the same loop an LLM uses, so the CLI, the page and the evals exercise one code path.
`openai` uses `langchain_openai.ChatOpenAI` against any OpenAI-compatible endpoint; it is
imported only on that path (it costs ~1.3 s to import).

Steps are bounded: `run_config(settings)` sets LangGraph's `recursion_limit` so a model that
keeps calling tools stops after `settings.max_steps` model turns (GraphRecursionError).
"""

from __future__ import annotations

import inspect
import threading
import time
from typing import TYPE_CHECKING, Any, Iterable

from assistant.prompts import system_prompt
from assistant.settings import BackendSettings

if TYPE_CHECKING:  # pragma: no cover
    from langchain_core.language_models import BaseChatModel

    from tools.registry import ToolSpec

_OFFLINE_CACHE: dict[str, Any] = {}
_LOCK = threading.Lock()


def offline_chat_model(language: str) -> "BaseChatModel":
    """The deterministic planner as a LangChain chat model (no key, no download, no network)."""
    from assistant.offline.chat_model import OfflinePlannerChatModel

    params = _init_params(OfflinePlannerChatModel)
    if "language" in params:
        return OfflinePlannerChatModel(language=language)
    return OfflinePlannerChatModel()


def _init_params(cls: type) -> set[str]:
    fields = getattr(cls, "model_fields", None)
    if fields:
        return set(fields)
    try:
        return set(inspect.signature(cls).parameters)
    except (TypeError, ValueError):
        return set()


# A reply longer than this is not an answer (the page shows ~20,000 characters at most); 2 MB of
# JSON/SSE leaves room for tool-call arguments and SSE framing (each streamed token costs ~150 bytes).
MAX_REPLY_BYTES = 4_000_000


class ReplyGuard:
    """Limits on the LLM's HTTP replies, enforced while the bytes arrive (httpx transport wrapper).

    WHY: the openai client's `timeout` applies per read, so an endpoint that trickles one byte every
    few seconds holds an answer for `retries × forever`; and a 30-million-character reply would be
    read in full. Each request is cut at `request_total_s` or at the answer deadline, whichever comes
    first, and at MAX_REPLY_BYTES. `tripped` tells the advisor which limit was hit."""

    def __init__(self, request_total_s: float, deadline_at: float | None = None, max_bytes: int = MAX_REPLY_BYTES):
        self.request_total_s = request_total_s
        self.deadline_at = deadline_at
        self.max_bytes = max_bytes
        self.tripped: str | None = None

    def http_client(self) -> Any:
        import httpx

        guard = self

        class _Stream(httpx.SyncByteStream):
            def __init__(self, inner: Any, limit_at: float, request: Any) -> None:
                self.inner, self.limit_at, self.request, self.seen = inner, limit_at, request, 0

            def __iter__(self) -> Any:
                for chunk in self.inner:
                    self.seen += len(chunk)
                    if self.seen > guard.max_bytes:
                        guard.tripped = "reply_too_long"
                        raise httpx.ReadError("reply over the length limit", request=self.request)
                    if time.monotonic() > self.limit_at:
                        guard.tripped = guard.tripped or "timeout"
                        raise httpx.ReadTimeout("total read time over the limit", request=self.request)
                    yield chunk

            def close(self) -> None:
                close = getattr(self.inner, "close", None)
                if close:
                    close()

        class _Transport(httpx.BaseTransport):
            def __init__(self) -> None:
                self.inner = httpx.HTTPTransport()

            def handle_request(self, request: Any) -> Any:
                now = time.monotonic()
                limit_at = now + guard.request_total_s
                if guard.deadline_at is not None:
                    limit_at = min(limit_at, guard.deadline_at)
                if now >= limit_at or guard.tripped == "reply_too_long":
                    # a final, non-retryable reply: the client must not back off and try again
                    guard.tripped = guard.tripped or "deadline"
                    return httpx.Response(
                        400,
                        headers={"x-should-retry": "false"},
                        json={"error": {"message": f"stopped: {guard.tripped}", "type": "limit"}},
                        request=request,
                    )
                response = self.inner.handle_request(request)
                response.stream = _Stream(response.stream, limit_at, request)
                return response

            def close(self) -> None:
                self.inner.close()

        return httpx.Client(transport=_Transport())


def openai_chat_model(settings: BackendSettings, guard: ReplyGuard | None = None) -> "BaseChatModel":
    """ChatOpenAI for any compatible endpoint; token streaming stays on (no `streaming=False`)."""
    from langchain_openai import ChatOpenAI

    guard = guard or ReplyGuard(settings.request_total_s)
    kwargs: dict[str, Any] = {
        "model": settings.model,
        "api_key": settings.key_for_client(),
        "timeout": settings.timeout_s,
        "max_retries": settings.max_retries,
        "http_client": guard.http_client(),
    }
    if settings.base_url:
        kwargs["base_url"] = settings.base_url
    return ChatOpenAI(**kwargs)


def recursion_limit(settings: BackendSettings) -> int:
    """LangGraph counts supersteps: a model turn and a tool turn are one each, so N model turns
    need 2N-1 steps; the limit is the first step that is *not* allowed."""
    return 2 * settings.max_steps


def run_config(settings: BackendSettings) -> dict[str, Any]:
    return {"recursion_limit": recursion_limit(settings)}


def build_agent(
    backend_settings: BackendSettings | None = None,
    language: str = "zh",
    *,
    model: "BaseChatModel | None" = None,
    tool_specs: Iterable["ToolSpec"] | None = None,
    guard: ReplyGuard | None = None,
    own_words: str | None = None,
) -> Any:
    """A compiled LangGraph agent for one back-end and answer language.

    `model` and `tool_specs` exist for tests (a scripted model, a small tool set); normally the
    back-end picks the model and every registry tool is offered. Offline agents are cached per
    language, because building one costs a few milliseconds and they hold no state.
    """
    settings = backend_settings or BackendSettings.from_env()
    language = language if language in ("zh", "en") else "zh"
    cacheable = model is None and tool_specs is None and own_words is None and settings.backend == "offline"
    if cacheable:
        with _LOCK:
            if language in _OFFLINE_CACHE:
                return _OFFLINE_CACHE[language]

    from assistant.lc_tools import registry_tools

    tools = registry_tools(tool_specs, own_words=own_words)
    if cacheable:
        # The planner's own loop on langchain_core: the same chat-model/tool protocol without
        # importing LangGraph (~1 s of a cold `ask`); see assistant/core_loop.py.
        from assistant.core_loop import CoreAgent

        prompt = system_prompt(language, (t.name for t in tools))
        agent: Any = CoreAgent(offline_chat_model(language), tools, prompt, name=f"gpu_advisor_{settings.backend}")
        with _LOCK:
            _OFFLINE_CACHE[language] = agent
        return agent

    from langchain.agents import create_agent

    if model is None:
        model = offline_chat_model(language) if settings.backend == "offline" else openai_chat_model(settings, guard)
    agent = create_agent(
        model,
        tools=tools,
        system_prompt=system_prompt(language, (t.name for t in tools)),
        name=f"gpu_advisor_{settings.backend}",
    )
    return agent
