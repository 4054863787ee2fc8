"""Retrieval over the embedded Chroma store: embedding, BM25, fusion, relevance, persistence."""

from __future__ import annotations

import http.server
import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

try:  # run from the project root (python -m pytest) or with tests/ on the path
    from tests import retrieval_cases as cases
except ImportError:  # pragma: no cover
    import retrieval_cases as cases

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ embedding


def test_embedding_is_identical_across_processes_and_hash_seeds():
    # Python's hash() is salted per process; blake2b is not — a persisted index needs the latter
    from tools.retrieval.embedding import hash_embed

    text = "两台 8 卡 A100 用什么网络？InfiniBand or RoCE"
    here = hash_embed(text)
    code = (
        "import sys, json; sys.path.insert(0, %r); from tools.retrieval.embedding import hash_embed; "
        "print(json.dumps(hash_embed(%r).tolist()))" % (str(ROOT), text)
    )
    for seed in ("1", "12345"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert np.array_equal(np.asarray(json.loads(out.stdout), dtype=np.float32), here)


def test_embedding_is_unit_length_and_handles_chinese():
    from tools.retrieval.embedding import hash_embed

    a, b, c = hash_embed("训练时掉卡了"), hash_embed("掉卡怎么办"), hash_embed("网络带宽怎么选")
    assert math.isclose(float(np.linalg.norm(a)), 1.0, rel_tol=1e-5)
    # Hand arithmetic with the documented weights (1-gram 0.4, 2-gram 1.0, 3-gram 0.8):
    # a = 训练时掉卡了: 6 unigrams, 5 bigrams, 4 trigrams → |a|² = 6·0.16 + 5·1 + 4·0.64 = 8.52
    # b = 掉卡怎么办:   5 unigrams, 4 bigrams, 3 trigrams → |b|² = 5·0.16 + 4·1 + 3·0.64 = 6.72
    # shared: 掉, 卡, 掉卡 → a·b = 0.16 + 0.16 + 1.0 = 1.32; cosine = 1.32 / √(8.52·6.72) ≈ 0.1744
    assert math.isclose(float(a @ b), 1.32 / math.sqrt(8.52 * 6.72), abs_tol=0.01)
    assert abs(float(a @ c)) < 0.05  # 网络带宽怎么选 shares no n-gram with a (only hash collisions)
    # full-width letters and case fold to the same features (NFKC + lower)
    assert np.array_equal(hash_embed("ＧＰＵ 利用率"), hash_embed("gpu 利用率"))
    # a Latin typo keeps some character 3-grams (word weight 1.0, 3-gram weight 0.5):
    # #utilization# has 11 3-grams, #utilisaton# 10; shared #ut uti til ili on# = 5; the words differ
    # cosine = 5·0.25 / √((1 + 11·0.25)·(1 + 10·0.25)) = 1.25 / √(3.75·3.5) ≈ 0.345
    assert math.isclose(
        float(hash_embed("utilization") @ hash_embed("utilisaton")), 1.25 / math.sqrt(3.75 * 3.5), abs_tol=0.03
    )
    # empty text: a fixed unit vector, never NaN
    assert math.isclose(float(np.linalg.norm(hash_embed(""))), 1.0)


def test_embedding_function_config_round_trip():
    from tools.retrieval.embedding import HashNgramEmbedding

    ef = HashNgramEmbedding(dim=256)
    clone = HashNgramEmbedding.build_from_config(ef.get_config())
    assert clone.dim == 256 and HashNgramEmbedding.name() == "gpu_advisor_hash_ngram"
    assert np.array_equal(ef(["显存"])[0], clone(["显存"])[0]) and len(ef(["x"])[0]) == 256


# ------------------------------------------------------------------ tokens, corpus, fusion


def test_tokenizer_keeps_card_names_and_splits_number_units(home):
    from tools.retrieval.bm25 import tokenize

    tokens = tokenize("qlora 24g 能跑多大")
    assert {"qlora", "24g", "24", "gb"} <= set(tokens)
    assert {"a100", "80gb", "80", "h100"} <= set(tokenize("A100 80GB 和 H100 哪个好"))
    assert "4090d" in tokenize("4090D 掉卡") and "掉卡" in tokenize("4090D 掉卡")
    assert "的" not in tokenize("显存的计算") and "the" not in tokenize("the network")


def test_jieba_cache_goes_to_project_home(tmp_path):
    code = "import sys; sys.path.insert(0, %r); from tools.retrieval.bm25 import tokenize; tokenize('显存')" % str(ROOT)
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        capture_output=True,
        env={**os.environ, "GPU_ADVISOR_HOME": str(tmp_path)},
    )
    assert (tmp_path / "cache" / "jieba.cache").exists()


