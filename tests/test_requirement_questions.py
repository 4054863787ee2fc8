"""Memory-question classes (issue 12): requirements questions, the model asked about, runtime defaults, pooling.

Hand-derived values (parameter counts from the model cards / config.json):
- Orion-14B: 14.5e9 params (huggingface.co/OrionStarAI/Orion-14B-Base) → bf16 weights 14.5e9 × 2 B ≈ 29 GB.
- Qwen2.5-72B: 72.7e9 (huggingface.co/Qwen/Qwen2.5-72B-Instruct) / a bare "72B" → 72e9 × 2 B = 144 GB bf16.
- Llama-3-70B: 70.6e9 (huggingface.co/meta-llama/Meta-Llama-3-70B) → bf16 141 GB > 2 × 24 GB.
- Qwen2.5-14B 14.7e9, Qwen2.5-32B 32.5e9 (Qwen2.5 model cards); ollama's default tag is Q4_K_M
  (ollama.com/library/qwen2.5: 14b 9.0 GB, 32b 20 GB): 14.7e9 × 4.84 / 8 ≈ 8.9 GB, 32.5e9 × 4.84 / 8 ≈ 19.7 GB.
- TITAN RTX: 24 GB GDDR6, NVLink 100 GB/s (NVIDIA TITAN RTX spec; tomshardware.com/news/nvidia-titan-rtx-specs-pricing,38184.html);
  NVLink links two devices, it does not pool their memory.
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.reading.slots import extract


def _gb(line: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"(\d[\d,]*(?:\.\d+)?)\s*GB(?!/)", line)]


def _tools(q: str) -> tuple[list[str], list[str], list[dict]]:
    a, results = answer(q)
    return a.text.splitlines(), [r.name for r in results], [r.args for r in results]


@pytest.mark.parametrize(
    "q",
    [
        "部署Orion-14B要啥机器配置？显卡要多大显存，内存有要求没",
        "orion-14b 推理需要什么样的服务器配置，cpu内存要多少",
        "what are the hardware requirements for Orion-14B? how much RAM too",
    ],
)
def test_requirements_question_leads_with_the_models_memory_and_host_ram(q: str) -> None:
    lines, names, _ = _tools(q)
    assert "estimate_memory" in names  # the ranked cards (plan_configurations) may follow, never lead
    assert "Orion-14B" in lines[0]
    weights = [v for v in _gb(lines[0]) if 27 <= v <= 31]  # 14.5e9 × 2 B ≈ 29 GB
    assert weights, lines[0]
    assert any(("内存" in ln or "RAM" in ln) and _gb(ln) for ln in lines[1:3]), lines[:3]


def test_a_card_named_in_a_requirements_question_gets_the_verdict() -> None:
    lines, names, args = _tools("两张3090能跑 llama-3-70b 吗，大概需要什么配置")
    assert "estimate_memory" in names and "plan_configurations" not in names
    assert lines[0].startswith("不能")  # 70.6e9 × 2 B ≈ 141 GB bf16 > 2 × 24 GB
    assert any(a.get("gpus") == 2 for a in args)


def test_money_still_makes_it_a_plan() -> None:
    _, names, _ = _tools("预算每月2万，部署Qwen2.5-14B推荐什么配置")
    assert "plan_configurations" in names


@pytest.mark.parametrize(
    "q, measured",
    [
        ("我7B用vllm刚好塞进20G，那72B呢？要多少显存", "7b"),
        ("I barely squeezed the 7b onto 20gb with vllm. what would the 72b model need?", "7b"),
    ],
)
def test_the_model_asked_about_is_the_subject_not_the_one_measured(q: str, measured: str) -> None:
    f = extract(q)
    assert f.params_b == 72 and f.measured_model == measured
    assert f.vram_gb is None  # the 20 GB was the 7B's measurement, not a card for the 72B
    lines, names, args = _tools(q)
    est = [a for n, a in zip(names, args, strict=True) if n == "estimate_memory"]
    assert est and all(a.get("params") == "72B" for a in est)
    assert any(140 <= v <= 150 for v in _gb(lines[0])), lines[0]  # 72e9 × 2 B = 144 GB


def test_catalog_model_asked_after_a_measured_one() -> None:
    f = extract("qwen2.5-7b 在 4090 上跑得动，那换成 qwen2.5-72b 呢，要几张")
    assert f.model == "Qwen2.5-72B" and f.measured_model == "Qwen2.5-7B"


def test_fp8_kv_cache_is_the_caches_dtype_not_the_weights() -> None:
    f = extract("vllm 部署 qwen2.5-7b，kv cache 用 fp8，24G 够吗")
    assert f.kv_dtype == "fp8" and f.precision is None
    _, names, args = _tools("vllm 部署 qwen2.5-7b，kv cache 用 fp8，24G 够吗")
    est = next(a for n, a in zip(names, args, strict=True) if n == "estimate_memory")
    assert est.get("kv_dtype") == "fp8" and est.get("precision") in (None, "bf16")


def test_each_size_asked_is_sized_at_ollamas_default_quantisation() -> None:
    lines, names, args = _tools("用ollama跑qwen2.5 14b和32b各要多大显存")
    est = [a for n, a in zip(names, args, strict=True) if n == "estimate_memory"]
    assert {a.get("model") for a in est} == {"Qwen2.5-14B", "Qwen2.5-32B"}
    assert all(a.get("int4_format") == "q4_k_m" for a in est)
    assert "Qwen2.5-14B" in lines[0] and any(8.0 <= v <= 10.0 for v in _gb(lines[0])), lines[0]
    assert "Qwen2.5-32B" in lines[1] and any(18.5 <= v <= 21.0 for v in _gb(lines[1])), lines[1]


@pytest.mark.parametrize(
    "q, lang",
    [
        ("if i nvlink 2 titan rtx cards will the vram add up to 48gb?", "en"),
        ("两张titan rtx用nvlink桥接，显存能叠加成48g吗", "zh"),
    ],
)
def test_titan_rtx_pooling_gets_the_per_card_answer(q: str, lang: str) -> None:
    f = extract(q)
    assert f.gpus == ["TITAN RTX"] and f.gpu_count == 2
    lines, _, _ = _tools(q)
    assert lines[0].startswith("No" if lang == "en" else "不会"), lines[0]
    assert "24 GB" in lines[0]


# ---- B: a size read from a name the catalog lacks; quantisation words in the name ------------------------


def test_a_name_then_a_size_is_kept_and_said_on_line_1() -> None:
    f = extract("MegaChat 34B 推理在4090上要多少显存")
    assert f.model == "MegaChat-34b" and f.params_b == 34
    assert f.model_mentions and f.model_mentions[0].catalog_id is None
    lines, _, _ = _tools("MegaChat 34B 推理在4090上要多少显存")
    assert "MegaChat-34b" in lines[0] and "通用 34B 稠密架构" in lines[0], lines[0]
    assert lines[0].startswith("不能")  # 34e9 × 2 B = 68 GB of bf16 weights > 24 GB
    assert not any("MegaChat-34b" in ln for ln in lines[1:3])  # said once, not twice


def test_plain_words_before_a_size_are_not_names() -> None:
    assert extract("Chat 34B 模型在 4090 上推理要多少显存").model == "34b"


@pytest.mark.parametrize(
    "q, lo, hi",
    [
        # llama.cpp quantize docs: Q4_K_M ≈ 4.8 bits/weight → 33e9 × 4.84 / 8 ≈ 20 GB
        ("MegaChat-33B-Q4_K_M 用 llama.cpp 跑要多少显存", 19.0, 21.0),
        # AWQ 4-bit, group 128 ≈ 4.25 bits incl. scales → 14e9 × ~0.53 B ≈ 7.5–9.5 GB
        ("Foo 14B AWQ 推理要多少显存", 7.0, 10.0),
    ],
)
def test_quantisation_words_in_the_name_set_the_weights(q: str, lo: float, hi: float) -> None:
    lines, names, args = _tools(q)
    est = next(a for n, a in zip(names, args, strict=True) if n == "estimate_memory")
    assert est.get("precision") == "int4"
    m = re.search(r"权重（[^）]*）约 ([\d.]+) GB", lines[0])
    assert m and lo <= float(m.group(1)) <= hi, lines[0]


# ---- D: runtime defaults ----------------------------------------------------------------------------


def test_plain_transformers_serving_is_sized_at_its_fp32_default() -> None:
    # Qwen3-Embedding-8B: 7.57e9 params (huggingface.co/Qwen/Qwen3-Embedding-8B) × 4 B = 30.3 GB > 24 GB;
    # transformers 4.x from_pretrained loads torch.float32 unless torch_dtype is given (transformers docs)
    lines, names, args = _tools("用transformers在一张3090上跑qwen3-embedding-8b推理，显存够吗")
    est = next(a for n, a in zip(names, args, strict=True) if n == "estimate_memory")
    assert est.get("precision") == "fp32" and est.get("load_fp32") is True
    assert lines[0].startswith("不能") and any(29.5 <= v <= 31 for v in _gb(lines[0])), lines[0]
    assert "torch_dtype" in lines[1]


def test_a_dtype_said_keeps_its_precision() -> None:
    _, names, args = _tools("用transformers bf16在一张3090上跑qwen3-embedding-8b推理，显存够吗")
    est = next(a for n, a in zip(names, args, strict=True) if n == "estimate_memory")
    assert est.get("precision") == "bf16" and not est.get("load_fp32")


def test_an_unknown_card_without_a_size_does_not_stop_the_estimate() -> None:
    # DeepSeek-Coder-V2: 236e9 total params (huggingface.co/deepseek-ai/DeepSeek-Coder-V2-Instruct) × 2 B ≈ 472 GB
    lines, names, args = _tools("deepseek coder v2 的配置要求是什么？我笔记本是 NVIDIA T500 显卡，16G内存")
    est = next(a for n, a in zip(names, args, strict=True) if n == "estimate_memory")
    assert est.get("gpu") is None
    assert any(460 <= v <= 480 for v in _gb(lines[0])), lines[0]
    assert any("T500" in ln and "规格表里没有" in ln for ln in lines[:4]), lines[:4]


# ---- a catalog family named without a size -------------------------------------------------------------


@pytest.mark.parametrize(
    "q, model",
    [
        ("LoRA on LLaMA, is 24gb enough?", "LLaMA-7B"),  # LLaMA 7B/13B/33B/65B (arXiv:2302.13971)
        ("ollama跑llama3要多少显存", "Llama-3-8B"),  # Llama 3 ships 8B and 70B; ollama's llama3 tag is 8B
        ("qwen2.5 在 3060 12g 上能跑吗", "Qwen2.5-7B"),  # 0.5B … 72B: the 7B class, not the 0.5B
    ],
)
def test_a_family_without_a_size_is_its_7b_class_member_said_on_line_1(q: str, model: str) -> None:
    f = extract(q)
    assert f.model == model
    lines, names, _ = _tools(q)
    assert "estimate_memory" in names and model in lines[0], lines[0]


@pytest.mark.parametrize("q", ["qwen_image 需要多大的卡啊", "llama-guard 要多少显存", "qwen 和 llama 哪个好"])
def test_a_longer_name_or_a_comparison_is_not_a_family_default(q: str) -> None:
    assert extract(q).model is None


def test_llama_7b_lora_on_a_4090_fits() -> None:
    # LLaMA-7B 6.74e9 × 2 B = 13.5 GB bf16 base + adapters/activations ≈ 16–20 GB < 24 GB
    lines, _, _ = _tools("Is it possible to run on 24gb vram? I have a 4090, LoRA on LLaMA")
    assert lines[0].startswith("Yes"), lines[0]
    assert any(13.0 <= v <= 14.0 for v in _gb(lines[0])), lines[0]


# ---- a file size the user gives sets the precision; a family and a size asked together -------------------


def test_a_stated_file_size_means_quantised_weights() -> None:
    # Qwen2.5-72B 72.7e9 params: 47 GB × 8 / 72.7e9 ≈ 5.2 bits per weight → a 4-bit file (ollama qwen2.5:72b is 47 GB)
    f = extract("qwen2.5 72b 下载下来才47G，跑起来要多少显存")
    assert f.precision == "int4"
    lines, _, _ = _tools("qwen2.5 72b 下载下来才47G，跑起来要多少显存")
    assert any(38 <= v <= 48 for v in _gb(lines[0])), lines[0]
    assert "文件大小" in lines[1]
    # a bf16-sized file says nothing: 14.2 GB × 8 / 7e9 ≈ 16 bits
    assert extract("7b 模型文件是 14.2G，要多少显存").precision is None


def test_a_family_and_a_bare_size_are_both_sized() -> None:
    # Llama 3: 8.03e9 and 70.6e9 params (meta-llama model cards); 40 GB for 70B ≈ 4.5 bits → int4
    q = "llama3 needs how many gb of vram? and the 70b, which is 40gb?"
    _, names, args = _tools(q)
    models = [a.get("model") for n, a in zip(names, args, strict=True) if n == "estimate_memory"]
    assert models == ["Llama-3-8B", "Llama-3-70B"]
    assert all(a.get("precision") == "int4" for n, a in zip(names, args, strict=True) if n == "estimate_memory")
