"""Renderers for whole jobs: `estimate_training_time` and `plan_configurations`."""

from __future__ import annotations

from assistant.offline.intents.base import has_size
from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_memory import fit_sentence, seed_rule_line
from assistant.offline.writing.render_tools import (
    Context,
    article,
    bi,
    big,
    gb,
    mode_label,
    money,
    money_range,
    pct,
    plural,
    renderer,
    tokens_text,
    zh_en,
)


def hrs(x: object) -> str:
    """Hours or GPU-hours with the digits that matter: 13,414 / 27 / 2.5 / 0.057 — never a 0 that is really 0.03."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return str(x)
    if x >= 10 or x == 0:
        return big(x)
    if x >= 1:
        return f"{x:.1f}".rstrip("0").rstrip(".")
    return f"{x:.2g}"


def wall_text(w: Writer, res: dict) -> tuple[str, str]:
    """(mid, range) of the wall time in the answer's language: minutes under an hour, else hours."""
    hours, mins = res.get("wall_hours") or {}, res.get("wall_minutes") or {}
    mid = hours.get("mid")
    if isinstance(mid, (int, float)) and mid < 1 and mins.get("mid") is not None:
        m, lo, hi = (hrs(mins.get(k)) for k in ("mid", "low", "high"))
        return w.t(f"{m} 分钟", f"{m} minutes"), w.t(f"{lo}–{hi} 分钟", f"{lo}–{hi} minutes")
    m, lo, hi = (hrs(hours.get(k, mid)) for k in ("mid", "low", "high"))
    return w.t(f"{m} 小时", plural(m, "hour")), w.t(f"{lo}–{hi} 小时", f"{lo}–{hi} hours")


@renderer("estimate_training_time")
def estimate_training_time(w: Writer, r: ToolResult, ctx: Context) -> None:
    if ctx.intent == "compute_budget":  # compute_budget leads with its own band; only the estimate's cost is added
        scratch = Writer(w.lang)
        _estimate_training_time(scratch, r, ctx)
        w.parts["numbers"] += [x for x in scratch.parts["numbers"] if "¥" in x and x not in w.parts["numbers"]]
        return
    _estimate_training_time(w, r, ctx)


def _at_measured_rate(w: Writer, res: dict, card: str, n: int, toks: str, sized: bool) -> None:
    """The user's own measured speed first: the run's hours at it, a claimed time set against it, the MFU it means
    (only for a model size the user gave: an assumed 7B would turn a LoRA run on a small model into "impossible")."""
    hours, rate = res.get("hours_at_measured_rate"), res.get("measured_tokens_per_s")
    if not hours or not rate:
        return
    on = f"{n} 张 {card}" if n > 1 else card
    on_en = f"{n} × {card}" if n > 1 else card
    w.add(
        "verdict",
        f"按你实测的速度（约 {big(rate)} token/s，{on}），{toks} token 要约 {num(hours)} 小时（{num(res.get('days_at_measured_rate'))} 天）。",
        f"At your measured speed (about {big(rate)} tokens/s on {on_en}), {toks} tokens take about {num(hours)} hours "
        f"({num(res.get('days_at_measured_rate'))} days).",
    )
    claimed, need, times = res.get("claimed_hours"), res.get("tokens_per_s_for_claimed"), res.get("claimed_speedup")
    if claimed and need and times and times > 1.5:
        w.add(
            "verdict",
            f"{num(claimed)} 小时跑完需要约 {big(need)} token/s，是你实测速度的 {num(times)} 倍——同样的卡数做不到，"
            "那个时间应是在更多的卡上（或更少的 token）得到的。",
            f"Finishing in {num(claimed)} hours needs about {big(need)} tokens/s, {num(times)}× your measured speed — not "
            "possible on the same cards; that time must come from many more GPUs (or fewer tokens).",
        )
    mfu = res.get("measured_mfu")
    if not sized:
        w.add(
            "verdict",
            "你没说模型多大，所以没法算这个速度相当于多少 MFU（算力利用率），也判断不了它是快是慢。",
            "The model size was not given, so this speed cannot be turned into an MFU (how much of the cards' peak "
            "it uses), and whether it is fast or slow cannot be judged.",
        )
    elif isinstance(mfu, (int, float)) and mfu > 0:
        # the MFU band of knowledge/mfu.yaml tops out near 0.6 for dense training; above 1 is past the silicon's peak
        if mfu > 1:
            zh = "，超过了这些卡的理论峰值，不可能：实测时间、每步 token 数（应是全局 batch × 序列长度）或卡数有一个不对，请核对。"
            en = ", beyond the cards' theoretical peak, which is impossible: the timing, the tokens per step (global batch × sequence length) or the card count is off — please check."
        elif mfu > 0.65:
            zh = "，高得少见：核对每步 token 数是不是按全局 batch 算的。"
            en = ", unusually high: check the tokens per step are the global batch."
        elif mfu >= 0.3:
            zh, en = "，已经不低，差距不在你的设置上。", ", already good: the gap is not your setup."
        else:
            zh, en = (
                "，偏低，值得查数据加载、batch 和并行设置。",
                ", low: check data loading, batch and parallel settings.",
            )
        w.add(
            "verdict",
            f"你的实测速度相当于 {card} 稠密峰值的 {pct(mfu)} MFU{zh}",
            f"Your measured speed is {pct(mfu)} MFU of the {card}'s dense peak{en}",
        )