def test_guide_document_splits_into_sections_and_languages(tmp_path):
    from tools.retrieval.corpus import load_guide

    passages = load_guide(cases.write_corpus(tmp_path / "guide"))
    util = [p for p in passages if p.doc_id == "gpu-utilization-low"]
    # two `## ` sections; the `## ` line inside the code fence does not start a third
    assert [p.section for p in util] == ["常见原因 / Common causes", "排查命令 / Commands"]
    assert util[0].text_zh.startswith("数据加载跟不上") and util[0].text_en.startswith("The input pipeline")
    assert "iostat -x 1" in util[1].text_zh and "iostat -x 1" in util[1].text_en  # code belongs to both
    assert util[0].title_en == "GPU utilisation below 50%" and util[0].tags == ("utilization", "dataloader")
    assert len(passages) == 2 + 2 + 1 + 1  # sections per fixture document, the `# ` title line adds none


def test_user_text_is_chunked_under_the_limit():
    from tools.retrieval.corpus import MAX_CHARS, parse_user_document

    header = "provider,gpu,price_cny_per_card_hour,city"
    rows = header + "\n" + "\n".join(f"provider-{i},A100 80GB,{5 + i % 3}.5,济南" for i in range(200))
    passages = parse_user_document(rows, "u-x", "prices.csv", "user_docs/u-x.csv", markdown=False)
    assert len(passages) > 5 and all(len(p.text) <= MAX_CHARS for p in passages)
    assert "provider-0," in passages[0].text and "provider-199," in passages[-1].text
    # every chunk of a CSV starts with its header row, exactly once
    assert all(p.text.startswith(header) and p.text.count(header) == 1 for p in passages)
    # every row lands in exactly one chunk
    assert sum(p.text.count("provider-") for p in passages) == 200


def test_reciprocal_rank_fusion_matches_hand_arithmetic():
    from tools.retrieval.search import reciprocal_rank_fusion

    # Cormack et al. 2009, K = 60: item 7 is 2nd in both lists, item 1 is 1st in one list only
    fused = reciprocal_rank_fusion({"vector": [1, 7, 3], "bm25": [5, 7]}, {"vector": 1.0, "bm25": 1.0}, k=60)
    assert math.isclose(fused[7], 1 / 62 + 1 / 62)
    assert math.isclose(fused[1], 1 / 61) and math.isclose(fused[3], 1 / 63)
    assert fused[7] > fused[1] > fused[3]
    weighted = reciprocal_rank_fusion({"title": [3]}, {"title": 0.5}, k=60)
    assert math.isclose(weighted[3], 0.5 / 61)


# ------------------------------------------------------------------ end to end on the embedded store


def test_chinese_and_english_queries(home, tmp_path):
    cases.case_chinese_and_english_queries(cases.make_embedded, tmp_path)


def test_off_topic_queries_are_flagged_low_relevance(home, tmp_path):
    cases.case_off_topic_is_low_relevance(cases.make_embedded, tmp_path)


def test_store_rebuilt_only_when_corpus_changes(home, tmp_path):
    cases.case_rebuild_only_when_corpus_changes(cases.make_embedded, tmp_path)


def test_user_docs_add_list_remove_persist(home, tmp_path):
    cases.case_user_docs_persist(cases.make_embedded, tmp_path)


def test_corrupt_store_is_rebuilt_without_losing_user_docs(home, tmp_path):
    from chromadb.api.client import SharedSystemClient

    from tools.retrieval.user_docs import UserDocs

    guide = cases.write_corpus(tmp_path / "guide")
    note = tmp_path / "notes.md"
    note.write_text("# 内部笔记\n\n济南机房 B 区的 4090 服务器每周二凌晨维护。\n", encoding="utf-8")
    doc = UserDocs(home / "user_docs").add([note])[0]
    cases.make_embedded(guide, home).refresh()
    SharedSystemClient.clear_system_cache()  # what a restart does
    (home / "chroma" / "chroma.sqlite3").write_bytes(b"this is not a sqlite database" * 100)
    result = cases.make_embedded(guide, home).search("济南机房 4090 维护时间", k=3)
    assert any("rebuilt" in m for m in result.messages)
    assert result.hits[0].doc_id == doc.id and "每周二" in result.hits[0].text
    assert list(home.glob("chroma.broken-*")), "the broken store is kept aside, not silently deleted"
    SharedSystemClient.clear_system_cache()
    again = cases.make_embedded(guide, home)
    assert not again.refresh().changed  # the rebuilt store is healthy and current


