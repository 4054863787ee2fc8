"""Renderers for GPU facts and money: `gpu_specs`, `gpu_price`, `interconnect_advice`."""

from __future__ import annotations

import re

from assistant.offline.intents.args import SPECS, intent_of
from assistant.offline.intents.gpus import applies_memory_variant, applies_performance, speed_axes
from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_speed import speed_lead
from assistant.offline.writing.render_tools import (
    Context,
    bi,
    cat_words,
    gb,
    generic,
    money,
    money_range,
    pct,
    plural,
    renderer,
)


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


def _same_or_not(w: Writer, rows: dict, names: list[str], said: set[str]) -> bool:
    """「A800 和 A100 一样吗」/ "is the A800 the same as the A100": say which specs are equal and
    which differ, when they differ in only one or two."""
    if len(names) != 2 or "same_or_different" not in said:
        return False
    same: list[tuple[str, str, str, list]] = []
    diff: list[tuple[str, str, str, list]] = []
    for field, zh, en, unit in _SPEC_FIELDS:
        values = (rows.get(field) or {}).get("values") or []
        if len(values) != 2 or values[0] is None and values[1] is None:
            continue
        (same if values[0] == values[1] else diff).append((zh, en, unit, values))
    if not diff or len(diff) > 2 or not same:
        return False
    same_zh = "、".join(f"{zh} {num(v[0])} {unit}" for zh, _, unit, v in same)
    same_en = ", ".join(f"{en} {num(v[0])} {unit}" for _, en, unit, v in same)
    diff_zh = "；".join(
        f"{zh}：{names[0]} {num(v[0])} {unit}，{names[1]} {num(v[1])} {unit}" for zh, _, unit, v in diff
    )
    diff_en = "; ".join(f"{en}: {num(v[0])} vs {num(v[1])} {unit}" for _, en, unit, v in diff)
    w.add(
        "verdict",
        f"几乎一样：{names[0]} 和 {names[1]} 的{same_zh} 都相同，只差在 {diff_zh}。",
        f"Almost: the {names[0]} and the {names[1]} have the same {same_en}; they differ only in {diff_en}.",
    )
    return True


_ASKED = (  # (mention read in reading/shapes.py, field, sparse field, zh, en, unit)
    ("asked_bandwidth", "mem_bw_gbs", None, "显存带宽", "memory bandwidth", "GB/s"),
    ("asked_memory", "memory_gb", None, "显存", "memory", "GB"),
    ("asked_fp8", "fp8_dense_tflops", "fp8_sparse_tflops", "FP8 稠密算力", "dense FP8 throughput", "TFLOPS"),
    ("asked_tf32", "tf32_dense_tflops", "tf32_sparse_tflops", "TF32 稠密算力", "dense TF32 throughput", "TFLOPS"),
    ("asked_fp32", "fp32_tflops", None, "FP32 算力", "FP32 throughput", "TFLOPS"),
    ("asked_int8", "int8_dense_tops", "int8_sparse_tops", "INT8 稠密算力", "dense INT8 throughput", "TOPS"),
    (
        "asked_compute",
        "bf16_dense_tflops",
        "bf16_fp16_sparse_tflops",
        "BF16 稠密算力",
        "dense BF16 throughput",
        "TFLOPS",
    ),
    ("asked_power", "tdp_w", None, "功耗", "power (TDP)", "W"),
)


def _pooled_memory_answer(w: Writer, g: dict, name: str) -> None:
    """「两张3090用NVLink连起来显存能叠加成48G吗」: no — each card keeps its own memory. NVLink is a fast
    link for the traffic of a model split across cards (tensor/pipeline parallel, ZeRO-3/FSDP), not one
    pooled memory; CUDA sees two devices (NVIDIA NVLink docs; PyTorch/DeepSpeed place tensors per device)."""
    mem, link = g.get("memory_gb"), g.get("nvlink_gbs_bidir")
    via_zh = f"NVLink（{num(link)} GB/s 双向合计）" if link else "PCIe（这张卡没有 NVLink）"
    via_en = f"NVLink ({num(link)} GB/s bidirectional)" if link else "PCIe (this card has no NVLink)"
    w.add(
        "verdict",
        f"不会叠加成一块大显存：每张 {name} 仍是各自的 {num(mem)} GB，程序看到的是几张独立的卡。"
        f"模型比一张卡大时要把它切到几张卡上（张量并行 / 流水线并行、ZeRO-3 / FSDP，或 device_map 按层分），"
        f"卡间数据走 {via_zh}，互联只决定切分后通信快不快。",
        f"No, the memory is not pooled into one: each {name} keeps its own {num(mem)} GB and programs see "
        f"separate GPUs. A model larger than one card has to be split across them (tensor or pipeline parallel, "
        f"ZeRO-3 / FSDP, or device_map by layers); the traffic between cards goes over {via_en}, and the link "
        f"only decides how fast that split runs.",
    )


def _direct_spec_answer(w: Writer, g: dict, name: str, said: set[str]) -> None:
    """Answer the asked attribute(s) in the first sentence ("4090的显存带宽是多少" → 1008 GB/s)."""
    if "pooled_memory" in said:
        _pooled_memory_answer(w, g, name)
        return
    if "nvlink" in said and "asked_bandwidth" not in said:
        v = g.get("nvlink_gbs_bidir")
        if v:
            w.add(
                "verdict",
                f"有。{name} 的 NVLink 带宽为 {num(v)} GB/s（双向合计）。",
                f"Yes. The {name} has NVLink at {num(v)} GB/s (bidirectional total).",
            )
        elif v is not None:
            w.add(
                "verdict",
                f"没有。{name} 不支持 NVLink，多卡之间只能走 PCIe。",
                f"No. The {name} has no NVLink; multi-GPU traffic goes over PCIe.",
            )
        return
    if "nvlink" in said and g.get("nvlink_gbs_bidir") is not None:
        v = g["nvlink_gbs_bidir"]
        w.add(
            "verdict",
            f"{name} 的 NVLink 带宽为 {num(v)} GB/s（双向合计，单向 {num(v / 2)} GB/s）。"
            if v
            else f"{name} 没有 NVLink。",
            f"The {name}'s NVLink bandwidth is {num(v)} GB/s (bidirectional total; {num(v / 2)} GB/s each way)."
            if v
            else f"The {name} has no NVLink.",
        )
        return
    # 「H100 支持 FP8 吗」 is a support question; 「H100 的 FP8 算力多少」 asks the figure (the _ASKED rows below)
    if "asked_fp8" in said and g.get("fp8_supported") is not None and "asked_compute" not in said:
        from tools.gpus import fp8_usage

        ok = bool(g.get("fp8_supported"))
        zh, en = fp8_usage(name, str(g.get("architecture") or ""), ok, g.get("fp8_dense_tflops"))
        w.add(
            "verdict",
            ("支持。" if ok else "不支持。") + zh + "。",
            ("Yes. " if ok else "No. ") + en + ".",
        )
        return
    shown, precision_named = 0, False
    for mention, field, sparse, zh, en, unit in _ASKED:
        if shown >= 2 or mention not in said:
            continue
        if field == "bf16_dense_tflops" and precision_named and "asked_half" not in said:
            continue  # "TF32 算力" asked for TF32 only
        precision_named = precision_named or field.endswith(("tflops", "tops"))
        v = g.get(field)
        if v is None:
            w.add("verdict", f"{name} 没有{zh}这一项（不支持）。", f"The {name} has no {en} figure (not supported).")
        else:
            sv = g.get(sparse) if sparse else None
            extra_zh = f"（带 2:4 稀疏的标称值是 {num(sv)}，宣传页常写这个）" if sv else ""
            extra_en = f" ({num(sv)} with 2:4 sparsity, the figure datasheets headline)" if sv else ""
            w.add(
                "verdict",
                f"{name} 的{' ' if zh[0].isascii() else ''}{zh}是 {num(v)} {unit}{extra_zh}。",
                f"The {name}'s {en} is {num(v)} {unit}{extra_en}.",
            )
        shown += 1


