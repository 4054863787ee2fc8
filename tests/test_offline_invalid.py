"""Impossible figures in a question are refused plainly, never silently replaced (1 hour, ¥3)."""

from __future__ import annotations

import pytest

from assistant.advisor import ask


@pytest.mark.parametrize(
    "question",
    [
        "4090 按 -3 元/小时 租 100 小时多少钱",
        "A100 租 inf 小时多少钱",
        "rent an A100 for nan days, how much",
        "H100 租 −5 天要多少钱",
    ],
)
def test_negative_or_non_finite_price_or_duration_is_refused(question: str) -> None:
    answer = ask(question, backend="offline").answer
    first = answer.splitlines()[0]
    assert "无效" in first or "invalid" in first
    assert "有限的正数" in answer and "finite positive" in answer
    assert "¥" not in answer.split("\n\n")[0]  # no price computed from the bad figure


@pytest.mark.parametrize("question", ["4090 租 2-3 天多少钱", "A100 一个月多少钱"])
def test_ranges_and_plain_durations_are_not_mistaken_for_negatives(question: str) -> None:
    first = ask(question, backend="offline").answer.splitlines()[0]
    assert "无效" not in first and "¥" in first
