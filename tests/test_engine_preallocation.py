"""A serving engine's start-up reservation ("observed memory is far above the model"): the engine_reservation tool's
arithmetic against hand-worked figures from the engines' docs and maintainers, and the offline planner leading
with "this is preallocation: X GB = …" on real questions from public issue trackers (URL on each) and on our own
casual phrasings.

Hand values (GB = 10^9 B; nvidia-smi totals from knowledge/gpus.yaml, each cited there):
- vLLM: reserved per GPU = gpu_memory_utilization × the card (docs.vllm.ai engine_args, default 0.9).
- SGLang: mem_fraction_static × the card (docs.sglang.ai server_arguments).
- LMDeploy: weights + cache_max_entry_count × (card − weights) (lmdeploy.readthedocs.io pipeline API, default 0.8).
- TensorRT-LLM: weights + kv_cache_free_gpu_memory_fraction × (card − weights) (nvidia.github.io/TensorRT-LLM
  examples/kvcacheconfig.html, default 0.9).
"""

from __future__ import annotations

import re

import pytest

from assistant.advisor import ask
from tools.registry import run_tool


def _res(**args):
    out = run_tool("engine_reservation", args)
    assert "error" not in out, out
    return out


# ---------------------------------------------------------------- the tool's arithmetic ---------------


def test_vllm_a800_092_is_73_6_gb():
    # 0.92 × 80 GB = 73.6 GB; nvidia-smi: 0.92 × 81,920 MiB = 75,366.4 MiB (the "74G" the user saw)
    r = _res(engine="vLLM", gpu="A800 80G", fraction=0.92)
    assert r["reserved_per_gpu_gb"] == pytest.approx(73.6, abs=0.01)
    assert r["reserved_per_gpu_mib"] == pytest.approx(75366, abs=1)
    assert r["fraction_is_default"] is False and r["basis"] == "total"


def test_vllm_default_on_t4_is_0_9_of_16_gb():
    # vllm-project/vllm#355: OPT-125m on a T4 "exceeded 11GB"; default 0.9 × 16 GB = 14.4 GB
    r = _res(engine="vllm", gpu="T4")
    assert r["fraction"] == 0.9 and r["reserved_per_gpu_gb"] == pytest.approx(14.4, abs=0.01)


def test_sglang_default_on_4090():
    assert _res(engine="SGLang", gpu="RTX 4090")["reserved_per_gpu_gb"] == pytest.approx(0.9 * 24, abs=0.01)


def test_lmdeploy_0_99_leaves_0_66_gb():
    # InternLM/lmdeploy#3280, maintainer: (80 − 14) × 0.01 = 0.66 GB left for activations
    r = _res(engine="LMDeploy", gpu="H100", fraction=0.99, weights_gb=14)
    assert r["left_for_activations_gb"] == pytest.approx(0.66, abs=0.005)
    assert r["kv_cache_per_gpu_gb"] == pytest.approx(66 * 0.99, abs=0.01)


def test_lmdeploy_doc_example_13b_on_a100():
    # lmdeploy turbomind_config.md: 13B on A100-80G, default 0.8 → (80 − 26) × 0.8 = 43.2 GB of k/v blocks
    r = _res(engine="lmdeploy", gpu="A100 80G", weights_gb=26)
    assert r["kv_cache_per_gpu_gb"] == pytest.approx(43.2, abs=0.01)
    assert r["reserved_per_gpu_gb"] == pytest.approx(26 + 43.2, abs=0.01)


def test_trtllm_a100_matches_the_issue_log_within_ten_percent():
    # NVIDIA/TensorRT-LLM#1400: 6.7 GB engine on an A100 80GB, "Allocate 69524783104 bytes for k/v cache";
    # hand: 0.9 × (80 − 6.7) = 65.97 GB (the log counts the driver's 85.9 GB total, hence a little more)
    r = _res(engine="TensorRT-LLM", gpu="A100 80G", weights_gb=6.7)
    assert r["kv_cache_per_gpu_gb"] == pytest.approx(65.97, abs=0.01)
    assert abs(r["kv_cache_per_gpu_gb"] - 69.52) / 69.52 < 0.1


def test_tensor_parallel_splits_the_weights_not_the_fraction():
    # two A40 with vLLM TP=2: each card reserves 0.9 × 48 = 43.2 GB; 70 GB of weights → 35 GB per card
    r = _res(engine="vLLM", gpu="A40", gpus=2, weights_gb=70)
    assert r["reserved_per_gpu_gb"] == pytest.approx(43.2, abs=0.01)
    assert r["weights_per_gpu_gb"] == pytest.approx(35.0, abs=0.01)
    assert r["kv_cache_per_gpu_gb"] == pytest.approx(8.2, abs=0.01)


def test_unknown_engine_is_a_bilingual_error():
    out = run_tool("engine_reservation", {"engine": "foo", "gpu": "H100"})
    assert out["error"]["zh"] and out["error"]["en"] and "vLLM" in out["error"]["en"]


def test_every_engine_row_has_source_and_as_of():
    from tools.memory_engines import preallocation_engines, preallocation_profile

    for e in preallocation_engines():
        p = preallocation_profile(e)
        assert p.source.strip().startswith("https://") and re.match(r"\d{4}-\d{2}-\d{2}", p.as_of)
        assert 0 < p.default <= 1 and p.absolute["zh"] and p.absolute["en"]