def _network_rates(w: Writer, quoted: list[float], text: str) -> set[float]:
    """GB/s figures quoted next to a network word (IB / RoCE / 网卡) that equal a network link's per-direction
    line rate (knowledge/interconnect.yaml): say which port it is — Gb/s ÷ 8, nominal, not measured."""
    import re

    from assistant.offline.reading.shapes import _NET_NEAR
    from tools.interconnect import links

    out: set[float] = set()
    nets = [lk for lk in links() if lk.kind == "network" and lk.per_direction_gbs and lk.gbit]
    for q in dict.fromkeys(quoted):
        m = re.search(rf"(?<![\d.]){re.escape(num(q))}\s*GB\s*/\s*s", text, re.I)
        near = m and _NET_NEAR.search(text[max(0, m.start() - 12) : m.start()])
        if not near:
            continue
        word = near.group(0).lower()
        fam = "roce" if "roce" in word else "ib" if word in ("ib", "infiniband") else ""
        hits = [lk for lk in nets if abs(lk.per_direction_gbs - q) <= 0.02 * q]  # type: ignore[operator]
        hit = next((lk for lk in hits if lk.id.startswith(fam)), hits[0] if hits else None) if hits else None
        if hit is None:
            continue
        out.add(q)
        lo, hi = (hit.efficiency or [0.8, 0.95])[:2]
        w.add(
            "verdict",
            f"{num(q)} GB/s 正好是一个 {hit.name} 端口的单向线速：{num(hit.gbit)} Gb/s ÷ 8 = {num(q)} GB/s，是按接口速率换算的"
            f"名义值，不是实测；ib_write_bw / nccl-tests 实测一般是它的 {lo:.0%}–{hi:.0%}。",
            f"{num(q)} GB/s is exactly the per-direction line rate of one {hit.name} port: {num(hit.gbit)} Gb/s ÷ 8 = "
            f"{num(q)} GB/s, a nominal figure from the port speed, not a measurement; ib_write_bw / nccl-tests "
            f"usually reach {lo:.0%}–{hi:.0%} of it.",
        )
    return out


def _quoted_link_rates(w: Writer, g: dict, name: str, quoted: list[float], text: str = "") -> None:
    """GB/s figures the user quotes below the card's per-direction NVLink peak (a paper's 160 GB/s for the H800,
    a benchmark's 337 GB/s on an H20) are measured, achievable rates, not other specs: say what share each is."""
    bidir = g.get("nvlink_gbs_bidir") or 0
    per_dir = bidir / 2
    net = _network_rates(w, quoted, text)  # "IB 50 GB/s": a NIC's line rate, not a measured NVLink figure
    low = [q for q in dict.fromkeys(quoted) if per_dir and 0 < q < 0.98 * per_dir and q not in net]
    if not low:
        return
    vals = "、".join(num(q) for q in low), " and ".join(num(q) for q in low)
    shares = (
        "、".join(f"{round(100 * q / per_dir)}%" for q in low),
        " and ".join(f"{round(100 * q / per_dir)}%" for q in low),
    )
    w.add(
        "verdict",
        f"你给的 {vals[0]} GB/s 低于单向峰值 {num(per_dir)} GB/s（{'分别' if len(low) > 1 else ''}约 {shares[0]}）：这是基准测试或论文里实测（实际可达）的带宽，"
        f"不是另一个规格；规格页的 {num(bidir)} GB/s 是双向合计的理论峰值。",
        f"The {vals[1]} GB/s you quote {'is' if len(low) == 1 else 'are'} below the {num(per_dir)} GB/s per-direction peak "
        f"({shares[1]}): measured (achievable) rates from a benchmark or paper, not other specs; the {num(bidir)} GB/s "
        f"on the spec sheet is the bidirectional theoretical peak.",
    )


# seed-note id → the mention (reading/shapes.py: "note_<id>") that makes it relevant; absent = not shown
def _note_relevance(note: dict, said: set[str]) -> int:
    from assistant.offline.reading.shapes import MENTIONS

    key = f"note_{note.get('id')}"
    if key not in MENTIONS:
        return -1
    return 2 if key in said else 0


def _server_totals(w: Writer, setups: list, name: str, at: int) -> None:
    """「8 张 H100 的 FP8 算力」: the cards' dense peaks added up, in PFLOPS beside TFLOPS (1 PFLOPS = 1000 TFLOPS) —
    a server-level figure quoted per card, or 100× too large, is then plain to see."""
    st = next((x for x in setups if isinstance(x, dict) and (x.get("count") or 0) > 1), None)
    if st is None:
        return
    n = int(st["count"])
    bits = [
        (label, st.get(f"{key}_dense_pflops_total"), st.get(f"{key}_dense_tflops_total"))
        for label, key in (("BF16", "bf16"), ("FP8", "fp8"))
        if st.get(f"{key}_dense_pflops_total")
    ]
    if not bits:
        return
    zh = "、".join(f"{label} 稠密 {num(p)} PFLOPS（{t:,.0f} TFLOPS）" for label, p, t in bits)
    en = ", ".join(f"{label} dense {num(p)} PFLOPS ({t:,.0f} TFLOPS)" for label, p, t in bits)
    # the total of the cards asked about leads; the one-card figures follow it
    w.parts["verdict"].insert(
        at,
        w.t(
            f"{num(n)} 张 {name} 合计：{zh}；1 PFLOPS = 1000 TFLOPS，单卡的数见下。",
            f"{num(n)} × {name} together: {en}; 1 PFLOPS = 1000 TFLOPS, one card's figures below.",
        ),
    )


