"""What every intent module provides, and the shared writing step.

An intent is a module with:
- `NAME` and one or more `applies*(frame) -> bool` predicates (their order lives in `PRECEDENCE`);
- `calls(frame) -> list[ToolCall]`: the first round of tool calls;
- `follow_ups(frame, results) -> list[ToolCall]`: the one allowed second round (default: none);
- `write(writer, frame, results, ctx)`: its part of the answer (default: each tool's renderer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall, ToolResult

if TYPE_CHECKING:
    from assistant.offline.writing.render import Writer


def has_size(f: Frame) -> bool:
    return bool(f.model or f.params_b)


def no_follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    return []


def write_results(w: Writer, intent: str, f: Frame, results: list[ToolResult], carried: bool) -> None:
    """The default part of an answer: every tool's renderer over this intent's results."""
    from assistant.offline.writing.render import write_answer

    write_answer(w, intent, f, results, f.text, carried)
