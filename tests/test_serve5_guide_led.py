"""Serving questions that a weights estimate does not answer: a front-end calling an API (no GPU), one card
shared between pods or workers (no memory isolation), many users on a speech model (batching, workers),
DeepSeek-R1 "locally" (the distills, not the 671B), a measured tokens/s (aggregate vs per request), and
daily users turned into a peak concurrency. Phrasings are our own, in the style of public threads
(deepseek-ai/DeepSeek-R1#507, sgl-project/sglang#3656, modelscope/FunASR#992 and #1501, NVIDIA/k8s-dra-driver#113);
expected values are hand arithmetic from the sources named beside them."""

from __future__ import annotations

import math

import pytest

from assistant.offline import answer
from assistant.offline.intents import analyse
from tools.serving_load import peak_concurrency

_KV = 70_272 * 4096 / 1e9  # DeepSeek-R1 MLA KV bytes per token × the 4,096-token context, GB


def _intent(q: str) -> str:
    return analyse(q)[0][0]


def _first(text: str) -> str:
    return text.strip().splitlines()[0]


# ---- a web front-end that calls a hosted API: no GPU ------------------------------------------------
@pytest.mark.parametrize(
    "q",
    [
        "Open WebUI 接 DeepSeek 官方 API 用，需要买带显卡的服务器吗",
        "nextchat 部署在轻量服务器上调 openai api，2核2g 够不够",
        "LobeChat on a VPS calling the OpenAI API, do I need a GPU? how much RAM?",
    ],
)
def test_front_end_calling_an_api_needs_no_gpu(q: str) -> None:
    assert _intent(q) == "serving_frontend"
    a, results = answer(q)
    assert [r.name for r in results] == ["search_guide"]  # not a weights estimate
    first = _first(a.text)
    assert ("不需要 GPU" in first) if "服务器" in q else ("needs no GPU" in first)


def test_open_webui_with_a_local_ollama_model_is_not_the_no_gpu_answer() -> None:
    # the model runs on this machine: its size decides the GPU, so the front-end rule stays out
    assert _intent("Open WebUI + Ollama 跑 qwen2.5 14b，服务器要多大显卡") != "serving_frontend"


# ---- one card shared between pods or workers ------------------------------------------------------
def test_time_slicing_oom_says_no_memory_isolation_and_tf_growth() -> None:
    q = (
        "k8s 上用 nvidia device plugin 配了 time-slicing，4 张 3090 切成 16 份，几个 TensorFlow 的 pod "
        "一起跑就 OOM，是插件没配好还是一定要装 gpu operator"
    )
    assert _intent(q) == "gpu_sharing"
    a, _ = answer(q)
    assert "隔离" in a.text  # NVIDIA GPU Operator docs: no memory or fault isolation between replicas
    assert "TF_FORCE_GPU_ALLOW_GROWTH" in a.text or "set_memory_growth" in a.text  # tensorflow.org/guide/gpu


def test_two_workers_on_one_card_mentions_contention_and_mig() -> None:
    q = "one A100 80GB, can I start two gunicorn workers that each load the model on the same GPU?"
    assert _intent(q) == "gpu_sharing"
    a, _ = answer(q)
    assert "MIG" in a.text and ("contend" in a.text or "take turns" in a.text)


# ---- many users on a speech model: batching, workers, a queue ---------------------------------------
def test_speech_model_concurrency_is_batching_and_workers_not_weights() -> None:
    q = "sensevoice 做语音转写服务，几十个用户同时上传音频，一张卡怎么做并发，还是只能排队"
    assert _intent(q) == "non_llm_concurrency"
    a, results = answer(q)
    assert "estimate_memory" not in [r.name for r in results]
    first = _first(a.text)
    assert "batch_size_s" in first and "worker" in first  # FunASR README; funasr issue #1501 (multi-process)


# ---- DeepSeek-R1 "locally": the distills by VRAM -------------------------------------------------
def test_r1_on_a_12gb_desktop_is_the_distill_table() -> None:
    q = "家里电脑 12G 显存，想用 ollama 跑 deepseek r1，应该拉哪个版本"
    assert _intent(q) == "r1_local"
    a, _ = answer(q)
    assert "蒸馏" in a.text and "671B" in a.text
    # ollama.com/library/deepseek-r1: the 14b tag is 9.0 GB at Q4_K_M, under 12 GB
    assert "14B" in a.text and "9.0 GB" in a.text


def test_local_r1_versus_official_site_quality_gap_is_from_the_paper() -> None:
    q = "本地部署的 deepseek-r1 和官网 API 的回答差距大吗，我们有很多内部文档"
    assert _intent(q) == "r1_local"
    a, _ = answer(q)
    first = _first(a.text)
    # arXiv:2501.12948 Table 5, AIME 2024 pass@1: full R1 79.8 vs Distill-Qwen-7B 55.5
    assert "79.8" in first and "55.5" in first and "蒸馏" in first


@pytest.mark.parametrize(
    "q",
    [
        "8卡 H20 部署 DeepSeek-R1 671B 需要多少显存",
        "DeepSeek-R1 满血版本地部署要几张 H100",
        "本地 4090 跑 deepseek-r1-distill-qwen-32b 要多少显存",
    ],
)
def test_the_full_model_or_a_named_distill_keeps_its_own_sizing(q: str) -> None:
    assert _intent(q) != "r1_local"


