"""Hostile and oversized input, end to end: huge pastes, binary, invalid UTF-8, GBK, ANSI, CRLF.

The limits (docs/reliability.md states them):

| where | limit | enforced by |
| --- | --- | --- |
| a pasted log (diagnose CLI / tool / page tab) | 2,000,000 characters or 20,000 lines; lines cut at 4,000 characters | tools/diagnosis/text.py `normalize` |
| the page's chat box | 200,000 characters | assistant/web/app.py `MAX_QUESTION_CHARS` |
| the page's upload | first 2,000,000 bytes read | assistant/web/forms.py `MAX_UPLOAD_BYTES` |
| `advisor.ask` / `stream` (CLI `ask`, `chat`, the page's `/ask` API, evals) | 200,000 characters | assistant/advisor.py `MAX_QUESTION_CHARS` (the page imports it) |

No absolute speed limits here (machines are shared and noisy; the figures live in
benchmarks/bench_parsers.py): a 10,000-line log must cost at most ~linear time against a
2,500-line one in the same run (tests/scaling.py), oversized input is refused before any parsing
starts, and a 10,000-line log stays under 200 MB of Python allocations (tracemalloc peak: a count
of bytes, not a timing, so load does not move it).
"""

from __future__ import annotations

import json
import re
import tracemalloc
from pathlib import Path

import pytest

from tests.scaling import HANG_GUARD_S, assert_scales_linearly
from tests.test_fuzz_cli import check_outcome, invoke
from tools.errors import ToolInputError

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "diagnosis_samples"
CJK = re.compile(r"[\u4e00-\u9fff]")

DIAG_MAX_CHARS = 2_000_000
DIAG_MAX_LINES = 20_000
PAGE_MAX_CHARS = 200_000


def _bilingual(exc: ToolInputError) -> None:
    assert CJK.search(exc.zh) and re.search(r"[A-Za-z]{3,}", exc.en), (exc.zh, exc.en)


