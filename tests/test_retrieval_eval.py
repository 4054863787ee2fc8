"""The retrieval eval (evals/retrieval/queries.yaml) on the real corpus: recall@3 ≥ 0.9."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "knowledge" / "guide"
QUERIES = ROOT / "evals" / "retrieval" / "queries.yaml"


def _spec() -> dict:
    return yaml.safe_load(QUERIES.read_text(encoding="utf-8"))


def test_eval_set_is_big_and_varied_enough():
    spec = _spec()
    queries = spec["queries"]
    assert len(queries) >= 60
    styles = {q["style"] for q in queries}
    assert {"zh", "en", "mixed", "colloquial", "typo"} <= styles
    assert len({q["q"] for q in queries}) == len(queries), "duplicate queries"
    assert len(spec["off_topic"]) >= 4


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    docs = sorted(p.stem for p in GUIDE.glob("*.md")) if GUIDE.is_dir() else []
    if len(docs) < 25:
        pytest.skip(f"guidance corpus not landed yet ({len(docs)} of ≥25 documents in knowledge/guide/)")
    expected = {d for q in _spec()["queries"] for d in q["expected"]}
    missing = sorted(expected - set(docs))
    assert not missing, f"eval expects documents that do not exist: {missing}"
    from evals.retrieval_eval import run_eval

    return run_eval(k=3, home=tmp_path_factory.mktemp("eval-home"))


def test_recall_at_3_is_at_least_0_9(report):
    misses = [(m["q"], m["expected"], m["top"]) for m in report["misses"]]
    assert report["recall_at_3"] >= 0.9, misses
    assert report["mrr"] >= 0.75


def test_held_out_queries_generalise(report):
    # written after tuning and never tuned on: a looser floor, a guard against over-fitting
    assert report["held_out"] >= 20 and report["held_out_recall_at_3"] >= 0.8, report["held_out_misses"]


def test_off_topic_questions_are_flagged_and_on_topic_ones_are_not(report):
    assert report["off_topic_flagged"] == report["off_topic"]
    flagged = [r["q"] for r in report["rows"] if r["flagged"]]
    assert len(flagged) <= 0.05 * report["queries"], flagged
