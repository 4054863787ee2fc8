"""Per-tool renderers: turn one tool's JSON result into verdict / numbers / assumptions /
alternatives / next-step lines. A tool without a specific renderer gets the generic one, which
quotes its top-level figures with their units (read from the key suffix: _gb, _cny, _hours …).
"""
from __future__ import annotations

import re
from typing import Any, Callable

from assistant.offline.render import Writer, num
from assistant.offline.slots import Slots
from assistant.offline.types import ToolResult

Renderer = Callable[[Writer, ToolResult, "Context"], None]


class Context:
    """What every renderer may look at: the question's slots and all results."""

    def __init__(self, intent: str, slots: Slots, results: list[ToolResult], question: str, carried: bool):
        self.intent, self.slots, self.results, self.question, self.carried = intent, slots, results, question, carried

    def by_name(self, name: str) -> list[ToolResult]:
        return [r for r in self.results if r.name == name and not r.error]


_RENDERERS: dict[str, Renderer] = {}
_GROUPED: set[str] = set()


def renderer(name: str, *, grouped: bool = False) -> Callable[[Renderer], Renderer]:
    """Register a renderer; a `grouped` one reads every result of its tool at once (runs once)."""
    def deco(fn: Renderer) -> Renderer:
        _RENDERERS[name] = fn
        if grouped:
            _GROUPED.add(name)
        return fn
    return deco


def render(w: Writer, intent: str, slots: Slots, answered: list[ToolResult], all_results: list[ToolResult],
           question: str, carried: bool) -> None:
    ctx = Context(intent, slots, all_results, question, carried)
    if carried:
        carried_note(w, slots)
    done: set[str] = set()
    for r in answered:
        fn = _RENDERERS.get(r.name, generic)
        key = r.name if r.name in _GROUPED else r.id or str(id(r))
        if key in done:
            continue
        done.add(key)
        fn(w, r, ctx)
    guide_snippets(w, all_results, limit=1)



_UNITS = (("_gb", " GB"), ("_gib", " GiB"), ("_gbs", " GB/s"), ("_cny", " 元"), ("_hours", " h"),
          ("_days", " d"), ("_tflops", " TFLOPS"), ("_pct", "%"), ("_ms", " ms"), ("_w", " W"))


def generic(w: Writer, r: ToolResult, ctx: Context) -> None:
    figures = []
    for key, value in r.result.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            unit = next((u for suffix, u in _UNITS if key.endswith(suffix)), "")
            if unit == " 元" and w.lang == "en":
                unit = " CNY"
            figures.append(f"{key} = {num(value)}{unit}")
    if figures:
        w.add("numbers", f"{r.name}：" + "，".join(figures[:8]), f"{r.name}: " + ", ".join(figures[:8]))
    for note in (r.result.get("notes") or [])[:2]:
        if isinstance(note, str):
            w.add("assumptions", note, note)


def input_error(w: Writer, r: ToolResult) -> None:
    err = r.error or {}
    zh, en = err.get("zh") or "", err.get("en") or ""
    w.add("verdict", f"有一处我没读懂：{zh}", f"I could not read part of the question: {en}")
    sugg = [s for s in (err.get("suggestions") or []) if isinstance(s, str)][:6]
    if sugg:
        w.add("next", "你是不是想说：" + "、".join(sugg) + "？", "Did you mean: " + ", ".join(sugg) + "?")


def guide_only(w: Writer, results: list[ToolResult], question: str) -> None:
    hits = _hits(results)
    if not hits:
        w.add("verdict", "指南里没有找到能回答这个问题的段落，我不凭空作答。",
              "I found no passage in the guide that answers this, so I will not make one up.")
        return
    w.add("verdict", "这是指南里的说法（没有需要计算的数字，所以没调用估算工具）：",
          "Here is what the guide says (nothing to calculate, so no estimator was called):")
    guide_snippets(w, results, limit=3, section="guide")


def guide_snippets(w: Writer, results: list[ToolResult], limit: int = 1, section: str = "guide") -> None:
    for hit in _hits(results)[:limit]:
        text = (hit.get("text") or hit.get("snippet") or hit.get("excerpt") or "").strip()
        if not text:
            continue
        text = _first_sentences(" ".join(text.split()), 200)
        doc = hit.get("doc_id") or hit.get("id")
        w.add(section, f"{text}（见 `{doc}`）", f"{text} (see `{doc}`)")


def _first_sentences(text: str, limit: int) -> str:
    """Whole sentences up to about `limit` characters (a cut mid-number would misquote it)."""
    import re
    if len(text) <= limit:
        return text
    out = ""
    for sentence in re.findall(r".+?(?:[。！？]|[.!?](?=\s)|$)", text):
        if out and len(out) + len(sentence) > limit:
            break
        out += sentence
    return out.strip() if len(out) <= limit * 1.6 else out[:limit].rstrip() + "…"


