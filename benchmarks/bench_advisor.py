"""Advisor latency and model round trips.

1. Offline answer latency, in-process, over ~50 bilingual questions after a warm-up
   (target: p95 < 100 ms; imports and the first retrieval index build are excluded by the warm-up).
2. Model round trips per question on the LLM path, against the local OpenAI-compatible stub
   (tests/stub_openai_server.py): a typical question should need at most two.

Run: `.venv/bin/python benchmarks/bench_advisor.py` (offline, no network).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GPU_ADVISOR_BACKEND", "GPU_ADVISOR_MODEL"):
    os.environ.pop(var, None)

QUESTIONS = [
    "能用4090全量训练7B吗",
    "Can I fully fine-tune a 7B model on a single RTX 4090?",
    "A100一个月多少钱",
    "how much is an H100 per hour?",
    "70B全量微调需要几张A100",
    "how many A100s for a 70B full fine-tune?",
    "两张4090能LoRA微调13B吗",
    "QLoRA 70B on one A100 80G?",
    "8卡A100训练7B，1万亿token要多久",
    "4090和A100有什么区别",
    "compare H100 and H800",
    "A800 和 A100 差在哪",
    "用4090部署Qwen2.5-7B推理，32k上下文够吗",
    "serve llama3 8b with 8k context on a 4090",
    "预算5万，一周内训练7B，租什么卡",
    "H20 适合训练吗",
    "L20 48G 能跑 14B 推理吗",
    "4×H800 NVLink 还是 PCIe",
    "what is NVLink bandwidth on A100?",
    "Qwen2.5-72B 推理要几张卡",
    "7b lora 4090 batch size 多大",
    "最长能跑多长的上下文 4090 7B LoRA",
    "能用3090全参训练1.5B吗",
    "13B 全量训练 ZeRO-3 要几张 A100",
    "how long to pretrain 1.5B on 1T tokens with 8 H100",
    "A100 80G SXM 月租",
    "租 8 卡 H100 一个月大概多少钱",
    "RTX 4090 price per month in China",
    "交付验收要检查什么",
    "delivery checklist for an 8x A100 server",
    "nvidia-smi 显示 ERR! 怎么办",
    "dmesg: NVRM: Xid 79, GPU has fallen off the bus",
    "NCCL all_reduce_perf busbw 只有 20 GB/s 正常吗",
    "what does Xid 48 mean",
    "今天天气怎么样",
    "write me a poem",
    "DeepSpeed ZeRO-2 和 ZeRO-3 有什么区别",
    "fp8 训练需要什么卡",
    "bf16 vs fp16 for training",
    "显存不够怎么办",
    "能用4090训练70B吗",
    "1.5B 模型全量微调 4090",
    "Llama 3 70B QLoRA memory",
    "单卡A100能全量微调7B吗",
    "8卡4090能训练13B吗",
    "H100 和 4090 训练速度差多少",
    "1张A100推理70B可以吗",
    "inference memory for 7B at fp16",
    "Qwen2.5-14B LoRA 需要多少显存",
    "A100 40G 还是 80G",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def bench_offline() -> None:
    from assistant.advisor import ask

    t0 = time.perf_counter()
    for q in QUESTIONS[:5]:  # warm-up: imports, retrieval index, jieba
        ask(q)
    warm = time.perf_counter() - t0
    times: list[float] = []
    grounded = 0
    for q in QUESTIONS:
        t = time.perf_counter()
        r = ask(q)
        times.append((time.perf_counter() - t) * 1000)
        grounded += r.grounded
    print(f"offline: {len(QUESTIONS)} questions after a {warm:.1f} s warm-up")
    print(
        f"  latency ms: p50 {statistics.median(times):.1f} · p95 {pct(times, 95):.1f} · "
        f"max {max(times):.1f} (target p95 < 100)"
    )
    print(f"  grounded: {grounded}/{len(QUESTIONS)}")
    bench_planning()


def bench_planning() -> None:
    """The reading + intent step alone (no tools, no writing), uncached: target p95 < 20 ms."""
    from assistant.offline import plan
    from assistant.offline.reading.slots import _extract_cached

    for q in QUESTIONS:
        plan(q)
    times: list[float] = []
    for q in QUESTIONS:
        _extract_cached.cache_clear()  # time the reading, not the cache
        t = time.perf_counter()
        plan(q)
        times.append((time.perf_counter() - t) * 1000)
    print(f"  planning only ms: p50 {statistics.median(times):.1f} · p95 {pct(times, 95):.1f} (target p95 < 20)")


def bench_stub() -> None:
    from assistant.advisor import ask, stream
    from assistant.settings import BackendSettings
    from tests.stub_openai_server import StubOpenAI

    questions = QUESTIONS[:10]
    with StubOpenAI(plan=[("gpu_specs", {"names": ["A100"]}), ("search_guide", {"query": "A100 显存"})]) as stub:
        for model in ("tool_then_answer", "parallel"):
            settings = BackendSettings(
                backend="openai", base_url=stub.base_url, model=model, api_key="EMPTY", max_retries=0, timeout_s=10
            )
            for label, run in (
                ("json", lambda q, s=settings: ask(q, settings=s)),
                ("sse", lambda q, s=settings: list(stream(q, settings=s))[-1]["result"]),
            ):
                stub.reset()
                run("warm-up " + questions[0])
                stub.reset()
                trips, times, backends = [], [], set()
                for q in questions:
                    before = len(stub.chat_requests())
                    t = time.perf_counter()
                    result = run(q)
                    times.append((time.perf_counter() - t) * 1000)
                    trips.append(len(stub.chat_requests()) - before)
                    backends.add(result.backend)
                print(
                    f"stub {model:17s} {label:4s}: round trips/question mean {statistics.mean(trips):.2f} "
                    f"max {max(trips)} · latency p50 {statistics.median(times):.1f} ms · backend {sorted(backends)}"
                )


if __name__ == "__main__":
    bench_offline()
    bench_stub()
