"""The lead of a speed comparison: the axis the user asked about, as a ratio, and what it means for the job.

Which spec decides speed depends on the work (NVIDIA's datasheets give each peak; which one binds is standard
roofline reasoning): training and prefill are compute-bound → dense BF16/FP16 TFLOPS; token-by-token decoding
reads every weight once per token → memory bandwidth (GB/s); multi-GPU work (tensor parallel, ring attention,
all-reduce) → the link between cards (NVLink links × 50 GB/s, else PCIe). Memory capacity decides only whether
the job fits, so it follows the speed line instead of leading it.
"""

from __future__ import annotations

import re

from assistant.offline.intents.gpus import applies_speed_parts, compares_speed, speed_axes
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import Context, bi

# FlashAttention-2 needs Ampere (sm_80) or newer; Turing/Volta fall back to FlashAttention 1.x or slower kernels
# (Dao-AILab/flash-attention README: https://github.com/Dao-AILab/flash-attention#installation-and-features)
_PRE_AMPERE = ("Turing", "Volta", "Pascal", "Kepler")


def _peak(g: dict) -> tuple[float | None, str, str]:
    """Dense half-precision peak: BF16, else FP16 tensor (Turing/Volta have no BF16)."""
    if g.get("bf16_dense_tflops"):
        return g["bf16_dense_tflops"], "BF16 稠密算力", "dense BF16"
    if g.get("fp16_dense_tflops"):
        return g["fp16_dense_tflops"], "FP16 稠密算力（不支持 BF16）", "dense FP16 (no BF16)"
    return g.get("fp32_tflops"), "FP32 算力", "FP32"


def _x(r: float) -> str:
    """A ratio as written in the answer: 148/312 → '0.47', 616/448 → '1.38'."""
    return f"{r:.2f}"


Ratios = dict[tuple[str, str, str], float]


def _ratios(result: dict) -> Ratios:
    """(a id, b id, field) → a ÷ b, both orders, from the tool's speed_ratios (the writer computes none)."""
    out: Ratios = {}
    for row in result.get("speed_ratios") or []:
        if isinstance(row, dict):
            a, b, field = str(row.get("a")), str(row.get("b")), str(row.get("field"))
            out[(a, b, field)] = float(row.get("a_over_b") or 0)
            out[(b, a, field)] = float(row.get("b_over_a") or 0)
    return out


def _r(ratios: Ratios, a: dict, b: dict, field: str) -> float | None:
    return ratios.get((str(a.get("id")), str(b.get("id")), field)) or None


def _links(g: dict) -> tuple[str, str]:
    n = g.get("nvlink_links")
    return (f"，{n} 条链路", f", {n} links") if n else ("", "")


def _link_line(w: Writer, a: dict, b: dict, na: str, nb: str, ratios: Ratios) -> bool:
    la, lb = a.get("nvlink_gbs_bidir"), b.get("nvlink_gbs_bidir")
    r = _r(ratios, a, b, "nvlink_gbs_bidir")
    if not la or not lb or la == lb or not r:
        return False
    (za, ea), (zb, eb) = _links(a), _links(b)
    same = a.get("bf16_dense_tflops") == b.get("bf16_dense_tflops") and a.get("mem_bw_gbs") == b.get("mem_bw_gbs")
    zh_tail = (
        f"两者算力（{num(a.get('bf16_dense_tflops'))} TFLOPS）和显存带宽（{num(a.get('mem_bw_gbs'))} GB/s）相同，单卡计算一样快，"
        f"差在卡间通信：张量并行、ring attention、all-reduce 这类通信多的任务，在 {na} 上更难把通信藏在计算后面，效率会更低。"
        if same
        else "通信多的任务（张量并行、ring attention、all-reduce）受它影响最大。"
    )
    en_tail = (
        f"Compute ({num(a.get('bf16_dense_tflops'))} TFLOPS) and memory bandwidth ({num(a.get('mem_bw_gbs'))} GB/s) are "
        f"the same, so single-GPU work runs at the same speed; the difference is communication: tensor parallel, ring "
        f"attention and all-reduce have less link bandwidth to hide behind compute on the {na}, so they lose more efficiency."
        if same
        else "Communication-heavy work (tensor parallel, ring attention, all-reduce) feels it most."
    )
    w.add(
        "verdict",
        f"多卡通信看 NVLink：{na} {num(la)} GB/s（双向合计{za}），{nb} {num(lb)} GB/s（{zb.lstrip('，')}），"
        f"{na} 是 {nb} 的 {_x(r)} 倍（约 {r:.0%}）。" + zh_tail,
        f"Multi-GPU traffic rides on NVLink: the {na} has {num(la)} GB/s (bidirectional total{ea}), the {nb} "
        f"{num(lb)} GB/s ({eb.lstrip(', ')}) — {_x(r)}× ({r:.0%}), fewer links. " + en_tail,
    )
    return True


