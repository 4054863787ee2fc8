"""Renderer for `provider_pricing`: a provider whose prices GPU Advisor does not carry.

Why a renderer of its own: the answer must say plainly that no price is carried (never a made-up figure), send the
user to the provider's own pricing page, explain stop versus delete in that provider's words, and — for a TPU
slice — say how many GPUs give the same peak compute, so the China-market price printed beside it is comparable.
"""

from __future__ import annotations

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import Context, renderer


@renderer("provider_pricing")
def provider_pricing(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    name, url = str(res.get("name") or ""), str(res.get("pricing_url") or "")
    billing_only = ctx.intent == "billing_stop"
    if ctx.intent == "quote":
        w.add(
            "verdict",
            f"上面是按你给的报价算的；我这里没有 {name} 的价格表，实时价格以官网定价页为准：{url}",
            f"That uses your own quote; I don't carry {name}'s price list, so confirm the current rate on the official "
            f"pricing page: {url}",
        )
    elif not billing_only:
        w.add(
            "verdict",
            f"我这里没有 {name} 的价格表（只收录中国大陆租卡市场带日期的人民币价格），所以不给它的具体金额、也不编数字；"
            f"实时价格以官网定价页为准：{url}",
            f"I don't carry {name}'s prices (only dated China rental-market prices in CNY), so no figure for it is "
            f"given or invented here; confirm the current price on the official pricing page: {url}",
        )
    tpu = res.get("tpu") or {}
    if tpu.get("gpu_count"):
        gpu = str(tpu.get("gpu_name") or "").replace("NVIDIA ", "")
        w.add(
            "verdict",
            f"算力上对比：{tpu.get('slice')} 是 {num(tpu.get('chips'))} 颗芯片，bf16 峰值合计约 "
            f"{float(tpu.get('total_tflops_bf16') or 0):,.0f} TFLOPS，约等于 {num(tpu.get('gpu_count'))} 张 {gpu}"
            f"（稠密 BF16 {num(tpu.get('gpu_dense_tflops_bf16'))} TFLOPS）；下面的人民币价格按这个卡数算。",
            f"For comparable compute: {tpu.get('slice')} is {num(tpu.get('chips'))} chips, about "
            f"{float(tpu.get('total_tflops_bf16') or 0):,.0f} TFLOPS bf16 peak in all, about {num(tpu.get('gpu_count'))} × {gpu} "
            f"({num(tpu.get('gpu_dense_tflops_bf16'))} TFLOPS dense BF16 each); the CNY price below is for that many.",
        )
        w.add("numbers", f"算式：{tpu.get('arithmetic')}", f"Arithmetic: {tpu.get('arithmetic')}")
        w.add(
            "assumptions",
            f"只按峰值算力对比（TPU 数据：{tpu.get('source')}）；实际吞吐取决于框架（TPU 上 JAX/TF，GPU 上 PyTorch）和 MFU。",
            f"A peak-compute comparison only (TPU figures: {tpu.get('source')}); real throughput depends on the "
            "framework (JAX/TF on TPU, PyTorch on GPU) and MFU.",
        )
    if res.get("instance_gpu"):
        w.add(
            "verdict",
            f"这类实例配的是 {res.get('instance_gpu')}；下面的人民币价格是同款卡在国内租卡市场的行情，供对比。",
            f"That instance family carries the {res.get('instance_gpu')}; the CNY price below is the same card on "
            "China's rental market, for comparison.",
        )
    if res.get("cheaper_zh") and not billing_only:
        w.add(
            "verdict",
            f"{name} 除了按需（on-demand）价，还有 {res.get('cheaper_zh')}：便宜得多，但可能被随时回收，只适合能从 checkpoint 续跑的任务。",
            f"Besides the on-demand rate, {name} has {res.get('cheaper_en')}: much cheaper, but it can be reclaimed at "
            "any time, so only for jobs that resume from a checkpoint.",
        )
    lead_zh, lead_en = ("还会收一部分钱。", "Partly, yes. ") if billing_only else ("", "")
    w.add(
        "verdict" if billing_only else "next",
        f"{lead_zh}{name} 的计费：{res.get('stop_zh')}之后不再收算力费，但 {res.get('keeps_billing_zh')} 照收；要完全停止计费，得"
        f"{res.get('release_zh')}实例（先把数据和 checkpoint 拷走）。",
        f"{lead_en}Billing on {name}: after you {res.get('stop_en')}, compute stops billing, but {res.get('keeps_billing_en')} "
        f"keep billing; to stop all charges, {res.get('release_en')} the instance (copy data and checkpoints off first).",
    )
    w.add(
        "assumptions",
        f"{name} 的计费规则来源：{res.get('source')}（记录于 {res.get('as_of')}）。",
        f"{name} billing rules from: {res.get('source')} (recorded {res.get('as_of')}).",
    )
