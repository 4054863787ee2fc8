"""Issue 18 item 4: every answer is bounded (docs/reliability.md states the limits).

Real loopback traffic against the stub: a trickling endpoint (one byte every 0.2 s, each read well
inside the per-read timeout) must be cut at the request's total-time limit and the answer deadline;
a 30-million-character reply is cut while it arrives; 40 tool calls in one turn are refused before any
runs; a 10 MB chat history costs no more than the newest turns that fit.

No absolute speed limits (machines are shared and noisy): each bound is about behaviour — the
trickle never ends, so any return proves the cut; request counts match the configured retries; a
run shorter than one request's total limit proves the deadline won; the history is compared with
its own trimmed copy in the same run (tests/scaling.py). Hang guards are safety nets only.
"""

from __future__ import annotations

import time

import pytest

from assistant.advisor import MAX_HISTORY_CHARS, MAX_HISTORY_TURNS, ask, trim_history
from assistant.settings import BackendSettings
from tests.scaling import HANG_GUARD_S, best_times
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
        requests = len(stub.chat_requests())
    # The stub trickles for ~5.5 hours (100,000 bytes × 0.2 s) and every read is inside the 5 s
    # per-read timeout: returning at all proves the 1.5 s total-read limit cut each attempt
    # (2 attempts × 1.5 s + backoff + the offline answer, ~4 s idle; before the fix: forever).
    assert took < HANG_GUARD_S, f"took {took:.1f} s"  # a hang guard, not a speed target
    assert requests == 2, requests  # max_retries=1: each cut attempt is retried once, no more
    assert result.backend == "offline (fallback)" and (result.fallback_reason or "").startswith("timeout")


def test_the_answer_deadline_bounds_retries_too():
    with StubOpenAI(trickle_interval=0.2) as stub:
        t0 = time.perf_counter()
        result = ask(
            QUESTION,
            settings=_settings(stub, "trickle", timeout_s=5, request_total_s=30, max_retries=5, answer_deadline_s=2),
        )
        took = time.perf_counter() - t0
    # 6 tries × 30 s allowed per request. Finishing before ONE request's 30 s limit proves the 2 s
    # answer deadline cut the run (~3 s idle); that is about which limit applied, not about speed.
    assert took < 30, f"took {took:.1f} s: the answer deadline did not cut the trickling request"
    assert result.backend == "offline (fallback)"
    assert (result.fallback_reason or "").split(":")[0] in ("deadline", "timeout")


def test_a_30_million_character_reply_is_cut(monkeypatch):
    from assistant import agent

    guards: list[agent.ReplyGuard] = []
    original_init = agent.ReplyGuard.__init__

    def recording_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        guards.append(self)

    monkeypatch.setattr(agent.ReplyGuard, "__init__", recording_init)
    with StubOpenAI(huge_chars=30_000_000) as stub:
        t0 = time.perf_counter()
        result = ask(QUESTION, settings=_settings(stub, "huge", max_retries=0, timeout_s=30))
        took = time.perf_counter() - t0
        requests = len(stub.chat_requests())
    assert result.backend == "offline (fallback)" and (result.fallback_reason or "").startswith("reply_too_long")
    # cut WHILE it arrives: the transport guard tripped at MAX_REPLY_BYTES (4 MB), not a check after
    # all 30 MB were read and parsed; and the cut reply was not retried
    assert any(g.tripped == "reply_too_long" for g in guards), [g.tripped for g in guards]
    assert requests == 1, requests
    assert len(result.answer) < 30_000
    assert took < HANG_GUARD_S  # a hang guard, not a speed target


def test_too_many_tool_calls_in_one_turn_run_none():
    with StubOpenAI(plan=[("gpu_specs", {"names": ["A100"]})], many_count=40) as stub:
        result = ask(QUESTION, settings=_settings(stub, "many_tools", max_retries=0))
    assert result.fallback_reason and (result.fallback_reason or "").startswith("tool_call_limit")
    # the offline planner answered; none of the 40 requested calls ran
    assert len(result.tool_calls) < 10


def test_a_10_mb_history_is_trimmed_to_the_newest_turns():
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": "x" * 100_000} for i in range(100)]
    history[-1] = {"role": "assistant", "content": "上一轮：A100 80GB"}
    kept = trim_history(history)
    assert len(kept) <= MAX_HISTORY_TURNS
    assert sum(len(t["content"]) for t in kept) <= MAX_HISTORY_CHARS
    assert kept[-1]["content"] == "上一轮：A100 80GB"  # the newest turn always survives
    result = ask("A100 有多少显存？", history=history)
    assert result.answer
    assert ask("A100 有多少显存？", history=kept).answer == result.answer  # the dropped turns change nothing
    # "costs no more": the 10 MB history against its own trimmed copy, best of 5, in this run.
    # Same work after trimming ≈ 1x (trim_history itself is one pass over 100 strings); an
    # untrimmed 10 MB reaching the planner would cost many times more.
    t_kept, t_full = best_times(
        lambda: ask("A100 有多少显存？", history=kept), lambda: ask("A100 有多少显存？", history=history)
    )
    assert t_full < 3 * max(t_kept, 0.005), f"10 MB history {t_full * 1e3:.0f} ms vs trimmed {t_kept * 1e3:.0f} ms"


def test_settings_read_the_limits_from_the_environment(monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_REQUEST_TOTAL", "12")
    monkeypatch.setenv("GPU_ADVISOR_ANSWER_DEADLINE", "45")
    s = BackendSettings.from_env("openai")
    assert s.request_total_s == 12 and s.answer_deadline_s == 45
