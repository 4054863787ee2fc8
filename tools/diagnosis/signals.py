"""Detection patterns and advice kept as data: knowledge/diagnosis/<name>.yaml, one file per fault class.

Why: the words a paste is recognised by (a `Killed` after `Loading checkpoint shards`, an IPMI `Bus Correctable
error`, `CUDA_VISIBLE_DEVICES=1` alone on a line) and the advice given for them change with the tools people use,
and each carries its own source. Keeping them in YAML lets them be reviewed and cited without reading code; the
parsers only say which named pattern matched and which numbers were read, the rules fill the templates.

File layout: `signatures` (substrings that make detect run the parser), `patterns` (name -> regex, or a list of
regexes any of which may match), `findings` (id -> title/causes/actions, each {zh, en} with `{placeholders}`),
and free-form tables a parser may need (launchers, thresholds).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

_DIR = Path(__file__).resolve().parents[2] / "knowledge" / "diagnosis"


@lru_cache(maxsize=None)
def load(name: str) -> dict[str, Any]:
    import yaml

    return yaml.safe_load((_DIR / f"{name}.yaml").read_text(encoding="utf-8")) or {}


def signatures(name: str) -> tuple[str, ...]:
    return tuple(str(s) for s in load(name).get("signatures") or ())


@lru_cache(maxsize=None)
def patterns(name: str) -> dict[str, list[re.Pattern[str]]]:
    """name -> compiled regexes (case-insensitive; a pattern may be one regex or a list of them)."""
    out: dict[str, list[re.Pattern[str]]] = {}
    for key, rx in (load(name).get("patterns") or {}).items():
        items = rx if isinstance(rx, list) else [rx]
        out[key] = [re.compile(str(r), re.I) for r in items]
    return out


def search(name: str, key: str, text: str) -> re.Match[str] | None:
    """The first match of pattern `key` of file `name` in `text`."""
    for rx in patterns(name).get(key, []):
        m = rx.search(text)
        if m:
            return m
    return None


def first_line(name: str, key: str, lines: list[str], limit: int = 2000) -> tuple[str, re.Match[str]] | None:
    """(line, match) for the first line among `lines` where pattern `key` matches."""
    for line in lines[:limit]:
        if len(line) > 2000:
            continue
        m = search(name, key, line)
        if m:
            return line.strip(), m
    return None


class _Keep(dict[str, Any]):
    """format_map that leaves an unknown {placeholder} as written instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, values: dict[str, Any]) -> str:
    return template.format_map(_Keep(values))


def pair(entry: dict[str, str], values: dict[str, Any] | None = None) -> tuple[str, str]:
    v = values or {}
    return fill(str(entry["zh"]), v), fill(str(entry["en"]), v)


def finding_text(name: str, fid: str, values: dict[str, Any] | None = None) -> dict[str, Any]:
    """title, causes, actions of finding `fid` in file `name`, filled with `values`."""
    entry = (load(name).get("findings") or {})[fid]
    out: dict[str, Any] = {"title": pair(entry["title"], values)}
    for key in ("causes", "actions"):
        out[key] = [pair(e, values) for e in entry.get(key) or []]
    return out


def snippet(name: str, key: str, values: dict[str, Any] | None = None) -> tuple[str, str]:
    """One named {zh, en} text from the file's `texts` table."""
    return pair((load(name).get("texts") or {})[key], values)


# detect kind -> the knowledge file that holds its words
KIND_FILES = {
    "ipmi_sel": "pcie_faults",
    "gpu_selection": "gpu_selection",
    "host_memory": "host_memory",
    "line_rate": "line_rate",
}


def guide_query(kinds: list[str], zh: bool) -> str | None:
    """Words that retrieve the guide section for the first of `kinds` that has them (a renter's own words such
    as 「16G显存不够吗」 around a `Killed` would otherwise pull in the GPU-memory pages)."""
    for kind in kinds:
        name = KIND_FILES.get(kind)
        q = (load(name).get("guide_query") or {}) if name else {}
        if q:
            return str(q["zh" if zh else "en"])
    return None
