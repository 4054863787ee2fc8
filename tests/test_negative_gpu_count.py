"""A negative card count is bad input: a clear bilingual error, never silently read as a positive count."""

from __future__ import annotations

import pytest

from assistant.advisor import ask


@pytest.mark.parametrize("question", ["能用-3张4090训练7b吗", "use -2 gpus to serve llama 3 8b"])
def test_a_negative_count_is_refused(question: str) -> None:
    a = ask(question, backend="offline")
    assert a.tool_calls == [] and ("负数" in a.answer or "negative" in a.answer)


@pytest.mark.parametrize("question", ["2-3张4090能训练7b lora吗", "A100-8卡 一个月多少钱"])
def test_a_range_or_a_name_with_a_dash_is_not_negative(question: str) -> None:
    a = ask(question, backend="offline").answer
    assert "负数" not in a and "negative" not in a