@renderer("gpu_specs")
def gpu_specs(w: Writer, r: ToolResult, ctx: Context) -> None:
    gpus = [g for g in r.result.get("gpus") or [] if isinstance(g, dict)]
    if not gpus:
        return generic(w, r, ctx)
    names = [_short_gpu(g) for g in gpus]
    variants = [v for v in r.result.get("variants") or [] if isinstance(v, dict)]
    if variants and intent_of(r.id) not in (SPECS, None):
        # added to a training-time answer (intents/same_chip.py): the same-chip rule is its part, not a spec table
        for rule in variants:
            w.add("verdict", str(rule.get("zh") or "") + "。", str(rule.get("en") or "") + ".")
        return
    speed_question = applies_memory_variant(ctx.slots)
    same = False  # the same-or-not line leads (「A800和A100有什么区别」)
    start = len(w.parts["verdict"])
    for rule in variants:  # same chip, same compute (knowledge/gpus.yaml variant_rules)
        w.add("verdict", str(rule.get("zh") or "") + "。", str(rule.get("en") or "") + ".")
    if speed_question and variants:
        pass  # "why is the 32G no faster": the rule is the answer; which-to-pick advice would bury it
    elif "suitability" in ctx.slots.cues and len(gpus) == 2 and len(ctx.slots.gpus) == 1:
        _suitability(w, gpus, names, ctx)
    elif (
        len(gpus) == 2
        and len(ctx.slots.gpus) == 1
        and not applies_performance(ctx.slots)  # 「魔改22G效果怎么样」: its speed, not which size to pick
        and gpus[0].get("family") == gpus[1].get("family")
        and gpus[0].get("memory_gb") != gpus[1].get("memory_gb")
    ):
        _memory_variant_verdict(w, gpus, names)
        ruled = w.parts["verdict"][start : start + len(variants)]  # which-to-pick leads; the rule follows it
        del w.parts["verdict"][start : start + len(variants)]
        w.parts["verdict"].extend(ruled)
    if len(gpus) == 1:
        g = gpus[0]
        at = len(w.parts["verdict"])
        _direct_spec_answer(w, g, names[0], ctx.said)
        quoted = list(getattr(ctx.slots, "quoted_rates_gbs", []) or [])
        if "nvlink" in ctx.said:
            _quoted_link_rates(w, g, names[0], quoted, ctx.slots.text or "")
        elif quoted:  # 「那IB带宽50GB/s也是单向实测值吗」: the network rate is what was asked, so it leads
            before = list(w.parts["verdict"])
            _network_rates(w, quoted, ctx.slots.text or "")
            added = [ln for ln in w.parts["verdict"] if ln not in before]
            w.parts["verdict"] = added + before
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
            parts_zh.append(
                f"{zh}{'' if zh.endswith('）') else ' '}{num(v)} {unit}" + (f" {mem_type}" if mem_type else "")
            )
            parts_en.append(f"{en} {num(v)} {unit}" + (f" {mem_type}" if mem_type else ""))
        w.add("verdict", f"{names[0]}：" + "，".join(parts_zh) + "。", f"{names[0]}: " + ", ".join(parts_en) + ".")
        _server_totals(w, r.result.get("setups") or [], names[0], at)
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
            cells = [
                f"{names[i]} {none}"
                if field == "nvlink_gbs_bidir" and v == 0
                else f"{names[i]} {num(v)} {unit}"
                if v is not None
                else f"{names[i]} —"
                for i, v in enumerate(values)
            ]
            w.add("numbers", f"{zh}：" + "；".join(cells), f"{en[0].upper() + en[1:]}: " + "; ".join(cells))
            best = row.get("best_index")
            if isinstance(best, int) and field != "tdp_w" and len(set(v for v in values if v is not None)) > 1:
                leads.setdefault(best, []).append((zh, en))
        same = _same_or_not(w, rows, names, ctx.said)
        if leads and not same:
            zh_bits = [f"{names[i]} " + cat_words("的", "、".join(z for z, _ in f)) + "更高" for i, f in leads.items()]
            en_bits = [f"{names[i]} leads on {', '.join(e for _, e in f)}" for i, f in leads.items()]
            w.add("verdict", "纸面规格上，" + "；".join(zh_bits) + "。", "On paper, " + "; ".join(en_bits) + ".")
        mems = [g.get("memory_gb") for g in gpus]
        if len(set(mems)) == 1 and mems[0] and not same:
            w.add(
                "verdict",
                f"显存一样大（都是 {num(mems[0])} GB），能装下的模型规模相同，差别在速度和多卡互联。",
                f"Memory is the same ({num(mems[0])} GB each), so they fit the same models; they differ in "
                "speed and multi-GPU links.",
            )
        w.add(
            "next",
            "先按模型大小定显存下限，再比代际和互联，最后看价格；可以接着问「这几张卡一个月多少钱」。",
            "Choose by memory floor first, then generation and interconnect, then price; ask next "
            '"how much per month for these cards".',
        )

    def line(v: dict) -> str:
        return w.t(str(v.get("zh") or "") + "。", str(v.get("en") or "") + ".")

    rules = tuple(line(v) for v in variants if v.get("rule") != "same_chip")
    speed_lead(w, r.result, names, ctx, start, rules)  # "哪个快 / 训练慢很多吗": the asked axis leads
    # 「A800 和 A100 哪个快」: one die under two names — "same compute" is the answer, the ratios follow it
    same_chip = [ln for ln in (line(v) for v in variants if v.get("rule") == "same_chip") if ln in w.parts["verdict"]]
    # …unless the same-or-not line or the link line already leads with the comparison (both say "same compute")
    if same_chip and same:  # the same-or-not line already names the one difference: the rule would repeat it
        w.parts["verdict"][:] = [ln for ln in w.parts["verdict"] if ln not in same_chip]
    elif same_chip and "link" not in speed_axes(ctx.slots):
        rest = [ln for ln in w.parts["verdict"][start:] if ln not in same_chip]
        w.parts["verdict"][start:] = same_chip + rest
    _fp64_premise(w, gpus, names, ctx)  # a comparison made on FP64 for a neural network: the premise leads
    for g in gpus:
        if g.get("lookup_note"):
            w.add("assumptions", bi(g["lookup_note"], "zh"), bi(g["lookup_note"], "en"))
    for note in (r.result.get("notes") or [])[:1]:
        w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    notes = [n for n in r.result.get("seed_notes") or [] if isinstance(n, dict)]
    notes.sort(key=lambda n: -_note_relevance(n, ctx.said))
    shown = 0
    for note in notes:
        if _note_relevance(note, ctx.said) >= 0 and shown < 2:
            w.add(
                "assumptions",
                "常见说法的简化：" + (note.get("zh") or ""),
                "Where a common rule of thumb simplifies: " + (note.get("en") or ""),
            )
            shown += 1


_FP64_RE = re.compile(r"double[- ]precision|\bdoubles?\b|\bfp64\b|双精度|float64", re.I)
_HPC_RE = re.compile(
    r"simulat|\bcfd\b|molecular|gromacs|lammps|quantum chem|finite element|仿真|分子动力学|有限元|hpc", re.I
)


def _fp64_premise(w: Writer, gpus: list[dict], names: list[str], ctx: Context) -> None:
    """Cards compared on FP64 for a neural-network job: the precision it really runs in leads (gpus.yaml fp64_for_dl)."""
    text = ctx.slots.text or ""
    if len(gpus) < 2 or not _FP64_RE.search(text) or _HPC_RE.search(text):
        return
    from tools.data import load_yaml

    rule = load_yaml("gpus.yaml").get("fp64_for_dl") or {}
    if not rule:
        return
    zh_rows, en_rows = [], []
    for g, n in zip(gpus, names, strict=False):
        half = g.get("bf16_dense_tflops") or g.get("fp16_dense_tflops")
        zh_rows.append(f"{n} 张量核 FP16/BF16 稠密 {num(half)} TFLOPS、显存带宽 {num(g.get('mem_bw_gbs'))} GB/s")
        en_rows.append(f"{n} {num(half)} TFLOPS FP16/BF16 tensor dense, {num(g.get('mem_bw_gbs'))} GB/s")
    w.parts["verdict"].insert(
        0,
        w.t(
            str(rule["zh"]).format(rows="；".join(zh_rows)) + "。",
            str(rule["en"]).format(rows="; ".join(en_rows)) + ".",
        ),
    )


def _memory_variant_verdict(w: Writer, gpus: list[dict], names: list[str]) -> None:
    """'A100 40G 和 80G 选哪个': same chip, two memory sizes — the job's memory decides."""
    small, large = sorted(range(2), key=lambda i: gpus[i].get("memory_gb") or 0)
    gs, gl = gpus[small], gpus[large]
    # no BF16 figure (a V100: FP16 tensor only): the variant rule line says it, with the chip's own peak
    same_compute = gs.get("bf16_dense_tflops") is not None and gs.get("bf16_dense_tflops") == gl.get(
        "bf16_dense_tflops"
    )
    w.add(
        "verdict",
        f"看任务放不放得进 {num(gs.get('memory_gb'))} GB：放得下就选 {names[small]}，更便宜；要训练更大的模型、"
        f"开长上下文或大并发推理，选 {names[large]}（{num(gl.get('memory_gb'))} GB，显存带宽 {num(gl.get('mem_bw_gbs'))} "
        f"GB/s，对 {num(gs.get('mem_bw_gbs'))} GB/s）。"
        + (
            f"两者算力相同（BF16 稠密都是 {num(gs.get('bf16_dense_tflops'))} TFLOPS），放得下时速度差别主要来自带宽。"
            if same_compute
            else ""
        ),
        f"It depends on whether the job fits in {num(gs.get('memory_gb'))} GB: if it does, take the {names[small]}, "
        f"which is cheaper; for larger models, long context or high-concurrency serving, take the {names[large]} "
        f"({num(gl.get('memory_gb'))} GB, {num(gl.get('mem_bw_gbs'))} GB/s memory bandwidth vs "
        f"{num(gs.get('mem_bw_gbs'))} GB/s)."
        + (
            f" Compute is the same ({num(gs.get('bf16_dense_tflops'))} TFLOPS BF16 dense each), so when both fit "
            "the difference is bandwidth."
            if same_compute
            else ""
        ),
    )
    w.add(
        "next",
        f"告诉我模型和用途（如「7B 全量训练」「32B 推理」），我按 {num(gs.get('memory_gb'))} GB 和 "
        f"{num(gl.get('memory_gb'))} GB 分别算能不能放下。",
        f'Tell me the model and job (e.g. "full fine-tune of a 7B", "serve a 32B") and I will check it against '
        f"{num(gs.get('memory_gb'))} GB and {num(gl.get('memory_gb'))} GB.",
    )


