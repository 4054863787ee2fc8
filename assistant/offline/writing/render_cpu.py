"""Renderer for `cpu_inference`: line 1 is the expected tokens/s band on the user's platform and what bounds it
(host memory bandwidth); then whether the target is reachable and what would reach it, each with its figure.

Every number is quoted from the tool result (or the question), as the grounding guard requires.
"""

from __future__ import annotations

from typing import Any

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import Context, renderer, zh_en


def _bw(res: dict[str, Any], lang: str) -> str:
    ch, mts, mem, bw = res.get("channels"), res.get("mt_s"), res.get("memory"), num(res.get("socket_bw_gbs"))
    if ch and mts:
        return (
            f"{ch} 通道 {mem}-{mts}，单路理论 {bw} GB/s"
            if lang == "zh"
            else f"{ch} × {mem}-{mts}, {bw} GB/s per socket"
        )
    return f"统一内存带宽 {bw} GB/s" if lang == "zh" else f"{bw} GB/s unified memory"


def _band(b: dict[str, Any]) -> str:
    return f"{num(b.get('low'))}–{num(b.get('high'))}"


def _where(res: dict[str, Any], w: Writer) -> tuple[str, str]:
    cpu, gpu = num(res.get("cpu_read_gb")), num(res.get("gpu_read_gb"))
    if res.get("gpu") and res.get("gpu_read_gb"):
        part_zh = "注意力、共享专家和稠密层" if res.get("moe") else "能装下的层"
        part_en = "attention, shared experts and dense layers" if res.get("moe") else "the layers that fit"
        return (
            f"每个 token 从内存读约 {cpu} GB（{'激活的路由专家' if res.get('moe') else 'CPU 上的层'}），"
            f"{res['gpu']} 放{part_zh}、显存里再读 {gpu} GB",
            f"each token reads about {cpu} GB from RAM ({'the active routed experts' if res.get('moe') else 'the CPU layers'})"
            f" while the {res['gpu']} holds {part_en} and reads {gpu} GB from VRAM",
        )
    return (
        f"每个 token 从内存读约 {cpu} GB（{'只读激活的参数' if res.get('moe') else '全部权重'}）",
        f"each token reads about {cpu} GB from RAM ({'active parameters only' if res.get('moe') else 'all weights'})",
    )


@renderer("cpu_inference", grouped=True)
def cpu_inference(w: Writer, r: ToolResult, ctx: Context) -> None:
    rows = [x.result for x in ctx.by_name("cpu_inference")]
    if len(rows) > 1:
        _several(w, rows, ctx)
        return
    res = rows[0]
    band = res.get("tokens_per_s") or {}
    where_zh, where_en = _where(res, w)
    model = f"{res.get('model')} {res.get('quant_label')}"
    socks_zh = "双路" if res.get("sockets") == 2 else ""
    socks_en = "two sockets of " if res.get("sockets") == 2 else ""
    share = float(res.get("cpu_time_pct") or 0)
    bound_zh = (
        (
            "这类部署的速度由内存带宽决定，不是显卡。"
            if res.get("gpu")
            else "纯 CPU 推理的速度由内存带宽决定，不是核数。"
        )
        if share >= 50
        else f"大部分权重已在显存里，读内存只占每个 token 时间的 {num(res.get('cpu_time_pct'))}%，CPU 这边不是主要瓶颈。"
    )
    bound_en = (
        (
            "Host memory bandwidth sets this speed, not the GPU."
            if res.get("gpu")
            else "On the CPU alone memory bandwidth sets this speed, not the core count."
        )
        if share >= 50
        else f"Most weights already sit in VRAM; reading host RAM is only {num(res.get('cpu_time_pct'))}% of each "
        "token's time, so the CPU side is not the main limit."
    )
    w.add(
        "verdict",
        f"按{socks_zh}{res.get('platform_zh')}的内存带宽（{_bw(res, 'zh')}），{model} {where_zh}："
        f"预计解码约 **{_band(band)} tokens/s**，理论上限 {num(band.get('ceiling'))} tokens/s。" + bound_zh,
        f"On {socks_en}{res.get('platform')} ({_bw(res, 'en')}), {model} {where_en}: expect about "
        f"**{_band(band)} tokens/s** of decoding, {num(band.get('ceiling'))} tokens/s at most in theory. " + bound_en,
    )
    _channels(w, res)
    _target(w, res)
    _measured(w, res, ctx)
    _ram(w, res)
    _sockets(w, res)
    _options(w, res)
    _engine_notes(w, res, ctx)
    _numbers(w, res)
    for a in (res.get("assumptions") or [])[:6]:
        w.add("assumptions", *zh_en(a))


