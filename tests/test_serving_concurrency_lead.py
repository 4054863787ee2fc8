"""'How many concurrent requests' is answered with the count, at the full context the user named and at typical
request lengths; an FP8 checkpoint is planned at 1 byte per parameter. Expected values are worked by hand."""

from __future__ import annotations

import pytest

from assistant.advisor import ask


def _call(a, name):
    return next(c for c in a.tool_calls if c.name == name)


@pytest.mark.parametrize(
    "question",
    ["sglang跑qwen3-8b，单张L40最多能开多大并发，8k上下文", "vllm 部署 Qwen3-8B 一张L40 8k上下文 最多几个并发啊"],
)
def test_concurrency_question_leads_with_the_full_context_count(question: str) -> None:
    a = ask(question)
    serving = _call(a, "plan_serving")
    res = serving.result
    # Qwen3-8B config.json: 36 layers × 8 KV heads × head_dim 128; K and V in bf16 (2 B)
    kv_per_token = 2 * 36 * 8 * 128 * 2  # 147,456 B
    assert res["kv_gb_per_sequence_per_gpu"] == pytest.approx(kv_per_token * 8192 / 1e9, rel=0.01)  # 1.208 GB
    ceiling = (res["usable_gb_per_gpu"] - res["weights_gb_per_gpu"]) / (kv_per_token * 8192 / 1e9)  # ≤ 22
    full = res["max_concurrency_full_context"]
    assert 0 < full <= ceiling
    first = a.answer.splitlines()[0]
    assert f"最多 {full} 路" in first and "8192" in first  # the full-context count leads, with its context


def test_english_parallel_requests_question_is_a_serving_answer_not_a_card_count() -> None:
    a = ask("how many parallel requests can vllm handle for qwen3 8b on a single L40 with 8k context?")
    assert _call(a, "plan_serving")
    assert not any(c.name == "find_min_gpus" for c in a.tool_calls)
    assert a.answer.splitlines()[0].count("concurrent requests") == 1


def test_a_card_count_beside_a_concurrency_is_still_a_card_count() -> None:
    a = ask("50并发 vllm跑qwen2.5-14b 要几张4090")
    assert _call(a, "find_min_gpus").args["concurrency"] == 50


def test_an_fp8_checkpoint_is_planned_at_one_byte_per_parameter() -> None:
    """DeepSeek-R1 ships FP8 weights (HF config quantization_config fmt e4m3): 671e9 × 1 B ≈ 671 GB, which one
    8 × 96 GB server holds; at BF16 (1.34 TB) it would take two servers."""
    a = ask("本地部署deepseek-r1 671b最少要什么配置")
    plan = _call(a, "plan_configurations")
    assert plan.args["precision"] == "fp8"
    best = plan.result["options"][0]
    assert best["count"] == 8 and best["nodes"] == 1
    assert best["per_gpu_gb"] == pytest.approx(671e9 / 8 / 1e9, rel=0.12)  # weights share ≈ 84 GB, plus overheads
