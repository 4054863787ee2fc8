"""A released base model's pre-training: the authors' published figures, checked by hand-worked arithmetic.

Values: Llama 3 model card (15T+ tokens, 1.3M H100-80GB GPU-hours for 8B); Llama 2 paper Table 2 (184,320
A100-80GB GPU-hours for 7B, 2.0T tokens); DeepSeek-V3 report (2,664K H800 GPU-hours, 14.8T tokens, 37B active).
Dense BF16 peaks: A100 312 TFLOPS, H100 SXM 989.4 TFLOPS (NVIDIA datasheets)."""

from __future__ import annotations

import pytest

from assistant.advisor import ask
from tools.errors import ToolInputError
from tools.train_pretrained import PretrainingInput, find_pretraining_row, pretraining_run


def test_llama3_8b_flops_and_the_53_hours_on_24576_gpus() -> None:
    out = pretraining_run(PretrainingInput(model="Llama-3-8B", n_gpus=24576))
    # 6 × 8.03e9 × 15e12 = 7.227e23 FLOPs
    assert out.flops == pytest.approx(7.227e23, rel=0.01)
    assert out.published_gpu_hours == 1_300_000
    # 1,300,000 / 24,576 = 52.9 h
    assert out.ideal_wall_hours == pytest.approx(52.9, abs=0.1)
    # 7.227e23 / (1.3e6 × 3600 s) = 154 TFLOPS per GPU = 15.6 % of 989.4
    assert out.implied_mfu == pytest.approx(0.156, abs=0.005)


def test_llama2_7b_mfu_on_a100_and_carried_to_h100() -> None:
    out = pretraining_run(PretrainingInput(model="Llama-2-7B", gpu="H100 SXM"))
    # 6 × 6.74e9 × 2e12 = 8.09e22; / (184,320 × 3600) = 121.9 TFLOPS = 39 % of 312
    assert out.implied_mfu == pytest.approx(0.39, abs=0.01)
    # same MFU on H100: 184,320 × 312 / 989.4 ≈ 58,125 GPU-hours
    assert out.your_gpu_hours == pytest.approx(184_320 * 312 / 989.4, rel=0.01)


def test_deepseek_v3_uses_active_parameters() -> None:
    out = pretraining_run(PretrainingInput(model="DeepSeek-V3", rate_per_gpu_hour=2.0))
    # 6 × 37e9 × 14.8e12 ≈ 3.3e24 (active, not 671B total)
    assert out.flops == pytest.approx(3.3e24, rel=0.03)
    # 2,664,000 × $2 = $5,328,000 (pre-training only; the report's $5.576M includes context extension + post-training)
    assert out.cost_at_rate == pytest.approx(5_328_000, rel=0.001)


def test_unpublished_hours_are_a_band_not_a_point() -> None:
    out = pretraining_run(PretrainingInput(model="Qwen2.5-7B"))
    assert out.published_gpu_hours is None
    band = out.your_gpu_hours_band
    assert band is not None and band.low < band.mid < band.high
    # 6 × 7.62e9 × 18e12 = 8.2e23 FLOPs / (312e12 × 0.4 MFU) / 3600 ≈ 1.83M A100 hours
    assert band.mid == pytest.approx(8.23e23 / (312e12 * 0.4) / 3600, rel=0.03)


def test_a_model_without_a_record_is_a_clear_error() -> None:
    assert find_pretraining_row("no-such-model") is None
    with pytest.raises(ToolInputError):
        pretraining_run(PretrainingInput(model="Mistral-7B-v0.1"))


@pytest.mark.parametrize(
    ("question", "must"),
    [
        (
            "Llama 3 8B was trained on 15T tokens using 1.3M GPU hours. If I had 24K GPUs (24576), would it take 53 hours?",
            ["52.9", "linear scaling", "6·N·D", "MFU"],
        ),
        ("预训练Llama-2-7B要多少GPU小时", ["184,320", "39%"]),
        ("DeepSeek-V3 预训练花了多少钱？按每卡时 2 美元算", ["$5,328,000"]),
    ],
)
def test_the_chat_leads_with_the_published_run(question: str, must: list[str]) -> None:
    r = ask(question, backend="offline")
    assert r.tool_calls[0].name == "pretraining_run"
    for word in must:
        assert word in r.answer
    assert "Not used" not in r.answer and "没用上" not in r.answer


def test_fine_tuning_a_base_model_is_not_its_pretraining() -> None:
    r = ask("用 Llama-2-7B 做继续预训练 10B token 要多久", backend="offline")
    assert all(c.name != "pretraining_run" for c in r.tool_calls)


def test_an_expectation_for_a_published_run_is_met_by_the_pretraining_tool() -> None:
    """Eval cases written before the split name published_run; pretraining_run gives the same published figures,
    and a forbidden tool stays forbidden by its own name only."""
    from evals.schema import Expect
    from evals.scorers import check_tool

    calls = [{"name": "pretraining_run", "args": {"model": "Llama-3-8B"}}]
    assert check_tool(Expect(tool=["published_run", "compute_budget"]), calls)[0].ok
    assert not check_tool(Expect(tool="estimate_memory"), calls)[0].ok
    assert check_tool(Expect(forbid_tools=["published_run"]), calls)[0].ok