def _channels(w: Writer, res: dict[str, Any]) -> None:
    if not res.get("full_socket_bw_gbs"):
        return
    w.add(
        "verdict",
        f"内存条没插满：{num(res.get('dimms'))} 条分到 {num(res.get('sockets'))} 路，每路只用上 {num(res.get('channels'))} 个通道"
        f"（平台有 {num(res.get('platform_channels'))} 个），带宽只有 {num(res.get('socket_bw_gbs'))} GB/s；"
        f"每个通道插一条（共 {num(res.get('dimms_for_all_channels'))} 条）能到 {num(res.get('full_socket_bw_gbs'))} GB/s。",
        f"The memory channels are not all populated: {num(res.get('dimms'))} modules over {num(res.get('sockets'))} "
        f"socket(s) use only {num(res.get('channels'))} of {num(res.get('platform_channels'))} channels per socket, "
        f"{num(res.get('socket_bw_gbs'))} GB/s; one module per channel ({num(res.get('dimms_for_all_channels'))} in "
        f"all) gives {num(res.get('full_socket_bw_gbs'))} GB/s.",
    )


def _target(w: Writer, res: dict[str, Any], generic: bool = False) -> None:
    tgt, state = res.get("target_tokens_per_s"), res.get("target")
    if not tgt or not state:
        return
    t = num(tgt)
    cpu_bound = float(res.get("cpu_time_pct") or 0) >= 50
    need, need_low = res.get("bw_needed_gbs"), res.get("bw_needed_low_eta_gbs")
    now_zh = "" if generic else f"，现在是 {num(res.get('socket_bw_gbs'))} GB/s"
    now_en = "" if generic else f", against {num(res.get('socket_bw_gbs'))} GB/s now"
    need_zh = (
        f"要到 {t} tokens/s，内存理论带宽至少要约 {num(need)} GB/s（按引擎实测的利用率要约 {num(need_low)} GB/s）{now_zh}"
        if need and need_low
        else ""
    )
    need_en = (
        f"{t} tokens/s needs about {num(need)} GB/s of theoretical memory bandwidth (about {num(need_low)} GB/s at the "
        f"utilisation engines measured){now_en}"
        if need and need_low
        else ""
    )
    if generic:
        if need_zh:
            w.add("verdict", need_zh + "。", need_en + ".")
        return
    if state == "not_reachable":
        w.add(
            "verdict",
            f"所以 {t} tokens/s 在这台机器上达不到"
            + ("，换更好的显卡也不行：" if cpu_bound else "：")
            + (need_zh + "。" if need_zh else "内存带宽是瓶颈。"),
            f"So {t} tokens/s is not reachable on this machine"
            + (", and a better GPU will not change that: " if cpu_bound else ": ")
            + (need_en + "." if need_en else "memory bandwidth is the bottleneck."),
        )
    elif state == "optimistic":
        w.add(
            "verdict",
            f"{t} tokens/s 在预计区间的上沿，引擎和内存都调到很好才可能达到"
            + (f"（{need_zh}）。" if need_zh else "。"),
            f"{t} tokens/s is at the top of the band: only a very well tuned engine and memory setup gets there"
            + (f" ({need_en})." if need_en else "."),
        )
    else:
        w.add("verdict", f"{t} tokens/s 在预计范围内，能达到。", f"{t} tokens/s is within the band: reachable.")


