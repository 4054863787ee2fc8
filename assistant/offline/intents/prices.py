"""Rental prices and billing: the market ranges for a card, the user's own quotes (both → break-even)."""

from __future__ import annotations

import re

from assistant.offline.intents import args as A
from assistant.offline.intents.args import PRICE
from assistant.offline.reading.frame import Frame
from assistant.offline.reading.money import MoneyQuote
from assistant.offline.types import ToolCall

NAME = PRICE


def applies(f: Frame) -> bool:
    return "price" in f.cues and bool(f.gpus)


def calls(f: Frame) -> list[ToolCall]:
    # Both quotes → the tool's break-even on them; a single quote is compared with the market instead
    # (passing it would replace the market ranges).
    both = bool(f.hourly_quote_cny and f.monthly_quote_cny)
    # a usage pattern (每天8小时、一周三天、做6周) → the tool's usage plan: the cheapest billing mode with its sums
    usage = (
        {"hours_per_day": f.hours_per_day or 24, "days_per_week": f.days_per_week or 7, "weeks": f.weeks}
        if (f.hours_per_day or f.days_per_week)
        else None
    )
    period = usage or A.period_args(f)
    out = [
        A.call(
            NAME,
            "gpu_price",
            gpu=A.card_name(f, gpu),
            gpu_count=f.gpu_count,
            hourly_quote_cny=f.hourly_quote_cny if both else None,
            monthly_quote_cny=f.monthly_quote_cny if both else None,
            **period,
        )
        for gpu in f.gpus[:4]
    ]
    out.append(A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2))
    single = (f.hourly_quote_cny is None) != (f.monthly_quote_cny is None)
    if single and f.period_hours and not usage:
        # "报价一个月3万，我只用10天" / "2块钱一小时，训练30小时": the user's own rate × the user's hours first
        amount, per = (f.hourly_quote_cny, "hour") if f.hourly_quote_cny else (f.monthly_quote_cny, "month")
        out.insert(
            0,
            A.call(
                NAME, "quote_cost", amount=amount, currency="CNY", per=per, hours=f.period_hours, count=f.gpu_count or 1
            ),
        )
    return out


# ---- the user's own quote in their currency: the hours they run × their rate ---------------------
QUOTE = "quote"


def _quote(f: Frame) -> MoneyQuote | None:
    from assistant.offline.reading.money import read_money_quote

    return read_money_quote(f.text)


_COMPUTE_RE = re.compile(
    r"\bvm\b|gpu|instance|cloud|server|train|training|inference|a100|h100|显卡|服务器|训练|云|实例|机器", re.I
)


def applies_quote(f: Frame) -> bool:
    q = _quote(f)
    has_hours = q is not None and (q.hours is not None or bool(f.period_hours))
    return q is not None and has_hours and (f.in_domain or bool(_COMPUTE_RE.search(f.text)))


def quote_calls(f: Frame) -> list[ToolCall]:
    """quote_cost at the user's rate for the user's hours; the China market price of the named card
    beside it (in CNY, said to be the China price), never a converted figure."""
    q = _quote(f)
    if q is None:
        return []
    hours = q.hours if q.hours is not None else f.period_hours  # "for 0 hours" is refused by the tool, not replaced
    out = [
        A.call(
            QUOTE,
            "quote_cost",
            amount=q.amount,
            currency=q.currency if q.currency in ("USD", "EUR", "GBP") else "other",
            per=q.per,
            hours=hours,
            count=f.gpu_count or 1,
        )
    ]
    for gpu in f.gpus[:1]:
        out.append(A.call(QUOTE, "gpu_price", gpu=A.card_name(f, gpu), gpu_count=f.gpu_count, hours=hours))
    return out
