"""The line for intents/model_facts: the named model's weights, parameters × bytes per parameter, nothing else."""

from __future__ import annotations

from assistant.offline.intents.args import intent_of
from assistant.offline.intents.model_facts import NAME
from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer


def is_fact(r: ToolResult) -> bool:
    """A result intents/model_facts asked for: written after the answer's own lead, never as its verdict."""
    return intent_of(r.id) == NAME


def write_facts(w: Writer, results: list[ToolResult]) -> None:
    """The weights line of every model_facts result, in order."""
    for r in results:
        if is_fact(r):
            weights_line(w, r)


def weights_line(w: Writer, r: ToolResult) -> None:
    """「Llama-2-13B 的权重（bf16）约 26.0 GB（24.2 GiB，13.0B 参数）」: decimal GB with GiB beside it."""
    from assistant.offline.writing.render_tools import gb

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
    kv_line(w, res, r.args.get("context"))


def kv_line(w: Writer, res: dict, ctx: object, section: str = "verdict") -> None:
    """「按你设的 8,192 token，一条完整序列的 KV 缓存约 1.2 GB」: the context the user set, one sequence's KV cache."""
    from assistant.offline.writing.render_tools import gb

    kv, per_token = res.get("kv_cache_gb"), res.get("kv_bytes_per_token")
    if isinstance(kv, (int, float)) and kv > 0 and isinstance(per_token, (int, float)) and isinstance(ctx, int):
        kib = per_token / 1024
        w.add(
            section,
            f"按你设的 {int(ctx):,} token，一条完整序列的 KV 缓存约 {gb(kv)} GB（每 token {kib:.0f} KiB，"
            f"{gb(kv * 1e9 / 2**30)} GiB）；同时跑几条就乘几。",
            f"At your {int(ctx):,} tokens one full sequence's KV cache is about {gb(kv)} GB ({kib:.0f} KiB per token, "
            f"{gb(kv * 1e9 / 2**30)} GiB); multiply by the sequences run at once.",
        )