def _estimate_training_time(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    days, hours, gpu_h = res.get("days") or {}, res.get("wall_hours") or {}, res.get("gpu_hours") or {}
    cost, mfu = res.get("cost_cny") or {}, res.get("mfu") or {}
    n, card = res.get("n_gpus") or 1, str(res.get("gpu_name") or res.get("gpu") or "").replace("NVIDIA ", "")
    if res.get("hours_at_measured_rate"):
        sized = has_size(ctx.slots)
        _at_measured_rate(w, res, card, int(n), tokens_text(w, res.get("tokens")), sized)
        if not sized:  # the user's own speed is the answer; a 6·N·D figure at an assumed size would contradict it
            return
    params = res.get("params")
    size = f"{params / 1e9:.3g}B" if isinstance(params, (int, float)) else ""
    toks = tokens_text(w, res.get("tokens"))
    asks_gpu_hours = "asked_gpu_hours" in ctx.said
    measured = res.get("tokens_in_measured_hours") or {}
    if measured.get("mid") and not has_size(ctx.slots):  # no model said: what those hours train
        _measured_tokens_verdict(w, r, ctx, measured, size, n, card)
        return
    assumed = not ctx.slots.gpu_count and r.args.get("n_gpus") and not asks_gpu_hours
    if assumed and days.get("mid") is not None and gpu_h.get("mid") is not None:
        # "要多少卡、训多久" with no count: lead with a count (assumed, said so) and the days on it
        lo_d, hi_d = days.get("low", days["mid"]), days.get("high", days["mid"])
        servers = ctx.slots.nodes or 1
        if servers > 1:  # 「96台DGX A100」: servers named, cards per server not — 8 each, said so
            each = n // servers
            premise_zh = (
                f"你没说每台几张卡，这里按每台 {num(each)} 卡（{num(servers)} 台 × {num(each)} = {num(n)} 张 {card}）估"
            )
            premise_en = (
                f"Cards per server were not given, so {num(each)} per server is assumed ({num(servers)} × {num(each)} "
                f"= {num(n)} {card})"
            )
            tail_zh, tail_en = "。", "."
        else:
            premise_zh = f"你没说用几张卡，这里按一台 {num(n)} 卡机（{num(n)} × {card}）估"
            premise_en = f"No GPU count was given, so one {num(n)}-GPU server ({num(n)} × {card}) is assumed"
            tail_zh, tail_en = "；卡数翻倍，时间大致减半。", "; doubling the GPUs roughly halves it."
        w.add(
            "verdict",
            f"{premise_zh}：训练 {size} 模型、{toks} token 约 {hrs(days['mid'])} 天（按 MFU {pct(mfu.get('mid'))}；区间 "
            f"{hrs(lo_d)}–{hrs(hi_d)} 天），共 {hrs(gpu_h['mid'])} 卡时，平台价约 {money(cost.get('mid'))}{tail_zh}",
            f"{premise_en}: training {article(size)} {size} model on {toks} tokens takes about "
            f"{plural(hrs(days['mid']), 'day')} (at {pct(mfu.get('mid'))} MFU; range {hrs(lo_d)}–{hrs(hi_d)} days), "
            f"{hrs(gpu_h['mid'])} GPU-hours, about {money(cost.get('mid'))} at platform prices{tail_en}",
        )
    elif (asks_gpu_hours or not ctx.slots.gpu_count) and gpu_h.get("mid") is not None:
        # No GPU count given (or GPU-hours asked): the total work is the answer; days depend on the count.
        w.add(
            "verdict",
            f"训练 {size} 模型、{toks} token 大约需要 {hrs(gpu_h['mid'])} 卡时（{card}，按 MFU {pct(mfu.get('mid'))}；"
            f"区间 {hrs(gpu_h.get('low'))}–{hrs(gpu_h.get('high'))}），平台价约 {money(cost.get('mid'))}。",
            f"Training {article(size)} {size} model on {toks} tokens takes about {hrs(gpu_h['mid'])} GPU-hours on {card} "
            f"(at {pct(mfu.get('mid'))} MFU; range {hrs(gpu_h.get('low'))}–{hrs(gpu_h.get('high'))}), about "
            f"{money(cost.get('mid'))} at platform prices.",
        )
        if days.get("mid") is not None and days["mid"] < 2 and hours.get("mid") is not None:
            mid_t, _ = wall_text(w, res)
            w.add(
                "verdict",
                f"用 {num(n)} 张卡要约 {mid_t}；卡数翻倍，时间大致减半。",
                ("On one GPU" if n == 1 else f"On {num(n)} GPUs")
                + f" that is about {mid_t}; doubling the GPUs roughly halves it.",
            )
        elif days.get("mid") is not None:
            w.add(
                "verdict",
                f"用 {num(n)} 张卡要约 {hrs(days['mid'])} 天；卡数翻倍，时间大致减半。",
                ("On one GPU" if n == 1 else f"On {num(n)} GPUs")
                + f" that is about {plural(hrs(days['mid']), 'day')}; doubling the GPUs roughly halves it.",
            )
    elif days.get("mid") is not None and hours.get("mid") is not None and days["mid"] < 2:
        # under two days: "about 1 day (0 days if things go well)" hides the figure — say hours
        mid_t, range_t = wall_text(w, res)
        w.add(
            "verdict",
            f"用 {num(n)} 张 {card} 训练 {size} 模型、{toks} token，大约要 {mid_t}"
            f"（按 MFU {pct(mfu.get('mid'))} 估；区间 {range_t}）。",
            f"Training {article(size)} {size} model on {toks} tokens with {num(n)} × {card} takes about "
            f"{mid_t} (at {pct(mfu.get('mid'))} MFU; range {range_t}).",
        )
    elif days.get("mid") is not None:
        lo_d, hi_d = round(days.get("low", days["mid"])), round(days.get("high", days["mid"]))
        w.add(
            "verdict",
            f"用 {num(n)} 张 {card} 训练 {size} 模型、{toks} token，大约要 {num(round(days['mid']))} 天"
            f"（按 MFU {pct(mfu.get('mid'))} 估；顺利时 {num(lo_d)} 天，保守 {num(hi_d)} 天）。",
            f"Training {article(size)} {size} model on {toks} tokens with {num(n)} × {card} takes about "
            f"{plural(round(days['mid']), 'day')} (at {pct(mfu.get('mid'))} MFU; range {num(lo_d)}–"
            f"{plural(hi_d, 'day')}).",
        )
    if hours.get("mid") is not None:
        w.add(
            "numbers",
            f"墙钟时间约 {wall_text(w, res)[0]}，共 {hrs(gpu_h.get('mid', 0))} 卡时"
            f"（区间 {hrs(gpu_h.get('low', 0))}–{hrs(gpu_h.get('high', 0))} 卡时）",
            f"Wall-clock about {wall_text(w, res)[0]}; {hrs(gpu_h.get('mid', 0))} GPU-hours "
            f"(range {hrs(gpu_h.get('low', 0))}–{hrs(gpu_h.get('high', 0))})",
        )
    if res.get("flops") is not None:
        w.add(
            "numbers",
            f"计算量 {res.get('flops_formula', '6·N·D')} ≈ {res['flops']:.2g} FLOPs，"
            f"单卡峰值 {num(res.get('peak_tflops_per_gpu'))} TFLOPS（{res.get('precision_used', 'bf16')} 稠密）",
            f"Compute {res.get('flops_formula', '6·N·D')} ≈ {res['flops']:.2g} FLOPs; peak "
            f"{num(res.get('peak_tflops_per_gpu'))} TFLOPS per GPU ({res.get('precision_used', 'bf16')} dense)",
        )
    lora_h = res.get("lora_wall_hours_same_mfu")
    if r.args.get("mode") == "full" and lora_h:
        w.add(
            "assumptions",
            "LoRA 的计算量比全量少：前向加只算激活梯度的反向 ≈ 4·N·D，对全量的 6·N·D（冻结的权重不算权重梯度）；"
            f"同样的 MFU 下约 {hrs(lora_h)} 小时。",
            "LoRA needs less compute than a full fine-tune: forward plus an activation-gradient-only "
            f"backward ≈ 4·N·D against 6·N·D (frozen weights need no weight gradients), so about "
            f"{plural(hrs(lora_h), 'hour')} at the same MFU.",
        )
    if cost.get("mid") is not None:
        w.add(
            "numbers",
            f"费用约 {money(cost['mid'])}（{money_range(cost.get('low'), cost.get('high'))}，"
            f"按每卡时 {money((res.get('price_per_gpu_hour_cny') or {}).get('mid'))} 的平台价）",
            f"Cost about {money(cost['mid'])} ({money_range(cost.get('low'), cost.get('high'))}, at the platform "
            f"price of {money((res.get('price_per_gpu_hour_cny') or {}).get('mid'))} per GPU-hour)",
        )
    by_market = res.get("cost_cny_by_market") or {}
    if by_market.get("long_term_lease") and by_market.get("public_cloud_on_demand"):
        w.add(
            "numbers",
            f"长租整机约 {money(by_market['long_term_lease'])}，公有云按量约 "
            f"{money(by_market['public_cloud_on_demand'])}",
            f"Long-term lease about {money(by_market['long_term_lease'])}; public-cloud on-demand about "
            f"{money(by_market['public_cloud_on_demand'])}",
        )
    comm = res.get("comm") or {}
    if comm.get("note"):
        w.add("assumptions", bi(comm["note"], "zh"), bi(comm["note"], "en"))
    if res.get("mfu_source"):
        w.add(
            "assumptions",
            "MFU（实际算力利用率）取经验区间，真实值取决于代码、batch 和通信。",
            "MFU (model FLOPs utilisation) is a typical band; the real figure depends on code, batch and communication.",
        )
    for note in res.get("notes") or []:
        if isinstance(note, str) and not note.startswith("模型 / model"):
            w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    for warn in res.get("warnings") or []:
        if isinstance(warn, str):
            w.add("assumptions", bi(warn, "zh"), bi(warn, "en"))
    if days.get("mid") and days["mid"] > 60:
        w.add(
            "alternatives",
            "时间太长：加卡（时间大致和卡数成反比，但多机要 IB/RoCE 网络）、换 H100/H800 这类更快的卡，或减少训练 token。",
            "Too long: add GPUs (time scales roughly inversely, but multi-node needs IB/RoCE), use faster cards "
            "such as H100/H800, or train on fewer tokens.",
        )
    if not ctx.slots.gpus:
        w.add("assumptions", f"你没指定卡型，这里按 {card} 计算。", f"No GPU was named, so the {card} is assumed.")
    _what_it_rests_on(w, r, ctx)
    if not res.get("hours_at_measured_rate"):  # already measured: nothing to calibrate
        w.add(
            "next",
            "先租几个小时跑一小段，用实测的每秒 token 数校准 MFU，再决定租多久。",
            "Rent for a few hours first, measure tokens per second to calibrate the MFU, then decide how long to rent.",
        )


def _measured_tokens_verdict(
    w: Writer, r: ToolResult, ctx: Context, measured: dict, size: str, n: int, card: str
) -> None:
    """ "60 h on 8 A800, normal?" with no data size: how many tokens those hours train, which the user compares with
    their samples × length × epochs; the faster card's hours follow (rescale_training_time)."""
    res, mfu = r.result, r.result.get("mfu") or {}
    hours = res.get("measured_hours")
    lo, mid, hi = (tokens_text(w, measured.get(k)) for k in ("low", "mid", "high"))
    if hours and n:
        # the run in card-hours first: what it costs anywhere is these × that provider's hourly rate
        days = f"（{num(hours / 24)} 天）" if hours >= 48 else ""
        days_en = f" ({num(hours / 24)} days)" if hours >= 48 else ""
        w.add(
            "verdict",
            f"这次训练共 {num(n)} × {num(hours)} 小时{days} = **{num(n * hours)} 卡时**（{card}）。换成钱就是卡时 × "
            "每卡时单价，单价因平台、卡型、按量/包月差很多，下单前请按平台的当前价格核算。",
            f"That run is {num(n)} × {num(hours)} hours{days_en} = **{num(n * hours)} GPU-hours** on the {card}. "
            "Its cost is GPU-hours × the hourly rate, which varies a lot by provider, card and on-demand vs "
            "reserved — check the current rate on the provider's pricing page before budgeting.",
        )
    w.add(
        "verdict",
        f"要看数据量：{num(n)} × {card} 跑 {num(hours)} 小时，按 {size} 模型{mode_label(w, r.args.get('mode'))}、MFU "
        f"{pct(mfu.get('low'))}–{pct(mfu.get('high'))} 算，大约能训 {lo}–{hi} token（中值 {mid}）。你的数据（条数 × 每条 "
        f"token × 轮数）在这个量级，{num(hours)} 小时就在正常范围内；明显少于它，才说明效率有问题（看 GPU 利用率、数据加载、"
        "padding）。模型更大时，同样时间能训的 token 按参数量成反比减少。",
        f"It depends on the data: {num(n)} × {card} for {num(hours)} hours trains about {lo}–{hi} tokens (mid {mid}) "
        f"for {mode_label(w, r.args.get('mode'))} of {article(size)} {size} model at {pct(mfu.get('low'))}–"
        f"{pct(mfu.get('high'))} MFU. If your data (samples × tokens per sample × epochs) is of that order, "
        f"{num(hours)} hours is within the normal range; only if it is much smaller is the run inefficient (check GPU "
        "utilisation, data loading, padding). A larger model trains proportionally fewer tokens in the same time.",
    )
    w.add(
        "assumptions",
        f"你没说模型大小，这里按常见的 {size} 估；13B 约减半。",
        f"No model size was given, so a common {size} is assumed; a 13B roughly halves it.",
    )
    for x in ctx.by_name("rescale_training_time"):
        faster = str(x.result.get("gpu") or "").replace("NVIDIA ", "")
        w.add(
            "verdict",
            f"想更快：换 {num(x.args.get('n_gpus'))} × {faster}，按稠密算力 {num(x.result.get('dense_tflops'))} 对 "
            f"{num(x.result.get('ref_dense_tflops'))} TFLOPS 重算约 {num(x.result.get('hours'))} 小时"
            f"（{x.result.get('arithmetic')}，同样效率下）。",
            f"For a faster run: {num(x.args.get('n_gpus'))} × {faster} at {num(x.result.get('dense_tflops'))} vs "
            f"{num(x.result.get('ref_dense_tflops'))} TFLOPS dense would take about {num(x.result.get('hours'))} hours "
            f"({x.result.get('arithmetic')}, at the same efficiency).",
        )
    _what_it_rests_on(w, r, ctx)


def _what_it_rests_on(w: Writer, r: ToolResult, ctx: Context) -> None:
    """Line 1 says what the figure rests on when the question left it out: the data size (assumed here,
    with the formula), a published token count, the user's own measured time, a MoE's active params."""
    a, res, s = r.args, r.result, ctx.slots
    verdict = w.parts["verdict"]
    _data_assumption(w, r, ctx)
    if "samples" in a and not s.samples and not s.tokens and a.get("data_basis") != "steps":
        verdict.insert(
            w.part_start,
            w.t(
                f"训练时间主要取决于 token 数（样本数 × 每条长度 × 轮数）：时间 ≈ {res.get('flops_formula', '6·N·D')} ÷"
                f"（卡数 × 稠密算力 × MFU），全量是 6·N·D、LoRA 约 4·N·D。你没给数据量，下面按 {num(a['samples'])} 条 × "
                f"{num(a.get('seq_len'))} token × {num(a.get('epochs'))} 轮估算，数据量翻倍时间也翻倍：",
                f"Training time depends mainly on the tokens (samples × length × epochs): time ≈ "
                f"{res.get('flops_formula', '6·N·D')} ÷ (GPUs × dense peak × MFU), 6·N·D for full training and about "
                f"4·N·D for LoRA. No dataset size was given, so this assumes {num(a['samples'])} samples × "
                f"{num(a.get('seq_len'))} tokens × {num(a.get('epochs'))} epochs; twice the data takes twice as long:",
            ),
        )
    if "params_b" in a and not has_size(s) and not s.unknown_model:
        # 「两张3090训练大概要多久」 with no model named: the size is an assumption, said first, never presented as theirs
        verdict.insert(
            w.part_start,
            w.t(
                f"你没说训练的是什么模型：下面按 {num(a['params_b'])}B 参数的语言模型估；别的模型（图像、视频、语音）"
                "差别很大，告诉我模型名或参数量才能算准。",
                f"You did not say which model: this assumes a {num(a['params_b'])}B-parameter language model; other "
                "models (image, video, speech) differ a lot — give the model name or parameter count for a real figure.",
            ),
        )
    if "tokens" in a and not s.tokens:
        from assistant.offline.intents.plans import reference

        ref = reference(s)
        if s.mode == "pretrain" and (ref is None or not ref.training_tokens):
            verdict.insert(
                w.part_start,
                w.t(
                    f"你没给训练 token 数：按算力最优的约每参数 20 token（Chinchilla，Hoffmann et al. 2022）估，即 "
                    f"{tokens_text(w, a['tokens'])} token；时间和花费都和 token 数成正比。",
                    f"No token count given: assumed the compute-optimal ~20 tokens per parameter (Chinchilla, Hoffmann "
                    f"et al. 2022), i.e. {tokens_text(w, a['tokens'])} tokens; time and cost scale with the tokens.",
                ),
            )
        elif ref is not None and ref.training_tokens:
            verdict.insert(
                w.part_start,
                w.t(
                    f"按 {ref.id} 公开的规模算：{ref.params_b:g}B 参数、{tokens_text(w, ref.training_tokens)} 训练 token"
                    f"（{ref.source}），计算量 6·N·D；实际花费随 MFU 和卡价变化。",
                    f"Using {ref.id}'s published scale: {ref.params_b:g}B parameters and "
                    f"{tokens_text(w, ref.training_tokens)} training tokens ({ref.source}); compute 6·N·D; the real "
                    "cost moves with MFU and card prices.",
                ),
            )
    if res.get("tokens_in_measured_hours") and not has_size(s):
        pass  # the measured hours were turned into tokens above; a reference job's hours would mislead
    elif res.get("hours_at_measured_rate"):
        pass  # the hours said were set against the user's own measured speed above (a claim, not their run's time)
    elif s.period_hours and s.period_unit in ("hour", "day") and (s.training or s.finetune or s.mode):
        if not (s.tokens or s.samples or a.get("data_basis") == "steps"):
            _no_data_for_measured(w, r, ctx)  # the estimate ran on an example corpus: nothing to set the hours against
        else:
            _set_against_estimate(w, r, ctx)
    active = res.get("active_params")
    if isinstance(active, (int, float)) and isinstance(res.get("params"), (int, float)) and active < res["params"]:
        w.add(
            "verdict",
            "这是 MoE 模型：按计算量它应该比同总参数的稠密模型快（FLOPs 只算激活参数）；实际慢很多时，问题通常在专家（expert）层的实现："
            "逐个专家循环的小矩阵乘、全部专家参数在 ZeRO-3 下每步聚合。换用 grouped-GEMM / 专家并行（expert parallel）的实现能解决。",
            "This is a MoE model: by FLOPs it should be faster than a dense model of its total size (FLOPs count only the "
            "active parameters); when it is much slower, the cause is usually the expert implementation — a per-expert "
            "loop of small matmuls, and every expert's states gathered each step under ZeRO-3. Grouped-GEMM / "
            "expert-parallel kernels fix it.",
        )


def _data_assumption(w: Writer, r: ToolResult, ctx: Context) -> None:
    """What the token count rests on when the user gave samples without a length, or a corpus in 语料/字/MB
    (every figure from the tool's data_basis, knowledge/mfu.yaml)."""
    res, s = r.result, ctx.slots
    basis = res.get("data_basis") or {}
    verdict = w.parts["verdict"]
    kind = basis.get("kind")
    if kind == "chat_average":
        line_zh = (
            f"你给了 {big(r.args.get('samples'))} 条样本，没说每条多长：按对话数据平均约 {num(basis.get('tokens_per_sample'))} "
            f"token/条估算（LMSYS-Chat-1M 统计：平均 {num(basis.get('turns'))} 轮 ×（{num(basis.get('prompt_tokens'))} + "
            f"{num(basis.get('response_tokens'))}）token ≈ {num(basis.get('exact'))}），共 {tokens_text(w, res.get('tokens'))} token"
            + ("" if s.epochs else f"，按 {num(res.get('epochs'))} 个 epoch；轮数翻倍时间也翻倍")
        )
        line_en = (
            f"You gave {big(r.args.get('samples'))} samples but not their length: assumed the average chat sample of about "
            f"{num(basis.get('tokens_per_sample'))} tokens (LMSYS-Chat-1M statistics: {num(basis.get('turns'))} turns × "
            f"({num(basis.get('prompt_tokens'))} + {num(basis.get('response_tokens'))}) tokens ≈ {num(basis.get('exact'))}), "
            f"{tokens_text(w, res.get('tokens'))} tokens in all"
            + ("" if s.epochs else f", for {num(res.get('epochs'))} epoch; twice the epochs take twice as long")
        )
        padded = (res.get("padded_wall_hours") or {}).get("mid")
        if padded:
            line_zh += f"；如果每条都填充到 max_length {num(r.args.get('max_seq_len'))}（不打包时的上限），约 {hrs(padded)} 小时"
            line_en += (
                f"; if every sample were padded to the max length {num(r.args.get('max_seq_len'))} (no packing), the "
                f"upper bound is about {plural(hrs(padded), 'hour')}"
            )
        verdict.insert(w.part_start, w.t(line_zh + "：", line_en + ":"))
        w.add("assumptions", f"每条样本的 token 数：{basis.get('source')}", f"Tokens per sample: {basis.get('source')}")
    elif kind == "steps":
        n = r.args.get("n_gpus") or 1
        per_card_zh = (
            f"这里把 batch {num(basis.get('sequences_per_step'))} 当作每步所有卡合计的序列数（全局 batch）；如果是每张卡的，"
            f"token 数和时间再乘 {num(n)}。"
            if n > 1
            else ""
        )
        per_card_en = (
            f" The batch of {num(basis.get('sequences_per_step'))} is read as the sequences per step over all GPUs (the "
            f"global batch); if it is per GPU, multiply the tokens and the time by {num(n)}."
            if n > 1
            else ""
        )
        verdict.insert(
            w.part_start,
            w.t(
                f"数据量按步数算：{num(basis.get('steps'))} 步 × 每步 {num(basis.get('sequences_per_step'))} 条 × "
                f"{num(basis.get('seq_len'))} token = {tokens_text(w, basis.get('tokens'))} token。{per_card_zh}",
                f"The data from the steps: {num(basis.get('steps'))} steps × {num(basis.get('sequences_per_step'))} "
                f"sequences × {num(basis.get('seq_len'))} tokens = {tokens_text(w, basis.get('tokens'))} tokens."
                + per_card_en,
            ),
        )
    elif kind == "corpus":
        toks = res.get("tokens")
        verdict.insert(
            w.part_start,
            w.t(
                f"「语料」的单位这里按 token 理解，即 {tokens_text(w, toks)} token；如果是同样多的汉字，约 "
                f"{tokens_text(w, basis.get('tokens_if_chars'))} token（1 个汉字 ≈ {num(basis.get('tokens_per_char_zh'))} "
                f"token），时间约为 {pct(basis.get('share_if_chars'))}；如果是同样大小的 UTF-8 文本文件（每个汉字 "
                f"{num(basis.get('bytes_per_char'))} 字节），约 {tokens_text(w, basis.get('tokens_if_utf8_bytes'))} token，"
                f"时间约为 {pct(basis.get('share_if_utf8_bytes'))}。",
                f"The corpus size is read as tokens here ({tokens_text(w, toks)} tokens); if it counts Chinese characters, "
                f"that is about {tokens_text(w, basis.get('tokens_if_chars'))} tokens (1 character ≈ "
                f"{num(basis.get('tokens_per_char_zh'))} token) and {pct(basis.get('share_if_chars'))} of the time; if it "
                f"is a UTF-8 text file of that size ({num(basis.get('bytes_per_char'))} bytes per Chinese character), "
                f"about {tokens_text(w, basis.get('tokens_if_utf8_bytes'))} tokens and "
                f"{pct(basis.get('share_if_utf8_bytes'))} of the time.",
            ),
        )
        w.add(
            "assumptions", f"字与 token 的换算：{basis.get('source')}", f"Characters to tokens: {basis.get('source')}"
        )
    elif kind in ("file_zh", "file_en"):
        zh_text = kind == "file_zh"
        w.add(
            "verdict",
            f"数据集文件大小按文本换算成 token：{tokens_text(w, basis.get('file_bytes'))} 字节 ÷ 每字 "
            f"{num(basis.get('bytes_per_char'))} 字节（UTF-8{'，中文' if zh_text else '，英文'}）× {num(basis.get('tokens_per_char'))} "
            f"token/字 ≈ {tokens_text(w, res.get('tokens'))} token；分词器不同会有出入。",
            f"The dataset's file size converted to tokens: {tokens_text(w, basis.get('file_bytes'))} bytes ÷ "
            f"{num(basis.get('bytes_per_char'))} byte(s) per character (UTF-8, {'Chinese' if zh_text else 'English'}) × "
            f"{num(basis.get('tokens_per_char'))} token per character ≈ {tokens_text(w, res.get('tokens'))} tokens; "
            "tokenizers differ.",
        )
        w.add("assumptions", f"字节与 token 的换算：{basis.get('source')}", f"Bytes to tokens: {basis.get('source')}")
    elif kind in ("chars_zh", "chars_en"):
        w.add(
            "assumptions",
            f"按字符数换算成 token：1 个{'汉字' if kind == 'chars_zh' else '英文字符'} ≈ {num(basis.get('tokens_per_char'))} "
            f"token（{basis.get('source')}），共约 {tokens_text(w, res.get('tokens'))} token。",
            f"Characters converted to tokens at {num(basis.get('tokens_per_char'))} token per "
            f"{'Chinese' if kind == 'chars_zh' else 'English'} character ({basis.get('source')}): about "
            f"{tokens_text(w, res.get('tokens'))} tokens.",
        )


def _slow_causes(ctx: Context, r: ToolResult) -> list[tuple[str, str]]:
    """The likely causes of a run slower than the estimate, most specific first, from what the question said."""
    s, said, a = ctx.slots, ctx.said, r.args
    out: list[tuple[str, str]] = []
    if s.offload:
        out.append(
            (
                "开了 CPU offload（优化器/参数在内存和显存之间来回搬，往往慢好几倍）",
                "CPU offload is on (optimizer/parameters shuttle between RAM and GPU, often several times slower)",
            )
        )
    if s.precision == "fp32":
        out.append(
            (
                "用 fp32 训练（没开 bf16/fp16，张量核用不上）",
                "training in fp32 (no bf16/fp16, so the tensor cores sit idle)",
            )
        )
    if (r.result.get("measured_vs_high") or 0) >= 2:
        # several times the estimate is a setting that multiplies the work, not a slow kernel
        out.append(
            (
                "设置把工作量放大了：总步数（max_steps，或 样本数 × 轮数 ÷（batch × 梯度累积 × 卡数））比你以为的多，"
                "或序列长度（max_length / max_source_length）设得比数据长、又没开 packing，每条都按最大长度算",
                "a setting multiplies the work: more total steps than you think (max_steps, or samples × epochs ÷ "
                "(batch × gradient accumulation × GPUs)), or a sequence length (max_length) longer than the data without "
                "packing, so every sample costs the maximum length",
            )
        )
    if "flash_attn" not in said:
        out.append(
            (
                "没开 FlashAttention（序列一长，注意力就是瓶颈）",
                "no FlashAttention (with long sequences attention dominates)",
            )
        )
    if s.batch is not None and s.batch <= 2:
        out.append(
            (
                f"每卡 micro-batch 只有 {num(s.batch)}（GPU 吃不饱）",
                f"a micro-batch of only {num(s.batch)} per GPU (the GPU is underfed)",
            )
        )
    if a.get("zero3") and (a.get("n_gpus") or 1) > 1:
        out.append(
            (
                "ZeRO-3 每个 micro-step 都要收集参数，PCIe 机器上通信很重",
                "ZeRO-3 gathers the parameters every micro-step, heavy over PCIe",
            )
        )
    if "checkpointing_on" in said and a.get("recompute") != "full":
        out.append(("开了梯度检查点（每步多一次前向）", "gradient checkpointing (one extra forward per step)"))
    out.append(
        (
            "数据加载跟不上（num_workers 太少、在线分词）",
            "data loading cannot keep up (too few num_workers, tokenising on the fly)",
        )
    )
    return out


def _set_against_estimate(w: Writer, r: ToolResult, ctx: Context) -> None:
    """The run's own hours against the estimate (the data size is the user's): normal or slow first, then the
    hours (with card-hours when the cards were counted) beside the estimate's band."""
    res, s = r.result, ctx.slots
    hours = res.get("wall_hours") or {}
    epochs = s.epochs
    gpu_h = res.get("measured_gpu_hours") if s.gpu_count and res.get("measured_hours") == s.period_hours else None
    n_run = int(r.args.get("n_gpus") or 1) if gpu_h else 1
    _normal_or_slow(w, r, ctx)
    w.add(
        "verdict",
        f"对照 {'' if n_run < 2 else f'{num(n_run)} × '}{num(s.period_hours)} 小时"
        + (f"（= {num(gpu_h)} 卡时）" if n_run > 1 else "")
        + f"：估算约 {hrs(hours.get('mid'))} 小时（区间 "
        f"{hrs(hours.get('low'))}–{hrs(hours.get('high'))}）"
        + (
            f"；时间和轮数成正比，{num(epochs)} 个 epoch 是主要因素，常见做法是 1–3 个 epoch。"
            if epochs and epochs > 3
            else "。"
        ),
        f"Against the {'' if n_run < 2 else f'{num(n_run)} × '}{num(s.period_hours)} hours"
        + (f" (= {num(gpu_h)} GPU-hours)" if n_run > 1 else "")
        + f": the estimate is about {hrs(hours.get('mid'))} hours "
        f"(range {hrs(hours.get('low'))}–{hrs(hours.get('high'))})"
        + (
            f"; time is proportional to the epochs, and {num(epochs)} epochs is the main driver (1–3 is usual)."
            if epochs and epochs > 3
            else "."
        ),
    )


def _no_data_for_measured(w: Writer, r: ToolResult, ctx: Context) -> None:
    """「70B的训练3个epoch要80h」 with no data size: the estimate ran on an example corpus, so it cannot say whether
    the run is slow; what the user's own figures give is the time per epoch (time is proportional to epochs), then
    where speed is usually lost."""
    res = r.result
    measured = res.get("measured_hours") or ctx.slots.period_hours
    per_epoch = res.get("measured_hours_per_epoch")
    lines: list[str] = []
    # only epochs the user said: with none, the call carries the example's assumed count, and dividing by it is a guess
    epochs = r.args.get("epochs") if ctx.slots.epochs else None
    if per_epoch and measured and epochs:
        lines.append(
            w.t(
                f"{num(measured)} 小时 ÷ {num(epochs)} 个 epoch ≈ 每个 epoch {num(per_epoch)} 小时：时间和轮数成正比，"
                f"只训 1 个 epoch 约 {num(per_epoch)} 小时——这是最直接的提速办法。",
                f"{num(measured)} hours ÷ {num(epochs)} epochs ≈ {num(per_epoch)} hours per epoch: time is proportional "
                f"to the epochs, so training one epoch takes about {num(per_epoch)} hours — the most direct speed-up.",
            )
        )
    lines.append(
        w.t(
            f"你没给数据量（样本数 × 每条长度，或总 token 数），所以判断不了这 {num(measured)} 小时是快是慢；后面的估算用的是"
            "示例数据量，不能拿来和你的实测比。给出数据量和卡数，我按 6·N·D 算出应有的时间再对照。",
            f"The data size (samples × length, or total tokens) was not given, so whether the {num(measured)} hours are "
            "slow cannot be judged; the estimate further down runs on an example corpus and is not comparable with your "
            "run. Give the data size and the GPU count and I will work out the expected time by 6·N·D and compare.",
        )
    )
    causes = _slow_causes(ctx, r)
    if causes:
        lines.append(
            w.t(
                "常见的拖慢原因：" + "；".join(c[0] for c in causes[:3]) + "。",
                "Where speed is usually lost: " + "; ".join(c[1] for c in causes[:3]) + ".",
            )
        )
    for k, line in enumerate(lines):
        w.parts["verdict"].insert(w.part_start + k, line)


def _normal_or_slow(w: Writer, r: ToolResult, ctx: Context) -> None:
    """ "17 小时正常吗": lead with 正常 / 偏慢 / 偏快 (the tool's measured_verdict), and the likely cause when slow."""
    res = r.result
    hours, verdict_kind = res.get("wall_hours") or {}, res.get("measured_verdict")
    measured, lo, hi = res.get("measured_hours"), hours.get("low"), hours.get("high")
    if not verdict_kind or not measured or not lo or not hi:
        return
    if verdict_kind == "slow":
        causes = _slow_causes(ctx, r)
        zh = "；".join(c[0] for c in causes[:3])
        en = "; ".join(c[1] for c in causes[:3])
        far = (res.get("measured_vs_high") or 0) >= 3
        line = w.t(
            ("偏慢，不合理" if far else "偏慢")
            + f"：这 {num(measured)} 小时约是估算上限（{hrs(hi)} 小时）的 {num(res.get('measured_vs_high'))} 倍。"
            f"最可能的原因：{zh}。",
            ("Slower than expected — not reasonable" if far else "Slower than expected")
            + f": the {num(measured)} hours are about {num(res.get('measured_vs_high'))}× the "
            f"estimate's upper end ({hrs(hi)} hours). Most likely causes: {en}.",
        )
    elif verdict_kind == "fast":
        line = w.t(
            f"比估算快得多：这 {num(measured)} 小时明显短于估算下限（{hrs(lo)} 小时），先核对数据量、轮数和是否打包（packing）或截断。",
            f"Much faster than the estimate: the {num(measured)} hours are well under its lower end ({hrs(lo)} hours); "
            "check the data size, epochs, and whether samples are packed or truncated.",
        )
    elif verdict_kind == "slightly_fast":
        line = w.t(
            f"正常，而且略快于估算：这 {num(measured)} 小时比估算区间（{hrs(lo)}–{hrs(hi)} 小时）的下限还短一点，效率不错。",
            f"Normal, even a little faster than estimated: the {num(measured)} hours are just under the estimate's "
            f"range ({hrs(lo)}–{hrs(hi)} hours), so the run is efficient.",
        )
    else:
        line = w.t(
            f"正常：这 {num(measured)} 小时在估算区间（{hrs(lo)}–{hrs(hi)} 小时）之内"
            + ("（接近上限）" if measured > hi else "")
            + "，这个配置本来就要这么久。",
            f"Normal: the {num(measured)} hours are within the estimate ({hrs(lo)}–{hrs(hi)} hours"
            + (", near the upper end" if measured > hi else "")
            + "); this setup simply takes that long.",
        )
    if res.get("precision_used") in ("fp32", "tf32") and verdict_kind != "fast":
        line += w.t(
            f"不过这是按 {res.get('precision_used')} 的算力（{num(res.get('peak_tflops_per_gpu'))} TFLOPS）估的："
            "改用 bf16 混合精度，张量核的稠密算力高得多，同样的任务会快几倍。",
            f" That is at {res.get('precision_used')} speed ({num(res.get('peak_tflops_per_gpu'))} TFLOPS), "
            "though: bf16 mixed precision runs the tensor cores at a far higher dense peak, several times faster.",
        )
    w.parts["verdict"].insert(w.part_start, line)


@renderer("rescale_training_time")
def rescale_training_time(w: Writer, r: ToolResult, ctx: Context) -> None:
    """The user's arithmetic redone with dense peaks: a sparse figure corrected first, then the hours."""
    res = r.result
    if any(e.result.get("tokens_in_measured_hours") for e in ctx.by_name("estimate_training_time")):
        return  # quoted as the faster option beside the measured hours (_measured_tokens_verdict)
    sparse = [q for q in res.get("quoted") or [] if isinstance(q, dict) and q.get("kind") == "sparse"]
    for q in sparse:
        w.add(
            "verdict",
            f"算式里的 {num(q.get('value'))} TFLOPS 是 {str(q.get('gpu')).replace('NVIDIA ', '')} 的 2:4 稀疏（sparsity）算力，"
            f"稠密训练用不到；稠密是 {num(q.get('dense'))} TFLOPS。",
            f"The {num(q.get('value'))} TFLOPS in your arithmetic is the {str(q.get('gpu')).replace('NVIDIA ', '')}'s "
            f"2:4-sparsity figure, which dense training never uses; dense is {num(q.get('dense'))} TFLOPS.",
        )
    if ctx.intent == "carry_run":
        _carried_run(w, r, ctx)
        return
    ratio = res.get("efficiency_ratio")
    n_ref, ref_h = r.args.get("ref_gpus") or 1, r.args.get("ref_hours")
    # their run in GPU-hours (8 × 8 h = 64): the figure that carries to any card count at the same efficiency
    gh = n_ref * float(ref_h) if n_ref > 1 and isinstance(ref_h, (int, float)) else None
    gh_zh = f"（对方合计 {num(n_ref)} × {num(ref_h)} 小时 = {num(round(gh, 1))} 卡时）" if gh else ""
    gh_en = f" (theirs is {num(n_ref)} × {num(ref_h)} h = {num(round(gh, 1))} GPU-hours)" if gh else ""
    actual = num(r.args.get("actual_hours"))
    slow = isinstance(ratio, (int, float)) and ratio < 0.8
    inv = round(1 / float(ratio), 1) if slow and ratio else 0.0  # how many times slower
    w.add(
        "verdict",
        f"按稠密算力重算：{res.get('arithmetic')}，同样效率下约 {num(res.get('hours'))} 小时{gh_zh}"
        + (
            f"；你的 {actual} 小时约慢 {num(inv)} 倍，效率（MFU）约是对方的 {num(ratio)} 倍。"
            if slow
            else f"；你实际是 {actual} 小时，效率（MFU）约是对方的 {num(ratio)} 倍。"
            if ratio
            else "。"
        ),
        f"Redone with dense peaks: {res.get('arithmetic')}, about {num(res.get('hours'))} hours at the same "
        f"efficiency{gh_en}"
        + (
            f"; your {actual} hours are about {num(inv)}× slower, about {num(ratio)}× their efficiency (MFU)."
            if slow
            else f"; your {actual} hours mean your run reached about {num(ratio)}× their efficiency (MFU)."
            if ratio
            else "."
        ),
    )
    if slow:
        w.add(
            "next",
            "慢这么多多半不在卡上：先看训练时 nvidia-smi 的 GPU 利用率，低就是数据加载/预处理跟不上（加大 DataLoader 的 "
            "num_workers、提前做好图像/音频预处理）；再核对精度（bf16 而不是 fp32）、是否开了 FlashAttention、序列长度和 "
            "epoch 数是否和对方一致。",
            "A gap that large is rarely the card: watch GPU utilisation in nvidia-smi while it trains — low means data "
            "loading or preprocessing cannot keep up (raise the DataLoader's num_workers, preprocess images/audio "
            "ahead); then check precision (bf16, not fp32), FlashAttention, and that sequence length and epochs "
            "match theirs.",
        )
    batch_limit_note(w, ctx)
    for note in res.get("notes") or []:
        if isinstance(note, str) and "稀疏" not in note:
            w.add("assumptions", bi(note, "zh"), bi(note, "en"))


def batch_limit_note(w: Writer, ctx: Context) -> None:
    """ "batch size 最大只能 16，合理吗": the per-card batch is set by memory; the paper's global batch is reached
    with gradient accumulation (global = per-card batch × cards × accumulation steps), at the same time per sample."""
    if "batch_limit" not in ctx.said:
        return
    w.add(
        "next",
        "每卡 batch 的上限由显存决定，单卡上比论文小是正常的；要达到论文的全局 batch，用梯度累积（gradient accumulation，"
        "如 gradient_accumulation_steps = 全局 batch ÷ (每卡 batch × 卡数)），优化效果等价，每个样本的计算量不变，所以总时长基本不变。",
        "The per-card batch is capped by memory, so a smaller one than the paper's on one card is normal; reach the "
        "paper's global batch with gradient accumulation (gradient_accumulation_steps = global batch ÷ (per-card "
        "batch × GPUs)) — equivalent for the optimiser, same compute per sample, so the total time hardly changes.",
    )


def _span(w: Writer, lo: object, hi: object, hours: object, hi_hours: object = None) -> str:
    """'61–123 天' / 'about 15–20 hours': days once the run is two days or more, else hours."""
    if isinstance(hours, (int, float)) and hours < 48:
        a, b = (
            hrs(round(float(hours), 1)),
            hrs(round(float(hi_hours if isinstance(hi_hours, (int, float)) else hours), 1)),
        )
        return w.t(f"{a}–{b} 小时", f"{a}–{b} hours") if a != b else w.t(f"{a} 小时", plural(a, "hour"))
    a, b = hrs(lo), hrs(hi)
    return w.t(f"{a}–{b} 天", f"{a}–{b} days") if a != b else w.t(f"{a} 天", plural(a, "day"))


def _one(w: Writer, hours: object, lead_hours: object) -> str:
    """One figure in the lead's unit: hours when the lead is in hours (< 48 h), else days."""
    h = float(hours) if isinstance(hours, (int, float)) else 0.0
    if isinstance(lead_hours, (int, float)) and lead_hours < 48:
        return w.t(f"{hrs(round(h, 1))} 小时", plural(hrs(round(h, 1)), "hour"))
    return w.t(f"{hrs(round(h / 24, 1))} 天", plural(hrs(round(h / 24, 1)), "day"))


def _carried_run(w: Writer, r: ToolResult, ctx: Context) -> None:
    """A published or measured run on the user's card: the band of days leads, then which assumption gives which end."""
    res, a = r.result, r.args
    ref, mine = (str(res.get(k) or "").replace("NVIDIA ", "") for k in ("ref_gpu", "gpu"))
    n_ref, n = a.get("ref_gpus") or 1, a.get("n_gpus") or 1
    band = _span(w, res.get("low_days"), res.get("high_days"), res.get("low_hours"), res.get("high_hours"))
    first = not ctx.by_name("rescale_training_time") or ctx.by_name("rescale_training_time")[0] is r
    total = res.get("ref_total_hours")
    if a.get("ref_seconds_per_unit"):
        unit = a.get("unit") or "step"
        head_zh = (
            f"按实测速度 {num(a.get('ref_seconds_per_unit'))} 秒/{unit} × {num(a.get('ref_units'))} {unit}，"
            f"{num(n_ref)} × {ref} 跑完要 {hrs(total)} 小时（约 {hrs(round(float(total or 0) / 24, 1))} 天）"
        )
        head_en = (
            f"At the measured {num(a.get('ref_seconds_per_unit'))} s/{unit} × {num(a.get('ref_units'))} {unit}, "
            f"{num(n_ref)} × {ref} needs {hrs(total)} hours (about {hrs(round(float(total or 0) / 24, 1))} days)"
        )
    else:
        head_zh = f"按 {num(n_ref)} × {ref} 用 {hrs(total)} 小时（{hrs(res.get('ref_gpu_hours'))} 卡时）"
        head_en = f"From {num(n_ref)} × {ref} taking {hrs(total)} hours ({hrs(res.get('ref_gpu_hours'))} GPU-hours)"
    same = res.get("ref_gpu") == res.get("gpu") and n_ref == n
    if same:
        w.add("verdict", head_zh + "。", head_en + ".")
        return
    lead_zh = f"{'约 ' if first else '对照：'}{band}：{head_zh}，换到 {num(n)} × {mine}"
    lead_en = f"{'About ' if first else 'Cross-check: '}{band}: {head_en}, carried to {num(n)} × {mine}"
    if not first:
        lead_zh = f"对照：{head_zh}，换到 {num(n)} × {mine} 约 {band}"
        lead_en = f"Cross-check: {head_en}; on {num(n)} × {mine} that is about {band}"
    w.add("verdict", lead_zh + "。", lead_en + ".")
    bw = res.get("bandwidth_hours")
    if res.get("ref_gpu") == res.get("gpu"):  # same card, other count: GPU-hours ÷ cards, assuming linear scaling
        w.add(
            "verdict",
            f"同一种卡只换卡数：{res.get('arithmetic')}，假设多卡加速是线性的（数据并行，通信被计算掩盖）。",
            f"Same card, another count: {res.get('arithmetic')}, assuming linear scaling (data parallel, "
            "communication hidden behind compute).",
        )
    else:
        compute_t, bw_t = _one(w, res.get("hours"), res.get("low_hours")), _one(w, bw, res.get("low_hours"))
        w.add(
            "verdict",
            f"按稠密 fp16/bf16 算力（{num(res.get('ref_dense_tflops'))} vs {num(res.get('dense_tflops'))} TFLOPS）约 "
            f"{compute_t}（{res.get('arithmetic')}），这是算力受限（大矩阵乘，如大模型）的估计"
            + (
                f"；按显存带宽（{num(res.get('ref_bandwidth_gbs'))} vs {num(res.get('bandwidth_gbs'))} GB/s）约 "
                f"{bw_t}（{res.get('bandwidth_arithmetic')}），是受显存读写限制（卷积、GAN、扩散模型小 batch）的估计。"
                if bw
                else "。"
            ),
            f"By dense fp16/bf16 compute ({num(res.get('ref_dense_tflops'))} vs {num(res.get('dense_tflops'))} "
            f"TFLOPS) about {compute_t} ({res.get('arithmetic')}), the estimate for a compute-bound job "
            "(large matmuls, LLMs)"
            + (
                f"; by memory bandwidth ({num(res.get('ref_bandwidth_gbs'))} vs {num(res.get('bandwidth_gbs'))} "
                f"GB/s) about {bw_t} ({res.get('bandwidth_arithmetic')}), the estimate for a memory-bound one "
                "(convolutions, GANs, diffusion at small batch)."
                if bw
                else "."
            ),
        )
    if first:
        w.add(
            "next",
            "最准的办法：在你的卡上跑几百步，看日志里的每步秒数（或 s/kimg），乘以总步数；显存不够时要减小 batch、开梯度"
            "累积，步数不变、时间按上面的算。",
            "Most accurate: run a few hundred steps on your card, read the seconds per step (or s/kimg) from the log and "
            "multiply by the total steps; if memory is short, lower the batch and use gradient accumulation — the "
            "total work, and so the time above, stays the same.",
        )
        for note in res.get("notes") or []:
            if isinstance(note, str) and "稀疏" not in note:
                w.add("assumptions", bi(note, "zh"), bi(note, "en"))
        w.add(
            "sources",
            "算力与带宽：NVIDIA 各卡数据手册（knowledge/gpus.yaml 每行的 source）",
            "Compute and bandwidth: each card's NVIDIA datasheet (the source of each row of knowledge/gpus.yaml)",
        )


@renderer("compute_budget")
def compute_budget(w: Writer, r: ToolResult, ctx: Context) -> None:
    """Days for the size asked (6·N·D at an MFU band), then the largest compute-optimal model for the time budget."""
    res = r.result
    card = str(res.get("gpu") or "").replace("NVIDIA ", "")
    n = res.get("n_gpus") or 1
    mfu = res.get("mfu") or {}
    mfu_txt = f"{pct(mfu.get('low'))}–{pct(mfu.get('high'))}"
    days = res.get("days") or {}
    gh = res.get("gpu_hours") or {}
    if days:
        size = f"{float(res.get('params') or 0) / 1e9:.3g}B"
        t = float(res.get("tokens") or 0)
        toks = w.t(f"{t / 1e8:.3g} 亿 token", f"{t / 1e9:.3g}B tokens")
        basis = res.get("tokens_basis")
        why_zh = {
            "compute_optimal": "（每参数 20 token 的算力最优配比）",
            "audio": "（音频时长 × 编解码器每秒 token 数）",
        }
        why_en = {
            "compute_optimal": " (the compute-optimal 20 tokens per parameter)",
            "audio": " (audio hours × the codec's tokens per second)",
        }
        budget = res.get("budget_days")
        fit_zh = fit_en = ""
        if res.get("fits_budget") is not None:
            fit_zh = "能，" if res.get("fits_budget") else "不能，"
            fit_en = "Yes: " if res.get("fits_budget") else "No: "
        w.add(
            "verdict",
            f"{fit_zh}{num(n)} × {card} 训练 {size}、{toks}{why_zh.get(str(basis), '')}约 "
            f"{hrs(days.get('low'))}–{hrs(days.get('high'))} 天（{hrs(gh.get('low'))}–{hrs(gh.get('high'))} 卡时，"
            f"MFU {mfu_txt}）"
            + (
                f"，在 {num(budget)} 天之内。"
                if budget and res.get("fits_budget")
                else "。"
                if not budget
                else f"，超过 {num(budget)} 天。"
            ),
            f"{fit_en}{size} on {toks}{why_en.get(str(basis), '')} takes about {hrs(days.get('low'))}–"
            f"{hrs(days.get('high'))} days on {num(n)} × {card} ({hrs(gh.get('low'))}–{hrs(gh.get('high'))} GPU-hours "
            f"at {mfu_txt} MFU)"
            + (
                f", within {num(budget)} days."
                if budget and res.get("fits_budget")
                else "."
                if not budget
                else f", more than {num(budget)} days."
            ),
        )
        w.add(
            "verdict",
            f"算法（训练计算量 C = 6·N·D）：{res.get('arithmetic')}。",
            f"How (training compute C = 6·N·D): {res.get('arithmetic')}.",
        )
    largest = res.get("largest_params_b") or {}
    if largest:
        toks_b = res.get("largest_tokens_b") or {}
        w.add(
            "verdict",
            f"{num(res.get('budget_days'))} 天、{num(n)} × {card} 按算力最优（每参数 20 token）最多训约 "
            f"{hrs(largest.get('low'))}–{hrs(largest.get('high'))}B 参数的模型（约 {big(toks_b.get('low'))}–"
            f"{big(toks_b.get('high'))}B token）：{res.get('inverse_arithmetic')}。",
            f"In {num(res.get('budget_days'))} days {num(n)} × {card} trains a compute-optimal (20 tokens per parameter) "
            f"model of about {hrs(largest.get('low'))}–{hrs(largest.get('high'))}B parameters (about "
            f"{big(toks_b.get('low'))}–{big(toks_b.get('high'))}B tokens): {res.get('inverse_arithmetic')}.",
        )
    if ctx.by_name("compute_budget") and ctx.by_name("compute_budget")[0] is not r:
        return
    w.add(
        "assumptions",
        f"MFU（实际达到的模型算力 ÷ 卡数 × 稠密峰值）取 {mfu_txt}：{res.get('mfu_basis_zh') or res.get('mfu_basis')}。",
        f"MFU (achieved model FLOP/s ÷ cards × dense peak) of {mfu_txt}: {res.get('mfu_basis')}.",
    )
    for note in res.get("notes") or []:
        if isinstance(note, str):
            w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    for src in res.get("sources") or []:
        w.add("sources", f"出处：{src}", str(src))


# ---------------------------------------------------------------- plans -------------------------
def _option_line(w: Writer, o: dict) -> tuple[str, str]:
    card = str(o.get("gpu_name") or o.get("gpu") or "").replace("NVIDIA ", "").replace("GeForce ", "")
    nodes = o.get("nodes") or 1
    where_zh = f"，{num(nodes)} 台" if nodes > 1 else ""
    where_en = f", {num(nodes)} servers" if nodes > 1 else ""
    cost, days = o.get("cost_cny") or {}, o.get("days") or {}
    per_hour = "hour" in str(o.get("cost_basis") or "") and "whole run" not in str(o.get("cost_basis") or "")
    per_month = "month" in str(o.get("cost_basis") or "")
    if cost.get("mid") is None:  # a card with no price row: say nothing rather than "None"
        cost_zh, cost_en = "价格表里没有它的租价", "no rental price in the table"
    elif per_hour:
        cost_zh, cost_en = f"整套约 {money(cost.get('mid'))}/小时", f"about {money(cost.get('mid'))}/hour for the set"
    elif per_month:
        cost_zh, cost_en = f"约 {money(cost.get('mid'))}/月", f"about {money(cost.get('mid'))}/month"
    else:
        cost_zh = f"总费用约 {money(cost.get('mid'))}（{money_range(cost.get('low'), cost.get('high'))}）"
        cost_en = f"total about {money(cost.get('mid'))} ({money_range(cost.get('low'), cost.get('high'))})"
    time_zh = f"，约 {gb(days.get('low'))}–{gb(days.get('high'))} 天" if days.get("mid") is not None else ""
    time_en = f", about {gb(days.get('low'))}–{gb(days.get('high'))} days" if days.get("mid") is not None else ""
    head = f"{num(o.get('count'))} × {card}"
    link_zh, link_en = bi(str(o.get("interconnect") or ""), "zh"), bi(str(o.get("interconnect") or ""), "en")
    return (
        f"{head}（{link_zh}{where_zh}）：每卡约 {gb(o.get('per_gpu_gb'))} GB{time_zh}，{cost_zh}",
        f"{head} ({link_en}{where_en}): about {gb(o.get('per_gpu_gb'))} GB per GPU{time_en}, {cost_en}",
    )


def _budget_verdict(w: Writer, res: dict, feasible: list[dict], ctx: Context) -> None:
    """ "预算2千块能微调吗": yes/no first — how many hours the budget rents of the cheapest option that fits."""
    budget = res.get("budget_cny")
    asks = "yes_no" in ctx.said
    if not budget or res.get("tokens") or res.get("deadline_hours") or not asks:
        return  # with a deadline or data size, the plan's own cost figures answer it
    if not feasible:
        w.add(
            "verdict",
            f"按 {money(budget)} 的预算不行：没有能放下这个任务的配置。",
            f"Not within {money(budget)}: no configuration fits the job.",
        )
        return
    price = next((p.result for p in ctx.by_name("gpu_price") if p.result.get("period_hours")), None)
    if not price:
        return
    best = feasible[0]
    card = str(best.get("gpu_name") or "").replace("NVIDIA ", "").replace("GeForce ", "")
    hours, hourly = price.get("period_hours"), (price.get("hourly_cny") or {}).get("typical")
    total = (price.get("total_cny") or {}).get("typical")
    mode = {
        "lora": ("LoRA 微调", "LoRA fine-tuning"),
        "qlora": ("QLoRA 微调", "QLoRA fine-tuning"),
        "full": ("全量训练", "full fine-tuning"),
        "inference": ("推理", "serving"),
    }.get(str(res.get("mode")), ("", ""))
    w.add(
        "verdict",
        f"能，{money(budget)} 够用：{mode[0]}放得进 {num(best.get('count'))} 张 {card}（每卡约 {gb(best.get('per_gpu_gb'))} GB），"
        f"按典型价 {money(hourly)}/卡时，{money(budget)} 能租约 {big(hours)} 小时（{big(hours)} 小时约 {money(total)}）。"
        "只要训练在这个时长内跑完，就在预算内。",
        f"Yes, {money(budget)} is enough: {mode[1]} fits {num(best.get('count'))} × {card} (about "
        f"{gb(best.get('per_gpu_gb'))} GB per GPU); at the typical {money(hourly)}/card-hour, {money(budget)} rents about "
        f"{big(hours)} hours ({big(hours)} hours ≈ {money(total)}). As long as training finishes within that, it is "
        "within budget.",
    )
    w.add(
        "next",
        "告诉我数据量（样本数 × 序列长度 × 轮数），我算出要跑多少小时，看看离预算还有多远。",
        "Tell me the data size (samples × sequence length × epochs) and I will work out the hours needed against the budget.",
    )


@renderer("plan_configurations")
def plan_configurations(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    options = [o for o in res.get("options") or [] if isinstance(o, dict)]
    feasible = [o for o in options if o.get("feasible", True)]
    _budget_verdict(w, res, feasible, ctx)
    if feasible:
        zh, en = _option_line(w, feasible[0])
        w.add("verdict", "首选：" + zh + "。", "Best option: " + en + ".")
        why = feasible[0].get("why")
        if why:
            w.add("verdict", bi(why, "zh"), bi(why, "en"))
    else:
        w.add("verdict", "在你给的条件下找不到可行的配置。", "No configuration meets the constraints you gave.")
        for e in ctx.by_name("estimate_memory"):  # why: the job's memory against the card asked for
            sentence = fit_sentence(w, e.result, lead=False)
            if sentence:
                w.add("verdict", *sentence)
            if e.result.get("mode") == "full":
                seed_rule_line(w, e.result)
        if res.get("mode") == "full":
            w.add(
                "next",
                "全量放不下时的常见做法：LoRA 只训练很小的适配器（基座权重以 bf16 常驻、不存优化器状态），QLoRA 再把基座压到 4 位；"
                "可以接着问「LoRA 要几张卡」或「QLoRA 呢」。",
                "When a full fine-tune cannot fit: LoRA trains small adapters only (the base stays in bf16 with no optimizer "
                'states), and QLoRA also quantises the base to 4 bits; ask next "how many GPUs for LoRA?" or "and QLoRA?".',
            )
    if ctx.slots.finetune and not ctx.slots.mode and res.get("mode") == "lora":
        w.add(
            "assumptions",
            "你说的是「微调」，没说全量还是 LoRA，这里按 LoRA 算；要全量微调可以接着问「全量呢」。",
            'You said fine-tune without saying full or LoRA, so LoRA is assumed; ask "what about full fine-tuning?" '
            "for the other.",
        )
    budget, deadline = res.get("budget_cny"), res.get("deadline_hours")
    if budget or deadline:
        w.add(
            "assumptions",
            "约束："
            + "，".join(
                x
                for x in (f"预算 {money(budget)}" if budget else "", f"工期 {num(deadline)} 小时内" if deadline else "")
                if x
            ),
            "Constraints: "
            + ", ".join(
                x
                for x in (
                    f"budget {money(budget)}" if budget else "",
                    f"finish within {plural(deadline, 'hour')}" if deadline else "",
                )
                if x
            ),
        )
    for o in feasible[1:5]:
        zh, en = _option_line(w, o)
        note = bi(o.get("why") or "", w.lang)
        w.add(
            "alternatives",
            f"#{num(o.get('rank'))} {zh}" + (f"（{note}）" if note else ""),
            f"#{num(o.get('rank'))} {en}" + (f" ({note})" if note else ""),
        )
    for o in feasible[:1]:
        if o.get("billing"):
            w.add("next", bi(o["billing"], "zh"), bi(o["billing"], "en"))
        for note in o.get("notes") or []:
            w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    for bad in (res.get("infeasible") or [])[:3]:
        if isinstance(bad, dict):
            card = str(bad.get("gpu_name") or bad.get("gpu") or "")
            reason = bad.get("why") or bad.get("reason") or ""
            w.add(
                "findings",
                f"不可行：{card} — {bi(str(reason), 'zh')}",
                f"Not feasible: {card} — {bi(str(reason), 'en')}",
            )
    for a in (res.get("assumptions") or [])[:4]:
        w.add("assumptions", *zh_en(a))
    if res.get("tokens") is None and res.get("mode") != "inference":
        w.add(
            "next",
            "告诉我训练数据量（token 数，或样本数 × 序列长度 × 轮数），就能算出要跑几天、总共花多少钱。",
            "Tell me the training data size (tokens, or samples × sequence length × epochs) to get days and total cost.",
        )
    if res.get("warning"):
        w.add("next", *zh_en(res["warning"]))


# registers the card-choice and serving renderers (imported last: they import this module's helpers)
from assistant.offline.writing import (  # noqa: E402,F401
    render_choice,
    render_largest,
    render_pretraining,
    render_prices,
    render_rule_check,
    render_serving,
)