# ---------------------------------------------------------------- the planner's lead ------------------

# (question, words line 1 must hold, a number line 1 must hold or None) — real questions, URL per row
REAL = [
    # https://github.com/vllm-project/vllm/issues/355 — 0.9 × 16 GB (T4) = 14.4 GB
    (
        'I tried LLM(model="facebook/opt-125m") on a single T4 with vLLM and the memory cost exceeded 11GB, '
        "while huggingface from_pretrained only cost 1GB. Why?",
        ["preallocation", "gpu_memory_utilization"],
        14.4,
    ),
    # https://github.com/vllm-project/vllm/issues/1512 — A10 24 GB × 0.9 = 21.6 GB on each card
    (
        "VLLM two GPUs Qwen-7B-Chat consumes more VRAM: on a single A10 it consumes 18506MB; with two A10 GPUs "
        "each GPU also consumes 18506MB. Is there something wrong?",
        ["preallocation"],
        21.6,
    ),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/1400 — the free-memory fraction, default 0.9
    (
        "TensorRT-LLM on A100 80GB: expected 7GB for the model and 1-2GB for KV cache, but 73GB used, 67GB for "
        "KV cache. How to control it?",
        ["preallocation", "kv_cache_free_gpu_memory_fraction"],
        None,
    ),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/486 — two models on one A100 80G
    (
        "The tensorrt-llm tends to use as much memory for KV cache as it could in startup, but we're planing to "
        "run multiple trtllm instances or multiple models. How do I restrict the memory usage for each trtllm "
        "instance? For example, we got an A100 with 80G memory, and try to split it to 2 40Gs for 2 models.",
        ["kv_cache_free_gpu_memory_fraction"],
        None,
    ),
    # https://github.com/InternLM/lmdeploy/issues/1509 — cache_max_entry_count of the free memory
    (
        "lmdeploy 部署 llama-13B 启动后显存占用比 transformers 大很多，是什么原因？",
        ["预分配", "cache_max_entry_count"],
        None,
    ),
    # https://github.com/InternLM/lmdeploy/issues/2793 — two pipelines 0.6 and 0.5 on one card
    (
        "一张A100 80G上用lmdeploy起两个模型，cache_max_entry_count分别0.6和0.5，为啥能起来，加起来不是超过1了吗",
        ["预分配", "cache_max_entry_count 0.6"],
        None,
    ),
    # https://github.com/vllm-project/vllm/issues/4253 — no card named: the rule, never 0.9 × the observed 21 GB
    ("Why 0.5B model requires 21G gpu ram with vllm?", ["preallocation", "gpu_memory_utilization"], None),
]

OWN = [
    # our phrasings; 0.9 × 24 = 21.6, 0.9 × 80 = 72, (80 − 15.2) × 0.01 ≈ 0.65 (Qwen2.5-7B bf16 ≈ 15.2 GB)
    ("vllm起个7b，4090 24G直接被吃满22G了，咋回事", ["预分配"], 21.6),
    ("sglang on an H100 eats 72GB with qwen2.5-7b, why so much memory?", ["preallocation", "mem_fraction_static"], 72),
    ("两个vllm实例放一张A100 80G上，后起的那个起不来", ["预分配"], 72),
    ("lmdeploy --cache-max-entry-count 0.99 跑 qwen2.5-7b 单张H100 多传几张图就崩", ["预分配", "0.99"], 0.65),
]


def _numbers(line: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", line)]


@pytest.mark.parametrize(("question", "words", "number"), REAL + OWN)
def test_line_one_says_preallocation_with_the_users_figure(question, words, number):
    res = ask(question)
    first = res.answer.split("\n")[0]
    for word in words:
        assert word in first, first
    if number is not None:
        assert any(abs(x - number) / number < 0.03 for x in _numbers(first)), first
    assert "engine_reservation" in [c.name for c in res.tool_calls] or number is None


def test_no_card_named_does_not_take_the_observed_figure_for_the_card():
    first = ask("Why 0.5B model requires 21G gpu ram with vllm?").answer.split("\n")[0]
    assert "× 21 GB" not in first and "18.9" not in first


def test_two_vllm_instances_say_the_start_order():
    # our phrasing of the two-instance failure (vLLM V0 counts the first instance against the second)
    ans = ask("两个vllm实例放一张A100 80G上，后起的那个起不来").answer
    assert "先起小的" in ans


def test_two_lmdeploy_models_explain_why_fractions_exceed_one():
    ans = ask(
        "一张A100 80G上用lmdeploy起两个模型，cache_max_entry_count分别0.6和0.5，为啥能起来，加起来不是超过1了吗"
    ).answer
    assert "空闲显存" in ans and "超过 1" in ans


def test_lmdeploy_extreme_fraction_gives_the_activation_room():
    ans = ask("lmdeploy --cache-max-entry-count 0.99 跑 qwen2.5-7b 单张H100 多传几张图就崩").answer
    m = re.search(r"剩给激活的只有 (\d+\.\d+) GB", ans)
    assert m and 0.6 <= float(m.group(1)) <= 0.7
