"""Cold `gpu-advisor ask` against cold `gpu-advisor estimate`, timed in pairs (issue 16: ask ≤ 5× estimate,
and at most ~2 s).

Each run is a fresh process, started in turn — ask, estimate, ask, estimate … — so a machine that
speeds up or slows down during the benchmark moves both sides of a pair alike; the ratio is taken
pair by pair and its median reported. Timer: time.perf_counter around subprocess.run (the whole
process: interpreter start, imports, the answer, exit), plus the child's CPU seconds from
`resource.getrusage` (steadier than wall time when other work shares the cores).

Homes (`--home`):
  warm   one private `GPU_ADVISOR_HOME`, filled by two untimed asks: the vector store, its
         plain-array copy, the jieba/BM25 caches and the built keyword indexes, the tool manifest,
         the parsed copies of the knowledge YAML and the compiled-regex cache exist — what every
         ask after the first two meets (assistant/coldstart.py).
  fresh  every timed ask gets a new empty home: the store is built from the corpus (Chroma), the
         jieba dictionary table, the token cache, the keyword indexes, the tool manifest and the
         regex cache are written — a user's very first question.
  both   the two, one after the other.

Bytecode: Python normally caches compiled modules in `__pycache__/`; an environment that sets
PYTHONDONTWRITEBYTECODE recompiles every project module on every start (~0.2 s more for `ask`,
which imports more of the project). `--bytecode` (default) clears that variable for the children,
as on a user's machine; `--no-bytecode` keeps the environment as it is.

Usage: .venv/bin/python benchmarks/bench_cold_ask.py [--pairs 10] [--home warm|fresh|both]
       [--question "能用4090全量训练7B吗"] [--no-bytecode]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 5.0
TARGET_ASK_S = 2.0


def _cli() -> list[str]:
    exe = ROOT / ".venv" / "bin" / "gpu-advisor"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "assistant.cli"]


def _time(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s = user + system of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def _pairs(label: str, ask: list[str], estimate: list[str], env: dict[str, str], pairs: int, fresh: bool) -> bool:
    """Time `pairs` (ask, estimate) pairs and print one summary line; True when both targets are met."""
    scratch = Path(tempfile.mkdtemp(prefix="gpu-advisor-bench-"))
    try:
        warm_env = {**env, "GPU_ADVISOR_HOME": str(scratch / "warm")}
        # bytecode, the OS file cache and (warm) the home: the first ask builds the store, the second
        # finds the state folder and writes the parsed knowledge copies
        _time(ask, warm_env), _time(ask, warm_env), _time(estimate, warm_env)
        asks, estimates, ratios, cpu_ratios = [], [], [], []
        for i in range(pairs):
            ask_env = {**env, "GPU_ADVISOR_HOME": str(scratch / f"fresh{i}")} if fresh else warm_env
            (a, a_cpu), (e, e_cpu) = _time(ask, ask_env), _time(estimate, warm_env)
            if fresh:
                shutil.rmtree(scratch / f"fresh{i}", ignore_errors=True)
            asks.append(a)
            estimates.append(e)
            ratios.append(a / e)
            cpu_ratios.append(a_cpu / e_cpu)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    ratio, ask_s = statistics.median(ratios), statistics.median(asks)
    ok = ratio <= TARGET_RATIO and ask_s <= TARGET_ASK_S
    print(
        f"[{label} home] cold ask median {ask_s * 1000:.0f} ms (min {min(asks) * 1000:.0f}, max {max(asks) * 1000:.0f}); "
        f"cold estimate median {statistics.median(estimates) * 1000:.0f} ms; "
        f"ratio median {ratio:.2f} over {pairs} pairs (min {min(ratios):.2f}, max {max(ratios):.2f}); "
        f"cpu ratio median {statistics.median(cpu_ratios):.2f}; "
        f"target ≤ {TARGET_RATIO:g}× and ≤ {TARGET_ASK_S:g} s → {'OK' if ok else 'SLOW'}"
    )
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--question", default="能用4090全量训练7B吗")
    ap.add_argument("--home", choices=["warm", "fresh", "both"], default="warm")
    ap.add_argument("--bytecode", action=argparse.BooleanOptionalAction, default=True)
    args = ap.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    if args.bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    ask = [*_cli(), "ask", "--plain", args.question]
    estimate = [*_cli(), "estimate", "--params", "7B", "--mode", "full", "--json"]
    homes = ["warm", "fresh"] if args.home == "both" else [args.home]
    results = [_pairs(h, ask, estimate, env, args.pairs, fresh=h == "fresh") for h in homes]
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
