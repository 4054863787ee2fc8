"""Serving planner: roofline arithmetic, paged-KV concurrency, RMB per million tokens, API break-even, and
validation against published vLLM measurements (engine version as stated in each source)."""

from __future__ import annotations

import pytest

from tools.errors import ToolInputError
from tools.serving import ServingInput, plan_serving


def test_single_stream_decode_is_weights_over_bandwidth() -> None:
    # Qwen2.5-7B bf16 on one 4090: ~15.2 GB of weights read per token at η_bw 0.75 of 1,008 GB/s ≈ 20 ms → ~50 tok/s
    o = plan_serving(ServingInput(model="qwen2.5-7b", gpu="4090", concurrency=1, input_tokens=128, output_tokens=128))
    assert o.decode_bound == "memory" and o.concurrency == 1
    step = o.weights_gb_per_gpu * 1e9 / (0.75 * 1008e9)
    assert 1 / o.tokens_per_s.mid == pytest.approx(step + 2 * 7.6e9 * 128 / (165.2e12 * 0.5) / 128, rel=0.05)


def test_paged_kv_holds_more_requests_than_full_context_slots() -> None:
    o = plan_serving(ServingInput(model="qwen2.5-7b", gpu="4090", context=32768, input_tokens=512, output_tokens=256))
    assert o.max_concurrency > o.max_concurrency_full_context >= 1
    # Qwen2.5-7B: 28 layers × 4 KV heads × 128 × 2 (K,V) × 2 bytes = 57,344 B/token (config.json)
    assert o.kv_gb_per_sequence_per_gpu == pytest.approx(57_344 * 32_768 / 1e9, rel=0.02)


def test_cost_per_million_tokens_and_break_even_arithmetic() -> None:
    o = plan_serving(ServingInput(model="qwen2.5-7b", gpu="4090", concurrency=16, input_tokens=1024, output_tokens=256))
    assert o.monthly_cost_cny and o.cost_per_mtok_cny and o.cost_per_mtok_input_cny
    ds = next(a for a in o.apis if a.api.startswith("deepseek-chat (DeepSeek-V3.2"))
    # API CNY per million output tokens with 4 input tokens per output token: 4 × ¥2 + ¥3 = ¥11
    assert ds.break_even_output_mtok_per_month == pytest.approx(o.monthly_cost_cny / 11, rel=0.01)
    low = plan_serving(ServingInput(model="qwen2.5-7b", gpu="4090", concurrency=16, monthly_output_mtok=1))
    assert all("API" in a.verdict_en for a in low.apis)


def test_whole_server_unit_and_bad_input() -> None:
    o = plan_serving(ServingInput(model="qwen2.5-7b", gpu="H100", input_tokens=256, output_tokens=256))
    assert o.rent_unit == "server_8" and any("8-GPU" in w for w in o.warnings)
    with pytest.raises(ToolInputError):
        plan_serving(ServingInput(model="qwen2.5-7b", gpu="4090", context=1000, input_tokens=900, output_tokens=200))


# (case, kwargs, measured, metric, source/engine)
VALIDATION = [
    (
        "Qwen3-32B bf16, 1×H100 NVL, ShareGPT, 32 seqs",
        dict(
            model="qwen3-32b",
            gpu="H100 NVL",
            gpus=1,
            input_tokens=217,
            output_tokens=200,
            context=32000,
            concurrency=32,
        ),
        653.6,
        "server",
        "vllm-project/vllm#17788, vLLM 0.8.5.post1",
    ),
    (
        "Qwen2.5-72B-Instruct bf16, 2×H100, 1 user, 128/128",
        dict(model="qwen2.5-72b", gpu="H100", gpus=2, input_tokens=128, output_tokens=128, concurrency=1),
        32.4,
        "user",
        "tenstorrent/tt-inference-server#143 (vLLM reference run on GPU; version not stated)",
    ),
    (
        "27B FP8, 4×RTX 3090 TP=4 (no NVLink), 1 user",
        dict(
            params="27B",
            gpu="3090",
            gpus=4,
            precision="fp8",
            input_tokens=64,
            output_tokens=1000,
            context=8192,
            concurrency=1,
        ),
        86.4,
        "user",
        "noonghunna/club-3090#446, vLLM v0.22.0",
    ),
    (
        "Qwen3-4B FP8, 1×RTX 4090, 1 user",
        dict(
            model="qwen3-4b",
            gpu="4090",
            gpus=1,
            precision="fp8",
            input_tokens=64,
            output_tokens=1000,
            context=8192,
            concurrency=1,
        ),
        138.0,
        "user",
        "noonghunna/club-3090#697, vLLM",
    ),
    (
        "27B FP8, 2×RTX 5090 TP=2 (PCIe 5 x8), 1 user",
        dict(
            params="27B",
            gpu="5090",
            gpus=2,
            precision="fp8",
            input_tokens=64,
            output_tokens=1000,
            context=8192,
            concurrency=1,
        ),
        115.8,
        "user",
        "noonghunna/club-3090#1087, vLLM",
    ),
    (
        "Qwen3-14B-AWQ, 1×A100 80GB, 16k prompt, 1 user",
        dict(
            model="qwen3-14b",
            gpu="A100 80G",
            gpus=1,
            precision="int4",
            input_tokens=16000,
            output_tokens=200,
            context=16384,
            concurrency=1,
        ),
        48.5,
        "user",
        "vllm-project/vllm#20469, vLLM 0.9.1 (--enforce-eager)",
    ),
]


