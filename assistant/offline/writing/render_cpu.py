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
    if res.get("gpu") and not res.get("cpu_read_gb"):
        return (
            f"整个模型放得进 {res['gpu']} 的显存，每个 token 从显存读 {gpu} GB、不从内存读",
            f"the whole model fits the {res['gpu']}'s VRAM: each token reads {gpu} GB from VRAM and nothing from RAM",
        )
    if res.get("gpu") and res.get("gpu_read_gb"):
        part_zh = "注意力、共享专家和稠密层" if res.get("moe") else "能装下的层"
        part_en = "attention, shared experts and dense layers" if res.get("moe") else "the layers that fit"
        both = num(round(float(res.get("cpu_read_gb") or 0) + float(res.get("gpu_read_gb") or 0), 1))  # RAM + VRAM
        return (
            f"每个 token 共读约 {both} GB 权重：从内存读约 {cpu} GB（{'激活的路由专家' if res.get('moe') else 'CPU 上的层'}），"
            f"{res['gpu']} 放{part_zh}、显存里再读 {gpu} GB",
            f"each token reads about {both} GB of weights: about {cpu} GB from RAM "
            f"({'the active routed experts' if res.get('moe') else 'the CPU layers'})"
            f" while the {res['gpu']} holds {part_en} and reads {gpu} GB from VRAM",
        )
    return (
        f"每个 token 从内存读约 {cpu} GB（{'只读激活的参数' if res.get('moe') else '全部权重'}）",
        f"each token reads about {cpu} GB from RAM ({'active parameters only' if res.get('moe') else 'all weights'})",
    )


def _fp8_without_cores(w: Writer, rows: list[dict]) -> None:
    """「A100 能跑 R1 的 FP8 版吗」: an FP8 file beside a card without FP8 tensor cores — what running it means there."""
    from tools.errors import ToolInputError
    from tools.gpus import fp8_usage, resolve_gpu

    row = next((x for x in rows if x.get("gpu") and str(x.get("quant") or "").startswith("fp8")), None)
    if row is None:
        return
    try:
        spec = resolve_gpu(str(row["gpu"]))
    except ToolInputError:
        return
    if spec.fp8_supported:
        return
    zh, en = fp8_usage(spec.name, spec.architecture, False, None)
    w.add("verdict", zh + "。", en + ".")


@renderer("cpu_inference", grouped=True)
def cpu_inference(w: Writer, r: ToolResult, ctx: Context) -> None:
    rows = [x.result for x in ctx.by_name("cpu_inference")]
    _fp8_without_cores(w, rows)
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
    if _asks_largest(ctx) and res.get("quant_fits"):
        _largest_quant(w, res, ctx, lead=True)  # 'what is the largest I can run': the answer, then the speed
    elif res.get("ram_fits") is False:
        _ram_short_lead(w, res, ctx)
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
    if res.get("ram_fits") is not False:
        _ram(w, res)
    if not _asks_largest(ctx):
        _largest_quant(w, res, ctx)
    _sockets(w, res)
    _options(w, res)
    _engine_notes(w, res, ctx)
    _numbers(w, res)
    _card_weights(w, ctx)
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
    if not got or res.get("ram_fits") is False:
        return  # RAM short: the lead already says the disk, not the platform, sets the speed
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
    need, copies = res.get("ram_needed_gb"), res.get("ram_copies")
    have = res.get("ram_available_gb") if res.get("ram_available_gb") is not None else res.get("host_ram_gb")
    copy_zh = f"（双路各放一份，共 {copies} 份）" if copies == 2 else ""
    copy_en = f" ({copies} copies, one per socket)" if copies == 2 else ""
    file_zh, file_en = _file(res)
    w.add("numbers", file_zh, file_en)
    if have is None:
        w.add(
            "numbers",
            f"内存里要放约 {num(need)} GB 权重{copy_zh}",
            f"About {num(need)} GB of weights stay in RAM{copy_en}",
        )
    elif res.get("ram_fits") and float(need or 0) <= 0.95 * float(have):
        w.add(
            "next",
            f"内存够：权重在内存里约 {num(need)} GB{copy_zh}，你有 {num(have)} GB。",
            f"RAM is enough: about {num(need)} GB of weights stay in RAM{copy_en}; you have {num(have)} GB.",
        )
    elif res.get("ram_fits") or float(need or 0) <= 1.05 * float(have):
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


