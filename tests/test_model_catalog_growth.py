"""Models users rent GPUs for, named the way they name them (issue threads, Ollama tags, typos, Chinese names), must
resolve to the right catalog row and be sized with that row's real parameter count — vision tower included.

Why: a name the reader misses is sized as something else (MiniMax-M1 as a "4B" read off "910B 4B", 「Qwenvl2.5VL-7B」 as
a generic 7B text model, 「deepseek:8b」 as a bare 8B). Every question below is a real one from a public issue tracker
(URL beside it; none is in evals/real/dev) or a casual phrasing of our own. The expected parameter counts come from
each model's card / config.json, worked by hand where the card gives no total (see the comments), never from this
code's output.
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.reading import read_one
from tools.models import find_entry, resolve_model

# (source, question, catalog id, total parameters in billions from the model card / hand count, tolerance)
REAL = [
    # MiniMax-M1 model card: 456B total, 45.9B activated
    (
        "https://github.com/MiniMax-AI/MiniMax-M1/issues/12",
        "MiniMax-M1最低需要多少GPU显存能跑？",
        "MiniMax-M1",
        456,
        0.02,
    ),
    (
        "https://github.com/MiniMax-AI/MiniMax-M1/issues/2",
        "用vllm部署MiniMax-M1，开启1M上下文，至少需要多少显存，8卡H20（96G）够不够",
        "MiniMax-M1",
        456,
        0.02,
    ),
    # the same M1, with the renter's card written "910B 4B" (the 32 GB Ascend 910B4) right before the question
    (
        "https://github.com/MiniMax-AI/MiniMax-M1/issues/28 (re-phrased: 3 × 8 cards)",
        "3台 8*32GB 的910B 4B 能部署 MiniMax-M1 吗",
        "MiniMax-M1",
        456,
        0.02,
    ),
    # Kimi K2 model card: 1T total, 32B activated
    (
        "https://github.com/MoonshotAI/Kimi-K2/issues/76",
        "Can i use 8 h200 gpu to serve kimi-k2 with max context length 128k?",
        "Kimi-K2",
        1000,
        0.06,
    ),
    # GLM-4.5V: GLM-4.5-Air decoder (106B) + vision encoder = 108B on the Hub (maintainer: "106B FP8 需要106G")
    (
        "https://github.com/zai-org/GLM-V/issues/158",
        "运行GLM-4.5V-FP8的最小GPU内存，我用ms-swift在单卡A100上运行时会报内存不足",
        "GLM-4.5V",
        108,
        0.03,
    ),
    ("https://github.com/zai-org/GLM-V/issues/160", "GLM-4.5V 2张A100跑不起来吗？", "GLM-4.5V", 108, 0.03),
    # Qwen2.5-VL-7B: Qwen2.5-7B decoder 7.62B + ViT 0.67B = 8.29B (model card 8.29B)
    (
        "https://github.com/modelscope/ms-swift/issues/3426",
        "请问Qwen2.5-VL-7B-Instruct 跑GRPO需要多少显存？在2*a800上爆显存",
        "Qwen2.5-VL-7B",
        8.29,
        0.02,
    ),
    (
        "https://github.com/ollama/ollama/issues/10801",
        "Model qwen2.5vl:7b doesn't work with GPU, how much VRAM does qwen2.5vl:7b need?",
        "Qwen2.5-VL-7B",
        8.29,
        0.02,
    ),
    # Qwen2.5-VL-72B: Qwen2.5-72B decoder 72.7B + ViT 0.67B = 73.4B
    (
        "https://github.com/QwenLM/Qwen3-VL/issues/958",
        "How much GPU memory is required for full fine-tuning of Qwen2.5-VL-72B-Instruct?",
        "Qwen2.5-VL-72B",
        73.4,
        0.02,
    ),
    # InternVL2.5-8B: InternViT-300M + InternLM2.5-7B = 8.08B (model card)
    (
        "https://github.com/OpenGVLab/InternVL/issues/902",
        "请问一下用一块24g的4090可以lora微调8B的2.5VL不（InternVL2.5-8B）",
        "InternVL2.5-8B",
        8.08,
        0.02,
    ),
    # MiniMax-VL-01: the 456B MiniMax-Text-01 decoder + a 303M ViT (model card)
    (
        "https://github.com/MiniMax-AI/MiniMax-01/issues/4",
        "what GPU can MiniMax-VL-01 run, is A100*8 ok?",
        "MiniMax-VL-01",
        456.3,
        0.02,
    ),
    # Grok-1: 314B (xai-org/grok-1 README)
    ("https://github.com/xai-org/grok-1/issues/110", "how many h100's are needed to run grok?", "Grok-1", 314, 0.02),
    # MiniCPM-V 2.6: SigLIP-400M + Qwen2-7B, 8.1B on the Hub
    (
        "https://github.com/OpenBMB/MiniCPM-V/issues/392",
        "48G单卡无法加载MiniCPM-V-2_6",
        "MiniCPM-V-2.6",
        8.1,
        0.02,
    ),
    # Qwen3-30B-A3B model card: 30.5B total, 3.3B activated
    ("https://github.com/QwenLM/Qwen3/issues/1387", "4*A10 卡部署Qwen3-30B-A3B 报错了", "Qwen3-30B-A3B", 30.5, 0.02),
    # Llama 4 Scout model card: 109B total, 17B active
    (
        "https://github.com/vllm-project/vllm/issues/16712",
        "meta-llama/Llama-4-Scout-17B-16E-Instruct on 2xH100 NVL, is it enough?",
        "Llama-4-Scout",
        109,
        0.02,
    ),
    # Qwen3-32B model card: 32.8B; the Ollama tag qwen3:32b is that model
    (
        "https://github.com/ollama/ollama/issues/12857",
        "run qwen3:32b ctx=32K 之前启动显存32G，现在启动占用129G，qwen3:32b 到底要多少显存",
        "Qwen3-32B",
        32.8,
        0.02,
    ),
    # Qwen3-235B-A22B model card: 235B total
    (
        "https://github.com/rjmalagon/ollama-linux-amd-apu/issues/22",
        "How can I run qwen3:235b on 128GB of unified memory?",
        "Qwen3-235B-A22B",
        235,
        0.02,
    ),
]


@pytest.mark.parametrize(("source", "question", "model_id", "params_b", "tol"), REAL, ids=[r[2] for r in REAL])
def test_real_questions_resolve_to_the_named_model(
    source: str, question: str, model_id: str, params_b: float, tol: float
) -> None:
    frame = read_one(question)
    assert frame.model == model_id, source
    res = resolve_model(model_id)
    assert abs(res.params / 1e9 - params_b) <= tol * params_b, (model_id, res.params)


# Our own casual phrasings: Chinese names, Ollama tags, typos. Parameter counts as above; the distills are their
# student architectures (Llama-3.1-8B 8.03B, Qwen2.5-14B 14.77B, Qwen2.5-32B 32.76B per their config.json).
OWN = [
    ("千问3-30B要多大显存", "Qwen3-30B-A3B", 30.5),
    ("智谱4.5V 部署要几张4090", "GLM-4.5V", 108),
    ("跑个kimi k2要几张卡", "Kimi-K2", 1000),
    ("天工MoE 用A100 40G要几张", "Skywork-MoE", 146),
    ("skywork moe 推理要多大显存", "Skywork-MoE", 146),
    ("本地部署了deepseek:8b，吃了20GB内存正常吗", "DeepSeek-R1-Distill-Llama-8B", 8.03),
    ("ollama 的 deepseek:14b 3060 12G 能跑吗", "DeepSeek-R1-Distill-Qwen-14B", 14.77),
    ("ollama run deepseek-r1:32b 要多大显存，4090够不够", "DeepSeek-R1-Distill-Qwen-32B", 32.76),
    ("qwen2.5:72b 在两张3090上能跑吗", "Qwen2.5-72B", 72.7),
    ("3块3090跑Qwenvl2.5VL-7B视频理解够吗", "Qwen2.5-VL-7B", 8.29),
    ("qwen-vl-2.5-7b 推理显存多少", "Qwen2.5-VL-7B", 8.29),
    ("minicpm-v 手机能跑吗，要多少内存", "MiniCPM-V-2.6", 8.1),
    ("glm-4.7 部署要几张H200", "GLM-4.5", 355),
    ("magistral small 用 4090 能跑吗", "Mistral-Small-24B", 23.6),
    ("kimi-vl-a3b-instruct 24G 能跑吗", "Kimi-VL-A3B", 16.4),
]


@pytest.mark.parametrize(("question", "model_id", "params_b"), OWN, ids=[q for q, _, _ in OWN])
def test_own_phrasings_resolve(question: str, model_id: str, params_b: float) -> None:
    assert read_one(question).model == model_id
    assert abs(resolve_model(model_id).params / 1e9 - params_b) <= 0.03 * params_b


def test_skywork_moe_counts_by_hand() -> None:
    """Skywork-MoE is Skywork-13B upcycled to 16 experts, 2 per token (README: 146B total, 22B activated).
    By hand: attention 52·4·4608² = 4.417B; experts 52·16·3·4608·12288 = 141.33B; embedding + head
    2·65536·4608 = 0.604B → 146.35B; active 4.417 + 141.33/8 + 0.604 = 22.69B."""
    res = resolve_model("Skywork-MoE")
    total = 52 * 4 * 4608**2 + 52 * 16 * 3 * 4608 * 12288 + 2 * 65536 * 4608
    active = 52 * 4 * 4608**2 + 52 * 2 * 3 * 4608 * 12288 + 2 * 65536 * 4608
    assert abs(res.params - total) <= 0.005 * total
    assert abs(res.active_params - active) <= 0.01 * active
    assert 145e9 <= res.params <= 147e9  # the README's 146B


def test_skywork_moe_answer_leads_with_its_bf16_weights() -> None:
    """146.35B × 2 bytes = 292.7 GB of bf16 weights — over 4 × A100 40GB (160 GB): 8 cards is the floor."""
    a, _ = answer("天工 Skywork-MoE 推理，A100 40G 最少要几张？4张可行吗")
    first = a.text.splitlines()[0]
    assert "Skywork-MoE" in first
    cards = [int(n) for n in re.findall(r"(\d+)\s*张", first)]
    assert cards and min(cards) >= 8


def test_vision_language_models_count_the_vision_tower() -> None:
    """bf16 weights of Qwen2.5-VL-7B are 8.29B × 2 = 16.6 GB, not the 15.2 GB of the 7.62B text decoder alone."""
    a, _ = answer("Qwenvl2.5VL-7B 推理要多少显存")
    m = re.search(r"权重（bf16）约 ([\d.]+) GB", a.text)
    assert m and abs(float(m.group(1)) - 16.6) <= 0.3


def test_minimax_m1_on_910b4_is_not_a_4b_model() -> None:
    """456B × 2 bytes = 912 GB in bf16 (int8 456 GB, int4 about 228 GB + scales): never the 8 GB of a "4B" model
    read off the card's name."""
    a, results = answer("4台 8*32GB 的910B 4B 能部署 MiniMax-M1 吗")
    assert "MiniMax-M1" in a.text.splitlines()[0]
    weights = [r.result.get("whole_model_weights_gb") for r in results if r.name == "estimate_memory" and r.result]
    assert weights and max(weights) > 900 and all(w > 200 for w in weights)