def _sample(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


def ten_thousand_line_log() -> str:
    """A realistic long paste: nvidia-smi, dmesg with Xid/AER, NCCL and nccl-tests lines, repeated."""
    parts = [
        _sample("smi_535_8xa100_idle.txt"),
        _sample("dmesg_xid79_after_aer_surprise_down.txt"),
        _sample("nccl_socket_fallback_no_ib.txt"),
        _sample("nccl_tests_8xa100_good.txt"),
        _sample("dmesg_aer_correctable_burst.txt"),
    ]
    lines = "\n".join(parts).split("\n")
    out: list[str] = []
    while len(out) < 10_000:
        out += lines
    return "\n".join(out[:10_000])


# ------------------------------------------------------------------ the stated limits agree


def test_limits_are_stated_and_consistent():
    from assistant import uploads
    from assistant.web import app
    from tools.diagnosis import text

    assert (text.MAX_CHARS, text.MAX_LINES) == (DIAG_MAX_CHARS, DIAG_MAX_LINES)
    assert app.MAX_QUESTION_CHARS == PAGE_MAX_CHARS
    from assistant import advisor

    assert advisor.MAX_QUESTION_CHARS == app.MAX_QUESTION_CHARS, "one limit for every surface"
    # Anything the chat box accepts, the diagnosis accepts: the page never forwards a paste the tool rejects.
    assert app.MAX_QUESTION_CHARS <= text.MAX_CHARS
    assert uploads.MAX_UPLOAD_BYTES <= text.MAX_CHARS * 4  # at most 4 UTF-8 bytes per character


def test_diagnosis_rejects_oversized_paste_fast_and_bilingually(monkeypatch):
    from tools.diagnosis.tool import diagnose_text

    def boom(*a, **k):  # "fast" means: refused before any parser looks at the paste
        raise AssertionError("an oversized paste reached the parsers")

    monkeypatch.setattr("tools.diagnosis.detect.parse_all", boom)
    for bad in ("a" * (DIAG_MAX_CHARS + 1), "x\n" * (DIAG_MAX_LINES + 5)):
        with pytest.raises(ToolInputError) as err:
            diagnose_text(bad)
        _bilingual(err.value)
        assert "20,000" in err.value.en and "2 MB" in err.value.en


def test_diagnosis_at_the_limits_is_accepted():
    from tools.diagnosis.tool import diagnose_text

    assert (
        diagnose_text("x\n" * (DIAG_MAX_LINES - 1)).severity == "unknown"
    )  # issue 14: nothing recognised is unknown, never info
    # one 4,000-character line is kept, longer lines are cut (never rejected)
    report = diagnose_text("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus. " + "z" * 50_000)
    assert 79 in [x.code for x in report.xids]


def test_oversized_file_through_the_cli_exits_2(tmp_path):
    path = tmp_path / "huge.log"
    path.write_text("dmesg line\n" * 200_000, encoding="utf-8")  # 2.2 MB, 200,000 lines
    argv = ["diagnose", str(path)]
    code, out, err = invoke(argv)
    check_outcome(argv, code, out, err)
    assert code == 2 and "2 MB" in err


def test_page_chat_rejects_a_paste_over_its_limit_without_running_the_advisor(monkeypatch):
    from assistant.web import app

    def boom(*a, **k):  # the advisor must not even start on an oversized paste
        raise AssertionError("advisor called for an oversized question")

    monkeypatch.setattr("assistant.advisor.stream", boom)
    replies = list(app.respond("能用4090训练7B吗 " + "x" * PAGE_MAX_CHARS, [], "自动 / Auto", "offline", "", "", ""))
    text = replies[-1][0][-1]["content"]
    assert "200,000" in text and CJK.search(text) and "too long" in text


def _no_pass_over_the_question(monkeypatch) -> None:
    """The length check must come before the first pass over the text (language detection,
    history trimming, the agent): an oversized question is refused without being read."""

    def boom(*a, **k):
        raise AssertionError("an oversized question was processed before the length check")

    for name in ("resolve_language", "trim_history"):
        monkeypatch.setattr(f"assistant.advisor.{name}", boom)
    monkeypatch.setattr("assistant.advisor._Run.events", boom)


def test_advisor_ask_enforces_a_length_limit(monkeypatch):
    from assistant.advisor import ask, stream

    with pytest.raises(ToolInputError):
        next(iter(stream("x" * (PAGE_MAX_CHARS + 1))))
    ask("能用4090全量训练7B吗 " + "x" * (PAGE_MAX_CHARS - 100))  # just under the limit: answered

    _no_pass_over_the_question(monkeypatch)
    with pytest.raises(ToolInputError) as err:
        ask("能用4090全量训练7B吗 " + "x" * (PAGE_MAX_CHARS * 5))
    _bilingual(err.value)


def test_page_json_api_enforces_the_same_limit(monkeypatch):
    from assistant.web import app

    _no_pass_over_the_question(monkeypatch)
    try:
        out = app.api_ask("能用4090全量训练7B吗 " + "x" * (PAGE_MAX_CHARS * 5))
    except ToolInputError as exc:
        _bilingual(exc)
    else:
        assert "error" in out, "an oversized question was answered"


def test_page_upload_over_the_limit_is_not_mojibake(tmp_path):
    from assistant.uploads import MAX_UPLOAD_BYTES, read_uploads

    line = "服务器日志：NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n"
    path = tmp_path / "big.log"
    data = (line * (MAX_UPLOAD_BYTES // len(line.encode()) + 10)).encode("utf-8")
    path.write_bytes(data)
    assert len(data) > MAX_UPLOAD_BYTES
    uploaded = read_uploads(str(path))
    assert uploaded.truncated and uploaded.text.startswith("服务器日志")


# ------------------------------------------------------------------ 10,000 lines: linear time, bounded memory


def test_ten_thousand_line_log_bounded_time_and_memory():
    from tools.diagnosis.tool import diagnose_text

    log = ten_thousand_line_log()
    assert log.count("\n") == 9_999
    quarter = "\n".join(log.split("\n")[:2_500])
    diagnose_text(quarter)  # imports and regex compilation are not part of the measurement
    # 4x the lines must cost ~4x, not ~16x (a per-line pass over the whole paste would)
    assert_scales_linearly(lambda: diagnose_text(quarter), lambda: diagnose_text(log), what="diagnose 10,000 lines")
    tracemalloc.start()
    try:
        report = diagnose_text(log)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 200e6, f"peak Python allocations {peak / 1e6:.0f} MB"
    # the content is still understood, not just survived
    assert {"nvidia_smi_table", "kernel_log"} <= set(report.kinds)
    assert 79 in [x.code for x in report.xids]
    assert report.severity == "critical"
    # evidence stays capped: a long paste cannot flood the report
    assert len(report.model_dump_json()) < 200_000


def test_ten_thousand_line_log_through_the_offline_advisor_is_bounded():
    from assistant.advisor import ask
    from assistant.offline.reading.slots import _extract_cached

    def answer(question: str) -> None:  # the slot extractor memoises per question: time the real work
        _extract_cached.cache_clear()
        ask(question)

    log = ten_thousand_line_log()
    full = "帮我看看这个日志：\n" + log[: PAGE_MAX_CHARS - 100]
    quarter = "帮我看看这个日志：\n" + log[: (PAGE_MAX_CHARS - 100) // 4]
    answer(quarter)  # warm-up (imports, agent build, the diagnosis' regexes)
    # the whole answer (slots, planner, diagnosis, rendering) scales ~linearly with the paste
    assert_scales_linearly(lambda: answer(quarter), lambda: answer(full), what="offline advisor on a long log")
    result = ask(full)
    names = [c.name for c in result.tool_calls]
    assert "diagnose_logs" in names
    assert names.count("diagnose_logs") == 1, names  # the paste is diagnosed once, not once per step
    assert result.language == "zh"


# ------------------------------------------------------------------ ANSI colours and CRLF change nothing


def _decorate(text: str) -> str:
    """What a Windows terminal copy of a coloured log looks like."""
    out = []
    for i, line in enumerate(text.split("\n")):
        if i % 3 == 0:
            line = f"\x1b[1;31m{line}\x1b[0m"
        elif i % 3 == 1:
            line = f"\x1b[32m{line[:5]}\x1b[0m{line[5:]}"
        out.append(line)
    return "\ufeff" + "\r\n".join(out) + "\r\n"


@pytest.mark.parametrize(
    "name",
    [
        "smi_535_ecc_nonzero.txt",
        "dmesg_xid79_after_aer_surprise_down.txt",
        "nccl_tests_8xa100_nvlink_not_used.txt",
        "q_550_remap_failure.txt",
        "topo_8xa100_nv12_tabs.txt",
    ],
)
def test_ansi_and_crlf_do_not_change_the_diagnosis(name):
    from tools.diagnosis.tool import diagnose_text

    plain = diagnose_text(_sample(name))
    noisy = diagnose_text(_decorate(_sample(name)))
    assert plain.kinds == noisy.kinds
    assert [f.id for f in plain.findings] == [f.id for f in noisy.findings]
    assert plain.severity == noisy.severity
    assert [x.code for x in plain.xids] == [x.code for x in noisy.xids]
    assert "\x1b" not in noisy.model_dump_json() and "\r" not in json.dumps([f.evidence for f in noisy.findings])


# ------------------------------------------------------------------ bytes: binary, invalid UTF-8, GBK


def test_binary_file_through_the_cli_is_refused_bilingually(tmp_path):
    path = tmp_path / "nvidia-bug-report.log.gz"
    path.write_bytes(bytes(range(256)) * 40)
    argv = ["diagnose", str(path)]
    code, out, err = invoke(argv)
    check_outcome(argv, code, out, err)
    assert code == 2 and "binary" in err


def test_gbk_encoded_log_is_read_as_chinese(tmp_path):
    text = "服务器日志如下：\n" + _sample("dmesg_xid79_after_aer_surprise_down.txt")
    path = tmp_path / "gbk.log"
    path.write_bytes(text.encode("gbk"))
    argv = ["diagnose", "--json", str(path)]
    code, out, err = invoke(argv)
    check_outcome(argv, code, out, err)
    assert code == 0
    report = json.loads(out.splitlines()[0])
    assert 79 in [x["code"] for x in report["xids"]]


def test_invalid_utf8_log_still_diagnoses(tmp_path):
    good = _sample("dmesg_xid79_after_aer_surprise_down.txt").encode("utf-8")
    # a few stray bytes that are neither UTF-8 nor GB18030 (\xff is invalid in both)
    data = good.replace(b"\n", b"\n\xff\xfe", 3)
    path = tmp_path / "mixed.log"
    path.write_bytes(data)
    argv = ["diagnose", "--json", str(path)]
    code, out, err = invoke(argv)
    check_outcome(argv, code, out, err)
    assert code == 0
    assert 79 in [x["code"] for x in json.loads(out.splitlines()[0])["xids"]]


def _ask_lines(stdin: bytes) -> list[dict]:
    argv = ["ask", "-"]
    code, out, err = invoke(argv, stdin=stdin)
    check_outcome(argv, code, out, err)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_ask_stdin_gbk_question_is_understood():
    results = _ask_lines("能用4090全量训练7B吗\n".encode("gbk"))
    assert len(results) == 1
    assert results[0]["language"] == "zh"
    assert "estimate_memory" in [c["name"] for c in results[0]["tool_calls"]]


def test_ask_cli_oversized_question_exits_2_bilingually():
    argv = ["ask", "能用4090全量训练7B吗 " + "x" * (PAGE_MAX_CHARS + 10)]
    code, out, err = invoke(argv)
    check_outcome(argv[:1], code, out, err)
    assert code == 2 and "200,000" in err


def test_ask_stdin_invalid_utf8_and_binary_never_traceback():
    stdin = (
        b"how much is an A100 per month? \xff\xfe\n"
        b"\x00\x01\x02\x03\x04 binary \x80\x81\n"
        + "A100一个月多少钱\n".encode("gbk")
        + b"\x1b[31mA100 price\x1b[0m\r\n"
    )
    results = _ask_lines(stdin)
    assert len(results) == 4
    assert all(r["answer"] for r in results)
    assert "gpu_price" in [c["name"] for c in results[2]["tool_calls"]]


@pytest.mark.slow
def test_search_cli_huge_query_is_bounded(tmp_path):
    import os
    import subprocess
    import sys

    words = ["掉卡"] * 100_000  # 100,000 arguments: ~300,000 characters once joined
    env = {**os.environ, "GPU_ADVISOR_HOME": str(tmp_path), "PYTHONIOENCODING": "utf-8"}
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "assistant.cli", "search", *words],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD_S,  # a hang guard (cold start builds the index), not a speed target
            cwd=ROOT,
            env=env,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`gpu-advisor search` with a 300,000-character query hung (no exit in {HANG_GUARD_S:g} s)")
    check_outcome(["search", "…"], proc.returncode, proc.stdout, proc.stderr)
    # "bounded" is behaviour: the query is cut to the tool's 2,000 characters before it is searched
    assert proc.returncode == 0, proc.stderr
    assert "299,999" in proc.stdout + proc.stderr and "2,000" in proc.stdout + proc.stderr


# ------------------------------------------------------------------ the page's Diagnose tab


def test_page_diagnose_tab_escapes_html_from_the_paste():
    """Evidence lines are quoted from the paste: markup in them must arrive as text, not as HTML."""
    from assistant.web import app

    evil = (
        "[Tue Mar  3 11:02:15 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid='<script>alert(1)</script>', "
        "name=<img src=x onerror=alert(2)>, GPU has fallen off the bus."
    )
    out = app.diagnose(evil, None, "", "English")
    assert "79" in out
    assert "<script" not in out.lower() and "<img" not in out.lower()
    assert "&lt;script&gt;" in out or "&lt;img" in out, "the evidence line should still be shown, escaped"


@pytest.mark.parametrize(
    "paste,needle",
    [
        ("\x00\x01\x02\x03\x04\x05\x06" * 2000, "binary"),
        ("dmesg line\n" * (DIAG_MAX_LINES + 1), "20,000"),
    ],
)
def test_page_diagnose_tab_shows_a_bilingual_error(paste, needle):
    from assistant.web import app

    for label in ("中文", "English"):
        out = app.diagnose(paste, None, "", label)
        assert "ga-error" in out and "Traceback" not in out
        if label == "English":
            assert needle in out
        else:
            assert CJK.search(out)