def _file(res: dict[str, Any]) -> tuple[str, str]:
    pub = bool(res.get("file_published"))
    how_zh = (
        "公开的 GGUF 文件大小" if pub else f"{num(res.get('params_b'))}B × {num(res.get('bits_per_weight'))} bit ÷ 8"
    )
    how_en = (
        "the published GGUF size"
        if pub
        else f"{num(res.get('params_b'))}B × {num(res.get('bits_per_weight'))} bits ÷ 8"
    )
    return (
        f"{res.get('model')} {res.get('quant_label')} 整个文件约 {num(res.get('file_gb'))} GB（{how_zh}）",
        f"{res.get('model')} {res.get('quant_label')} is about {num(res.get('file_gb'))} GB as a whole file ({how_en})",
    )


def _ram_short_lead(w: Writer, res: dict[str, Any], ctx: Context) -> None:
    """RAM below what must stay in it: the lead. Bound to one NUMA node; a copy per socket that does not fit twice;
    a model already running from mmap (why no OOM, why so slow); or simply short."""
    import re

    file_zh, file_en = _file(res)
    need_f = float(res.get("ram_needed_gb") or 0)
    need, avail, have = num(need_f), num(res.get("ram_available_gb")), num(res.get("host_ram_gb"))
    one_copy = need_f / 2 if res.get("ram_copies") == 2 else need_f
    if res.get("membind_one_node"):
        spans = need_f <= float(res.get("host_ram_gb") or 0)
        w.add(
            "verdict",
            f"**内存不够是因为 numactl 把进程绑在了一个 NUMA 节点上。** `-m`（--membind）只许进程用这个节点（这一路 CPU）"
            f"本地插的内存：{have} GB 平分到两路，每路约 {avail} GB；{file_zh}，内存里要放约 {need} GB，放不下。"
            + (
                f"去掉 `-m`（或改用 `--interleave=all`）让分配跨两个节点，{have} GB 就放得下，代价是一部分读取跨路、慢一些；"
                if spans
                else f"去掉 `-m` 也只有 {have} GB，仍放不下；"
            )
            + f"ktransformers 的双路模式每路各放一份（共约 {num(2 * need_f)} GB），"
            + ("放不下；" if 2 * need_f > float(res.get("host_ram_gb") or 0) else "放得下；")
            + "也可以换更小的量化。",
            f"**RAM runs short because numactl binds the process to one NUMA node.** `-m` (--membind) lets it use only the "
            f"memory attached to that node (that socket): {have} GB split over two sockets is about {avail} GB each; "
            f"{file_en}, and about {need} GB must stay in RAM, which does not fit. "
            + (
                f"Drop `-m` (or use `--interleave=all`) so allocations span both nodes: {have} GB holds it, at the cost of "
                "some cross-socket reads; "
                if spans
                else f"Without `-m` there are still only {have} GB, not enough; "
            )
            + f"ktransformers' dual-socket mode keeps a copy per socket (about {num(2 * need_f)} GB), which "
            + ("does not fit; " if 2 * need_f > float(res.get("host_ram_gb") or 0) else "fits; ")
            + "or use a smaller quant.",
        )
        return
    if res.get("ram_copies") == 2:
        single_fits = one_copy <= float(res.get("ram_available_gb") or 0)
        w.add(
            "verdict",
            f"**{file_zh}；ktransformers 的双路模式每个 NUMA 节点各放一份（复制两份），内存里共要约 {need} GB，"
            f"{avail} GB 不够。**"
            + (
                f"{avail} GB 只够单路模式（一份约 {num(round(one_copy))} GB），速度按单路的内存带宽算"
                + (
                    f"；现在开着双路模式，放不下的部分每个 token 都从硬盘换页读进来，你看到的 {num(res.get('measured_tokens_per_s'))} tokens/s 就是这样来的。"
                    if res.get("measured_tokens_per_s")
                    else "。"
                )
                if single_fits
                else f"单路模式一份也要约 {num(one_copy)} GB，同样放不下。"
            ),
            f"**{file_en}; ktransformers' dual-socket mode keeps a copy per NUMA node (two copies), about {need} GB in "
            f"RAM, more than {avail} GB.** "
            + (
                f"{avail} GB is enough for single-socket mode only (one copy, about {num(round(one_copy))} GB), at one socket's "
                "memory bandwidth"
                + (
                    f"; in dual-socket mode what does not fit is paged in from disk every token, which is where your "
                    f"{num(res.get('measured_tokens_per_s'))} tokens/s comes from."
                    if res.get("measured_tokens_per_s")
                    else "."
                )
                if single_fits
                else f"Single-socket mode needs about {num(one_copy)} GB too, which does not fit either."
            ),
        )
        return
    disk = res.get("disk_tokens_per_s") or {}
    q = (ctx.question or "").lower()
    running = bool(res.get("measured_tokens_per_s")) or bool(
        re.search(r"没报错|不报错|不会报|正常运行|可以运行|能运行|占用|跑起来了|no\s+oom|doesn.t\s+crash|it\s+runs", q)
    )
    mmap_zh = (
        "llama.cpp / ktransformers 用 mmap（内存映射）读 GGUF：权重是映射到文件的页，不是进程申请的内存，所以不会报"
        "内存不足（OOM），进程的内存占用看起来也很少（页算在系统的页缓存 page cache 里）；放不下的部分每个 token 都要"
        "重新从硬盘（SSD）读进来，速度由硬盘决定，不是内存带宽。"
    )
    mmap_en = (
        "llama.cpp / ktransformers read the GGUF through mmap: the weights are file-backed pages, not memory the "
        "process allocates, so there is no out-of-memory error and the process looks small (the pages count as the "
        "system's page cache); whatever does not fit is read from disk (SSD) again every token, so the disk, not "
        "memory bandwidth, sets the speed. "
    )
    w.add(
        "verdict",
        f"**内存不够装下模型：{file_zh}，内存里要放约 {need} GB，你有 {avail} GB。**"
        + (
            mmap_zh
            if running
            else "用 mmap 的引擎（llama.cpp、ktransformers）不会报错，但放不下的部分要每个 token 从硬盘读。"
        )
        + (
            f"内存能缓存约 {num(res.get('resident_pct'))}% 的权重，其余按 NVMe 顺序读 3.5–7.45 GB/s 算约 "
            f"**{num(disk.get('low'))}–{num(disk.get('high'))} tokens/s**（随机页读更慢）。"
            if disk
            else ""
        )
        + "要回到内存带宽的速度：加内存到放得下，或换更小的量化。",
        f"**RAM cannot hold the model: {file_en}; about {need} GB must stay in RAM and you have {avail} GB.** "
        + (
            mmap_en
            if running
            else "Engines that mmap the file (llama.cpp, ktransformers) will not fail, but what does "
            "not fit is read from disk every token. "
        )
        + (
            f"RAM caches about {num(res.get('resident_pct'))}% of the weights; reading the rest from an NVMe SSD at "
            f"3.5–7.45 GB/s sequential gives about **{num(disk.get('low'))}–{num(disk.get('high'))} tokens/s** "
            "(random page reads are slower). "
            if disk
            else ""
        )
        + "To get memory-bandwidth speed back: enough RAM to hold it, or a smaller quant.",
    )


