"""Retrieval benchmark: index build time and query latency (p50/p95) on the real corpus.

    python benchmarks/bench_retrieval.py [--rounds 3] [--json] [--chroma-url URL]

Runs in a throw-away GPU_ADVISOR_HOME. Figures: cold build (empty store → every passage
embedded and added), warm open (same corpus, a new Retriever: hash matches, nothing re-embedded),
jieba initialisation, and per-query latency of `Retriever.search` (vector + BM25 + fusion) over
the eval queries.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if str(Path(p or ".").resolve()) != _HERE]
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import yaml  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _synthetic_docs(folder: Path, passages: int) -> list[Path]:
    """`passages` extra sections (10 per file) made of shuffled corpus sentences, seeded: a bigger
    index with realistic vocabulary, for scale figures only."""
    import random
    import re

    from tools.retrieval.corpus import load_guide
    from tools.retrieval.paths import guide_dir

    sentences = [s for p in load_guide(guide_dir()) for s in re.split(r"(?<=[。！？.!?])\s*", p.text) if len(s) > 20]
    rng = random.Random(42)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for f in range(max(1, passages // 10)):
        parts = [f"# synthetic {f}"]
        for sec in range(10):
            parts.append(f"## section {sec}\n\n" + " ".join(rng.sample(sentences, 4)))
        path = folder / f"synthetic-{f:05d}.md"
        path.write_text("\n\n".join(parts), encoding="utf-8")
        paths.append(path)
    return paths


def run(rounds: int = 3, chroma_url: str | None = None, synthetic: int = 0) -> dict:
    queries = [
        item["q"]
        for item in yaml.safe_load((ROOT / "evals" / "retrieval" / "queries.yaml").read_text(encoding="utf-8"))[
            "queries"
        ]
    ]
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-bench-") as tmp:
        os.environ["GPU_ADVISOR_HOME"] = tmp
        t0 = time.perf_counter()
        import chromadb  # noqa: F401

        from tools.retrieval.bm25 import tokenize
        from tools.retrieval.search import Retriever

        import_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        tokenize("显存")
        jieba_s = time.perf_counter() - t0

        if synthetic:
            from tools.retrieval.user_docs import UserDocs

            UserDocs().add(_synthetic_docs(Path(tmp) / "synthetic", synthetic))
        name = f"bench_{int(time.time())}" if chroma_url else None
        t0 = time.perf_counter()
        cold = Retriever(chroma_url=chroma_url or "", collection_name=name)
        stats = cold.refresh()
        build_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        warm = Retriever(chroma_url=chroma_url or "", collection_name=name)
        warm_stats = warm.refresh()
        warm_s = time.perf_counter() - t0

        warm.search(queries[0], k=5)
        latencies = []
        for _ in range(rounds):
            for q in queries:
                t0 = time.perf_counter()
                warm.search(q, k=5)
                latencies.append((time.perf_counter() - t0) * 1000)
        if chroma_url:
            warm.store.drop()
    return {
        "passages": len(cold.passages),
        "documents": len({p.doc_id for p in cold.passages}),
        "backend": cold.store.backend,
        "import_chromadb_s": round(import_s, 3),
        "jieba_init_s": round(jieba_s, 3),
        "index_build_cold_s": round(build_s, 3),
        "index_build_added": stats.added,
        "index_open_warm_s": round(warm_s, 3),
        "index_open_warm_reembedded": warm_stats.added,
        "queries": len(latencies),
        "query_p50_ms": round(statistics.median(latencies), 2),
        "query_p95_ms": round(_pct(latencies, 0.95), 2),
        "query_max_ms": round(max(latencies), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="retrieval benchmark")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--chroma-url", default=os.environ.get("CHROMA_URL"))
    parser.add_argument(
        "--synthetic",
        type=int,
        default=0,
        help="add about this many synthetic passages (as user documents) to measure scale",
    )
    args = parser.parse_args()
    report = run(args.rounds, args.chroma_url, args.synthetic)
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"retrieval benchmark ({report['backend']}, {report['documents']} documents, {report['passages']} passages)")
    print(f"  import chromadb + retrieval   {report['import_chromadb_s'] * 1000:8.0f} ms")
    print(f"  jieba init                    {report['jieba_init_s'] * 1000:8.0f} ms")
    print(
        f"  index build (cold)            {report['index_build_cold_s'] * 1000:8.0f} ms "
        f"({report['index_build_added']} passages embedded)"
    )
    print(
        f"  index open (warm, unchanged)  {report['index_open_warm_s'] * 1000:8.0f} ms "
        f"({report['index_open_warm_reembedded']} re-embedded)"
    )
    print(
        f"  query p50 / p95 / max         {report['query_p50_ms']:.2f} / {report['query_p95_ms']:.2f} / "
        f"{report['query_max_ms']:.2f} ms over {report['queries']} queries"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
