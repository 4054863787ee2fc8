"""Round-2 reading classes: mode words and their negation, models the catalog lacked, two models on one card,
TP × PP arithmetic, and local-runtime settings. Own phrasings (casual Chinese, typos, English); expected values
worked by hand from public sources:

- Vicuna-33B = LLaMA-33B shapes (lmsys/vicuna-33b-v1.3 config.json: 60 layers, hidden 6656, ffn 17920, vocab 32000):
  60 × (4·6656² + 3·6656·17920 + 2·6656) + 2·32000·6656 + 6656 = 60 × 535,006,208 + 425,984,000 + 6,656
  ≈ 32.53e9 — the LLaMA paper (arXiv 2302.13971, Table 2) says 32.5B.
- Llama 4 Scout: 109B total / 17B active, Maverick: 400B total / 17B active (Meta's model cards on
  huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct and …-Maverick-17B-128E-Instruct).
- MiniCPM-V 2.6 = SigLIP-400M + Qwen2-7B, 8B (HF page 8.1B); VisualGLM-6B 7.8B (THUDM/visualglm-6b card:
  "整体模型共78亿参数"); InternVL2-40B 40.1B (OpenGVLab/InternVL2-40B card); MiniMind2-Small 26M
  (jingyaogong/minimind README: d_model 512, 8 layers).
- Two models on one card: Qwen2.5-7B 7.62e9 × 2 B = 15.2 GB + Qwen2.5-14B 14.77e9 × 2 B = 29.5 GB → 44.8 GB,
  below an A100 80GB; Llama-3-8B 8.03e9 × 2 = 16.1 GB + Qwen2.5-32B 32.8e9 × 2 = 65.5 GB → 81.6 GB > a 24 GB 4090.
- Megatron-LM: world size = TP × PP × DP (github.com/NVIDIA/Megatron-LM), so TP 4 × PP 4 = 16, × DP 2 = 32.
- llama.cpp -ngl 0 keeps every layer on the CPU (llama.cpp README, --n-gpu-layers); LMDeploy reserves
  cache_max_entry_count (default 0.8) of free memory for KV (lmdeploy docs, TurbomindEngineConfig).
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.reading import read_one
from tools.models import resolve_model

# ---------------------------------------------------------------- mode words and negation


@pytest.mark.parametrize(
    "q",
    [
        "A10 24G能不能拿来做预测？暂时不考虑训练的事（qwen2.5-7b）",
        "不训练，只推理，3090跑 llama2 13b 够不够",
        "先不微调，就想加载一下 mistral 7b 看看效果，4090行吗",
        "not training, inference only - can a 3090 load qwen2.5-14b?",
    ],
)
def test_inference_words_and_ruled_out_training(q: str) -> None:
    f = read_one(q)
    assert f.mode == "inference"
    assert not f.training


@pytest.mark.parametrize(
    "q",
    ["no fine-tuning planned, i just want to run llama-3-8b on a 24gb card", "两张4090能跑起qwen2-7b不，暂时不训练"],
)
def test_ruled_out_training_leaves_no_training_mode(q: str) -> None:
    f = read_one(q)  # "run"/"跑" alone name no mode; the training word is ruled out, so nothing says training
    assert f.mode in (None, "inference") and not f.training and not f.finetune


@pytest.mark.parametrize(
    ("q", "mode"),
    [
        ("4090 能跑 lora 微调 qwen2-7b 吗", "lora"),  # "跑" alone is not inference when training is said
        ("run a full fine-tune of llama-2-7b on 8 A100", "full"),
        ("3090 上跑预训练 minimind2-small 行不行", "pretrain"),
    ],
)
def test_weak_run_words_do_not_override_training(q: str, mode: str) -> None:
    assert read_one(q).mode == mode


def test_not_able_to_train_is_still_a_training_question() -> None:
    f = read_one("4090 不能训练 llama 7b 吗")  # "不能训练吗" asks whether it can train: not ruled out
    assert f.training


# ---------------------------------------------------------------- models added to the catalog


@pytest.mark.parametrize(
    ("name", "total_b", "active_b", "tol"),
    [
        ("vicuna-33b", 32.5, None, 0.01),
        ("Vicuna 13B", 13.0, None, 0.01),
        ("llama 4 scout", 109.0, 17.0, 0.10),
        ("Llama-4-Maverick-17B-128E-Instruct", 400.0, 17.0, 0.10),
        ("MiniCPM-V-2_6", 8.1, None, 0.03),
        ("minicpm-llama3-v2.5", 8.5, None, 0.03),
        ("visualglm-6b", 7.8, None, 0.03),
        ("InternVL2-40B", 40.1, None, 0.02),
        ("minimind2-small", 0.026, None, 0.05),  # README: 26M
    ],
)
def test_new_catalog_rows_match_published_counts(name: str, total_b: float, active_b: float | None, tol: float) -> None:
    r = resolve_model(name)
    assert r.kind == "catalog"
    assert r.params / 1e9 == pytest.approx(total_b, rel=tol)
    if active_b is not None:  # vision encoder counted as active too: ~1B over the text-only 17B
        assert r.active_params / 1e9 == pytest.approx(active_b, rel=0.10)


@pytest.mark.parametrize(
    ("q", "model"),
    [
        ("用 vicuna-33b 三张V100 32G 推理很慢", "Vicuna-33B"),
        ("visualglm lora 微调 4张11G的卡 爆显存", "VisualGLM-6B"),
        ("Can unsloth run Llama 4 Scout on a 2080 ti?", "Llama-4-Scout"),
        ("InternVL2-76B awq 部署要几张A100", "InternVL2-76B"),
    ],
)
def test_new_families_are_read_in_questions(q: str, model: str) -> None:
    assert read_one(q).model == model


def test_unknown_name_glued_to_its_size_is_kept_and_said_on_line_one() -> None:
    f = read_one("A800 80G 能部署 xverse-13b 吗")
    assert f.model == "xverse-13b" and f.params_b == 13
    a = answer("A800 80G 能部署 xverse-13b 吗")[0].text
    first_paragraph = a.split("\n\n")[0]
    assert "xverse-13b" in first_paragraph and "通用" in first_paragraph


# ---------------------------------------------------------------- two models on one card


def test_two_models_on_one_card_sum_their_weights() -> None:
    q = "一张A100 80G上同时部署 qwen2.5-7b 和 qwen2.5-14b 可以吗"
    assert read_one(q).co_models == ["Qwen2.5-7B", "Qwen2.5-14B"]
    a = answer(q)[0].text
    line1 = a.split("\n\n")[0].replace("\n", "")
    assert "放得下" in line1
    assert "15.2 + 29.5" in line1 and ("44.7" in line1 or "44.8" in line1)


def test_two_models_too_big_for_one_card_together() -> None:
    a = answer("can a 4090 24G serve llama-3-8b and qwen2.5-32b at the same time?")[0].text
    line1 = a.split("\n\n")[0].replace("\n", " ")
    assert line1.startswith("No")
    assert "81.6" in line1 or "81.7" in line1


def test_bare_sizes_listed_together() -> None:
    assert read_one("8卡 H800 想同时跑 7B 和 72B 两个模型").co_models == ["7b", "72b"]


# ---------------------------------------------------------------- TP × PP


@pytest.mark.parametrize(
    ("q", "tp", "pp", "dp", "count"),
    [
        ("tp=4 pp=4 训练一个 13b 要几张卡", 4, 4, None, "16"),
        ("张量并行 8，流水线并行 2，数据并行 2，一共需要多少张 GPU 训练 llama 70b", 8, 2, 2, "32"),
        ("With tensor parallel size 2 and pipeline parallelism 4, how many GPUs for a 7B model?", 2, 4, None, "8"),
    ],
)
def test_parallel_degrees_give_the_count_on_line_one(q: str, tp: int, pp: int, dp: int | None, count: str) -> None:
    f = read_one(q)
    assert (f.tp_size, f.pp_size, f.dp_size) == (tp, pp, dp)
    a = answer(q)[0].text
    first = a.split("\n\n")[0]
    assert count in first.split("：")[0].split(":")[0]  # the count leads


# ---------------------------------------------------------------- local runtimes


def test_llama_cpp_ngl_zero_is_cpu_only() -> None:
    q = "A100 上用 llama.cpp 跑 qwen2.5-7b q4 只有 9 token/s，命令是 ./main -m x.gguf -ngl 0"
    f = read_one(q)
    assert f.runtime_settings.get("ngl") == "0" and "llama.cpp" in f.engines
    a = answer(q)[0].text
    assert "-ngl 0" in a and "CPU" in a


def test_lmdeploy_fills_the_card_by_its_kv_fraction() -> None:
    a = answer("lmdeploy 部署 internlm2-chat-7b 为啥把 A100 显存全吃满了？")[0].text
    assert "cache_max_entry_count" in a and "0.8" in a


def test_exllama_settings_are_read() -> None:
    f = read_one("exllamav2 4.65bpw llama-3-70b, cache_8bit, gpu_split 20,24 on two 3090s")
    assert "ExLlamaV2" in f.engines
    assert f.runtime_settings["bpw"] == "4.65"
    assert f.runtime_settings["cache_bits"] == "8"
    assert f.runtime_settings["gpu_split"] == "20,24"


def test_either_of_two_models_gets_its_own_count() -> None:
    # Falcon-40B ≈ 41.8e9 params × 16 B (bf16 weights + grads, fp32 Adam moments + master copy; ZeRO paper
    # arXiv:1910.02054 §3) ≈ 669 GB of states → more than 8 × 80 GB; Llama-2-70B ≈ 69e9 × 16 B ≈ 1.1 TB → more still.
    a = answer("最少几张80G的卡能全量训练 falcon-40b 或者 llama2-70b？")[0].text
    assert "Falcon-40B" in a and "Llama-2-70B" in a
    counts = [int(x) for x in re.findall(r"至少要 (\d+) 张", a)]
    assert len(counts) >= 2 and counts[0] > 8 and counts[1] > counts[0]


@pytest.mark.parametrize(
    ("q", "model", "size"),
    [
        ("参考minimind的显存占用，训一个3b的模型要多少显存", "3b", 3.0),  # the size asked about is the subject
        ("两台8卡H100部署 deepseek-r1 671 B 够吗", "DeepSeek-R1", None),  # 671 B is R1's own size (671e9 total)
    ],
)
def test_bare_size_beside_a_family_name(q: str, model: str, size: float | None) -> None:
    f = read_one(q)
    assert f.model == model and f.params_b == size