def _largest_quant(w: Writer, res: dict[str, Any], ctx: Context, lead: bool = False, generic: bool = False) -> None:
    """RAM + VRAM known: the largest quant of this model whose whole file fits, beside the one asked about."""
    rows = res.get("quant_fits") or []
    if lead:
        _fitting_lead(w, res, rows, generic)
        return
    fit = next((r for r in rows if r.get("fits")), None)
    room = num(res.get("ram_plus_vram_gb"))
    if not rows:
        return
    if fit is None:
        w.add(
            "verdict",
            f"内存加显存共约 {room} GB，{res.get('model')} 最小的量化（{rows[-1]['label']}，约 {num(rows[-1]['size_gb'])} GB）"
            "也放不下；换小一些的模型。",
            f"RAM plus VRAM is about {room} GB: even {res.get('model')}'s smallest quant ({rows[-1]['label']}, about "
            f"{num(rows[-1]['size_gb'])} GB) does not fit; use a smaller model.",
        )
        return
    if fit.get("quant") == res.get("quant") or res.get("ram_fits"):
        return  # the quant asked about already fits
    w.add(
        "verdict" if res.get("ram_fits") is False or _asks_largest(ctx) else "next",
        f"内存加显存共约 {room} GB：{res.get('model')} 能整个放下的最大量化是 **{fit['label']}（约 {num(fit['size_gb'])} GB）**"
        + ("，unsloth 的动态量化（1.58–2.51 bit）就是为这类机器做的" if str(fit["quant"]).startswith("ud_") else "")
        + "。",
        f"RAM plus VRAM is about {room} GB: the largest {res.get('model')} quant whose whole file fits is "
        f"**{fit['label']} (about {num(fit['size_gb'])} GB)**"
        + (
            ", and unsloth's dynamic quants (1.58–2.51-bit) are made for such machines"
            if str(fit["quant"]).startswith("ud_")
            else ""
        )
        + ".",
    )


