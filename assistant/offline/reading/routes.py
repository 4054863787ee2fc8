"""Route words — self-host vs hosted API — compiled from knowledge/route_words.yaml at first use.

Why: the self-host/API comparison and the serving rule both ask "does the user talk about hosting it
themselves / about an API?". Keeping the words in knowledge/ means one list that both rules read and a new
phrasing (「自己租卡部署」) is a data change with a test, not a third regex.
"""

from __future__ import annotations

import re
from functools import lru_cache

from tools.data import load_yaml


def _phrase(word: str) -> str:
    """One phrase as a pattern: spaces/hyphens optional between parts, ASCII ends bounded by non-letters;
    "*" is a short gap inside a phrase (up to 6 characters, no punctuation)."""
    pieces = []
    for chunk in word.strip().lower().split("*"):
        parts = [re.escape(p) for p in re.split(r"[\s\-]+", chunk) if p]
        pieces.append(r"[\s\-]*".join(parts))
    body = r"[^，,。.？?！!；;\n]{0,6}?".join(pieces)
    if re.match(r"[a-z0-9]", word.strip(), re.I):
        body = r"(?<![a-z])" + body
    if re.search(r"[a-z0-9]$", word.strip(), re.I):
        body += r"(?![a-z])"
    return body


@lru_cache(maxsize=None)
def route_regex(kind: str) -> re.Pattern[str]:
    """The compiled words of one route ('self_host' or 'api'), longest first."""
    words = [str(w) for w in load_yaml("route_words.yaml")[kind]]
    return re.compile("|".join(_phrase(w) for w in sorted(words, key=len, reverse=True)), re.I)


def says_self_host(text: str) -> bool:
    return bool(route_regex("self_host").search(text))


def says_api(text: str) -> bool:
    return bool(route_regex("api").search(text))


# ---- the parts of a multi-part question (knowledge/route_words.yaml decode_speed / each) -------------
_PART_KINDS = ("decode_speed", "each")


def part_cues(text: str) -> set[str]:
    """The part cues a span contains: 'decode_speed' (how fast tokens come out) and 'each' (one figure per
    value named). Why here: one word list in knowledge/, read by the slot reader's cues and split_asks."""
    return {kind for kind in _PART_KINDS if route_regex(kind).search(text or "")}


@lru_cache(maxsize=None)
def _precision_regexes() -> tuple[tuple[str, re.Pattern[str]], ...]:
    words = load_yaml("reading_terms.yaml")["precision_words"]
    return tuple(
        (str(p), re.compile("|".join(_phrase(str(w)) for w in sorted(ws, key=len, reverse=True)), re.I))
        for p, ws in words.items()
    )


def named_precisions(text: str) -> list[str]:
    """Every weight precision the text names, in order of first mention ("BF16和FP8" → [bf16, fp8])."""
    found: list[tuple[int, str]] = []
    for name, rx in _precision_regexes():
        m = rx.search(text or "")
        if m:
            found.append((m.start(), name))
    return [name for _, name in sorted(found)]
