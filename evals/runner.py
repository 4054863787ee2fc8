"""Run eval cases against the advisor and build a scorecard.

`run_suite(cases, ask_fn=...)` calls `ask(question, history=..., backend=...)` for every user
turn (follow-ups get the earlier turns as history), scores each case, and summarises by
category and language with latency percentiles. An LLM back-end can take seconds per answer,
so cases can run in a bounded thread pool and a tqdm bar (stderr) shows progress.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from evals.schema import Case
from evals.scorers import CaseScore, Check, result_dict, score_case
from evals.usage import count_model_calls, usage_dict

AskFn = Callable[..., Any]


def default_ask() -> AskFn:
    """The real advisor (imported only when a suite runs)."""
    from assistant.advisor import ask

    return ask


def _usage_of(res: dict[str, Any]) -> dict[str, float]:
    """Model round trips and tokens, when the back-end reports them (offline reports none)."""
    out: dict[str, float] = {}
    usage = res.get("usage") or {}
    if isinstance(usage, dict):
        for k in ("prompt_tokens", "completion_tokens", "total_tokens", "input_tokens", "output_tokens"):
            if isinstance(usage.get(k), (int, float)):
                out[k] = float(usage[k])
        if "total_tokens" not in out and ("input_tokens" in out or "output_tokens" in out):
            out["total_tokens"] = out.get("input_tokens", 0.0) + out.get("output_tokens", 0.0)
    for k in ("round_trips", "model_calls", "llm_calls"):
        if isinstance(res.get(k), (int, float)):
            out["round_trips"] = float(res[k])
    return out


def run_case(case: Case, ask_fn: AskFn, *, backend: str | None = None) -> CaseScore:
    history: list[dict[str, str]] = []
    results: list[Any] = []
    latencies: list[float] = []
    usage: dict[str, float] = defaultdict(float)
    fallbacks = 0
    try:
        for turn in case.user_turns():
            t0 = time.perf_counter()
            with count_model_calls() as counter:
                res = ask_fn(turn.question, history=list(history), backend=backend)
            wall_ms = (time.perf_counter() - t0) * 1000
            d = result_dict(res)
            latencies.append(float(d.get("latency_ms") or wall_ms))
            # figures the result reports itself win over what the callback counted
            for k, v in {**usage_dict(counter), **_usage_of(d)}.items():
                usage[k] += v
            if "fallback" in str(d.get("backend") or ""):
                fallbacks += 1
            results.append(d)
            history += [
                {"role": "user", "content": turn.question},
                {"role": "assistant", "content": d.get("answer") or ""},
            ]
        checks = score_case(case, results)
        error = None
    except Exception as exc:  # the advisor crashed: a failed case, reported with its traceback tail
        checks = [Check("no_exception", False, "an answer", f"{type(exc).__name__}: {exc}")]
        error = "".join(traceback.format_exception(exc)[-3:])[-1500:]
    answer = (results[-1].get("answer") if results else "") or ""
    score = CaseScore(
        case_id=case.id,
        category=case.category,
        language=case.language,
        passed=all(c.ok for c in checks),
        checks=checks,
        latency_ms=latencies[-1] if latencies else None,
        error=error,
        answer=answer,
    )
    score.usage = dict(usage)
    score.usage["answers"] = len(results)
    score.usage["fallbacks"] = fallbacks
    score.usage["latencies_ms"] = latencies
    return score


def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..100); None for no data."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


@dataclass
class SuiteReport:
    scores: list[CaseScore]
    backend: str
    started_at: str
    duration_s: float
    cases_path: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return len(self.scores)

    @property
    def passed(self) -> int:
        return sum(s.passed for s in self.scores)

    @property
    def pass_rate(self) -> float:
        return self.passed / self.total if self.total else 0.0

    def _group(self, key: str) -> dict[str, dict[str, Any]]:
        groups: dict[str, list[CaseScore]] = defaultdict(list)
        for s in self.scores:
            groups[getattr(s, key)].append(s)
        return {
            k: {
                "total": len(v),
                "passed": sum(x.passed for x in v),
                "pass_rate": round(sum(x.passed for x in v) / len(v), 4),
            }
            for k, v in sorted(groups.items())
        }

    def to_dict(self, *, questions: dict[str, str] | None = None) -> dict[str, Any]:
        lat = [ms for s in self.scores for ms in s.usage.get("latencies_ms", [])]
        answers = sum(int(s.usage.get("answers", 0)) for s in self.scores)
        llm: dict[str, Any] = {
            "answers": answers,
            "fallbacks": sum(int(s.usage.get("fallbacks", 0)) for s in self.scores),
        }
        for k in ("round_trips", "total_tokens", "prompt_tokens", "completion_tokens"):
            vals = [float(s.usage[k]) for s in self.scores if k in s.usage]
            if vals and answers:
                llm[f"{k}_per_answer"] = round(sum(vals) / answers, 2)
        failures = []
        for s in self.scores:
            if s.passed:
                continue
            failures.append(
                {
                    "id": s.case_id,
                    "category": s.category,
                    "language": s.language,
                    "question": (questions or {}).get(s.case_id, ""),
                    "failed_checks": [c.to_dict() for c in s.failures()],
                    "error": s.error,
                    "answer": s.answer[:1200],
                }
            )
        return {
            "total": self.total,
            "passed": self.passed,
            "pass_rate": round(self.pass_rate, 4),
            "by_category": self._group("category"),
            "by_language": self._group("language"),
            "failures": failures,
            "latency_ms": {
                "p50": _r(percentile(lat, 50)),
                "p95": _r(percentile(lat, 95)),
                "mean": _r(sum(lat) / len(lat)) if lat else None,
            },
            "backend": self.backend,
            "llm": llm,
            "started_at": self.started_at,
            "duration_s": round(self.duration_s, 2),
            "cases_path": self.cases_path,
        }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 1)


def run_suite(
    cases: list[Case],
    *,
    ask_fn: AskFn | None = None,
    backend: str | None = None,
    concurrency: int = 1,
    progress: bool = True,
    cases_path: str = "",
) -> SuiteReport:
    """Run every case (in a bounded pool when concurrency > 1) and return the report."""
    ask_fn = ask_fn or default_ask()
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(cases), desc="eval", unit="case", file=sys.stderr, leave=False)
    scores: list[CaseScore | None] = [None] * len(cases)

    def work(i: int) -> None:
        scores[i] = run_case(cases[i], ask_fn, backend=backend)
        if bar is not None:
            bar.update(1)

    try:
        if concurrency <= 1:
            for i in range(len(cases)):
                work(i)
        else:
            with ThreadPoolExecutor(max_workers=concurrency) as pool:
                list(pool.map(work, range(len(cases))))
    finally:
        if bar is not None:
            bar.close()
    return SuiteReport(
        scores=[s for s in scores if s is not None],
        backend=backend or "offline",
        started_at=started,
        duration_s=time.perf_counter() - t0,
        cases_path=cases_path,
    )


# --------------------------------------------------------------------------- reports


def markdown_report(summary: dict[str, Any]) -> str:
    lines = [
        "# Eval report · 评测报告",
        "",
        f"- backend: `{summary['backend']}` · started {summary['started_at']} · {summary['duration_s']} s",
        f"- **passed {summary['passed']} / {summary['total']} ({summary['pass_rate']:.1%})**",
        f"- latency p50 {summary['latency_ms']['p50']} ms · p95 {summary['latency_ms']['p95']} ms",
    ]
    llm = summary.get("llm") or {}
    extras = ", ".join(f"{k} {v}" for k, v in llm.items())
    if extras:
        lines.append(f"- model usage: {extras}")
    for title, key in (("By category · 按类别", "by_category"), ("By language · 按语言", "by_language")):
        lines += ["", f"## {title}", "", "| group | passed | total | pass rate |", "| --- | ---: | ---: | ---: |"]
        for k, v in summary[key].items():
            lines.append(f"| {k} | {v['passed']} | {v['total']} | {v['pass_rate']:.1%} |")
    lines += ["", f"## Failures · 未通过 ({len(summary['failures'])})", ""]
    for f in summary["failures"]:
        lines.append(f"### `{f['id']}` ({f['category']}, {f['language']})")
        if f.get("question"):
            q = f["question"].replace("\n", " ")
            lines.append(f"> {q[:300]}")
        lines.append("")
        lines.append("| check | expected | got |")
        lines.append("| --- | --- | --- |")
        for c in f["failed_checks"]:
            lines.append(f"| {c['check']} | {_md(c['expected'])} | {_md(c['got'])} |")
        if f.get("error"):
            lines += ["", "````", f["error"].strip(), "````"]
        if f.get("answer"):
            lines += ["", "<details><summary>answer</summary>", "", "````", f["answer"][:800], "````", "</details>"]
        lines.append("")
    return "\n".join(lines) + "\n"


def _md(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")[:300]


def write_reports(summary: dict[str, Any], out_dir: str | Path) -> tuple[Path, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    j = out / "eval_report.json"
    m = out / "eval_report.md"
    j.write_text(json.dumps(summary, ensure_ascii=False, indent=2), encoding="utf-8")
    m.write_text(markdown_report(summary), encoding="utf-8")
    return j, m
