"""Serving launches: work out the budget / KV / concurrency arithmetic (tools/diagnosis/serving.py) and flag
the one case that blocks the job outright — the model's weights do not fit the memory vLLM was allowed.

Why a finding only then: the arithmetic itself is not a fault (a healthy start-up log stays "ok"); weights
above cards × memory × gpu_memory_utilization can never load, whatever else is tuned (vLLM engine args).
"""

from __future__ import annotations

from tools.diagnosis.rules.context import Ctx
from tools.diagnosis.serving import _fmt, serving_math


def rules_serving(c: Ctx) -> None:
    m = serving_math(c.p, c.expect, c.model, c.session_len)
    c.serving = m
    if m is None or m.weights_fit is not False or m.budget_gb is None or m.weights_gb is None:
        return
    v = c.p.get("vllm")
    util = m.utilization or 0.9
    need = m.weights_gb / (m.cards or 1) / (m.card_gb or 1)  # fraction of each card the weights alone take
    c.add(
        "vllm_budget_below_weights",
        "warning",
        (
            f"vLLM 只被允许用 {m.cards} × {_fmt(m.card_gb or 0)} GB × {util:g} = {_fmt(m.budget_gb)} GB，"
            f"而 {m.model} 的权重就有约 {_fmt(m.weights_gb)} GB",
            f"vLLM may use only {m.cards} × {_fmt(m.card_gb or 0)} GB × {util:g} = {_fmt(m.budget_gb)} GB, but "
            f"{m.model}'s weights alone are about {_fmt(m.weights_gb)} GB",
        ),
        [x for x in (getattr(v, "launch_line", None),) if x],
        causes=[
            (
                "--gpu-memory-utilization 是每张卡允许 vLLM 使用的比例；权重、激活和 KV cache 都要放在这个预算里",
                "--gpu-memory-utilization is the share of each card vLLM may use; weights, activations and the "
                "KV cache all live inside it",
            )
        ],
        actions=[
            (
                f"把 --gpu-memory-utilization 调到 0.9 左右（权重就要占每卡的 {need:.0%}，还要给 KV cache 留地方），"
                "并设 --max-model-len；还不够就加卡（--tensor-parallel-size）或换 AWQ/GPTQ 量化版。",
                f"Raise --gpu-memory-utilization to about 0.9 (the weights alone take {need:.0%} of each card, and "
                "the KV cache needs room too) and set --max-model-len; if it still does not fit, add cards "
                "(--tensor-parallel-size) or use an AWQ/GPTQ quantised release.",
            )
        ],
    )
