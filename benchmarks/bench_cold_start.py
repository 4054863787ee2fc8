"""Median cold-start time of `gpu-advisor estimate --params 7B --mode full --json` (target < 0.5 s).

Each run is a fresh Python process, so it measures imports + one estimate, the way a shell user or
the evals see it. Usage: .venv/bin/python benchmarks/bench_cold_start.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 0.5


def _command() -> list[str]:
    exe = ROOT / ".venv" / "bin" / "gpu-advisor"
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "assistant.cli"]
    return base + ["estimate", "--params", "7B", "--mode", "full", "--json"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    cmd = _command()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, check=True)  # warm the OS file cache once
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        json.loads(proc.stdout)
    median = statistics.median(times)
    print(
        f"gpu-advisor estimate cold start: median {median * 1000:.0f} ms over {args.runs} runs "
        f"(min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms); target < {TARGET_S * 1000:.0f} ms "
        f"→ {'OK' if median < TARGET_S else 'SLOW'}"
    )
    return 0 if median < TARGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
