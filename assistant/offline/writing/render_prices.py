"""Renderer for `provider_pricing`: a provider whose prices GPU Advisor does not carry.

Why a renderer of its own: the answer must say plainly that no price is carried (never a made-up figure), send the
user to the provider's own pricing page, explain stop versus delete in that provider's words, and — for a TPU
slice — say how many GPUs give the same peak compute, so the China-market price printed beside it is comparable.
"""

from __future__ import annotations

import re
from typing import Any

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import Context, bi, renderer


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


# ---------------------------------------------------------------- the user's own cost arithmetic ------------
_SYMBOL = {"USD": "$", "EUR": "€", "GBP": "£", "CNY": "¥"}
# a serverless deployment / endpoint priced "per day": the figure is a ceiling for instances running all day
_DEPLOYMENT_RE = re.compile(r"deployment|endpoint|serverless|autoscal|instances?|replicas?|部署|实例", re.I)
# Replicate's billing page: "When a model isn't under demand, we scale it down to the minimum number of instances
# set (0 by default - you can customize this for deployments)" (https://replicate.com/docs/billing)
_SCALE_TO_ZERO_SOURCE = "https://replicate.com/docs/billing"


def _cur(amount: Any, currency: str) -> str:
    sym = _SYMBOL.get(currency)
    if isinstance(amount, float) and not amount.is_integer():
        text = f"{amount:,.2f}".rstrip("0").rstrip(".")
    elif isinstance(amount, (int, float)):
        text = f"{int(amount):,}"
    else:
        text = str(amount)
    return f"{sym}{text}" if sym else f"{text} {currency}"


def quote_claim_lines(w: Writer, r: ToolResult, ctx: Context) -> None:
    """Lead a quote with the check of the user's own figure ("so it cost ~$1000?" → 5155 GPU-h × $0.5 = $2,578),
    and turn a per-day figure into its hourly rate (and, for an autoscaled deployment, say it is a ceiling)."""
    res, a = r.result, r.args
    cur = str(res.get("currency") or "")
    total, claimed, ratio = res.get("total"), res.get("claimed_total"), res.get("claimed_ratio")
    verdict = w.parts["verdict"]
    hours_zh = (
        f"{res.get('gpu_hours_sum')} GPU 小时（卡时）" if res.get("gpu_hours_sum") else f"{num(res.get('hours'))} 小时"
    )
    hours_en = f"{res.get('gpu_hours_sum')} GPU-hours" if res.get("gpu_hours_sum") else f"{num(res.get('hours'))} hours"
    rate = _cur(res.get("hourly_rate"), cur)
    if claimed and ratio and abs(ratio - 1) > 0.1:
        verdict.insert(
            w.part_start,
            w.t(
                f"不对：{hours_zh} × {rate}/小时 = {_cur(total, cur)}，不是 {_cur(claimed, cur)}"
                f"（差 {num(ratio)} 倍）。",
                f"No: {hours_en} × {rate}/hour = {_cur(total, cur)}, not {_cur(claimed, cur)} ({num(ratio)}× that).",
            ),
        )
    elif claimed and ratio and not ctx.by_name("published_run"):  # a published run decides the hours (below)
        verdict.insert(
            w.part_start,
            w.t(
                f"算术没错：{hours_zh} × {rate}/小时 ≈ {_cur(total, cur)}。",
                f"The arithmetic holds: {hours_en} × {rate}/hour ≈ {_cur(total, cur)}.",
            ),
        )
    elif res.get("gpu_hours_sum"):
        verdict.insert(
            w.part_start,
            w.t(
                f"{hours_zh} × {rate}/小时 = {_cur(total, cur)}。",
                f"{hours_en} × {rate}/hour = {_cur(total, cur)}.",
            ),
        )
    if a.get("per") in ("day", "week", "month"):
        w.add(
            "verdict",
            f"折合每小时 {rate}（开机运行的每一小时）。",
            f"That is {rate} per hour of running time.",
        )
        if _DEPLOYMENT_RE.search(ctx.question):
            verdict.insert(
                w.part_start,
                w.t(
                    f"不一定：{_cur(a.get('amount'), cur)}/天 是上限，即 1 个实例 × 24 小时 × {rate}/小时。",
                    f"Not necessarily: {_cur(a.get('amount'), cur)}/day is the ceiling — one instance × 24 hours × "
                    f"{rate}/hour.",
                ),
            )
            w.add(
                "verdict",
                f"这个按天的数是上限：实例整天开着才会花这么多。自动伸缩的部署只在实例运行时计费；最少实例数（min instances）设为 0 时，"
                f"没有请求就缩到零（scale to zero），空闲不收费，代价是冷启动；设为 ≥ 1 则一直按小时计费。"
                f"具体费率取决于所选硬件，以服务商定价页为准（{_SCALE_TO_ZERO_SOURCE}）。",
                f"The per-day figure is a ceiling: it is what one instance costs if it runs all day. An autoscaled "
                f"deployment bills only while its instances run; with min instances set to 0 it scales to zero when idle "
                f"(no requests, no charge, at the cost of cold starts), while min instances ≥ 1 keeps billing every hour. "
                f"The exact rate depends on the hardware chosen — check the provider's pricing page "
                f"({_SCALE_TO_ZERO_SOURCE}).",
            )
    w.add(
        "next",
        "云上的单价随服务商、按需/竞价（spot）和承诺期变化很大，下单前按当前价格核对。",
        "Per-hour prices vary a lot by provider, on-demand vs spot, and commitment — check the current price before "
        "you rely on the figure.",
    )


