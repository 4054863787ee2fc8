"""Faults: a flaky LLM endpoint and a broken vector store. The advisor keeps answering and says so.

tests/test_agent_openai.py already covers each LLM failure's fallback code and request count.
This file adds what it does not: every failure mode is bounded — by request counts against the
configured retries/steps, and by a stub that is slower than any honoured timeout (no absolute
speed limits: machines are shared; tests/scaling.py) — on the streaming path the page uses, too; the notice is visible in the stream before the answer,
endpoints that answer with garbage (HTML, JSON without `choices`, a connection dropped mid-
stream) still fall back instead of raising, and the vector store is rebuilt end to end through
the CLI in fresh processes (a restart) after it is deleted, filled with garbage, truncated or
stripped of its segment folders — without losing the user's documents. Last, concurrent page
sessions (load) produce zero errors and no cross-talk.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from assistant.advisor import AskResult, ask, stream
from assistant.settings import BackendSettings
from tests.scaling import HANG_GUARD_S
from tests.stub_openai_server import StubOpenAI

ROOT = Path(__file__).resolve().parent.parent
SECRET = "sk-faults-test-0c9e"
QUESTION = "How much memory does an A100 80GB have?"


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """Imports (langchain_openai ~1.3 s), the offline agent and the retrieval index are built once,
    outside the timed runs: the bounds below are about retries and steps, not cold start."""
    import langchain_openai  # noqa: F401

    ask(QUESTION)


# The `slow` model answers only after this long: far beyond every honoured client timeout
# (0.5 s × 3 attempts + backoff), so a run that took this long waited for a reply it should have cut.
SLOW_REPLY_S = 60.0


@pytest.fixture(scope="module")
def stub():
    with StubOpenAI(plan=[("gpu_specs", {"names": ["A100"]})], slow_seconds=SLOW_REPLY_S) as server:
        yield server


def _settings(base_url: str, model: str, **kw) -> BackendSettings:
    values = dict(
        backend="openai", base_url=base_url, model=model, api_key=SECRET, max_retries=1, timeout_s=2.0, max_steps=4
    )
    values.update(kw)
    return BackendSettings(**values)


def _run_stream(question: str, settings: BackendSettings) -> tuple[list[dict], AskResult, float]:
    t0 = time.perf_counter()
    events = list(stream(question, settings=settings))
    took = time.perf_counter() - t0
    assert events[-1]["type"] == "final"
    return events, events[-1]["result"], took


def _assert_offline_answer_with_notice(events: list[dict], result: AskResult) -> None:
    assert result.backend == "offline (fallback)" and result.fallback_reason
    assert SECRET not in result.model_dump_json()
    kinds = [e["type"] for e in events]
    assert "notice" in kinds, "the user was not told the LLM failed"
    first_token = kinds.index("token") if "token" in kinds else len(kinds)
    assert kinds.index("notice") < first_token, "the notice must come before the answer text"
    assert result.answer.startswith("⚠️")
    assert "gpu_specs" in [c.name for c in result.tool_calls]  # the offline planner really answered
    assert "".join(e["text"] for e in events if e["type"] == "token") == result.answer


# Bounded = a counted number of requests (retries and steps exactly as configured), and for `slow`
# the stub's SLOW_REPLY_S reply was never waited for. Load can only slow the honoured path
# (attempts × timeout + the client's backoff + the offline answer, ~3 s idle), never make it reach
# SLOW_REPLY_S, so that bound is about behaviour (the timeout is applied), not speed.
@pytest.mark.parametrize(
    "model,kw",
    [
        ("slow", dict(timeout_s=0.5, max_retries=2)),
        ("server_error", dict(max_retries=2)),
        ("rate_limited", dict(max_retries=3)),
        ("endless", dict(max_steps=5)),
        ("bad_json", {}),
        ("unknown_tool", {}),
        ("noindex", {}),
    ],
)
def test_every_llm_failure_is_bounded_in_total_wall_time_on_the_streaming_path(stub, model, kw):
    stub.reset()
    settings = _settings(stub.base_url, model, **kw)
    events, result, took = _run_stream(f"{QUESTION} [{model}]", settings)
    _assert_offline_answer_with_notice(events, result)
    # every failure mode is cut before the stub's slow reply could have arrived even once
    assert took < SLOW_REPLY_S, f"{model}: {took:.1f} s — a timeout or deadline was not applied"
    requests = len(stub.chat_requests())
    if model in ("slow", "server_error", "rate_limited"):
        assert requests == kw["max_retries"] + 1, requests  # bounded retries, exactly
    elif model == "endless":
        assert requests == kw["max_steps"], requests  # bounded steps, exactly
    else:  # at most every step retried: the configured ceiling on round-trips
        assert 1 <= requests <= settings.max_steps * (settings.max_retries + 1), requests


def test_endpoint_down_is_fast_even_with_retries():
    with socket.socket() as s:  # a loopback port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    events, result, took = _run_stream(QUESTION, _settings(f"http://127.0.0.1:{port}/v1", "m", max_retries=2))
    _assert_offline_answer_with_notice(events, result)
    assert (result.fallback_reason or "").startswith("connection_error")  # refused at once, not waited out as a timeout
    assert took < HANG_GUARD_S, f"{took:.1f} s"  # a hang guard, not a speed target


# ------------------------------------------------------------------ endpoints that answer with garbage


class _Garbage:
    """A loopback server whose /chat/completions replies are broken in one chosen way."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.hits = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # quiet
                pass

            def do_POST(self):  # noqa: N802
                outer.hits += 1
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if outer.mode == "html":
                    data, ctype = b"<html><body>502 Bad Gateway (nginx)</body></html>", "text/html"
                elif outer.mode == "no_choices":
                    data, ctype = (
                        json.dumps({"id": "x", "object": "chat.completion", "model": "m"}).encode(),
                        "application/json",
                    )
                elif outer.mode == "empty_choices":
                    data, ctype = (
                        json.dumps(
                            {"id": "x", "object": "chat.completion", "model": "m", "created": 0, "choices": []}
                        ).encode(),
                        "application/json",
                    )
                elif outer.mode == "truncated_json":
                    data, ctype = b'{"id": "x", "choices": [{"index": 0, "message": {"role": "assis', "application/json"
                elif outer.mode == "drop":
                    # headers, then the connection dies mid-body
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream" if body.get("stream") else "application/json")
                    self.send_header("content-length", "1000")
                    self.end_headers()
                    self.wfile.write(b'data: {"id": "x", "choices": [')
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                else:  # pragma: no cover
                    raise AssertionError(outer.mode)
                self.send_response(200)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "_Garbage":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"


