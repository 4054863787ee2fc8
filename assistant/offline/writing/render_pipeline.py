"""The answer for an image/video/speech pipeline model (estimate_memory with a `pipeline` part).

Line 1: the verdict and the deciding number (per-card weights or training states vs the card's usable memory);
then each component's weights, the settings that change what sits on the GPU (quoted from knowledge/pipelines.yaml),
the publisher's measured peaks, and what the figure leaves out (activations). Every number comes from the tool.
"""

from __future__ import annotations

import re

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer
from assistant.offline.writing.render_tools import Context, gb
from assistant.offline.writing.setup_notes import setup_lines

_KIND = {
    "image": ("图像生成", "image"),
    "video": ("视频生成", "video"),
    "asr": ("语音识别", "speech-recognition"),
    "tts": ("语音合成", "text-to-speech"),
    "audio": ("音乐/音频生成", "music/audio"),
    "avatar": ("数字人/口播视频", "talking-head video"),
}
_SPEECH = ("asr", "tts", "audio")
_SHORT = {  # option id → how line 1 names it (zh reads as a verb phrase before 「后」)
    "model_cpu_offload": (
        "开启 enable_model_cpu_offload（按组件轮流上 GPU）",
        "enable_model_cpu_offload (one component at a time)",
    ),
    "text_encoder_offload": ("把文本编码器卸载到 CPU", "the text encoder offloaded to the CPU"),
    "fp8_denoiser": ("改用 FP8 权重", "FP8 weights"),
    "fp8_and_model_offload": (
        "去噪网络改用 FP8 权重并按组件轮流上 GPU",
        "an FP8 denoiser with components taking turns on the GPU",
    ),
    "fp8_and_text_encoder_offload": (
        "去噪网络改用 FP8 权重、文本编码器卸载到 CPU",
        "FP8 denoiser weights and the text encoder on the CPU",
    ),
}


def _card(p: dict) -> str:
    """The card as line 1 names it: 'NVIDIA L20 48GB', or '80 GB 的卡' for a bare size (zh side)."""
    card = str(p.get("gpu") or "")
    return f"{card} 的卡" if re.fullmatch(r"\d+(?:\.\d+)? GB", card) else card


def _card_en(p: dict) -> str:
    card = str(p.get("gpu") or "")
    article = "an" if card.startswith(("8", "11", "18")) else "a"
    return f"{article} {card} card" if re.fullmatch(r"\d+(?:\.\d+)? GB", card) else f"the {card}"


def _comp_list(w: Writer, p: dict) -> str:
    parts = [
        f"{c['name']}{' (' + c['label'] + ')' if c.get('label') else ''} {c['params_b']:g}B × "
        f"{c['bytes_per_param']:g} B = {gb(c['weights_gb'])} GB"
        for c in p.get("components") or []
    ]
    return w.t("；", "; ").join(parts)


def _own_mode(p: dict) -> dict | None:
    """The project's or runtime's own low-memory setting that fits the card with a measured peak (the yaml lists them fastest
    first, so the first that fits is the one to try)."""
    return next((m for m in p.get("low_vram") or [] if m.get("fits") and m.get("peak_gb") is not None), None)


def _shrink(p: dict) -> tuple[str, str]:
    """What lowers activations for this kind of model: frames/resolution, or audio length/batch."""
    if p.get("kind") in _SPEECH:
        return "缩短单段音频或减小 batch", "shorter audio chunks or a smaller batch"
    return "降分辨率/帧数", "a lower resolution/frame count"