def _hits(results: list[ToolResult]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in results:
        if r.name == "search_guide" and not r.error:
            out += [h for h in (r.result.get("hits") or r.result.get("results") or []) if isinstance(h, dict)
                    and not h.get("low_relevance")]
    return out


def bi(text: str, lang: str) -> str:
    """Pick one side of a tool's "中文 / English" string."""
    if not isinstance(text, str):
        return ""
    if " / " in text:
        zh, _, en = text.partition(" / ")
        return zh.strip() if lang == "zh" else en.strip()
    return text


def _short_gpu(g: dict) -> str:
    name = g.get("name") or g.get("id") or "?"
    return name.replace("NVIDIA ", "").replace("GeForce ", "")


# ---------------------------------------------------------------- gpu_specs ----------------------
_SPEC_FIELDS = (  # (field, zh label, en label, unit)
    ("memory_gb", "显存", "memory", "GB"),
    ("mem_bw_gbs", "显存带宽", "memory bandwidth", "GB/s"),
    ("bf16_dense_tflops", "BF16 稠密算力", "BF16 dense", "TFLOPS"),
    ("fp8_dense_tflops", "FP8 稠密算力", "FP8 dense", "TFLOPS"),
    ("nvlink_gbs_bidir", "NVLink（双向合计）", "NVLink (bidirectional total)", "GB/s"),
    ("tdp_w", "功耗", "power", "W"),
)


_ASKED = (  # (question pattern, field, zh, en, unit)
    (r"带宽|bandwidth", "mem_bw_gbs", "显存带宽", "memory bandwidth", "GB/s"),
    (r"多大显存|显存多大|显存是多少|多少显存|memory size|how much (?:memory|vram)|vram", "memory_gb", "显存", "memory", "GB"),
    (r"fp8", "fp8_dense_tflops", "FP8 稠密算力", "dense FP8 throughput", "TFLOPS"),
    (r"算力|tflops|flops|bf16", "bf16_dense_tflops", "BF16 稠密算力", "dense BF16 throughput", "TFLOPS"),
    (r"功耗|power|tdp|瓦", "tdp_w", "功耗", "power", "W"),
)


def _direct_spec_answer(w: Writer, g: dict, name: str, question: str) -> None:
    """Answer the asked attribute in the first sentence ("4090的显存带宽是多少" → 1008 GB/s)."""
    if re.search(r"nvlink", question, re.I):
        v = g.get("nvlink_gbs_bidir")
        if v:
            w.add("verdict", f"有。{name} 的 NVLink 带宽为 {num(v)} GB/s（双向合计）。",
                  f"Yes. The {name} has NVLink at {num(v)} GB/s (bidirectional total).")
        elif v is not None:
            w.add("verdict", f"没有。{name} 不支持 NVLink，多卡之间只能走 PCIe。",
                  f"No. The {name} has no NVLink; multi-GPU traffic goes over PCIe.")
        return
    if re.search(r"fp8", question, re.I) and g.get("fp8_supported") is False:
        w.add("verdict", f"不支持。{name} 没有 FP8 张量核心，训练用 BF16/FP16（或 TF32）。",
              f"No. The {name} has no FP8 tensor cores; train in BF16/FP16 (or TF32).")
        return
    for pattern, field, zh, en, unit in _ASKED:
        if re.search(pattern, question, re.I):
            v = g.get(field)
            if v is None:
                w.add("verdict", f"{name} 没有{zh}这一项（不支持）。", f"The {name} has no {en} figure (not supported).")
            else:
                w.add("verdict", f"{name} 的{' ' if zh[0].isascii() else ''}{zh}是 {num(v)} {unit}。",
                      f"The {name}'s {en} is {num(v)} {unit}.")
            return


@renderer("gpu_specs")
def gpu_specs(w: Writer, r: ToolResult, ctx: Context) -> None:
    gpus = [g for g in r.result.get("gpus") or [] if isinstance(g, dict)]
    if not gpus:
        return generic(w, r, ctx)
    names = [_short_gpu(g) for g in gpus]
    if len(gpus) == 1:
        g = gpus[0]
        _direct_spec_answer(w, g, names[0], ctx.question)
        parts_zh, parts_en = [], []
        for field, zh, en, unit in _SPEC_FIELDS:
            v = g.get(field)
            if v is None:
                continue
            if field == "nvlink_gbs_bidir" and not v:
                parts_zh.append("没有 NVLink")
                parts_en.append("no NVLink")
                continue
            mem_type = g.get("memory_type") if field == "memory_gb" and g.get("memory_type") else ""
            parts_zh.append(f"{zh}{'' if zh.endswith('）') else ' '}{num(v)} {unit}" + (f" {mem_type}" if mem_type else ""))
            parts_en.append(f"{en} {num(v)} {unit}" + (f" {mem_type}" if mem_type else ""))
        w.add("verdict", f"{names[0]}：" + "，".join(parts_zh) + "。", f"{names[0]}: " + ", ".join(parts_en) + ".")
        if g.get("china_availability") and w.lang == "en":
            w.add("numbers", "", g["china_availability"])
    else:
        rows = {row.get("field"): row for row in r.result.get("comparison") or [] if isinstance(row, dict)}
        leads: dict[int, list[tuple[str, str]]] = {}
        for field, zh, en, unit in _SPEC_FIELDS:
            row = rows.get(field)
            if not row:
                continue
            values = row.get("values") or []
            none = w.t("无", "none")
            cells = [f"{names[i]} {none}" if field == "nvlink_gbs_bidir" and v == 0 else
                     f"{names[i]} {num(v)} {unit}" if v is not None else f"{names[i]} —" for i, v in enumerate(values)]
            w.add("numbers", f"{zh}：" + "；".join(cells), f"{en[0].upper() + en[1:]}: " + "; ".join(cells))
            best = row.get("best_index")
            if isinstance(best, int) and field != "tdp_w" and len(set(v for v in values if v is not None)) > 1:
                leads.setdefault(best, []).append((zh, en))
        if leads:
            zh_bits = [f"{names[i]} " + _cat("的", "、".join(z for z, _ in f)) + "更高" for i, f in leads.items()]
            en_bits = [f"{names[i]} leads on {', '.join(e for _, e in f)}" for i, f in leads.items()]
            w.add("verdict", "纸面规格上，" + "；".join(zh_bits) + "。", "On paper, " + "; ".join(en_bits) + ".")
        mems = [g.get("memory_gb") for g in gpus]
        if len(set(mems)) == 1 and mems[0]:
            w.add("verdict", f"显存一样大（都是 {num(mems[0])} GB），能装下的模型规模相同，差别在速度和多卡互联。",
                  f"Memory is the same ({num(mems[0])} GB each), so they fit the same models; they differ in "
                  "speed and multi-GPU links.")
        w.add("next", "先按模型大小定显存下限，再比代际和互联，最后看价格；可以接着问「这几张卡一个月多少钱」。",
              "Choose by memory floor first, then generation and interconnect, then price; ask next "
              "\"how much per month for these cards\".")
    for g in gpus:
        if g.get("lookup_note"):
            w.add("assumptions", bi(g["lookup_note"], "zh"), bi(g["lookup_note"], "en"))
    for note in (r.result.get("notes") or [])[:1]:
        w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    wanted = {"pcie_vs_nvlink_bidirectional", "h100_pcie_not_3_35", "a100_form_factor_bandwidth",
              "rtx4090_pcie_gen_p2p", "fp8_also_on_ada", "tf32_opt_in"}
    shown = 0
    for note in r.result.get("seed_notes") or []:
        if isinstance(note, dict) and note.get("id") in wanted and shown < 2:
            w.add("assumptions", "原文章的简化：" + (note.get("zh") or ""), "Where the seed article simplifies: "
                  + (note.get("en") or ""))
            shown += 1


def money(x: Any) -> str:
    """¥ with thousands separators, as the price tool writes it in its advice: ¥4,325 / ¥5.75."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return str(x)
    if float(x).is_integer():
        return f"¥{int(x):,}"
    return f"¥{x:,.2f}".rstrip("0").rstrip(".")


def money_range(lo: Any, hi: Any) -> str:
    if lo == hi:
        return money(lo)
    return f"{money(lo)}–{money(hi).lstrip('¥')}"


def _cheapest(w: Writer, prices: list[ToolResult]) -> None:
    rows = []
    for p in prices:
        hourly = (p.result.get("hourly_cny") or {}).get("typical")
        if isinstance(hourly, (int, float)):
            rows.append((hourly, (p.result.get("gpu_name") or "?").replace("NVIDIA ", "").replace("GeForce ", "")))
    if len(rows) < 2:
        return
    rows.sort()
    (lo, lo_name), (hi, hi_name) = rows[0], rows[-1]
    w.add("verdict", f"按典型租金，{lo_name} 最便宜（{money(lo)}/卡时），{hi_name} 最贵（{money(hi)}/卡时）；"
                     "便宜不等于划算，还要看显存够不够、跑得多快。",
          f"By typical rental price, the {lo_name} is cheapest ({money(lo)}/card-hour) and the {hi_name} the "
          "most expensive ({money(hi)}/card-hour); cheaper is not better value unless the memory suffices "
          "and the speed is acceptable.".replace("{money(hi)}", money(hi)))


_ONE_PERIOD = {"hour": ("一小时", "an hour"), "day": ("一天", "a day"), "week": ("一周", "a week"),
               "month": ("一个月", "a month"), "year": ("一年", "a year")}


def _period_label(w: Writer, ctx: Context, result: dict) -> str:
    s = ctx.slots
    if s.period_unit and s.period_count == 1:
        zh, en = _ONE_PERIOD[s.period_unit]
        return w.t(zh, en)
    hours = result.get("period_hours")
    if hours:
        return w.t(f"{num(hours)} 小时", f"{num(hours)} hours")
    return ""


# ---------------------------------------------------------------- gpu_price ----------------------
@renderer("gpu_price", grouped=True)
def gpu_price(w: Writer, r: ToolResult, ctx: Context) -> None:
    prices = ctx.by_name("gpu_price")
    several = len(prices) > 1
    for p in prices:
        res = p.result
        name = (res.get("gpu_name") or res.get("gpu") or "?").replace("NVIDIA ", "").replace("GeForce ", "")
        hourly, monthly = res.get("hourly_cny") or {}, res.get("monthly_cny") or {}
        total = res.get("total_cny") or {}
        count = res.get("count") or 1
        period = _period_label(w, ctx, res) if res.get("period_hours") else ""
        cards_zh = f"{count} 张 " if count and count > 1 else ""
        cards_en = f"{count}× " if count and count > 1 else ""
        if total and period and not several:
            rng = total.get("typical_range") or [total.get("low"), total.get("high")]
            w.add("verdict",
                  f"租 {cards_zh}{name} {period}，典型价约 {money(total.get('typical'))}"
                  f"（常见区间 {money_range(*rng)}；最便宜的长租约 {money(total.get('low'))}，"
                  f"公有云按量最高约 {money(total.get('high'))}）。",
                  f"Renting {cards_en}{name} for {period} costs about {money(total.get('typical'))} typically "
                  f"(usual range {money_range(*rng)}; long-term lease from {money(total.get('low'))}, "
                  f"public-cloud on-demand up to {money(total.get('high'))}).")
        elif hourly or monthly:
            h_rng = hourly.get("typical_range") or [hourly.get("low"), hourly.get("high")]
            m_rng = monthly.get("typical_range") or [monthly.get("low"), monthly.get("high")]
            w.add("verdict" if not several else "numbers",
                  f"{name}：按小时典型 {money(hourly.get('typical'))}/卡时（{money_range(*h_rng)}），"
                  f"包月典型 {money(monthly.get('typical'))}/卡月（{money_range(*m_rng)}）。",
                  f"{name}: typically {money(hourly.get('typical'))} per card-hour ({money_range(*h_rng)}), "
                  f"{money(monthly.get('typical'))} per card-month ({money_range(*m_rng)}).")
        if several:
            continue
        for market in res.get("by_market") or []:
            w.add("numbers", f"{market.get('zh')}：{money(market.get('hourly_cny'))}/卡时，"
                             f"{money(market.get('monthly_cny'))}/卡月",
                  f"{market.get('en')}: {money(market.get('hourly_cny'))}/card-hour, "
                  f"{money(market.get('monthly_cny'))}/card-month")
        server = res.get("server_8card_monthly_cny") or {}
        if server and (count >= 8 or ctx.slots.gpu_count):
            w.add("numbers", f"整台 8 卡服务器月租典型 {money(server.get('typical'))}",
                  f"A whole 8-card server: typically {money(server.get('typical'))} per month")
        for advice in (res.get("advice") or [])[:2]:
            w.add("alternatives", bi(advice, "zh"), bi(advice, "en"))
        if res.get("proxy"):
            w.add("assumptions", "这张卡没有直接的报价数据，用的是相近型号的价格作参考。",
                  "There is no direct price data for this card; a similar card's price is used as a proxy.")
    first = prices[0].result if prices else {}
    if several:
        _cheapest(w, prices)
    if first.get("as_of"):
        w.add("assumptions", f"价格数据截至 {first['as_of']}，可信度 {first.get('confidence', '')}；人民币、不含存储和带宽。",
              f"Price data as of {first['as_of']}, confidence {first.get('confidence', '')}; CNY, excluding "
              "storage and bandwidth.")
    if first.get("warning"):
        w.add("next", bi(first["warning"], "zh"), bi(first["warning"], "en"))


# ---------------------------------------------------------------- memory -----------------------
def gb(x: Any) -> str:
    """Decimal GB to one decimal place (the grounding guard allows the display rounding)."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return str(x)
    if float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:.1f}" if abs(x) < 1000 else f"{x:,.0f}"