def _measured(w: Writer, res: dict[str, Any], ctx: Context) -> None:
    got, band = res.get("measured_tokens_per_s"), res.get("tokens_per_s") or {}
    if not got:
        return
    pct = num(res.get("measured_pct_of_ceiling"))
    if got >= 0.8 * float(band.get("low") or 0):
        w.add(
            "verdict",
            f"你现在的 {num(got)} tokens/s 是理论上限的 {pct}%，属于这个平台的正常水平，不是配置出错。",
            f"Your {num(got)} tokens/s is {pct}% of the theoretical bound: normal for this platform, not a misconfiguration.",
        )
    else:
        w.add(
            "verdict",
            f"你现在的 {num(got)} tokens/s 只有理论上限的 {pct}%，低于预计区间：先查线程数、NUMA 绑定和内存通道是否插满。",
            f"Your {num(got)} tokens/s is only {pct}% of the theoretical bound, below the band: check the thread count, "
            "NUMA binding and whether every memory channel is populated.",
        )


def _ram(w: Writer, res: dict[str, Any]) -> None:
    need, have, copies = res.get("ram_needed_gb"), res.get("host_ram_gb"), res.get("ram_copies")
    copy_zh = f"（双路各放一份，共 {copies} 份）" if copies == 2 else ""
    copy_en = f" ({copies} copies, one per socket)" if copies == 2 else ""
    if have is None:
        w.add(
            "numbers",
            f"内存里要放约 {num(need)} GB 权重{copy_zh}",
            f"About {num(need)} GB of weights stay in RAM{copy_en}",
        )
    elif res.get("ram_fits"):
        w.add(
            "next",
            f"内存够：权重在内存里约 {num(need)} GB{copy_zh}，你有 {num(have)} GB。",
            f"RAM is enough: about {num(need)} GB of weights stay in RAM{copy_en}; you have {num(have)} GB.",
        )
    elif float(need or 0) <= 1.05 * float(have):
        w.add(
            "verdict",
            f"内存很紧：权重在内存里约 {num(need)} GB{copy_zh}，你有 {num(have)} GB，系统和缓存还要占一些，容易换页变慢；"
            "留出余量就换小一档的量化或加内存。",
            f"RAM is tight: about {num(need)} GB of weights stay in RAM{copy_en} and you have {num(have)} GB; the OS and "
            "caches need some too, so it may page and slow down; a smaller quant or more RAM leaves headroom.",
        )
    else:
        w.add(
            "verdict",
            f"内存不够：权重在内存里约 {num(need)} GB{copy_zh}，你只有 {num(have)} GB，会退到从硬盘 mmap 读取，速度再降一个量级；"
            "换更小的量化或加内存。",
            f"RAM is short: about {num(need)} GB of weights stay in RAM{copy_en} and you have {num(have)} GB, so they "
            "would be paged from disk (mmap), another order of magnitude slower; use a smaller quant or add RAM.",
        )


def _sockets(w: Writer, res: dict[str, Any]) -> None:
    if res.get("sockets") != 2:
        return
    g = num(res.get("socket_gain_high"))
    w.add(
        "verdict",
        f"双路不会自动快一倍：单个进程要用上第二路的内存带宽，引擎必须感知 NUMA（每路各放一份权重、线程和内存绑在本路）；"
        f"ktransformers 公开实测双路约为单路的 {g} 倍，不是理论的 {res.get('sockets')} 倍；不感知 NUMA 时跨路访问还可能更慢。",
        f"Two sockets do not double the speed: one process uses the second socket's bandwidth only with a NUMA-aware "
        f"engine (a copy of the weights per socket, threads and memory bound locally); ktransformers measured about "
        f"{g}× one socket, not the theoretical {res.get('sockets')}×; without NUMA awareness cross-socket reads can even be slower.",
    )


