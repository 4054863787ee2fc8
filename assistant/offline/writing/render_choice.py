"""Renderer for `choose_gpu`: line 1 is the choice and the figure that decides it; one line per card."""

from __future__ import annotations

from assistant.offline.intents.gpus import compares_speed
from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import Context, renderer, zh_en


@renderer("choose_gpu")
def choose_gpu(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    if compares_speed(ctx.slots):  # 「4090和A100训练哪个快」: the question is the speed; the choice by cost follows
        _speed_lead(w, res)
    w.add("verdict", *zh_en(res.get("summary") or {}))
    for row in res.get("rows") or []:
        n = row.get("min_gpus")
        count_zh = f"至少 {n} 张" if n else "放不下"
        count_en = f"at least {n}" if n else "does not hold it"
        price = row.get("hourly_cny")
        price_zh = f"，约 ¥{num(price)}/卡时" + ("（相近卡的价格）" if row.get("price_proxy") else "") if price else ""
        price_en = (
            f", about ¥{num(price)} per card-hour" + (" (a related card's price)" if row.get("price_proxy") else "")
            if price
            else ""
        )
        w.add(
            "numbers",
            f"{row.get('gpu_name')}：{count_zh}，显存 {num(row.get('memory_gb'))} GB，BF16 稠密 "
            f"{num(row.get('bf16_dense_tflops'))} TFLOPS，带宽 {num(row.get('mem_bw_gbs'))} GB/s{price_zh}",
            f"{row.get('gpu_name')}: {count_en}, {num(row.get('memory_gb'))} GB, {num(row.get('bf16_dense_tflops'))} "
            f"dense BF16 TFLOPS, {num(row.get('mem_bw_gbs'))} GB/s{price_en}",
        )
    for a in (res.get("assumptions") or [])[:3]:
        w.add("assumptions", *zh_en(a))
    if res.get("mode") != "inference":
        w.add(
            "next",
            "告诉我训练数据量（token 数，或样本数 × 序列长度 × 轮数），就能按选定的卡算出要跑几天、总共花多少钱。",
            "Tell me the training data size (tokens, or samples × sequence length × epochs) for days and total cost "
            "on the chosen card.",
        )


def _speed_lead(w: Writer, res: dict) -> None:
    """Which card is faster, by the figure that bounds the job: dense BF16 TFLOPS for training (compute-bound),
    memory bandwidth for inference decoding (each token reads the weights once). Per card; the choice by cost
    follows it."""
    rows = [x for x in res.get("rows") or [] if x.get("bf16_dense_tflops") and x.get("mem_bw_gbs")]
    if len(rows) < 2:
        return
    inference = res.get("mode") == "inference"
    key, unit = ("mem_bw_gbs", "GB/s") if inference else ("bf16_dense_tflops", "TFLOPS")
    fast, slow = sorted(rows, key=lambda x: -float(x[key]))[:2]
    if res.get("choice") == fast.get("gpu") and res.get("basis") not in ("only_fit", "fewest_cards"):
        return  # the choice's own line already leads with the faster card and its figure (tools/card_choice)
    ratio = float(fast[key]) / float(slow[key])
    what_zh = "推理出字（受显存带宽限制）" if inference else "训练（受算力限制，按 BF16 稠密算力）"
    what_en = "for decoding (bound by memory bandwidth)" if inference else "for training (compute-bound, dense BF16)"
    w.add(
        "verdict",
        f"{what_zh}更快的是 {fast.get('gpu_name')}：{num(fast[key])} 对 {num(slow[key])} {unit}，单卡约快 "
        f"{ratio:.1f} 倍（两边都放得下、并行方式相同时）。",
        f"Faster {what_en}: {fast.get('gpu_name')}, {num(fast[key])} against {num(slow[key])} {unit}, about "
        f"{ratio:.1f}× per card (when both hold the job with the same parallelism).",
    )