_MODE_LABEL = {"full": ("全量训练", "full fine-tuning"), "lora": ("LoRA 微调", "LoRA fine-tuning"),
               "qlora": ("QLoRA 微调", "QLoRA fine-tuning"), "inference": ("推理", "inference"),
               "pretrain": ("预训练", "pre-training")}


def _mode(w: Writer, mode: Any) -> str:
    zh, en = _MODE_LABEL.get(str(mode), (str(mode), str(mode)))
    return w.t(zh, en)


def _model_label(w: Writer, est: dict) -> str:
    name = str(est.get("model") or "")
    if est.get("model_kind") == "generic" or name.startswith("generic-"):
        size = name.replace("generic-", "")
        return w.t(f"{size} 模型", f"{_a(size)} {size} model")
    return name


def _cat(a: str, b: str) -> str:
    """Join with a space where Latin meets Chinese (or Latin meets Latin), as Chinese typesetting does."""
    if not a or not b:
        return a + b
    left_latin = a[-1].isascii() and a[-1].isalnum()
    right_latin = b[0].isascii() and b[0].isalnum()
    if left_latin or (right_latin and not a[-1].isascii()):
        return f"{a} {b}"
    return a + b


def _gpu_label(est: dict) -> str:
    return str(est.get("gpu") or "").replace("NVIDIA ", "").replace("GeForce ", "")


def _bare_size(card: str) -> bool:
    """'24 GB' (the user gave a memory size, not a GPU name)."""
    return bool(re.fullmatch(r"[\d.]+\s*GB", card.strip()))


def _setup(w: Writer, est: dict) -> str:
    n = est.get("gpus") or 1
    if n <= 1:
        return w.t("单卡", "on one GPU")
    zero = est.get("zero_stage")
    if est.get("mode") == "inference":
        return w.t(f"{n} 卡张量并行", f"{n}-way tensor parallel")
    if zero:
        return w.t(f"{n} 卡 ZeRO-{zero}", f"{n} GPUs with ZeRO-{zero}")
    return w.t(f"{n} 卡数据并行（每卡一份完整模型）", f"{n} GPUs data-parallel (a full copy per GPU)")


def _fit_sentence(w: Writer, est: dict, lead: bool) -> tuple[str, str] | None:
    """(zh, en) verdict for one estimate; `lead` starts with 能/不能."""
    total, gib = est.get("total_gb"), est.get("total_gib")
    if not isinstance(total, (int, float)):
        return None
    model, mode, setup = _model_label(w, est), _mode(w, est.get("mode")), _setup(w, est)
    need_zh = f"{_cat(model, mode)}（{setup}）每卡约需 {gb(total)} GB" + (f"（{gb(gib)} GiB）" if gib else "")
    need_en = f"{mode[0].upper() + mode[1:]} of {model} ({setup}) needs about {gb(total)} GB" + \
        (f" ({gb(gib)} GiB)" if gib else "") + " per GPU"
    fits, card, cap, room = est.get("fits"), _gpu_label(est), est.get("gpu_memory_gb"), est.get("headroom_gb")
    usable = est.get("usable_gb")
    reserve = isinstance(usable, (int, float)) and isinstance(cap, (int, float)) and usable < cap
    if reserve:   # serving engines (vLLM) plan with a fraction of the card
        cap_zh = f"{gb(cap)} GB（推理引擎预留一部分后可用约 {gb(usable)} GB）"
        cap_en = f"{gb(cap)} GB (about {gb(usable)} GB usable after the serving engine's reserve)"
    else:
        cap_zh, cap_en = f"{gb(cap)} GB", f"{gb(cap)} GB"
    has_zh = f"{cap_zh} 的卡" if _bare_size(card) else f"{card} 有 {cap_zh}"
    has_en = f"a {cap_en} card" if _bare_size(card) else f"the {card} has {cap_en}"
    if fits is True:
        tight = isinstance(room, (int, float)) and isinstance(cap, (int, float)) and room < 0.1 * cap
        zh = (("能，但余量很小。" if tight else "能。") if lead else "") + \
            f"{need_zh}，{has_zh}，还剩约 {gb(room)} GB。"
        en = (("Yes, but with little room. " if tight else "Yes. ") if lead else "") + \
            f"{need_en}; {has_en}, leaving about {gb(room)} GB."
        return zh, en
    if fits is False:
        short = -room if isinstance(room, (int, float)) else None
        only_zh = f"{cap_zh} 的卡放不下" if _bare_size(card) else f"{card} 只有 {cap_zh}"
        only_en = f"a {cap_en} card cannot hold it" if _bare_size(card) else f"the {card} has only {cap_en}"
        zh = ("不能。" if lead else "") + f"{need_zh}，{only_zh}" + \
            (f"，差约 {gb(short)} GB。" if short is not None else "。")
        en = ("No. " if lead else "") + f"{need_en}, but {only_en}" + \
            (f" — about {gb(short)} GB short." if short is not None else ".")
        return zh, en
    return need_zh + "。", need_en + "."


