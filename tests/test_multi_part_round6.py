"""Multi-part questions: every part is answered, and a part asked of several values gets one figure per value.

The rule (docs/architecture.md, intents.choose_intents + intents/each.py): a question yields an ordered list of
parts, each part one intent, the first asked leads; the words that make a speed part (「多少token每秒」,
"tokens/s", 「速度大概多少」) and an 'each' part (分别, respectively, 「和X对比呢」) live in
knowledge/route_words.yaml, the precision words in knowledge/reading_terms.yaml.

Real questions of the class (public issue threads, none in evals/real/dev), quoted or lightly trimmed:
- https://github.com/linhduongtuan/BLOOM-LORA/issues/10 — "How much GPU memory is required for int4 and int8
  inference, respectively?" (bloom-7b)
- https://github.com/zai-org/ChatGLM-6B/issues/24 — "Inference speed benchmark? ... 5 token/s minimal hardware"
  (the speed part on a named model)
- https://github.com/FreedomIntelligence/HuatuoGPT-II/issues/14 — 「单机两卡(4090)加载13B模型进行推理很慢」
- https://github.com/vllm-project/vllm/issues/732 — tensor_parallel_size 2 slower than one card
- https://github.com/oobabooga/textgen/issues/6424 — TP 4x slower (3090 + 4060 Ti)
- https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference/issues/8 — 6 × 4090 slower than one 4090
- https://github.com/QwenLM/Qwen/issues/744 — 「单机2卡推理，速度反而变慢」
- https://github.com/alexziskind1/llm-inference-calculator/issues/9 — "how much VRAM ... and how many tokens
  would that generate" (QwQ 32B)
- https://github.com/Alpha-VLLM/Lumina-Image-2.0/issues/39 — 「推理和微调分别需要多少显存呢？」
- https://github.com/zai-org/GLM-130B/issues/60 is in dev already and is not used here.

Hand-worked figures (config.json / model cards):
- DeepSeek-V3: 671e9 parameters (huggingface.co/deepseek-ai/DeepSeek-V3): FP8 1 B/param = 671 GB, BF16 = 1,342 GB.
- BLOOM-7B1: 7.07e9 params of which the 250,880 × 4096 = 1.03e9 embedding stays 16-bit in int8/int4 files
  (huggingface.co/bigscience/bloom-7b1): int8 ≈ 6.04 + 2.06 = 8.1 GB, int4 ≈ 3.0 + 2.06 ≈ 5.1–5.3 GB.
- ChatGLM2-6B and ChatGLM3-6B share one architecture (28 layers, hidden 4096, 2 KV groups × 128;
  huggingface.co/THUDM/chatglm2-6b and chatglm3-6b config.json): KV per token = 2 × 28 × 2 × 128 × 2 B = 28,672 B,
  × 32,768 = 0.94 GB — the two 32k answers are the same.
- Vicuna-7B = Llama-7B: 6.74e9 × 2 B = 13.5 GB read per token; A100 80GB SXM 2,039 GB/s, RTX 4090 1,008 GB/s,
  L40 864 GB/s (NVIDIA datasheets) — each card named gets its own ceiling.
"""

from __future__ import annotations

import re

import pytest

from assistant.offline.intents import analyse, plan


def _calls(question: str, name: str) -> list[dict]:
    return [c.args for c in plan(question) if c.name == name]


def _answer(question: str) -> str:
    from assistant.advisor import ask

    return ask(question, backend="offline").answer


def _head(answer: str) -> str:
    return answer.split("<details>")[0]


# ---- a speed part after a fit part ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "question",
    [
        "4张4090能不能跑Qwen2.5-72B-AWQ，大概多少token每秒",
        "两张4090跑qwen2.5-32b-awq够不够，每秒多少token",
        "8卡4090部署llama3-70b int4能跑吗，速度大概多少",
        "24G的4090能跑qwen2.5-14b吗？tokens/s能到多少",
        "Can two 3090s run Llama-3-70B AWQ, and what tokens/s should I expect?",
    ],
)
def test_fit_then_speed_both_answered_fit_first(question: str) -> None:
    intents, _, _ = analyse(question)
    assert intents[:2] == ["memory", "decode_speed"], intents
    assert _calls(question, "estimate_memory") and _calls(question, "decode_speed")


def test_fit_and_speed_answer_has_both_numbers() -> None:
    head = _head(_answer("4张4090能不能跑Qwen2.5-72B-AWQ，大概多少token每秒"))
    lines = head.splitlines()
    assert lines[0].startswith("能")  # the fit, asked first, leads
    assert "tokens/s" in head
    speed = _calls("4张4090能不能跑Qwen2.5-72B-AWQ，大概多少token每秒", "decode_speed")[0]
    assert speed["gpus"] == 4 and speed["precision"] == "int4"