def test_missing_store_is_built_with_a_message(home, tmp_path):
    result = cases.make_embedded(cases.write_corpus(tmp_path / "guide"), home).search("掉卡", k=1)
    assert any("No vector store found" in m for m in result.messages)


# ------------------------------------------------------------------ the tool and its errors


def test_search_guide_tool_validates_input(home, tmp_path, monkeypatch):
    from tools.errors import ToolInputError
    from tools.search_guide import TOOLS, search

    monkeypatch.setenv("GPU_ADVISOR_GUIDE_DIR", str(cases.write_corpus(tmp_path / "guide")))
    spec = TOOLS[0]
    assert spec.name == "search_guide"
    out = spec.run({"query": "两台8卡服务器用什么网络", "k": 2})
    assert out["hits"][0]["doc_id"] == "cluster-networking" and len(out["hits"]) <= 2
    assert set(out["hits"][0]) >= {"doc_id", "title", "section", "text", "score", "source", "low_relevance"}
    err = spec.run({"query": "   "})
    assert "error" in err and err["error"]["zh"] and err["error"]["en"]
    with pytest.raises(ToolInputError):
        search("", k=3)
    with pytest.raises(ToolInputError):
        search("显存", k=0)


def test_import_is_light():
    code = (
        "import sys; sys.path.insert(0, %r); import tools.search_guide; "
        "bad = [m for m in ('chromadb', 'jieba', 'rank_bm25', 'numpy') if m in sys.modules]; "
        "print(','.join(bad))" % str(ROOT)
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# ------------------------------------------------------------------ optional OpenAI-compatible embeddings


class _StubEmbeddings(http.server.BaseHTTPRequestHandler):
    """A tiny /v1/embeddings server: vector = counts of a few characters (deterministic, known)."""

    calls: list[dict] = []
    KEYS = ["卡", "网", "价", "a", "e", "i", "o", "n"]

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).calls.append(
            {
                "path": self.path,
                "auth": self.headers.get("Authorization"),
                "n": len(body["input"]),
                "model": body["model"],
            }
        )
        data = [
            {"index": i, "embedding": [float(t.count(c)) + 0.01 for c in self.KEYS]}
            for i, t in enumerate(body["input"])
        ]
        data.reverse()  # servers may return rows out of order; `index` decides
        payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture()
def stub_server():
    _StubEmbeddings.calls = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _StubEmbeddings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_openai_compatible_embedding_against_local_stub(stub_server, monkeypatch, home, tmp_path):
    from tools.retrieval.embedding import OpenAICompatibleEmbedding, embedding_from_env

    monkeypatch.setenv("GPU_ADVISOR_EMBED_URL", stub_server + "/v1")
    monkeypatch.setenv("GPU_ADVISOR_EMBED_MODEL", "bge-m3")
    monkeypatch.setenv("GPU_ADVISOR_EMBED_API_KEY", "sk-local")
    ef = embedding_from_env()
    assert isinstance(ef, OpenAICompatibleEmbedding) and ef.key() == "oa-bge-m3"
    vectors = ef(["卡卡", "network"] + ["x"] * 68)  # 70 texts → two requests of ≤ 64
    assert [c["n"] for c in _StubEmbeddings.calls] == [64, 6]
    assert (
        _StubEmbeddings.calls[0]["path"] == "/v1/embeddings" and _StubEmbeddings.calls[0]["auth"] == "Bearer sk-local"
    )
    raw = np.array([2.01] + [0.01] * 7)  # "卡卡": two 卡, nothing else (stub adds 0.01 everywhere)
    assert np.allclose(vectors[0], raw / np.linalg.norm(raw), atol=1e-6)
    # a whole retriever on top of it, in its own collection
    r = cases.make_embedded(cases.write_corpus(tmp_path / "guide"), home)
    assert r.store.collection_name == "gpu_advisor_oa-bge-m3"
    result = r.search("掉卡了怎么办", k=2)
    assert result.embedding == "oa-bge-m3" and result.hits[0].doc_id == "dropped-gpu"


def test_unreachable_embedding_server_is_a_bilingual_error():
    import socket

    from tools.errors import ToolInputError
    from tools.retrieval.embedding import OpenAICompatibleEmbedding

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ToolInputError) as info:
        OpenAICompatibleEmbedding(url=f"http://127.0.0.1:{port}", timeout_s=2)(["显存"])
    assert "GPU_ADVISOR_EMBED_URL" in info.value.zh and "GPU_ADVISOR_EMBED_URL" in info.value.en


# ------------------------------------------------------------------ relevance and synonyms


