"""Renderer for `check_memory_rule`: each rule of thumb the user quoted, said to hold or not, with its bytes.

Why its own module: the answer leads with the yes/no on the user's own arithmetic, then what the rule assumes
(the precision, model states only) and the figure at the precision the job is usually run in — the shape of a
rule check, which no sizing renderer has."""

from __future__ import annotations

from typing import Any

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import Context, renderer

_JOB = {
    "inference": ("推理", "inference"),
    "lora": ("LoRA", "LoRA"),
    "full": ("全参数训练", "full training"),
}
_PREC = {"fp32": "FP32", "bf16": "BF16", "fp16": "FP16", "int8": "INT8", "int4": "INT4"}
_CIRCLED = "①②③④"


def _gb(x: Any) -> str:
    return f"{num(x)} GB"


def _one(w: Writer, i: int, v: dict[str, Any]) -> None:
    job_zh, job_en = _JOB.get(str(v.get("mode")), ("", ""))
    prec = _PREC.get(str(v.get("precision")), str(v.get("precision") or "").upper())
    if v.get("mode") == "full" and v.get("precision") in ("bf16", "fp16"):
        prec += " 混合精度" if w.lang == "zh" else " mixed precision"
    if not v.get("precision_said"):
        prec_zh, prec_en = f"按 {prec}" + ("算" if prec.endswith("精度") else " 算"), f"counted at {prec}"
    else:
        prec_zh, prec_en = prec, f"at {prec}"
    size = num(v.get("params_b"))
    mark = _CIRCLED[i] if i < len(_CIRCLED) else f"{i + 1}."
    claimed, actual = num(v.get("claimed_bytes_per_param")), num(v.get("bytes_per_param"))
    parts_zh = f"权重 {num(v.get('weights_bytes'))}"
    parts_en = f"weights {num(v.get('weights_bytes'))}"
    if v.get("mode") == "lora":
        parts_zh += "，再加上很小的 LoRA 适配器（连同它的梯度和优化器状态）"
        parts_en += ", plus the small LoRA adapters (with their gradients and optimizer states)"
    if v.get("mode") == "full":
        parts_zh += f" + 梯度 {num(v.get('gradient_bytes'))} + 优化器状态 {num(v.get('optimizer_bytes'))}"
        parts_en += f" + gradients {num(v.get('gradient_bytes'))} + optimizer states {num(v.get('optimizer_bytes'))}"
    if v.get("holds"):
        w.add(
            "verdict",
            f"{mark} {job_zh}、{prec_zh}：1B≈{claimed} GB 成立——{parts_zh} = 每参数约 {actual} 字节，"
            f"{size}B 的模型状态约 {_gb(v.get('model_states_gb'))}。",
            f"{mark} {job_en} {prec_en}: {claimed} GB per billion holds — {parts_en} = about {actual} bytes per "
            f"parameter, so {size}B needs about {_gb(v.get('model_states_gb'))} of model states.",
        )
    else:
        w.add(
            "verdict",
            f"{mark} {job_zh}、{prec_zh}：1B≈{claimed} GB 不对——{parts_zh} = 每参数约 {actual} 字节，"
            f"{size}B 约 {_gb(v.get('model_states_gb'))}，不是 {_gb(v.get('claimed_gb'))}。",
            f"{mark} {job_en} {prec_en}: {claimed} GB per billion does not hold — {parts_en} = about {actual} bytes "
            f"per parameter, so {size}B is about {_gb(v.get('model_states_gb'))}, not {_gb(v.get('claimed_gb'))}.",
        )
    usual = str(v.get("usual_precision") or "")
    if usual and usual != v.get("precision"):
        if v.get("mode") == "full":
            w.add(
                "verdict",
                f"   实际多用 {_PREC.get(usual, usual)} 混合精度：权重 {num(v.get('usual_weights_bytes'))} + 梯度 + fp32 主权重和 "
                f"Adam 状态 {num(v.get('usual_optimizer_bytes'))}，仍是每参数约 {num(v.get('usual_bytes_per_param'))} 字节"
                f"（{size}B 约 {_gb(v.get('usual_gb'))}）——混合精度省的是激活值和时间，不是模型状态。",
                f"   In practice it runs in {_PREC.get(usual, usual)} mixed precision: weights "
                f"{num(v.get('usual_weights_bytes'))} + gradients + fp32 master and Adam states "
                f"{num(v.get('usual_optimizer_bytes'))}, still about {num(v.get('usual_bytes_per_param'))} bytes per "
                f"parameter ({size}B ≈ {_gb(v.get('usual_gb'))}) — mixed precision saves activations and time, not "
                f"model states.",
            )
        else:
            w.add(
                "verdict",
                f"   不过实际{' ' if job_zh[:1].isascii() else ''}{job_zh}{' ' if job_zh[-1:].isascii() else ''}一般用 {_PREC.get(usual, usual)}（半精度，每参数约 {num(v.get('usual_bytes_per_param'))} 字节），"
                f"{size}B 约 {_gb(v.get('usual_gb'))}；再量化到 INT8/INT4 还能更小。",
                f"   But {job_en} is usually run in {_PREC.get(usual, usual)} (half precision, about "
                f"{num(v.get('usual_bytes_per_param'))} bytes per parameter): {size}B ≈ {_gb(v.get('usual_gb'))}; "
                f"INT8/INT4 quantisation goes lower still.",
            )


@renderer("check_memory_rule")
def check_memory_rule(w: Writer, r: ToolResult, ctx: Context) -> None:
    """The yes/no on the user's rule first, one line per rule, then what every such rule leaves out."""
    res = r.result
    verdicts = [v for v in res.get("verdicts") or [] if isinstance(v, dict)]
    if not verdicts:
        return
    if res.get("all_hold"):
        w.add(
            "verdict",
            "这个折算基本成立，但它只算了模型状态，而且默认了精度：",
            "The rule basically holds, but it counts model states only and assumes a precision:",
        )
    else:
        w.add("verdict", "不完全对，逐条看：", "Not quite; rule by rule:")
    for i, v in enumerate(verdicts):
        _one(w, i, v)
    w.add(
        "verdict",
        "这些数都只是模型状态：推理还要加 KV 缓存，训练（含 LoRA）还要加激活值，两者都随序列长度和 batch 增长，另有框架开销；"
        "ZeRO-3/FSDP 只是把模型状态分到多张卡上，总量不变。",
        "These are model states only: inference adds the KV cache and training (LoRA included) adds activations, both "
        "growing with sequence length and batch, plus framework overhead; ZeRO-3/FSDP only spreads the model states "
        "over cards, the total stays the same.",
    )
    w.add("sources", f"依据：{res.get('source')}", f"Source: {res.get('source')}")
