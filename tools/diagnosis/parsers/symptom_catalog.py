"""Symptoms a renter tells in words (knowledge/diagnosis/symptom_catalog.yaml): GPU memory that grows and is
"not released", a new consumer card far slower than an old one. Same engine as the error catalog; a told kind,
so assistant/offline/reading/logs.py treats it as a paste only when the telling has several clauses."""

from __future__ import annotations

from tools.diagnosis.parsers.error_catalog import Catalog, scan

NAME = "symptom_catalog"


def parse(lines: list[str]) -> Catalog | None:
    return scan(lines, NAME)


def one_line_hits(lines: list[str]) -> list[str]:
    """Rules that fired and are marked `one_line` in the catalog: a symptom one sentence tells completely
    (「nvidia-smi 显示 ERR!」), so the telling is diagnosed rather than answered as a how-to."""
    from tools.diagnosis import signals

    cat = scan(lines, NAME)
    rules = signals.load(NAME).get("rules") or {}
    return [h.rule for h in (cat.hits if cat else []) if (rules.get(h.rule) or {}).get("one_line")]