def _options(w: Writer, res: dict[str, Any]) -> None:
    tgt = res.get("target_tokens_per_s")
    order = {
        "populate_channels": -1,
        "single_socket": 0,
        "platform": 1,
        "quant": 2,
        "dual_socket": 3,
        "one_more_gpu": 4,
    }
    opts = sorted(res.get("options") or [], key=lambda o: order.get(str(o.get("id", "")).split(":")[0], 9))
    for o in opts:
        b = o.get("tokens_per_s") or {}
        ok = o.get("reaches_target")
        mark_zh = "" if ok is None else (f"，能到 {num(tgt)}" if ok else f"，仍不到 {num(tgt)}")
        mark_en = "" if ok is None else (f", reaches {num(tgt)}" if ok else f", still short of {num(tgt)}")
        ram = o.get("ram_needed_gb")
        ram_zh = f"（内存约 {num(ram)} GB）" if str(o.get("id")).startswith(("quant", "dual")) and ram else ""
        ram_en = f" (about {num(ram)} GB of RAM)" if str(o.get("id")).startswith(("quant", "dual")) and ram else ""
        w.add(
            "next",
            f"{o.get('zh')}：约 {_band(b)} tokens/s{mark_zh}{ram_zh}",
            f"{o.get('en')}: about {_band(b)} tokens/s{mark_en}{ram_en}",
        )


def _engine_notes(w: Writer, res: dict[str, Any], ctx: Context) -> None:
    import re

    from tools.cpu_inference import words

    text = (ctx.question or "").lower()
    if re.search(words()["more_ram"], text, re.I):
        w.add(
            "verdict",
            "加大内存容量不会更快：容量只决定放不放得下，速度看带宽（通道数 × 频率），要插满每个通道、换更快的内存或更多通道的平台。",
            "More RAM capacity does not make it faster: capacity decides whether it fits, speed follows bandwidth "
            "(channels × speed), so populate every channel, use faster memory or a platform with more channels.",
        )
    if "ktrans" in text or "cpu_infer" in text or "local_chat" in text:
        w.add(
            "verdict" if "cpu_infer" in text else "next",
            "ktransformers 的 cpu_infer（线程数）设成一个 NUMA 节点的物理核数左右，不是越多越好；单路用 numactl 把进程和"
            "内存绑在同一个节点上。",
            "Set ktransformers' cpu_infer (threads) to about the physical cores of one NUMA node, not more; on one "
            "socket bind the process and its memory to that node with numactl.",
        )
        if not res.get("amx"):
            w.add(
                "assumptions",
                "这颗 CPU 没有 AMX：ktransformers 的 AMX 内核（预填充快数倍）只在至强第四代及以后可用，解码速度仍由内存带宽决定",
                "This CPU has no AMX: ktransformers' AMX kernels (several times faster prefill) need Xeon Gen 4 or later; "
                "decode speed is still set by memory bandwidth",
            )


def _numbers(w: Writer, res: dict[str, Any]) -> None:
    w.add(
        "numbers",
        f"每 token 读取：内存 {num(res.get('cpu_read_gb'))} GB，显存 {num(res.get('gpu_read_gb'))} GB；"
        f"{res.get('quant_label')} {num(res.get('bits_per_weight'))} bit/参数 ≈ {num(res.get('bytes_per_param'))} B/参数",
        f"Read per token: {num(res.get('cpu_read_gb'))} GB from RAM, {num(res.get('gpu_read_gb'))} GB from VRAM; "
        f"{res.get('quant_label')} {num(res.get('bits_per_weight'))} bits/param ≈ {num(res.get('bytes_per_param'))} B/param",
    )
    w.add(
        "numbers",
        f"实际可用内存带宽约 {num(res.get('effective_bw_low_gbs'))}–{num(res.get('effective_bw_high_gbs'))} GB/s；"
        f"每个 token 约 {num(res.get('ms_per_token_low'))}–{num(res.get('ms_per_token_high'))} ms",
        f"Usable memory bandwidth about {num(res.get('effective_bw_low_gbs'))}–{num(res.get('effective_bw_high_gbs'))} "
        f"GB/s; {num(res.get('ms_per_token_low'))}–{num(res.get('ms_per_token_high'))} ms per token",
    )
    if res.get("vram_total_gb"):
        w.add(
            "numbers",
            f"显存合计 {num(res.get('gpus'))} × {res.get('gpu')} = {num(res.get('vram_total_gb'))} GB，放了约 "
            f"{num(res.get('gpu_resident_gb'))} GB（含 {num(res.get('experts_on_gpu_pct'))}% 的专家/层）",
            f"VRAM {num(res.get('gpus'))} × {res.get('gpu')} = {num(res.get('vram_total_gb'))} GB in total, holding about "
            f"{num(res.get('gpu_resident_gb'))} GB ({num(res.get('experts_on_gpu_pct'))}% of the experts/layers)",
        )
    for ref in (res.get("references") or [])[:3]:
        w.add(
            "numbers",
            f"公开实测：{ref.get('engine')}，{ref.get('model')} {str(ref.get('quant', '')).upper()}，"
            f"{ref.get('sockets')} 路 + {ref.get('gpu')}：{num(ref.get('tokens_per_s'))} tokens/s（{ref.get('source')}）",
            f"Measured: {ref.get('engine')}, {ref.get('model')} {str(ref.get('quant', '')).upper()}, "
            f"{ref.get('sockets')} socket(s) + {ref.get('gpu')}: {num(ref.get('tokens_per_s'))} tokens/s ({ref.get('source')})",
        )


