"""Retrieval behaviour shared by the embedded-store tests and the `chroma run` server tests.

Each case receives `make(guide_dir, home) -> Retriever` so the same assertions run against
`chromadb.PersistentClient` (test_retrieval.py) and `chromadb.HttpClient` (test_retrieval_server.py).
The fixture corpus is written here, small and hand-made, so expectations do not depend on
the real corpus that other people edit.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, Callable

DOCS = {
    "dropped-gpu": """\
        ---
        id: dropped-gpu
        title:
          zh: 掉卡怎么办
          en: When a GPU falls off the bus
        sources: ["NVIDIA Xid catalogue (docs.nvidia.com/deploy/xid-errors)"]
        as_of: 2026-11-30
        tags: [xid, hardware]
        ---
        # 掉卡怎么办 / When a GPU falls off the bus

        ## 症状 / Symptoms
        nvidia-smi 里少了一张卡，dmesg 里出现 Xid 79，训练进程卡住或者直接报错退出。

        nvidia-smi lists one card fewer, the kernel log shows Xid 79 and the training job hangs or exits.

        ## 怎么处理 / What to do
        先看温度和功耗，再查 PCIe 链路；同一张卡反复出现就找机房换卡。

        Check temperature and power draw first, then the PCIe link; if the same card keeps dropping, ask for a replacement.
        """,
    "gpu-utilization-low": """\
        ---
        id: gpu-utilization-low
        title:
          zh: GPU 利用率低于 50% 怎么查
          en: GPU utilisation below 50%
        sources: ["PyTorch performance tuning guide"]
        as_of: 2026-11-30
        tags: [utilization, dataloader]
        ---
        # GPU 利用率低 / Low GPU utilisation

        ## 常见原因 / Common causes
        数据加载跟不上是最常见的原因：num_workers 太少、小文件太多、磁盘太慢，GPU 只能空等。

        The input pipeline is the usual culprit: too few DataLoader workers, many small files or a slow disk leave the GPU waiting.

        ## 排查命令 / Commands
        ```bash
        ## this comment is inside a code block and must not start a section
        iostat -x 1
        ```
        """,
    "cluster-networking": """\
        ---
        id: cluster-networking
        title:
          zh: 集群网络怎么选
          en: Choosing the cluster network
        sources: ["NVIDIA networking documentation"]
        as_of: 2026-11-30
        tags: [network, infiniband, roce]
        ---
        # 集群网络 / Cluster networking

        ## 带宽档位 / Bandwidth tiers
        千兆网只够管理和登录；两台 8 卡服务器一起训练，至少要 100G 的 RDMA 网络，InfiniBand 或 RoCE 都可以。

        1 GbE is for management only; two 8-card servers training together need at least 100G RDMA, InfiniBand or RoCE.
        """,
    "rental-prices": """\
        ---
        id: rental-prices
        title:
          zh: 租卡价格
          en: Rental prices
        sources: ["price survey"]
        as_of: 2026-11-30
        tags: [price]
        ---
        # 租卡价格 / Rental prices

        ## 单卡价格 / Per-card prices
        A100 80GB 单卡每小时大约五到六元，整台八卡包月更便宜，价格会变，以报价为准。

        An A100 80GB rents for roughly five to six yuan per card-hour; a whole 8-card server by the month is cheaper. Prices move. For the network see `cluster-networking` (and `no-such-doc`).
        """,
}

Make = Callable[[Path, Path], object]


def write_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for doc_id, text in DOCS.items():
        (folder / f"{doc_id}.md").write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def top_doc(result) -> str:  # noqa: ANN001
    return result.hits[0].doc_id


def case_chinese_and_english_queries(make: Make, tmp: Path) -> None:
    r = make(write_corpus(tmp / "guide"), tmp / "home")
    zh = r.search("训练到一半掉卡了怎么办", k=3)
    assert zh.language == "zh" and top_doc(zh) == "dropped-gpu"
    # Chinese query → the Chinese paragraph of the section, not the English one
    assert "Xid 79" in zh.hits[0].text or "换卡" in zh.hits[0].text
    assert "the training job" not in zh.hits[0].text and "ask for a replacement" not in zh.hits[0].text
    en = r.search("what network do two 8-card servers need", k=3)
    assert en.language == "en" and top_doc(en) == "cluster-networking"
    assert en.hits[0].text.startswith("1 GbE") and "千兆" not in en.hits[0].text
    util = r.search("GPU利用率不到50%咋回事", k=3)
    assert top_doc(util) == "gpu-utilization-low" and not util.low_relevance
    hit = util.hits[0]
    assert hit.title.zh.startswith("GPU 利用率") and hit.title.en == "GPU utilisation below 50%"
    assert hit.source == "knowledge/guide/gpu-utilization-low.md" and hit.kind == "guide"
    assert hit.citations == ["PyTorch performance tuning guide"] and hit.as_of == "2026-11-30"
    assert 0.0 < hit.score <= 1.0 and hit.score == max(h.score for h in util.hits)


def case_off_topic_is_low_relevance(make: Make, tmp: Path) -> None:
    r = make(write_corpus(tmp / "guide"), tmp / "home")
    for query in ("今天天气怎么样", "recipe for dumplings", "周杰伦的新歌好听吗"):
        result = r.search(query, k=3)
        assert result.low_relevance, (query, [(h.doc_id, h.relevance) for h in result.hits])
        assert all(h.low_relevance for h in result.hits)
    for query in ("A100 一小时多少钱", "InfiniBand or RoCE for two servers", "nvidia-smi 看不到卡了"):
        result = r.search(query, k=4)
        assert not result.low_relevance and not result.hits[0].low_relevance, query
        flags = [h.low_relevance for h in result.hits]
        assert flags == sorted(flags), "a low-relevance hit never precedes a relevant one"


def case_rebuild_only_when_corpus_changes(make: Make, tmp: Path) -> None:
    guide = write_corpus(tmp / "guide")
    first = make(guide, tmp / "home")
    stats = first.refresh()
    n_passages = len(first.passages)
    assert stats.changed and stats.added == n_passages and stats.removed == 0
    # a second process-like opener with the same corpus: nothing re-embedded
    second = make(guide, tmp / "home")
    stats = second.refresh()
    assert not stats.changed and stats.added == 0 and stats.removed == 0
    # edit one section: exactly one passage replaced, the rest untouched
    path = guide / "rental-prices.md"
    path.write_text(path.read_text(encoding="utf-8").replace("五到六元", "五元左右"), encoding="utf-8")
    third = make(guide, tmp / "home")
    stats = third.refresh()
    assert stats.changed and stats.added == 1 and stats.removed == 1
    assert "五元左右" in third.search("A100 每小时价格", k=1).hits[0].text
    # the running retriever notices the change on its next search too
    assert "五元左右" in second.search("A100 每小时价格", k=1).hits[0].text


def case_user_docs_persist(make: Make, tmp: Path) -> None:
    from tools.retrieval.user_docs import UserDocs

    guide = write_corpus(tmp / "guide")
    home = tmp / "home"
    sheet = tmp / "provider_prices.md"
    sheet.write_text(
        "# 青岛某云报价单\n\n## 包月\n\nH800 八卡整机包月 98765 元，含 200G RoCE 网络。\n", encoding="utf-8"
    )
    runbook = tmp / "runbook.txt"
    runbook.write_text(
        "Internal runbook\n\nIf node gpu-07 hangs, drain it with slurm before rebooting.\n", encoding="gbk"
    )
    r = make(guide, home)
    docs = UserDocs(home / "user_docs")
    added = docs.add([sheet, runbook])
    assert [d.format for d in added] == ["markdown", "text"]
    assert {d.id for d in docs.list()} == {d.id for d in added}
    found = r.search("青岛 H800 包月报价", k=3)
    assert found.hits[0].kind == "user" and "98765" in found.hits[0].text
    assert found.hits[0].source.startswith("user_docs/") and found.hits[0].title.zh == "青岛某云报价单"
    # the original files can disappear: the copies under user_docs/ are what is indexed
    sheet.unlink()
    runbook.unlink()
    fresh = make(guide, home)
    assert "drain it with slurm" in fresh.search("node gpu-07 hangs drain slurm", k=1).hits[0].text
    removed = docs.remove(added[0].id)
    assert removed.id == added[0].id and [d.id for d in docs.list()] == [added[1].id]
    after = make(guide, home).search("青岛 H800 包月报价", k=5)
    assert all(h.doc_id != added[0].id for h in after.hits)


def make_embedded(guide: Path, home: Path) -> Any:
    """A retriever over `guide` with the embedded Chroma store and user documents under `home`."""
    from tools.retrieval.search import Retriever
    from tools.retrieval.user_docs import UserDocs

    return Retriever(
        guide_dir=guide, chroma_url="", user_docs=UserDocs(home / "user_docs"), chroma_path=home / "chroma"
    )
