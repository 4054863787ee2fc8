"""Renderer for `choose_gpu`: line 1 is the choice and the figure that decides it; one line per card."""

from __future__ import annotations

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import Context, renderer, zh_en


@renderer("choose_gpu")
def choose_gpu(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
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
