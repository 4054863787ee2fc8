"""Rental prices and billing: the market ranges for a card, the user's own quotes (both → break-even)."""

from __future__ import annotations

from assistant.offline.intents import args as A
from assistant.offline.intents.args import PRICE
from assistant.offline.reading.frame import Frame
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
    return out