# ---------------------------------------------------------------- a published run -----------------------------
def _hours(w: Writer, st: dict[str, Any]) -> str:
    if st.get("minutes") is not None:
        return w.t(f"{num(st['minutes'])} 分钟", f"{num(st['minutes'])} minutes")
    return w.t(f"{num(st.get('hours'))} 小时", f"{num(st.get('hours'))} hours")


@renderer("published_run")
def published_run(w: Writer, r: ToolResult, ctx: Context) -> None:
    """The authors' own cards × hours per stage first, then the user's cards and the user's rate."""
    res = r.result
    stages = [s for s in res.get("stages") or [] if isinstance(s, dict)]
    name = str(res.get("recipe") or "")
    for st in stages:
        card = str(st.get("gpu") or "").replace("NVIDIA ", "")
        line_zh = (
            f"{name} 公开的数据：{st.get('stage_zh')}（{st.get('data_zh')}）用 {num(st.get('n_gpus'))} × {card} 约 "
            f"{_hours(w, st)}，即 {num(st.get('n_gpus'))} × {num(st.get('hours'))} 小时 = {num(st.get('gpu_hours'))} 卡时"
        )
        line_en = (
            f"{name} as published: {st.get('stage')} ({st.get('data')}) took about {_hours(w, st)} on "
            f"{num(st.get('n_gpus'))} × {card}, i.e. {num(st.get('n_gpus'))} × {num(st.get('hours'))} h = "
            f"{num(st.get('gpu_hours'))} GPU-hours"
        )
        same = res.get("your_gpu") == st.get("gpu") and res.get("your_n_gpus") == st.get("n_gpus")
        if st.get("your_hours") is not None and res.get("your_gpu") and not same:
            mine = str(res.get("your_gpu")).replace("NVIDIA ", "")
            line_zh += f"；换成 {num(res.get('your_n_gpus'))} × {mine} 同样效率下约 {num(st.get('your_hours'))} 小时（{st.get('your_arithmetic')}）"
            line_en += (
                f"; on {num(res.get('your_n_gpus'))} × {mine} at the same efficiency about {num(st.get('your_hours'))} "
                f"hours ({st.get('your_arithmetic')})"
            )
        if st.get("cost_at_rate") is not None:
            cur = str(res.get("currency") or "USD")
            rate = r.args.get("rate_per_gpu_hour")
            line_zh += f"；按你的每卡时 {_cur(rate, cur)} 约 {_cur(st.get('cost_at_rate'), cur)}"
            line_en += f"; at your {_cur(rate, cur)} per GPU-hour about {_cur(st.get('cost_at_rate'), cur)}"
        w.add("verdict", line_zh + "。", line_en + ".")
    _published_lead(w, r, ctx)
    _own_run_against_published(w, r, ctx)
    cost = res.get("cost_usd")
    if cost is not None:
        bound_zh, bound_en = ("不到 ", "under ") if res.get("cost_is_upper_bound") else ("约 ", "about ")
        asks_cost = bool(re.search(r"cost|price|spent|\$|费用|多少钱|成本|花", ctx.question, re.I))
        w.add(
            "verdict",
            f"作者给的训练费用 {bound_zh}{_cur(cost, 'USD')} 只算云上 GPU 的租用时长（{num(res.get('total_gpu_hours'))} 卡时，"
            f"折合约 {_cur(res.get('implied_usd_per_gpu_hour'), 'USD')}/卡时），计价方式：{res.get('pricing_zh') or res.get('pricing')}；"
            "不含数据、失败重跑和存储。",
            f"The authors' training cost of {bound_en}{_cur(cost, 'USD')} counts only cloud GPU-hours "
            f"({num(res.get('total_gpu_hours'))} GPU-hours, about {_cur(res.get('implied_usd_per_gpu_hour'), 'USD')} per "
            f"GPU-hour); pricing: {res.get('pricing')}; data, failed runs and storage are extra.",
        )
        if (
            asks_cost and ctx.intent != "quote" and not r.args.get("rate_per_gpu_hour")
        ):  # "only $300 — just the cloud hours?": the cost line answers it
            w.parts["verdict"].insert(w.part_start, w.parts["verdict"].pop())
    for note in res.get("notes") or []:
        w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    w.add(
        "sources",
        f"{name}：{res.get('source')}（{res.get('as_of')}）",
        f"{name}: {res.get('source')} ({res.get('as_of')})",
    )