def _lead_inference(w: Writer, p: dict) -> tuple[str, str]:
    m, total, card, usable = p["model"], p["per_gpu_gb"], _card(p), p.get("usable_gb")
    if p.get("verdict") is None:
        grows_zh, grows_en = (
            ("音频越长越多", "audio length")
            if p["kind"] in _SPEECH
            else ("分辨率/帧数越大越多", "resolution and frame count")
        )
        low = min(
            (x for x in p.get("low_vram") or [] if x.get("peak_gb") is not None),
            key=lambda x: x["peak_gb"],
            default=None,
        )
        floor_zh = f"；最省的实测是低显存设置 `{low['flag']}`，约 {gb(low['peak_gb'])} GB" if low else ""
        floor_en = (
            f"; the lowest measured is the low-memory setting `{low['flag']}`, about {gb(low['peak_gb'])} GB"
            if low
            else ""
        )
        return (
            f"{m} 推理光权重就要约 {gb(total)} GB 显存（{p['precision']}，激活值另算，{grows_zh}）{floor_zh}。",
            f"{m} needs about {gb(total)} GB of GPU memory for its weights alone ({p['precision']}; activations "
            f"come on top and grow with {grows_en}){floor_en}.",
        )
    own = _own_mode(p)
    if own and (p["verdict"] == "fits_with_changes" or (p["verdict"] == "fits" and p.get("tight"))):
        head_zh = "全部常驻放不下" if p["verdict"] == "fits_with_changes" else "只算权重勉强放得下"
        head_en = (
            "Does not fit with everything resident"
            if p["verdict"] == "fits_with_changes"
            else "The weights only just fit"
        )
        return (
            f"{head_zh}：{m} 权重合计 {gb(total)} GB，{card} 可用约 {gb(usable)} GB；用低显存设置 "
            f"`{own['flag']}`，实测峰值约 {gb(own['peak_gb'])} GB，可以跑。",
            f"{head_en}: {m} has {gb(total)} GB of weights and {_card_en(p)} offers about {gb(usable)} GB; with the "
            f"low-memory setting `{own['flag']}` it peaked at about {gb(own['peak_gb'])} GB, which fits.",
        )
    offload = next((o for o in p.get("options") or [] if o["id"] == "model_cpu_offload" and o.get("fits")), None)
    if p["verdict"] == "fits" and p.get("tight") and offload:
        return (
            f"只算权重勉强放得下：{m} 权重 {gb(total)} GB，{card} 可用约 {gb(usable)} GB，只剩 {gb(p['headroom_gb'])} GB "
            f"给激活值和 CUDA 上下文，分辨率或帧数一高就会 OOM；开 enable_model_cpu_offload 后峰值约 "
            f"{gb(offload['peak_gb'])} GB，更稳。",
            f"The weights only just fit: {m} has {gb(total)} GB of weights and {_card_en(p)} offers about "
            f"{gb(usable)} GB, leaving {gb(p['headroom_gb'])} GB for activations and the CUDA context, so a higher "
            f"resolution or more frames will run out of memory; with enable_model_cpu_offload the peak is about "
            f"{gb(offload['peak_gb'])} GB, which is safer.",
        )
    if p["verdict"] == "fits":
        return (
            f"放得下：{m} 推理权重合计 {gb(total)} GB，{card} 可用约 {gb(usable)} GB，剩 {gb(p['headroom_gb'])} GB 给激活值。",
            f"Fits: {m} needs {gb(total)} GB of weights for inference and {_card_en(p)} offers about {gb(usable)} GB, "
            f"leaving {gb(p['headroom_gb'])} GB for activations.",
        )
    best = next((o for o in p.get("options") or [] if o.get("fits") and o.get("peak_gb") is not None), None)
    if p["verdict"] == "fits_with_changes" and best:
        zh_o, en_o = _SHORT.get(best["id"], (best["id"], best["id"]))
        return (
            f"全部常驻放不下：{m} 权重合计 {gb(total)} GB，超过 {card} 可用的 {gb(usable)} GB；"
            f"{zh_o}后峰值约 {gb(best['peak_gb'])} GB，可以跑。",
            f"Does not fit with everything resident: {m} has {gb(total)} GB of weights, more than the {gb(usable)} GB usable "
            f"on {_card_en(p)}; with {en_o} the peak is about {gb(best['peak_gb'])} GB, which fits.",
        )
    if p["kind"] in _SPEECH:
        return (
            f"放不下：{m} 权重合计 {gb(total)} GB，{card} 可用只有约 {gb(usable)} GB；换量化版本（int8）或更大的卡。",
            f"Does not fit: {m} has {gb(total)} GB of weights and {_card_en(p)} offers about {gb(usable)} GB; use a "
            "quantised (int8) build or a bigger card.",
        )
    return (
        f"放不下：{m} 权重合计 {gb(total)} GB，{card} 可用只有约 {gb(usable)} GB，按组件轮流加载也超出；"
        "只能逐层卸载（很慢）、量化或换更大的卡。",
        f"Does not fit: {m} has {gb(total)} GB of weights and {_card_en(p)} offers about {gb(usable)} GB, even one "
        "component at a time is too much; only layer-by-layer offload (slow), quantisation or a bigger card.",
    )