def _suitability(w: Writer, gpus: list[dict], names: list[str], ctx: Context) -> None:
    """'H20 适合训练吗': a verdict from compute against the usual training card, memory and bandwidth."""
    g, ref = gpus
    tf, ref_tf = g.get("bf16_dense_tflops"), ref.get("bf16_dense_tflops")
    mem, bw, link = g.get("memory_gb"), g.get("mem_bw_gbs"), g.get("nvlink_gbs_bidir")
    if not isinstance(tf, (int, float)) or not isinstance(ref_tf, (int, float)):
        return
    asks_training = "training_word" in ctx.said or ctx.slots.training
    name, ref_name = names
    facts_zh = f"{name} 的 BF16 稠密算力 {num(tf)} TFLOPS（{ref_name} 是 {num(ref_tf)}），显存 {num(mem)} GB、带宽 {num(bw)} GB/s"
    facts_en = (
        f"the {name} has {num(tf)} TFLOPS BF16 dense (the {ref_name}: {num(ref_tf)}), {num(mem)} GB of memory "
        f"and {num(bw)} GB/s"
    )
    slow = tf < 0.3 * ref_tf  # well under a third of the usual training card's compute
    consumer = not link and (mem or 0) <= 48
    if asks_training:
        if slow and (mem or 0) >= 48:
            w.add(
                "verdict",
                f"不适合拿来做大规模训练，它是偏推理的卡：{facts_zh}。推理和 LoRA 微调没问题，"
                "大模型全量训练/预训练会慢很多、性价比低。",
                f"Not for large-scale training — it is an inference-oriented card: {facts_en}. Inference and LoRA "
                "are fine; full training or pre-training of large models is much slower and poor value.",
            )
        elif consumer:
            w.add(
                "verdict",
                f"单卡 LoRA/QLoRA 和小模型训练可以；多卡全量训练不合适（没有 NVLink）：{facts_zh}。",
                f"Fine for single-card LoRA/QLoRA and small models; not for multi-GPU full training (no NVLink): "
                f"{facts_en}.",
            )
        elif slow:
            w.add("verdict", f"算力偏低，训练会慢：{facts_zh}。", f"Low compute, so training is slow: {facts_en}.")
        else:
            w.add("verdict", f"适合训练：{facts_zh}。", f"Yes, it is a training card: {facts_en}.")
    else:
        good = (mem or 0) >= 48 and (bw or 0) >= 1500
        facts_zh = (
            f"{name} 显存 {num(mem)} GB、显存带宽 {num(bw)} GB/s（{ref_name} 是 {num(ref.get('memory_gb'))} GB、"
            f"{num(ref.get('mem_bw_gbs'))} GB/s）；BF16 稠密算力 {num(tf)} TFLOPS，对 {num(ref_tf)}"
        )
        facts_en = (
            f"the {name} has {num(mem)} GB and {num(bw)} GB/s of memory bandwidth (the {ref_name}: "
            f"{num(ref.get('memory_gb'))} GB, {num(ref.get('mem_bw_gbs'))} GB/s); BF16 dense {num(tf)} TFLOPS vs "
            f"{num(ref_tf)}"
        )
        w.add(
            "verdict",
            (
                f"适合推理，显存和带宽是推理的关键：{facts_zh}。"
                if good
                else f"能做中小模型推理，受显存限制：{facts_zh}。"
            ),
            (
                f"Yes for inference — memory and bandwidth are what serving needs: {facts_en}."
                if good
                else f"It can serve small and medium models, limited by memory: {facts_en}."
            ),
        )


def _compute_per_yuan(w: Writer, prices: list[ToolResult], ctx: Context) -> None:
    """Two cards compared for training (or "which is better value"): which buys more BF16 dense
    compute per yuan of rent. Said with the tool's own figures (TFLOPS, ¥/card-hour), no new ratio."""
    if len(prices) != 2 or not (ctx.slots.training or "value_for_money" in ctx.said):
        return
    specs = {
        str(g.get("name") or ""): g
        for r in ctx.by_name("gpu_specs")
        for g in r.result.get("gpus") or []
        if isinstance(g, dict)
    }
    rows = []
    for p in prices:
        name = str(p.result.get("gpu_name") or "")
        hourly = (p.result.get("hourly_cny") or {}).get("typical")
        tflops = (specs.get(name) or {}).get("bf16_dense_tflops")
        if not isinstance(hourly, (int, float)) or not isinstance(tflops, (int, float)) or hourly <= 0:
            return
        rows.append((tflops / hourly, tflops, hourly, name.replace("NVIDIA ", "").replace("GeForce ", "")))
    rows.sort(reverse=True)
    (_, t_hi, p_hi, best), (_, t_lo, p_lo, other) = rows
    faster = best if t_hi >= t_lo else other
    zh_tail = (
        "单卡也更快，算力受限的训练选它。"
        if faster == best
        else f"但单卡更快的是 {other}，赶时间或多卡通信受限时再考虑它。"
    )
    en_tail = (
        "and it is also the faster card, so take it for compute-bound training."
        if faster == best
        else f"though the {other} is faster per card — worth it when time or the number of cards is the constraint."
    )
    w.add(
        "verdict",
        f"按每元租金买到的 BF16 稠密算力，{best} 更划算（{num(t_hi)} TFLOPS、{money(p_hi)}/卡时，对比 {other} 的 "
        f"{num(t_lo)} TFLOPS、{money(p_lo)}/卡时），" + zh_tail,
        f"Per yuan of rent the {best} buys more BF16 dense compute ({num(t_hi)} TFLOPS at {money(p_hi)}/card-hour vs "
        f"{num(t_lo)} TFLOPS at {money(p_lo)} for the {other}), " + en_tail,
    )
    if "value_for_money" in ctx.said and w.parts["verdict"]:  # "which is better value?": this is the answer
        w.parts["verdict"].insert(w.part_start, w.parts["verdict"].pop())


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
    if lo == hi:  # one price for every card: neither is "cheapest" nor "most expensive"
        w.add(
            "verdict",
            f"按典型租金，{'、'.join(n for _, n in rows)} 价格相同（都是 {money(lo)}/卡时），"
            "选哪张看性能和能不能租到。",
            f"By typical rental price they cost the same ({money(lo)}/card-hour each: "
            f"{', '.join(n for _, n in rows)}), so choose on performance and availability.",
        )
        return
    cheap = [n for p, n in rows if p == lo]
    dear = [n for p, n in rows if p == hi]
    if len(rows) == 2:
        w.add(
            "verdict",
            f"按典型租金，{lo_name} 更便宜（{money(lo)}/卡时），{hi_name} 贵一些（{money(hi)}/卡时）；"
            "便宜不等于划算，还要看显存够不够、跑得多快。",
            f"By typical rental price, the {lo_name} is cheaper ({money(lo)}/card-hour) than the {hi_name} "
            f"({money(hi)}/card-hour); cheaper is not better value unless the memory suffices and the speed is acceptable.",
        )
        return
    w.add(
        "verdict",
        f"按典型租金，{'、'.join(cheap)} 最便宜（{money(lo)}/卡时），{'、'.join(dear)} 最贵（{money(hi)}/卡时）；"
        "便宜不等于划算，还要看显存够不够、跑得多快。",
        f"By typical rental price, the {' and the '.join(cheap)} {'is' if len(cheap) == 1 else 'are'} cheapest "
        f"({money(lo)}/card-hour) and the {' and the '.join(dear)} the most expensive ({money(hi)}/card-hour); "
        "cheaper is not better value unless the memory suffices and the speed is acceptable.",
    )


_ONE_PERIOD = {
    "hour": ("一小时", "an hour"),
    "day": ("一天", "a day"),
    "week": ("一周", "a week"),
    "month": ("一个月", "a month"),
    "year": ("一年", "a year"),
}


def _period_label(w: Writer, ctx: Context, result: dict) -> str:
    s = ctx.slots
    if s.period_unit and s.period_count == 1:
        zh, en = _ONE_PERIOD[s.period_unit]
        return w.t(zh, en)
    if (
        s.period_unit in _ONE_PERIOD
        and s.period_count
        and float(s.period_count).is_integer()
        and s.period_unit != "hour"
    ):
        # "for 3 months" as the user said it, not "for 2160 hours" (the tool's hours back it)
        zh_unit = {"day": "天", "week": "周", "month": "个月", "year": "年"}[s.period_unit]
        return w.t(f"{num(s.period_count)} {zh_unit}", plural(s.period_count, s.period_unit))
    hours = result.get("period_hours")
    if hours:
        return w.t(f"{num(hours)} 小时", plural(hours, "hour"))
    return ""


# ---------------------------------------------------------------- gpu_price ----------------------
def _other_billing_part(w: Writer, ctx: Context, hourly: dict, monthly: dict) -> None:
    """「一小时多少钱，包月呢」: a price for one period that also asks the other billing: both are answered."""
    said, unit = ctx.slots.mentions, ctx.slots.period_unit
    if unit == "hour" and "asked_monthly" in said and monthly.get("typical"):
        rng = monthly.get("typical_range") or [monthly.get("low"), monthly.get("high")]
        w.add(
            "verdict",
            f"包月典型约 {money(monthly['typical'])}/卡月（常见 {money_range(*rng)}）。",
            f"Monthly: typically {money(monthly['typical'])} per card-month (usual {money_range(*rng)}).",
        )
    elif unit == "month" and "asked_hourly" in said and hourly.get("typical"):
        rng = hourly.get("typical_range") or [hourly.get("low"), hourly.get("high")]
        w.add(
            "verdict",
            f"按小时典型约 {money(hourly['typical'])}/卡时（常见 {money_range(*rng)}）。",
            f"Hourly: typically {money(hourly['typical'])} per card-hour (usual {money_range(*rng)}).",
        )


