"""A bug in the offline planner reaches the user as a short bilingual apology, never a traceback (the brief: bad
input or not, no traceback is ever shown). The bug itself still goes to the log."""

from __future__ import annotations

import logging

import pytest

from assistant import advisor


def test_a_planner_bug_is_an_apology_not_a_traceback(monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    import assistant.offline.intents as intents

    def broken(*_a, **_k):
        raise IndexError("no such group")  # what a regex slip in the reading layer once raised

    monkeypatch.setattr(intents, "plan", broken)
    with caplog.at_level(logging.ERROR):
        r = advisor.ask("A100一个月多少钱", backend="offline")
    assert r.answer.startswith("抱歉") and "Traceback" not in r.answer and "IndexError" not in r.answer
    assert any("offline answer failed" in rec.message for rec in caplog.records)
