"""Checks on the guidance corpus under knowledge/guide/.

Why: retrieval cites sections of these documents, and the eval set expects the fixed ids.
So every document must parse, carry its sources and date, be bilingual section by
section, cover every topic of the founding (seed) article, and be written in our own
words rather than copied from the seed.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
GUIDE = REPO / "knowledge" / "guide"
# The founding article the corpus topics were drawn from. It is team material outside the
# repository (not shipped, never cited): the copy check below skips when it is absent.
SEED = REPO.parent / "shared" / "seed" / "000_f8a6e4751bd286e6.txt"

# Fixed ids. The retrieval evals (evals/retrieval/, tests/retrieval_cases.py) expect exactly these.
FIXED_IDS = [
    "memory-by-model-size",
    "memory-formula",
    "optimizers-8bit",
    "activations-checkpointing",
    "tf32-fp8-precision",
    "a100-h100-4090",
    "pcie-vs-sxm-nvlink",
    "china-cards",
    "rental-prices",
    "billing-hourly-monthly",
    "shandong-datacenters",
    "cluster-networking",
    "multi-node-training",
    "storage-io",
    "gpu-utilization-low",
    "delivery-acceptance",
    "nccl-tests-busbw",
    "dropped-gpu",
    "xid-errors",
    "cuda-driver-compat",
    "common-errors",
    "containers-gpu",
    "zero-fsdp-offload",
    "lora-qlora",
    "inference-kv-cache",
    "training-time-cost",
    "choosing-a-config",
    "faq",
]

# Every topic of the founding article, with the words that must appear somewhere in the corpus
# (case-insensitive). Taken from that article's own sections.
SEED_TOPICS: dict[str, list[str]] = {
    "memory by model size": ["7B", "13B", "30B", "多模态", "multimodal", "24 GB", "80 GB"],
    "memory formula": ["梯度", "优化器", "激活", "activations", "16 B/param", "8 B/param"],
    "mixed precision": ["混合精度", "mixed precision", "BF16", "FP16", "GradScaler"],
    "8-bit optimizer": ["8-bit", "bitsandbytes", "收敛"],
    "TF32 / FP8": ["TF32", "FP8", "Transformer Engine"],
    "A100 vs H100 vs 4090": ["A100", "H100", "4090", "HBM2e", "HBM3", "GDDR6X", "A10"],
    "PCIe vs SXM / NVLink": ["PCIe", "SXM", "NVLink", "600 GB/s", "64 GB/s"],
    "prices and billing": ["月租", "按小时", "包月", "包年"],
    "Shandong data centres": ["济南", "青岛", "山东", "延迟", "latency", "骨干"],
    "cluster networking": ["千兆", "万兆", "10G", "100G", "200G", "InfiniBand", "RoCE", "RDMA"],
    "storage I/O": [
        "iostat",
        "%util",
        "num_workers",
        "WebDataset",
        "TFRecord",
        "NVMe",
        "10 TB",
        "NAS",
        "对象存储",
        "RAM",
    ],
    "delivery checks": [
        "nvidia-smi",
        "product name",
        "nvidia-smi -q -d MEMORY",
        "lspci",
        "nccl-tests",
        "all_reduce_perf",
        "NCCL_DEBUG=INFO",
        "nvcc -V",
        "version.json",
        "torch.cuda.is_available",
        "以次充好",
    ],
    "dropped GPUs": ["掉卡", "nvidia-smi -q -d TEMPERATURE", "dmesg", "电源", "Xid 79", "更换"],
}


def _split_front_matter(text: str) -> tuple[dict, str]:
    assert text.startswith("---\n"), "document must start with YAML front matter"
    end = text.index("\n---\n", 4)
    meta = yaml.safe_load(text[4:end])
    return meta, text[end + 5 :]


def _docs() -> dict[str, tuple[dict, str]]:
    out = {}
    for path in sorted(GUIDE.glob("*.md")):
        if path.name.lower() == "readme.md":
            continue
        out[path.stem] = _split_front_matter(path.read_text(encoding="utf-8"))
    return out


DOCS = _docs()
CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"\b[A-Za-z]{2,}\b")


def _sections(body: str) -> list[tuple[str, str]]:
    parts = re.split(r"^## ", body, flags=re.M)
    out = []
    for part in parts[1:]:
        heading, _, text = part.partition("\n")
        out.append((heading.strip(), text.strip()))
    return out


def test_at_least_25_docs_and_all_fixed_ids_exist():
    assert len(DOCS) >= 25
    missing = [i for i in FIXED_IDS if i not in DOCS]
    assert not missing, f"missing fixed ids: {missing}"


@pytest.mark.parametrize("doc_id", sorted(DOCS))
def test_front_matter(doc_id):
    meta, body = DOCS[doc_id]
    assert meta["id"] == doc_id, "id must match the file name"
    assert meta["title"]["zh"].strip() and CJK.search(meta["title"]["zh"])
    assert meta["title"]["en"].strip() and LATIN_WORD.search(meta["title"]["en"])
    assert isinstance(meta["sources"], list) and meta["sources"]
    assert all(isinstance(s, str) and s.strip() for s in meta["sources"])
    as_of = meta["as_of"]
    if isinstance(as_of, str):
        as_of = dt.date.fromisoformat(as_of)
    assert isinstance(as_of, dt.date)
    assert isinstance(meta.get("tags"), list) and meta["tags"]
    prose = re.sub(r"```.*?```", "", body, flags=re.S)
    h1 = [ln for ln in prose.splitlines() if ln.startswith("# ")]
    assert len(h1) == 1 and " / " in h1[0], "one bilingual H1 '# 中文 / English'"


@pytest.mark.parametrize("doc_id", sorted(DOCS))
def test_sections_are_bilingual_and_substantial(doc_id):
    _, body = DOCS[doc_id]
    sections = _sections(body)
    assert 3 <= len(sections) <= 8, f"{doc_id}: {len(sections)} sections"
    for heading, text in sections:
        assert " / " in heading and CJK.search(heading), f"{doc_id}: heading '{heading}'"
        cjk_chars = len(CJK.findall(text))
        en_words = len(LATIN_WORD.findall(text))
        assert cjk_chars >= 80, f"{doc_id} § {heading}: only {cjk_chars} CJK chars"
        assert en_words >= 30, f"{doc_id} § {heading}: only {en_words} English words"
        # Chinese comes first: the first prose line of a section has CJK text.
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        first = next(ln for ln in prose.splitlines() if ln.strip() and not ln.startswith(("|", "-")))
        assert CJK.search(first), f"{doc_id} § {heading}: Chinese must come first"


def test_seed_topics_are_covered():
    corpus = "\n".join(body for _, body in DOCS.values()).lower()
    missing = {topic: [k for k in kws if k.lower() not in corpus] for topic, kws in SEED_TOPICS.items()}
    missing = {t: k for t, k in missing.items() if k}
    assert not missing, f"seed topics not covered: {missing}"


def test_seed_keywords_each_have_a_home_doc():
    # The main Shandong facts must live in the dedicated doc, not only in passing.
    _, body = DOCS["shandong-datacenters"]
    assert "济南" in body and "青岛" in body
    _, body = DOCS["storage-io"]
    for k in ("iostat", "num_workers", "WebDataset", "TFRecord", "NVMe"):
        assert k in body
    _, body = DOCS["delivery-acceptance"]
    for k in ("lspci", "nccl-tests", "NCCL_DEBUG", "nvcc", "torch.cuda.is_available"):
        assert k in body
    _, body = DOCS["dropped-gpu"]
    for k in ("dmesg", "TEMPERATURE", "Xid 79"):
        assert k in body


def _normalise(text: str) -> str:
    """Keep only letters, digits and CJK so that punctuation, spacing and table rules
    cannot hide a copied run (and markdown table syntax is not mistaken for prose)."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in text if ch.isalnum())


