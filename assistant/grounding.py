"""Numeric grounding guard: every number in an answer must come from a tool result, a retrieved
passage or the user's own words.

A number in the answer is *grounded* when some source number equals it after normalisation:
- separators and notation: 1,000 = 1000 = 1e3 = 1k; full-width digits ０-９;
- Chinese magnitudes: 7万 = 70000, 70亿 = 7e9 = 7B (parameters), 1万亿 = 1e12 = 1T;
- percentages: 45% matches 45 or 0.45;
- rounding to the displayed precision: "13.7" matches 13.68 (±0.05), "14" matches 13.6 (±0.5),
  and a round figure ≥1000 such as "1,200" matches within half its last non-zero place (±50);
- context sizes: 4k matches 4000 or 4096;
- GB ↔ GiB where the tool labelled the unit (`*_gb`, `*_gib`, `*_mib` keys), 1 GB = 10^9 B,
  1 GiB = 2^30 B (tools/units.py).
Numbers that are part of names (A100, H800, Qwen2.5, ZeRO-3, fp16, 4-bit) and list markers
("1. ", "2) ", "第3") are not quantities and are not checked; 0 and 1 are always allowed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

GB = 1e9  # tools/units.py: decimal gigabyte
GIB = 2**30  # binary gibibyte
MIB = 2**20

_FULLWIDTH = str.maketrans("０１２３４５６７８９．，", "0123456789.,")

# A number (with optional thousands separators, decimals, exponent), then an optional magnitude.
_NUMBER = re.compile(
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?P<gap>\s?)"
    r"(?P<suffix>万亿|千亿|百亿|十亿|千万|百万|亿|万|千|%|％|[kKMBbT](?![A-Za-z])|)"
)

_MAGNITUDE = {
    "万亿": 1e12,
    "千亿": 1e11,
    "百亿": 1e10,
    "十亿": 1e9,
    "千万": 1e7,
    "百万": 1e6,
    "亿": 1e8,
    "万": 1e4,
    "千": 1e3,
    "k": 1e3,
    "K": 1e3,
    "M": 1e6,
    "B": 1e9,
    "b": 1e9,
    "T": 1e12,
}
# A number glued to these words is a name or a format, not a quantity (4bit, 8-bit, 3rd).
_NAME_TAILS = re.compile(r"(?i)(?:-?bits?\b|st\b|nd\b|rd\b|th\b|d\b|ti\b|super\b)")
_LIST_MARKER = re.compile(r"(?m)^\s*(?:[-*]\s*)?(\d{1,2})[.)、）]\s")
_ALWAYS_OK = {0.0, 1.0}
_WORD_BEFORE = re.compile(r"[A-Za-z0-9._-]+$")


@dataclass(frozen=True)
class Mention:
    """One number as written, with the values it may stand for and the rounding it allows."""

    text: str
    candidates: tuple[tuple[float, float], ...]  # (value, tolerance)


@dataclass
class GroundingReport:
    grounded: bool
    ungrounded: list[str] = field(default_factory=list)
    checked: int = 0


def _decimals(num: str) -> int:
    mantissa = num.split("e")[0].split("E")[0]
    return len(mantissa.split(".", 1)[1]) if "." in mantissa else 0


def _tolerance(num: str, value: float) -> float:
    """Half a unit in the last displayed place (a round figure ≥1000 rounds at its last non-zero)."""
    if "e" in num.lower():
        mantissa = num.lower().split("e")[0]
        return 0.5 * 10.0 ** (-_decimals(mantissa)) * 10.0 ** int(num.lower().split("e")[1])
    d = _decimals(num)
    if d == 0 and value >= 1000:
        digits = num.replace(",", "")
        zeros = len(digits) - len(digits.rstrip("0"))
        return 0.5 * 10**zeros
    return 0.5 * 10 ** (-d)


def _is_name_part(text: str, start: int, end: int) -> bool:
    """True when the digits belong to an identifier such as A100, Qwen2.5, ZeRO-3 or fp16."""
    before = text[start - 1] if start > 0 else ""
    if before and (before.isascii() and (before.isalpha() or before == "_" or before == ".")):
        return True
    if before == "-":
        # "ZeRO-3", "Qwen2.5-7B", "Llama-3-8B": the hyphenated word before holds a letter
        word = _WORD_BEFORE.search(text, max(0, start - 41), start - 1)
        if word and any(c.isascii() and c.isalpha() for c in word.group(0)):
            return True
    after = text[end : end + 6]
    return bool(_NAME_TAILS.match(after))


def extract(text: str, *, strict: bool = True) -> list[Mention]:
    """Numbers in `text`. `strict` (for answers) skips names and list markers; sources keep all."""
    text = (text or "").translate(_FULLWIDTH)
    skip: set[int] = set()
    if strict:
        skip = {m.start(1) for m in _LIST_MARKER.finditer(text)}
    mentions: list[Mention] = []
    for m in _NUMBER.finditer(text):
        num, suffix = m.group("num"), m.group("suffix")
        start, end = m.start("num"), m.end("num")
        if start > 0 and text[start - 1].isdigit():
            continue
        if strict:
            if _is_name_part(text, start, m.end()):
                continue
            if start in skip or (start > 0 and text[start - 1] == "第"):
                continue
            if suffix in ("B", "b", "M", "T", "K", "k") and m.group("gap"):
                suffix = ""  # "7 B" is unusual; "2 M" could be anything — compare the bare number
        try:
            value = float(num.replace(",", ""))
            tol = _tolerance(num, value)
        except (ValueError, OverflowError):
            continue
        if not (math.isfinite(value) and math.isfinite(tol)):
            continue
        cands: list[tuple[float, float]] = [(value, tol)]
        if suffix in ("%", "％"):
            cands.append((value / 100, tol / 100))
        elif suffix in ("k", "K"):
            cands += [(value * 1e3, tol * 1e3), (value * 1024, tol * 1024)]
        elif suffix in _MAGNITUDE:
            mult = _MAGNITUDE[suffix]
            cands.append((value * mult, tol * mult))
        mentions.append(Mention(text=m.group(0).strip(), candidates=tuple(cands)))
    return mentions


def _unit_conversions(key: str, value: float) -> list[float]:
    """Equivalent figures in the other unit for fields that name theirs (GB ↔ GiB)."""
    k = key.lower()
    if k.endswith("_gib"):
        return [value * GIB / GB]
    if k.endswith("_gb"):
        return [value * GB / GIB]
    if k.endswith("_mib"):
        return [value * MIB / GIB, value * MIB / GB]
    if k.endswith("_mb"):
        return [value / 1e3, value * 1e6 / GIB]
    return []


def source_numbers(sources: Iterable[Any]) -> list[float]:
    """Every number in tool results, passages and user text, with their alternative readings."""
    out: list[float] = []

    def walk(obj: Any, key: str = "") -> None:
        if isinstance(obj, bool) or obj is None:
            return
        if isinstance(obj, (int, float)):
            if math.isfinite(obj):
                out.append(float(obj))
                out.extend(_unit_conversions(key, float(obj)))
            return
        if isinstance(obj, str):
            for mention in extract(obj, strict=False):
                out.extend(v for v, _ in mention.candidates)
            return
        if isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, str(k))
            return
        if isinstance(obj, (list, tuple, set)):
            for v in obj:
                walk(v, key)
            return
        walk(str(obj), key)

    for src in sources:
        walk(src)
    return out


def _matches(value: float, tol: float, pool: list[float]) -> bool:
    slack = tol + 1e-9 * max(1.0, abs(value))
    return any(abs(abs(value) - abs(p)) <= slack for p in pool)


def check(answer: str, sources: Iterable[Any]) -> GroundingReport:
    """Is every number in `answer` backed by a source? Lists the ones that are not."""
    pool = source_numbers(sources)
    mentions = extract(answer)
    missing: list[str] = []
    for mention in mentions:
        if any(v in _ALWAYS_OK for v, _ in mention.candidates[:1]):
            continue
        if not any(_matches(v, tol, pool) for v, tol in mention.candidates):
            if mention.text not in missing:
                missing.append(mention.text)
    return GroundingReport(grounded=not missing, ungrounded=missing, checked=len(mentions))
