"""Renderer for `pretraining_run`: a released base model's own pre-training, as its authors published it.

Why its own module: the lead is the authors' figure (tokens, GPU-hours, card), the check is 6·N·D against those
hours (the efficiency the run achieved), and any division by a card count is said to be the ideal of linear
scaling — three things no other renderer says together."""

from __future__ import annotations

import re
from typing import Any

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_prices import _cur
from assistant.offline.writing.render_tools import Context, bi, big, renderer


def _approx(x: Any) -> str:
    """An estimate to three significant figures: 1,525,564 → '1,530,000' (the band is not that precise)."""
    if not isinstance(x, (int, float)) or x <= 0:
        return str(x)
    from math import floor, log10

    step = 10 ** max(floor(log10(x)) - 2, 0)
    return f"{round(x / step) * step:,.0f}"


def _tokens(res: dict[str, Any]) -> tuple[str, str]:
    note = res.get("tokens_note")
    t = float(res.get("tokens") or 0)
    en = str(note) if note else (f"{t / 1e12:g}T" if t >= 1e12 else f"{t / 1e9:g}B")
    zh = f"{t / 1e12:g} 万亿" if t >= 1e12 else f"{t / 1e8:g} 亿"
    return (f"{en}（约 {zh}）" if note else zh), en


_ASKS_TIME_RE = re.compile(
    r"多久|多长时间|几天|多少天|多少卡(?!时)|几张卡|how long|how many (?:days|gpus|cards)|wall", re.I
)


def _card(x: Any) -> str:
    return str(x or "").replace("NVIDIA ", "")


