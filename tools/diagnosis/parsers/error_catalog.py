"""Framework and NCCL errors kept as data (knowledge/diagnosis/error_catalog.yaml): which rules fired, on which
line, and the numbers the paste states (the finding quotes the user's own figures, never a guide's example).

Why a catalog: each of these errors has one root cause that needs framework knowledge (FlashAttention's GPU
generations, NVLink SHARP, RDMA memory registration, ollama's memory check); the words, sources and advice
change with the tools, so they live in YAML beside their citations and this module only matches them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from tools.diagnosis import signals

NAME = "error_catalog"


@dataclass
class Hit:
    rule: str
    line: str
    values: dict[str, str] = field(default_factory=dict)


@dataclass
class Catalog:
    hits: list[Hit] = field(default_factory=list)
    text: str = ""

    def get(self, rule: str) -> Hit | None:
        return next((h for h in self.hits if h.rule == rule), None)


@lru_cache(maxsize=None)
def _compiled(name: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for rid, rule in (signals.load(name).get("rules") or {}).items():
        out[rid] = {
            "patterns": [re.compile(str(p), re.I) for p in rule.get("patterns") or []],
            "requires": [re.compile(str(r), re.I) for r in _listed(rule.get("requires"))],
            "excludes": [re.compile(str(r), re.I) for r in _listed(rule.get("excludes"))],
            "values": {k: re.compile(str(v), re.I | re.M) for k, v in (rule.get("values") or {}).items()},
        }
    return out


def _listed(x: Any) -> list[Any]:
    return [] if x is None else list(x) if isinstance(x, list) else [x]


def _value(rx: re.Pattern[str], text: str) -> str | None:
    m = rx.search(text)
    if not m:
        return None
    groups = [g for g in m.groups() if g]
    return " ".join(groups) if groups else m.group(0)


def scan(lines: list[str], name: str = NAME) -> Catalog | None:
    """Every rule of catalog `name` that fires on `lines`, in the file's order."""
    text = "\n".join(lines)
    out = Catalog(text=text)
    for rid, rule in _compiled(name).items():
        line = next(
            (ln.strip() for ln in lines[:20000] if len(ln) <= 4000 and any(p.search(ln) for p in rule["patterns"])),
            None,
        )
        if line is None or not all(r.search(text) for r in rule["requires"]):
            continue
        if any(r.search(text) for r in rule["excludes"]):
            continue
        values = {k: v for k, rx in rule["values"].items() if (v := _value(rx, text)) is not None}
        out.hits.append(Hit(rid, line[:400], values))
    return out if out.hits else None


def parse(lines: list[str]) -> Catalog | None:
    return scan(lines, NAME)