# ---- a measured tokens/s: aggregate vs per request ---------------------------------------------------
def test_throughput_above_the_single_stream_ceiling_is_aggregate() -> None:
    q = "我们 8 卡 H200 NVL 上用 vllm 跑 DeepSeek-R1，吞吐大概 1500 tok/s，算正常吗"
    assert _intent(q) == "throughput_check"
    a, results = answer(q)
    dec = next(r for r in results if r.name == "decode_speed")
    assert dec.args["gpus"] == 8 and dec.args["precision"] == "fp8"  # R1 ships in FP8 (HF model card)
    # hand: 37.55e9 active params × 1 B ÷ 8 GPUs ≈ 4.69 GB per GPU per token, plus the MLA KV cache that every
    # rank reads whole: (512 + 64) × 61 layers × 2 B = 70,272 B/token (config.json) × 4,096 tokens ≈ 0.288 GB;
    # ceiling = 0.9 × 4,800 GB/s (H200 datasheet, NVL column) ÷ 4.98 GB ≈ 867 tokens/s < 1,500
    hi = dec.result["tokens_per_s_high"]
    assert 0.9 * 4800 / (37.55 / 8 + _KV) == pytest.approx(hi, rel=0.03)
    first = _first(a.text)
    assert "总吞吐" in first and "4.8 TB/s" in first
    assert "NVLink 桥" in a.text  # H200 NVL: PCIe card with 2-/4-way NVLink bridges, not NVSwitch


def test_throughput_below_the_ceiling_asks_which_it_is_and_divides_by_concurrency() -> None:
    q = "8 张 H20 跑 DeepSeek-R1，32 并发压测总共 640 tokens/s，这个速度正常吗"
    assert _intent(q) == "throughput_check"
    a, results = answer(q)
    dec = next(r for r in results if r.name == "decode_speed")
    # H20: 4.0 TB/s (NVIDIA H20 spec); 0.9 × 4,000 ÷ 4.98 GB ≈ 723 tokens/s ceiling, above 640
    assert dec.result["tokens_per_s_high"] == pytest.approx(0.9 * 4000 / (37.55 / 8 + _KV), rel=0.03)
    assert "每路约 20 tokens/s" in _first(a.text)  # 640 ÷ 32 = 20


# ---- daily users → peak concurrency (Little's law) ------------------------------------------------
def test_peak_concurrency_from_daily_users_by_hand() -> None:
    # λ = 500 × 10 × 0.15 ÷ 3600 = 0.2083 /s; L = λ × 15 s = 3.125; × 2 burst = 6.25 → 7
    p = peak_concurrency(500)
    assert p.peak_requests_per_s == pytest.approx(0.2083, abs=0.001)
    assert p.mean_concurrency == pytest.approx(3.125, abs=0.01)
    assert p.sized_concurrency == 7
    assert peak_concurrency(5000).sized_concurrency == math.ceil(5000 * 10 * 0.15 / 3600 * 15 * 2)  # 63


@pytest.mark.parametrize(
    ("q", "want"),
    [
        ("日活大概 5000 的 app 想用 qwen2.5-14b 做客服，需要什么服务器", 63),
        ("We expect 500 daily users for our chatbot with Llama-3-8B, what GPU server do we need?", 7),
        (
            "our app has a DAU of 2000 and we want to self-host qwen2.5 7b, how many GPUs?",
            25,
        ),  # ⌈2000×10×.15/3600×15×2⌉
    ],
)
def test_daily_users_are_converted_before_the_plan(q: str, want: int) -> None:
    assert _intent(q) == "team_serving"
    a, results = answer(q)
    plans = [r for r in results if r.name == "plan_serving"]
    assert plans and all(r.args["concurrency"] == want for r in plans)
    first = _first(a.text)
    assert ("L = λW" in first) and (str(want) in first)


def test_time_slicing_in_english_names_isolation_and_tf_memory_growth() -> None:
    q = (
        "time-slicing replicas show up fine on my nodes (4x RTX 3090 Ti, replicas: 4) but the second TensorFlow "
        "pod on a card crashes with OOM. Do I need the gpu-operator or is the device plugin enough?"
    )
    assert _intent(q) == "gpu_sharing"
    a, _ = answer(q)
    assert "isolation" in a.text and ("TF_FORCE_GPU_ALLOW_GROWTH" in a.text or "set_memory_growth" in a.text)


def test_two_vllm_servers_on_one_card_say_how_to_split_the_memory() -> None:
    # vllm-project/vllm#10533 / #14376: the second instance fails with "No available memory for the cache blocks"
    a, results = answer("一张 A100 80G 能同时起两个 vllm 服务吗，gpu_memory_utilization 怎么设")
    assert results[0].name == "search_guide" and results[0].args["doc_id"] == "gpu-sharing"
    assert "gpu-memory-utilization" in _first(a.text) and "0.9" in _first(a.text)


def test_full_r1_offloaded_to_ram_is_not_the_distill_answer() -> None:
    # 502 GB of RAM and a measured 4.5 tokens/s: the 671B at Q4_K_M on CPU+GPU, the CPU-serving rule's question
    q = "本地部署 deepseek-R1 Q4_K_M，内存 502G，一张 4090，现在 4.5 tokens/s，怎么优化"
    assert _intent(q) != "r1_local"
