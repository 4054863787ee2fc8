"""Run a conversation through the offline loop, turn by turn, as the chat page does (shared by the follow-up tests)."""

from __future__ import annotations

from typing import Any

from assistant.offline import answer
from assistant.offline.intents import analyse


def run_turns(turns: list[str]) -> tuple[Any, Any, Any, Any]:
    """Run the turns in order; return (intents, frame, composed answer, tool results) of the last one."""
    history: list[dict] = []
    out = None
    for q in turns:
        intents, frame, _ = analyse(q, history)
        composed, results = answer(q, history)
        out = (intents, frame, composed, results)
        history += [{"role": "user", "content": q}, {"role": "assistant", "content": composed.text}]
    assert out is not None
    return out
