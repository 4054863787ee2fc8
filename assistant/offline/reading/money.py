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
# "$0.50/A100 GPU hour", "$2 per GPU-hour", "$8 per hour": the card and "GPU" words may sit before the unit
_PER = (
    r"(?:/|per|an?|each|每)\s*(?P<gpu>(?:[a-z]{0,4}\d{2,4}[a-z]*\s*)?(?:gpu|card|卡)?[\s-]*)"
    r"(?P<per>hours?|hrs?|h\b|months?|mo\b|mon\b|days?|weeks?|小时|(?<=卡)时|(?<=gpu)时|月|天|周)"
)
# 「按每卡时 2 美元」「每 GPU 小时 2 美元」: the unit before the amount (Chinese word order)
_UNIT_FIRST = (
    r"每\s*(?P<gpu3>(?:gpu|卡)\s*(?:每\s*)?)(?P<per3>小时|时)\s*(?P<n3>\d+(?:\.\d+)?)\s*"
    r"(?P<cur3>usd|dollars?|美元|美金)"
)
_QUOTE_RE = re.compile(
    rf"(?P<cur>us\$|\$|€|£)\s*(?P<n>\d+(?:[.,]\d+)?)\s*{_PER}|"
    rf"(?P<n2>\d+(?:\.\d+)?)\s*(?P<cur2>usd|eur|gbp|dollars?|美元|美金)\s*{_PER.replace('?P<per>', '?P<per2>').replace('?P<gpu>', '?P<gpu2>')}|"
    + _UNIT_FIRST,
    re.I,
)
_WORDS = {"one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}
_DURATION_RE = re.compile(
    r"(?P<n>\d+(?:\.\d+)?|one|two|three|four|five|six|seven|ten)\s*(?:full\s+|个)?(?P<u>hours?|hrs?|h\b|days?|小时|天)"
    r"(?!\s*(?:/|per)\b)",
    re.I,
)


# "1845 A100 GPU hours and 3310 A100 GPU hours", "24 GPU-hours", "500 卡时": compute already counted in GPU-hours
# "the market rate for 4xA100 is around $8 per hour", "8卡机每小时 40 元": the rate is for that many cards
_RATE_GPUS_RE = re.compile(r"(?<![a-z\d.])(?P<n>\d+)\s*(?:[x×*]\s*[a-z]{0,4}\d{2,4}|卡|张|gpus?\b)", re.I)
# "$300", "~$1000 for both", "about $24": a money figure with no rate unit after it
_TOTAL_RE = re.compile(
    r"(?P<cur>us\$|\$|€|£)\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<k>k|K)?(?![\d.,]*\s*(?:/|per\b|an? hour|each))"
)


class MoneyQuote(BaseModel):
    amount: float
    currency: str
    per: str  # hour | day | week | month | total (the amount buys `hours`)
    hours: float | None = None  # running time the user gave, in hours
    rate_gpus: int | None = None  # the quote is for this many cards ("$8/h for 4xA100"); 1 when it says per GPU-hour
    gpu_hours: list[float] = []  # GPU-hour figures the user gave ("1845 … and 3310 A100 GPU hours")
    claimed_total: float | None = None  # the total the user worked out or was told ("so it cost ~$1000?")

    @property
    def per_gpu_hour(self) -> float | None:
        """The rate per GPU-hour when the quote says per GPU or names its card count; else None."""
        if self.per != "hour" or not self.rate_gpus:
            return None
        return self.amount / self.rate_gpus


def read_gpu_hours(text: str) -> list[float]:
    """Every GPU-hour figure the user gave, by the one grammar in reading/quantities.py (shared with slots)."""
    from assistant.offline.reading.quantities import gpu_hours_values

    return gpu_hours_values(text)


def _claimed_total(text: str, quote: re.Match[str]) -> float | None:
    found = [
        float(m.group("n").replace(",", "")) * (1e3 if m.group("k") else 1.0)
        for m in _TOTAL_RE.finditer(text)
        if not (quote.start() <= m.start() < quote.end())
    ]
    return found[-1] if found else None


def _rate_gpus(text: str, quote: re.Match[str]) -> int | None:
    if re.search(r"gpu|card|卡", quote.group("gpu") or quote.group("gpu2") or quote.group("gpu3") or "", re.I):
        return 1
    before = text[max(0, quote.start() - 45) : quote.start()]
    counts = list(_RATE_GPUS_RE.finditer(before))
    return int(counts[-1].group("n")) if counts else None


def _per(word: str) -> str:
    w = word.lower()
    if w.startswith(("h", "小", "时")):
        return "hour"
    if w.startswith(("mo", "月")):
        return "month"
    if w.startswith(("d", "天")):
        return "day"
    return "week"


def _currency(word: str) -> str:
    """ISO code for a currency sign or word: $/usd/dollars/美元/美金/刀 → USD, €/eur → EUR, £/gbp → GBP."""
    return _CUR.get(word, "USD" if word.startswith(("dollar", "美", "刀")) else word.upper())


# "This plan costs $10 … 39 hours of GPU time", "$100 was spent on 8xA100 for 3 hours": a price for a bundle of hours
_BUNDLE_CUE = re.compile(
    r"\bcosts?\b|\bspent\b|\bspend\b|\bpaid\b|\bpay\b|\bcharged?\b|\bgives?\b|\bincludes?\b|\bplan\b|"
    r"花了|花费|付了|包含|套餐",
    re.I,
)


def _bundle_quote(text: str) -> MoneyQuote | None:
    """A foreign-currency total said with the hours it buys: the price per hour (and per GPU-hour) is the question's
    arithmetic; a total without hours stays a budget (read_foreign_budget)."""
    m = _FOREIGN_BUDGET_RE.search(text)
    if not m or not _BUNDLE_CUE.search(text) or m.group("k") or m.group("k2"):
        return None
    d = _DURATION_RE.search(text)
    hours = _duration_hours(d) if d else None
    if not hours:
        return None
    amount = float((m.group("n") or m.group("n2")).replace(",", ""))
    return MoneyQuote(
        amount=amount,
        currency=_currency((m.group("cur") or m.group("cur2") or "").lower()),
        per="total",
        hours=hours,
        rate_gpus=_bundle_gpus(text),
    )


def _duration_hours(d: re.Match[str]) -> float:
    """A _DURATION_RE match in hours ("three days" = 72, 「10小时」 = 10)."""
    raw = d.group("n").lower()
    n = float(_WORDS[raw]) if raw in _WORDS else float(raw)
    return n * (24 if d.group("u").lower().startswith(("d", "天")) else 1)


def _bundle_gpus(text: str) -> int | None:
    """The card count a bundle is for ("on 8xA100", "4 GPUs"), anywhere in the text."""
    counts = [int(c.group("n")) for c in _RATE_GPUS_RE.finditer(text)]
    return counts[0] if counts and 1 < counts[0] <= 4096 else None


def read_money_quote(text: str) -> MoneyQuote | None:
    m = _QUOTE_RE.search(text)
    if not m:
        return _bundle_quote(text)
    cur_raw = (m.group("cur") or m.group("cur2") or m.group("cur3") or "").lower()
    currency = _currency(cur_raw)
    amount = float((m.group("n") or m.group("n2") or m.group("n3")).replace(",", ""))
    per = _per(m.group("per") or m.group("per2") or m.group("per3"))
    hours = None
    for d in _DURATION_RE.finditer(text):
        if m.start() <= d.start() < m.end():
            continue  # the quote's own unit ("$4/hr")
        hours = _duration_hours(d)
        break
    return MoneyQuote(
        amount=amount,
        currency=currency,
        per=per,
        hours=hours,
        rate_gpus=_rate_gpus(text, m),
        gpu_hours=read_gpu_hours(text),
        claimed_total=_claimed_total(text, m),
    )


# A budget in a foreign currency ("a budget of $50", 「只有50美元」「100刀」): no exchange rate is assumed, so it is read
# only to be named as not used; a rate ("$2/hour") is a quote (read_money_quote), not a budget.
_FOREIGN_BUDGET_RE = re.compile(
    r"(?P<cur>us\$|\$|€|£)\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<k>k\b)?|"
    r"(?P<n2>\d+(?:\.\d+)?)\s*(?P<k2>k|千|万)?\s*(?P<cur2>usd\b|dollars?\b|美元|美金|刀(?!片))",
    re.I,
)


def read_foreign_budget(text: str) -> tuple[float, str] | None:
    """(amount, currency) of a foreign-currency total that is not a rate, or None."""
    if read_money_quote(text) is not None:
        return None
    m = _FOREIGN_BUDGET_RE.search(text)
    if not m:
        return None
    cur_raw = (m.group("cur") or m.group("cur2") or "").lower()
    currency = _currency(cur_raw)
    mult = {"k": 1e3, "千": 1e3, "万": 1e4}.get((m.group("k") or m.group("k2") or "").lower(), 1.0)
    return float((m.group("n") or m.group("n2")).replace(",", "")) * mult, currency
