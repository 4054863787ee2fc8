"""Run every benchmark and print ONE table (`make bench`).

Each benchmark runs as its own subprocess (a cold interpreter, the way a user meets it); its printed
figures are parsed, its wall time and peak RSS (os.wait4 rusage: the process and the children it
waited for) are recorded. Figures are printed, never asserted: compare ratios within one run —
absolute numbers depend on the machine and on whatever else shares its cores.

| row | script |
| --- | --- |
| `estimate` cold start | benchmarks/bench_cold_start.py |
| cold `ask` vs cold `estimate` (paired ratio) | benchmarks/bench_cold_ask.py |
| offline answer p50/p95 | benchmarks/bench_advisor.py |
| retrieval p50/p95, index build | benchmarks/bench_retrieval.py --json |
| page reply p50/p95 under 20 and 50 concurrent sessions, server peak RSS | benchmarks/bench_page_load.py |
| eval suite time and pass rate | gpu-advisor eval --json |
| 50-session load, then a 1,000-question soak: RSS curve flat? | benchmarks/bench_soak.py --json |

Usage: .venv/bin/python benchmarks/run_all.py [--quick] [--no-soak] [--only NAME ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
BENCH = ROOT / "benchmarks"


@dataclass
class Step:
    name: str
    argv: list[str]
    parse: Callable[[str], list[tuple[str, str, str]]]  # stdout → rows (figure, value, note)
    timeout: float = 1800.0
    wall_figure: str | None = None  # also report the step's own wall time as a figure


@dataclass
class Outcome:
    name: str
    rows: list[tuple[str, str, str]] = field(default_factory=list)
    wall_s: float = 0.0
    peak_rss_mb: float = 0.0
    exit_code: int = 0
    error: str = ""


def run_step(step: Step, env: dict[str, str]) -> Outcome:
    """Run one benchmark; stdout/stderr go to temp files so os.wait4 can reap it and report its peak RSS."""
    out = Outcome(step.name)
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        t0 = time.perf_counter()
        proc = subprocess.Popen(step.argv, cwd=ROOT, env=env, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL)
        deadline = t0 + step.timeout
        status, usage = 0, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                out.error = f"timed out after {step.timeout:.0f} s"
                break
            time.sleep(0.1)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.wall_s = time.perf_counter() - t0
        out.peak_rss_mb = usage.ru_maxrss / 1024 if usage else 0.0  # Linux: kilobytes
        out.exit_code = proc.returncode
        fo.seek(0)
        fe.seek(0)
        stdout = fo.read().decode("utf-8", "replace")
        stderr = fe.read().decode("utf-8", "replace")
    try:
        out.rows = step.parse(stdout)
    except Exception as exc:  # noqa: BLE001 — a benchmark that printed something unexpected is reported
        out.error = out.error or f"could not parse output ({type(exc).__name__}: {exc})"
    if step.wall_figure and out.rows:
        out.rows.insert(0, (step.wall_figure, f"{out.wall_s:.1f} s", "one cold process, imports included"))
    if not out.rows and not out.error:
        out.error = f"exit {out.exit_code}: " + (stderr.strip().splitlines() or ["no output"])[-1][:200]
    return out


def _num(pattern: str, text: str, cast: Callable[[str], Any] = float) -> Any:
    m = re.search(pattern, text)
    if not m:
        raise ValueError(f"pattern {pattern!r} not found")
    return cast(m.group(1))


# ------------------------------------------------------------------ parsers, one per script


def parse_cold_start(text: str) -> list[tuple[str, str, str]]:
    median = _num(r"median (\d+) ms", text, int)
    lo, hi = _num(r"min (\d+) ms", text, int), _num(r"max (\d+) ms", text, int)
    return [("estimate cold start (median)", f"{median} ms", f"min {lo} / max {hi} ms; target < 500 ms")]


def parse_cold_ask(text: str) -> list[tuple[str, str, str]]:
    ask = _num(r"cold ask median (\d+) ms", text, int)
    est = _num(r"cold estimate median (\d+) ms", text, int)
    ratio = _num(r"; ratio median ([\d.]+)", text)
    pairs = _num(r"over (\d+) pairs", text, int)
    cpu = _num(r"cpu ratio median ([\d.]+)", text)
    return [
        (
            "cold ask / cold estimate (paired)",
            f"{ratio:.2f}× wall, {cpu:.2f}× CPU",
            f"ask {ask} ms vs estimate {est} ms, median of {pairs} pairs, warm home; target ≤ 5× and ≤ 2 s",
        ),
    ]


def parse_advisor(text: str) -> list[tuple[str, str, str]]:
    p50 = _num(r"p50 ([\d.]+) ·", text)
    p95 = _num(r"p95 ([\d.]+) ·", text)
    n = _num(r"offline: (\d+) questions", text, int)
    grounded = re.search(r"grounded: (\d+)/(\d+)", text)
    rows = [
        (
            "offline answer p50 / p95",
            f"{p50:.1f} / {p95:.1f} ms",
            f"{n} questions in-process after warm-up; target p95 < 100 ms"
            + (f"; grounded {grounded.group(1)}/{grounded.group(2)}" if grounded else ""),
        )
    ]
    trips = re.findall(r"stub (\S+)\s+(\S+)\s*: round trips/question mean ([\d.]+) max (\d+)", text)
    if trips:
        worst = max(float(t[2]) for t in trips)
        rows.append(
            (
                "LLM round trips / question (stub)",
                f"≤ {worst:.2f} mean",
                ", ".join(f"{m}/{mode} {mean}" for m, mode, mean, _ in trips),
            )
        )
    return rows


def parse_retrieval(text: str) -> list[tuple[str, str, str]]:
    data = json.loads([line for line in text.splitlines() if line.startswith("{")][-1])
    return [
        (
            "retrieval query p50 / p95",
            f"{data['query_p50_ms']:.2f} / {data['query_p95_ms']:.2f} ms",
            f"{data.get('backend', '')}, {data.get('documents', '?')} documents",
        ),
        (
            "index build (cold)",
            f"{data['index_build_cold_s'] * 1000:.0f} ms",
            f"warm open {data['index_open_warm_s'] * 1000:.0f} ms",
        ),
    ]


def parse_page(sessions: int) -> Callable[[str], list[tuple[str, str, str]]]:
    def parse(text: str) -> list[tuple[str, str, str]]:
        errors = _num(r"errors=(\d+)", text, int)
        n = _num(r"questions=(\d+)", text, int)
        p50, p95 = _num(r"p50=(\d+) ms", text, int), _num(r"p95=(\d+) ms", text, int)
        rows = [(f"page reply p50 / p95 ({sessions} sessions)", f"{p50} / {p95} ms", f"{n} replies, errors={errors}")]
        m = re.search(r"server peak RSS=(\d+) MB", text)
        if m:
            rows.append((f"page server peak RSS ({sessions} sessions)", f"{m.group(1)} MB", "VmHWM"))
        return rows

    return parse


def parse_eval(text: str) -> list[tuple[str, str, str]]:
    data = json.loads([line for line in text.splitlines() if line.startswith("{")][-1])
    return [("eval suite", f"{data['passed']}/{data['total']} passed", f"pass rate {data['pass_rate']:.1%}")]


def parse_soak(text: str) -> list[tuple[str, str, str]]:
    d = json.loads([line for line in text.splitlines() if line.startswith("{")][-1])
    curve = " ".join(f"{n}:{mb:.0f}" for n, mb in d["rss_curve_mb"])
    return [
        (
            f"page load p50 / p95 ({d['sessions']} sessions)",
            f"{d['load_p50_ms']:.0f} / {d['load_p95_ms']:.0f} ms",
            f"errors={d['load_errors']}",
        ),
        (
            f"soak p50 / p95 ({d['soak_questions']} questions)",
            f"{d['soak_p50_ms']:.0f} / {d['soak_p95_ms']:.0f} ms",
            f"errors={d['soak_errors']}",
        ),
        (
            "soak server RSS last / first",
            f"{d['rss_last_over_first']:.3f}",
            f"{'flat' if d['flat'] else 'GROWING'}; MB by question: {curve}; peak {d['rss_peak_mb']:.0f} MB",
        ),
    ]


def steps(quick: bool, soak: bool) -> list[Step]:
    exe = ROOT / ".venv" / "bin" / "gpu-advisor"
    cli = [str(exe)] if exe.exists() else [PY, "-m", "assistant.cli"]
    q = 2 if quick else 3
    out = [
        Step(
            "cold_start", [PY, str(BENCH / "bench_cold_start.py"), "--runs", "3" if quick else "10"], parse_cold_start
        ),
        Step("cold_ask", [PY, str(BENCH / "bench_cold_ask.py"), "--pairs", "3" if quick else "10"], parse_cold_ask),
        Step("advisor", [PY, str(BENCH / "bench_advisor.py")], parse_advisor),
        Step(
            "parsers",
            [PY, str(BENCH / "bench_parsers.py"), "--json"],
            lambda t: [tuple(r) for r in json.loads(t.strip().splitlines()[-1])["rows"]],
        ),
        Step(
            "retrieval",
            [PY, str(BENCH / "bench_retrieval.py"), "--json", "--rounds", "1" if quick else "3"],
            parse_retrieval,
        ),
        Step(
            "page_20",
            [PY, str(BENCH / "bench_page_load.py"), "--sessions", "20", "--questions", str(q)],
            parse_page(20),
        ),
        Step(
            "page_50",
            [PY, str(BENCH / "bench_page_load.py"), "--sessions", "50", "--questions", str(q)],
            parse_page(50),
        ),
        Step(
            "eval",
            [*cli, "eval", "--json", "--no-progress", "--min-pass-rate", "0"],
            parse_eval,
            wall_figure="eval suite time",
        ),
    ]
    if soak:
        out.append(
            Step(
                "soak",
                [PY, str(BENCH / "bench_soak.py"), "--json", "--questions", "300" if quick else "1000"],
                parse_soak,
                timeout=3600,
            )
        )
    return out


def render(outcomes: list[Outcome]) -> str:
    header = ("benchmark", "figure", "value", "wall", "peak RSS", "notes")
    rows: list[tuple[str, ...]] = []
    for o in outcomes:
        wall, rss = f"{o.wall_s:.1f} s", f"{o.peak_rss_mb:.0f} MB"
        if o.error:
            rows.append((o.name, "ERROR", o.error[:60], wall, rss, ""))
        for i, (fig, val, note) in enumerate(o.rows):
            rows.append(
                (
                    o.name if i == 0 and not o.error else "",
                    fig,
                    val,
                    wall if i == 0 else "",
                    rss if i == 0 else "",
                    note,
                )
            )
    peak = max((o for o in outcomes), key=lambda o: o.peak_rss_mb, default=None)
    if peak is not None:
        rows.append(
            (
                "(all)",
                "peak memory of any benchmark process",
                f"{peak.peak_rss_mb:.0f} MB",
                "",
                "",
                f"in {peak.name}; the page server's own peak is in the page rows",
            )
        )
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    widths[-1] = min(widths[-1], 110)

    def fmt(r: tuple[str, ...]) -> str:
        return " | ".join(str(c) if i == len(r) - 1 else str(c).ljust(widths[i]) for i, c in enumerate(r)).rstrip()

    sep = "-+-".join("-" * w for w in widths)
    return "\n".join([fmt(header), sep, *(fmt(r) for r in rows)])


def main() -> int:
    ap = argparse.ArgumentParser(description="run every benchmark, print one table")
    ap.add_argument("--quick", action="store_true", help="fewer runs and questions (a smoke run)")
    ap.add_argument("--no-soak", action="store_true", help="skip the 1,000-question soak (~1–3 minutes)")
    ap.add_argument(
        "--only",
        nargs="*",
        default=None,
        help="run only these steps (cold_start cold_ask advisor retrieval page_20 page_50 eval soak)",
    )
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = ap.parse_args()
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "GRADIO_ANALYTICS_ENABLED": "False",
        "ANONYMIZED_TELEMETRY": "False",
        "PYTHONIOENCODING": "utf-8",
    }
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GPU_ADVISOR_BACKEND"):
        env.pop(var, None)
    todo = steps(args.quick, not args.no_soak)
    if args.only:
        todo = [s for s in todo if s.name in args.only]
    outcomes: list[Outcome] = []
    for step in todo:
        print(f"… {step.name}", file=sys.stderr, flush=True)
        outcomes.append(run_step(step, env))
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "name": o.name,
                        "rows": o.rows,
                        "wall_s": round(o.wall_s, 2),
                        "peak_rss_mb": round(o.peak_rss_mb, 1),
                        "exit_code": o.exit_code,
                        "error": o.error,
                    }
                    for o in outcomes
                ],
                ensure_ascii=False,
            )
        )
    else:
        print(
            f"GPU Advisor benchmarks · {time.strftime('%Y-%m-%d %H:%M:%S %Z')} · {os.cpu_count()} CPUs"
            + (" · quick" if args.quick else "")
        )
        print(render(outcomes))
    return 1 if any(o.error for o in outcomes) else 0


if __name__ == "__main__":
    raise SystemExit(main())
