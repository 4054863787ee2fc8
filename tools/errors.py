"""One error type for bad user input, carrying the message in Chinese and English.

Tools raise `ToolInputError` for input a person can fix (unknown model, negative size).
The CLI turns it into exit code 2, the agent hands it back to the model as a structured
result, and the page shows it. Anything else that escapes a tool is a bug and should raise.
"""

from __future__ import annotations

from typing import Any


class ToolInputError(ValueError):
    """Input the user can correct; the message exists in both languages."""

    def __init__(self, zh: str, en: str, *, field: str | None = None, suggestions: list[str] | None = None) -> None:
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
        return {"error": {"zh": self.zh, "en": self.en, "field": self.field, "suggestions": self.suggestions}}


def from_validation_error(exc: Exception) -> ToolInputError:
    """Turn a pydantic ValidationError into a bilingual ToolInputError (first problem named)."""
    errors: list[dict[str, Any]] = getattr(exc, "errors", lambda: [])()
    if errors:
        first = errors[0]
        loc = ".".join(str(p) for p in first.get("loc", ()) if p != "__root__") or "input"
        msg = first.get("msg", str(exc))
        more = f" (+{len(errors) - 1})" if len(errors) > 1 else ""
        zh = _zh_message(first) or msg
        return ToolInputError(f"输入无效：{loc}：{zh}{more}", f"Invalid input: {loc}: {msg}{more}", field=loc)
    return ToolInputError(f"输入无效：{exc}", f"Invalid input: {exc}")


# The pydantic error types a person meets on the CLI, in Chinese (the English text is pydantic's own).
_ZH_BY_TYPE = {
    "greater_than_equal": "必须大于或等于 {ge}",
    "greater_than": "必须大于 {gt}",
    "less_than_equal": "必须小于或等于 {le}",
    "less_than": "必须小于 {lt}",
    "missing": "缺少这个字段",
    "int_parsing": "应该是整数",
    "int_from_float": "应该是整数",
    "float_parsing": "应该是数字",
    "bool_parsing": "应该是 true 或 false",
    "string_too_short": "太短（至少 {min_length} 个字符）",
    "string_too_long": "太长（最多 {max_length} 个字符）",
    "too_short": "太少（至少 {min_length} 项）",
    "too_long": "太多（最多 {max_length} 项）",
    "literal_error": "只能是 {expected}",
    "enum": "只能是 {expected}",
    "extra_forbidden": "不认识这个字段",
}


def _zh_message(error: dict) -> str | None:
    """Chinese wording for a pydantic error dict, or None (then the English text is reused)."""
    template = _ZH_BY_TYPE.get(str(error.get("type", "")))
    if template is None:
        return None
    try:
        ctx = {k: (f"{v:g}" if isinstance(v, float) else v) for k, v in (error.get("ctx") or {}).items()}
        return template.format(**ctx)
    except (KeyError, IndexError, ValueError):
        return None