def _predicted(kw: dict, metric: str) -> float:
    o = plan_serving(ServingInput(**kw))
    if metric == "server":
        return o.server_output_tokens_per_s.mid / (8 // o.tensor_parallel if o.rent_unit == "server_8" else 1)
    return o.tokens_per_s.mid


def test_at_least_five_published_figures_within_30_percent() -> None:
    ratios = {case: _predicted(kw, metric) / measured for case, kw, measured, metric, _ in VALIDATION}
    within = [c for c, r in ratios.items() if 0.7 <= r <= 1.3]
    assert len(within) >= 5, ratios


def test_ttft_for_a_long_prompt_is_prefill_bound() -> None:
    # vllm#20469: 16,000-token prompt on one A100 80GB, mean TTFT 3.35 s (vLLM 0.9.1)
    o = plan_serving(ServingInput(**VALIDATION[5][1]))
    assert 0.7 <= o.ttft_s.mid / 3.345 <= 1.3


def test_more_concurrency_raises_server_throughput_and_lowers_per_user_speed() -> None:
    kw = dict(model="qwen2.5-7b", gpu="A100 80GB PCIe", input_tokens=512, output_tokens=256)
    few = plan_serving(ServingInput(concurrency=4, **kw))
    many = plan_serving(ServingInput(concurrency=64, **kw))
    assert many.server_output_tokens_per_s.mid > few.server_output_tokens_per_s.mid
    assert many.tokens_per_s.mid < few.tokens_per_s.mid
    assert many.cost_per_mtok_cny.mid < few.cost_per_mtok_cny.mid  # the same rent spread over more tokens


@pytest.mark.parametrize("gpu", ["4090", "L20", "H20", "A800", "H100", "T4", "910B"])
def test_every_card_gives_a_plan_or_a_clear_error(gpu: str) -> None:
    try:
        o = plan_serving(ServingInput(model="qwen2.5-7b", gpu=gpu, input_tokens=256, output_tokens=128))
    except ToolInputError as exc:
        assert exc.zh and exc.en
        return
    assert o.tokens_per_s.low > 0 and o.ttft_s.low > 0 and o.tokens_per_s.low <= o.tokens_per_s.high


def test_the_same_model_api_comes_first_and_can_win_at_any_volume() -> None:
    # UCloud ModelVerse price list (2026-03-24): Qwen3-32B ¥2 in / ¥8 out per million tokens
    o = plan_serving(
        ServingInput(model="qwen3-32b", gpu="L20", gpus=2, input_tokens=1024, output_tokens=256, concurrency=32)
    )
    first = o.apis[0]
    assert first.api == "Qwen3-32B" and first.same_model
    # API per million output tokens with 4 input tokens each: 4 × 2 + 8 = ¥16
    assert first.break_even_output_mtok_per_month == pytest.approx(o.monthly_cost_cny / 16, rel=0.01)
    assert first.break_even_share_of_capacity > 1 and "API" in first.verdict_en


def test_api_cache_hits_lower_the_api_side() -> None:
    kw = dict(model="qwen2.5-7b", gpu="4090", concurrency=16, input_tokens=1024, output_tokens=256, api="deepseek-chat")
    cold = plan_serving(ServingInput(**kw)).apis[0]
    warm = plan_serving(ServingInput(api_cache_hit_rate=0.9, **kw)).apis[0]
    # DeepSeek V3.2: input ¥2 (miss) / ¥0.2 (hit), output ¥3; 4 input tokens per output token
    # cold: 4 × 2 + 3 = ¥11 per M output; 90% hits: 4 × (0.1 × 2 + 0.9 × 0.2) + 3 = ¥4.52
    assert cold.break_even_output_mtok_per_month / warm.break_even_output_mtok_per_month == pytest.approx(
        4.52 / 11, rel=0.01
    )