def _breakdown(w: Writer, est: dict) -> None:
    parts = (("weights_gb", "权重", "weights"), ("gradients_gb", "梯度", "gradients"),
             ("optimizer_gb", "优化器状态", "optimizer states"), ("activations_gb", "激活值", "activations"),
             ("logits_gb", "logits 缓冲", "logits buffer"), ("kv_cache_gb", "KV 缓存", "KV cache"),
             ("overhead_gb", "框架开销", "framework overhead"))
    zh, en = [], []
    for key, z, e in parts:
        v = est.get(key)
        if isinstance(v, (int, float)) and v > 0.05:
            zh.append(f"{z} {gb(v)} GB")
            en.append(f"{e} {gb(v)} GB")
    if zh:
        w.add("numbers", "每卡构成：" + "、".join(zh) + f"，合计 {gb(est.get('total_gb'))} GB",
              "Per GPU: " + ", ".join(en) + f"; total {gb(est.get('total_gb'))} GB")
    host = est.get("host_ram_gb")
    if isinstance(host, (int, float)) and host > 0:
        w.add("numbers", f"CPU offload 需要主机内存约 {gb(host)} GB", f"CPU offload needs about {gb(host)} GB of host RAM")


def _seed_rule(w: Writer, est: dict) -> None:
    seed = est.get("seed_rule")
    if not isinstance(seed, dict) or not seed.get("model_states_gb"):
        return
    w.add("assumptions",
          f"种子文章的经验算法（优化器≈权重的 4 倍，{num(seed.get('bytes_per_param'))} B/参数）得到模型状态 "
          f"{gb(seed.get('model_states_gb'))} GB；主流混合精度 AdamW 还要存 fp32 主权重和 fp32 的一阶、二阶矩，"
          f"实际是 {num(seed.get('precise_bytes_per_param'))} B/参数，即 {gb(seed.get('precise_model_states_gb'))} GB"
          "（ZeRO 论文）。两种算法都还没算激活值。",
          f"The seed article's rule of thumb (optimizer ≈ 4× the weights, {num(seed.get('bytes_per_param'))} B/param) "
          f"gives {gb(seed.get('model_states_gb'))} GB of model states; standard mixed-precision AdamW also keeps an "
          f"fp32 master copy and fp32 moments, {num(seed.get('precise_bytes_per_param'))} B/param = "
          f"{gb(seed.get('precise_model_states_gb'))} GB (ZeRO paper). Neither includes activations.")


def _tool_assumptions(w: Writer, res: dict, limit: int = 4) -> None:
    shown = 0
    for a in res.get("assumptions") or []:
        if shown >= limit:
            break
        if isinstance(a, dict):
            w.add("assumptions", a.get("zh") or "", a.get("en") or "")
            shown += 1
        elif isinstance(a, str):
            w.add("assumptions", bi(a, "zh"), bi(a, "en"))
            shown += 1


def _alt_line(w: Writer, est: dict) -> None:
    total, fits, room = est.get("total_gb"), est.get("fits"), est.get("headroom_gb")
    mode = _mode(w, est.get("mode"))
    if est.get("mode") == "inference" and est.get("precision") in ("int8", "int4"):
        mode = w.t(f"{est['precision']} 量化推理", f"{est['precision']}-quantised inference")
    card = _gpu_label(est)
    if _bare_size(card):
        card = w.t(f"{card} 的卡", f"a {card} card")
    if fits is True:
        w.add("alternatives", f"{mode}：每卡约 {gb(total)} GB，{_cat(card, '放得下')}（余量约 {gb(room)} GB）。",
              f"{mode}: about {gb(total)} GB per GPU — fits the {card} ({gb(room)} GB to spare).")
    elif fits is False:
        w.add("alternatives", f"{mode}：每卡约 {gb(total)} GB，{_cat(card, '也放不下')}（差约 {gb(-room)} GB）。",
              f"{mode}: about {gb(total)} GB per GPU — still does not fit the {card} ({gb(-room)} GB short).")
    else:
        w.add("alternatives", f"{mode}：每卡约 {gb(total)} GB。", f"{mode}: about {gb(total)} GB per GPU.")


def _min_gpus_line(w: Writer, res: dict, as_alternative: bool, prefix: tuple[str, str] | None = None) -> None:
    n, nodes, per, room = res.get("min_gpus"), res.get("nodes"), res.get("per_gpu_total_gb"), res.get("headroom_gb")
    card = str(res.get("gpu") or "").replace("NVIDIA ", "").replace("GeForce ", "")
    est = res.get("estimate") if isinstance(res.get("estimate"), dict) else {}
    inference = est.get("mode") == "inference"
    how_zh = "张量并行" if inference else " ZeRO-3/FSDP 分片"
    how_en = "tensor parallelism" if inference else "ZeRO-3/FSDP sharding"
    if not n:
        summary = res.get("summary") or {}
        w.add("alternatives" if as_alternative else "verdict", summary.get("zh") or "在搜索范围内找不到能放下的卡数。",
              summary.get("en") or "No GPU count within the search range fits.")
        return
    node_zh = f"（{num(nodes)} 台 8 卡机）" if nodes and n > 8 else ""
    node_en = f" ({num(nodes)} 8-GPU servers)" if nodes and n > 8 else ""
    job_zh = _cat(_model_label(w, est), _mode(w, est.get('mode'))) if est and not as_alternative else ""
    job_en = f"For {_mode(w, est.get('mode'))} of {_model_label(w, est)}, w" if est and not as_alternative else "W"
    zh = (f"{job_zh}：" if job_zh else "") + \
        f"用{how_zh}至少要 {num(n)} 张 {card}{node_zh}，每卡约 {gb(per)} GB，余量约 {gb(room)} GB。"
    en = f"{job_en}ith {how_en} you need at least {num(n)} × {card}{node_en}: about {gb(per)} GB per GPU, " \
        f"{gb(room)} GB to spare."
    pre_zh, pre_en = prefix or (("多加卡：", "More GPUs: ") if as_alternative else ("", ""))
    w.add("alternatives" if as_alternative else "verdict", pre_zh + zh, pre_en + en)


@renderer("estimate_memory", grouped=True)
def estimate_memory(w: Writer, r: ToolResult, ctx: Context) -> None:
    ests = ctx.by_name("estimate_memory")
    cards = list(dict.fromkeys(str(e.result.get("gpu")) for e in ests if e.result.get("gpu")))
    if len(cards) > 1:
        _memory_by_card(w, ctx, ests, cards)
        return
    wanted = ctx.slots.mode or ("full" if ctx.slots.training and not ctx.slots.finetune else None)
    primary = next((e for e in ests if str(e.args.get("mode")) == str(wanted)), ests[0])
    est = primary.result
    lora = next((e.result for e in ests if e is not primary and e.args.get("mode") in ("lora", "qlora")
                 and e.result.get("fits") is True), None)
    if ctx.slots.finetune and not ctx.slots.mode and est.get("fits") is False and lora:
        w.add("verdict", f"可以微调，但只能用 {_mode(w, lora.get('mode'))}，全量微调放不下。",
              f"Yes, but only with {_mode(w, lora.get('mode'))}; full fine-tuning does not fit.")
        sentence = _fit_sentence(w, est, lead=False)
    else:
        sentence = _fit_sentence(w, est, lead=True)
    if sentence:
        w.add("verdict", *sentence)
    _breakdown(w, est)
    if est.get("mode") == "full":
        _seed_rule(w, est)
    if est.get("fits") is True and est.get("max_batch"):
        serving = est.get("mode") == "inference"
        w.add("numbers", (f"这张卡上最多约 {num(est['max_batch'])} 条并发序列" if serving else
                          f"这张卡上最大微批约 {num(est['max_batch'])}")
              + (f"，最长{'上下文' if serving else '序列'}约 {num(est['max_seq_len'])} tokens" if est.get("max_seq_len") else ""),
              (f"Up to about {num(est['max_batch'])} concurrent sequences on this card" if serving else
               f"Largest micro-batch on this card: about {num(est['max_batch'])}")
              + (f"; longest {'context' if serving else 'sequence'} about {num(est['max_seq_len'])} tokens"
                 if est.get("max_seq_len") else ""))
    for other in ests:
        if other is not primary:
            _alt_line(w, other.result)
    for mg in ctx.by_name("find_min_gpus"):
        unnamed = not ctx.slots.gpus and not ctx.slots.vram_gb
        _min_gpus_line(w, mg.result, as_alternative=True,
                       prefix=("单张卡放不下，", "No single card holds it; ") if unnamed else None)
        if unnamed:
            w.add("assumptions", f"没指定卡型；卡数按 {_gpu_label(mg.result)} 算，换别的卡可以接着问「用 H800 呢」。",
                  f"No GPU was named; the GPU count uses the {_gpu_label(mg.result)}. Ask \"what about H800?\" "
                  "for another card.")
    if (ctx.slots.gpu_count or 1) > 1 and est.get("zero_stage") == 3 and ctx.slots.zero_stage is None:
        w.add("assumptions", "多卡训练按 ZeRO-3/FSDP 把权重（以及梯度、优化器状态）切分到各卡上计算。",
              "Training on several GPUs is assumed to shard weights (and gradients, optimizer states) with "
              "ZeRO-3/FSDP.")
    if ctx.slots.zero_stage and (est.get("gpus") or 1) == 1:
        w.add("assumptions", "ZeRO/FSDP 是把状态切到多张卡上才省显存，单卡开 ZeRO-3 本身不省（除非再加 CPU offload）。",
              "ZeRO/FSDP saves memory by splitting state across GPUs; on one GPU it saves nothing (unless you "
              "add CPU offload).")
    _model_fallback_note(w, ctx, est)
    _tool_assumptions(w, est, limit=3)
    _memory_next_steps(w, ctx, est, ests)


