"""Count model round trips and tokens per answer, without touching the advisor.

The advisor's AskResult carries no usage figures, but every chat-model call inside it goes
through LangChain, so a context-scoped callback (the same mechanism as langchain_core's
`get_usage_metadata_callback`) sees each call end and its `usage_metadata` when the endpoint
reports it. Used by the runner; imported lazily so the scorers stay dependency-free.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

_VAR: ContextVar[Any] = ContextVar("gpu_advisor_eval_usage", default=None)
_HOOKED = False
_LOCK = threading.Lock()


def _handler_class() -> type:
    from langchain_core.callbacks import BaseCallbackHandler

    class UsageCounter(BaseCallbackHandler):
        """Counts on_llm_end calls (round trips) and sums input/output tokens when reported."""

        def __init__(self) -> None:
            super().__init__()
            self.round_trips = 0
            self.input_tokens = 0
            self.output_tokens = 0
            self.reported = False
            self._lock = threading.Lock()

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            usage = None
            try:
                message = response.generations[0][0].message
                usage = getattr(message, "usage_metadata", None)
            except (IndexError, AttributeError):
                pass
            with self._lock:
                self.round_trips += 1
                if usage:
                    self.reported = True
                    self.input_tokens += int(usage.get("input_tokens", 0) or 0)
                    self.output_tokens += int(usage.get("output_tokens", 0) or 0)

    return UsageCounter


@contextmanager
def count_model_calls() -> Iterator[Any]:
    """Yields a counter for the model calls made inside the block (None if LangChain is absent)."""
    global _HOOKED
    try:
        from langchain_core.tracers.context import register_configure_hook

        cls = _handler_class()
    except ImportError:
        yield None
        return
    with _LOCK:
        if not _HOOKED:
            register_configure_hook(_VAR, inheritable=True)
            _HOOKED = True
    counter = cls()
    token = _VAR.set(counter)
    try:
        yield counter
    finally:
        _VAR.reset(token)


def usage_dict(counter: Any) -> dict[str, float]:
    """round_trips always; token counts only when the back-end reported them."""
    if counter is None:
        return {}
    out: dict[str, float] = {"round_trips": float(counter.round_trips)}
    if counter.reported:
        out.update(
            prompt_tokens=float(counter.input_tokens),
            completion_tokens=float(counter.output_tokens),
            total_tokens=float(counter.input_tokens + counter.output_tokens),
        )
    return out