@pytest.mark.parametrize("name", ["deepseek 7b", "DeepSeek-LLM-7B"])
def test_a_bare_deepseek_7b_stays_the_7b_base_model(name: str) -> None:
    """DeepSeek-LLM-7B exists, so 7B is the one DeepSeek size a bare name must not turn into an R1 distill."""
    entry = find_entry(name)
    assert entry is not None and entry.id == "DeepSeek-LLM-7B"


@pytest.mark.parametrize(
    ("question", "low", "high"),
    [
        # Qwen3-32B 32.8B × about 4.85 bits per weight (Q4_K_M, llama.cpp's quantize table) / 8 ≈ 19.9 GB
        (
            "run qwen3:32b ctx=32K，qwen3:32b 到底要多少显存",
            18.0,
            22.0,
        ),  # https://github.com/ollama/ollama/issues/12857
        # Qwen2.5-72B 72.7B × 4.85 / 8 ≈ 44 GB
        ("qwen2.5:72b 在两张3090上能跑吗", 40.0, 48.0),
    ],
)
def test_an_ollama_tag_is_sized_at_ollamas_4bit_default(question: str, low: float, high: float) -> None:
    """Ollama pulls a 4-bit GGUF (Q4_K_M) by default: a question that names a model by its Ollama tag runs that
    file, not the 65 GB bf16 checkpoint."""
    a, _ = answer(question)
    m = re.search(r"权重（GGUF Q4_K_M）约 ([\d.]+) GB", a.text)
    assert m and low <= float(m.group(1)) <= high, a.text.splitlines()[0]
