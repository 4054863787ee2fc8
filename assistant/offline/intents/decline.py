"""Short answers without a tool dump: out of scope, impossible input, no data, and push-back
(price forecasts, unlawful or provider-terms-breaking requests, unrealistic goals)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml

from assistant.offline.intents.args import INVALID, NO_DATA, OUT_OF_SCOPE
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall

FORECAST = "forecast"
UNLAWFUL = "unlawful"
LICENCE = "licence"  # a kind of UNLAWFUL: the answer says "needs a licence; ask a lawyer"
_CUES_FILE = Path(__file__).resolve().parents[3] / "knowledge" / "decline.yaml"


@lru_cache(maxsize=1)
def _cues() -> dict[str, list[re.Pattern[str]]]:
    data = yaml.safe_load(_CUES_FILE.read_text(encoding="utf-8")) or {}
    return {
        name: [re.compile(p, re.I | re.S) for p in body.get("cues") or []]
        for name, body in (data.get("classes") or {}).items()
    }


def cue_of(text: str) -> str | None:
    """'licence' / 'unlawful' / None from knowledge/decline.yaml; licence first (vgpu_unlock is a licence question)."""
    cues = _cues()
    for name in (LICENCE, UNLAWFUL):
        if any(p.search(text or "") for p in cues.get(name, [])):
            return name
    return None


def applies_unlawful(f: Frame) -> bool:
    return f.decline == UNLAWFUL or cue_of(f.text) is not None


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
