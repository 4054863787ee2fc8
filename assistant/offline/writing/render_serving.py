"""Renderers for serving and renting: `plan_serving` (self-host vs API), `gpu_rentability` (how a card
can be rented), `estimate_step_time` (compute vs communication), and the usage plan of `gpu_price`.
Line 1 answers the question asked, with the tool's own figures."""

from __future__ import annotations

from typing import Any

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import _RENDERERS, Context, bi, money, pct, renderer


def _mtok_zh(m: float) -> str:
    """Millions of tokens in Chinese units: 500 → '5 亿', 30 → '3,000 万'."""
    return f"{m / 100:.3g} 亿" if m >= 100 else f"{m * 100:,.0f} 万"


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
    if not res.get("fits", True):
        w.add(
            "verdict",
            f"{res.get('model')} 在 {setup} 上放不下（权重 {num(res.get('weights_gb_per_gpu'))} GB/卡），要更多卡或量化。",
            f"{res.get('model')} does not fit {setup} ({num(res.get('weights_gb_per_gpu'))} GB of weights per GPU); "
            "use more GPUs or quantise.",
        )
    elif vol and api and be and isinstance(monthly, (int, float)):
        api_month = monthly * vol / be  # the API bill is linear in volume; at break-even it equals the rent
        cheaper_api = vol < be
        name_zh = f"{api.get('provider')} {api.get('api')}"
        zh_head = "调 API 更便宜" if cheaper_api else "自建更便宜"
        en_head = "the API is cheaper" if cheaper_api else "self-hosting is cheaper"
        w.add(
            "verdict",
            f"按每月 {_mtok_zh(vol)} 输出 token，{zh_head}：{name_zh} 约 {money(round(api_month))}/月"
            f"（输出 {money(api.get('output_cny_per_m'))}、输入 {money(api.get('input_cny_per_m'))}/百万 token），"
            f"自建 {setup} 约 {money(monthly)}/月（满载时 {money(per_m)}/百万输出 token）；"
            f"自建要每月超过 {_mtok_zh(be)} 输出 token 才划算。",
            f"At {_mtok_en(vol)} output tokens a month {en_head}: {name_zh} costs about {money(round(api_month))}/month "
            f"(output {money(api.get('output_cny_per_m'))}, input {money(api.get('input_cny_per_m'))} per million tokens), "
            f"self-hosting on {setup} about {money(monthly)}/month ({money(per_m)} per million output tokens at full "
            f"load); self-hosting pays off above {_mtok_en(be)} output tokens a month.",
        )
    else:
        tps, srv = res.get("tokens_per_s") or {}, res.get("server_output_tokens_per_s") or {}
        w.add(
            "verdict",
            f"{res.get('model')} 用 {setup} 部署：并发 {num(res.get('concurrency'))} 路时每路约 {num(tps.get('mid'))} token/s，"
            f"整机约 {num(round(srv.get('mid') or 0))} token/s，首 token 约 {num((res.get('ttft_s') or {}).get('mid'))} 秒；"
            f"KV 缓存最多放 {num(res.get('max_concurrency'))} 路"
            + (f"，满载成本约 {money(per_m)}/百万输出 token。" if per_m is not None else "。"),
            f"{res.get('model')} on {setup}: at {num(res.get('concurrency'))} concurrent requests about "
            f"{num(tps.get('mid'))} tokens/s per user, {num(round(srv.get('mid') or 0))} tokens/s per server, first token "
            f"in about {num((res.get('ttft_s') or {}).get('mid'))} s; the KV cache holds up to "
            f"{num(res.get('max_concurrency'))} requests"
            + (f"; about {money(per_m)} per million output tokens at full load." if per_m is not None else "."),
        )
    if api and be and not vol:
        w.add(
            "numbers",
            f"对比 {api.get('provider')} {api.get('api')}（输出 {money(api.get('output_cny_per_m'))}/百万 token）："
            f"每月超过 {_mtok_zh(be)} 输出 token 自建才划算",
            f"Against {api.get('provider')} {api.get('api')} ({money(api.get('output_cny_per_m'))} per million output "
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
    if api and api.get("source"):
        w.add(
            "assumptions",
            f"API 价格 {api.get('as_of')}：{api.get('source')}；{res.get('engine')}",
            f"API price as of {api.get('as_of')}: {api.get('source')}; {res.get('engine')}",
        )
    for note in (res.get("warnings") or [])[:2]:
        if isinstance(note, str):
            w.add("assumptions", bi(note, "zh"), bi(note, "en"))


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


@renderer("gpu_price")
def gpu_price(w: Writer, r: ToolResult, ctx: Context) -> None:
    """A usage pattern's cheapest billing mode, with its arithmetic, leads; the plain price lines follow."""
    plan = r.result.get("usage_plan") if isinstance(r.result, dict) else None
    if isinstance(plan, dict) and plan.get("advice_zh"):
        w.add("verdict", str(plan["advice_zh"]), str(plan.get("advice_en") or plan["advice_zh"]))
    if _PLAIN_GPU_PRICE is not None:
        _PLAIN_GPU_PRICE(w, r, ctx)
