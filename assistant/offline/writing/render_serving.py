"""Renderers for serving and renting: `plan_serving` (self-host vs API), `gpu_rentability` (how a card
can be rented), `estimate_step_time` (compute vs communication), and the usage plan of `gpu_price`.
Line 1 answers the question asked, with the tool's own figures."""

from __future__ import annotations

import re
import weakref
from typing import Any

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import _RENDERERS, Context, bi, money, money_range, pct, renderer, zh_en
from assistant.offline.writing.results import typed


def _api_name(api: dict[str, Any], lang: str) -> str:
    """Provider + model; in English the provider's Chinese name is left out ("阿里云百炼 (DashScope)" →
    "DashScope"), or the writer would drop the whole English line as Chinese."""
    provider = str(api.get("provider") or "")
    if lang == "en":
        provider = re.sub(r"[\u3400-\u9fff]+", " ", provider)
        provider = re.sub(r"^\s*\((.*)\)\s*$", r"\1", provider.strip())
        provider = re.sub(r"\s+", " ", provider).strip()
    return f"{provider} {api.get('api')}".strip()


def _mtok_zh(m: float) -> str:
    """Millions of tokens in Chinese units: 500 → '5 亿', 30 → '3,000 万'."""
    return f"{m / 100:.3g} 亿" if m >= 100 else f"{m * 100:,.0f} 万"


def _count_zh(n: float) -> str:
    """A count in Chinese units, ready for a measure word: 100000 → '10 万', 3000000 → '300 万', 800 → '800 '."""
    return f"{n / 1e8:.3g} 亿" if n >= 1e8 else f"{n / 1e4:.4g} 万" if n >= 1e4 else f"{n:,.0f} "


def _mtok_en(m: float) -> str:
    return f"{m / 1000:.3g}B" if m >= 1000 else f"{m:.3g}M"


def _api(res: dict[str, Any]) -> dict[str, Any] | None:
    """The like-for-like API (same open-weight family) first, else the first listed."""
    apis = [a for a in res.get("apis") or [] if isinstance(a, dict)]
    return next((a for a in apis if a.get("same_model")), apis[0] if apis else None)