@renderer("gpu_price", grouped=True)
def gpu_price(w: Writer, r: ToolResult, ctx: Context) -> None:
    if ctx.by_name("plan_configurations"):
        return  # the budget check of a plan: quoted by the plan renderer
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
        quote, be = res.get("user_quote") or {}, res.get("break_even") or {}
        if not several and quote.get("hourly_cny") and quote.get("monthly_cny") and be.get("hours_per_month_platform"):
            hours = be["hours_per_month_platform"]
            w.add(
                "verdict",
                f"按你的报价（每小时 {money(quote['hourly_cny'])}、包月 {money(quote['monthly_cny'])}），"
                f"每月用满约 {num(hours)} 小时以上包月更划算（约合 {pct(be.get('vs_platform_monthly'))} 的开机时间）。",
                f"At your quotes ({money(quote['hourly_cny'])}/hour, {money(quote['monthly_cny'])}/month), monthly "
                f"billing wins above about {plural(hours, 'hour')} a month ({pct(be.get('vs_platform_monthly'))} utilisation).",
            )
            continue
        if (
            not several
            and "billing" in ctx.slots.cues
            and be.get("hours_per_month_platform")
            and monthly.get("typical")
        ):
            # "按小时还是包月": the break-even decides
            hours = be["hours_per_month_platform"]
            lead_zh = "一般按小时更划算" if (be.get("vs_platform_monthly") or 0) >= 0.5 else "用得多就包月"
            w.add(
                "verdict",
                f"{lead_zh}：{name} 只有每月用满约 {num(hours)} 小时以上（约 {pct(be.get('vs_platform_monthly'))} "
                f"的开机时间）包月才更省。按小时典型 {money(hourly.get('typical'))}/卡时，包月典型 "
                f"{money(monthly.get('typical'))}/卡月。",
                f"Pay hourly unless you use the {name} more than about {plural(hours, 'hour')} a month "
                f"({pct(be.get('vs_platform_monthly'))} utilisation) — above that, monthly is cheaper. Typical prices: "
                f"{money(hourly.get('typical'))}/card-hour, {money(monthly.get('typical'))}/card-month.",
            )
            if be.get("hours_per_month_lease"):
                w.add(
                    "verdict",
                    f"长租/整机的门槛更低：每月超过约 {num(be['hours_per_month_lease'])} 小时"
                    f"（约 {pct(be.get('vs_long_term_lease'))}）就比按小时便宜。",
                    f"A long-term lease breaks even sooner: above about {plural(be['hours_per_month_lease'], 'hour')} a "
                    f"month ({pct(be.get('vs_long_term_lease'))}).",
                )
        lone = ctx.slots.hourly_quote_cny if not ctx.slots.monthly_quote_cny else None
        if not several and lone and hourly.get("typical") is not None:
            lo, hi = (hourly.get("typical_range") or [hourly.get("low"), hourly.get("high")])[:2]
            where_zh = (
                "偏贵" if hi is not None and lone > hi else "偏便宜" if lo is not None and lone < lo else "在常见区间内"
            )
            where_en = (
                "on the expensive side"
                if hi is not None and lone > hi
                else "on the cheap side"
                if lo is not None and lone < lo
                else "within the usual range"
            )
            w.add(
                "verdict",
                f"你的报价 {money(lone)}/卡时{where_zh}：{name} 市场典型 {money(hourly['typical'])}/卡时"
                f"（常见 {money_range(lo, hi)}）。",
                f"Your quote of {money(lone)}/card-hour is {where_en}: the {name} typically rents for "
                f"{money(hourly['typical'])}/card-hour (usual {money_range(lo, hi)}).",
            )
        if total and period and not several:
            rng = total.get("typical_range") or [total.get("low"), total.get("high")]
            # several cards for a period: the card-hours the total is priced on (8 × 15.5 h = 124 card-hours)
            # only for a period the user gave in hours: "3 个月" is not restated as 4320 card-hours
            hourly_said = ctx.slots.period_unit == "hour"
            ch = res.get("card_hours") if count > 1 and hourly_said else None
            ch_zh = f"（{count} × {num(res['period_hours'])} 小时 = {num(ch)} 卡时）" if ch else ""
            ch_en = f" ({count} × {num(res['period_hours'])} h = {num(ch)} GPU-hours)" if ch else ""
            w.add(
                "verdict",
                f"租 {cards_zh}{name} {period}{ch_zh}，典型价约 {money(total.get('typical'))}"
                f"（常见区间 {money_range(*rng)}；最便宜的长租约 {money(total.get('low'))}，"
                f"公有云按量最高约 {money(total.get('high'))}）。",
                f"Renting {cards_en}{name} for {period}{ch_en} costs about {money(total.get('typical'))} typically "
                f"(usual range {money_range(*rng)}; long-term lease from {money(total.get('low'))}, "
                f"public-cloud on-demand up to {money(total.get('high'))}).",
            )
            _other_billing_part(w, ctx, hourly, monthly)
        elif hourly or monthly:
            h_rng = hourly.get("typical_range") or [hourly.get("low"), hourly.get("high")]
            m_rng = monthly.get("typical_range") or [monthly.get("low"), monthly.get("high")]
            w.add(
                "verdict" if not several else "numbers",
                f"{name}：按小时典型 {money(hourly.get('typical'))}/卡时（{money_range(*h_rng)}），"
                f"包月典型 {money(monthly.get('typical'))}/卡月（{money_range(*m_rng)}）。",
                f"{name}: typically {money(hourly.get('typical'))} per card-hour ({money_range(*h_rng)}), "
                f"{money(monthly.get('typical'))} per card-month ({money_range(*m_rng)}).",
            )
        if several:
            continue
        for market in res.get("by_market") or []:
            w.add(
                "numbers",
                f"{market.get('zh')}：{money(market.get('hourly_cny'))}/卡时，{money(market.get('monthly_cny'))}/卡月",
                f"{market.get('en')}: {money(market.get('hourly_cny'))}/card-hour, "
                f"{money(market.get('monthly_cny'))}/card-month",
            )
        server = res.get("server_8card_monthly_cny") or {}
        if server and (count >= 8 or ctx.slots.gpu_count):
            w.add(
                "numbers",
                f"整台 8 卡服务器月租典型 {money(server.get('typical'))}",
                f"A whole 8-card server: typically {money(server.get('typical'))} per month",
            )
        for advice in (res.get("advice") or [])[:2]:
            w.add("alternatives", bi(advice, "zh"), bi(advice, "en"))
        if res.get("proxy"):
            w.add(
                "assumptions",
                "这张卡没有直接的报价数据，用的是相近型号的价格作参考。",
                "There is no direct price data for this card; a similar card's price is used as a proxy.",
            )
    _local_price_line(w, ctx)
    first = prices[0].result if prices else {}
    if several:
        _cheapest(w, prices)
        _compute_per_yuan(w, prices, ctx)
    if first.get("as_of"):
        w.add(
            "assumptions",
            f"价格数据截至 {first['as_of']}，可信度 {first.get('confidence', '')}；人民币、不含存储和带宽。",
            f"Price data as of {first['as_of']}, confidence {first.get('confidence', '')}; CNY, excluding "
            "storage and bandwidth.",
        )
    if first.get("warning"):
        w.add("next", bi(first["warning"], "zh"), bi(first["warning"], "en"))


_NATIONAL_RE = re.compile(r"全国(?:统一定价|价)|price nationally|national prices", re.I)


def _local_price_line(w: Writer, ctx: Context) -> None:
    """「青岛…多少钱」: the guide on renting in Shandong says whether a local price exists; its sentence goes right
    after the price, quoted from knowledge/guide/shandong-datacenters.md (no second copy of the claim here)."""
    for r in ctx.by_name("search_guide"):
        if r.args.get("doc_id") != "shandong-datacenters":
            continue
        for hit in r.result.get("hits") or []:
            text = str(hit.get("text") or "")
            for sentence in re.split(r"(?<=[。！？])|(?<=[.!?])\s+", text):
                if _NATIONAL_RE.search(sentence):
                    line = re.sub(r"\s*(?:（见 `[^`]+`）|\(see `[^`]+`\))", "", sentence).strip()
                    w.add("verdict", f"{line}（见 `shandong-datacenters`）", f"{line} (see `shandong-datacenters`)")
                    return