def test_relevance_weights_domain_words_by_keyness(home):
    from tools.retrieval.bm25 import general_frequency
    from tools.retrieval.relevance import RelevanceModel

    # corpus of 4 tokens: 显存 ×2, 训练, 写
    model = RelevanceModel([["显存", "显存", "训练"], ["写"]])
    # 显存: corpus rate 2/4 = 0.5; jieba's general-Chinese dictionary gives it a tiny rate, so
    # log10(0.5 / rate) is far above the 1.0 cut-off and the weight is capped at 1 + 3 = 4
    assert general_frequency("显存") < 1e-6
    assert model.keyness("显存") > 3 and model.term("显存").weight == 4.0 and model.term("显存").domain
    # a word the corpus never uses weighs 1.0 and is not a domain word
    assert model.keyness("天气") is None and model.term("天气").weight == 1.0 and not model.term("天气").domain
    # Latin: a token with a digit is a domain word even if the corpus never uses it
    assert model.term("h20").domain and model.term("h20").weight == 3.0
    assert not model.term("recipe").domain and model.term("recipe").weight == 1.0
    # share = matched weight / total weight: query 显存 (4.0) + 天气 (1.0), passage has 显存 → 4/5
    terms = [model.term("显存"), model.term("天气")]
    assert model.score(terms, {"显存", "训练"}) == (4.0 / 5.0, True)
    assert model.score(terms, {"写"}) == (0.0, False)


def test_synonym_expansion_bridges_colloquial_words():
    from tools.retrieval.synonyms import expand

    assert "fell off the bus" in expand("nvidia-smi 看不到卡了")
    assert "掉卡" in expand("my GPU fell off the bus")
    assert "验收" in expand("怎么验收租来的卡") and "delivery acceptance" in expand("怎么验收租来的卡")
    assert expand("今天天气怎么样") == "今天天气怎么样"  # nothing triggered, nothing added
    # "多少钱" expands for ranking, but is everyday language: it does not make a question on-topic
    assert "price rental" in expand("高铁票多少钱") and expand("高铁票多少钱", domain_only=True) == "高铁票多少钱"


def test_empty_corpus_returns_no_hits_flagged_low(home, tmp_path):
    (tmp_path / "empty").mkdir()
    result = cases.make_embedded(tmp_path / "empty", home).search("显存怎么算", k=3)
    assert result.hits == [] and result.low_relevance


def test_user_docs_folder_add_and_readd_replaces(tmp_path):
    from tools.retrieval.user_docs import UserDocs

    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.md").write_text("# 运维手册\n\n重启前先保存 checkpoint。\n", encoding="utf-8")
    (folder / "sub" / "b.txt").write_text("price sheet: 4090 2.0 CNY/h\n", encoding="utf-8")
    (folder / "scan.pdf").write_bytes(b"%PDF-1.7")  # not text: skipped inside a folder
    docs = UserDocs(tmp_path / "store")
    assert sorted(d.name for d in docs.add([folder])) == ["a.md", "b.txt"]
    # the same file again: replaced, not duplicated; changed content gets a new id
    (folder / "a.md").write_text("# 运维手册\n\n重启前先保存 checkpoint，并通知值班。\n", encoding="utf-8")
    old_ids = {d.name: d.id for d in docs.list()}
    docs.add([folder / "a.md"])
    now = {d.name: d.id for d in docs.list()}
    assert len(docs.list()) == 2 and now["a.md"] != old_ids["a.md"] and now["b.txt"] == old_ids["b.txt"]
    assert sorted(p.name for p in (tmp_path / "store").iterdir()) == sorted(
        ["manifest.json", f"{now['a.md']}.md", f"{now['b.txt']}.txt"]
    )
    # remove by file name works too
    assert docs.remove("b.txt").id == now["b.txt"] and [d.name for d in docs.list()] == ["a.md"]


def test_hash_embedding_is_finite_unit_length_for_any_text():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tools.retrieval.embedding import hash_embed

    @settings(max_examples=60, deadline=None)
    @given(st.text(max_size=200))
    def check(text: str) -> None:
        vec = hash_embed(text, dim=64)
        assert np.all(np.isfinite(vec)) and math.isclose(float(np.linalg.norm(vec)), 1.0, rel_tol=1e-5)
        assert np.array_equal(vec, hash_embed(text, dim=64))

    check()


def test_hits_list_the_documents_a_passage_points_to(home, tmp_path):
    result = cases.make_embedded(cases.write_corpus(tmp_path / "guide"), home).search("A100 rent per card-hour", k=1)
    hit = result.hits[0]
    # "see `cluster-networking` (and `no-such-doc`)": only ids that exist in the corpus are kept
    assert hit.doc_id == "rental-prices" and hit.see_also == ["cluster-networking"]