def _lead_training(w: Writer, p: dict) -> tuple[str, str]:
    m, per, card, usable, n = p["model"], p["per_gpu_gb"], _card(p), p.get("usable_gb"), p.get("gpus") or 1
    each_zh, each_en = ("每张卡", "per card") if n > 1 else ("单卡", "on one card")
    if p["mode"] == "full":
        zh_job = (
            f"{m} 全参微调 {p['trained_component']}（{p['trained_params'] / 1e9:.1f}B × {p['bytes_per_param']:g} B）"
            f"训练状态共 {gb(p['trained_states_gb'])} GB"
            + (f"，{n} 张卡 ZeRO-3 分摊" if p.get("sharded") else "")
            + f"，加冻结组件 {gb(p['frozen_gb'])} GB，{each_zh}约 {gb(per)} GB"
        )
        en_job = (
            f"fully fine-tuning {m}'s {p['trained_component']} ({p['trained_params'] / 1e9:.1f}B × "
            f"{p['bytes_per_param']:g} B) takes {gb(p['trained_states_gb'])} GB of training states"
            + (f", sharded over {n} cards with ZeRO-3" if p.get("sharded") else "")
            + f"; with {gb(p['frozen_gb'])} GB of frozen components that is about {gb(per)} GB {each_en}"
        )
    else:
        zh_job = (
            f"{m} LoRA：冻结权重 {gb(p['weights_gb'])} GB + 适配器约 {gb(p['adapter_gb'])} GB，{each_zh}约 {gb(per)} GB"
            + ("（数据并行每卡一整份）" if n > 1 and not p.get("sharded") else "")
        )
        en_job = (
            f"LoRA on {m}: {gb(p['weights_gb'])} GB of frozen weights + about {gb(p['adapter_gb'])} GB of adapter "
            f"states, about {gb(per)} GB {each_en}"
            + (" (data parallel: a full copy per card)" if n > 1 and not p.get("sharded") else "")
        )
    if p.get("verdict") is None:
        return zh_job + "（激活值另算）。", en_job[0].upper() + en_job[1:] + " (activations extra)."
    if p["verdict"] == "fits":
        return (
            f"放得下：{zh_job}，{card} 可用约 {gb(usable)} GB（激活值另算，剩 {gb(p['headroom_gb'])} GB）。",
            f"Fits: {en_job}; {_card_en(p)} offers about {gb(usable)} GB ({gb(p['headroom_gb'])} GB left for activations).",
        )
    if p["verdict"] == "fits_with_changes" and p.get("zero3_per_gpu_gb") is not None:
        return (
            f"按现在的数据并行放不下：{zh_job}，超过 {card} 的 {gb(usable)} GB；"
            f"用 ZeRO-3/FSDP 把权重切到 {n} 张卡后每张约 {gb(p['zero3_per_gpu_gb'])} GB，放得下。",
            f"Does not fit as data parallel: {en_job}, more than the {gb(usable)} GB of {_card_en(p)}; sharded with ZeRO-3/FSDP "
            f"over {n} cards it is about {gb(p['zero3_per_gpu_gb'])} GB per card, which fits.",
        )
    return (
        f"放不下：{zh_job}，超过 {card} 可用的 {gb(usable)} GB。",
        f"Does not fit: {en_job}, more than the {gb(usable)} GB usable on {_card_en(p)}.",
    )


def _lead_no_bf16(p: dict) -> tuple[str, str]:
    """A bf16-only model on a card without bf16 tensor cores (Volta, Turing, Pascal): the bf16 figures do not
    apply; fp32 doubles the weights, fp16 overflows, so the answer is fp32 or an Ampere-or-newer card."""
    m, card, usable, fp32 = p["model"], _card(p), p.get("usable_gb"), p.get("fp32_weights_gb")
    fits = p.get("verdict") == "fits_with_changes"
    return (
        f"{'勉强能跑，但要改' if fits else '这张卡不合适'}：{m} 只支持 bf16（fp16 会溢出），{card} 没有原生 bf16"
        f"（Volta/Turing 及更早的卡都没有）；只能用 fp32，权重约 {gb(fp32)} GB"
        + (f"，{card} 可用约 {gb(usable)} GB，放得下但慢" if fits else f"，超过 {card} 可用的 {gb(usable)} GB")
        + "。建议换 Ampere 及更新、显存 24 GB 以上的卡（A10、RTX 3090/4090、L40、A100）。",
        f"{'It can run, with changes' if fits else 'This card is not a good fit'}: {m} is bf16-only (fp16 overflows) "
        f"and {_card_en(p)} has no native bf16 (no Volta/Turing or older card has it); fp32 is left, about "
        f"{gb(fp32)} GB of weights"
        + (
            f", which fits in about {gb(usable)} GB but runs slowly"
            if fits
            else f", more than the {gb(usable)} GB usable"
        )
        + ". Use an Ampere-or-newer card with 24 GB or more (A10, RTX 3090/4090, L40, A100).",
    )


