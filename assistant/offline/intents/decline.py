"""Short answers without a tool dump: out of scope, impossible input, no data, and push-back
(price forecasts, unlawful or provider-terms-breaking requests, unrealistic goals)."""

from __future__ import annotations

from assistant.offline.intents.args import INVALID, NO_DATA, OUT_OF_SCOPE
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall

FORECAST = "forecast"
UNLAWFUL = "unlawful"


def applies_unlawful(f: Frame) -> bool:
    return f.decline == UNLAWFUL


def applies_forecast(f: Frame) -> bool:
    return f.decline == FORECAST


def applies_out_of_scope(f: Frame) -> bool:
    return f.out_of_scope or not f.in_domain


def applies_invalid(f: Frame) -> bool:
    return bool(f.invalid)


def applies_no_data(f: Frame) -> bool:
    return "no_data" in f.cues  # electricity bills etc.: no tool has the data (a rental price would mislead)


def calls(f: Frame) -> list[ToolCall]:
    return []


NAMES = (OUT_OF_SCOPE, INVALID, NO_DATA, UNLAWFUL, FORECAST)