GARBAGE_MODES = ["html", "no_choices", "empty_choices", "truncated_json", "drop"]


def _garbage_outcome(mode: str, streaming: bool) -> tuple[AskResult, list[dict], float, int]:
    with _Garbage(mode) as srv:
        settings = _settings(srv.base_url, "m", max_retries=0)
        t0 = time.perf_counter()
        if streaming:
            events = list(stream(f"{QUESTION} [{mode}]", settings=settings))
            result = events[-1]["result"]
        else:
            events, result = [], ask(f"{QUESTION} [{mode}]", settings=settings)
        return result, events, time.perf_counter() - t0, srv.hits


@pytest.mark.parametrize("mode", GARBAGE_MODES)
@pytest.mark.parametrize("streaming", [False, True], ids=["invoke", "stream"])
def test_malformed_endpoint_responses_fall_back(mode, streaming):
    try:
        result, events, took, hits = _garbage_outcome(mode, streaming)
    except Exception as exc:  # noqa: BLE001
        pytest.fail(
            f"{mode} ({'stream' if streaming else 'invoke'}): the advisor raised "
            f"{type(exc).__name__}: {exc} instead of answering offline with a notice"
        )
    assert result.backend == "offline (fallback)", (mode, result.backend, result.answer[:200])
    assert result.answer.startswith("⚠️") and result.fallback_reason
    assert SECRET not in result.model_dump_json()
    assert took < HANG_GUARD_S, f"{took:.1f} s"  # a hang guard, not a speed target
    assert 1 <= hits <= 4, hits  # max_retries=0, max_steps=4: garbage is not retried in a loop
    if streaming:
        assert any(e["type"] == "notice" for e in events)


