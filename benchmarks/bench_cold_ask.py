"""Cold `gpu-advisor ask` against cold `gpu-advisor estimate`, timed in pairs (issue 16: ask ≤ 5× estimate).

Each run is a fresh process, started in turn — ask, estimate, ask, estimate … — so a machine that
speeds up or slows down during the benchmark moves both sides of a pair alike; the ratio is taken
pair by pair and its median reported. Timer: time.perf_counter around subprocess.run (the whole
process: interpreter start, imports, the answer, exit).

Usage: .venv/bin/python benchmarks/bench_cold_ask.py [--pairs 7] [--question "能用4090全量训练7B吗"]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 5.0


def _cli() -> list[str]:
    exe = ROOT / ".venv" / "bin" / "gpu-advisor"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "assistant.cli"]


def _time(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s = user + system of the child): CPU time barely moves when other work shares
    the cores, so its ratio is the steadier figure on a busy machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--question", default="能用4090全量训练7B吗")
    args = ap.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    ask = [*_cli(), "ask", "--plain", args.question]
    estimate = [*_cli(), "estimate", "--params", "7B", "--mode", "full", "--json"]
    _time(ask, env), _time(estimate, env)  # warm the OS file cache and the persisted indexes once
    asks, estimates, ratios, cpu_ratios = [], [], [], []
    for _ in range(args.pairs):
        (a, a_cpu), (e, e_cpu) = _time(ask, env), _time(estimate, env)
        asks.append(a)
        estimates.append(e)
        ratios.append(a / e)
        cpu_ratios.append(a_cpu / e_cpu)
    ratio = statistics.median(ratios)
    print(
        f"cold ask median {statistics.median(asks) * 1000:.0f} ms (min {min(asks) * 1000:.0f}, max {max(asks) * 1000:.0f}); "
        f"cold estimate median {statistics.median(estimates) * 1000:.0f} ms; "
        f"ratio median {ratio:.2f} over {args.pairs} pairs (min {min(ratios):.2f}, max {max(ratios):.2f}); "
        f"cpu ratio median {statistics.median(cpu_ratios):.2f}; "
        f"target ≤ {TARGET_RATIO:g} → {'OK' if ratio <= TARGET_RATIO else 'SLOW'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
