"""Parser and input-limit figures (`make bench`): the absolute speed targets that used to sit in
unit tests (tests/test_hostile_input.py, tests/test_fuzz_parsers.py) live here, printed, never
asserted in the suite — machines are shared and noisy. The unit tests keep in-run scaling ratios
and behaviour bounds (tests/scaling.py); this script reports what a user would wait.

| figure | former unit-test bound |
| --- | --- |
| diagnose a 10,000-line log (best of 3), tracemalloc peak | < 5 s, < 200 MB |
| worst crafted pathological line, 200 lines x 4,000 characters | < 8 s |
| slot extractor on a 200,000-character question | < 20 s |
| offline advisor on a 200,000-character log paste | < 15 s |
| an oversized question / paste refused | < 1 s / < 2 s |

Usage: .venv/bin/python benchmarks/bench_parsers.py [--json]
With --json the last line is {"rows": [[figure, value, note], ...]} for benchmarks/run_all.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SAMPLES = ROOT / "tests" / "diagnosis_samples"
LOG_PARTS = [  # a realistic long paste: nvidia-smi, dmesg with Xid/AER, NCCL and nccl-tests lines
    "smi_535_8xa100_idle.txt",
    "dmesg_xid79_after_aer_surprise_down.txt",
    "nccl_socket_fallback_no_ib.txt",
    "nccl_tests_8xa100_good.txt",
    "dmesg_aer_correctable_burst.txt",
]
PATHOLOGICAL = {  # long runs of what log regexes look for (the unit test has the full list)
    "spaces": " " * 3999 + "x",
    "pipes": "|" * 4000,
    "one-dot": "1." * 2000,
    "xid-zeros": "NVRM: Xid (PCI:" + "0" * 3980,
    "nccl-a": "NCCL INFO " + "a " * 1990,
    "mib": "MiB / " * 600,
    "table-ones": "| " + "1 " * 1995 + "|",
    "ansi": "\x1b[" + "1;" * 1995,
    "hashes": "#" * 3000 + " size count type",
}


def long_log(lines: int = 10_000) -> str:
    parts = "\n".join((SAMPLES / name).read_text(encoding="utf-8") for name in LOG_PARTS).split("\n")
    out: list[str] = []
    while len(out) < lines:
        out += parts
    return "\n".join(out[:lines])


def best_ms(fn: Callable[[], Any], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def _refused(fn: Callable[[], Any]) -> Callable[[], None]:
    from tools.errors import ToolInputError

    def run() -> None:
        try:
            fn()
        except ToolInputError:
            return
        raise AssertionError("oversized input was accepted")

    return run


def measure() -> list[tuple[str, str, str]]:
    from assistant.advisor import MAX_QUESTION_CHARS, ask
    from assistant.offline.reading.slots import _extract_cached, extract
    from tools.diagnosis.text import MAX_CHARS
    from tools.diagnosis.tool import diagnose_text

    rows: list[tuple[str, str, str]] = []
    log = long_log()
    diagnose_text(log[:2000])  # imports, regex compilation
    ms = best_ms(lambda: diagnose_text(log))
    tracemalloc.start()
    try:
        diagnose_text(log)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    rows.append(
        ("diagnose 10,000-line log", f"{ms:.0f} ms", f"best of 3; tracemalloc peak {peak / 1e6:.0f} MB; was < 5 s")
    )

    worst_name, worst = "", 0.0
    for name, line in PATHOLOGICAL.items():
        text = "\n".join([line] * 200)
        took = best_ms(_refused_or_ok(diagnose_text, text), repeat=1)
        if took > worst:
            worst_name, worst = name, took
    rows.append(("worst pathological line x200", f"{worst:.0f} ms", f"{worst_name}; 200 x 4,000 chars; was < 8 s"))

    def uncached(fn: Callable[[str], Any], text: str) -> Callable[[], None]:
        def run() -> None:  # the slot extractor memoises per question: time the real work
            _extract_cached.cache_clear()
            fn(text)

        return run

    question = ("能用4090全量训练7B吗 " * 20_000)[:200_000]
    extract(question[:1000])
    ms = best_ms(uncached(extract, question))
    rows.append(("slot extractor, 200,000 chars", f"{ms:.0f} ms", "best of 3, uncached; was < 20 s"))

    ask("能用4090全量训练7B吗")  # agent build
    paste = "帮我看看这个日志：\n" + log[: MAX_QUESTION_CHARS - 100]
    ms = best_ms(uncached(ask, paste))
    rows.append(("offline advisor, 200,000-char log", f"{ms:.0f} ms", "best of 3, uncached slots; was < 15 s"))

    too_long = "能用4090全量训练7B吗 " + "x" * (MAX_QUESTION_CHARS * 5)
    big_paste = "a" * (MAX_CHARS + 1)
    rows.append(
        (
            "oversized question / paste refused",
            f"{best_ms(_refused(lambda: ask(too_long))):.1f} / {best_ms(_refused(lambda: diagnose_text(big_paste))):.1f} ms",
            "1,000,000-char question, 2,000,001-char paste; was < 1 s / < 2 s",
        )
    )
    return rows


def _refused_or_ok(fn: Callable[..., Any], *args: Any) -> Callable[[], None]:
    from tools.errors import ToolInputError

    def run() -> None:
        try:
            fn(*args)
        except ToolInputError:
            pass

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="end with one JSON line of rows for run_all.py")
    args = parser.parse_args()
    rows = measure()
    for figure, value, note in rows:
        print(f"{figure}: {value} ({note})")
    if args.json:
        print(json.dumps({"rows": [list(r) for r in rows]}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
