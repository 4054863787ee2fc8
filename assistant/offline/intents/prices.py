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
    usage = A.usage_hours_per_month(f)
    period = {"hours": usage} if usage else A.period_args(f)  # a usage pattern says the hours a month
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