def _several(w: Writer, rows: list[dict[str, Any]], ctx: Context) -> None:
    """No platform named: the same model on three common memory setups, since bandwidth decides."""
    first = rows[0]
    where_zh, where_en = _where(first, w)
    w.add(
        "verdict",
        f"速度取决于内存带宽（通道数 × 频率），不是 CPU 核数。{first.get('model')} {first.get('quant_label')} "
        f"{where_zh}，按三档常见平台估算：",
        f"The speed depends on memory bandwidth (channels × speed), not on core count. {first.get('model')} "
        f"{first.get('quant_label')}: {where_en}; on three common platforms:",
    )
    for res in rows:
        b = res.get("tokens_per_s") or {}
        w.parts["verdict"].append(
            w.t(
                f"- {res.get('platform_zh')}（{_bw(res, 'zh')}）：约 {_band(b)} tokens/s，理论上限 {num(b.get('ceiling'))}",
                f"- {res.get('platform')} ({_bw(res, 'en')}): about {_band(b)} tokens/s, at most {num(b.get('ceiling'))}",
            )
        )
    asked_ddr = "ddr" in (ctx.question or "").lower()
    if asked_ddr and len(rows) >= 2 and rows[0].get("memory") != rows[1].get("memory"):
        lo, mid = rows[0], rows[1]
        w.add(
            "verdict",
            f"DDR4 还是 DDR5 不是关键，通道数才是：{mid.get('channels')} 通道 {mid.get('memory')} 的服务器"
            f"（{num(mid.get('socket_bw_gbs'))} GB/s）比 {lo.get('channels')} 通道 {lo.get('memory')} 的台式机"
            f"（{num(lo.get('socket_bw_gbs'))} GB/s）快得多。",
            f"DDR4 versus DDR5 matters less than the channel count: a {mid.get('channels')}-channel {mid.get('memory')} "
            f"server ({num(mid.get('socket_bw_gbs'))} GB/s) is far faster than a {lo.get('channels')}-channel "
            f"{lo.get('memory')} desktop ({num(lo.get('socket_bw_gbs'))} GB/s).",
        )
    _target(w, rows[-1], generic=True)
    _ram(w, rows[-1])
    _sockets(w, rows[-1])
    first_opts = [
        {
            **o,
            "zh": f"{o.get('zh')}（按{first.get('platform_zh')}算）",
            "en": f"{o.get('en')} (on {first.get('platform')})",
        }
        for o in first.get("options") or []
        if str(o.get("id", "")).startswith(("quant", "one_more"))
    ]
    _engine_notes(w, first, ctx)
    _options(w, {**first, "options": first_opts})
    w.add(
        "next" if not first_opts else "assumptions",
        "告诉我 CPU 型号（如 EPYC 9654、至强金牌 6248）或内存配置（通道数 × 频率），我按你的平台算。",
        "Tell me the CPU (e.g. EPYC 9654, Xeon Gold 6248) or the memory setup (channels × speed) for your platform's figure.",
    )
    for a in (first.get("assumptions") or [])[:5]:
        w.add("assumptions", *zh_en(a))
