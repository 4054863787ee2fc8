"""Constraint accounting: every entity and quantity read from a question is used by a tool call or
named in the one not-used line. Held over every question in evals/cases/ and the Frame test rows.

"Used" is checked against the calls' own arguments (what reached a tool), so a value the planner
read and then dropped fails here unless the answer says so.
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.intents import analyse
from assistant.offline.reading import read_one
from assistant.offline.writing import accounting
from evals.schema import load_cases
from tests.test_frame import ROWS

_QUESTIONS = sorted({c.final_question() for c in load_cases() if len(c.user_turns()) == 1} | {q for q, _ in ROWS})
_NOT_USED = re.compile(r"^(?:没用上：|Not used: )(.*)$", re.M)


def _not_used_line(text: str) -> str:
    lines = _NOT_USED.findall(text)
    assert len(lines) <= 1, lines  # one line, not one per part
    return lines[0] if lines else ""


def test_the_corpus_is_big_enough_to_mean_something() -> None:
    assert len(_QUESTIONS) >= 250


@pytest.mark.parametrize("question", _QUESTIONS, ids=[q[:30] for q in _QUESTIONS])
def test_nothing_read_is_dropped_silently(question: str) -> None:
    a, results = answer(question)
    intents, _, _ = analyse(question)
    frame = read_one(question)
    line = _not_used_line(a.text)
    for item in accounting.items(frame):
        if accounting.unused(frame, results, intents) and item in accounting.unused(frame, results, intents):
            label = item.zh if a.language == "zh" else item.en
            assert label in line, (item, line)


def test_the_engine_is_named_when_no_tool_takes_it() -> None:
    a, _ = answer("用 vLLM 部署 Qwen2.5-72B 要几张 A800")
    assert "没用上：vLLM" in a.text


def test_a_dropped_card_count_is_said() -> None:
    a, _ = answer("我要 4 张 A100 做数据并行训练，选 PCIe 版还是 SXM 版？")
    assert "4 张卡" in _not_used_line(a.text)


def test_concurrency_and_context_reach_the_tool() -> None:
    """「给50个人同时用，上下文8k」: KV cache for 50 sequences of 8,192 tokens, not one."""
    q = "部署qwen2.5-32b给50个人同时用，上下文8k，要几张4090"
    a, results = answer(q)
    fmg = next(r for r in results if r.name == "find_min_gpus")
    assert fmg.args["concurrency"] == 50 and fmg.args["context"] == 8192 and fmg.args["model"] == "Qwen2.5-32B"
    assert not _not_used_line(a.text)


def test_samples_times_length_times_epochs_become_training_tokens() -> None:
    # 1.5万条 × 2,000 token × 2 轮 = 60,000,000 tokens (hand arithmetic)
    q = "1.5万条样本，每条约 2k token，训 2 轮，全量微调 7B，4张A100要几天"
    _, results = answer(q)
    tt = next(r for r in results if r.name == "estimate_training_time")
    assert tt.args["tokens"] == pytest.approx(6e7) and tt.args.get("n_gpus") == 4


def test_usage_pattern_becomes_hours_billed() -> None:
    # the pattern reaches gpu_price's usage plan: 8 h/day × 3 days/week = 24 h in one week
    _, results = answer("A100 包月还是按小时划算？一周只用三天，每天8小时")
    price = next(r for r in results if r.name == "gpu_price")
    assert price.args["hours_per_day"] == 8 and price.args["days_per_week"] == 3
    assert price.result["usage_plan"]["hours_used"] == 24