def _compute_line(w: Writer, a: dict, b: dict, na: str, nb: str, lead: bool, ratios: Ratios) -> None:
    (ta, za, ea), (tb, zb, eb) = _peak(a), _peak(b)
    if not ta or not tb:
        return
    if not lead and ta < tb:
        (a, b, na, nb), (ta, za, ea), (tb, zb, eb) = (b, a, nb, na), (tb, zb, eb), (ta, za, ea)
    r, back = _r(ratios, a, b, "peak_half_tflops"), _r(ratios, b, a, "peak_half_tflops")
    if not r or not back:
        return
    if lead:
        more = f"同样的活约要 {back:.1f} 倍时间（按相同 MFU）" if r < 1 else f"同样的活约只要 {back:.2f} 倍时间"
        more_en = (
            f"the same job takes about {back:.1f}× as long (same MFU)"
            if r < 1
            else (f"the same job takes about {back:.2f}× the time")
        )
        w.add(
            "verdict",
            f"训练速度看稠密算力：{na} 的 {za} {num(ta)} TFLOPS，{nb} 是 {num(tb)}（{zb}），{na} 是 {nb} 的 {_x(r)} 倍"
            + (f"（约 {r:.0%}）" if r < 1 else "")
            + f"，算力受限的训练{more}。",
            f"Training speed follows dense compute: the {na} has {num(ta)} TFLOPS {ea}, the {nb} {num(tb)} ({eb}) — "
            f"{_x(r)}×" + (f" ({r:.0%})" if r < 1 else "") + f"; for compute-bound training {more_en}.",
        )
    else:
        w.add(
            "verdict",
            f"训练和预填充看算力：{na} {num(ta)} TFLOPS（{za}），{nb} {num(tb)} TFLOPS（{zb}），{na} 是 {nb} 的 {_x(r)} 倍。",
            f"Training and prefill follow compute: the {na} has {num(ta)} TFLOPS ({ea}), the {nb} {num(tb)} ({eb}) — "
            f"{_x(r)}×.",
        )


def _bandwidth_line(w: Writer, a: dict, b: dict, na: str, nb: str, lead: bool, ratios: Ratios) -> None:
    ba, bb = a.get("mem_bw_gbs"), b.get("mem_bw_gbs")
    if not ba or not bb:
        return
    if lead and ba < bb:  # "which is faster": the faster card is the subject (616 vs 448 → 1.38×)
        a, b, na, nb, ba, bb = b, a, nb, na, bb, ba
    r = _r(ratios, a, b, "mem_bw_gbs")
    if not r:
        return
    if r == 1:  # 4090D vs 4090: the same memory system, so decoding is no faster on either
        if lead:
            w.add(
                "verdict",
                f"显存带宽相同（都是 {num(ba)} GB/s）：模型放得下时，推理逐 token 生成的速度一样，差别只在算力。",
                f"Memory bandwidth is the same ({num(ba)} GB/s each): when the model fits, token-by-token decoding runs "
                "at the same speed; only compute differs.",
            )
        return
    if lead:
        tail_zh = "单条序列的解码速度大致按这个比例（模型放得下时）。"
        tail_en = "single-stream decode speed scales roughly by that ratio (when the model fits)."
    else:
        tail_zh = "推理时逐 token 生成受带宽限制，这一项" + ("反而更快。" if r > 1 else "更慢。")
        tail_en = "token-by-token decoding is bandwidth-bound, so there it is " + ("faster." if r > 1 else "slower.")
    w.add(
        "verdict",
        f"{'推理逐 token 生成看显存带宽' if lead else '但显存带宽'}：{na} {num(ba)} GB/s，{nb} {num(bb)} GB/s，"
        f"{na} 是 {nb} 的 {_x(r)} 倍；" + tail_zh,
        f"{'Token-by-token decoding follows memory bandwidth' if lead else 'Memory bandwidth'}: the {na} has "
        f"{num(ba)} GB/s, the {nb} {num(bb)} GB/s — {_x(r)}×; " + tail_en,
    )