def _fitting_lead(w: Writer, res: dict[str, Any], rows: list[dict[str, Any]], generic: bool = False) -> None:
    """The largest quant that fits RAM + VRAM, the next one up that does not, and what the RAM speed costs."""
    fit = next((r for r in rows if r.get("fits")), None)
    room = num(res.get("ram_plus_vram_gb"))
    if fit is None:
        return
    above = [r for r in rows if not r.get("fits") and float(r["size_gb"]) > float(fit["size_gb"])]
    nxt = above[-1] if above else None
    many_dimms = (
        not generic
        and res.get("platform_id") in ("desktop_ddr5", "desktop_ddr4")
        and float(res.get("host_ram_gb") or 0) > 96
    )
    w.add(
        "verdict",
        f"**内存 {num(res.get('ram_available_gb'))} GB + 显存 {num(res.get('vram_total_gb'))} GB（共约 {room} GB）能整个放下的最大版本是 "
        f"{res.get('model')} {fit['label']}，约 {num(fit['size_gb'])} GB。**"
        + (
            f"再大一档的 {nxt['label']}（约 {num(nxt['size_gb'])} GB）放不下，只能靠 mmap 从硬盘读，会慢很多。"
            if nxt
            else ""
        )
        + (
            "这是 unsloth 的动态量化（1.58–2.51 bit），比常规 Q4_K_M（约 404 GB）小得多，质量也更低。"
            if str(fit["quant"]).startswith("ud_")
            else ""
        )
        + (
            f"台式机只有双通道内存：插满 4 根（每通道 2 根）通常要降频，带宽按 {_bw(res, 'zh')} 算已是上限。"
            if many_dimms
            else ""
        ),
        f"**RAM {num(res.get('ram_available_gb'))} GB + VRAM {num(res.get('vram_total_gb'))} GB (about {room} GB) holds at most "
        f"{res.get('model')} {fit['label']}, about {num(fit['size_gb'])} GB.** "
        + (
            f"The next one up, {nxt['label']} (about {num(nxt['size_gb'])} GB), does not fit and would be read from disk "
            "through mmap, much slower. "
            if nxt
            else ""
        )
        + (
            "That is one of unsloth's dynamic quants (1.58–2.51-bit), far smaller than the usual Q4_K_M (about 404 GB) "
            "and lower in quality. "
            if str(fit["quant"]).startswith("ud_")
            else ""
        )
        + (
            "A desktop has two memory channels: four DIMMs (two per channel) usually run slower, so "
            f"{_bw(res, 'en')} is the ceiling."
            if many_dimms
            else ""
        ),
    )