def _memory_by_card(w: Writer, ctx: Context, ests: list[ToolResult], cards: list[str]) -> None:
    """「用A100还是4090」: one verdict line per card (and per mode when the question left it open)."""
    w.add("verdict", "分别看每张卡：", "Card by card:")
    for card in cards:
        for e in ests:
            if str(e.result.get("gpu")) == card:
                sentence = _fit_sentence(w, e.result, lead=False)
                if sentence:
                    mark = {True: w.t("能", "fits"), False: w.t("不能", "does not fit")}.get(e.result.get("fits"), "")
                    w.add("verdict", f"- {mark}：{sentence[0]}", f"- {mark}: {sentence[1]}")
    first = ests[0].result
    _breakdown(w, first)
    if first.get("mode") == "full":
        _seed_rule(w, first)
    for mg in ctx.by_name("find_min_gpus"):
        _min_gpus_line(w, mg.result, as_alternative=True)
    _model_fallback_note(w, ctx, first)
    _tool_assumptions(w, first, limit=2)
    w.add("next", "显存够用的卡里再比速度和价格：可以接着问「这两张卡一个月多少钱」。",
          "Among the cards that fit, compare speed and price next: ask \"how much per month for these cards?\"")


def _model_fallback_note(w: Writer, ctx: Context, est: dict) -> None:
    s = ctx.slots
    if s.model and est.get("model_kind") == "generic" and not re.fullmatch(r"[\d.]+[bm]", s.model):
        w.add("assumptions", f"模型目录里还没有「{s.model}」，这里按同样参数量的通用架构估算。",
              f"'{s.model}' is not in the model catalog yet, so a generic architecture of the same size is used.")


def _memory_next_steps(w: Writer, ctx: Context, est: dict, ests: list[ToolResult]) -> None:
    room, cap = est.get("headroom_gb"), est.get("gpu_memory_gb")
    if est.get("fits") is False and isinstance(room, (int, float)) and isinstance(cap, (int, float)) \
            and -room < 0.05 * cap:
        w.add("next", "只差一点：缩短上下文/减小 batch、调高推理引擎的显存占用比例，或开更省显存的选项，就可能放下。",
              "It is only just short: a shorter context or smaller batch, a higher serving-engine memory fraction, "
              "or a leaner setting may make it fit.")
    if est.get("fits") is False and est.get("mode") == "full":
        big = (cap or 0) >= 80
        w.add("next", "先在这张卡上用 LoRA/QLoRA 把流程跑通，确实需要全量训练时再租多卡"
              + ("用 ZeRO-3 切分。" if big else "（或 A100/H100 这类大显存卡）。"),
              "Get the pipeline working with LoRA/QLoRA on this card first; rent several GPUs "
              + ("with ZeRO-3 sharding " if big else "(or large-memory cards such as A100/H100) ")
              + "only if you really need full fine-tuning.")
    elif est.get("fits") is False:
        w.add("next", "可以换更大显存的卡、加卡做并行，或者降低精度（int8/int4 量化）。",
              "Use a larger-memory card, add GPUs, or lower the precision (int8/int4 quantisation).")
    if est.get("model_kind") == "generic":
        w.add("next", "告诉我具体模型名（如 Qwen2.5-7B、Llama-3-8B）、序列长度和 batch，能估得更准。",
              "Name the exact model (e.g. Qwen2.5-7B, Llama-3-8B), sequence length and batch for a tighter figure.")
    w.add("next", "租到机器后先跑几步，用 torch.cuda.max_memory_allocated() 对照实际峰值。",
          "Once rented, run a few steps and check the real peak with torch.cuda.max_memory_allocated().")


@renderer("find_min_gpus")
def find_min_gpus(w: Writer, r: ToolResult, ctx: Context) -> None:
    if ctx.by_name("estimate_memory") or ctx.by_name("find_max_fit"):
        return  # shown as an alternative by the estimate_memory renderer
    res = r.result
    _min_gpus_line(w, res, as_alternative=False)
    est = res.get("estimate") if isinstance(res.get("estimate"), dict) else {}
    if est:
        _breakdown(w, est)
        if est.get("mode") == "full":
            _seed_rule(w, est)
    if not ctx.slots.gpus and not ctx.slots.vram_gb:
        w.add("assumptions", f"你没指定卡型，这里按 {_gpu_label(res) or 'A100 80GB'} 计算；换成别的卡可以直接问「那 H800 呢」。",
              f"No GPU was named, so {_gpu_label(res) or 'A100 80GB'} is assumed; ask \"what about H800?\" for another card.")
    _model_fallback_note(w, ctx, est)
    _tool_assumptions(w, res, limit=3)
    if est.get("mode") == "full":
        w.add("alternatives", "改做 LoRA/QLoRA 微调，所需卡数会少得多；可以接着问「那 LoRA 呢」。",
              "LoRA/QLoRA fine-tuning needs far fewer GPUs; ask \"what about LoRA?\".")
    if (res.get("min_gpus") or 0) > 8:
        if est.get("mode") == "inference":
            w.add("next", "超过一台 8 卡机就要跨机部署（张量并行最好留在机内，跨机用流水线并行），机间要 InfiniBand/RoCE 这类高速 RDMA 网络。",
                  "More than one 8-GPU server means serving across nodes (keep tensor parallelism inside a node, "
                  "pipeline across nodes) over a fast RDMA network (InfiniBand/RoCE).")
        else:
            w.add("next", "超过一台 8 卡机就是多机训练，机间要 InfiniBand/RoCE 这类高速 RDMA 网络，租之前问清楚。",
                  "More than one 8-GPU server means multi-node training, which needs a fast RDMA network (InfiniBand/RoCE); ask "
                  "the provider before renting.")


