"""A price the user quotes in any currency ("$294/month", "GCP provides it for $4/hr", "€1.2 per hour"),
and the running time they will use it for ("two days straight", "75 hours").

Why here and not in `quantities.py`: the frame's money fields are CNY (`hourly_quote_cny`, budgets);
a foreign-currency quote must stay in its currency (no invented exchange rate), so it is read apart
and passed to `quote_cost`, which answers in the quote's own currency.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

_CUR = {"$": "USD", "us$": "USD", "usd": "USD", "€": "EUR", "eur": "EUR", "£": "GBP", "gbp": "GBP"}
_PER = (
    r"(?:/|per|an?|each|每)\s*(?:(?:[a-z]{1,2}\d{2,4}[a-z]?\s*)?(?:gpu|card|卡)[\s-]*)?"  # "$0.50/A100 GPU hour"
    r"(?P<per>hours?|hrs?|h\b|months?|mo\b|mon\b|days?|weeks?|小时|月|天|周)"
)
_QUOTE_RE = re.compile(
    rf"(?P<cur>us\$|\$|€|£)\s*(?P<n>\d+(?:[.,]\d+)?)\s*{_PER}|"
    rf"(?P<n2>\d+(?:\.\d+)?)\s*(?P<cur2>usd|eur|gbp|dollars?|美元|美金)\s*{_PER.replace('?P<per>', '?P<per2>')}",
    re.I,
)
_WORDS = {"one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}
_DURATION_RE = re.compile(
    r"(?P<n>\d+(?:\.\d+)?|one|two|three|four|five|six|seven|ten)\s*(?:full\s+)?(?P<u>hours?|hrs?|h\b|days?)"
    r"(?!\s*(?:/|per)\b)",
    re.I,
)


# GPU-hours quoted for runs ("1845 A100 GPU hours and 3310 A100 GPU hours"): the hours the rate applies to; several
# figures with "both / in total / 一共" are summed (the cost of all the runs asked about)
_GPU_HOURS_RE = re.compile(
    r"(?<![\w.])(?P<n>\d[\d,]*(?:\.\d+)?)\s*(?:(?:nvidia\s*)?[a-z]{1,2}\d{2,4}[a-z]?\s*)?"
    r"(?:gpu[\s-]*hours?|gpu[\s-]*hrs?|gpu\s*小时|卡时|卡小时)",
    re.I,
)
_ALL_RE = re.compile(
    r"\b(?:both|in total|total|altogether|combined|all of (?:them|these))\b|一共|总共|合计|加起来|两个都", re.I
)


class MoneyQuote(BaseModel):
    amount: float
    currency: str
    per: str  # hour | day | week | month
    hours: float | None = None  # running time the user gave, in hours


def _per(word: str) -> str:
    w = word.lower()
    if w.startswith(("h", "小")):
        return "hour"
    if w.startswith(("mo", "月")):
        return "month"
    if w.startswith(("d", "天")):
        return "day"
    return "week"


def read_money_quote(text: str) -> MoneyQuote | None:
    m = _QUOTE_RE.search(text)
    if not m:
        return None
    cur_raw = (m.group("cur") or m.group("cur2") or "").lower()
    currency = _CUR.get(cur_raw, "USD" if cur_raw.startswith(("dollar", "美")) else cur_raw.upper())
    amount = float((m.group("n") or m.group("n2")).replace(",", ""))
    per = _per(m.group("per") or m.group("per2"))
    hours = None
    runs = [float(g.group("n").replace(",", "")) for g in _GPU_HOURS_RE.finditer(text) if not _inside(g, m)]
    if runs and per == "hour":
        hours = sum(runs) if len(runs) > 1 and _ALL_RE.search(text) else runs[0]
        return MoneyQuote(amount=amount, currency=currency, per=per, hours=hours)
    for d in _DURATION_RE.finditer(text):
        if m.start() <= d.start() < m.end():
            continue  # the quote's own unit ("$4/hr")
        raw = d.group("n").lower()
        n = float(_WORDS[raw]) if raw in _WORDS else float(raw)
        hours = n * (24 if d.group("u").lower().startswith("d") else 1)
        break
    return MoneyQuote(amount=amount, currency=currency, per=per, hours=hours)


def _inside(inner: re.Match[str], outer: re.Match[str]) -> bool:
    return outer.start() <= inner.start() < outer.end()
