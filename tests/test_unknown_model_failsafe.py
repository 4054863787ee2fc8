"""Fail safe for models the catalog does not have: never size a default or a tiny model in their place.

Why: the worst answer is a confident number for another model — MiniMax-M1 sized as 0.25 GB, 「Kimi-K3」 answered
as Kimi-K2, 「DeepSeek-V4」 as DeepSeek-R1. The rules, checked here as properties over invented names:
- a name the catalog lacks that carries its size ("Zorblax-70B") is sized as a generic dense model of THAT size, and
  line 1 says the architecture is assumed; no memory figure is ever for fewer parameters than the name states;
- a name with no size ("Zorblax-Chat", "Kimi-K3", 「deepseek v4」) gets line 1 saying the catalog lacks it and asking
  for the parameter count / config.json, and nothing is sized at all.
Real questions of this shape: "How much memory is required to run Qwen3.6-35B-A3B?"
(https://github.com/ROCm/FastFlowLM/issues/621), 「qwen3.5 397b的模型，微调8卡a800够吗」
(https://github.com/modelscope/ms-swift/issues/8488), "qwen3.5:9b Fails to Load … 24Gi of vRAM"
(https://github.com/ollama/ollama/issues/14557) — releases newer than the catalog, with the size in the name.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from assistant.offline import answer
from assistant.offline.reading import read_one
from assistant.offline.reading.vocab import family_version_spans
from tools.models import find_entry

STEMS = ["Zorblax", "Quentaro", "Vantorix", "Mirukai", "Tarnisel", "Fyxelon", "Obrenta", "Glimmora"]
SIZED_TEMPLATES = [
    "{name} 推理要多大显存",
    "部署{name}要几张A100",
    "How much VRAM does {name} need for inference?",
    "{name} 用两张4090能跑吗",
    "请问{name}全量微调需要多少显存",
]


def _params_sized(results: list[Any]) -> list[float]:
    """Every parameter count a memory tool sized (estimate_memory's own, find_min_gpus's nested estimate)."""
    out: list[float] = []
    for r in results:
        res = r.result if isinstance(r.result, dict) else {}
        if r.name == "estimate_memory" and res.get("params"):
            out.append(float(res["params"]))
        est = res.get("estimate") if isinstance(res.get("estimate"), dict) else None
        if est and est.get("params"):
            out.append(float(est["params"]))
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    stem=st.sampled_from(STEMS),
    version=st.sampled_from(["", "2", "3.5"]),
    size=st.sampled_from([1.5, 7, 9, 13, 35, 70, 110, 397]),
    moe=st.booleans(),
    template=st.sampled_from(SIZED_TEMPLATES),
)
def test_an_unknown_sized_name_is_never_sized_below_its_own_size(
    stem: str, version: str, size: float, moe: bool, template: str
) -> None:
    name = f"{stem}{version}-{size:g}B" + ("-A3B" if moe and size > 10 else "")
    assume(find_entry(name) is None)
    a, results = answer(template.format(name=name))
    first = a.text.splitlines()[0]
    sized = _params_sized(results)
    assert all(p >= 0.95 * size * 1e9 for p in sized), (name, sized)
    if sized:  # when a figure is given, line 1 says whose shape it is (an assumed generic one)
        stem_and_size = f"{stem}{version}-{size:g}b".lower()  # "-A3B" may be dropped: the total is what is sized
        assert stem_and_size in first.lower() and ("通用" in first or "generic" in first), first


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    stem=st.sampled_from(STEMS),
    suffix=st.sampled_from(["-Chat", "-VL", "-Omni", "2", "-Pro"]),
    template=st.sampled_from(["{name} 推理要多大显存", "部署{name}要几张A100", "How much VRAM does {name} need?"]),
)
def test_an_unknown_unsized_name_is_named_and_its_size_asked_for(stem: str, suffix: str, template: str) -> None:
    name = f"{stem}{suffix}"
    a, results = answer(template.format(name=name))
    first = a.text.splitlines()[0]
    assert name in first
    assert ("参数量" in first) or ("parameter count" in first)
    assert "config.json" in a.text
    assert not _params_sized(results)


@pytest.mark.parametrize(
    ("question", "name", "not_this"),
    [
        ("Kimi-K3 部署需要几张H200", "Kimi-K3", "Kimi-K2"),
        ("部署kimi k3需要多少显存", "kimi k3", "Kimi-K2"),
        ("How much VRAM does Kimi-K3 need?", "Kimi-K3", "Kimi-K2"),
        ("DeepSeek-V4 要多少显存", "DeepSeek-V4", "DeepSeek-R1"),
        ("跑个deepseek v4要几张卡", "deepseek v4", "DeepSeek-R1"),
        ("deepseek-v9 推理要多大显存", "deepseek-v9", "DeepSeek-R1"),
    ],
)
def test_a_release_the_catalog_lacks_is_not_the_familys_default(question: str, name: str, not_this: str) -> None:
    a, results = answer(question)
    first = a.text.splitlines()[0]
    assert name in first and not_this not in first
    assert not _params_sized(results)


@pytest.mark.parametrize(
    ("question", "model_id"),
    [
        ("deepseek 8卡能跑吗", "DeepSeek-R1"),  # a card count after the family word is no release number
        ("跑个kimi要几张卡", "Kimi-K2"),  # the family alone keeps its default
        ("deepseek v3 要几张H20", "DeepSeek-V3"),  # a release the catalog has
        ("kimi k2 要几张卡", "Kimi-K2"),
    ],
)
def test_known_releases_and_counts_are_not_caught(question: str, model_id: str) -> None:
    assert read_one(question).model == model_id


def test_family_version_spans_skip_counts_and_sizes() -> None:
    text = "deepseek 8卡 和 deepseek v4 还有 qwen 7b"
    spans = [text[a:b] for a, b in family_version_spans(text)]
    assert spans == ["deepseek v4"]


@pytest.mark.parametrize(
    ("question", "size_b"),
    [
        ("How much memory is required to run Qwen3.6-35B-A3B?", 35),  # ROCm/FastFlowLM#621
        ("qwen3.5 397b的模型，推理至少需要什么显卡，8卡4090够吗", 397),  # modelscope/ms-swift#8488
        ("qwen3.5:9b Fails to Load with 24Gi of vRAM, how much VRAM does qwen3.5:9b need?", 9),  # ollama#14557
    ],
)
def test_real_newer_releases_are_sized_at_their_stated_size(question: str, size_b: float) -> None:
    a, results = answer(question)
    sized = _params_sized(results)
    assert sized and all(p >= 0.95 * size_b * 1e9 for p in sized), sized
    first = a.text.splitlines()[0]
    assert "通用" in first or "generic" in first
