"""Issue 18 item 4: every answer is bounded (docs/reliability.md states the limits).

Real loopback traffic against the stub: a trickling endpoint (one byte every 0.2 s, each read well
inside the per-read timeout) must be cut at the request's total-time limit and the answer deadline;
a 30-million-character reply is cut while it arrives; 40 tool calls in one turn are refused before any
runs; a 10 MB chat history costs no more than the newest turns that fit.
"""

from __future__ import annotations

import time

import pytest

from assistant.advisor import MAX_HISTORY_CHARS, MAX_HISTORY_TURNS, ask, trim_history
from assistant.settings import BackendSettings
from tests.stub_openai_server import StubOpenAI

QUESTION = "How much memory does an A100 80GB have?"


@pytest.fixture(scope="module", autouse=True)
def _warm():
    import langchain_openai  # noqa: F401

    ask(QUESTION)  # offline agent + index built outside the timings


def _settings(stub: StubOpenAI, model: str, **kw) -> BackendSettings:
    values = dict(backend="openai", base_url=stub.base_url, model=model, api_key="sk-limits-test", max_steps=4)
    values.update(kw)
    return BackendSettings(**values)


def test_a_trickling_endpoint_is_cut_at_the_total_read_limit():
    with StubOpenAI(trickle_interval=0.2) as stub:
        t0 = time.perf_counter()
        result = ask(QUESTION, settings=_settings(stub, "trickle", timeout_s=5, request_total_s=1.5, max_retries=1))
        took = time.perf_counter() - t0
    # 2 attempts × 1.5 s + the client's retry backoff (≤ 1 s) + the offline answer; before: 3 × forever
    assert took < 8, f"took {took:.1f} s"
    assert result.backend == "offline (fallback)" and result.fallback_reason.startswith("timeout")


def test_the_answer_deadline_bounds_retries_too():
    with StubOpenAI(trickle_interval=0.2) as stub:
        t0 = time.perf_counter()
        result = ask(
            QUESTION,
            settings=_settings(stub, "trickle", timeout_s=5, request_total_s=30, max_retries=5, answer_deadline_s=2),
        )
        took = time.perf_counter() - t0
    assert took < 7, f"took {took:.1f} s"  # 6 tries × 30 s allowed per request; the 2 s deadline wins
    assert result.backend == "offline (fallback)"
    assert result.fallback_reason.split(":")[0] in ("deadline", "timeout")


def test_a_30_million_character_reply_is_cut():
    with StubOpenAI(huge_chars=30_000_000) as stub:
        t0 = time.perf_counter()
        result = ask(QUESTION, settings=_settings(stub, "huge", max_retries=0, timeout_s=30))
        took = time.perf_counter() - t0
    assert result.backend == "offline (fallback)" and result.fallback_reason.startswith("reply_too_long")
    assert len(result.answer) < 30_000
    assert took < 20


def test_too_many_tool_calls_in_one_turn_run_none():
    with StubOpenAI(plan=[("gpu_specs", {"names": ["A100"]})], many_count=40) as stub:
        result = ask(QUESTION, settings=_settings(stub, "many_tools", max_retries=0))
    assert result.fallback_reason and result.fallback_reason.startswith("tool_call_limit")
    # the offline planner answered; none of the 40 requested calls ran
    assert len(result.tool_calls) < 10


def test_a_10_mb_history_is_trimmed_to_the_newest_turns():
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": "x" * 100_000} for i in range(100)]
    history[-1] = {"role": "assistant", "content": "上一轮：A100 80GB"}
    kept = trim_history(history)
    assert len(kept) <= MAX_HISTORY_TURNS
    assert sum(len(t["content"]) for t in kept) <= MAX_HISTORY_CHARS
    assert kept[-1]["content"] == "上一轮：A100 80GB"  # the newest turn always survives
    t0 = time.perf_counter()
    result = ask("A100 有多少显存？", history=history)
    assert time.perf_counter() - t0 < 10 and result.answer


def test_settings_read_the_limits_from_the_environment(monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_REQUEST_TOTAL", "12")
    monkeypatch.setenv("GPU_ADVISOR_ANSWER_DEADLINE", "45")
    s = BackendSettings.from_env("openai")
    assert s.request_total_s == 12 and s.answer_deadline_s == 45
