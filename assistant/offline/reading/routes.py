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
    """One phrase as a pattern: spaces/hyphens optional between parts, ASCII ends bounded by non-letters."""
    parts = [re.escape(p) for p in re.split(r"[\s\-]+", word.strip().lower()) if p]
    body = r"[\s\-]*".join(parts)
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
