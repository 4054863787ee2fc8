"""Renderers for the small conversions: `convert_units` (GB/GiB/MiB…, GB/s↔TB/s), `busbw_from_algbw`
(nccl-tests), `implied_mfu` (a published run's GPU-hours → MFU) and `batch_split` (a token batch → batch × accum)."""

from __future__ import annotations

from typing import Any

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer
from assistant.offline.writing.render_tools import Context, bi, big, renderer, tokens_text
from assistant.offline.writing.results import typed
from tools.conversions import BatchSplitOutput, BusbwOutput, ConvertUnitsOutput, ImpliedMfuOutput


def figure(x: Any) -> str:
    """Four significant figures, no exponent, thousands separators: 74.50580596 → '74.51',
    25757220864 → '25,757,220,864', 0.0728 → '0.07276'."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return str(x)
    if float(x).is_integer():
        return f"{int(x):,}"
    if abs(x) >= 1000:
        return f"{x:,.0f}" if abs(x) >= 10000 else f"{x:,.1f}".rstrip("0").rstrip(".")
    return f"{float(f'{x:.4g}'):g}"


@renderer("convert_units")
def convert_units(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = typed(r, ConvertUnitsOutput)
    if res is None:
        return
    value, src, dst, out = res.value, res.from_unit, res.to_unit, res.result
    if dst and out is not None:
        w.add(
            "verdict", f"{figure(value)} {src} = {figure(out)} {dst}。", f"{figure(value)} {src} = {figure(out)} {dst}."
        )
    if res.n_bytes is not None:
        w.add(
            "numbers",
            f"换算：{figure(value)} {src} = {figure(res.n_bytes)} 字节",
            f"Working: {figure(value)} {src} = {figure(res.n_bytes)} bytes",
        )
        others = [
            f"{figure(v)} {u}" for u, v in res.table.items() if u not in (src, dst) and u in ("GB", "GiB", "MiB", "TB")
        ]
        if others:
            w.add("numbers", "也就是 " + "、".join(others), "That is also " + ", ".join(others))
    elif res.bytes_per_s is not None:
        w.add(
            "numbers",
            f"{figure(value)} {src} = {figure(res.bytes_per_s)} 字节/秒",
            f"{figure(value)} {src} = {figure(res.bytes_per_s)} bytes/s",
        )
    w.add("assumptions", res.explanation_zh, res.explanation_en)
    if src == "MiB" or dst == "MiB" or "nvidia_smi" in ctx.said:
        w.add(
            "next",
            "nvidia-smi 的 Memory-Usage 以 MiB（二进制）显示：把 Total 换算成 GB 再和标称显存对比，"
            "明显偏少说明卡的型号或显存版本不对。",
            "nvidia-smi's Memory-Usage is in MiB (binary): convert the Total to GB before comparing it with the "
            "advertised size; much less means a different model or memory variant.",
        )
    if res.source and res.n_bytes is not None:
        w.add(
            "assumptions",
            "单位定义：十进制用 SI 前缀（kB/MB/GB），二进制用 IEC 80000-13 前缀（KiB/MiB/GiB）；"
            "nvidia-smi 以 MiB 显示显存",
            f"Unit definitions: {res.source}",
        )


_OP_LABEL = {
    "all_reduce": "all_reduce",
    "all_gather": "all_gather",
    "reduce_scatter": "reduce_scatter",
    "alltoall": "alltoall",
    "broadcast": "broadcast",
    "reduce": "reduce",
}


@renderer("busbw_from_algbw")
def busbw(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = typed(r, BusbwOutput)
    if res is None:
        return
    op, n = _OP_LABEL.get(res.op, res.op), res.n_gpus
    bus, alg = figure(res.busbw_gbs), figure(res.algbw_gbs)
    w.add(
        "verdict",
        f"总线带宽 busbw ≈ {bus} GB/s（{n} 卡 {op}，algbw {alg} GB/s）。",
        f"The bus bandwidth is about {bus} GB/s ({op} on {n} GPUs, algbw {alg} GB/s).",
    )
    w.add("numbers", f"计算：{res.formula}", f"Working: {res.formula}")
    w.add(
        "assumptions",
        "algbw 是消息大小除以耗时；busbw 再乘上这个集合通信的系数，反映每张卡实际在链路上收发的数据量，"
        "和卡数无关，可以直接和 NVLink / PCIe / 网卡的单向带宽比。",
        "algbw is message size divided by time; busbw multiplies it by the collective's factor so it reflects what "
        "each GPU actually moves over its links — independent of the GPU count and directly comparable with the "
        "one-way speed of NVLink, PCIe or the NIC.",
    )
    expected = next(
        (x.result.get("expected_busbw") for x in ctx.by_name("interconnect_advice") if x.result.get("expected_busbw")),
        None,
    )
    if isinstance(expected, dict) and expected.get("low_gbs") and expected.get("high_gbs"):
        lo, hi = float(expected["low_gbs"]), float(expected["high_gbs"])
        where_zh, where_en = (
            ("在期望范围之内", "is within the expected range")
            if lo <= res.busbw_gbs <= hi * 1.05
            else ("低于期望范围", "is below the expected range")
            if res.busbw_gbs < lo
            else ("高于期望范围", "is above the expected range")
        )
        w.add(
            "verdict",
            f"这{where_zh}：{n} 卡的 all_reduce busbw 期望约 {figure(lo)}–{figure(hi)} GB/s"
            + (f"（{expected['note']}）" if expected.get("note") else "")
            + "。注意比较时用 busbw，不要拿 algbw 和链路带宽比。",
            f"That {where_en}: {n} GPUs should reach about {figure(lo)}–{figure(hi)} GB/s of all_reduce busbw"
            + (f" ({expected['note']})" if expected.get("note") else "")
            + ". Compare busbw, not algbw, with the link bandwidth.",
        )
    else:
        w.add(
            "next",
            "把这个 busbw 和这台机器的期望值对比（告诉我卡型和卡数，例如「8 卡 H100 的 all_reduce busbw 应该多少」，或贴完整 all_reduce_perf 输出给我诊断）。",
            'Compare this busbw with what the machine should reach (tell me the cards, e.g. "expected all_reduce busbw '
            'on 8× H100", or paste the full all_reduce_perf output for a diagnosis).',
        )
    if res.source:
        w.add("assumptions", f"公式来源：{res.source}", f"Formula: {res.source}")


@renderer("implied_mfu")
def implied_mfu(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = typed(r, ImpliedMfuOutput)
    if res is None:
        return
    pct = figure(res.mfu_pct)
    model, gpu = res.model, res.gpu_name
    w.add(
        "verdict",
        f"按 6·N·D 算，{model} 这次训练的 MFU 约为 {pct}%。",
        f"By the 6·N·D count, that run implies an MFU of about {pct}% for {model}.",
    )
    w.add(
        "numbers",
        f"训练计算量：6 × {figure(res.params)} 参数 × {tokens_text(w, res.tokens)} token = {res.flops:.3g} FLOPs",
        f"Training compute: 6 × {figure(res.params)} params × {figure(res.tokens)} tokens = {res.flops:.3g} FLOPs",
    )
    w.add(
        "numbers",
        f"{big(res.gpu_hours)} GPU 小时 = {res.gpu_seconds:.4g} GPU 秒，平均每卡有效算力 "
        f"{figure(res.achieved_tflops)} TFLOPS",
        f"{big(res.gpu_hours)} GPU-hours = "
        f"{res.gpu_seconds:.4g} GPU-seconds, i.e. {figure(res.achieved_tflops)} useful TFLOPS per GPU",
    )
    w.add(
        "numbers",
        f"{gpu} 的稠密峰值 {figure(res.peak_tflops)} TFLOPS → MFU = "
        f"{figure(res.achieved_tflops)} / {figure(res.peak_tflops)} = {pct}%",
        f"{gpu} dense peak {figure(res.peak_tflops)} TFLOPS → MFU = {figure(res.achieved_tflops)} / "
        f"{figure(res.peak_tflops)} = {pct}%",
    )
    for note in res.notes[1:3]:
        w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    w.add(
        "next",
        "估算自己的训练时间时，可以用这个 MFU 作为大规模预训练的参考值（问我「7B 训练 1T token 要多久」）。",
        'Use this MFU as a reference for large-scale pre-training when estimating your own run (ask "how long to '
        'train 7B on 1T tokens").',
    )


@renderer("batch_split")
def batch_split(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = typed(r, BatchSplitOutput)
    if res is None:
        return
    seq, n = r.args.get("seq_len"), r.args.get("n_gpus") or 1
    tokens = r.args.get("batch_tokens")
    pairs = "、".join(f"{o.micro_batch} × {o.grad_accum}" for o in res.options[:3])
    pairs_en = ", ".join(f"{o.micro_batch} × {o.grad_accum}" for o in res.options[:3])
    w.add(
        "verdict",
        f"每卡每步要 {figure(round(res.per_gpu))} 条序列：{tokens_text(w, tokens)} token ÷（{figure(seq)} token × {n} 卡）≈ "
        f"{figure(res.per_gpu)} = per_device_train_batch_size × gradient_accumulation_steps，例如 {pairs}"
        "（前者是每卡微批，后者是梯度累积步数）。梯度累积不增加显存，只有每卡微批（和序列长度）决定激活值显存："
        "OOM 就把微批降到 1–2、把累积步数加上去，乘积不变。",
        f"Each GPU needs {figure(round(res.per_gpu))} sequences per optimizer step: {tokens_text(w, tokens)} tokens ÷ "
        f"({figure(seq)} tokens × {n} GPUs) ≈ {figure(res.per_gpu)} = per_device_train_batch_size × "
        f"gradient_accumulation_steps, e.g. {pairs_en} (micro-batch × accumulation steps). Gradient accumulation "
        "adds no memory; only the micro-batch (and sequence length) sets activation memory, so on OOM lower the "
        "micro-batch to 1–2 and raise the accumulation, keeping the product.",
    )
    for o in res.options:
        w.add(
            "numbers",
            f"{o.micro_batch} × {o.grad_accum} × {n} 卡 × {figure(seq)} = {tokens_text(w, o.batch_tokens)} token/步",
            f"{o.micro_batch} × {o.grad_accum} × {n} GPUs × {figure(seq)} = {figure(o.batch_tokens)} tokens per step",
        )
    w.add("assumptions", f"公式：{res.formula}；{res.source}", f"Formula: {res.formula}; {res.source}")


@renderer("gpu_hours_wall_clock")
def gpu_hours_wall_clock(w: Writer, r: ToolResult, ctx: Context) -> None:
    """GPU-hours spread over cards: line 1 is the user's own card count (else one and eight cards)."""
    res = r.result
    rows = [x for x in res.get("rows") or [] if isinstance(x, dict)]
    if not rows:
        return
    total = res.get("gpu_hours")
    asked = ctx.slots.gpu_count
    # the user's count (a count of 1 read from "if I use a single GPU" beside "on 8 GPUs" is the comparison)
    lead = next((x for x in rows if x.get("gpus") == asked and asked != 1), None) or rows[-1]
    others = [x for x in rows if x is not lead]

    def span(x: dict, lang: str) -> str:
        h, d = x.get("hours") or 0, x.get("days") or 0
        if lang == "zh":
            return f"{figure(h)} 小时" + (f"（约 {figure(d)} 天）" if h >= 48 else "")
        return f"{figure(h)} hours" + (f" (about {figure(d)} days)" if h >= 48 else "")

    w.add(
        "verdict",
        f"{figure(total)} GPU 小时（卡时，一张卡算一小时；{figure(res.get('gpu_days'))} GPU 天）分到 {lead.get('gpus')} 张卡上，"
        f"墙钟时间约 {span(lead, 'zh')}：{figure(total)} ÷ {lead.get('gpus')}。"
        + "".join(f"{x.get('gpus')} 张卡约 {span(x, 'zh')}。" for x in others),
        f"{figure(total)} GPU-hours (one GPU busy for one hour each; {figure(res.get('gpu_days'))} GPU-days) spread over "
        f"{lead.get('gpus')} GPU{'s' if lead.get('gpus') != 1 else ''} is about {span(lead, 'en')} of wall-clock time: {figure(total)} ÷ {lead.get('gpus')}. "
        + " ".join(
            f"On {x.get('gpus')} GPU{'s' if x.get('gpus') != 1 else ''}: about {span(x, 'en')}." for x in others
        ),
    )
    assumption = res.get("assumption") or {}
    if assumption:
        w.add("assumptions", assumption.get("zh", ""), assumption.get("en", ""))
    w.add("assumptions", f"公式：{res.get('formula')}", f"Formula: {res.get('formula')}")
