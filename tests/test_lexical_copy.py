"""The persisted keyword indexes (tools/retrieval/search.py `_build_lexical`): a new process reads
BM25 (bodies, titles) and the corpus word counts back instead of counting again (issue 16).

The copy must score bit for bit as a fresh count, be used only for the corpus it was built from,
and on a miss (another corpus, a damaged file) count again and replace it — never raise.
"""

from __future__ import annotations

import marshal
from pathlib import Path

try:  # run from the project root (python -m pytest) or with tests/ on the path
    from tests import retrieval_cases as cases
except ImportError:  # pragma: no cover
    import retrieval_cases as cases


# own phrasings: casual Chinese, mixed scripts, English, off-topic
def _load(blob: bytes):  # noqa: ANN202
    return marshal.loads(blob)  # noqa: S302 — files this test wrote itself


QUERIES = [
    "掉卡了咋办",
    "两台8卡机器之间用啥网络",
    "A100 一小时多少钱",
    "gpu utilisation is low?",
    "recipe for dumplings",
]


def test_bm25_state_round_trip_scores_bit_for_bit():
    from tools.retrieval.bm25 import BM25Index

    # worked by hand: N = 3, df(gpu) = 2 → idf = ln(1.5) − ln(2.5) < 0, floored at ε × mean idf
    docs = [["gpu", "掉卡", "xid"], ["gpu", "网络"], ["价格"]]
    fresh = BM25Index(docs)
    again = BM25Index.from_state(_load(marshal.dumps(fresh.state())))
    for query in (["gpu"], ["掉卡", "xid"], ["网络", "gpu", "gpu"], ["无关"]):
        assert again.scores(query) == fresh.scores(query)  # exact float equality
    assert again.sets == fresh.sets and len(again) == 3
    assert fresh.scores(["价格"])[2] > 0 and fresh.scores(["价格"])[:2] == [0.0, 0.0]


def _results(retriever):
    return [
        [(h.doc_id, h.section, h.score, h.relevance, h.low_relevance) for h in retriever.search(q, k=5).hits]
        for q in QUERIES
    ]


def test_a_new_process_reads_the_indexes_back_and_ranks_alike(tmp_path, home, monkeypatch):
    guide = cases.write_corpus(tmp_path / "guide")
    first = cases.make_embedded(guide, home)
    expected = _results(first)
    copies = list((home / "cache").glob("lexical_*.marshal"))
    assert len(copies) == 1

    from tools.retrieval import bm25

    counted: list[int] = []
    real_init = bm25.BM25Index.__init__

    def spy(self, tokenized):  # noqa: ANN001
        counted.append(len(tokenized))
        real_init(self, tokenized)

    monkeypatch.setattr(bm25.BM25Index, "__init__", spy)
    second = cases.make_embedded(guide, home)  # another retriever: what a new process does
    assert _results(second) == expected
    assert counted == []  # read back, not counted

    copies[0].write_bytes(b"damaged")
    third = cases.make_embedded(guide, home)
    assert _results(third) == expected
    assert len(counted) == 2  # bodies and titles counted again …
    assert _load(copies[0].read_bytes())["key"][1] == third.content_hash  # … and the copy replaced


def test_another_corpus_does_not_use_the_copy(tmp_path, home):
    guide = cases.write_corpus(tmp_path / "guide")
    cases.make_embedded(guide, home).search("掉卡了咋办")
    extra = Path(guide) / "zz-extra.md"
    extra.write_text(
        '---\nid: zz-extra\ntitle:\n  zh: 饺子\n  en: Dumplings\nsources: ["a test"]\nas_of: 2026-12-01\n---\n'
        "# 饺子 / Dumplings\n\n## 做法 / Recipe\n饺子 dumplings recipe 面粉和馅。\n",
        encoding="utf-8",
    )
    changed = cases.make_embedded(guide, home)
    hits = changed.search("dumplings recipe 饺子").hits
    assert hits and hits[0].doc_id == "zz-extra"
    data = _load(next((home / "cache").glob("lexical_*.marshal")).read_bytes())
    assert data["key"][1] == changed.content_hash