@renderer("find_max_fit")
def find_max_fit(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    what = res.get("solve_for")
    label = {"batch": ("最大微批", "largest micro-batch"), "seq_len": ("最长训练序列", "longest training sequence"),
             "context": ("最长上下文", "longest context"), "concurrency": ("最大并发序列数", "most concurrent sequences")}
    zh, en = label.get(str(what), (str(what), str(what)))
    card = str(res.get("gpu") or "").replace("NVIDIA ", "").replace("GeForce ", "")
    value = res.get("max_value")
    unit_zh = " tokens" if what in ("seq_len", "context") else ""
    n = r.args.get("gpus") or 1
    where_zh = f"{num(n)} 张 {card}" if n > 1 else card
    where_en = f"{num(n)} × {card}" if n > 1 else f"the {card}"
    if value:
        w.add("verdict", f"{where_zh} 上{zh}约 {num(value)}{unit_zh}。",
              f"On {where_en}, the {en} is about {num(value)}{unit_zh}.")
    else:
        serving = (r.args.get("mode") or "") == "inference"
        w.add("verdict", f"单张 {card} 上连最小的配置都放不下，" +
              ("要多卡或量化。" if serving else "要多卡（ZeRO-3）或改用 LoRA/QLoRA。"),
              f"A single {card} cannot hold even the smallest setting; you need " +
              ("more GPUs or quantisation." if serving else "more GPUs (ZeRO-3) or LoRA/QLoRA."))
    for mg in ctx.by_name("find_min_gpus"):
        _min_gpus_line(w, mg.result, as_alternative=True)
        n = mg.result.get("min_gpus")
        if n:
            w.add("next", f"想知道 {num(n)} 张时{zh}能到多少，可以接着问「{num(n)} 张呢」。",
                  f"To see the {en} on {num(n)} GPUs, ask \"what about {num(n)} of them?\"")
    est = res.get("estimate") if isinstance(res.get("estimate"), dict) else {}
    if est:
        _breakdown(w, est)
    _tool_assumptions(w, res, limit=3)


# ---------------------------------------------------------------- training time / cost ---------
def tokens_text(w: Writer, x: Any) -> str:
    """1e12 → '1万亿' / '1T'; 3e11 → '3000亿' / '300B' (the guard reads 万亿/亿/T/B as magnitudes)."""
    if not isinstance(x, (int, float)):
        return str(x)
    if w.lang == "zh":
        if x >= 1e12:
            return f"{x / 1e12:g}万亿"
        if x >= 1e8:
            return f"{x / 1e8:g}亿"
        return f"{x:,.0f}"
    if x >= 1e12:
        return f"{x / 1e12:g}T"
    if x >= 1e9:
        return f"{x / 1e9:g}B"
    return f"{x:,.0f}"


def _a(word: str) -> str:
    """English article before a number read aloud: 'an 8B', 'an 11B', 'a 7B'."""
    return "an" if re.match(r"(8|11|18|80|800)(\D|$)", word) else "a"


def big(x: Any) -> str:
    """A large count rounded to a whole number with thousands separators: 13413.51 → '13,414'."""
    return f"{round(x):,}" if isinstance(x, (int, float)) else str(x)


def _pct(x: Any) -> str:
    return f"{x * 100:g}%" if isinstance(x, (int, float)) else str(x)


@renderer("estimate_training_time")
def estimate_training_time(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    days, hours, gpu_h = res.get("days") or {}, res.get("wall_hours") or {}, res.get("gpu_hours") or {}
    cost, mfu = res.get("cost_cny") or {}, res.get("mfu") or {}
    n, card = res.get("n_gpus") or 1, str(res.get("gpu_name") or res.get("gpu") or "").replace("NVIDIA ", "")
    params = res.get("params")
    size = f"{params / 1e9:.3g}B" if isinstance(params, (int, float)) else ""
    toks = tokens_text(w, res.get("tokens"))
    asks_gpu_hours = re.search(r"gpu[\s-]*hours?|卡时|机时|算力总量", ctx.question, re.I)
    if (asks_gpu_hours or not ctx.slots.gpu_count) and gpu_h.get("mid") is not None:
        # No GPU count given (or GPU-hours asked): the total work is the answer; days depend on the count.
        w.add("verdict",
              f"训练 {size} 模型、{toks} token 大约需要 {big(gpu_h['mid'])} 卡时（{card}，按 MFU {_pct(mfu.get('mid'))}；"
              f"区间 {big(gpu_h.get('low'))}–{big(gpu_h.get('high'))}），平台价约 {money(cost.get('mid'))}。",
              f"Training {_a(size)} {size} model on {toks} tokens takes about {big(gpu_h['mid'])} GPU-hours on {card} "
              f"(at {_pct(mfu.get('mid'))} MFU; range {big(gpu_h.get('low'))}–{big(gpu_h.get('high'))}), about "
              f"{money(cost.get('mid'))} at platform prices.")
        if days.get("mid") is not None:
            w.add("verdict", f"用 {num(n)} 张卡要约 {big(days['mid'])} 天；卡数翻倍，时间大致减半。",
                  ("On one GPU" if n == 1 else f"On {num(n)} GPUs") +
                  f" that is about {big(days['mid'])} days; doubling the GPUs roughly halves it.")
    elif days.get("mid") is not None:
        w.add("verdict",
              f"用 {num(n)} 张 {card} 训练 {size} 模型、{toks} token，大约要 {num(round(days['mid']))} 天"
              f"（按 MFU {_pct(mfu.get('mid'))} 估；顺利时 {num(round(days['low']))} 天，保守 {num(round(days['high']))} 天）。",
              f"Training {_a(size)} {size} model on {toks} tokens with {num(n)} × {card} takes about "
              f"{num(round(days['mid']))} days (at {_pct(mfu.get('mid'))} MFU; {num(round(days['low']))} days if things go "
              f"well, {num(round(days['high']))} days conservatively).")
    if hours.get("mid") is not None:
        w.add("numbers", f"墙钟时间约 {big(hours['mid'])} 小时，共 {big(gpu_h.get('mid', 0))} 卡时"
              f"（区间 {big(gpu_h.get('low', 0))}–{big(gpu_h.get('high', 0))} 卡时）",
              f"Wall-clock about {big(hours['mid'])} hours; {big(gpu_h.get('mid', 0))} GPU-hours "
              f"(range {big(gpu_h.get('low', 0))}–{big(gpu_h.get('high', 0))})")
    if res.get("flops") is not None:
        w.add("numbers", f"计算量 {res.get('flops_formula', '6·N·D')} ≈ {res['flops']:.2g} FLOPs，"
              f"单卡峰值 {num(res.get('peak_tflops_per_gpu'))} TFLOPS（{res.get('precision_used', 'bf16')} 稠密）",
              f"Compute {res.get('flops_formula', '6·N·D')} ≈ {res['flops']:.2g} FLOPs; peak "
              f"{num(res.get('peak_tflops_per_gpu'))} TFLOPS per GPU ({res.get('precision_used', 'bf16')} dense)")
    if cost.get("mid") is not None:
        w.add("numbers", f"费用约 {money(cost['mid'])}（{money_range(cost.get('low'), cost.get('high'))}，"
              f"按每卡时 {money((res.get('price_per_gpu_hour_cny') or {}).get('mid'))} 的平台价）",
              f"Cost about {money(cost['mid'])} ({money_range(cost.get('low'), cost.get('high'))}, at the platform "
              f"price of {money((res.get('price_per_gpu_hour_cny') or {}).get('mid'))} per GPU-hour)")
    by_market = res.get("cost_cny_by_market") or {}
    if by_market.get("long_term_lease") and by_market.get("public_cloud_on_demand"):
        w.add("numbers", f"长租整机约 {money(by_market['long_term_lease'])}，公有云按量约 "
              f"{money(by_market['public_cloud_on_demand'])}",
              f"Long-term lease about {money(by_market['long_term_lease'])}; public-cloud on-demand about "
              f"{money(by_market['public_cloud_on_demand'])}")
    comm = res.get("comm") or {}
    if comm.get("note"):
        w.add("assumptions", bi(comm["note"], "zh"), bi(comm["note"], "en"))
    if res.get("mfu_source"):
        w.add("assumptions", "MFU（实际算力利用率）取经验区间，真实值取决于代码、batch 和通信。",
              "MFU (model FLOPs utilisation) is a typical band; the real figure depends on code, batch and communication.")
    for note in res.get("notes") or []:
        if isinstance(note, str) and not note.startswith("模型 / model"):
            w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    for warn in res.get("warnings") or []:
        if isinstance(warn, str):
            w.add("assumptions", bi(warn, "zh"), bi(warn, "en"))
    if days.get("mid") and days["mid"] > 60:
        w.add("alternatives", "时间太长：加卡（时间大致和卡数成反比，但多机要 IB/RoCE 网络）、换 H100/H800 这类更快的卡，或减少训练 token。",
              "Too long: add GPUs (time scales roughly inversely, but multi-node needs IB/RoCE), use faster cards "
              "such as H100/H800, or train on fewer tokens.")
    if not ctx.slots.gpus:
        w.add("assumptions", f"你没指定卡型，这里按 {card} 计算。", f"No GPU was named, so the {card} is assumed.")
    w.add("next", "先租几个小时跑一小段，用实测的每秒 token 数校准 MFU，再决定租多久。",
          "Rent for a few hours first, measure tokens per second to calibrate the MFU, then decide how long to rent.")


# ---------------------------------------------------------------- interconnect -----------------
_STATUS = {"ok": ("✓", "✓"), "warn": ("注意", "warning"), "fail": ("不行", "fails"), "info": ("提示", "note")}


@renderer("interconnect_advice", grouped=True)
def interconnect_advice(w: Writer, r: ToolResult, ctx: Context) -> None:
    results = ctx.by_name("interconnect_advice")
    several = len(results) > 1
    if several:
        ok = [x for x in results if all(rule.get("status") != "fail" for rule in x.result.get("rules") or [])]
        nets = [str(x.args.get("network")) for x in ok]
        w.add("verdict", "多机训练，机间网络至少要 100G 且支持 RDMA（IB 或 RoCE）；10G 以太网只够单机。"
              + (f"下面三种里能用的是：{'、'.join(nets)}。" if nets else ""),
              "Multi-node training needs at least 100G with RDMA (InfiniBand or RoCE) between servers; 10G "
              "Ethernet is for single-node only." + (f" Of the three below, usable: {', '.join(nets)}." if nets else ""))
    for x in results:
        res = x.result
        bw = res.get("expected_busbw") or {}
        label = str(x.args.get("network") or res.get("topology") or "").replace("pcie", "PCIe")
        if bw.get("mid_gbs") is not None:
            w.add("numbers", f"{label}：预期 all-reduce busbw 约 {num(bw.get('low_gbs'))}–{num(bw.get('high_gbs'))} GB/s"
                  f"（单向口径；拓扑 {res.get('topology')}）",
                  f"{label}: expected all-reduce busbw about {num(bw.get('low_gbs'))}–{num(bw.get('high_gbs'))} GB/s "
                  f"(per direction; topology {res.get('topology')})")
        for rule in res.get("rules") or []:
            status = rule.get("status")
            target = "verdict" if not several and status in ("fail", "warn") else "findings"
            mark_zh, mark_en = _STATUS.get(str(status), ("", ""))
            w.add(target, f"{mark_zh}：{rule.get('zh')}" if target == "findings" else rule.get("zh") or "",
                  f"{mark_en}: {rule.get('en')}" if target == "findings" else rule.get("en") or "")
        sync = res.get("gradient_sync") or {}
        if sync.get("seconds_low") is not None:
            w.add("numbers", f"每步同步 {gb(sync.get('gb'))} GB 梯度约需 {num(sync['seconds_low'])}–{num(sync.get('seconds_high'))} 秒"
                  f"（{sync.get('formula', '')}）",
                  f"Each step's {gb(sync.get('gb'))} GB gradient sync takes about {num(sync['seconds_low'])}–"
                  f"{num(sync.get('seconds_high'))} s ({sync.get('formula', '')})")
        if not several and bw.get("note"):
            w.add("assumptions", bi(bw["note"], "zh"), bi(bw["note"], "en"))
    if not w.parts["verdict"] and results:
        w.add("verdict", "这个配置的互联没有明显短板。", "No obvious interconnect bottleneck for this setup.")
    for note in (results[0].result.get("notes") or [])[:1] if results else []:
        w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    w.add("next", "租到后跑 nccl-tests 的 all_reduce_perf，把输出贴给我，我对照预期 busbw 帮你判断。",
          "Once rented, run nccl-tests all_reduce_perf and paste the output; I will compare it with the expected busbw.")


# ---------------------------------------------------------------- diagnosis ---------------------
_SEVERITY = {"critical": ("严重", "critical"), "warning": ("警告", "warning"), "info": ("提示", "info"),
             "ok": ("正常", "ok")}


def _zh_en(x: Any) -> tuple[str, str]:
    if isinstance(x, dict):
        return x.get("zh") or "", x.get("en") or ""
    return bi(str(x), "zh"), bi(str(x), "en")


@renderer("diagnose_logs")
def diagnose_logs(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    findings = [f for f in res.get("findings") or [] if isinstance(f, dict)]
    severity = res.get("severity")
    worst = findings[0] if findings else None
    if worst and severity in ("critical", "warning"):
        zh, en = _zh_en(worst.get("title"))
        lead_zh = "发现严重问题：" if severity == "critical" else "有需要处理的问题："
        lead_en = "Critical problem found: " if severity == "critical" else "Something needs attention: "
        w.add("verdict", lead_zh + zh + "。", lead_en + en + ".")
    elif findings:
        zh, en = _zh_en(findings[0].get("title"))
        w.add("verdict", "没有发现严重问题。" + zh + "。", "Nothing critical found. " + en + ".")
    else:
        kinds = "、".join(res.get("kinds") or []) or "?"
        w.add("verdict", f"日志（{kinds}）里没看到异常。", f"Nothing abnormal in the log ({kinds}).")
    for f in findings[:5]:
        sev_zh, sev_en = _SEVERITY.get(str(f.get("severity")), ("", ""))
        zh, en = _zh_en(f.get("title"))
        ev = next(iter(f.get("evidence") or []), None)
        quote = f"`{' '.join(str(ev).split())[:160]}`" if ev else ""
        w.add("findings", f"[{sev_zh}] {zh}" + (f"——原文 {quote}" if quote else ""),
              f"[{sev_en}] {en}" + (f" — evidence {quote}" if quote else ""))
    inv = res.get("inventory") or {}
    gpus = inv.get("gpus") or []
    if gpus or inv.get("driver_version"):
        names = sorted({str(g.get("name")) for g in gpus if isinstance(g, dict)})
        mem = next((g.get("memory_total_mib") for g in gpus if isinstance(g, dict) and g.get("memory_total_mib")), None)
        w.add("numbers", f"识别到 {len(gpus)} 块 GPU：{'、'.join(names)}" + (f"，每块 {num(mem)} MiB" if mem else "")
              + (f"；驱动 {inv.get('driver_version')}，驱动支持的最高 CUDA {inv.get('cuda_version')}" if inv.get("driver_version") else ""),
              f"{len(gpus)} GPU(s) seen: {', '.join(names)}" + (f", {num(mem)} MiB each" if mem else "")
              + (f"; driver {inv.get('driver_version')}, max CUDA {inv.get('cuda_version')}" if inv.get("driver_version") else ""))
    for row in res.get("acceptance") or []:
        if isinstance(row, dict):
            mark = {"pass": "✓", "fail": "✗"}.get(str(row.get("status")), "?")
            w.add("findings", f"验收 {mark} {row.get('check')}：期望 {row.get('expected')}，实际 {row.get('observed')}",
                  f"acceptance {mark} {row.get('check')}: expected {row.get('expected')}, observed {row.get('observed')}")
    if worst:
        for cause in (worst.get("causes") or [])[:2]:
            w.add("causes", *_zh_en(cause))
        for action in (worst.get("actions") or [])[:3]:
            w.add("next", *_zh_en(action))
    if res.get("next_action"):
        w.add("next", *_zh_en(res["next_action"]))


@renderer("delivery_checklist")
def delivery_checklist(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    out = res.get("output_file") or "gpu_acceptance.txt"
    w.add("verdict", f"拿到机器先别急着跑训练：在服务器上运行下面的验收脚本，它把所有检查结果存到 {out}，再把这个文件贴给我核对。",
          f"Before training, run the acceptance script below on the server; it saves every check to {out}. Paste that "
          "file back and I will check it.")
    for step in res.get("steps") or []:
        if isinstance(step, dict):
            w.add("checks", f"`{step.get('id')}`：{step.get('zh')}", f"`{step.get('id')}`: {step.get('en')}")
    if res.get("expect"):
        w.add("next", f"核对时用：gpu-advisor diagnose --expect \"{res['expect']}\" {out}",
              f"To check it: gpu-advisor diagnose --expect \"{res['expect']}\" {out}")
    w.add("next", "型号、显存、卡数、NVLink 拓扑和 all_reduce 带宽有任何一项对不上，当场找服务商换机。",
          "If the model, memory, GPU count, NVLink topology or all-reduce bandwidth does not match, ask the provider "
          "for another machine right away.")
    script = res.get("script")
    if isinstance(script, str) and script.strip():
        w.parts["script"].append("```bash\n" + script.strip() + "\n```")


# ---------------------------------------------------------------- plans -------------------------
def _option_line(w: Writer, o: dict) -> tuple[str, str]:
    card = str(o.get("gpu_name") or o.get("gpu") or "").replace("NVIDIA ", "").replace("GeForce ", "")
    nodes = o.get("nodes") or 1
    where_zh = f"，{num(nodes)} 台" if nodes > 1 else ""
    where_en = f", {num(nodes)} servers" if nodes > 1 else ""
    cost, days = o.get("cost_cny") or {}, o.get("days") or {}
    per_hour = "hour" in str(o.get("cost_basis") or "") and "whole run" not in str(o.get("cost_basis") or "")
    per_month = "month" in str(o.get("cost_basis") or "")
    if per_hour:
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
    return (f"{head}（{link_zh}{where_zh}）：每卡约 {gb(o.get('per_gpu_gb'))} GB{time_zh}，{cost_zh}",
            f"{head} ({link_en}{where_en}): about {gb(o.get('per_gpu_gb'))} GB per GPU{time_en}, {cost_en}")


@renderer("plan_configurations")
def plan_configurations(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    options = [o for o in res.get("options") or [] if isinstance(o, dict)]
    feasible = [o for o in options if o.get("feasible", True)]
    if feasible:
        zh, en = _option_line(w, feasible[0])
        w.add("verdict", "首选：" + zh + "。", "Best option: " + en + ".")
        why = feasible[0].get("why")
        if why:
            w.add("verdict", bi(why, "zh"), bi(why, "en"))
    else:
        w.add("verdict", "在给定的预算/工期下找不到可行的配置。", "No configuration meets the given budget/deadline.")
    if ctx.slots.finetune and not ctx.slots.mode and res.get("mode") == "lora":
        w.add("assumptions", "你说的是「微调」，没说全量还是 LoRA，这里按 LoRA 算；要全量微调可以接着问「全量呢」。",
              "You said fine-tune without saying full or LoRA, so LoRA is assumed; ask \"what about full fine-tuning?\" "
              "for the other.")
    budget, deadline = res.get("budget_cny"), res.get("deadline_hours")
    if budget or deadline:
        w.add("assumptions", "约束：" + "，".join(x for x in (
            f"预算 {money(budget)}" if budget else "", f"工期 {num(deadline)} 小时内" if deadline else "") if x),
              "Constraints: " + ", ".join(x for x in (
            f"budget {money(budget)}" if budget else "", f"finish within {num(deadline)} hours" if deadline else "") if x))
    for o in feasible[1:5]:
        zh, en = _option_line(w, o)
        note = bi(o.get("why") or "", w.lang)
        w.add("alternatives", f"#{num(o.get('rank'))} {zh}" + (f"（{note}）" if note else ""),
              f"#{num(o.get('rank'))} {en}" + (f" ({note})" if note else ""))
    for o in feasible[:1]:
        if o.get("billing"):
            w.add("next", bi(o["billing"], "zh"), bi(o["billing"], "en"))
        for note in o.get("notes") or []:
            w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    for bad in (res.get("infeasible") or [])[:3]:
        if isinstance(bad, dict):
            card = str(bad.get("gpu_name") or bad.get("gpu") or "")
            reason = bad.get("why") or bad.get("reason") or ""
            w.add("findings", f"不可行：{card} — {bi(str(reason), 'zh')}", f"Not feasible: {card} — {bi(str(reason), 'en')}")
    for a in (res.get("assumptions") or [])[:4]:
        w.add("assumptions", *_zh_en(a))
    if res.get("tokens") is None and res.get("mode") != "inference":
        w.add("next", "告诉我训练数据量（token 数，或样本数 × 序列长度 × 轮数），就能算出要跑几天、总共花多少钱。",
              "Tell me the training data size (tokens, or samples × sequence length × epochs) to get days and total cost.")
    if res.get("warning"):
        w.add("next", *_zh_en(res["warning"]))


def carried_note(w: Writer, s: Slots) -> None:
    """Say which earlier conditions a follow-up reused ("那A100呢？" keeps 7B and full training)."""
    zh, en = [], []
    if s.model or s.params_b:
        label = s.model if s.model and not re.fullmatch(r"[\d.]+[bm]", s.model) else f"{s.params_b:g}B"
        zh.append(f"模型 {label}")
        en.append(f"model {label}")
    if s.mode:
        zh.append(_MODE_LABEL.get(s.mode, (s.mode, s.mode))[0])
        en.append(_MODE_LABEL.get(s.mode, (s.mode, s.mode))[1])
    if s.gpus:
        zh.append("显卡 " + "、".join(s.gpus))
        en.append("GPU " + ", ".join(s.gpus))
    if s.gpu_count:
        zh.append(f"{s.gpu_count} 张卡")
        en.append(f"{s.gpu_count} GPUs")
    if s.context:
        zh.append(f"上下文 {s.context} tokens")
        en.append(f"context {s.context} tokens")
    if zh:
        w.add("context", "按上文的条件接着算：" + "，".join(zh) + "。", "Continuing with: " + ", ".join(en) + ".")


# ---------------------------------------------------------------- lookup_model -----------------
@renderer("lookup_model")
def lookup_model(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    arch = res.get("architecture") or {}
    name = res.get("name") or "?"
    pub = res.get("params_published")
    w.add("verdict", f"{name}：约 {num(res.get('params_b'))}B 参数" + (f"（官方写作 {pub}）" if pub else "")
          + (f"，{num(arch.get('num_layers'))} 层，隐藏维度 {num(arch.get('hidden_size'))}，{num(arch.get('num_heads'))} 个注意力头、"
             f"{num(arch.get('num_kv_heads'))} 个 KV 头" if arch else "") + "。",
          f"{name}: about {num(res.get('params_b'))}B parameters" + (f" (published as {pub})" if pub else "")
          + (f", {num(arch.get('num_layers'))} layers, hidden size {num(arch.get('hidden_size'))}, "
             f"{num(arch.get('num_heads'))} attention heads, {num(arch.get('num_kv_heads'))} KV heads" if arch else "") + ".")
    if res.get("weights_bf16_gb") is not None:
        w.add("numbers", f"bf16 权重约 {gb(res['weights_bf16_gb'])} GB", f"bf16 weights: about {gb(res['weights_bf16_gb'])} GB")
    if res.get("kv_bytes_per_token_fp16"):
        w.add("numbers", f"KV 缓存每 token {num(res['kv_bytes_per_token_fp16'])} 字节（按 fp16 计）",
              f"KV cache: {num(res['kv_bytes_per_token_fp16'])} bytes per token (fp16)")
    if arch.get("max_position_embeddings"):
        w.add("numbers", f"最大位置长度 {num(arch['max_position_embeddings'])} tokens",
              f"Max position embeddings: {num(arch['max_position_embeddings'])} tokens")
    if res.get("is_moe"):
        w.add("numbers", f"MoE：每个 token 激活约 {num(res.get('active_params'))} 个参数",
              f"MoE: about {num(res.get('active_params'))} parameters active per token")
    if res.get("source"):
        w.add("assumptions", f"架构数据来自 {res['source']}（截至 {res.get('as_of', '')}）",
              f"Architecture from {res['source']} (as of {res.get('as_of', '')})")
    w.add("next", "想知道它要多少显存，可以问「这个模型全量训练/LoRA/推理要多少显存」。",
          "To size it, ask \"how much memory for full fine-tuning / LoRA / inference of this model?\"")
