"""「24G显存最大能跑多大的模型」: the size limit of a card, worked by hand from bytes per parameter and the card's
usable memory, and the question routed to it (not to a guide passage or a training verdict on a 7B nobody named)."""

from __future__ import annotations

import pytest

from assistant.advisor import ask
from tools.largest_model import LargestModelInput, largest_model
from tools.memory import EstimateMemoryInput, estimate_memory


def _row(out, precision):
    return next(r for r in out.rows if r.precision == precision)


def test_limits_bracket_the_weights_arithmetic_on_a_4090() -> None:
    out = largest_model(LargestModelInput(gpu="RTX 4090"))
    usable = out.usable_gb  # 24,564 MiB × 0.9 (vLLM default) ≈ 23.2 GB
    assert usable == pytest.approx(24564 * 2**20 * 0.9 / 1e9, rel=0.01)
    # weights alone bound the size from above: params ≤ usable / bytes per param (bf16 2 B, int8 1 B, int4 ~0.56 B)
    assert 0.7 * usable / 2 < _row(out, "bf16").max_params_b < usable / 2
    assert 0.7 * usable / 1 < _row(out, "int8").max_params_b < usable / 1
    assert 0.7 * usable / 0.5 < _row(out, "int4").max_params_b < usable / 0.5
    # monotone in the precision, and each example really fits
    assert _row(out, "bf16").max_params_b < _row(out, "int8").max_params_b < _row(out, "int4").max_params_b
    for row in out.rows:
        for e in row.examples:
            job = EstimateMemoryInput(
                model=e.model, mode="inference", precision=row.precision, gpu="RTX 4090", context=4096
            )
            est = estimate_memory(job)
            assert est.headroom_gb >= 0


def test_the_limit_is_tight_three_percent_above_does_not_fit() -> None:
    out = largest_model(LargestModelInput(gpu="3060 12G"))
    row = _row(out, "int4")
    above = estimate_memory(
        EstimateMemoryInput(
            params=f"{row.max_params_b * 1.03:.1f}B", mode="inference", precision="int4", gpu="3060 12G", context=4096
        )
    )
    assert above.headroom_gb < 0


def test_two_cards_hold_about_twice_one() -> None:
    one = _row(largest_model(LargestModelInput(gpu="RTX 4090")), "int4").max_params_b
    two = _row(largest_model(LargestModelInput(gpu="RTX 4090", gpus=2)), "int4").max_params_b
    assert 1.7 * one < two < 2.1 * one  # tensor parallel splits the weights; overheads repeat per card


def test_full_fine_tuning_limit_follows_16_bytes_per_parameter() -> None:
    """ZeRO-3 over 8 × A100 80GB (81,920 MiB = 85.9 GB each): 16 B/param of model states (arXiv:1910.02054) bound
    the size by 8 × 85.9 / 16 ≈ 43B before activations."""
    row = largest_model(LargestModelInput(gpu="A100 80G", gpus=8, mode="full")).rows[0]
    assert 20 < row.max_params_b < 8 * 85.9 / 16


@pytest.mark.parametrize(
    "question",
    [
        "24G显存最大能跑多大的模型",
        "我的3060 12g 能跑多大的大模型啊",
        "what's the biggest model I can run on a 3060 12GB?",
        "两张4090最多能部署多大的模型",
    ],
)
def test_size_limit_questions_are_answered_with_the_limit(question: str) -> None:
    a = ask(question)
    assert [c.name for c in a.tool_calls] == ["largest_model"]
    first = a.answer.splitlines()[0]
    assert ("最大约" in first) or ("up to about" in first)
    assert "4-bit" in first


def test_a_fine_tune_limit_question_gets_lora_and_qlora() -> None:
    a = ask("16g显存能微调多大的模型")
    modes = [c.args["mode"] for c in a.tool_calls if c.name == "largest_model"]
    assert modes == ["lora", "qlora"]


def test_a_named_model_is_not_a_size_limit_question() -> None:
    a = ask("24G显存能跑多大的上下文，qwen2.5-7b")
    assert not any(c.name == "largest_model" for c in a.tool_calls)


@pytest.mark.parametrize(
    ("question", "winner"),
    [
        ("4060ti 16g和4070 12g哪个适合跑本地大模型", "RTX 4060 Ti 16GB"),
        ("3090 or 4080 for running local LLMs?", "RTX 3090"),
    ],
)
def test_two_cards_for_local_models_the_larger_memory_wins_and_bandwidth_is_said(question: str, winner: str) -> None:
    """Capacity decides which models run at all (16 GB > 12 GB; 24 GB > 16 GB); the 4070's 504 GB/s vs the 4060 Ti's
    288 GB/s (NVIDIA spec pages) decides decode speed on a model both hold."""
    a = ask(question)
    assert [c.name for c in a.tool_calls].count("largest_model") == 2
    first = a.answer.splitlines()[0]
    assert winner in first.split("：")[0].split(":")[0]
    if "4070" in question:
        assert "504" in first and "288" in first


@pytest.mark.parametrize("question", ["4090能跑deepseek r1吗", "How to run r1 on a 4090 card?"])
def test_a_model_too_big_for_the_card_names_the_largest_of_its_line_that_fits(question: str) -> None:
    """DeepSeek-R1 is 671B (FP8 ≈ 671 GB); one 4090 holds ≈ 32B at 4-bit (≈ 23.2 GB usable ÷ ~0.6 B/param), so the
    answer points to the R1 distill of that size (DeepSeek-R1-Distill-Qwen-32B, a different model) and says so."""
    a = ask(question)
    est = next(c for c in a.tool_calls if c.name == "estimate_memory")
    assert est.args["model"] == "DeepSeek-R1"  # a bare "r1" is DeepSeek-R1
    assert any(c.name == "largest_model" for c in a.tool_calls)
    assert "DeepSeek-R1-Distill-Qwen-32B" in a.answer
    assert ("不等同于原版" in a.answer) or ("not the original" in a.answer)