# ---------------------------------------------------------------- interconnect -----------------
def _measured_busbw_verdict(w: Writer, r: ToolResult, measured: float) -> None:
    """The user's own all_reduce_perf busbw against the tool's expected range for that setup: the
    tool says what is normal (`low_gbs`–`high_gbs`) and where a problem starts (`flag_below_gbs`)."""
    bw = r.result.get("expected_busbw") or {}
    low, high, flag = bw.get("low_gbs"), bw.get("high_gbs"), bw.get("flag_below_gbs")
    if low is None or high is None:
        return
    n, topo = bw.get("n_gpus") or r.args.get("n_gpus"), str(bw.get("topology") or "")
    shown = {"nvswitch": "NVSwitch", "nvlink": "NVLink", "nvlink_bridge": "NVLink bridge", "pcie": "PCIe"}.get(
        topo, topo
    )
    setup_zh = f" {num(n)} 卡 {r.args.get('gpu') or 'GPU'}（{shown}）"
    setup_en = f"{num(n)} × {r.args.get('gpu') or 'GPU'} ({shown})"
    tenth = measured < low / 10  # said in words: a derived percentage would be a number no tool gave
    if flag is not None and measured < flag:
        w.add(
            "verdict",
            f"不正常。你测到的 busbw {num(measured)} GB/s 远低于{setup_zh}的预期 {num(low)}–{num(high)} GB/s，"
            f"{'不到下限的十分之一' if tenth else '不到下限的一半'}（低于 {num(flag)} GB/s 就说明有问题）。",
            f"No — {num(measured)} GB/s is far below the {num(low)}–{num(high)} GB/s expected on {setup_en}: "
            f"{'under a tenth' if tenth else 'under half'} of the low end, and anything under {num(flag)} GB/s "
            "points to a problem.",
        )
        if topo in ("nvswitch", "nvlink"):
            w.add(
                "next",
                "先看 `nvidia-smi topo -m`：GPU 之间应显示 NV#（如 NV12/NV18），只看到 PIX/PXB/PHB/SYS 说明没走 NVLink；"
                "SXM/NVSwitch 机器还要确认 `nvidia-fabricmanager` 服务在运行。",
                "Check `nvidia-smi topo -m` first: GPU pairs should show NV# (e.g. NV12/NV18); PIX/PXB/PHB/SYS means "
                "traffic is not on NVLink. On SXM/NVSwitch servers also confirm the `nvidia-fabricmanager` service is running.",
            )
            w.add(
                "next",
                "用 `NCCL_DEBUG=INFO` 重跑：日志里应是 `via P2P/IPC`，出现 `via SHM` 表示绕主机内存；确认没有设置 `NCCL_P2P_DISABLE=1`。",
                "Re-run with `NCCL_DEBUG=INFO`: the log should say `via P2P/IPC`; `via SHM` means traffic detours through "
                "host memory. Make sure `NCCL_P2P_DISABLE=1` is not set.",
            )
        w.add(
            "next",
            "读最大几档消息时的 busbw 平台值，不是最后一行的平均值；复测仍低就带着输出找服务商。",
            "Read the busbw plateau at the largest message sizes, not the average on the last line; if it is "
            "still low, take the output to the provider.",
        )
    elif measured < low:
        w.add(
            "verdict",
            f"偏低。{num(measured)} GB/s 低于{setup_zh}的预期 {num(low)}–{num(high)} GB/s，"
            f"但还没低到说明硬件有问题（{num(flag)} GB/s）；先确认读的是大消息的平台值，再看 NCCL 版本和设置。",
            f"Somewhat low — {num(measured)} GB/s is under the {num(low)}–{num(high)} GB/s expected on {setup_en} "
            f"but not low enough to point to broken hardware (under {num(flag)} GB/s); check you "
            "read the large-message plateau, then the NCCL version and settings.",
        )
    else:
        w.add(
            "verdict",
            f"正常。{num(measured)} GB/s 在{setup_zh}的预期 {num(low)}–{num(high)} GB/s 之内或更高。",
            f"Yes, that is normal: {num(measured)} GB/s is within (or above) the {num(low)}–{num(high)} GB/s "
            f"expected on {setup_en}.",
        )


_STATUS = {"ok": ("✓", "✓"), "warn": ("注意", "warning"), "fail": ("不行", "fails"), "info": ("提示", "note")}


def _node_layout_lines(w: Writer, r: ToolResult) -> None:
    """ "8*80G 是一个 node 还是多个" / "32 A100 = 8 × 4?": whole 8-GPU servers, the link inside one and between them
    (tools/interconnect.node_layout over knowledge/interconnect.yaml servers)."""
    lay = r.result.get("layout") or {}
    if not lay:
        return
    n, per, nodes = lay.get("n_gpus"), lay.get("gpus_per_node"), lay.get("nodes")
    card = str(r.args.get("gpu") or "GPU")
    intra, intra_bw = lay.get("intra_link"), lay.get("intra_per_direction_gbs")
    inter, inter_bw = lay.get("inter_link"), lay.get("inter_per_direction_gbs")
    in_zh = f"卡间走 {intra}（单向约 {num(intra_bw)} GB/s）" if intra else ""
    in_en = f"the GPUs talk over {intra} (about {num(intra_bw)} GB/s per direction)" if intra else ""
    if nodes == 1:
        w.add(
            "verdict",
            f"{num(n)} 张 {card} 就是一台 {num(n)} 卡机（单机 {num(n)} 卡、一个节点）：一台 HGX 服务器装 {num(per)} 张，"
            + (in_zh + "，" if in_zh else "")
            + "不需要多机网络。",
            f"{num(n)} × {card} is one {num(n)}-GPU server (a single node): one HGX server holds {num(per)}"
            + (f", and {in_en}" if in_en else "")
            + "; no multi-node network is needed.",
        )
    else:
        ratio = round(intra_bw / inter_bw) if intra_bw and inter_bw else None
        w.add(
            "verdict",
            f"{num(n)} 张 {card} 是 {num(nodes)} 台 × {num(per)} 卡（多机，{num(nodes)} 个节点）：没有一台机器能装 {num(n)} 张，"
            f"HGX 服务器一台 {num(per)} 张。机内{in_zh or '走 PCIe'}，机间走 InfiniBand/RoCE（{inter} 单向约 "
            f"{num(inter_bw)} GB/s"
            + (f"，约为机内的 1/{num(ratio)}" if ratio else "")
            + "），所以张量并行留在机内，跨机做数据并行或流水线并行。",
            f"{num(n)} × {card} means {num(nodes)} servers × {num(per)} GPUs (multi-node, {num(nodes)} nodes): no "
            f"machine holds {num(n)}, an HGX server takes {num(per)}. Inside each, {in_en or 'PCIe'}; between them, "
            f"InfiniBand/RoCE ({inter}, about {num(inter_bw)} GB/s per direction"
            + (f", about 1/{num(ratio)} of the in-server link" if ratio else "")
            + "), so tensor parallelism stays inside a server and data/pipeline parallelism spans servers.",
        )
    ref, ram, nics = lay.get("reference_server"), lay.get("reference_host_ram_gb"), lay.get("reference_nics")
    if ref and ram:
        w.add(
            "verdict",
            f"参考整机 {ref}：每台主机内存（RAM）{num(ram / 1000)} TB"
            + (f"、机间网卡 {nics}" if nics and nodes and nodes > 1 else "")
            + "；租用时按实际任务核对内存是否够加载模型。",
            f"Reference server {ref}: {num(ram / 1000)} TB of host RAM each"
            + (f", {nics} between servers" if nics and nodes and nodes > 1 else "")
            + "; check the host RAM against what loading your model needs.",
        )


