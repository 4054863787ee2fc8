"""Numeric grounding guard: every number in an answer must come from a tool result, a retrieved
passage or the user's own words.

A number in the answer is *grounded* when some source number equals it after normalisation:
- separators and notation: 1,000 = 1000 = 1e3 = 1k; full-width digits ０-９;
- Chinese magnitudes: 7万 = 70000, 70亿 = 7e9 = 7B (parameters), 1万亿 = 1e12 = 1T;
- percentages: 45% matches 45 or 0.45;
- Chinese numerals, read exactly by tools/quantities.py: 三千五百元 = 3500, 十二天 = 12,
  两百四十 GB = 240, 百万 = 10^6, 百分之五十 = 50%; a lone 一/两/三… counts only before a measure
  word (两张卡, 三天), so 一下 / 两者 / 一般 are words, not numbers;
- a figure with a magnitude (9万, 1.2万, 7k, 3M, 70亿) is one whole quantity: 9万 is 90,000 and never
  matches a stray 9 (B/T also match the bare figure: model sizes and token counts are given in billions
  and trillions, 7B ↔ params_b = 7);
- rounding to the displayed precision: "13.7" matches 13.68 (±0.05), "14" matches 13.6 (±0.5);
  a round figure (trailing zeros, or a magnitude such as 9万) allows half its last non-zero place
  but never more than 5% of its value ("10,000" does not stand for 6,000);
- context sizes: 4k matches 4000 or 4096;
- GB ↔ GiB where the tool labelled the unit (`*_gb`, `*_gib`, `*_mib` keys), 1 GB = 10^9 B,
  1 GiB = 2^30 B (tools/units.py).
Numbers that are part of names (A100, H800, Qwen2.5, ZeRO-3, fp16, 4-bit) and list markers
("1. ", "2) ", "第3") are not quantities and are not checked. A number glued to a currency code
(RMB9999, CNY100, USD5) or a count marker (x8) *is* a quantity. No other number is allowed by
default — not even ¥1 or 0.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from tools.quantities import parse_chinese_number

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
_WORD_BEFORE = re.compile(r"[A-Za-z0-9._-]+$")
_LETTERS_BEFORE = re.compile(r"[A-Za-z$]+$")
# Letters before a number that make it a money figure or a count, not a name (RMB9999, x8).
_QUANTITY_PREFIXES = {"rmb", "cny", "usd", "us$", "hkd", "hk$", "eur", "jpy", "yuan", "x", "$"}
# A relative ceiling on rounding for round figures: 5% is about what "约 1.4 万" does to 13,680.
_ROUND_CAP = 0.05

_CN_NUMERAL = re.compile(r"[零〇一二两三四五六七八九十百千万亿]+")
_CN_SINGLE = set("一二两三四五六七八九")
# A lone numeral is a number only before one of these (两张卡, 三天, 五倍, 八 GB); else a word (一下, 两者).
_MEASURE = re.compile(
    r"\s*(?:张|台|块|个|位|天|日|周|星期|月|年|小时|钟头|分钟|秒|倍|元|卡|节点|机|人|次|轮|期|亿|万|"
    r"[A-Za-z%]|％)"
)
# Runs that are words, whatever they look like: 万一 (in case), 十分 (very), 千万 before a verb (by all means).
_CN_WORDS_AFTER = {"十": "分", "千万": "别不要记注小谨"}


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


def _round_tol(value: float, step: float) -> float:
    """Half the last displayed step, capped at _ROUND_CAP of the value for round figures."""
    return min(0.5 * step, max(_ROUND_CAP * abs(value), 0.5))


def _tolerance(num: str, value: float) -> float:
    """Half a unit in the last displayed place; a round integer (trailing zeros) rounds at its last
    non-zero place, capped at 5% of its value."""
    if "e" in num.lower():
        mantissa = num.lower().split("e")[0]
        return 0.5 * 10.0 ** (-_decimals(mantissa)) * 10.0 ** int(num.lower().split("e")[1])
    d = _decimals(num)
    if d == 0:
        digits = num.replace(",", "")
        zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
        if zeros:
            return _round_tol(value, 10.0**zeros)
    return 0.5 * 10 ** (-d)


def _cn_tolerance(value: float) -> float:
    """A Chinese numeral is exact to its last non-zero digit: 三千五百 = 3500 ± 50, 十二 = 12 ± 0.5."""
    if value <= 0 or value != int(value):
        return 0.05
    step = 1.0
    while value % (step * 10) == 0:
        step *= 10
    return _round_tol(value, step) if step > 1 else 0.5


def _is_name_part(text: str, start: int, end: int) -> bool:
    """True when the digits belong to an identifier such as A100, Qwen2.5, ZeRO-3 or fp16."""
    before = text[start - 1] if start > 0 else ""
    if before and (before.isascii() and (before.isalpha() or before == "_" or before == ".")):
        letters = _LETTERS_BEFORE.search(text, max(0, start - 8), start)
        word = letters.group(0).lower() if letters else ""
        ahead = text[max(0, start - len(word) - 1) : start - len(word)] if word else ""
        if word in _QUANTITY_PREFIXES and not (ahead.isascii() and ahead.isalnum()):
            return False  # RMB9999, CNY 100, x8: money and counts, not names
        return True
    if before == "-":
        # "ZeRO-3", "Qwen2.5-7B", "Llama-3-8B": the hyphenated word before holds a letter
        word_m = _WORD_BEFORE.search(text, max(0, start - 41), start - 1)
        if word_m and any(c.isascii() and c.isalpha() for c in word_m.group(0)):
            return True
    after = text[end : end + 6]
    return bool(_NAME_TAILS.match(after))


def _chinese_mentions(text: str, strict: bool, taken: list[tuple[int, int]]) -> list[tuple[int, Mention]]:
    """Numbers written in Chinese numerals (三千五百, 十二, 两百四十, 百万, 百分之五十)."""
    out: list[tuple[int, Mention]] = []
    for m in _CN_NUMERAL.finditer(text):
        start, end, run = m.start(), m.end(), m.group(0)
        if any(a <= start < b for a, b in taken):
            continue  # the 万 of "1.2万" belongs to the Arabic number
        before = text[start - 1] if start else ""
        if before.isdigit() or before == ".":
            continue
        after = text[end : end + 2]
        percent = text[max(0, start - 3) : start] == "百分之"
        if strict:
            if run in ("万一", "一一") or (run in _CN_WORDS_AFTER and after[:1] and after[0] in _CN_WORDS_AFTER[run]):
                continue
            if before in "第周星几数上好每之" and not percent and before:
                continue  # 第三 (ordinal), 周一, 几十 (vague), 上百 (vague), 之一
            if run == "一" and not percent:
                continue  # 一下, 一次, 一般, 一个: in Chinese a lone 一 is nearly always a word
            if len(run) == 1 and run in _CN_SINGLE and not percent and not _MEASURE.match(text, end):
                continue  # 两者, 三思: words
        try:
            value = parse_chinese_number(run)
        except ValueError:
            continue  # 三四天 (a range), 一二: not one numeral
        cands: tuple[tuple[float, float], ...]
        if percent:
            cands = ((value, 0.5), (value / 100, 0.005))
            label = "百分之" + run
        else:
            cands = ((value, _cn_tolerance(value)),)
            label = run
        out.append((start, Mention(text=label, candidates=cands)))
    return out


def extract(text: str, *, strict: bool = True) -> list[Mention]:
    """Numbers in `text`. `strict` (for answers) skips names and list markers; sources keep all."""
    text = (text or "").translate(_FULLWIDTH)
    skip: set[int] = set()
    if strict:
        skip = {m.start(1) for m in _LIST_MARKER.finditer(text)}
    found: list[tuple[int, Mention]] = []
    taken: list[tuple[int, int]] = []
    for m in _NUMBER.finditer(text):
        num, suffix = m.group("num"), m.group("suffix")
        start = m.start("num")
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
        elif suffix in _MAGNITUDE:
            # one whole quantity: 9万 is 90,000 (never a stray 9); the rounding step scales with it
            mults = (1e3, 1024.0) if suffix in ("k", "K") else (_MAGNITUDE[suffix],)
            step = 2 * tol
            whole = [(value * k, step * k) for k in mults]
            cands = [(v, _round_tol(v, st) if _decimals(num) == 0 else 0.5 * st) for v, st in whole]
            if not strict or suffix in ("B", "b", "T"):
                # model sizes and token counts are written in billions/trillions (7B ↔ params_b = 7,
                # 1T ↔ tokens_t = 1); 万/k/M never stand for their bare digits
                cands.append((value, tol))
        taken.append((m.start(), m.end()))
        found.append((m.start(), Mention(text=m.group(0).strip(), candidates=tuple(cands))))
    found += _chinese_mentions(text, strict, taken)
    return [mention for _, mention in sorted(found, key=lambda item: item[0])]


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
    if k.endswith("_b") or k == "params_b":
        return [value * 1e9]  # params_b = 7 is the "7B" / 70亿 an answer writes
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
        if not any(_matches(v, tol, pool) for v, tol in mention.candidates):
            if mention.text not in missing:
                missing.append(mention.text)
    return GroundingReport(grounded=not missing, ungrounded=missing, checked=len(mentions))
