"""Plain data passed between the planner, the tools and the composer (no LangChain here)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

_counter = itertools.count(1)


def new_call_id() -> str:
    """Unique within the process; LangChain only needs ids unique within a conversation."""
    return f"call_offline_{next(_counter)}"


@dataclass
class ToolCall:
    name: str
    args: dict[str, Any]
    id: str = field(default_factory=new_call_id)


@dataclass
class ToolResult:
    """One executed call: what was asked and what came back (a JSON-ready dict)."""

    name: str
    args: dict[str, Any]
    result: dict[str, Any]
    id: str = ""

    @property
    def error(self) -> dict[str, Any] | None:
        err = self.result.get("error") if isinstance(self.result, dict) else None
        return err if isinstance(err, dict) else None


@dataclass
class ComposedAnswer:
    text: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    language: str = "zh"
