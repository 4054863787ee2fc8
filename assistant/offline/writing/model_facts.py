"""The line for intents/model_facts: the named model's weights, parameters × bytes per parameter, nothing else."""

from __future__ import annotations

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer
from assistant.offline.writing.render_tools import gb


def weights_line(w: Writer, r: ToolResult) -> None:
    """「Llama-2-13B 的权重（bf16）约 26.0 GB（24.2 GiB，13.0B 参数）」: decimal GB with GiB beside it."""
    res = r.result
    total, prec, params = res.get("whole_model_weights_gb"), res.get("whole_model_precision"), res.get("params")
    if not isinstance(total, (int, float)) or total <= 0 or not isinstance(params, (int, float)):
        return
    name = res.get("model") or ""
    gib = total * 1e9 / 2**30
    b = params / 1e9
    w.add(
        "verdict",
        f"参考：{name} 的权重（{prec}）约 {gb(total)} GB（{gb(gib)} GiB，{b:.1f}B 参数）；推理还要加 KV 缓存和约 1 GB 的 CUDA 上下文。",
        f"For reference: {name}'s {prec} weights are about {gb(total)} GB ({gb(gib)} GiB, {b:.1f}B parameters); "
        "inference adds the KV cache and about 1 GB of CUDA context.",
    )