def _sync_depends_on_model(w: Writer) -> None:
    """No model size given: how much network is enough depends on the gradient bytes per step against the step's
    compute (ring all-reduce moves ≈ 2(n−1)/n × gradient bytes per GPU; nccl-tests PERFORMANCE.md)."""
    w.add(
        "verdict",
        "够不够取决于模型大小：数据并行每步都要把梯度 all-reduce 一遍，环形算法每张卡收发约 2 × 梯度字节（参数量 × 4 B fp32，"
        "bf16 是 2 B），耗时 ≈ 2 × 梯度字节 ÷ 网络带宽，要和每步的计算时间比；模型小（如 CIFAR 上的小 CNN）每步只算几毫秒，"
        "连 10GbE 都会成为瓶颈，多机反而比单机慢，模型和每卡 batch 越大通信占比越小。告诉我参数量，我按每步同步时间算。",
        "Whether it is enough depends on the model size: data parallel all-reduces the gradients every step, a ring "
        "moving about 2 × the gradient bytes per GPU (parameters × 4 B in fp32, 2 B in bf16), so the sync takes about "
        "2 × gradient bytes ÷ link bandwidth per step, to be set against the step's compute time; a small model (a "
        "small CNN on CIFAR) computes a step in milliseconds, so even 10GbE is the bottleneck and two machines run "
        "slower than one, while bigger models and per-GPU batches shrink the share. Tell me the parameter count and I "
        "will work out the per-step sync time.",
    )


def _link_ratio_line(w: Writer, x: dict) -> None:
    """Two links on one basis; the mixed figure (one's both-ways total over the other's one way) said as such."""
    a, b = re.sub(r"\s*\(.*\)", "", str(x["a"])), re.sub(r"\s*\(.*\)", "", str(x["b"]))
    ap, bp, ab, bb = (
        num(x[k]) for k in ("a_per_direction_gbs", "b_per_direction_gbs", "a_bidirectional_gbs", "b_bidirectional_gbs")
    )
    r, mixed = num(x["ratio"]), num(x["mixed_ratio"])
    w.add(
        "verdict",
        f"同一口径比，{a} 约是 {b} 的 **{r} 倍**：单方向 {ap} 对 {bp} GB/s，双向合计 {ab} 对 {bb} GB/s，两种口径比出来一样。"
        f"拿一边的双向合计去比另一边的单方向（{ab} 对 {bp}）才会得到约 {mixed} 倍，那是把口径混了。",
        f"On one basis the {a} is about **{r}×** the {b}: {ap} vs {bp} GB/s per direction, {ab} vs {bb} GB/s "
        f"bidirectional — the same ratio either way. Setting one side's bidirectional total against the other's "
        f"per-direction rate ({ab} vs {bp}) gives about {mixed}×, which mixes the two bases.",
    )


def _lane_lines(w: Writer, lanes: list[dict], ctx: Context) -> None:
    """「x1 还是 x16」「要能拆分 x8 吗」: each width's rate, then what the narrow one costs for the way the cards talk."""
    by_gen: dict[int, list[dict]] = {}
    for x in lanes:
        by_gen.setdefault(int(x["gen"]), []).append(x)
    zh = "；".join(
        f"PCIe {g}.0 " + "、".join(f"x{x['lanes']} 单向约 {num(x['per_direction_gbs'])} GB/s" for x in xs)
        for g, xs in by_gen.items()
    )
    en = "; ".join(
        f"PCIe {g}.0 " + ", ".join(f"x{x['lanes']} about {num(x['per_direction_gbs'])} GB/s per direction" for x in xs)
        for g, xs in by_gen.items()
    )
    w.add(
        "verdict",
        f"PCIe 带宽和通道数成正比（每条通道速率 × 通道数）：{zh}。",
        f"PCIe bandwidth scales with the lane count (per-lane rate × lanes): {en}.",
    )
    narrowest = min(int(x["lanes"]) for x in lanes)
    bridge = (
        "nvlink" in ctx.said or "nvlink_bridge" in ctx.said or bool(re.search(r"nvlink", ctx.slots.text or "", re.I))
    )
    if narrowest <= 4:
        w.add(
            "verdict",
            f"影响取决于卡之间通信多少：张量并行每一层都要做 all-reduce（卡间通信），走 x{narrowest} 时带宽只有 x16 的 "
            f"1/{16 // narrowest}，通信就成了瓶颈，生成或训练会慢好几倍；每张卡各跑各的（或流水线并行这种卡间通信很少的切法）"
            f"影响小，主要是加载权重慢 {16 // narrowest} 倍。"
            + ("矿机式 x1 转接只适合卡间几乎不通信的负载。" if narrowest == 1 else ""),
            f"The cost depends on how much the cards talk: tensor parallel does an all-reduce in every layer (inter-GPU "
            f"communication), and at x{narrowest} the link has 1/{16 // narrowest} of x16's bandwidth, so that traffic "
            f"becomes the bottleneck and generation or training slows several-fold; cards that each run on their own "
            f"(or pipeline parallel, which passes little between cards) lose little beyond loading weights "
            f"{16 // narrowest}× slower."
            + (" Mining-style x1 risers only suit work with almost no inter-GPU traffic." if narrowest == 1 else ""),
        )
    elif narrowest == 8:
        w.add(
            "verdict",
            "x8 是 x16 的一半带宽：两张卡有 NVLink 桥时，张量并行的通信走 NVLink、不走 PCIe，主板把两个 x16 插槽拆成 "
            "x8/x8 就够用；没有桥时推理影响也不大，多卡训练的梯度同步会慢一些。"
            if bridge
            else "x8 是 x16 的一半带宽：单卡和推理基本不受影响；多卡张量并行、训练的梯度同步（all-reduce）走 PCIe，"
            "会慢一些，但通常不是成倍的差别。",
            "x8 has half the bandwidth of x16: with an NVLink bridge between two cards, tensor-parallel traffic goes over "
            "NVLink, not PCIe, so two x16 slots wired x8/x8 are enough; without a bridge inference barely notices, and "
            "multi-GPU training's gradient sync is somewhat slower."
            if bridge
            else "x8 has half the bandwidth of x16: one card and inference barely notice; tensor parallel and "
            "training's gradient sync (all-reduce) over PCIe get somewhat slower, usually not by a multiple.",
        )