def _asks_largest(ctx: Context) -> bool:
    import re

    return bool(
        re.search(r"最大|多大|哪个版本|哪个量化|largest|biggest|which\s+(?:quant|version)", ctx.question or "", re.I)
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
    if (
        re.search(r"intel|amd|英特尔|因特尔|\bamx\b|epyc|霄龙", text)
        and re.search(r"intel|英特尔|因特尔", text)
        and re.search(r"amd|epyc|霄龙", text)
    ):
        w.add(
            "verdict",
            f"解码快不快看内存带宽（通道数 × 频率），不看 CPU 是哪家：{res.get('platform_zh')} 是 {_bw(res, 'zh')}；"
            "英特尔的优势是 AMX（至强第四代起的矩阵指令），ktransformers 用它加速预填充（处理提示词，算力受限），"
            "对逐个生成 token 的解码帮助不大。",
            f"Decode speed follows memory bandwidth (channels × speed), not the CPU vendor: {res.get('platform')} has "
            f"{_bw(res, 'en')}; Intel's edge is AMX (matrix instructions from Xeon Gen 4 on), which ktransformers uses to "
            "speed up prefill (reading the prompt, compute-bound), and which does little for token-by-token decoding.",
        )
    bound_short = bool(res.get("membind_one_node")) and res.get("ram_fits") is False
    if ("ktrans" in text or "cpu_infer" in text or "local_chat" in text) and not bound_short:
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


def _card_weights(w: Writer, ctx: Context) -> None:
    """The memory estimator's whole-model weights against the card: why the host RAM holds the rest."""
    est = next((e.result for e in ctx.by_name("estimate_memory") if not e.error and not e.args.get("gpus")), None)
    if not est or not est.get("whole_model_weights_gb"):
        return
    weights, prec = num(est.get("whole_model_weights_gb")), est.get("whole_model_precision") or est.get("precision")
    if est.get("gpu") and est.get("fits") is False:
        w.add(
            "numbers",
            f"显存估算：{est.get('model')} {prec} 权重约 {weights} GB，{est.get('gpu')} 每卡可用约 "
            f"{num(est.get('usable_gb'))} GB，整模型放不下，所以其余权重留在内存里",
            f"Memory estimate: {est.get('model')} {prec} weights are about {weights} GB against about "
            f"{num(est.get('usable_gb'))} GB usable on the {est.get('gpu')}, so the rest stays in host RAM",
        )
    elif est.get("gpu") and est.get("fits"):
        w.add(
            "numbers",
            f"显存估算：{est.get('model')} {prec} 权重约 {weights} GB，{est.get('gpu')} 放得下，全部放显存会快得多",
            f"Memory estimate: {est.get('model')} {prec} weights are about {weights} GB and fit the {est.get('gpu')}: "
            "all on the GPU is much faster",
        )
    else:
        w.add(
            "numbers",
            f"显存估算：{est.get('model')} {prec} 权重约 {weights} GB，加载时都要经过内存",
            f"Memory estimate: {est.get('model')} {prec} weights are about {weights} GB, all passing through RAM to load",
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


def _offload(res: dict[str, Any]) -> bool:
    """A card far too small for the model and no RAM figure: the question is how it can run at all."""
    vram = float(res.get("vram_total_gb") or 0)
    return (
        bool(res.get("gpu")) and vram > 0 and float(res.get("file_gb") or 0) > 4 * vram and not res.get("host_ram_gb")
    )


def _offload_lead(w: Writer, res: dict[str, Any]) -> None:
    file_zh, file_en = _file(res)
    gpu, vram = res.get("gpu"), num(res.get("vram_total_gb"))
    w.add(
        "verdict",
        f"**{gpu}（{vram} GB）单卡装不下完整的 {res.get('model')}：{file_zh}。** 能跑的办法是把大部分权重（MoE 的专家）放在"
        f"系统内存（RAM）里、由 CPU 算，显卡只放注意力和共享部分（CPU offload，用 ktransformers 或 llama.cpp），"
        f"内存要约 {num(res.get('ram_needed_gb'))} GB 以上；更小的 unsloth 动态量化（1.58–2.51 bit）也要上百 GB 内存。"
        + (
            "只有这张卡又没有大内存时，现实的选择是蒸馏版（Distill）小模型，它们是另一个更小的模型，不是原版的水平。"
            if str(res.get("model", "")).startswith("DeepSeek-R1")
            else "只有这张卡又没有大内存时，只能换一个装得下的更小的模型。"
        ),
        f"**One {gpu} ({vram} GB) cannot hold the full {res.get('model')}: {file_en}.** It runs only with most weights "
        "(the MoE experts) in system RAM, computed by the CPU, and the card holding attention and the shared part "
        f"(CPU offload, with ktransformers or llama.cpp): about {num(res.get('ram_needed_gb'))} GB of RAM or more; even "
        "unsloth's dynamic quants (1.58–2.51-bit) need well over 100 GB of RAM. "
        + (
            "With only the card and little RAM, the realistic choice is a distilled model (Distill), a different, "
            "smaller model, not the original's quality."
            if str(res.get("model", "")).startswith("DeepSeek-R1")
            else "With only the card and little RAM, only a smaller model that fits will run."
        ),
    )


def _family_of(rows: list[dict[str, Any]]) -> bool:
    """The rows are one family's generations ('EPYC' with no number), not the three generic platforms."""
    from tools.cpu_inference import _data

    ids = [r.get("platform_id") for r in rows]
    return any(ids == list(f.get("platforms") or []) for f in _data().get("families") or [])


def _several(w: Writer, rows: list[dict[str, Any]], ctx: Context) -> None:
    """No platform named: the same model on three common memory setups, since bandwidth decides."""
    first = rows[0]
    where_zh, where_en = _where(first, w)
    family = _family_of(rows)
    if _asks_largest(ctx) and first.get("quant_fits"):
        _largest_quant(w, first, ctx, lead=True, generic=not family)
    elif _offload(first):
        _offload_lead(w, first)
    if first.get("ram_fits") is False and not (_asks_largest(ctx) and first.get("quant_fits")):
        _ram_short_lead(w, first, ctx)
    if family:
        w.add(
            "verdict",
            f"速度取决于内存带宽（通道数 × 频率），不是 CPU 核数。没说是哪一代，按 **{first.get('platform_zh')}**"
            f"（{_bw(first, 'zh')}）算，另一档列在后面对照。{first.get('model')} {first.get('quant_label')} {where_zh}：",
            f"The speed depends on memory bandwidth (channels × speed), not on core count. No generation given, so this "
            f"assumes **{first.get('platform')}** ({_bw(first, 'en')}), with the other one beside it. {first.get('model')} "
            f"{first.get('quant_label')}: {where_en}:",
        )
    else:
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
    asked_ddr = "ddr" in (ctx.question or "").lower() and not family
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
    if family:
        _measured(w, first, ctx)
    _target(w, rows[-1], generic=True)
    if rows[-1].get("ram_fits") is not False:
        _ram(w, rows[-1])
    if not _asks_largest(ctx):
        _largest_quant(w, first, ctx)
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
    _card_weights(w, ctx)
    w.add(
        "next" if not first_opts else "assumptions",
        "告诉我 CPU 型号（如 EPYC 9654、至强金牌 6248）或内存配置（通道数 × 频率），我按你的平台算。",
        "Tell me the CPU (e.g. EPYC 9654, Xeon Gold 6248) or the memory setup (channels × speed) for your platform's figure.",
    )
    for a in (first.get("assumptions") or [])[:5]:
        w.add("assumptions", *zh_en(a))
