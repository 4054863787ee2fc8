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
MODEL_LICENCE = "model_licence"  # a model's weights used against their licence: its own LICENSE decides
LLAMA_LICENCE = "llama_licence"  # the same for the LLaMA family, whose terms the text names (LLaMA 1 non-commercial)
_CUES_FILE = Path(__file__).resolve().parents[3] / "knowledge" / "decline.yaml"


@lru_cache(maxsize=1)
def _data() -> dict:
    return yaml.safe_load(_CUES_FILE.read_text(encoding="utf-8")) or {}


@lru_cache(maxsize=1)
def _cues() -> dict[str, list[re.Pattern[str]]]:
    data = _data()
    return {
        name: [re.compile(p, re.I | re.S) for p in body.get("cues") or []]
        for name, body in (data.get("classes") or {}).items()
    }


def cue_of(text: str) -> str | None:
    """'model_licence' / 'licence' / 'unlawful' / other class / None from knowledge/decline.yaml; a model's licence
    first (「绕开 license 商用」 is about the weights' terms), then software licences (vgpu_unlock), then unlawful,
    then the remaining classes in file order (free-tier allocation, policy forecasts)."""
    cues = _cues()
    first = (LLAMA_LICENCE, MODEL_LICENCE, LICENCE, UNLAWFUL)
    # then the push-back classes that are not about breaking rules (free-tier allocation, policy forecasts)
    for name in (*first, *(n for n in cues if n not in first)):
        if any(p.search(text or "") for p in cues.get(name, [])):
            return name
    return None


def applies_unlawful(f: Frame) -> bool:
    return f.decline == UNLAWFUL or cue_of(f.text) is not None


def statement(kind: str, text: str = "") -> tuple[tuple[str, str], list[tuple[str, str]]]:
    """(verdict, next steps) as (zh, en) pairs for a kind of decline, from knowledge/decline.yaml `texts`
    (one entry per kind, so the wording and its sources live beside the cues); unknown kinds read as unlawful.
    A kind's `variants` (each with a `when` regex on the user's words) replace the default text when they match:
    the Colab FAQ is cited for Colab, not for another service's free quota."""
    texts = _data().get("texts") or {}
    body = texts.get(kind) or texts[UNLAWFUL]
    for variant in body.get("variants") or []:
        if re.search(str(variant["when"]), text or "", re.I):
            body = variant
            break
    verdict = (body["verdict"]["zh"], body["verdict"]["en"])
    return verdict, [(n["zh"], n["en"]) for n in body.get("next") or []]


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