@renderer("plan_serving")
def plan_serving(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    card = str(res.get("gpu_name") or res.get("gpu") or "").replace("NVIDIA ", "")
    setup = f"{num(res.get('tensor_parallel') or 1)}×{card}"
    per_m = (res.get("cost_per_mtok_cny") or {}).get("mid")
    monthly = res.get("monthly_cost_cny")
    vol = r.args.get("monthly_output_mtok")
    api = _api(res)
    be = (api or {}).get("break_even_output_mtok_per_month")
    if ctx.intent == "host_vs_api" and not vol and api and be and isinstance(monthly, (int, float)):
        _break_even_lead(w, res, api, be, setup, monthly, ctx.slots.load.per_day)
    if ctx.intent == "host_vs_api" and not vol:
        _host_vs_api(w)
    if ctx.intent == "ollama_parallel":
        from assistant.offline.writing.render_tools import guide_snippets

        guide_snippets(w, ctx.results, limit=1, section="verdict", max_chars=700, question=ctx.question)
    if ctx.intent in ("team_serving", "ollama_parallel") and res.get("fits", True):
        _team_lines(w, r, ctx)
    elif not res.get("fits", True):
        prec = str(r.args.get("precision") or "bf16").upper()
        ctx_len = r.args.get("context") or 4096
        fix_zh = "加卡、量化（INT8/FP8/INT4）" if prec not in ("INT4",) else "加卡、KV 缓存用 FP8"
        fix_en = "add GPUs, quantise (INT8/FP8/INT4)" if prec not in ("INT4",) else "add GPUs, use an FP8 KV cache"
        w.add(
            "verdict",
            f"{res.get('model')} {prec} 在 {setup} 上放不下：权重共 {num(res.get('weights_gb_total'))} GB"
            f"（每卡 {num(res.get('weights_gb_per_gpu'))} GB），每卡可用约 {num(res.get('usable_gb_per_gpu'))} GB，"
            f"扣掉权重后剩的 KV 缓存不够一条 {num(ctx_len)} token 上下文的序列（每条每卡 KV {num(res.get('kv_gb_per_sequence_per_gpu'))} GB），"
            f"所以并发是 0、服务起不来；要{fix_zh}，或调小 max_model_len。",
            f"{res.get('model')} {prec} does not fit {setup}: the weights total {num(res.get('weights_gb_total'))} GB "
            f"({num(res.get('weights_gb_per_gpu'))} GB per GPU) against about {num(res.get('usable_gb_per_gpu'))} GB usable "
            f"per GPU, which leaves too little KV cache for one {num(ctx_len)}-token context "
            f"({num(res.get('kv_gb_per_sequence_per_gpu'))} GB of KV per sequence per GPU), so concurrency is 0 and the "
            f"server will not start; {fix_en}, or lower max_model_len.",
        )
    elif vol and api and be and isinstance(monthly, (int, float)):
        api_month = monthly * vol / be  # the API bill is linear in volume; at break-even it equals the rent
        cheaper_api = vol < be
        name_zh, name_en = _api_name(api, "zh"), _api_name(api, "en")
        zh_head = "调 API 更便宜" if cheaper_api else "自建更便宜"
        en_head = "the API is cheaper" if cheaper_api else "self-hosting is cheaper"
        daily = ctx.slots.daily_tokens
        if daily:  # the user gave a daily volume: show the × 30 that made it monthly
            w.add(
                "numbers",
                f"用量：每天 {_mtok_zh(daily / 1e6)} token × 30 天 = 每月 {_mtok_zh(vol)} token（按输出 token 计，偏保守）",
                f"Volume: {_mtok_en(daily / 1e6)} tokens a day × 30 days = {_mtok_en(vol)} tokens a month (counted as "
                "output tokens, the conservative reading)",
            )
        if not api.get("same_model"):
            _unlike_api(w, res, api)
        cap = res.get("capacity_output_mtok_per_month")
        if isinstance(cap, (int, float)) and cap > 0 and vol > 0.5 * cap:
            w.add(
                "numbers",
                f"这套配置满载、全天不停每月约能输出 {_mtok_zh(cap)} token，你的用量占 {vol / cap:.0%}：真实流量忙闲不均，"
                "高峰时会排队，要按高峰加副本（成本随之翻倍）",
                f"At full load around the clock this setup outputs about {_mtok_en(cap)} tokens a month; your volume is "
                f"{vol / cap:.0%} of that. Real traffic is uneven, so peaks will queue: size replicas for the peak (the "
                "cost grows with them)",
            )
        w.add(
            "verdict",
            f"按每月 {_mtok_zh(vol)} 输出 token，{zh_head}：{name_zh} 约 {money(round(api_month))}/月"
            f"（输出 {money(api.get('output_cny_per_m'))}、输入 {money(api.get('input_cny_per_m'))}/百万 token），"
            f"自建 {setup} 约 {money(monthly)}/月（满载时 {money(per_m)}/百万输出 token）；"
            f"自建要每月超过 {_mtok_zh(be)} 输出 token 才划算。",
            f"At {_mtok_en(vol)} output tokens a month {en_head}: {name_en} costs about {money(round(api_month))}/month "
            f"(output {money(api.get('output_cny_per_m'))}, input {money(api.get('input_cny_per_m'))} per million tokens), "
            f"self-hosting on {setup} about {money(monthly)}/month ({money(per_m)} per million output tokens at full "
            f"load); self-hosting pays off above {_mtok_en(be)} output tokens a month.",
        )
    else:
        _capacity_verdict(w, r, setup, per_m)
    if ctx.intent == "host_vs_api" and vol:
        _host_vs_api(w, example_follows=False)  # after the verdict on the user's volume
    if api and be and not vol and ctx.intent != "host_vs_api":
        w.add(
            "numbers",
            f"对比 {_api_name(api, 'zh')}（输出 {money(api.get('output_cny_per_m'))}/百万 token）："
            f"每月超过 {_mtok_zh(be)} 输出 token 自建才划算",
            f"Against {_api_name(api, 'en')} ({money(api.get('output_cny_per_m'))} per million output "
            f"tokens): self-hosting pays off above {_mtok_en(be)} output tokens a month",
        )
    if isinstance(monthly, (int, float)):
        w.add(
            "numbers",
            f"租金 {money(monthly)}/月（{res.get('rent_unit')}），KV 缓存最多 {num(res.get('max_concurrency'))} 路、"
            f"整机输出约 {num(round((res.get('server_output_tokens_per_s') or {}).get('mid') or 0))} token/s",
            f"Rent {money(monthly)}/month ({res.get('rent_unit')}); the KV cache holds {num(res.get('max_concurrency'))} "
            f"requests; about {num(round((res.get('server_output_tokens_per_s') or {}).get('mid') or 0))} output "
            "tokens/s per server",
        )
    if ctx.intent == "serving" and r.args.get("input_tokens") and res.get("ttft_s"):
        # the prefill floor does not depend on whether the KV pool fits: it leads
        w.parts["verdict"].insert(
            w.part_start,
            w.t(
                f"首 token 慢是预填充（prefill）的算力下限：每个提示 token 约 2·N 次浮点运算，{num(r.args['input_tokens'])} token "
                f"的提示在 {card} 上约 {num((res.get('ttft_s') or {}).get('mid'))} 秒（区间 {num((res.get('ttft_s') or {}).get('low'))}–"
                f"{num((res.get('ttft_s') or {}).get('high'))} 秒）。这是 compute-bound，调度参数（chunked prefill 等）只能穿插，不能低于这个下限；"
                "要更快得换 TFLOPS 更高的卡，或多卡张量并行分摊。",
                f"A slow first token is prefill's compute floor: about 2·N FLOPs per prompt token, so a "
                f"{num(r.args['input_tokens'])}-token prompt on {card} takes about {num((res.get('ttft_s') or {}).get('mid'))} s "
                f"(range {num((res.get('ttft_s') or {}).get('low'))}–{num((res.get('ttft_s') or {}).get('high'))} s). It is "
                "compute-bound: scheduler flags (chunked prefill and the like) interleave work but cannot go below it; a GPU "
                "with more dense TFLOPS, or tensor parallel over several GPUs, shortens it.",
            ),
        )
    if ctx.intent == "serving" and len(ctx.slots.gpus) >= 2 and res.get("decode_bound"):
        bound = res.get("decode_bound")
        w.add(
            "numbers",
            f"{card}：并发 {num(res.get('concurrency'))} 路时解码受{'算力（TFLOPS）' if bound == 'compute' else '显存带宽'}限制",
            f"{card}: at {num(res.get('concurrency'))} concurrent requests decoding is "
            f"{'compute-bound (TFLOPS)' if bound == 'compute' else 'memory-bandwidth bound'}",
        )
    if res.get("decode_bound") == "memory" and res.get("fits", True):
        w.add(
            "assumptions",
            "解码受显存带宽限制：每生成一步都要把权重从显存读一遍，同时在跑的多路请求共用这一遍读取，所以并发从 1 提到 8、16 时"
            "整机吞吐近似线性增长、每路速度只略降，直到算力或 KV 缓存容量见顶（连续批处理引擎就是靠这个提高吞吐）。",
            "Decoding is memory-bandwidth bound: every step reads the weights from memory once, and all concurrent "
            "requests share that read, so raising concurrency from 1 to 8 or 16 grows server throughput almost "
            "linearly while each user slows only a little, until compute or KV-cache capacity binds (this is what "
            "continuous batching exploits).",
        )
    if api and api.get("source"):
        w.add(
            "assumptions",
            f"API 价格 {api.get('as_of')}：{api.get('source')}；{res.get('engine')}",
            f"API price as of {api.get('as_of')}: {api.get('source')}; {res.get('engine')}",
        )
    for note in (res.get("warnings") or [])[:2]:
        if isinstance(note, str):
            w.add("assumptions", bi(note, "zh"), bi(note, "en"))


def _capacity_verdict(w: Writer, r: ToolResult, setup: str, per_m: Any) -> None:
    """Concurrency and speed of one setup. With no concurrency given the question is how many requests it
    holds, so that leads; both counts are said: every request at the full context (what vLLM's startup log
    reports as "Maximum concurrency for N tokens per request") and typical requests (mean prompt + output)."""
    res = r.result
    tps, srv = res.get("tokens_per_s") or {}, res.get("server_output_tokens_per_s") or {}
    maxc, full = res.get("max_concurrency"), res.get("max_concurrency_full_context")
    ctx_len = r.args.get("context")
    typical = (int(r.args.get("input_tokens") or 1024), int(r.args.get("output_tokens") or 256))
    full_zh = full_en = ""
    if ctx_len and isinstance(full, int) and isinstance(maxc, int) and 0 < full < maxc:
        full_zh = f"每路都用满 {num(ctx_len)} token 上下文时最多 {num(full)} 路"
        full_en = f"with every request using the full {num(ctx_len)}-token context it holds {num(full)}"
    cost_zh = f"，满载成本约 {money(per_m)}/百万输出 token。" if per_m is not None else "。"
    cost_en = f"; about {money(per_m)} per million output tokens at full load." if per_m is not None else "."
    speed_zh = (
        f"每路约 {num(tps.get('mid'))} token/s，整机约 {num(round(srv.get('mid') or 0))} token/s，"
        f"首 token 约 {num((res.get('ttft_s') or {}).get('mid'))} 秒"
    )
    speed_en = (
        f"about {num(tps.get('mid'))} tokens/s per user, {num(round(srv.get('mid') or 0))} tokens/s per server, "
        f"first token in about {num((res.get('ttft_s') or {}).get('mid'))} s"
    )
    if r.args.get("concurrency") is None:
        lead_zh = (
            f"{res.get('model')} 用 {setup} 部署：{full_zh}；按典型请求（输入 {typical[0]} / 输出 {typical[1]} token）"
            f"KV 缓存最多放 {num(maxc)} 路，此时{speed_zh}"
            if full_zh
            else f"{res.get('model')} 用 {setup} 部署：KV 缓存最多放 {num(maxc)} 路并发，此时{speed_zh}"
        )
        lead_en = (
            f"{res.get('model')} on {setup}: {full_en} concurrent requests; with typical requests ({typical[0]} in / "
            f"{typical[1]} out tokens) the KV cache holds {num(maxc)}, at {speed_en}"
            if full_en
            else f"{res.get('model')} on {setup}: the KV cache holds up to {num(maxc)} concurrent requests, at {speed_en}"
        )
        w.add("verdict", lead_zh + cost_zh, lead_en + cost_en)
        return
    w.add(
        "verdict",
        f"{res.get('model')} 用 {setup} 部署：并发 {num(res.get('concurrency'))} 路时{speed_zh}；"
        f"KV 缓存最多放 {num(maxc)} 路" + (f"（{full_zh}）" if full_zh else "") + cost_zh,
        f"{res.get('model')} on {setup}: at {num(res.get('concurrency'))} concurrent requests {speed_en}; the KV cache "
        f"holds up to {num(maxc)} requests" + (f" ({full_en})" if full_en else "") + cost_en,
    )


def _team_lines(w: Writer, r: ToolResult, ctx: Context) -> None:
    """A team's service: cards for the stated load, tokens/s, KV per sequence, and what was assumed."""
    res, a = r.result, r.args
    card = str(res.get("gpu_name") or "").replace("NVIDIA ", "")
    t = res.get("tensor_parallel") or 1
    copies = res.get("replicas_needed") or 1
    cards = res.get("gpus_needed") or t
    conc, maxc = a.get("concurrency"), res.get("max_concurrency")
    tps = res.get("tokens_per_s") or {}
    prec = str(a.get("precision") or "bf16").upper()
    load_zh = f"峰值并发 {num(conc)} 路" if conc else ""
    load_en = f"a peak of {num(conc)} concurrent requests" if conc else ""
    rps = a.get("requests_per_s")
    if rps:
        need = res.get("required_output_tokens_per_s")
        load_zh += ("、" if load_zh else "") + f"每秒 {num(rps)} 个请求（约 {num(need)} 输出 token/s）"
        load_en += (" and " if load_en else "") + f"{num(rps)} requests/s (about {num(need)} output tokens/s)"
    if not load_zh:
        load_zh, load_en = "单份模型能撑住的最大并发", "the largest load one copy of the model holds"
    _daily_users_line(w, ctx, conc)
    w.add(
        "verdict",
        f"按{load_zh}、每次输入 {num(a.get('input_tokens'))} / 输出 {num(a.get('output_tokens'))} token 估："
        f"{res.get('model')} {prec} 要 {num(cards)} 张 {card}（{num(copies)} 份模型，每份 {num(t)} 卡）。"
        f"每份的 KV 缓存最多放 {num(maxc)} 路（每条序列 KV 约 {num(res.get('kv_gb_per_sequence_per_gpu'))} GB/卡），"
        f"每路约 {num(tps.get('mid'))} token/s，首 token 约 {num((res.get('ttft_s') or {}).get('mid'))} 秒。",
        f"For {load_en}, {num(a.get('input_tokens'))} prompt / {num(a.get('output_tokens'))} output tokens per request: "
        f"{res.get('model')} {prec} needs {num(cards)}× {card} ({num(copies)} copies of the model, {num(t)} GPU(s) each). "
        f"Each copy's KV cache holds up to {num(maxc)} requests (about {num(res.get('kv_gb_per_sequence_per_gpu'))} GB of "
        f"KV per sequence per GPU), about {num(tps.get('mid'))} tokens/s per user, first token in about "
        f"{num((res.get('ttft_s') or {}).get('mid'))} s.",
    )
    if not ctx.slots.model and not ctx.slots.params_b:
        w.add(
            "verdict",
            f"没说用哪个模型：按 {res.get('model')} {prec} 估（知识库问答常用的中等规模模型，一张消费级卡放得下权重）；"
            "换更小的模型权重和 KV 都更少、更大的更多——告诉我模型名能算准。",
            f"No model named: sized as {res.get('model')} {prec} (a common mid-size model for knowledge-base Q&A whose "
            "weights fit one consumer card); a smaller model needs less for weights and KV, a larger one more — name the "
            "model for an exact figure.",
        )
    w.add(
        "next",
        "用 vLLM / SGLang 这类连续批处理（continuous batching）的推理引擎：一份权重同时服务几十上百路，吞吐比逐个请求高得多；"
        "Ollama 的 OLLAMA_NUM_PARALLEL 适合几个人的小规模使用。",
        "Serve with a continuous-batching engine (vLLM, SGLang, TGI): one copy of the weights serves tens to hundreds "
        "of requests at once, far more throughput than one request at a time; Ollama's OLLAMA_NUM_PARALLEL suits a "
        "handful of users.",
    )
    w.add(
        "assumptions",
        "人数不等于并发：一个团队里同时在生成的请求通常只是其中一部分，按峰值并发或每秒请求数来算卡数。",
        "Head count is not concurrency: only part of a team generates at the same moment, so size by peak "
        "concurrency or requests per second.",
    )


def _daily_users_line(w: Writer, ctx: Context, conc: Any) -> None:
    """「日活 500」 sized at a peak concurrency: the conversion leads, with every assumption in it."""
    load = ctx.slots.load
    if not load.heads or load.concurrency or load.requests_per_s or ctx.slots.concurrency or ctx.slots.users:
        return
    from tools.serving_load import peak_concurrency

    p = peak_concurrency(load.heads)
    if p.sized_concurrency != conc:
        return
    line = w.t(
        f"{num(p.daily_users)} 个用户不等于 {num(p.daily_users)} 路并发：按每人每天 {num(p.requests_per_user_per_day)} 次请求、"
        f"最忙一小时占全天 {p.peak_hour_share:.0%}、每个请求占用约 {num(p.seconds_per_request)} 秒估算（Little 定律 L = λW），"
        f"高峰约 {num(p.daily_users)} × {num(p.requests_per_user_per_day)} × {p.peak_hour_share:.0%} ÷ 3600 ≈ "
        f"{num(p.peak_requests_per_s)} 次/秒、平均并发约 {num(p.mean_concurrency)} 路，留 {num(p.burst_factor)} 倍突发余量按 "
        f"{num(p.sized_concurrency)} 路并发配置（有监控数据时换成你的高峰每秒请求数和平均响应时间）。",
        f"{num(p.daily_users)} users are not {num(p.daily_users)} concurrent requests: assuming {num(p.requests_per_user_per_day)} "
        f"requests per user a day, {p.peak_hour_share:.0%} of them in the busiest hour and about "
        f"{num(p.seconds_per_request)} s per request (Little's law L = λW), the peak is about {num(p.daily_users)} × "
        f"{num(p.requests_per_user_per_day)} × {p.peak_hour_share:.0%} ÷ 3600 ≈ {num(p.peak_requests_per_s)} requests/s, "
        f"a mean concurrency of about {num(p.mean_concurrency)}; with a {num(p.burst_factor)}× burst margin this is "
        f"sized for {num(p.sized_concurrency)} concurrent requests (put in your own peak rate and response time if you "
        "have monitoring data).",
    )
    if line not in w.parts["verdict"]:
        w.parts["verdict"].insert(w.part_start, line)


@renderer("gpu_rentability")
def gpu_rentability(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    if res.get("note_zh"):
        w.add("verdict", str(res["note_zh"]), str(res.get("note_en") or res["note_zh"]))
    for m in res.get("markets") or []:
        if not isinstance(m, dict):
            continue
        unit_zh = "按卡" if m.get("unit") == "card" else "整台 8 卡"
        unit_en = "per card" if m.get("unit") == "card" else "whole 8-GPU servers"
        why_zh = f"：{m['why_zh']}" if m.get("why_zh") else ""
        why_en = f": {m['why_en']}" if m.get("why_en") else ""
        w.add(
            "numbers",
            f"{m.get('market_zh')}：{m.get('availability_zh')}（{unit_zh}）{why_zh}",
            f"{m.get('market_en')}: {m.get('availability')} ({unit_en}){why_en}",
        )
    if res.get("as_of"):
        w.add("assumptions", f"行情截至 {res['as_of']}", f"Market as of {res['as_of']}")


def _r(x: Any) -> Any:
    """Seconds to three significant figures (65.3558 → 65.4)."""
    return float(f"{x:.3g}") if isinstance(x, (int, float)) else x


@renderer("estimate_step_time")
def estimate_step_time(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    step, comp, exp = res.get("step_s") or {}, res.get("compute_s") or {}, res.get("exposed_comm_s") or {}
    mfu, share = res.get("mfu") or {}, res.get("comm_share")
    bw = res.get("busbw_gbs") or []
    link = r.args.get("network") or r.args.get("topology") or ""
    bw_txt = f"busbw {num(bw[0])}–{num(bw[-1])} GB/s" if bw else ""
    link_zh = f"{link} " if link else ""
    n, strat = res.get("n_gpus"), str(res.get("strategy") or "").upper()
    if isinstance(share, (int, float)):
        w.add(
            "verdict",
            f"{num(n)} 卡 {strat} 每步约 {num(_r(step.get('mid')))} 秒，其中计算 {num(_r(comp.get('mid')))} 秒、暴露的通信 "
            f"{num(_r(exp.get('mid')))} 秒：通信占 {pct(round(share, 2))}，有效 MFU 约 {pct(round(mfu.get('mid', 0), 3))}"
            f"（卡间链路 {link_zh}{bw_txt}）。",
            f"{num(n)} GPUs with {strat}: about {num(_r(step.get('mid')))} s a step, {num(_r(comp.get('mid')))} s of compute and "
            f"{num(_r(exp.get('mid')))} s of exposed communication: communication is {pct(round(share, 2))} of the step, "
            f"effective MFU about {pct(round(mfu.get('mid', 0), 3))} (link {link_zh}{bw_txt}).",
        )
    if res.get("note_zh"):
        w.add("numbers", str(res["note_zh"]), str(res.get("note_en") or res["note_zh"]))
    if res.get("overlap"):
        w.add("assumptions", "通信与计算重叠：" + str(res["overlap"]), "Overlap: " + str(res["overlap"]))


_PLAIN_GPU_PRICE = _RENDERERS.get("gpu_price")


def _own_vs_rent(w: Writer, r: ToolResult) -> None:
    """Buy or rent: keyed to the hours a month the card really works, with this card's prices."""
    res = r.result
    card = str(res.get("gpu_name") or "").replace("NVIDIA ", "")
    hourly, monthly = res.get("hourly_cny") or {}, res.get("monthly_cny") or {}
    be = res.get("break_even") or {}
    w.add(
        "verdict",
        f"买还是租，看利用率（每月真正开机干活的小时数）：{card} 按量约 {money(hourly.get('typical'))}/小时、包月约 "
        f"{money(monthly.get('typical'))}/月，一个月开机超过约 {num(be.get('hours_per_month_platform'))} 小时"
        f"（利用率 {pct(be.get('vs_platform_monthly'))}）包月才比按量便宜；买卡不管用不用都在折旧、要付电费和维护，"
        "只有长期满负荷使用才能回本。用量不确定（试验、原型、演示）时先按量（按小时）租，跑通、用量稳定后再考虑包月、长租或购买。",
        f"Buy or rent turns on utilisation (the hours a month the card really works): a {card} costs about "
        f"{money(hourly.get('typical'))}/h on demand or {money(monthly.get('typical'))}/month, and monthly beats hourly "
        f"only above about {num(be.get('hours_per_month_platform'))} hours a month ({pct(be.get('vs_platform_monthly'))} "
        "utilisation); a bought card depreciates and costs power and upkeep whether used or not, so it pays off only at "
        "steady high utilisation. While usage is uncertain (trials, prototypes, demos), rent by the hour; consider "
        "monthly plans, long leases or buying once the load is known.",
    )
    w.add(
        "next",
        "买卡的另外两点：数据不出自己机房（合规、隐私）；坏卡、扩容要自己处理。租卡注意关机后数据盘照样计费。",
        "Two more points on owning: data stays in your own room (compliance, privacy), but failed cards and growth "
        "are yours to handle. When renting, note that data disks keep billing after shutdown.",
    )


def _light_load(w: Writer, r: ToolResult, ctx: Context) -> None:
    """A small non-LLM model behind an API: the daily volume as a rate, and what an idle card costs."""
    load = ctx.slots.load
    res = r.result
    card = str(res.get("gpu_name") or "").replace("NVIDIA ", "")
    hourly, monthly = res.get("hourly_cny") or {}, res.get("monthly_cny") or {}
    volume_zh = f"每天 {num(load.per_day)} 次请求" if load.per_day else "这个请求量"
    volume_en = f"{num(load.per_day)} requests a day" if load.per_day else "That volume"
    w.add(
        "verdict",
        f"{volume_zh}平均下来每秒远不到 1 次（就算集中在白天的高峰也一样），一张小卡一次推理通常不到一秒，大部分时间在闲置。"
        f"所以按使用付费更省：按小时租、空闲时关机，或用 serverless / 按调用计费的推理服务；不要包月一直开着。"
        f"参考：{card} 按量约 {money(hourly.get('typical'))}/小时、包月约 {money(monthly.get('typical'))}/月（中国大陆行情）。",
        f"{volume_en} averages well under one request per second (even at a daytime peak), and a small model takes "
        "well under a second per request on one modest GPU, so the card would sit idle most of the time. Pay per use: "
        "rent by the hour and stop it when idle, or use a serverless / pay-per-call inference service, rather than a "
        f"GPU kept on all month. For reference, a {card} is about {money(hourly.get('typical'))}/hour on demand or "
        f"{money(monthly.get('typical'))}/month (China market).",
    )


def _china_beside_quote(w: Writer, r: ToolResult) -> None:
    """The same hours at China-market prices, beside the user's own quote (never a conversion of it)."""
    res = r.result
    card = str(res.get("gpu_name") or "").replace("NVIDIA ", "")
    hourly, total = res.get("hourly_cny") or {}, res.get("total_cny") or {}
    hours = r.args.get("hours")
    w.add(
        "numbers",
        f"对比中国大陆行情：{card} 典型 {money(hourly.get('typical'))}/卡时，{num(hours)} 小时约 {money(total.get('typical'))}"
        f"（{money_range(total.get('low'), total.get('high'))}）",
        f"For comparison, China market: {card} typically {money(hourly.get('typical'))} per card-hour, so {num(hours)} "
        f"hours ≈ {money(total.get('typical'))} ({money_range(total.get('low'), total.get('high'))})",
    )


def _break_even_lead(
    w: Writer,
    res: dict[str, Any],
    api: dict[str, Any],
    be: float,
    setup: str,
    monthly: float,
    requests_per_day: float | None = None,
) -> None:
    """No token volume given: the answer to "自建还是调API划算" is the break-even volume, so it leads. A request
    count ("每天10万次调用") turns it into output tokens per request (break-even ÷ 30 days ÷ requests a day), the
    one figure the user can check against their own replies — no reply length is assumed."""
    ask_zh, ask_en = (
        "告诉我每天大概多少 token，我按你的用量算。",
        "Tell me your daily token volume and I will work it out for yours.",
    )
    if requests_per_day:
        per_req = be * 1e6 / 30 / requests_per_day
        ask_zh = (
            f"按你说的每天 {_count_zh(requests_per_day)}次调用（每月约 {_count_zh(requests_per_day * 30)}次），"
            f"平均每次回复超过约 {num(round(per_req))} 个输出 token 自建就更便宜，低于它调 API 更省。"
        )
        ask_en = (
            f"At your {requests_per_day:,.0f} calls a day (about {requests_per_day * 30:,.0f} a month), self-hosting "
            f"is cheaper once the average reply exceeds about {num(round(per_req))} output tokens; below that the API is."
        )
    w.add(
        "verdict",
        f"看用量：以 {res.get('model')} 为例，自建 {setup} 约 {money(monthly)}/月，对比 {_api_name(api, 'zh')}"
        f"（输出 {money(api.get('output_cny_per_m'))}/百万 token），每月输出超过约 {_mtok_zh(be)} token 自建才划算；"
        "用量低于它、或忙闲不均时调 API 更省。" + ask_zh,
        f"It depends on volume: for {res.get('model')}, self-hosting on {setup} costs about {money(monthly)}/month "
        f"against {_api_name(api, 'en')} ({money(api.get('output_cny_per_m'))} per million output tokens), so "
        "self-hosting pays off "
        f"above about {_mtok_en(be)} output tokens a month; below that, or with bursty traffic, the API is cheaper. "
        + ask_en,
    )
    if not api.get("same_model"):
        _unlike_api(w, res, api)


def _unlike_api(w: Writer, res: dict[str, Any], api: dict[str, Any]) -> None:
    w.add(
        "assumptions",
        f"价格表里没有 {res.get('model')} 本身的 API 价，对比的是 {api.get('api')}——不是同一个模型，质量和价格都不同，平衡点只作参考。",
        f"The price table has no API price for {res.get('model')} itself; the comparison uses {api.get('api')}, a "
        "different model (quality and price differ), so the break-even is indicative only.",
    )


def _host_vs_api(w: Writer, example_follows: bool = True) -> None:
    """The two axes (data, cost structure); "the break-even follows" only when the plan line comes next."""
    zh_tail = "下面是按一个具体配置算的平衡点。" if example_follows else ""
    en_tail = " The break-even for one concrete setup follows." if example_follows else ""
    w.add(
        "verdict",
        "本地部署和调 API 的区别主要两条：① 数据——本地部署时数据不出域，适合有隐私、合规要求或敏感数据的场景；调 API 要把数据发给厂商。"
        "② 成本结构——API 按 token 计费（按量付费、没有固定成本）；本地部署是固定成本（GPU 租金或硬件投入，闲置也在花钱），"
        "只有调用量大且稳定、利用率高时才比 API 便宜。" + zh_tail,
        "Self-hosting and an API differ on two axes: (1) data — with local deployment data stays on your premises, which "
        "suits privacy, compliance or sensitive data; an API sends it to the provider. (2) cost structure — an API bills "
        "per token (pay as you go, no fixed cost); self-hosting is a fixed cost (GPU rent or hardware, spent even when "
        "idle) and only beats the API at a large, steady call volume with high utilisation." + en_tail,
    )


def reference_note(w: Writer, ctx: Context) -> None:
    """A model sized by its published parameter count (knowledge/reference_models.yaml), said on line 1."""
    from assistant.offline.intents.plans import reference

    ref = reference(ctx.slots)
    if ref is None:
        return
    w.add(
        "verdict",
        f"{ref.id} 不在模型结构目录里：按公开的参数量 {ref.params_b:g}B 估算权重（{ref.source}）；KV 缓存按通用架构近似。",
        f"{ref.id} is not in the architecture catalog: weights sized from its published {ref.params_b:g}B parameters "
        f"({ref.source}); the KV cache uses a generic architecture.",
    )


def _cheapest(w: Writer, ctx: Context) -> None:
    """One line per precision: fewest cards and the hourly rent for that many (China market). The
    gpu_price renderer is grouped (one call for every price result), so this walks them all."""
    from tools.memory import FindMinGpusOutput

    mins = [
        (m.args.get("precision") or "bf16", out)
        for m in ctx.by_name("find_min_gpus")
        if (out := typed(m, FindMinGpusOutput))
    ]
    lines = []
    for r in ctx.by_name("gpu_price"):
        res = r.result
        count = res.get("count")
        prec = next((p for p, out in mins if out.min_gpus == count), None)
        if prec is None:
            continue
        card = str(res.get("gpu_name") or "").replace("NVIDIA ", "")
        total = res.get("total_cny") or {}
        lines.append(
            (
                f"{str(prec).upper()}：至少 {num(count)} 张 {card}，按小时租约 {money(total.get('typical'))}/小时"
                f"（{money_range(total.get('low'), total.get('high'))}，中国大陆租卡行情）。",
                f"{str(prec).upper()}: at least {num(count)}× {card}, about {money(total.get('typical'))}/hour by the "
                f"hour ({money_range(total.get('low'), total.get('high'))}, China rental market).",
            )
        )
    if not lines:
        return
    w.parts["verdict"].insert(
        w.part_start,
        w.t(
            "最省钱的跑法：先量化（INT4/INT8），再按小时租、用完就关机（停机后 GPU 不计费）；只想试一试可以先用免费额度（Kaggle、Colab）跑小模型。",
            "The cheapest route: quantise (INT4/INT8), rent by the hour and stop the machine when done (a stopped "
            "machine stops the GPU charge); to just try things, free tiers (Kaggle, Colab) run small models.",
        ),
    )
    reference_note(w, ctx)
    for zh, en in lines:
        w.add("verdict", zh, en)
    warning = next((str(r.result.get("warning")) for r in ctx.by_name("gpu_price") if r.result.get("warning")), "")
    if warning:
        w.add("next", bi(warning, "zh"), bi(warning, "en"))


@renderer("gpu_price")
def gpu_price(w: Writer, r: ToolResult, ctx: Context) -> None:
    """A usage pattern's cheapest billing mode, with its arithmetic, leads; the plain price lines follow."""
    if ctx.intent == "cheapest_run":
        _cheapest(w, ctx)
        return
    if ctx.intent == "own_vs_rent" and isinstance(r.result, dict):
        _own_vs_rent(w, r)
    if ctx.intent == "team_serving" and isinstance(r.result, dict):
        _light_load(w, r, ctx)
        return
    if ctx.intent == "quote" and isinstance(r.result, dict):
        _china_beside_quote(w, r)
        return
    w.add(
        "assumptions",
        "以上价格是中国大陆租卡市场的行情（人民币，带日期），不是换算出来的。",
        "These are China-market rental prices in CNY (¥), dated — not converted from another currency.",
    )
    plan = r.result.get("usage_plan") if isinstance(r.result, dict) else None
    if isinstance(plan, dict) and plan.get("advice_zh"):
        w.add("verdict", str(plan["advice_zh"]), str(plan.get("advice_en") or plan["advice_zh"]))
    if _PLAIN_GPU_PRICE is not None:
        _PLAIN_GPU_PRICE(w, r, ctx)


_SYMBOL = {"USD": "$", "EUR": "€", "GBP": "£", "CNY": "¥"}


def _cur(amount: Any, currency: str) -> str:
    sym = _SYMBOL.get(currency)
    return f"{sym}{num(amount)}" if sym else f"{num(amount)} {currency}"


def _measured_rate_lines(w: Writer, res: dict, cur: str, at: int) -> None:
    """「一秒只能出15个token」 beside the quote: the tokens a day at that speed, the quote per million tokens, and why
    one request's speed is not what the machine can sell (continuous batching serves many streams at once)."""
    tps, day, per_m = res.get("output_tokens_per_s"), res.get("tokens_per_day"), res.get("cost_per_million_tokens")
    if not tps or not day or per_m is None:
        return
    day_zh = f"{day / 1e4:,.0f} 万" if day < 1e8 else f"{day / 1e8:.3g} 亿"
    w.parts["verdict"].insert(
        at,
        w.t(
            f"按你实测的 {num(tps)} token/s，一天 86,400 秒约出 {day_zh} token，折合每百万 token 约 {_cur(per_m, cur)}。"
            "不过这通常是单路（一个请求）的速度：vLLM、SGLang 这类引擎用连续批处理同时跑很多路请求，单路速度下降不多，"
            "总吞吐却能高出几倍到几十倍，算成本和回本要用满并发时的总吞吐（测试时加大并发再看总 token/s）。",
            f"At your measured {num(tps)} tokens/s, a day's 86,400 s make about {day / 1e6:.3g} M tokens: about "
            f"{_cur(per_m, cur)} per million tokens. But that is usually one stream (a single request): engines such as vLLM "
            "and SGLang batch many requests at once (continuous batching), each stream slows a little while the total "
            "throughput rises several- to tens-fold; cost and break-even should use the total throughput at full "
            "concurrency (benchmark with more concurrent requests and read the aggregate tokens/s).",
        ),
    )


@renderer("quote_cost")
def quote_cost(w: Writer, r: ToolResult, ctx: Context) -> None:
    """The user's rate × the user's hours, in the user's currency, with the arithmetic."""
    from assistant.offline.writing.render_prices import quote_claim_lines

    res = r.result
    cur = str(res.get("currency") or "")
    per = r.args.get("per") or "hour"
    quoted = _cur(r.args.get("amount"), cur)
    top = len(w.parts["verdict"])  # a measured speed's tokens a day and price per million lead (_measured_rate_lines)
    per_zh = {"hour": "小时", "day": "天", "week": "周", "month": "月"}.get(per, per)
    month = res.get("hours_per_month")
    # hours quoted as GPU-hours ("1845 A100 GPU hours"): say so, they are card-hours, not wall-clock hours
    gpu_hours = ctx.slots.gpu_hours is not None  # read by the reading layer ("1845 A100 GPU hours")
    h_zh, h_en = ("卡时（GPU 小时）", "GPU-hours") if gpu_hours else ("小时", "hours")
    per_gpu, n_in = res.get("per_gpu_hour"), res.get("gpus_in_quote")
    if per == "total":  # "$10 for 39 hours", "$100 on 8xA100 for 3 hours": the bundle per hour and per GPU-hour
        hourly, hours = _cur(round(float(res.get("hourly_rate") or 0), 2), cur), num(float(res.get("hours") or 0))
        zh = f"按你给的 {quoted} 买 {hours} 小时：折合每小时约 {hourly}"
        en = f"{quoted} for {hours} hours is about {hourly} per hour"
        if per_gpu and n_in and res.get("gpu_hours"):
            gh = num(float(res["gpu_hours"]))
            zh += f"；{n_in} 张卡 × {hours} 小时 = {gh} 卡时（GPU 小时），每卡时约 {_cur(per_gpu, cur)}"
            en += f"; {n_in} GPUs × {hours} hours = {gh} GPU-hours, about {_cur(per_gpu, cur)} per GPU-hour"
        w.add("verdict", zh + "（按你的币种，不换算汇率）。", en + " (in your currency, no exchange rate applied).")
        for note in res.get("notes") or []:
            w.add("assumptions", *zh_en(note))
        return
    if per_gpu and n_in and per == "day":
        # 「8卡A800一天2000元」: the day price per hour and per card-hour is the figure to compare
        w.add(
            "verdict",
            f"按你的报价 {quoted}/天（{n_in} 张卡）：折合 {_cur(round(float(res.get('hourly_rate') or 0), 2), cur)}/小时，"
            f"每卡每小时约 {_cur(per_gpu, cur)}。",
            f"At your quote of {quoted}/day for {n_in} GPUs: {_cur(round(float(res.get('hourly_rate') or 0), 2), cur)}/hour, about "
            f"{_cur(per_gpu, cur)} per GPU-hour.",
        )
        market = next(
            (x.result.get("hourly_cny") for x in ctx.by_name("gpu_price") if x.result.get("hourly_cny")), None
        )
        if isinstance(market, dict) and market.get("typical_range"):
            lo, hi = (float(v) for v in market["typical_range"][:2])
            band_zh, band_en = (
                f"租用平台按卡计费的常见区间 ¥{num(lo)}–{num(hi)}/卡时",
                f"¥{num(lo)}–{num(hi)} per GPU-hour",
            )
            if per_gpu > hi:
                zh = f"这比{band_zh}高；整机报价常含 CPU、内存、硬盘和网络，比较时也看这些。"
                en = f"That is above the usual per-card range on rental platforms, {band_en}; a whole-server price often includes CPU, RAM, disk and network, so compare those too."
            elif per_gpu < lo:
                zh = f"这比{band_zh}低；便宜时先确认卡型、显存和是否独享。"
                en = f"That is below the usual per-card range on rental platforms, {band_en}; when it is cheap, confirm the card model, memory and that it is not shared."
            else:
                zh = f"这在{band_zh}之内，价格正常。"
                en = f"That is within the usual per-card range on rental platforms, {band_en}: a normal price."
            w.add("verdict", zh, en)
        _measured_rate_lines(w, res, cur, top)
        w.add("numbers", f"算式：{res.get('arithmetic')}", f"Arithmetic: {res.get('arithmetic')}")
        return
    step_zh = f"{quoted}/月 ÷ {num(month)} 小时 = {_cur(res.get('hourly_rate'), cur)}/小时，" if month else ""
    step_en = f"{quoted}/month ÷ {num(month)} h = {_cur(res.get('hourly_rate'), cur)}/h, so " if month else ""
    w.add(
        "verdict",
        f"按你的报价 {quoted}/{per_zh}：{step_zh}用 {num(res.get('hours'))} {h_zh}约 {_cur(res.get('total'), cur)}"
        + (
            "（月价是按整月不停机算的；按小时计费时只为开机的小时付钱，用完停机就不再计 GPU 费用，磁盘通常照收）。"
            if month
            else "。"
        ),
        f"At your quote of {quoted}/{per}: {step_en}{num(res.get('hours'))} {h_en} cost about "
        f"{_cur(res.get('total'), cur)}"
        + (
            " (the monthly figure assumes the VM runs all month; billed per hour/second while running, you only pay "
            "for the hours it is on — stop it afterwards; disks usually keep billing)."
            if month
            else "."
        ),
    )
    _measured_rate_lines(w, res, cur, top)
    w.add("numbers", f"算式：{res.get('arithmetic')}", f"Arithmetic: {res.get('arithmetic')}")
    quote_claim_lines(w, r, ctx)  # the user's own total checked, a per-day rate per hour (render_prices)
    if gpu_hours:
        w.add(
            "next",
            "这个单价是否拿得到要向服务商确认：按需、竞价（spot）和包年的卡时价差别很大，各家也不同。",
            "Check that rate with the provider: on-demand, spot and committed per-GPU-hour prices vary a lot, and "
            "by provider.",
        )
    if ctx.by_name("gpu_price"):
        w.add(
            "assumptions",
            "人民币价格是中国大陆租卡市场的行情（带日期的数据），只作对比，不是按汇率换算的。",
            "The ¥ (CNY) figures are China-market rental prices (dated data), shown for comparison — not an "
            "exchange-rate conversion of your quote.",
        )
    w.add(
        "assumptions",
        "币种按你的报价，不做汇率换算；停机后 GPU 不再计费，但磁盘/存储一般照收。",
        "In the currency you quoted, no exchange rate applied; a stopped machine stops the GPU charge, but disks and "
        "storage usually keep billing.",
    )


# ---- serving questions the guide answers first (intents/serving.py: FRONTEND … THROUGHPUT) ----------
# The best section of the one document asked leads; a tool that also answered (the model's card, the weights of
# one worker, the single-stream decode ceiling) follows with its own figures.
_LED: weakref.WeakSet[Writer] = weakref.WeakSet()  # writers whose answer this lead has already opened
_GUIDE_LED = {"serving_frontend", "gpu_sharing", "non_llm_concurrency", "r1_local", "throughput_check"}


def _guide_lead(w: Writer, ctx: Context) -> None:
    from assistant.offline.writing.render_tools import guide_snippets

    if ctx.intent not in _GUIDE_LED or w in _LED:
        return
    _LED.add(w)
    size = 700 if w.lang == "zh" else 1100
    if ctx.intent == "throughput_check":  # the computed ceiling leads; the passage with measured figures follows
        _throughput_lead(w, ctx)
        guide_snippets(w, ctx.results, limit=1, section="guide", max_chars=size, question=ctx.question)
        _quoted_once(w, ctx)
        return
    guide_snippets(w, ctx.results, limit=1, section="verdict", max_chars=size, question=ctx.question)
    _quoted_once(w, ctx)
    if ctx.intent == "gpu_sharing":  # the second section (TensorFlow's preallocation, MIG/MPS) in full
        guide_snippets(w, ctx.results, limit=1, section="guide", max_chars=size, question=ctx.question)
        _quoted_once(w, ctx)


def _quoted_once(w: Writer, ctx: Context) -> None:
    """The passage that led is not quoted again under the guide: its hits are set aside (the citation
    stays, from `w.cited`)."""
    quoted = set(w.cited)
    for r in ctx.results:
        if r.name != "search_guide" or not isinstance(r.result, dict):
            continue
        for h in r.result.get("hits") or []:
            if isinstance(h, dict) and (str(h.get("doc_id")), str(h.get("section") or "")) in quoted:
                h["low_relevance"] = True


def _throughput_lead(w: Writer, ctx: Context) -> None:
    """「1000 tokens/s 正常吗」: is the figure one request or the sum over all of them — the single-stream
    bandwidth ceiling (decode_speed) decides; then the card's interconnect (gpu_specs)."""
    from assistant.offline.intents.serving import measured_tps

    dec = next((r.result for r in ctx.by_name("decode_speed") if isinstance(r.result, dict)), None)
    seen = measured_tps(ctx.slots)
    if not dec or seen is None:
        return
    lo, hi = dec.get("tokens_per_s_low"), dec.get("tokens_per_s_high")
    bw = dec.get("mem_bw_gbs")
    if not isinstance(hi, (int, float)) or not isinstance(bw, (int, float)):
        return
    n = int(ctx.slots.gpu_count or 1)
    card = str(dec.get("gpu") or "").replace("NVIDIA ", "")
    setup = f"{n}×{card}" if n > 1 else card
    tb = f"{bw / 1000:.3g} TB/s（{num(bw)} GB/s）"
    tb_en = f"{bw / 1000:.3g} TB/s ({num(bw)} GB/s)"
    from assistant.offline.writing.render_memory import _model_label

    model = _model_label(w, dec)  # 「32B 模型」, never the internal generic-32B
    comm = dec.get("tp_comm_ms") or 0
    if n > 1 and comm:  # PCIe tensor parallel: decode_speed already adds the all-reduce latency per token
        comm_zh, comm_en = (
            f"，已计入每 token 约 {num(comm)} ms 的 PCIe all-reduce",
            f"; about {num(comm)} ms of PCIe all-reduce per token included",
        )
    elif n > 1:
        comm_zh, comm_en = ("，卡间通信未计入，实际单路要低一些", "; communication between GPUs is not counted")
    else:
        comm_zh, comm_en = ("", "")
    conc = ctx.slots.concurrency
    if seen > hi:
        lead_zh = f"{num(seen)} tokens/s 高于单个请求的带宽上限，所以它一定是多路并发的总吞吐，不是每个请求的速度"
        lead_en = (
            f"{num(seen)} tokens/s is above the single-request bandwidth ceiling, so it must be aggregate throughput "
            "over concurrent requests, not the speed of each request"
        )
    elif isinstance(lo, (int, float)) and seen >= lo:
        lead_zh = f"正常：单个请求 {num(seen)} tokens/s 在这套配置的预期区间内"
        lead_en = f"Normal: {num(seen)} tokens/s for one request is within what this setup should do"
    else:
        lead_zh = (
            f"偏慢：单个请求 {num(seen)} tokens/s 低于这套配置的预期；差这么多通常不是卡的问题，"
            "而是框架/kernel、量化格式、部分层放在了 CPU 上或批处理设置"
        )
        lead_en = (
            f"Slow: {num(seen)} tokens/s for one request is below what this setup should do; a gap this size is "
            "rarely the card — look at the framework/kernels, the quantisation format, layers left on the CPU, or batching"
        )
    per_zh = (
        f"你的 {num(conc)} 路并发每路约 {num(round(seen / conc, 1))} tokens/s。"
        if conc
        else "如果它是多路并发的总数，每个请求的速度 ≈ 总吞吐 ÷ 并发数。"
    )
    per_en = (
        f"At your {num(conc)} concurrent requests that is about {num(round(seen / conc, 1))} tokens/s each."
        if conc
        else "If it is a total over concurrent requests, per-request speed ≈ aggregate ÷ concurrency."
    )
    w.add(
        "verdict",
        f"{lead_zh}。按显存带宽算，{model} 在 {setup} 上单个请求（batch 1）约 {num(lo)}–{num(hi)} tokens/s"
        f"（每卡每个 token 读 {num(dec.get('bytes_per_step_gb'))} GB，单卡带宽 {tb}{comm_zh}）。{per_zh}",
        f"{lead_en}. By memory bandwidth, {model} on {setup} does about {num(lo)}–{num(hi)} tokens/s for a single "
        f"request (batch 1; each GPU reads {num(dec.get('bytes_per_step_gb'))} GB per token at {tb_en}{comm_en}). {per_en}",
    )
    spec = next(
        (g for r in ctx.by_name("gpu_specs") for g in (r.result.get("gpus") or []) if isinstance(g, dict)), None
    )
    form = str((spec or {}).get("form_factor") or "")
    if n > 1 and "PCIe" in form and "NVLink" in form:
        w.add(
            "verdict",
            f"{card} 是 PCIe 卡（{form}），卡间靠 NVLink 桥（2 或 4 卡一组）和 PCIe 互联，不是 SXM 版那种 8 卡 NVSwitch 全互联；"
            f"{n} 卡张量并行每层都要做 all-reduce，通信比 HGX/SXM 机器慢，公开的更高数字多来自 SXM 机器。",
            f"The {card} is a PCIe card ({form}): its GPUs link through NVLink bridges (groups of 2 or 4) and PCIe, not "
            f"the 8-GPU NVSwitch fabric of the SXM version; {n}-way tensor parallelism all-reduces every layer, so "
            "communication is slower than on an HGX/SXM server, where most published higher figures come from.",
        )


def _led(name: str) -> None:
    plain = _RENDERERS.get(name)
    if plain is None:
        return

    def wrapped(w: Writer, r: ToolResult, ctx: Context) -> None:
        _guide_lead(w, ctx)
        plain(w, r, ctx)

    _RENDERERS[name] = wrapped


from assistant.offline.writing import render_gpus, render_memory  # noqa: E402,F401  (their renderers first)

for _name in ("decode_speed", "lookup_model", "estimate_memory", "gpu_specs"):
    _led(_name)