def _strip_code(text: str) -> str:
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    return re.sub(r"`[^`\n]*`", " ", text)


def test_no_prose_copied_from_seed():
    if not SEED.exists():
        pytest.skip("seed article not available (../shared/seed)")
    seed = _normalise(SEED.read_text(encoding="utf-8"))
    n = 20
    corpus_windows: set[str] = set()
    for _, body in DOCS.values():
        prose = _normalise(_strip_code(body))
        corpus_windows.update(prose[i : i + n] for i in range(len(prose) - n + 1))
    copied = sorted({seed[i : i + n] for i in range(len(seed) - n + 1)} & corpus_windows)
    assert not copied, f"20+ character runs shared with the seed: {copied[:10]}"


def test_seed_imprecisions_are_corrected():
    """Where the seed simplifies, the corpus states the precise figure (sources in front matter)."""
    _, mem = DOCS["memory-formula"]
    assert "16 B/param" in mem and "8 B/param" in mem and "112 GB" in mem and "56 GB" in mem
    assert "GiB" in mem
    _, cards = DOCS["a100-h100-4090"]
    assert "2,000 GB/s" in cards or "2.0 TB/s" in cards  # H100 PCIe is not 3.35 TB/s
    _, links = DOCS["pcie-vs-sxm-nvlink"]
    assert "31.5 GB/s" in links and "300 GB/s" in links  # per-direction vs bidirectional totals
    _, prec = DOCS["tf32-fp8-precision"]
    assert "4090" in prec and "L40S" in prec and "L20" in prec  # FP8 also on Ada
    assert "allow_tf32" in prec


def test_cross_references_point_to_existing_docs():
    """'见 `x`' / 'see `x`' pointers must name a real document id (retrieval follows them)."""
    ref = re.compile(r"(?:见|详见|see|See)((?:\s*(?:、|,|和|and)?\s*`[a-z0-9-]+`)+)")
    bad = []
    for doc_id, (_, body) in DOCS.items():
        for group in ref.findall(body):
            for target in re.findall(r"`([a-z0-9-]+)`", group):
                if "-" in target and target not in DOCS:
                    bad.append((doc_id, target))
    assert not bad, f"dangling references: {bad}"


def test_faq_answers_with_arithmetic_and_points_elsewhere():
    _, faq = DOCS["faq"]
    # 7B × 16 B/param = 112 GB vs 24 GB (ZeRO paper accounting), written out in the answer.
    assert "112 GB" in faq and "24 GB" in faq
    # Prices are dated and must be confirmed with the provider.
    assert "2026" in faq and "确认" in faq and "confirm" in faq
    linked = set(re.findall(r"`([a-z0-9-]+)`", faq)) & set(FIXED_IDS)
    assert len(linked) >= 10, f"FAQ should point to other docs, found {sorted(linked)}"