# ------------------------------------------------------------------ the vector store, through the CLI

NOTE = (
    "# 青岛机房交接笔记\n\n青岛机房 C 区 8 卡 A800 服务器的交接暗号是「海鸥」，每月 15 号对账。\n"
    "Qingdao C-zone 8x A800 servers: handover code word 'seagull', billing reconciled on the 15th.\n"
)
NOTE_QUERY = "青岛机房 C 区 A800 交接暗号"


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GPU_ADVISOR_HOME": str(home), "PYTHONIOENCODING": "utf-8"}
    env.pop("CHROMA_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "assistant.cli", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,  # a hang guard for a fresh process (cold start + index build), not a speed target
        cwd=ROOT,
        env=env,
    )


def _search_finds_note(home: Path) -> subprocess.CompletedProcess[str]:
    proc = _cli(home, "search", NOTE_QUERY, "--k", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    hits = json.loads(proc.stdout.splitlines()[-1])["hits"]
    assert hits and "海鸥" in hits[0]["text"], [h["doc_id"] for h in hits]
    return proc


def _docs_listed(home: Path) -> list[str]:
    proc = _cli(home, "index", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.splitlines()[-1])
    docs = data if isinstance(data, list) else data.get("documents") or data.get("docs") or []
    return [d.get("name") for d in docs]


def _break_garbage(home: Path) -> None:
    (home / "chroma" / "chroma.sqlite3").write_bytes(b"SQLite format 2\x00 not really" * 500)


def _break_delete(home: Path) -> None:
    shutil.rmtree(home / "chroma")


def _break_truncate(home: Path) -> None:
    (home / "chroma" / "chroma.sqlite3").write_bytes(b"")


def _break_segments(home: Path) -> None:
    # the HNSW segment folders go (a half-copied backup), the sqlite catalogue stays
    for sub in (home / "chroma").iterdir():
        if sub.is_dir():
            shutil.rmtree(sub)


@pytest.mark.slow
@pytest.mark.parametrize(
    "breaker,expect_note",
    [(_break_garbage, "rebuilt"), (_break_delete, "No vector store"), (_break_truncate, None), (_break_segments, None)],
    ids=["garbage", "deleted", "truncated", "segments-missing"],
)
def test_broken_store_is_rebuilt_and_user_docs_survive(tmp_path, breaker, expect_note):
    home = tmp_path / "home"
    note = tmp_path / "qingdao_handover.md"
    note.write_text(NOTE, encoding="utf-8")
    added = _cli(home, "index", "add", str(note), "--json")
    assert added.returncode == 0, added.stderr
    _search_finds_note(home)
    breaker(home)
    proc = _search_finds_note(home)  # a fresh process: what a restart after the damage does
    if expect_note:
        assert expect_note in proc.stderr, proc.stderr
    assert "qingdao_handover.md" in _docs_listed(home), "the user's document was lost"
    assert list((home / "user_docs").glob("u-qingdao*")), "the stored copy of the user's document was lost"
    _search_finds_note(home)  # and the rebuilt store keeps working


def test_offline_ask_survives_a_corrupt_store(tmp_path, monkeypatch):
    """In-process: the agent's search_guide tool meets a garbage store and still answers with sources."""
    from chromadb.api.client import SharedSystemClient

    from tools.search_guide import reset_retrievers

    home = tmp_path / "home"
    monkeypatch.setenv("GPU_ADVISOR_HOME", str(home))
    reset_retrievers()
    try:
        first = ask("两台8卡服务器做分布式训练，用什么网络？")
        assert first.citations
        reset_retrievers()
        SharedSystemClient.clear_system_cache()
        _break_garbage(home)
        again = ask("两台8卡服务器做分布式训练，用什么网络？")
        assert again.citations and again.backend == "offline"
        assert [c.doc_id for c in again.citations] == [c.doc_id for c in first.citations]
        assert list(home.glob("chroma.broken-*")), "the broken store should be kept aside for inspection"
    finally:
        reset_retrievers()
        SharedSystemClient.clear_system_cache()


# ------------------------------------------------------------------ load: many sessions at once is not a fault


@pytest.mark.slow
@pytest.mark.server
def test_page_serves_concurrent_sessions_without_errors():
    """20 gradio_client sessions at once on loopback (the 50-session figures are in `make bench`):
    every reply is a real answer, none errors, and no session gets another session's answer."""
    from concurrent.futures import ThreadPoolExecutor

    from gradio_client import Client

    from tests.web_server import running_page

    questions = [
        "能用4090全量训练7B吗",
        "How many A100 80GB for a 70B full fine-tune?",
        "A100一个月多少钱",
        "两台8卡服务器用什么网络",
    ]
    with running_page() as url:

        def session(i: int) -> list[tuple[str, dict]]:
            client = Client(url, verbose=False)
            out = []
            for j in range(2):
                q = questions[(i + j) % len(questions)]
                out.append((q, client.predict(question=q, language="auto", api_name="/ask")))
            return out

        with ThreadPoolExecutor(max_workers=20) as pool:
            futures = [pool.submit(session, i) for i in range(20)]
            # hang guard (40 answers on a loaded server), not a speed target
            replies = [r for f in futures for r in f.result(timeout=300)]
    assert len(replies) == 40
    assert all(r.get("answer") and r.get("backend") == "offline" for _, r in replies)
    # the offline planner is deterministic: one question, one answer, whichever session asked it
    answers: dict[str, set[str]] = {}
    for q, r in replies:
        answers.setdefault(q, set()).add(r["answer"])
        assert r["language"] == ("en" if q.startswith("How") else "zh")
    assert all(len(a) == 1 for a in answers.values()), {q: len(a) for q, a in answers.items()}


# ---------------------------------------------------------------- issue 18: a tool that crashes mid-answer


def test_a_tool_exception_during_an_llm_answer_falls_back_offline(monkeypatch):
    """A bug inside a tool the LLM called must not become a traceback on the page: the offline
    answer comes instead, with the bilingual notice first (the bug itself goes to the log)."""
    import dataclasses

    from tools import registry

    registry.all_tools()
    original = (registry._CACHE or {})["interconnect_advice"]

    def boom(_inp):
        raise RuntimeError("a bug deep in a formula")

    monkeypatch.setitem(registry._CACHE, "interconnect_advice", dataclasses.replace(original, func=boom))
    with StubOpenAI(plan=[("interconnect_advice", {"nodes": 2})]) as server:
        events, result, _ = _run_stream(QUESTION, _settings(server.base_url, "tool_then_answer", max_retries=0))
    _assert_offline_answer_with_notice(events, result)
    assert (result.fallback_reason or "").startswith("tool_error")
    assert "工具计算出错" in result.answer and "A tool failed" in result.answer


def test_hostile_numbers_from_the_llm_come_back_as_data_not_a_crash():
    """inf / 1e400 / 1e308 in a tool call from the model: a bilingual error the model can read."""
    from tools.registry import run_tool

    for args in (
        {"gpu": "A100", "hours": float("inf")},
        {"gpu": "A100", "hours": 1e308},
        {"gpu": "A100", "monthly_quote_cny": 1e-308},
        {"gpu": "A100", "days": "1e400"},
        {"gpu": ""},
    ):
        result = run_tool("gpu_price", args)
        assert "error" in result and result["error"]["zh"] and result["error"]["en"], args
    for args in (
        {"model": "7B", "tokens": "1e400"},
        {"model": "7B", "tokens": "inf"},
        {"model": "7B", "tokens": "1B", "budget": "nan"},
    ):
        assert "error" in run_tool("plan_configurations", args), args