def _lead_published_over(p: dict, over: dict) -> tuple[str, str]:
    """The weights fit, but the publisher's measured peak at its own settings is above the card."""
    m, card, usable = p["model"], _card(p), p.get("usable_gb")
    own = _own_mode(p)
    offload = next((o for o in p.get("options") or [] if o.get("fits") and o.get("peak_gb") is not None), None)
    zh_o, en_o = _SHORT.get(offload["id"], (offload["id"], offload["id"])) if offload else ("", "")
    zh_o, en_o = zh_o.split("（")[0], en_o.split(" (")[0]  # the reason in brackets is in the options below
    states_zh, states_en = ("权重", "weights") if p["mode"] == "inference" else ("权重和训练状态", "weights and states")
    shrink_zh, shrink_en = _shrink(p)
    if own:
        zh_tail = f"；用低显存设置 `{own['flag']}`（实测峰值约 {gb(own['peak_gb'])} GB）可以跑。"
        en_tail = f"; the low-memory setting `{own['flag']}` (measured peak about {gb(own['peak_gb'])} GB) fits."
    elif offload:
        zh_tail = f"，{zh_o}（权重峰值约 {gb(offload['peak_gb'])} GB）或{shrink_zh}才行。"
        en_tail = f"; it needs {en_o} (weights peak about {gb(offload['peak_gb'])} GB) or {shrink_en}."
    else:
        zh_tail = f"，要{shrink_zh}或换卡。"
        en_tail = f"; use {shrink_en} or a bigger card."
    return (
        f"按发布方的设置放不下：{m} 在 {over['setting']} 下实测峰值约 {gb(over['peak_gb'])} GB（含激活值），"
        f"超过 {card} 可用的 {gb(usable)} GB；只算{states_zh}是 {gb(p['per_gpu_gb'])} GB" + zh_tail,
        f"Does not fit at the publisher's settings: {m} peaked at about {gb(over['peak_gb'])} GB at {over['setting']} "
        f"(activations included), more than the {gb(usable)} GB usable on {_card_en(p)}; the {states_en} alone are "
        f"{gb(p['per_gpu_gb'])} GB" + en_tail,
    )


def _lead_params(w: Writer, p: dict) -> tuple[str, str]:
    """「FLUX 有多少参数」: the parameter counts first, the weights they make second."""
    parts = "、".join(f"{c['name']} {c['params_b']:g}B" for c in p.get("components") or [])
    parts_en = ", ".join(f"{c['name']} {c['params_b']:g}B" for c in p.get("components") or [])
    return (
        f"{p['model']} 一共约 {p['total_params_b']:g}B 参数（{parts}），{p['precision']} 权重约 {gb(p['weights_gb'])} GB。",
        f"{p['model']} has about {p['total_params_b']:g}B parameters in all ({parts_en}): about "
        f"{gb(p['weights_gb'])} GB of {p['precision']} weights.",
    )


def _lead(w: Writer, p: dict, asks_params: bool = False) -> tuple[str, str]:
    if asks_params and p["mode"] == "inference" and not p.get("gpu"):
        return _lead_params(w, p)
    if p["mode"] == "inference" and p.get("bf16_native") is False and p.get("fp32_weights_gb"):
        return _lead_no_bf16(p)
    over = p.get("published_over")
    if over:
        return _lead_published_over(p, over)
    return (_lead_inference if p["mode"] == "inference" else _lead_training)(w, p)


