"""Soak test for the page: many concurrent sessions, then a long run with the server's memory sampled.

Phase 1 — load: `--sessions` (default 50) concurrent gradio_client sessions each ask
`--load-questions` questions through the page's `/ask` API on loopback; errors and p50/p95 reply
latency are printed.
Phase 2 — soak: `--questions` (default 1,000) more questions from a pool of `--workers` sessions,
with the server's RSS (/proc/PID/status VmRSS) sampled every `--sample-every` (100) questions.
Prints the curve and whether it stays flat: the ratio of the last sample to the first sample after
warm-up (the load phase is the warm-up). "flat" means the ratio is below `--flat-ratio` (1.15) —
a leak of even 10 kB per question would add ~10 MB over 1,000 questions and is visible here.

Figures are printed, never asserted in unit tests. `--json` prints one JSON object instead.
Usage: .venv/bin/python benchmarks/bench_soak.py [--sessions 50] [--questions 1000] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.web_server import running_page, server_pid, status_mb  # noqa: E402

QUESTIONS = [
    "能用4090全量训练7B吗",
    "How many A100 80GB for a 70B full fine-tune?",
    "A100一个月多少钱",
    "两台8卡服务器用什么网络",
    "GPU utilisation below 50%, why?",
    "QLoRA 70B on one A100 80G?",
    "4090和A100有什么区别",
    "what does Xid 48 mean",
    "预算5万，一周内训练7B，租什么卡",
    "how much is an H100 per hour?",
]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else float("nan")


def run(sessions: int, load_questions: int, questions: int, workers: int, sample_every: int, flat_ratio: float) -> dict:
    from gradio_client import Client

    with running_page() as url:
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        pid = server_pid(port)
        if pid is None:
            raise RuntimeError("could not find the server process (is `ss` installed?)")
        rss_start = status_mb(pid, "VmRSS")

        def ask(client: Client, i: int) -> float:
            t0 = time.perf_counter()
            result = client.predict(question=QUESTIONS[i % len(QUESTIONS)], language="auto", api_name="/ask")
            if not isinstance(result, dict) or not result.get("answer"):
                raise RuntimeError(f"empty answer: {str(result)[:200]}")
            return time.perf_counter() - t0

        # -------- phase 1: concurrent sessions
        load_errors: list[str] = []
        load_lat: list[float] = []

        def session(i: int) -> list[float]:
            client = Client(url, verbose=False)
            return [ask(client, i + j) for j in range(load_questions)]

        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=sessions) as pool:
            for fut in [pool.submit(session, i) for i in range(sessions)]:
                try:
                    load_lat.extend(fut.result(timeout=900))
                except Exception as exc:  # counted, not hidden
                    load_errors.append(f"{type(exc).__name__}: {exc}")
        load_wall = time.perf_counter() - t0
        rss_after_load = status_mb(pid, "VmRSS")

        # -------- phase 2: soak with RSS samples
        clients = [Client(url, verbose=False) for _ in range(workers)]
        lock = threading.Lock()
        done = 0
        samples: list[tuple[int, float]] = [(0, rss_after_load)]
        soak_errors: list[str] = []
        soak_lat: list[float] = []

        def worker(w: int) -> None:
            nonlocal done
            while True:
                with lock:
                    if done >= questions:
                        return
                    i = done
                    done += 1
                try:
                    took = ask(clients[w], i)
                    with lock:
                        soak_lat.append(took)
                except Exception as exc:  # noqa: BLE001
                    with lock:
                        soak_errors.append(f"{type(exc).__name__}: {exc}")
                with lock:
                    finished = len(soak_lat) + len(soak_errors)
                    if finished % sample_every == 0 and (not samples or samples[-1][0] != finished):
                        samples.append((finished, status_mb(pid, "VmRSS")))

        t1 = time.perf_counter()
        threads = [threading.Thread(target=worker, args=(w,)) for w in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        soak_wall = time.perf_counter() - t1
        peak = status_mb(pid, "VmHWM")

    first = samples[1][1] if len(samples) > 1 else samples[0][1]  # first sample after warm-up
    last = samples[-1][1]
    ratio = last / first if first else float("nan")
    return {
        "sessions": sessions,
        "load_questions": len(load_lat),
        "load_errors": len(load_errors),
        "load_wall_s": round(load_wall, 1),
        "load_p50_ms": round(statistics.median(load_lat) * 1000, 1) if load_lat else None,
        "load_p95_ms": round(_pct(load_lat, 0.95) * 1000, 1) if load_lat else None,
        "soak_questions": len(soak_lat),
        "soak_errors": len(soak_errors),
        "soak_wall_s": round(soak_wall, 1),
        "soak_p50_ms": round(statistics.median(soak_lat) * 1000, 1) if soak_lat else None,
        "soak_p95_ms": round(_pct(soak_lat, 0.95) * 1000, 1) if soak_lat else None,
        "rss_start_mb": round(rss_start, 1),
        "rss_after_load_mb": round(rss_after_load, 1),
        "rss_curve_mb": [[n, round(mb, 1)] for n, mb in samples],
        "rss_peak_mb": round(peak, 1),
        "rss_last_over_first": round(ratio, 3),
        "flat": bool(ratio < flat_ratio),
        "flat_ratio_bound": flat_ratio,
        "errors_sample": (load_errors + soak_errors)[:5],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description="page soak test")
    ap.add_argument("--sessions", type=int, default=50, help="concurrent sessions in the load phase")
    ap.add_argument("--load-questions", type=int, default=2, help="questions per session in the load phase")
    ap.add_argument("--questions", type=int, default=1000, help="questions in the soak phase")
    ap.add_argument("--workers", type=int, default=8, help="concurrent sessions in the soak phase")
    ap.add_argument("--sample-every", type=int, default=100)
    ap.add_argument("--flat-ratio", type=float, default=1.15)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    report = run(args.sessions, args.load_questions, args.questions, args.workers, args.sample_every, args.flat_ratio)
    if args.json:
        print(json.dumps(report))
        return 0
    print(
        f"load: {report['sessions']} sessions, {report['load_questions']} replies, errors={report['load_errors']}, "
        f"wall {report['load_wall_s']} s, p50 {report['load_p50_ms']} ms, p95 {report['load_p95_ms']} ms"
    )
    print(
        f"soak: {report['soak_questions']} replies, errors={report['soak_errors']}, wall {report['soak_wall_s']} s, "
        f"p50 {report['soak_p50_ms']} ms, p95 {report['soak_p95_ms']} ms"
    )
    print(
        f"server RSS: start {report['rss_start_mb']} MB, after load {report['rss_after_load_mb']} MB, "
        f"peak {report['rss_peak_mb']} MB"
    )
    print("RSS curve (questions → MB): " + ", ".join(f"{n}→{mb}" for n, mb in report["rss_curve_mb"]))
    print(
        f"last / first-after-warm-up = {report['rss_last_over_first']} → "
        f"{'flat' if report['flat'] else 'GROWING'} (bound {report['flat_ratio_bound']})"
    )
    for err in report["errors_sample"]:
        print("error:", err, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
