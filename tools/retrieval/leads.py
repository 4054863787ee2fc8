"""Know-how questions the guide answers before any tool, read from the guide's own front matter.

A guide document may list `leads:` — regexes (case-insensitive) for questions whose answer is that
document's practical advice rather than a figure: "SSH 一断训练就停", "V100 能装 flash attention 吗",
"两张 4090 能当 48G 用吗". Without this, a question that names a card or a model size goes to the spec or
memory tools, which answer a question nobody asked. The vocabulary lives beside the text that answers
it (knowledge/guide/*.md), so adding a topic is one edit in one file.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from tools.retrieval.corpus import split_front_matter
from tools.retrieval.paths import guide_dir


@lru_cache(maxsize=4)
def _patterns(folder: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(doc id, compiled regex) for every `leads` entry of every guide document in `folder`."""
    out: list[tuple[str, re.Pattern[str]]] = []
    for path in sorted(Path(folder).glob("*.md")):
        try:
            meta, _ = split_front_matter(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for raw in meta.get("leads") or []:
            out.append((str(meta.get("id") or path.stem), re.compile(str(raw), re.I | re.S)))
    return tuple(out)


def guide_leads(text: str, folder: Path | None = None) -> list[str]:
    """Ids of the guide documents (in `folder`, default the guidance corpus) whose `leads` match the
    question, in file order, without repeats."""
    found: list[str] = []
    for doc_id, rx in _patterns(str(folder or guide_dir())):
        if doc_id not in found and rx.search(text or ""):
            found.append(doc_id)
    return found


@lru_cache(maxsize=4)
def _routed_only(folder: str) -> frozenset[str]:
    """Ids of guide documents marked `open_search: false`: answers to one narrow question that an intent
    asks for by id (search_guide doc_id=…); in an open search their model-specific tables would outrank the
    general documents for any "what fits my card" question."""
    out: set[str] = set()
    for path in sorted(Path(folder).glob("*.md")):
        try:
            meta, _ = split_front_matter(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if meta.get("open_search") is False:
            out.add(str(meta.get("id") or path.stem))
    return frozenset(out)


def routed_only(folder: Path | None = None) -> frozenset[str]:
    return _routed_only(str(folder or guide_dir()))