def _slow(w: Writer, p: dict) -> None:
    """A speed complaint: a speech model decodes token by token (bandwidth sets the pace); a pipeline that does
    not fit runs offloaded or dequantised, so each step is slow by design, not a broken setup."""
    bw, card = p.get("gpu_mem_bw_gbs"), _card(p)
    if p["kind"] in _SPEECH and bw:
        refs = p.get("reference_cards") or []
        zh_refs = "、".join(f"{r['name']} {r['mem_bw_gbs']:,.0f} GB/s" for r in refs)
        en_refs = ", ".join(f"the {r['name']} {r['mem_bw_gbs']:,.0f} GB/s" for r in refs)
        w.add(
            "numbers",
            f"语音模型是逐 token 解码的，每一步都要把权重读一遍，速度主要看显存带宽：{card} 是 {bw:,.0f} GB/s"
            + (f"，对比 {zh_refs}" if refs else "")
            + "。同一张卡上，换更快的运行时（如 faster-whisper/CTranslate2）、开 batch 推理比换卡更省钱。",
            f"Speech models decode token by token and read every weight at each step, so memory bandwidth sets the "
            f"pace: {_card_en(p)} has {bw:,.0f} GB/s"
            + (f", against {en_refs}" if refs else "")
            + ". On the same card a faster runtime (faster-whisper / CTranslate2) and batched inference help more "
            "cheaply than a new card.",
        )
        return
    if p.get("verdict") in ("fits_with_changes", "does_not_fit"):
        w.add(
            "numbers",
            f"放不下的部分只能量化或卸载到 CPU：每一步都要经 PCIe 把权重搬上 GPU（或走反量化内核），所以在 {card} 上"
            "每步慢几倍是预期的，不是配置坏了；要快就换上面每卡数字放得下的卡。",
            f"What does not fit can only be quantised or offloaded to the CPU: every step then moves weights over "
            f"PCIe (or runs dequantising kernels), so slow steps on {_card_en(p)} are expected, not a broken setup; "
            "for speed use a card that holds the per-card figure above.",
        )


def _alt(w: Writer, p: dict) -> None:
    """A second job or card (LoRA beside full FT, another card): one line with its own verdict."""
    w.add("numbers", *_lead(w, p))