@renderer("interconnect_advice", grouped=True)
def interconnect_advice(w: Writer, r: ToolResult, ctx: Context) -> None:
    if ctx.intent == "min_gpus" and ctx.by_name("find_min_gpus"):
        return  # the links of the rented GPU count: quoted by the find_min_gpus renderer
    results = ctx.by_name("interconnect_advice")
    lanes = next((x.result.get("lane_rates") for x in results if x.result.get("lane_rates")), None)
    if lanes:
        _lane_lines(w, lanes, ctx)
    for x in results:
        for ratio in x.result.get("link_ratios") or []:
            _link_ratio_line(w, ratio)
    if ctx.intent == "node_layout" and results:
        _node_layout_lines(w, results[0])
    several = len(results) > 1
    by_topology = several and all(x.args.get("topology") for x in results)
    if not several and results and ctx.slots.measured_busbw_gbs:
        _measured_busbw_verdict(w, results[0], ctx.slots.measured_busbw_gbs)
    if by_topology:
        parts_zh, parts_en = [], []
        for x in results:
            bw, sync = x.result.get("expected_busbw") or {}, x.result.get("gradient_sync") or {}
            topo = str(x.args.get("topology")).replace("pcie", "PCIe").replace("nvswitch", "NVSwitch")
            t_zh = (
                f"，同步一次梯度约 {num(sync['seconds_low'])}–{num(sync.get('seconds_high'))} 秒"
                if sync.get("seconds_low") is not None
                else ""
            )
            t_en = (
                f", one gradient all-reduce about {num(sync['seconds_low'])}–{num(sync.get('seconds_high'))} s"
                if sync.get("seconds_low") is not None
                else ""
            )
            if bw.get("low_gbs") is None:
                continue
            parts_zh.append(f"{topo} 预期 busbw 约 {num(bw.get('low_gbs'))}–{num(bw.get('high_gbs'))} GB/s{t_zh}")
            parts_en.append(
                f"{topo}: expected busbw about {num(bw.get('low_gbs'))}–{num(bw.get('high_gbs'))} GB/s{t_en}"
            )
        n = (results[0].result.get("expected_busbw") or {}).get("n_gpus") or results[0].args.get("n_gpus")
        if parts_zh:
            w.add(
                "verdict",
                (f"同样 {num(n)} 张卡：" if n else "") + "；".join(parts_zh) + "。",
                (f"Same {plural(n, 'GPU')} — " if n else "") + "; ".join(parts_en) + ".",
            )
    elif several:
        ok = [x for x in results if all(rule.get("status") != "fail" for rule in x.result.get("rules") or [])]
        nets = [str(x.args.get("network")) for x in ok]
        w.add(
            "verdict",
            "多机训练，机间网络至少要 100G 且支持 RDMA（IB 或 RoCE）；10G 以太网只够单机。"
            + (f"下面三种里能用的是：{'、'.join(nets)}。" if nets else ""),
            "Multi-node training needs at least 100G with RDMA (InfiniBand or RoCE) between servers; 10G "
            "Ethernet is for single-node only." + (f" Of the three below, usable: {', '.join(nets)}." if nets else ""),
        )
        if not any(x.args.get("params_b") for x in results):
            _sync_depends_on_model(w)
    for x in results:
        res = x.result
        bw = res.get("expected_busbw") or {}
        label = str(x.args.get("network") or res.get("topology") or "").replace("pcie", "PCIe")
        if bw.get("mid_gbs") is not None and not by_topology:
            w.add(
                "numbers",
                f"{label}：预期 all-reduce busbw 约 {num(bw.get('low_gbs'))}–{num(bw.get('high_gbs'))} GB/s"
                f"（单向口径；拓扑 {res.get('topology')}）",
                f"{label}: expected all-reduce busbw about {num(bw.get('low_gbs'))}–{num(bw.get('high_gbs'))} GB/s "
                f"(per direction; topology {res.get('topology')})",
            )
        # a failing rule is the answer ("10 GbE is single-node only"); warnings follow it
        for rule in sorted(res.get("rules") or [], key=lambda rl: {"fail": 0, "warn": 1}.get(str(rl.get("status")), 2)):
            status = rule.get("status")
            target = "verdict" if not several and status in ("fail", "warn") else "findings"
            mark_zh, mark_en = _STATUS.get(str(status), ("", ""))
            w.add(
                target,
                f"{mark_zh}：{rule.get('zh')}" if target == "findings" else rule.get("zh") or "",
                f"{mark_en}: {rule.get('en')}" if target == "findings" else rule.get("en") or "",
            )
        sync = res.get("gradient_sync") or {}
        if sync.get("seconds_low") is not None and not by_topology:
            w.add(
                "numbers",
                f"每步同步 {gb(sync.get('gb'))} GB 梯度约需 {num(sync['seconds_low'])}–{num(sync.get('seconds_high'))} 秒"
                f"（{sync.get('formula', '')}）",
                f"Each step's {gb(sync.get('gb'))} GB gradient sync takes about {num(sync['seconds_low'])}–"
                f"{num(sync.get('seconds_high'))} s ({sync.get('formula', '')})",
            )
        if not several and bw.get("note"):
            w.add("assumptions", bi(bw["note"], "zh"), bi(bw["note"], "en"))
    if not w.parts["verdict"] and results:
        w.add("verdict", "这个配置的互联没有明显短板。", "No obvious interconnect bottleneck for this setup.")
    for note in (results[0].result.get("notes") or [])[:1] if results else []:
        w.add("assumptions", bi(note, "zh"), bi(note, "en"))
    # a measured figure was just compared above, or a quoted algbw is (the busbw renderer sets it against this range)
    if not ctx.slots.measured_busbw_gbs and not ctx.by_name("busbw_from_algbw"):
        w.add(
            "next",
            "租到后跑 nccl-tests 的 all_reduce_perf，把输出贴给我，我对照预期 busbw 帮你判断。",
            "Once rented, run nccl-tests all_reduce_perf and paste the output; I will compare it with the expected busbw.",
        )


# ---------------------------------------------------------------- check_reported_memory ---------
_READ_AS = {
    "gib_rounded": (
        "按 nvidia-smi 的 MiB ÷ 1024（GiB，四舍五入或截断）理解——人们常这样把 MiB 说成「G」",
        "was read as nvidia-smi MiB ÷ 1024 (GiB, rounded or truncated) — how people usually turn the "
        "MiB figure into 'GB'",
    ),
    "gib": ("按 GiB 理解", "was read as GiB"),
    "gb": ("按十进制 GB 理解", "was read as decimal GB"),
    "gb_or_gib": ("按十进制 GB 或 GiB 两种读法都算了", "was read both as decimal GB and as GiB"),
    "mib": ("就是 MiB，可以直接比", "is already in MiB and compares directly"),
}


@renderer("check_reported_memory")
def check_reported_memory(w: Writer, r: ToolResult, ctx: Context) -> None:
    """Verdict first: is the memory total the user saw what a genuine card shows in nvidia-smi?"""
    res = r.result
    name = _short_gpu({"name": res.get("gpu")})
    exp, lo, hi = res.get("expected_mib"), res.get("seen_mib_low") or 0, res.get("seen_mib_high") or 0
    seen = f"{num(round(lo))} MiB" if abs(hi - lo) < 1 else f"{num(round(lo))}–{num(round(hi))} MiB"
    verdict = res.get("verdict")
    if verdict == "normal":
        w.add(
            "verdict",
            f"**正常，不是假卡的迹象。** 正品 {name} 在 nvidia-smi 里显示 {num(exp)} MiB（= {res['expected_gib']} GiB），"
            f"你看到的数字约合 {seen}，对得上。",
            f"**Normal — not a sign of a fake card.** A genuine {name} shows {num(exp)} MiB in nvidia-smi "
            f"(= {res['expected_gib']} GiB); your figure is about {seen}, which matches.",
        )
    elif verdict == "suspicious":
        w.add(
            "verdict",
            f"**可疑：比正品少。** 正品 {name} 在 nvidia-smi 里显示 {num(exp)} MiB（= {res['expected_gib']} GiB），"
            f"你看到的约 {seen}，明显偏少，可能不是这张卡或显存被改过。请按下面的命令核对并截图给服务商。",
            f"**Suspicious: less than a genuine card.** A genuine {name} shows {num(exp)} MiB in nvidia-smi "
            f"(= {res['expected_gib']} GiB); yours is about {seen}, clearly short — it may be another card or a "
            f"modified one. Check with the commands below and send the output to the provider.",
        )
    elif verdict == "more_than_spec":
        w.add(
            "verdict",
            f"**比正品多，和规格不符。** 正品 {name} 显示 {num(exp)} MiB，你看到的约 {seen}：可能是改装扩容卡"
            "（如 48GB 改版 4090）或别的型号，驱动兼容和保修要问清楚。",
            f"**More than a genuine card — does not match the spec.** A genuine {name} shows {num(exp)} MiB; yours "
            f"is about {seen}: possibly a memory-modded card (e.g. a 48 GB 4090) or another model; ask about "
            "driver support and warranty.",
        )
    else:
        w.add(
            "verdict",
            f"**无法判断：** 我没有 {name} 在 nvidia-smi 里的显存总数的可引用数据（规格 {num(res.get('memory_gb'))} GB "
            f"= {num(round(res.get('datasheet_mib') or 0))} MiB），不编数字。你看到的约 {seen}。",
            f"**Can't tell:** I have no cited nvidia-smi memory total for the {name} (datasheet "
            f"{num(res.get('memory_gb'))} GB = {num(round(res.get('datasheet_mib') or 0))} MiB), and I won't guess. "
            f"Your figure is about {seen}.",
        )
    read_as = _READ_AS.get(res.get("interpretation") or "", ("", ""))
    w.add(
        "numbers",
        f"单位：GB = 10^9 字节，GiB = 2^30，MiB = 2^20；nvidia-smi 打印的是 MiB。规格上的 {num(res.get('memory_gb'))} GB "
        f"= {num(round(res.get('datasheet_mib') or 0))} MiB；你的数字{read_as[0]}。",
        f"Units: GB = 10^9 bytes, GiB = 2^30, MiB = 2^20; nvidia-smi prints MiB. The datasheet's "
        f"{num(res.get('memory_gb'))} GB = {num(round(res.get('datasheet_mib') or 0))} MiB; your figure {read_as[1]}.",
    )
    w.add(
        "next",
        "运行 `nvidia-smi -q -d MEMORY`，看 FB Memory Usage 下的 Total（MiB），和上面正品的 MiB 数逐位比较；"
        "`nvidia-smi --query-gpu=name,memory.total --format=csv` 一次列出每张卡。",
        "Run `nvidia-smi -q -d MEMORY` and compare FB Memory Usage → Total (MiB) with the genuine figure above; "
        "`nvidia-smi --query-gpu=name,memory.total --format=csv` lists every card at once.",
    )
    w.add(
        "next",
        "运行 `gpu-advisor checklist`，生成完整的验机脚本（型号、显存、带宽、互联、跑一遍压力测试）。",
        "Run `gpu-advisor checklist` for a full acceptance script (model, memory, bandwidth, links, a burn-in run).",
    )
    if res.get("source"):
        w.add("assumptions", f"正品显存总数来源：{res['source']}", f"Genuine-card total from: {res['source']}")
