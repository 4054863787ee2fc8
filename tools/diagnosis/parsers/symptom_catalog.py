"""Symptoms a renter tells in words (knowledge/diagnosis/symptom_catalog.yaml): GPU memory that grows and is
"not released", a new consumer card far slower than an old one. Same engine as the error catalog; a told kind,
so assistant/offline/reading/logs.py treats it as a paste only when the telling has several clauses."""

from __future__ import annotations

from tools.diagnosis.parsers.error_catalog import Catalog, scan

NAME = "symptom_catalog"


def parse(lines: list[str]) -> Catalog | None:
    return scan(lines, NAME)