def test_speed_alone_stays_a_speed_question() -> None:
    intents, _, _ = analyse("Qwen2.5-7B在4090上每秒多少token")
    assert intents == ["decode_speed"]


def test_training_speed_is_not_a_decode_question() -> None:
    _, f, _ = analyse("全量微调7B训练速度太慢了怎么办")
    assert "decode_speed" not in f.cues


# ---- one figure per precision ---------------------------------------------------------------------------
def test_bf16_and_fp8_deepseek_v3_each_get_a_figure() -> None:
    q = "部署BF16和FP8的deepseek v3，分别需要多少显存"
    est = {c["precision"] for c in _calls(q, "estimate_memory")}
    assert est == {"bf16", "fp8"}
    head = _head(_answer(q))
    weights = [float(x.replace(",", "")) for x in re.findall(r"权重（(?:bf16|fp8)）约 ([\d,\.]+) GB", head)]
    assert len(weights) == 2
    assert weights[0] == pytest.approx(1342, rel=0.03) and weights[1] == pytest.approx(671, rel=0.03)


def test_bloom_int4_and_int8_respectively() -> None:  # BLOOM-LORA issue #10
    q = "How much GPU memory is required for int4 and int8 inference of bloom-7b, respectively?"
    assert {c["precision"] for c in _calls(q, "estimate_memory")} == {"int4", "int8"}
    head = _head(_answer(q))
    int4 = float(re.search(r"int4 AWQ weights are about ([\d\.]+) GB", head).group(1))
    int8 = float(re.search(r"int8 weights are about ([\d\.]+) GB", head).group(1))
    assert int8 == pytest.approx(8.1, rel=0.05) and 4.8 <= int4 <= 5.6


@pytest.mark.parametrize(
    "question,expected",
    [
        ("qwen2.5-7b fp16和int4分别占多少显存", {"fp16", "int4"}),
        ("llama-3-8b bf16 vs int8 要多大显存", {"bf16", "int8"}),
        ("7B模型 fp16、int8、int4 各需要多少显存？", {"fp16", "int8", "int4"}),
    ],
)
def test_casual_precision_pairs(question: str, expected: set[str]) -> None:
    assert {c["precision"] for c in _calls(question, "estimate_memory")} == expected


def test_converting_one_precision_to_another_is_one_figure() -> None:
    # 「把bf16模型量化成int4」 asks about the int4 result, not both
    est = _calls("把qwen2.5-7b的bf16模型量化成int4后要多少显存", "estimate_memory")
    assert len({c.get("precision") for c in est}) == 1


# ---- one figure per model -------------------------------------------------------------------------------
def test_compare_follow_up_sizes_the_second_model() -> None:
    q = "chatglm3-32k推理32k需要多少显存，和chatglm2-32k对比呢"
    models = [c["model"] for c in _calls(q, "estimate_memory")]
    assert models == ["ChatGLM3-6B", "ChatGLM2-6B"]
    head = _head(_answer(q))
    assert "ChatGLM2-6B" in head and "ChatGLM3-6B" in head


def test_english_each_of_two_models() -> None:
    q = "How much VRAM do Qwen2.5-14B and Qwen2.5-32B need respectively at int4?"
    assert {c["model"] for c in _calls(q, "estimate_memory")} == {"Qwen2.5-14B", "Qwen2.5-32B"}


# ---- a speed complaint across cards: each card's ceiling ------------------------------------------------
def test_each_card_named_gets_a_decode_ceiling() -> None:
    q = "A100跑vicuna-7b自回归才40 tokens/s，4090和L40都50以上，是不是太慢了"
    speeds = _calls(q, "decode_speed")
    assert len(speeds) == 3
    answer = _answer(q)
    assert "13.48" in answer or "13.5" in answer  # GB read per token
    # 4090: 1008 / (13.48 + 2.15) ≈ 64.5 tok/s ceiling; a measured 50+ sits under it
    assert re.search(r"1,?008 ÷ 15\.6\d? = 64\.\d", answer)


def test_how_much_memory_and_does_it_fit() -> None:
    q = "How much memory does Llama-3-70B need and does it fit on 2 A100 80GB?"
    est = _calls(q, "estimate_memory")
    assert est and est[0]["gpus"] == 2
    assert _head(_answer(q)).lower().split("\n")[0].startswith(("yes", "no"))
