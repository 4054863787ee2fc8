"""Named setups whose memory cause an answer must name (knowledge/setup_memory.yaml): Meta's llama example.py
pre-allocating its KV cache, langchain-ChatGLM's embedding model on the GPU, Wan2.1's FSDP + Ulysses recipe…

WHY a reading step: renderers test mentions, never the question text; each entry whose `all` patterns all match
(and no `none` pattern does) becomes the mention `setup:<id>`, and writing/setup_notes.py writes its note."""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=1)
def _rules() -> tuple[tuple[str, tuple[re.Pattern[str], ...], tuple[re.Pattern[str], ...], bool], ...]:
    from tools.data import load_yaml

    out = []
    for row in load_yaml("setup_memory.yaml").get("setups") or []:
        need = tuple(re.compile(p, re.I) for p in row.get("all") or [])
        veto = tuple(re.compile(p, re.I) for p in row.get("none") or [])
        if row.get("id") and need:
            out.append((str(row["id"]), need, veto, bool(row.get("raw"))))
    return tuple(out)


def setup_mentions(text: str, raw: str | None = None) -> set[str]:
    """`setup:<id>` for every setup the question names (all of its patterns, none of its vetoes). A row marked
    `raw: true` is matched against the question as written (line breaks kept), not the normalised reading text."""
    return {
        f"setup:{sid}"
        for sid, need, veto, on_raw in _rules()
        for t in [(raw if raw is not None else text) if on_raw else text]
        if all(rx.search(t) for rx in need) and not any(rx.search(t) for rx in veto)
    }
