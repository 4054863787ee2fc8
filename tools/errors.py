"""One error type for bad user input, carrying the message in Chinese and English.

Tools raise `ToolInputError` for input a person can fix (unknown model, negative size).
The CLI turns it into exit code 2, the agent hands it back to the model as a structured
result, and the page shows it. Anything else that escapes a tool is a bug and should raise.
"""
from __future__ import annotations

from typing import Any


class ToolInputError(ValueError):
    """Input the user can correct; the message exists in both languages."""

    def __init__(self, zh: str, en: str, *, field: str | None = None,
                 suggestions: list[str] | None = None) -> None:
        super().__init__(en)
        self.zh = zh
        self.en = en
        self.field = field
        self.suggestions = suggestions or []

    def bilingual(self) -> str:
        """`中文 / English` on one line, with suggestions if any."""
        text = f"{self.zh} / {self.en}"
        if self.suggestions:
            text += f"（可选 / did you mean: {', '.join(self.suggestions[:6])}）"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"zh": self.zh, "en": self.en, "field": self.field,
                          "suggestions": self.suggestions}}


def from_validation_error(exc: Exception) -> ToolInputError:
    """Turn a pydantic ValidationError into a bilingual ToolInputError (first problem named)."""
    errors = getattr(exc, "errors", lambda: [])()
    if errors:
        first = errors[0]
        loc = ".".join(str(p) for p in first.get("loc", ()) if p != "__root__") or "input"
        msg = first.get("msg", str(exc))
        more = f" (+{len(errors) - 1})" if len(errors) > 1 else ""
        return ToolInputError(f"输入无效：{loc}：{msg}{more}", f"Invalid input: {loc}: {msg}{more}", field=loc)
    return ToolInputError(f"输入无效：{exc}", f"Invalid input: {exc}")