def pipeline_memory(w: Writer, ctx: Context, ests: list[ToolResult]) -> None:
    parts = [e.result["pipeline"] for e in ests]
    wanted = ctx.slots.mode
    p = next((x for x in parts if x["mode"] == wanted), parts[0])
    no_card = not (ctx.slots.gpus or ctx.slots.vram_gb or ctx.slots.gpu_memory_gb)
    if no_card and p["mode"] != "inference" and p.get("verdict") == "fits":
        # 「跑sdxl训练lora要多大显存」 names no card: the memory is the answer, not a fit on the card assumed for it
        zh, en = _lead(w, {**p, "verdict": None})
    else:
        zh, en = _lead(w, p, asks_params="model_info" in ctx.slots.cues)
    if p["mode"] != "inference" and p.get("verdict") == "fits" and "setup:video_dit_lora_checkpointing" in ctx.said:
        # the weights fit, the user still runs out: say first that it is the activations (the note says why)
        zh = "只算权重和训练状态放得下，训练时不够的是激活值：" + zh.removeprefix("放得下：")
        en = "Only the weights and training states fit; what runs out in training is the activations: " + (
            en.removeprefix("Fits: ")
        )
    w.add("verdict", zh, en)
    setup_lines(w, ctx.said, None)
    kind_zh, kind_en = _KIND.get(p["kind"], (p["kind"], p["kind"]))
    w.add(
        "numbers",
        f"{p['model']}（{kind_zh}流水线）各组件权重：{_comp_list(w, p)}；合计 {gb(p['weights_gb'])} GB。",
        f"{p['model']} ({kind_en} pipeline) weights by component: {_comp_list(w, p)}; {gb(p['weights_gb'])} GB in all.",
    )
    for other in parts:
        if other is not p:
            _alt(w, other)
    if p["mode"] == "full" and p.get("min_gpus_zero3"):
        w.add(
            "alternatives",
            f"同样的卡至少要 {p['min_gpus_zero3']} 张（ZeRO-3 切分训练状态，激活值另算），或者改用 LoRA。",
            f"With this card you need at least {p['min_gpus_zero3']} of them (ZeRO-3 sharding the training states, "
            "activations extra), or switch to LoRA.",
        )
    if p["mode"] != "inference" and p.get("without_text_encoders_gb") and p.get("verdict") != "fits":
        w.add(
            "alternatives",
            f"先把提示词编码算好缓存、训练时不加载文本编码器（省 {gb(p['text_encoders_gb'])} GB），每张卡约 "
            f"{gb(p['without_text_encoders_gb'])} GB。",
            f"Precompute the prompt embeddings and train without the text encoders on the GPU (saves "
            f"{gb(p['text_encoders_gb'])} GB): about {gb(p['without_text_encoders_gb'])} GB per card.",
        )
    if p["mode"] == "lora" and p.get("fp8_base_per_gpu_gb") and p.get("verdict") != "fits":
        no_text = p.get("fp8_base_no_text_gb")
        w.add(
            "alternatives",
            f"冻结的去噪网络量化成 FP8/8-bit（1 字节/参数）：每张卡约 {gb(p['fp8_base_per_gpu_gb'])} GB"
            + (f"，再把文本编码器卸载到 CPU 或预先缓存：约 {gb(no_text)} GB" if no_text else "")
            + "。",
            f"Quantise the frozen denoiser to FP8/8-bit (1 byte/param): about {gb(p['fp8_base_per_gpu_gb'])} GB per card"
            + (
                f"; with the text encoders offloaded to the CPU or their outputs cached: about {gb(no_text)} GB"
                if no_text
                else ""
            )
            + ".",
        )
    for mode in p.get("low_vram") or []:
        fit_zh = "，放得下" if mode.get("fits") else ("，仍放不下" if mode.get("fits") is False else "")
        fit_en = ", fits" if mode.get("fits") else (", still too big" if mode.get("fits") is False else "")
        at = f"（{mode['setting']}）" if mode.get("setting") else ""
        at_en = f" ({mode['setting']})" if mode.get("setting") else ""
        peak_zh = f"——实测峰值约 {gb(mode['peak_gb'])} GB{at}{fit_zh}" if mode.get("peak_gb") else ""
        peak_en = f" — measured peak about {gb(mode['peak_gb'])} GB{at_en}{fit_en}" if mode.get("peak_gb") else ""
        w.add(
            "alternatives",
            f"低显存设置 `{mode['flag']}`：{mode['zh']}{peak_zh}。",
            f"Low-memory setting `{mode['flag']}`: {mode['en']}{peak_en}.",
        )
    for a in p.get("advice") or []:
        w.add("numbers", a["zh"], a["en"])
    for o in p.get("options") or []:
        if o.get("peak_gb") is not None:
            verdict_zh = "，放得下" if o.get("fits") else ("，仍放不下" if o.get("fits") is False else "")
            verdict_en = ", fits" if o.get("fits") else (", still too big" if o.get("fits") is False else "")
            w.add(
                "alternatives",
                f"{o['zh']}——峰值权重约 {gb(o['peak_gb'])} GB{verdict_zh}。",
                f"{o['en']} — peak weights about {gb(o['peak_gb'])} GB{verdict_en}.",
            )
        else:
            w.add("alternatives", o["zh"] + "。", o["en"] + ".")
    for peak in p.get("published_peaks") or []:
        w.add(
            "numbers",
            f"发布方/运行时实测：{peak['setting']}，峰值约 {gb(peak['peak_gb'])} GB（含激活值）。",
            f"Measured by the publisher or runtime: {peak['setting']}, peak about {gb(peak['peak_gb'])} GB "
            "(activations included).",
        )
    if "slow_word" in ctx.said:
        _slow(w, p)
    for a in p.get("assumptions") or []:
        w.add("assumptions", a.get("zh", ""), a.get("en", ""))
    if "time" in ctx.slots.cues and p["mode"] != "inference":
        w.add(
            "next",
            "扩散模型的训练时长 = 总步数 × 每步秒数（随分辨率、batch、梯度检查点变化），没法像 LLM 那样按 token 数估算；"
            "先跑 20 步看 it/s 再乘总步数。显存放不下时的卸载/量化会让每步变慢。",
            "Training time for a diffusion model is total steps × seconds per step (set by resolution, batch and "
            "gradient checkpointing), not a token count as for LLMs: run 20 steps, read it/s and multiply. "
            "Offloading or quantising to make it fit slows each step.",
        )
    if p.get("gpu") and not (ctx.slots.gpus or ctx.slots.vram_gb):
        w.add(
            "assumptions",
            f"没说用什么卡；按 {p['gpu']} 算，换别的卡可以接着问「用 4090 呢」。",
            f'No GPU was named; sized on the {p["gpu"]}. Ask "what about a 4090?" for another card.',
        )
