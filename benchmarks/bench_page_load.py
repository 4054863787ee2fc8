"""Load benchmark for the page: N concurrent sessions through gradio_client on loopback.

Prints p50/p95 reply latency (after one warm-up reply), errors and the server's peak memory (VmHWM). Figures are printed,
not asserted. Usage: .venv/bin/python benchmarks/bench_page_load.py [--sessions 20] [--questions 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.web_server import running_page, server_pid, status_mb  # noqa: E402

QUESTIONS = [
    "能用4090全量训练7B吗",
    "How many A100 80GB for a 70B full fine-tune?",
    "A100一个月多少钱",
    "两台8卡服务器用什么网络",
    "GPU utilisation below 50%, why?",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--questions", type=int, default=3, help="questions per session")
    args = ap.parse_args()
    from gradio_client import Client

    with running_page() as url:
        port = int(url.rstrip("/").rsplit(":", 1)[1])

        def session(i: int) -> list[float]:
            client = Client(url, verbose=False)
            times = []
            for j in range(args.questions):
                t0 = time.perf_counter()
                result = client.predict(question=QUESTIONS[(i + j) % len(QUESTIONS)], language="auto", api_name="/ask")
                if not result.get("answer"):
                    raise RuntimeError("empty answer")
                times.append(time.perf_counter() - t0)
            return times

        # One reply first, so the figures are about sessions sharing the server, not about the first
        # visitor loading the retrieval index (the server warms up in the background at start).
        Client(url, verbose=False).predict(question=QUESTIONS[0], language="auto", api_name="/ask")
        errors = 0
        latencies: list[float] = []
        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.sessions) as pool:
            for fut in [pool.submit(session, i) for i in range(args.sessions)]:
                try:
                    latencies.extend(fut.result(timeout=600))
                except Exception as exc:  # counted, not hidden
                    errors += 1
                    print("error:", type(exc).__name__, exc, file=sys.stderr)
        wall = time.perf_counter() - t0
        pid = server_pid(port)
        latencies.sort()
        p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))] if latencies else float("nan")
        print(f"sessions={args.sessions} questions={len(latencies)} errors={errors} wall={wall:.1f}s")
        print(f"reply latency p50={statistics.median(latencies) * 1000:.0f} ms  p95={p95 * 1000:.0f} ms")
        if pid:
            print(f"server peak RSS={status_mb(pid, 'VmHWM'):.0f} MB")


if __name__ == "__main__":
    main()