def _memory_line(w: Writer, a: dict, b: dict, na: str, nb: str) -> None:
    ma, mb = a.get("memory_gb"), b.get("memory_gb")
    if not ma or not mb or ma == mb:
        return
    big, small = (na, mb) if ma > mb else (nb, ma)
    w.add(
        "verdict",
        f"显存容量 {na} {num(ma)} GB、{nb} {num(mb)} GB：模型加 batch 超过 {num(small)} GB 时只有 {big} 放得下，"
        "先看放不放得下，再比快慢。",
        f"Memory capacity: {na} {num(ma)} GB, {nb} {num(mb)} GB — once the model and batch exceed {num(small)} GB only "
        f"the {big} holds it; check the fit first, then the speed.",
    )


def _old_arch_line(w: Writer, gpus: list[dict], names: list[str], decode: bool) -> None:
    for g, name in zip(gpus, names, strict=False):
        arch = str(g.get("architecture") or "")
        old = next((a for a in _PRE_AMPERE if a in arch), None)
        if not old or g.get("bf16_dense_tflops"):
            continue
        vllm_zh = "；vLLM 等推理框架在这类卡上只能用 FP16 或量化权重，注意力走较慢的实现" if decode else ""
        vllm_en = (
            "; vLLM and similar engines run it in FP16 or quantised weights with slower attention kernels"
            if decode
            else ""
        )
        w.add(
            "verdict",
            f"{name} 是 {old} 架构：不支持 BF16（训练用 FP16 + loss scaling），也用不了 FlashAttention-2（要 Ampere 及以上）"
            + vllm_zh
            + "。",
            f"The {name} is {old}: no BF16 (train in FP16 with loss scaling) and no FlashAttention-2 (needs Ampere or "
            "newer)" + vllm_en + ".",
        )
        return


def _setup_line(w: Writer, gpus: list[dict], names: list[str], setups: list[dict]) -> bool:
    """「单张 5090 还是两张 2080 Ti 22G」/ "2×4090 vs 1×A100": totals side by side, and the cost of splitting."""
    if len(gpus) < 2 or len(setups) < 2:
        return False
    bits_zh, bits_en = [], []
    for g, name, st in zip(gpus[:2], names[:2], setups[:2], strict=False):
        n, mem = st.get("count"), st.get("memory_gb_total")
        bits_zh.append(f"{n} 张 {name} 合计显存 {num(mem)} GB、每张带宽 {num(g.get('mem_bw_gbs'))} GB/s")
        bits_en.append(f"{n}× {name}: {num(mem)} GB in all, {num(g.get('mem_bw_gbs'))} GB/s per card")
    many = 0 if (setups[0].get("count") or 1) > (setups[1].get("count") or 1) else 1
    multi, mg = names[many], gpus[many]
    link, bridge = mg.get("nvlink_gbs_bidir"), "sxm" not in str(mg.get("form_factor") or "").lower()
    via_zh, via_en = "PCIe（没有 NVLink）", "PCIe (no NVLink)"
    if link and bridge:  # a 2-card bridge is an add-on: without it the cards talk over PCIe
        via_zh, via_en = (
            f"NVLink 桥（装了的话，{num(link)} GB/s）或 PCIe",
            f"an NVLink bridge ({num(link)} GB/s, if fitted) or PCIe",
        )
    elif link:
        via_zh, via_en = f"NVLink {num(link)} GB/s", f"NVLink {num(link)} GB/s"
    w.add(
        "verdict",
        "；".join(bits_zh) + f"。模型一张卡放得下就用单卡：没有卡间通信；多张 {multi} 要把模型切开（张量并行），"
        f"每层都要在卡间同步，走 {via_zh}，带宽不能简单相加，只有一张卡的显存不够时多卡才划算。",
        "; ".join(bits_en) + f". If the model fits one card, one card wins: no inter-card communication; several "
        f"{multi} cards must split the model (tensor parallel) and synchronise every layer over {via_en}, so their "
        "bandwidth does not simply add — more cards pay off only when one card's memory is not enough.",
    )
    return True


