"""The answer's shape, as the page and the terminal show it (pure text functions, no imports).

Both back-ends write Markdown: line 1 the verdict with its deciding number, a few key lines, then
an optional `<details><summary>细节 / Details</summary> … </details>` block (breakdown,
assumptions, alternatives, commands), and the sources once at the end. The page lets the
browser fold the block (Gradio's Chatbot keeps <details>/<summary>); a terminal cannot fold, so
there the block becomes a plain "### 细节 / Details" section. Answers without the block pass
through unchanged, so older answers and LLM answers that ignore the shape still read well.
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"<details(?:\s[^>]*)?>\s*(?:<summary>(.*?)</summary>)?", re.S | re.I)
_CLOSE = re.compile(r"\s*</details>", re.I)
_FENCE = re.compile(r"^(```|~~~)", re.M)
_SOURCES_LINE = re.compile(r"^[\s>#*_-]*(?:来源|参考来源|sources?)\s*(?:[:：/]|\*\*|$)", re.I | re.M)

DEFAULT_SUMMARY = "细节 / Details"


def has_details(answer: str) -> bool:
    return bool(_OPEN.search(answer or ""))


def _outside_code(answer: str) -> list[tuple[bool, str]]:
    """Split on ``` fences: [(is_code, text), …], so tags shown inside code are left alone."""
    parts: list[tuple[bool, str]] = []
    pos, code = 0, False
    for m in _FENCE.finditer(answer):
        parts.append((code, answer[pos : m.start()]))
        pos, code = m.start(), not code
    parts.append((code, answer[pos:]))
    return parts


def _summary(raw: str | None) -> str:
    text = re.sub(r"<[^>]+>", "", raw or "").strip()
    return text or DEFAULT_SUMMARY


def for_terminal(answer: str) -> str:
    """`<details><summary>S</summary>` → a `### S` heading, `</details>` → nothing."""

    def heading(m: re.Match[str]) -> str:
        return f"\n\n### {_summary(m.group(1))}\n\n"

    out = []
    for code, text in _outside_code(answer or ""):
        if not code:
            text = _CLOSE.sub("\n", _OPEN.sub(heading, text))
            text = re.sub(r"<br\s*/?>", "\n", text, flags=re.I)
        out.append(text)
    return re.sub(r"\n{3,}", "\n\n", "".join(out)).strip("\n")


def for_page(answer: str) -> str:
    """Blank lines inside the block, so the Markdown in it is parsed (Markdown inside an HTML block
    is only read as Markdown when a blank line separates them)."""

    def open_block(m: re.Match[str]) -> str:
        return f"\n\n<details><summary>{_summary(m.group(1))}</summary>\n\n"

    out = []
    for code, text in _outside_code(answer or ""):
        if not code:
            text = _CLOSE.sub("\n\n</details>\n", _OPEN.sub(open_block, text))
        out.append(text)
    return re.sub(r"\n{3,}", "\n\n", "".join(out)).strip("\n")


def has_sources(answer: str) -> bool:
    """True when the answer already ends with its own sources line or list (so nobody adds another)."""
    text = answer or ""
    tail = text[len(text) // 2 :] if len(text) > 400 else text
    return bool(_SOURCES_LINE.search(tail))


def first_line(answer: str) -> str:
    """The verdict: the first non-empty line (notices such as the fallback warning excepted)."""
    for line in (answer or "").splitlines():
        if line.strip() and not line.lstrip().startswith("⚠️"):
            return line.strip()
    return ""