def _published_lead(w: Writer, r: ToolResult, ctx: Context) -> None:
    """ "Alpaca could be reproduced for $24" at $8/h for 4 GPUs: the published GPU-hours at the user's per-GPU rate."""
    res = r.result
    quotes = ctx.by_name("quote_cost")
    total = res.get("total_cost_at_rate")
    claimed = quotes[0].result.get("claimed_total") if quotes else None
    stages = [s for s in res.get("stages") or [] if isinstance(s, dict)]
    if not (total and claimed and stages) or abs(total / claimed - 1) <= 0.1:
        return
    st, cur = stages[0], str(res.get("currency") or "USD")
    card = str(st.get("gpu") or "").replace("NVIDIA ", "")
    rate = r.args.get("rate_per_gpu_hour")
    w.parts["verdict"].insert(
        w.part_start,
        w.t(
            f"不对：原文用的是 {num(st.get('n_gpus'))} × {card}、{num(st.get('hours'))} 小时，共 "
            f"{num(res.get('total_gpu_hours'))} 卡时；按你的价格折合每卡时 {_cur(rate, cur)}，约 {_cur(total, cur)}，"
            f"不是 {_cur(claimed, cur)}。",
            f"No: the published run used {num(st.get('n_gpus'))} × {card} for {num(st.get('hours'))} hours, "
            f"{num(res.get('total_gpu_hours'))} GPU-hours in all; at your rate of {_cur(rate, cur)} per GPU-hour that is "
            f"about {_cur(total, cur)}, not {_cur(claimed, cur)}.",
        ),
    )


# "took only 40 minutes on the same 8 A100s", "跑了 30 小时": the user's own run of the same recipe
_OWN_RUN_RE = re.compile(r"took|takes|finished|finish(?:es)? in|ran for|跑了|用了|花了|训了|耗时", re.I)


def _own_run_against_published(w: Writer, r: ToolResult, ctx: Context) -> None:
    """Compare the user's own time for the recipe with the published one on the same cards (words, not a ratio)."""
    from assistant.offline.intents.train_time import _durations_h

    res = r.result
    stages = [s for s in res.get("stages") or [] if isinstance(s, dict)]
    if len(stages) != 1 or not _OWN_RUN_RE.search(ctx.question):
        return
    if res.get("your_gpu") and (res.get("your_gpu"), res.get("your_n_gpus")) != (
        stages[0].get("gpu"),
        stages[0].get("n_gpus"),
    ):
        return  # other cards: the rescaled hours above are the comparison
    said = _durations_h(ctx.question)
    if not said:
        return
    mine, st = said[0], stages[0]
    pub = float(st.get("hours") or 0)
    if not pub or 0.5 <= mine / pub <= 2:
        return
    m = re.search(r"(\d+(?:\.\d+)?)\s*(?:个)?\s*(min(?:ute)?s?|分钟|h(?![a-z])|小时|hours?|hrs?)", ctx.question, re.I)
    told = m.group(0) if m else ""
    if mine < pub:
        w.add(
            "verdict",
            f"你的 {told} 比公开的 {_hours(w, st)} 短得多：先核对轮数（num_train_epochs）、数据条数和 max_steps 是否和原配方一致，"
            "太短通常是只跑了部分数据或更少的轮数，而不是更快。",
            f"Your {told} is far shorter than the published {_hours(w, st)}: check that the epochs (num_train_epochs), "
            "the number of samples and max_steps match the recipe — a run that short usually covers less data or "
            "fewer epochs rather than running faster.",
        )
    else:
        w.add(
            "verdict",
            f"你的 {told} 比公开的 {_hours(w, st)} 长得多：核对卡型和卡数、是否开了 bf16 和 FlashAttention、序列长度和 batch，"
            "以及数据加载是否跟得上。",
            f"Your {told} is far longer than the published {_hours(w, st)}: check the cards and their count, bf16 and "
            "FlashAttention, the sequence length and batch, and whether data loading keeps up.",
        )
