"""A model the user names but nobody knows the size of: 「部署CosyVoice2要多大显存」, "VRAM for Zephyr-orpo?".

Why: with no catalog row and no parameter count there is nothing to size, and answering with the nearest guide
passage (a 13B example, a KV-cache rule) is a confident answer to another question. The reader keeps the name so
the planner can say on line 1 what it does not know and ask for the size or config.json. Only tokens shaped like
product names count (CamelCase, letters with digits, a capitalised hyphenated word); the tools and terms in
knowledge/reading_terms.yaml never do, nor a name the guide itself discusses (it can answer those).
"""

from __future__ import annotations

import re
from functools import lru_cache

from tools.data import knowledge_path, load_yaml

# ASCII boundaries: a Chinese character next to the name ("部署CosyVoice2要") is a boundary, not part of it
_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9_./-])([A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*)(?![A-Za-z0-9_/])")
_CAMEL_RE = re.compile(r"[a-z][A-Z]")
_LETTERS_DIGITS_RE = re.compile(r"[A-Za-z]{3,}\d|\d[A-Za-z]{3,}")


@lru_cache(maxsize=1)
def _terms() -> frozenset[str]:
    return frozenset(str(t).lower() for t in load_yaml("reading_terms.yaml")["terms"])


@lru_cache(maxsize=1)
def _guide_text() -> str:
    """The guide's own words, lower case: a name the guide discusses (ResNet, YOLO) is one it can answer."""
    return "\n".join(p.read_text(encoding="utf-8").lower() for p in sorted(knowledge_path("guide").glob("*.md")))


def _looks_like_a_name(token: str) -> bool:
    if len(token) < 4 or token.lower() in _terms() or "." in token:
        return False  # a dotted token is a version or a Python name (paddleseg2.8, torch.OutOfMemoryError)
    return bool(_CAMEL_RE.search(token) or _LETTERS_DIGITS_RE.search(token) or ("-" in token and token[0].isupper()))


def _versioned_family_name(own_words: str, known_low: list[str]) -> str | None:
    """「deepseek v4」, "kimi k3", "glm-5": a catalog family word with a release number the catalog does not have.
    Lower case and a space are how people type these, so the product-name shapes below would miss them."""
    from assistant.offline.reading.vocab import family_version_spans
    from tools.models import alias_index, find_entry, normalise_name

    for start, end in family_version_spans(own_words):
        name = own_words[start:end].strip()
        low = name.lower()
        if any(low in k or k in low for k in known_low) or find_entry(name) is not None:
            continue
        key = normalise_name(name)
        if any(k.startswith(key) for k in alias_index()):
            continue  # "qwen3", "llama 3": a release the catalog has, named without its size
        return name
    return None


def unknown_model_name(own_words: str, known: list[str]) -> str | None:
    """The first product-like name in the user's own words that is not one of the `known` mentions
    (GPU and model texts the reader already resolved)."""
    known_low = [k.lower() for k in known if k]
    versioned = _versioned_family_name(own_words, known_low)
    if versioned:
        return versioned
    for m in _TOKEN_RE.finditer(own_words):
        token = m.group(1)
        low = token.lower()
        if any(low in k or k in low for k in known_low):
            continue
        if _looks_like_a_name(token) and low not in _guide_text():
            return token
    return None


# "KnowLM 13B", "InternLM-XComposer 7B": a product-shaped name, a space, then the size
_NAME_THEN_SIZE_RE = re.compile(
    r"(?<![A-Za-z0-9_./-])([A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*)\s+(\d+(?:\.\d+)?)\s*[Bb](?![A-Za-z0-9])"
)


def name_before_size(own_words: str, size_b: float) -> str | None:
    """The product-like name typed just before a bare size ("KnowLM 13B" → "KnowLM"), so an answer sized
    with a generic architecture can say which model it stands in for. Tool and term words never count."""
    for m in _NAME_THEN_SIZE_RE.finditer(own_words):
        if float(m.group(2)) == size_b and _looks_like_a_name(m.group(1)):
            return m.group(1)
    return None
