"""Pre-training compute both ways: days for a size (C = 6·N·D, Kaplan et al. 2020, arXiv:2001.08361 §2.1, with
D = 20·N from Chinchilla, Hoffmann et al. 2022, arXiv:2203.15556 Table 3), and the largest compute-optimal model a
time budget trains (N = sqrt(C / 120)). MFU band 0.25–0.45 (knowledge/mfu.yaml `full`: one or a few nodes).
Dense peaks (NVIDIA datasheets): A800/A100 312 TFLOPS bf16.

Real questions: "Is it possible to train 2B model by 8*A800 within 1 month … which model size in 1 or 2 months"
(the shape of a GitHub question in dev, rephrased here), and published-cost questions from issue trackers:
- https://github.com/OpenBMB/MiniCPM/issues/190 (1.1T tokens — how many GPUs and how long?)
- https://github.com/zai-org/GLM-130B/issues/75 (how long on 96 DGX-A100 from scratch?)
"""

from __future__ import annotations

import math
import re

import pytest

from assistant.offline import answer
from tools.errors import ToolInputError
from tools.train_budget import BudgetInput, compute_budget

A800_8 = 8 * 312e12  # FLOP/s at 100 % MFU


def test_2b_on_8_a800_days_by_hand() -> None:
    # C = 6 × 2e9 × 40e9 = 4.8e20; at 45 %: 4.8e20 / (2.496e15 × 0.45) = 4.27e5 s = 4.95 d; at 25 %: 8.90 d
    out = compute_budget(BudgetInput(gpu="A800", n_gpus=8, params_b=2, budget_days=30))
    assert out.flops == pytest.approx(4.8e20)
    assert out.days is not None
    assert out.days.low == pytest.approx(4.8e20 / (A800_8 * 0.45) / 86400, rel=0.01)
    assert out.days.high == pytest.approx(8.90, rel=0.01)
    assert out.fits_budget is True


def test_largest_model_in_one_and_two_months_by_hand() -> None:
    # 30 d: C = 2.496e15 × 0.25 × 2.592e6 s = 1.617e21 → N = sqrt(1.617e21 / 120) = 3.67e9; at 0.45: 4.93e9
    out = compute_budget(BudgetInput(gpu="A800", n_gpus=8, budget_days=30))
    assert out.largest_params_b is not None
    assert out.largest_params_b.low == pytest.approx(math.sqrt(A800_8 * 0.25 * 30 * 86400 / 120) / 1e9, rel=0.01)
    assert out.largest_params_b.high == pytest.approx(4.93, rel=0.01)
    # 60 d: × sqrt(2) → 5.19–6.97B
    two = compute_budget(BudgetInput(gpu="A800", n_gpus=8, budget_days=60))
    assert two.largest_params_b is not None and two.largest_params_b.high == pytest.approx(6.97, rel=0.01)


def test_audio_hours_become_codec_tokens() -> None:
    # Orpheus-TTS 3B, 7K hours: SNAC 24 kHz ≈ 82 tokens/s → 7000 × 3600 × 82 = 2.066e9 tokens;
    # C = 6 × 3e9 × 2.066e9 = 3.72e19; A100 GPU-hours at 45 %: 3.72e19 / (312e12 × 0.45) / 3600 = 73.6; at 25 %: 132.5
    out = compute_budget(BudgetInput(gpu="A100", n_gpus=1, params_b=3, audio_hours=7000))
    assert out.tokens == pytest.approx(7000 * 3600 * 82)
    assert out.gpu_hours is not None
    assert out.gpu_hours.low == pytest.approx(73.6, abs=1) and out.gpu_hours.high == pytest.approx(132.5, abs=1)


def test_neither_size_nor_budget_is_a_bilingual_error() -> None:
    with pytest.raises(ToolInputError) as e:
        compute_budget(BudgetInput(gpu="A800", n_gpus=8))
    assert e.value.zh and e.value.en and "budget" in e.value.en


def _lead(q: str) -> tuple[str, list[str]]:
    a, results = answer(q)
    return a.text, [r.name for r in results]


def test_en_question_leads_with_yes_and_the_days_then_the_sizes() -> None:
    text, tools = _lead(
        "Is it possible to train 2B model by 8*A800 within 1month? I have 8*A800(80G), which model size could it "
        "train within 1 or 2 month?"
    )
    assert tools[0] == "compute_budget" and tools.count("compute_budget") == 2  # 1 month and 2 months
    first = text.splitlines()[0]
    assert first.startswith("Yes") and re.search(r"5(?:\.0)?–8\.9 days", first), first
    assert "3.7–4.9B" in text and "5.2–7B" in text
    assert "2203.15556" in text and "2001.08361" in text  # the formulas name their sources


def test_zh_casual_how_big_in_a_month() -> None:
    text, tools = _lead("8张A800一个月能从头预训练多大的模型")
    assert tools == ["compute_budget"]
    assert "3.7–4.9B" in text.splitlines()[0]
    assert "每参数 20" in text


def test_zh_1b_in_two_weeks_on_4_a100() -> None:
    # C = 6 × 1e9 × 20e9 = 1.2e20; 4 × 312e12 = 1.248e15 FLOP/s; 45 %: 2.14e5 s = 2.47 d; 25 %: 3.85e5 s = 4.45 d
    text, tools = _lead("4张A100 两周内能从头训完一个1B的模型吗")
    assert tools[0] == "compute_budget"
    assert "¥" in text  # the estimator's cost at the same MFU band, in the details
    assert text.startswith("能") and re.search(r"2\.5–4\.5 天", text.splitlines()[0]), text[:200]


def test_orpheus_gpu_hours_from_audio_hours() -> None:
    text, tools = _lead("Orpheus-TTS 3B pretrain on 7K hours of audio, how many GPU hours on A100?")
    assert tools == ["compute_budget"]
    assert re.search(r"7[34]–13[23] GPU-hours", text.splitlines()[0]), text[:200]
    assert "82 tokens/s" in text  # the codec's rate is stated