def _decode_bound_line(w: Writer, g: dict, name: str, ceilings: dict[str, dict]) -> None:
    """One card's single-stream decode ceiling with its memory filled: bandwidth ÷ the bytes read per token."""
    c = ceilings.get(str(g.get("id")))
    bw = g.get("mem_bw_gbs")
    if not c or not bw:
        return
    weights, tps = c.get("weights_gb"), c.get("tokens_per_s")
    w.add(
        "verdict",
        f"速度看带宽：{name} 每生成一个 token 要把权重读一遍，单条解码上限 ≈ {num(bw)} GB/s ÷ 权重大小；"
        f"放满约 {num(weights)} GB 权重时约 {num(tps)} tokens/s（实际会低一些），显存大只是放得下更大的模型，不会更快。",
        f"Speed follows bandwidth: each token reads all the weights once, so single-stream decode ≤ {num(bw)} GB/s ÷ "
        f"weight size; with about {num(weights)} GB of weights that is ≈ {num(tps)} tokens/s (less in practice). "
        "More memory lets a bigger model fit; it does not make it faster.",
    )


_LAPTOP_WORDS = re.compile(r"laptop|notebook|mobile|笔记本|游戏本|移动版|移动端|\d{4}m\b", re.I)


def _laptop_fixes(w: Writer, gpus: list[dict], names: list[str], ctx: Context) -> list[str]:
    """「3080，最高165w功耗」 read as the laptop part (reading/slots.py: a power no desktop board runs at): say so."""
    if _LAPTOP_WORDS.search(ctx.slots.text or ""):
        return []
    out = []
    for g, name in zip(gpus, names, strict=False):
        if "laptop" in str(g.get("form_factor") or "").lower():
            out.append(
                w.t(
                    f"按你说的功耗，这是笔记本版 {name}（显存 {num(g.get('memory_gb'))} GB、带宽 {num(g.get('mem_bw_gbs'))} GB/s、"
                    f"最高约 {num(g.get('tdp_w'))} W），不是台式卡，下面按它计算。",
                    f"At that power this is the laptop {name} ({num(g.get('memory_gb'))} GB, {num(g.get('mem_bw_gbs'))} GB/s, "
                    f"up to about {num(g.get('tdp_w'))} W), not the desktop card; figures below are for it.",
                )
            )
    return out


# a multi-card rig the user compares one card with, named without its cards: 「这套方案」「多卡」「两张」
_SETUP_WORDS = re.compile(r"方案|这套|那套|多卡|双卡|两张|几张|组合|setup|\brig\b|multi[\s-]*gpu|several cards", re.I)


def _single_against_rig(gpus: list[dict], ctx: Context) -> int | None:
    """Index of the one card set against a multi-card rig named by a setup word: the only card, or of two cards
    the one whose mention is not next to 「这套…方案」 (「5090 和这套 2080 方案」: the 2080s are the rig)."""
    text = ctx.slots.text or ""
    rig = _SETUP_WORDS.search(text)
    if rig is None or not gpus or len(gpus) > 2:
        return None
    if len(gpus) == 1:
        return 0
    if ctx.slots.gpu_count:  # counts were given: the setups line compares the totals
        return None
    near = [bool(m.text) and abs(text.find(m.text) - rig.start()) <= 8 for m in ctx.slots.gpu_mentions[:2]]
    return near.index(False) if near.count(False) == 1 else None