@renderer("pretraining_run")
def pretraining_run(w: Writer, r: ToolResult, ctx: Context) -> None:
    """The authors' tokens and GPU-hours first, then the 6·N·D check, the user's card count, the price."""
    res = r.result
    model = str(res.get("model") or "")
    tok_zh, tok_en = _tokens(res)
    scope_zh = res.get("scope_zh") or res.get("scope") or ""
    scope_en = res.get("scope") or ""
    gh = res.get("published_gpu_hours")
    if gh:
        card = _card(res.get("published_gpu"))
        w.add(
            "verdict",
            f"{model} 的预训练按作者公布的数据：{tok_zh} token，约 {big(gh)} {card} 卡时"
            + (f"（{scope_zh}）" if scope_zh else "")
            + "。",
            f"{model} was pre-trained on {tok_en} tokens using about {big(gh)} {card} GPU-hours as its authors "
            f"published" + (f" ({scope_en})" if scope_en else "") + ".",
        )
        mfu = res.get("implied_mfu")
        if isinstance(mfu, (int, float)):
            w.add(
                "verdict",
                f"核算：6·N·D = {res.get('flops_arithmetic')} FLOPs；摊到 {big(gh)} 卡时，每卡约 "
                f"{num(res.get('achieved_tflops'))} TFLOPS，是 {card} 稠密 BF16 峰值 {num(res.get('dense_tflops'))} TFLOPS 的 "
                f"{mfu * 100:.0f}%（MFU）。",
                f"Check: 6·N·D = {res.get('flops_arithmetic')} FLOPs; over {big(gh)} GPU-hours "
                f"that is about {num(res.get('achieved_tflops'))} TFLOPS per GPU, {mfu * 100:.0f}% of the {card}'s "
                f"{num(res.get('dense_tflops'))} TFLOPS dense BF16 peak (MFU).",
            )
        mine = _card(res.get("your_gpu"))
        if mine and mine != card and res.get("your_gpu_hours"):
            w.add(
                "verdict",
                f"换成 {mine}（稠密峰值 {num(res.get('your_dense_tflops'))} TFLOPS），同样的 MFU 下约 "
                f"{big(res.get('your_gpu_hours'))} 卡时。",
                f"On {mine} ({num(res.get('your_dense_tflops'))} TFLOPS dense) at that same MFU: about "
                f"{big(res.get('your_gpu_hours'))} GPU-hours.",
            )
    else:
        band = res.get("your_gpu_hours_band") or {}
        mine = _card(res.get("your_gpu"))
        w.add(
            "verdict",
            f"{model} 预训练用了 {tok_zh} token（作者公布）；作者没有公布卡时。按 6·N·D = {res.get('flops_arithmetic')} FLOPs、"
            f"{mine} 在常见预训练效率（MFU）区间内估算，约 {_approx(band.get('low'))}–{_approx(band.get('high'))} 卡时"
            f"（中值 {_approx(band.get('mid'))}）。",
            f"{model} was pre-trained on {tok_en} tokens (as its authors state); they published no GPU-hours. From "
            f"6·N·D = {res.get('flops_arithmetic')} FLOPs on {mine} at the usual pre-training efficiency (MFU) band: about "
            f"{_approx(band.get('low'))}–{_approx(band.get('high'))} GPU-hours (mid {_approx(band.get('mid'))}).",
        )
    n = res.get("n_gpus")
    wall = res.get("ideal_wall_hours")
    if n and wall is not None:
        wb = res.get("ideal_wall_hours_band") or {}
        span_zh = f"约 {big(wb.get('low'))}–{big(wb.get('high'))} 小时" if wb else f"约 {num(wall)} 小时"
        days = res.get("ideal_wall_days")
        w.add(
            "verdict",
            f"除以 {big(n)} 张卡：{res.get('ideal_wall_arithmetic')}，{span_zh}（约 {num(days)} 天）——这是完美线性扩展的理想值；"
            "真实集群有通信、批大小上限和故障重启的损耗，还常常同时跑别的任务，实际墙钟时间会更长。",
            f"Divided by {big(n)} GPUs: {res.get('ideal_wall_arithmetic')} (about {num(days)} days) — the ideal of "
            "perfect linear scaling; a real cluster loses time to communication, batch-size limits and restarts after "
            "failures, and is often shared with other runs, so the real wall-clock is longer.",
        )
    elif _ASKS_TIME_RE.search(ctx.question) and res.get("example_wall_hours"):
        n_ex, hours, days = res.get("example_n_gpus"), res.get("example_wall_hours"), res.get("example_wall_days")
        mine = _card(res.get("your_gpu"))
        w.add(
            "verdict",
            f"墙钟时间 = 卡时 ÷ 卡数：比如 {big(n_ex)} 张 {mine}，约 {big(hours)} 小时（约 {num(days)} 天）——"
            "这是完美线性扩展的理想值，真实集群更慢。",
            f"Wall-clock = GPU-hours ÷ cards: on {big(n_ex)} × {mine}, for example, about {big(hours)} hours "
            f"(about {num(days)} days) — the ideal of perfect linear scaling; a real cluster is slower.",
        )
    if not n and res.get("published_n_gpus") and res.get("published_days"):
        w.add(
            "context",
            f"作者的集群：{big(res.get('published_n_gpus'))} 张卡，约 {num(res.get('published_days'))} 天。",
            f"The authors' cluster: {big(res.get('published_n_gpus'))} GPUs for about {num(res.get('published_days'))} days.",
        )
    if res.get("cost_at_rate") is not None:
        cur = str(res.get("currency") or "USD")
        rate = r.args.get("rate_per_gpu_hour")
        w.add(
            "verdict",
            f"按你的每卡时 {_cur(rate, cur)}：{big(res.get('your_gpu_hours'))} × {_cur(rate, cur)} ≈ "
            f"{_cur(res.get('cost_at_rate'), cur)}（只算 GPU 时长）。",
            f"At your {_cur(rate, cur)} per GPU-hour: {big(res.get('your_gpu_hours'))} × {_cur(rate, cur)} ≈ "
            f"{_cur(res.get('cost_at_rate'), cur)} (GPU time only).",
        )
    w.add(
        "next",
        "从头预训练要几万到几百万卡时，租卡的小团队很少这么做；用公开的基座模型做继续预训练、SFT 或 LoRA，"
        "给我你的 token 数就能算出时长和费用。",
        "Pre-training from scratch takes tens of thousands to millions of GPU-hours — rarely what a team renting "
        "cards does; continued pre-training, SFT or LoRA on a released base is the usual path — give me your token "
        "count for its time and cost.",
    )
    for note in res.get("notes") or []:
        w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    w.add(
        "sources",
        f"{model} 预训练：{res.get('source')}（{res.get('as_of')}）",
        f"{model} pre-training: {res.get('source')} ({res.get('as_of')})",
    )
