"""`python -m tests.web_shaped serve --port N`: the real page, with the advisor answering one marked
question ("SHAPED …") by a hand-written answer in the agreed shape (verdict, key lines, a
`<details>` block, a not-used line, sources). Lets the browser tests check how that shape renders
before the offline writer produces it; every other question goes to the real advisor."""

from __future__ import annotations

import sys
from typing import Any, Iterator

MARK = "SHAPED"

# 7e9 params × 16 B/param (mixed-precision AdamW: ZeRO paper §3.1) = 112 GB of model states.
ANSWER = """不能。7B 全量训练每卡约需 **117.1 GB**，RTX 4090 只有 24 GB，差约 93 GB。

- 模型状态 112 GB（16 B/参数：权重 2 + 梯度 2 + fp32 主权重与 Adam 矩 12）
- LoRA 每卡约 19.4 GB，放得下；QLoRA 约 10.5 GB
- 全量训练至少要 7 张 4090（ZeRO-3），按整机租是 8 张

<details><summary>细节 / Details</summary>

**每卡构成**：权重 14 GB、梯度 14 GB、优化器状态 84 GB、激活值 3.6 GB、框架开销 1.4 GB

**假设**：序列 2048、微批 1、梯度检查点、FlashAttention

**命令**
```bash
nvidia-smi --query-gpu=name,memory.total --format=csv
```
</details>

未采用：CPU 卸载（会慢 2–3 倍）

来源：常见问题速答；怎么选租用配置"""


def _stream(question: str, **kwargs: Any) -> Iterator[dict[str, Any]]:
    from assistant.advisor import AskResult, Citation, ToolCallRecord

    args = {"params": "7B", "mode": "full", "gpu": "RTX 4090"}
    result = {"total_gb": 117.057, "gpu_memory_gb": 24.0, "fits": False}
    yield {"type": "tool_call", "id": "t1", "name": "estimate_memory", "args": args}
    yield {"type": "tool_result", "id": "t1", "name": "estimate_memory", "result": result}
    for i in range(0, len(ANSWER), 16):
        yield {"type": "token", "text": ANSWER[i : i + 16]}
    yield {
        "type": "final",
        "result": AskResult(
            answer=ANSWER,
            language="zh",
            backend="offline",
            tool_calls=[ToolCallRecord(name="estimate_memory", args=args, result=result)],
            citations=[Citation(doc_id="faq", title="常见问题速答")],
            grounded=True,
            latency_ms=1.0,
        ),
    }


def install() -> None:
    import assistant.advisor as advisor

    real = advisor.stream

    def stream(question: str, **kwargs: Any) -> Iterator[dict[str, Any]]:
        if question.startswith(MARK):
            return _stream(question, **kwargs)
        return real(question, **kwargs)

    advisor.stream = stream  # type: ignore[assignment]


if __name__ == "__main__":
    install()
    from assistant.cli import main

    sys.argv = ["gpu-advisor", *sys.argv[1:]]
    main()
