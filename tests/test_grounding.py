"""The numeric grounding guard (assistant/grounding.py). Each case is hand-written: a sentence,
the sources it may draw on, and whether every number in it is backed."""

from __future__ import annotations

import pytest

from assistant.grounding import check, extract

SOURCES = [
    {
        "model_states_gb": 112.0,
        "total_gb": 121.37,
        "params": 7_000_000_000,
        "vram_gb": 24,
        "price_cny_month": 12345.0,
        "utilization": 0.45,
    },
    "能用4090全量训练7B吗",
]


@pytest.mark.parametrize(
    "answer",
    [
        "不能：需要约 112 GB，4090 只有 24 GB。",
        "About 121.4 GB in total (121 GB rounded).",  # rounding to the displayed precision
        "7B = 70亿 = 7,000,000,000 = 7e9 parameters",  # magnitudes and separators
        "model states 112 GB ≈ 104.3 GiB",  # 112e9 / 2^30 = 104.31 (GB ↔ GiB)
        "约 1.2万元/月，约 12,300 元",  # 12345 shown as 1.2万 and 12,300
        "利用率 45%",  # 0.45 shown as a percentage
        "1. 用 A100 或 H800\n2. 用 ZeRO-3 和 fp16，Qwen2.5 也行",  # names and list markers are not numbers
    ],
)
def test_grounded_answers(answer):
    report = check(answer, SOURCES)
    assert report.grounded, report.ungrounded


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("需要 135 GB", ["135"]),
        ("About 121.9 GB", ["121.9"]),  # 121.37 rounds to 121.4, not 121.9
        ("need 3 cards and 98.5 GB", ["3", "98.5"]),
        ("约 2.5万元", ["2.5万"]),
        ("利用率 60%", ["60%"]),
    ],
)
def test_ungrounded_answers_name_the_numbers(answer, bad):
    report = check(answer, SOURCES)
    assert not report.grounded and report.ungrounded == bad


def test_context_sizes_read_k_as_thousand_or_1024():
    assert check("4k context", [{"seq_len": 4096}]).grounded
    assert check("32K", [{"seq_len": 32000}]).grounded
    assert not check("8k context", [{"seq_len": 4096}]).grounded


def test_extract_skips_identifiers():
    texts = [
        m.text for m in extract("RTX 4090, A100, H800, fp8, 4-bit, ZeRO-3, Qwen2.5-7B, Llama-3-8B on 8 cards, 16-20 GB")
    ]
    assert texts == ["4090", "8", "16", "20"]


def test_full_width_digits():
    assert check("需要１１２ GB", SOURCES).grounded


def test_fallback_notices_are_bilingual_and_carry_no_numbers():
    from assistant.advisor import _REASONS, fallback_notice

    for code in _REASONS:
        notice = fallback_notice(code)
        assert "离线" in notice and "offline" in notice
        assert not extract(notice), notice  # a notice must not need grounding itself
