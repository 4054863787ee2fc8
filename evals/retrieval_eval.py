"""Retrieval eval: recall@3 and MRR of the guide search over `evals/retrieval/queries.yaml`.

    python evals/retrieval_eval.py [--k 3] [--verbose] [--json]

Definitions (document level — hits are passages, so they are collapsed to distinct documents
in rank order first):
  recall@k  = mean over queries of |expected ∩ top-k documents| / min(|expected|, k)
  MRR       = mean over queries of 1 / rank of the first expected document (0 beyond rank 10)
Off-topic queries must come back with `low_relevance` true (reported as off_topic_flagged), and
on-topic queries should not (reported as on_topic_flagged, the false alarms).

Runs against a throw-away `GPU_ADVISOR_HOME` so the user's own documents do not interfere.
"""

from __future__ import annotations

import sys
from pathlib import Path

# run as a script, Python puts evals/ first on sys.path, where evals/numbers.py would shadow
# the standard library's `numbers`; use the project root instead
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if str(Path(p or ".").resolve()) != _HERE]

import argparse  # noqa: E402 -- after the sys.path fix above
import json  # noqa: E402 -- after the sys.path fix above
import os  # noqa: E402 -- after the sys.path fix above
import tempfile  # noqa: E402 -- after the sys.path fix above
from typing import Any  # noqa: E402 -- after the sys.path fix above

import yaml  # noqa: E402 -- after the sys.path fix above

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

QUERIES = Path(__file__).resolve().parent / "retrieval" / "queries.yaml"


def _doc_ranking(result: Any) -> list[str]:
    seen: list[str] = []
    for hit in result.hits:
        if hit.doc_id not in seen:
            seen.append(hit.doc_id)
    return seen


def _score(retriever: Any, item: dict, k: int) -> dict[str, Any]:
    result = retriever.search(item["q"], k=10)
    docs = _doc_ranking(result)
    expected = list(item["expected"])
    found = [d for d in docs[:k] if d in expected]
    ranks = [docs.index(d) + 1 for d in expected if d in docs]
    return {
        "q": item["q"],
        "style": item.get("style", ""),
        "expected": expected,
        "top": docs[:k],
        "recall": len(found) / min(len(expected), k),
        "rr": 1.0 / min(ranks) if ranks else 0.0,
        "flagged": bool(result.hits and result.hits[0].low_relevance),
    }


def run_eval(
    k: int = 3, queries_path: Path = QUERIES, guide_dir: Path | None = None, home: Path | None = None
) -> dict[str, Any]:
    """Run every query; returns the metrics and the per-query rows."""
    spec = yaml.safe_load(queries_path.read_text(encoding="utf-8"))
    old_home = os.environ.get("GPU_ADVISOR_HOME")
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-eval-") as tmp:
        os.environ["GPU_ADVISOR_HOME"] = str(home or tmp)
        try:
            from tools.retrieval.search import Retriever

            retriever = Retriever(guide_dir=guide_dir)
            rows = [_score(retriever, item, k) for item in spec["queries"]]
            held = [_score(retriever, item, k) for item in spec.get("held_out", [])]
            off = [retriever.search(q, k=3).low_relevance for q in spec.get("off_topic", [])]
        finally:
            if old_home is None:
                os.environ.pop("GPU_ADVISOR_HOME", None)
            else:
                os.environ["GPU_ADVISOR_HOME"] = old_home
    n = len(rows)
    by_style: dict[str, list[float]] = {}
    for row in rows:
        by_style.setdefault(row["style"], []).append(row["recall"])
    return {
        "queries": n,
        f"recall_at_{k}": sum(r["recall"] for r in rows) / n,
        "mrr": sum(r["rr"] for r in rows) / n,
        "recall_by_style": {s: round(sum(v) / len(v), 3) for s, v in sorted(by_style.items())},
        "on_topic_flagged": sum(r["flagged"] for r in rows),
        "off_topic": len(off),
        "off_topic_flagged": sum(off),
        "misses": [r for r in rows if r["recall"] < 1.0],
        "held_out": len(held),
        f"held_out_recall_at_{k}": sum(r["recall"] for r in held) / len(held) if held else None,
        "held_out_mrr": sum(r["rr"] for r in held) / len(held) if held else None,
        "held_out_misses": [r for r in held if r["recall"] < 1.0],
        "held_out_flagged": sum(r["flagged"] for r in held),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--verbose", action="store_true", help="print every miss")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run_eval(k=args.k)
    if args.json:
        print(json.dumps({key: v for key, v in report.items() if key != "rows"}, ensure_ascii=False))
        return 0
    print(f"queries {report['queries']}  recall@{args.k} {report[f'recall_at_{args.k}']:.3f}  MRR {report['mrr']:.3f}")
    print(f"by style: {report['recall_by_style']}")
    print(
        f"off-topic flagged low_relevance: {report['off_topic_flagged']}/{report['off_topic']}; "
        f"on-topic false alarms: {report['on_topic_flagged']}/{report['queries']}"
    )
    if report["held_out"]:
        print(
            f"held-out ({report['held_out']} queries, never tuned on): "
            f"recall@{args.k} {report[f'held_out_recall_at_{args.k}']:.3f}  MRR {report['held_out_mrr']:.3f}  "
            f"false alarms {report['held_out_flagged']}/{report['held_out']}"
        )
    for label in ("misses", "held_out_misses"):
        misses = report[label]
        print(f"{label}: {len(misses)}")
        if args.verbose:
            for row in misses:
                print(f"  {row['q']!r}: expected {row['expected']} got {row['top']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