def _one_card_line(w: Writer, g: dict, name: str) -> None:
    w.add(
        "verdict",
        f"模型一张卡放得下，就选单卡 {name}（{num(g.get('memory_gb'))} GB、显存带宽 {num(g.get('mem_bw_gbs'))} GB/s）：没有卡间通信；"
        "多卡方案要把模型切开（张量并行），每生成一个 token 每层都要在卡间同步，消费级卡走 PCIe 会被拖慢，"
        "总显存大只在模型一张卡放不下时才有用。",
        f"If the model fits one card, take the single {name} ({num(g.get('memory_gb'))} GB, {num(g.get('mem_bw_gbs'))} "
        "GB/s): no inter-card communication. A multi-card rig must split the model (tensor parallel) and synchronise "
        "every layer for every token, which PCIe-linked consumer cards pay for; its larger total memory helps only "
        "when the model does not fit one card.",
    )


def speed_lead(
    w: Writer,
    result: dict,
    names: list[str],
    ctx: Context,
    start: int = 0,
    variant_lines: tuple[str, ...] = (),
) -> bool:
    """Lines that answer a speed question on the axis it asked, inserted at the front of the verdict.
    False when the question is not about speed (the spec table's own lead stays). `variant_lines`: the cards are
    one chip at two memory sizes and these verdict lines already say compute and bandwidth are the same.
    `start`: where this tool's own verdict lines begin (earlier tools' lines, such as a decode speed, stay first)."""
    variants = bool(variant_lines)
    gpus = [g for g in result.get("gpus") or [] if isinstance(g, dict)]
    ratios = _ratios(result)
    ceilings = {str(c.get("gpu")): c for c in result.get("decode_ceilings") or [] if isinstance(c, dict)}
    axes = speed_axes(ctx.slots)
    fixes = [bi(g["corrected_from"], w.lang) for g in gpus if g.get("corrected_from")]
    fixes += _laptop_fixes(w, gpus, names, ctx)
    if len(gpus) >= 2 and not variants and not (compares_speed(ctx.slots) or applies_speed_parts(ctx.slots)):
        axes = set()  # "does it just speed things up?": no card set against another, the table's own lead stays
    if not axes or len(gpus) < 2 or variants:
        verdict = w.parts["verdict"]
        head, own = verdict[:start], verdict[start:]
        if axes and variants:  # one chip at two sizes: the variant rule leads, then what bounds its speed
            verdict[:] = head + [ln for ln in own if ln in variant_lines]
            _decode_bound_line(w, gpus[0], names[0], ceilings)
            _old_arch_line(w, gpus, names, "decode" in axes)
            verdict.extend(ln for ln in own if ln not in verdict)
        single = _single_against_rig(gpus, ctx) if "compare" in ctx.slots.cues else None
        if single is not None:
            verdict[:] = head  # 「5090 和这套 2080 方案哪个好」: one card against a multi-card rig leads
            _one_card_line(w, gpus[single], names[single])
            verdict.extend(ln for ln in own if ln not in verdict)
        for fix in reversed(fixes):
            verdict.insert(start, fix)
        return False
    head, before = w.parts["verdict"][:start], w.parts["verdict"][start:]
    w.parts["verdict"][:] = head
    for fix in fixes:
        w.add("verdict", fix, fix)
    a, b = gpus[0], gpus[1]
    na, nb = names[0], names[1]
    setups = [st for st in result.get("setups") or [] if isinstance(st, dict)]
    setup = _setup_line(w, gpus, names, setups)
    linked = "link" in axes and _link_line(w, a, b, na, nb, ratios)
    bw_ratio = _r(ratios, a, b, "mem_bw_gbs") or 1
    same_compute = _r(ratios, a, b, "peak_half_tflops") == 1
    if "train" in axes and not (linked and same_compute):  # H800 vs H100: the link line already says "same compute"
        _compute_line(w, a, b, na, nb, True, ratios)
        if "decode" in axes or abs(bw_ratio - 1) > 0.3:  # a card much faster at decoding: say so beside it
            _bandwidth_line(w, a, b, na, nb, False, ratios)
    elif not linked or "decode" in axes:
        _bandwidth_line(w, a, b, na, nb, True, ratios)
        _compute_line(w, a, b, na, nb, False, ratios)
    if not setup:
        _memory_line(w, a, b, na, nb)
    _old_arch_line(w, gpus, names, "decode" in axes)
    w.parts["verdict"].extend(line for line in before if line not in w.parts["verdict"])
    return True
