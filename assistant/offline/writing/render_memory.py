"""Renderers for memory sizing: `estimate_memory`, `find_min_gpus`, `find_max_fit`, `lookup_model`."""

from __future__ import annotations

import re
from typing import Any

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import (
    Context,
    article,
    bi,
    big,
    cat_words,
    gb,
    mode_label,
    plural,
    renderer,
)
from assistant.offline.writing.setup_notes import setup_lines


def _model_label(w: Writer, est: dict) -> str:
    name = str(est.get("model") or "")
    if est.get("model_kind") == "generic" or name.startswith("generic-"):
        size = name.replace("generic-", "")
        return w.t(f"{size} 模型", f"{article(size)} {size} model")
    return name


def _gpu_label(est: dict) -> str:
    return str(est.get("gpu") or "").replace("NVIDIA ", "").replace("GeForce ", "")


def _is_nvidia(est: dict) -> bool:
    """The table's vendor flag for the estimate's card (True when it cannot be read: the old wording)."""
    from tools.errors import ToolInputError
    from tools.gpus import resolve_gpu

    try:
        return resolve_gpu(str(est.get("gpu") or "")).is_nvidia
    except ToolInputError:
        return True


def _bare_size(card: str) -> bool:
    """'24 GB' (the user gave a memory size, not a GPU name)."""
    return bool(re.fullmatch(r"[\d.]+\s*GB", card.strip()))


def _setup(w: Writer, est: dict) -> str:
    base = _cards(w, est)
    conc, ctx = est.get("concurrency"), est.get("context")
    if est.get("mode") == "inference" and isinstance(conc, int) and conc > 1 and isinstance(ctx, int):
        # "for 20 concurrent users": the verdict is for that load, so the lead says which load it sized
        return base + w.t(
            f"，{num(conc)} 路并发 × 每路 {num(ctx)} token", f", {num(conc)} concurrent × {num(ctx)} tokens"
        )
    return base


def _cards(w: Writer, est: dict) -> str:
    n = est.get("gpus") or 1
    if n <= 1:
        return w.t("单卡", "on one GPU")
    zero = est.get("zero_stage")
    if est.get("mode") == "inference":
        if est.get("engine") == "hf":  # device_map="auto" / llama.cpp -ts / ExLlamaV2 gpu_split: whole layers
            return w.t(f"{n} 卡按层切分", f"layers split over {n} GPUs")
        return w.t(f"{n} 卡张量并行", f"{n}-way tensor parallel")
    if zero in (1, 2):  # ZeRO-1/2 shard optimizer states (and gradients), never the parameters
        return w.t(f"{n} 卡 ZeRO-{zero}，每卡一份完整权重", f"{n} GPUs with ZeRO-{zero}, full weights on each")
    if zero:
        return w.t(f"{n} 卡 ZeRO-{zero}", f"{n} GPUs with ZeRO-{zero}")
    return w.t(f"{n} 卡数据并行（每卡一份完整模型）", f"{n} GPUs data-parallel (a full copy per GPU)")


def _data_parallel_line(w: Writer, est: dict) -> None:
    """Several cards without ZeRO/FSDP (how the user ran it): their memory does not add up, which is usually
    what "双卡也显存不够" is about."""
    if (est.get("gpus") or 1) > 1 and not est.get("zero_stage") and est.get("mode") != "inference":
        w.add(
            "verdict",
            "数据并行（DDP，torchrun/accelerate 的默认）每张卡各放一份完整模型，多卡的显存不会叠加，只是更快；"
            "要把模型切到多张卡上，用 DeepSpeed ZeRO-3 或 FSDP。",
            "Data parallel (DDP, the torchrun/accelerate default) keeps a full copy of the model on every GPU: the "
            "cards' memory does not add up, it only runs faster; to split the model across GPUs use DeepSpeed ZeRO-3 "
            "or FSDP.",
        )


def whole_model_clause(w: Writer, est: dict) -> tuple[str, str]:
    """The whole model's weights beside the per-GPU figure, also when sharded or split by tensor parallelism: the
    tool's `whole_model_weights_gb` (params × bytes/param before any split); older results without it fall back to
    the single-GPU weights."""
    total = est.get("whole_model_weights_gb")
    prec = est.get("whole_model_precision")
    if not isinstance(total, (int, float)) or total <= 0:
        weights = est.get("weights_gb")
        if (est.get("gpus") or 1) != 1 or not isinstance(weights, (int, float)) or weights <= 0:
            return "", ""
        total = weights
    if not prec:
        prec = "NF4" if est.get("mode") == "qlora" else str(est.get("precision") or "bf16")
    return (
        f"整个模型的权重（{prec}）约 {gb(total)} GB",
        f"the whole model's {prec} weights are about {gb(total)} GB",
    )


def _capacity(w: Writer, est: dict) -> tuple[str, str]:
    """The card with what decides the verdict: nominal, what nvidia-smi reports (MiB) and what the engine may use."""
    card, cap, usable = _gpu_label(est), est.get("nominal_gb") or est.get("gpu_memory_gb"), est.get("usable_gb")
    mib, reported = est.get("reported_mib"), est.get("reported_gb")
    engine = {"vllm": "vLLM ", "sglang": "SGLang "}.get(str(est.get("engine") or ""), "")
    bits_zh: list[str] = []
    bits_en: list[str] = []
    if isinstance(mib, (int, float)) and isinstance(reported, (int, float)) and not _bare_size(card):
        # an Ascend / Cambricon / Hygon / Moore Threads card reports through its vendor's tool, never nvidia-smi
        tool_zh, tool_en = ("nvidia-smi", "nvidia-smi") if _is_nvidia(est) else ("厂商工具", "the vendor tool")
        bits_zh.append(f"{tool_zh} 显示 {mib:,.0f} MiB = {gb(reported)} GB")
        bits_en.append(f"{tool_en} shows {mib:,.0f} MiB = {gb(reported)} GB")
    if isinstance(usable, (int, float)) and not (isinstance(reported, (int, float)) and usable >= reported - 0.01):
        gib = usable * 1e9 / 2**30
        bits_zh.append(f"{engine}可用约 {gb(usable)} GB（{gb(gib)} GiB）")
        bits_en.append(f"about {gb(usable)} GB ({gb(gib)} GiB) usable{' by ' + engine.strip() if engine else ''}")
    if isinstance(reported, (int, float)) and bits_zh and len(bits_zh) == 1 and not _bare_size(card):
        gib_r = reported * 1e9 / 2**30
        serving = est.get("mode") == "inference"  # HF generate / layer split: no engine reserve either
        bits_zh[0] += f"（{gb(gib_r)} GiB），{'不预留，可全部使用' if serving else '训练可全部使用'}"
        bits_en[0] += f" ({gb(gib_r)} GiB), {'all usable, no reserve' if serving else 'all usable for training'}"
    if _bare_size(card):
        zh, en = f"{gb(cap)} GB 的卡", f"a {gb(cap)} GB card"
    else:
        zh, en = card, f"the {card}"
    if bits_zh:
        zh += "（" + "，".join(bits_zh) + "）"
        en += " (" + ", ".join(bits_en) + ")"
    return zh, en


def changes_text(w: Writer, est: dict) -> tuple[str, str] | None:
    """The tool's `changes` as one clause: alternatives joined by 或/or, a combination by 再/then ("together")."""
    changes = [c for c in est.get("changes") or [] if isinstance(c, dict) and isinstance(c.get("label"), dict)]
    if not changes:
        return None
    each = "累计每卡约" if est.get("changes_combined") else "每卡约"
    zh = [f"{c['label'].get('zh')}（{each} {gb(c.get('total_gb'))} GB）" for c in changes]
    en = [f"{c['label'].get('en')} (about {gb(c.get('total_gb'))} GB per GPU)" for c in changes]
    if est.get("changes_combined"):
        return "一起改：" + "，再".join(zh), "together: " + ", then ".join(en)
    return "，或".join(zh), "; or ".join(en)


def nearest_text(w: Writer, est: dict) -> tuple[str, str] | None:
    opt = est.get("nearest_option")
    if not isinstance(opt, dict) or not isinstance(opt.get("label"), dict):
        return None
    total = opt.get("total_gb")
    tail_zh = f"（每卡约 {gb(total)} GB）" if isinstance(total, (int, float)) else ""
    tail_en = f" (about {gb(total)} GB per GPU)" if isinstance(total, (int, float)) else ""
    return (
        f"最接近的可行办法：{opt['label'].get('zh')}{tail_zh}",
        f"the nearest option that fits: {opt['label'].get('en')}{tail_en}",
    )


def _job_label(w: Writer, est: dict) -> str:
    """'全量训练' / 'LoRA 微调', with the training method in front when it is not SFT ('DPO 全量训练')."""
    mode = mode_label(w, est.get("mode"))
    method = str(est.get("method") or "sft")
    if method != "sft" and est.get("mode") != "inference":
        name = _METHOD_NAME.get(method, method.upper())
        return w.t(f"{name} {mode}", f"{name} {mode}")
    return mode


def _full_reason(ctx: Any, est: dict) -> dict | None:
    """The trainers.yaml row that makes this bare "fine-tune" a full fine-tune, when the estimate is one."""
    if str(est.get("mode")) != "full":
        return None
    from assistant.offline.intents.trainer_modes import likely_full

    return likely_full(ctx.slots)


def _full_lead(w: Writer, reason: dict, lora: dict | None) -> None:
    """Line 1 for a full fine-tune that does not fit: no, why it is full, and LoRA's per-GPU figure beside it."""
    zh, en = str(reason.get("zh") or ""), str(reason.get("en") or "")
    if lora and isinstance(lora.get("total_gb"), (int, float)):
        label = mode_label(w, lora.get("mode"))
        other_zh, other_en = (
            ("（换支持它的框架）", " (with a trainer that has it)") if reason.get("full_only") else ("", "")
        )
        w.add(
            "verdict",
            f"不能：{zh}，这样放不下；改用 {label}{other_zh}每卡约 {gb(lora['total_gb'])} GB，放得下。",
            f"No: {en}, and that does not fit; {label}{other_en} would need about "
            f"{gb(lora['total_gb'])} GB per GPU, which fits.",
        )
        return
    w.add("verdict", f"不能：{zh}，这样放不下。", f"No: {en}, and that does not fit.")


def _fit_for_engine(est: dict, key: str) -> int | None:
    """max_context_fit / max_concurrency_fit for the engine the estimate used (both are given per engine)."""
    fits = est.get(key)
    value = fits.get(str(est.get("engine") or "hf")) if isinstance(fits, dict) else None
    return value if isinstance(value, int) else None


def _asked_batch_line(w: Writer, ctx: Context, est: dict) -> None:
    """「batch size 设多少合适」 for training: the largest micro-batch that fits leads; the global batch is that × GPUs ×
    gradient accumulation, and what is right beyond memory is the recipe's (learning rate scales with it)."""
    top = est.get("max_batch")
    if "asked_batch_size" not in ctx.said or est.get("mode") == "inference" or not est.get("fits") or not top:
        return
    n, seq = est.get("gpus") or 1, est.get("seq_len")
    per = "每卡" if n > 1 else ""
    w.lead_with(
        f"按显存，{per}微批（per_device_train_batch_size）最大约 {num(top)}（序列 {num(seq)}）；"
        f"总 batch = 微批 × {num(n)} 张卡 × 梯度累积步数，想要更大的总 batch 就加梯度累积，"
        "学习率要跟着总 batch 调。",
        f"By memory, the largest micro-batch (per_device_train_batch_size) is about {num(top)}"
        f"{' per GPU' if n > 1 else ''} (sequence {num(seq)}); the global batch = micro-batch × {num(n)} GPUs × "
        "gradient-accumulation steps, so raise accumulation for a larger global batch and scale the learning "
        "rate with it.",
    )


def _longest_context_line(w: Writer, ctx: Context, est: dict) -> None:
    """ "what context can I get" / 「最长能开多长上下文」 with no context given: the estimate's own longest context that
    fits (max_context_fit, per engine), so the second part of the question is answered, not dropped."""
    longest = _fit_for_engine(est, "max_context_fit")
    if "context_word" not in ctx.said or ctx.slots.context or est.get("mode") != "inference" or not longest:
        return
    if est.get("context_capped_by_model"):  # 32,768 is Qwen2.5-32B's own limit: memory is not what stops it
        zh_why = "这是模型本身的上下文上限 max_position_embeddings，显存还放得下更长；再长要用 YaRN 这类 RoPE 缩放"
        en_why = "the model's own context limit (max_position_embeddings); memory would hold more, and longer needs RoPE scaling such as YaRN"
    else:
        zh_why, en_why = "权重之外剩下的显存全给 KV 缓存", "all memory left after the weights goes to the KV cache"
    zh = f"最长上下文：这套配置上单条序列约 **{num(longest)} token**（{zh_why}）。"
    en = f"Longest context: about **{num(longest)} tokens** for one sequence on this setup ({en_why})."
    if "asked_longest_context" in ctx.said:  # 「vllm能开多大上下文」: the longest context is the answer, line 1
        w.lead_with(zh, en)
    else:
        w.add("verdict", zh, en)


def _seq_cap_line(w: Writer, ctx: Context, est: dict) -> None:
    """--max-num-seqs N with no user load: vLLM starts when one max_model_len sequence fits the KV cache (its
    "max seq len is larger than the maximum number of tokens that can be stored in KV cache" check); N is only the
    scheduler's cap, and how many full-length sequences run at once is the estimate's max_concurrency_fit."""
    if "max_num_seqs_cap" not in ctx.slots.mentions or est.get("mode") != "inference" or not ctx.slots.concurrency:
        return
    at_once = _fit_for_engine(est, "max_concurrency_fit")
    ctx_len = est.get("context")
    if at_once is None or not isinstance(ctx_len, int):
        return
    cap = ctx.slots.concurrency
    w.add(
        "verdict",
        f"max_num_seqs={num(cap)} 只是同时调度的上限，不要求 {num(cap)} 条都按 {num(ctx_len)} token 放进 KV 缓存："
        f"vLLM 启动时只检查一条 max_model_len 的序列放得下；按剩下的 KV 缓存，满 {num(ctx_len)} token 的请求"
        f"同时约 **{num(at_once)} 条**，短请求能多放。",
        f"max_num_seqs={num(cap)} only caps how many sequences are scheduled at once; the KV cache does not have to "
        f"hold {num(cap)} × {num(ctx_len)} tokens: at start-up vLLM only checks that one max_model_len sequence fits. "
        f"With the KV cache left, about **{num(at_once)}** full {num(ctx_len)}-token requests run at once; shorter "
        "ones fit more.",
    )


def fit_sentence(w: Writer, est: dict, lead: bool) -> tuple[str, str] | None:
    """(zh, en) verdict for one estimate, from the three-way `verdict`; `lead` starts with 能/改一下就能/不能."""
    total, gib = est.get("total_gb"), est.get("total_gib")
    if not isinstance(total, (int, float)):
        return None
    model, mode, setup = _model_label(w, est), _job_label(w, est), _setup(w, est)
    if est.get("mode") == "inference" and est.get("precision"):  # "bf16 inference" / "int4 推理": which weights
        prec = str(est["precision"])
        fmt = str(est.get("whole_model_precision") or "")
        if fmt.startswith("GGUF ") and fmt != "GGUF Q4_K_M":  # 「Q2_K 推理」: the quantisation asked about, not int4
            prec = fmt.removeprefix("GGUF ")
        mode = w.t(f"{prec} 推理", f"{prec} inference")
    need_zh = f"{cat_words(model, mode)}（{setup}）每卡约需 {gb(total)} GB" + (f"（{gb(gib)} GiB）" if gib else "")
    cap_mode = mode if re.match(r"(?:bf|fp|int)[0-9]", mode) else mode[0].upper() + mode[1:]  # "bf16 inference"
    need_en = (
        f"{cap_mode} of {model} ({setup}) needs about {gb(total)} GB"
        + (f" ({gb(gib)} GiB)" if gib else "")
        + " per GPU"
    )
    whole_zh, whole_en = whole_model_clause(w, est)
    n, all_mem = est.get("gpus") or 1, est.get("total_gpu_memory_gb")
    if whole_zh and n > 1 and isinstance(all_mem, (int, float)):  # against all the cards together
        whole_zh += f"（{num(n)} 张卡合计 {gb(all_mem)} GB 显存）"
        whole_en += f" ({num(n)} cards hold {gb(all_mem)} GB in all)"
    if whole_zh:  # the whole model's weights beside the per-GPU figure: users compare it with their cards
        need_zh += f"，{whole_zh}；"
        need_en += f"; {whole_en};"
    else:
        need_zh += "，"
        need_en += ","
    fits, room = est.get("fits"), est.get("headroom_gb")
    has_zh, has_en = _capacity(w, est)
    if n > 1:  # the verdict compares one GPU's share with one card
        has_zh = "每张 " + has_zh
        has_en = "each " + re.sub(r"^(?:the|an?) ", "", has_en)
    verdict = est.get("verdict")
    if fits is True:
        cap = est.get("usable_gb") or est.get("gpu_memory_gb")
        tight = isinstance(room, (int, float)) and isinstance(cap, (int, float)) and room < 0.1 * cap
        zh = (
            ("能，但余量很小。" if tight else "能。") if lead else ""
        ) + f"{need_zh}{has_zh}放得下，余量约 {gb(room)} GB。"
        en = (
            ("Yes, but with little room. " if tight else "Yes. ") if lead else ""
        ) + f"{need_en} {has_en} holds it, leaving about {gb(room)} GB."
        return zh, en
    if fits is False:
        short = -room if isinstance(room, (int, float)) else None
        if short is None:
            short_zh, short_en = "", ""
        elif short < 0.05:
            short_zh, short_en = "，差不到 0.1 GB", " — under 0.1 GB short"
        else:
            short_zh, short_en = f"，差约 {gb(short)} GB", f" — about {gb(short)} GB short"
        close = bool(est.get("borderline"))  # within 5% of the card: the verdict can flip
        change = changes_text(w, est) if verdict == "fits_with_changes" else None
        slow_only = all(str(c.get("kind") or "").endswith("offload") for c in est.get("changes") or [{}])
        if change and lead and slow_only:  # only offload makes it fit: that is a No with a slow way out, not a Yes
            return (
                f"不能：{need_zh}{has_zh}放不下{short_zh}。只有{change[0]}才勉强能跑，租卡按小时算一般不划算。",
                f"No. {need_en} {has_en} cannot hold it{short_en}. Only {change[1]} would make it run, which rarely "
                "pays when renting by the hour.",
            )
        if change and lead and _no_margin(est):
            # every change lands within 3% of the card: an estimate good to ±10–20% cannot call that a fit
            cap = gb(est.get("usable_gb"))
            return (
                f"照现在的配置放不下——{need_zh}{has_zh}{short_zh}；{change[0]}，但每卡几乎占满 {cap} GB、没有余量，"
                "实际很可能仍会 OOM。",
                f"Not as configured — {need_en} {has_en}{short_en}; {change[1]}, but that fills nearly all {cap} GB "
                "per GPU with no margin, so it will likely still OOM.",
            )
        if change and lead:
            return (
                f"不能直接放下，改一下就能：照现在的配置放不下——{need_zh}{has_zh}{short_zh}；{change[0]}。",
                f"No. With changes it can: as configured it does not fit — {need_en} {has_en}{short_en}; {change[1]}.",
            )
        near = nearest_text(w, est)
        lead_zh = ("临界，差一点点放不下。" if close else "不能。") if lead else ""
        lead_en = ("A close call: just short. " if close else "No. ") if lead else ""
        zh = lead_zh + f"{need_zh}{has_zh}放不下{short_zh}。"
        en = lead_en + f"{need_en} {has_en} cannot hold it{short_en}."
        if change:
            zh += f"要放下：{change[0]}。"
            en += f" To fit: {change[1]}."
        elif near and lead:
            zh += near[0] + "。"
            en += " " + near[1][0].upper() + near[1][1:] + "."
        return zh, en
    zh, en = need_zh.rstrip("，；") + "。", need_en.rstrip(",;") + "."
    size, cards = est.get("smallest_card_gb"), est.get("smallest_card_names") or []
    if isinstance(size, (int, float)) and cards:  # 「需要多大显存的显卡」 with no card: the size that holds it
        zh += f"单卡的话，放得下的最小常见显存档是 {gb(size)} GB（如 {'、'.join(cards)}）。"
        en += f" On one card, the smallest common memory size that holds it is {gb(size)} GB (e.g. {', '.join(cards)})."
    return zh, en


_SIZED_TO_FIT = {"max_model_len", "max_num_seqs", "micro_batch"}


def _no_margin(est: dict) -> bool:
    """Every change that makes the job fit leaves under 3% of the card free (11.8 GB sharded on an 11.8 GB card)."""
    usable = est.get("usable_gb")
    changes = [c for c in est.get("changes") or [] if isinstance(c, dict)]
    totals = [c.get("total_gb") for c in changes]
    if not isinstance(usable, (int, float)) or not totals or est.get("changes_combined"):
        return False
    if any(c.get("kind") in _SIZED_TO_FIT for c in changes):
        return False  # max_model_len ≤ N, max_num_seqs ≤ k, micro-batch b: chosen as the most that fits, full by design
    return all(_fills_card(t, usable) for t in totals)


def _fills_card(total: object, usable: object) -> bool:
    """Within 3% of the card: an estimate good to ±10–20% cannot call that a fit."""
    return isinstance(total, (int, float)) and isinstance(usable, (int, float)) and usable > 0 and total > 0.97 * usable


def _breakdown(w: Writer, est: dict) -> None:
    from tools.labels import field_label  # the labels live on the output model, defined once
    from tools.memory import EstimateMemoryOutput

    keys = ("weights_gb", "gradients_gb", "optimizer_gb", "activations_gb", "logits_gb", "kv_cache_gb", "overhead_gb")
    parts = tuple(
        (k, field_label(EstimateMemoryOutput, k, "zh"), field_label(EstimateMemoryOutput, k, "en", inline=True))
        for k in keys
    )
    zh, en = [], []
    logits = est.get("logits_gb")
    # The tool's activations already include the logits buffer (training): say so instead of listing it twice,
    # so the parts add up to the total.
    inside = (
        est.get("mode") != "inference"
        and isinstance(logits, (int, float))
        and logits > 0.05
        and isinstance(est.get("activations_gb"), (int, float))
        and est["activations_gb"] >= logits
    )
    for key, z, e in parts:
        v = est.get(key)
        if key == "logits_gb" and inside:
            continue
        extra = (est.get("reference_model_gb") or 0) + (est.get("reward_model_gb") or 0)
        if key == "weights_gb" and isinstance(est.get("policy_weights_gb"), (int, float)) and extra > 0.05:
            zh.append(f"{z} {gb(est['policy_weights_gb'])} GB")
            en.append(f"{e} {gb(est['policy_weights_gb'])} GB")
            for k2, z2, e2 in (
                ("reference_model_gb", "参考模型", "reference model"),
                ("reward_model_gb", "奖励模型", "reward model"),
            ):
                if (est.get(k2) or 0) > 0.05:
                    zh.append(f"{z2} {gb(est[k2])} GB")
                    en.append(f"{e2} {gb(est[k2])} GB")
            continue
        if isinstance(v, (int, float)) and v > 0.05:
            if key == "activations_gb" and inside:
                seq, mb = est.get("seq_len"), est.get("batch")
                at_zh = f"；序列长度 {num(seq)} × 每卡 batch {num(mb)}" if seq and mb else ""
                at_en = f"; sequence length {num(seq)} × micro-batch {num(mb)}" if seq and mb else ""
                zh.append(f"{z} {gb(v)} GB（含 logits 缓冲 {gb(logits)} GB{at_zh}）")
                en.append(f"{e} {gb(v)} GB (incl. the {gb(logits)} GB logits buffer{at_en})")
                continue
            zh.append(f"{z} {gb(v)} GB")
            en.append(f"{e} {gb(v)} GB")
    if zh:
        w.add(
            "numbers",
            "每卡构成：" + "、".join(zh) + f"，合计 {gb(est.get('total_gb'))} GB",
            "Per GPU: " + ", ".join(en) + f"; total {gb(est.get('total_gb'))} GB",
        )
    host = est.get("host_ram_gb")
    if isinstance(host, (int, float)) and host > 0:
        w.add(
            "numbers", f"CPU offload 需要主机内存约 {gb(host)} GB", f"CPU offload needs about {gb(host)} GB of host RAM"
        )


def seed_rule_line(w: Writer, est: dict, section: str = "assumptions") -> None:
    seed = est.get("seed_rule")
    if not isinstance(seed, dict) or not seed.get("model_states_gb"):
        return
    w.add(
        section,
        f"常见经验算法（优化器≈权重的 4 倍，{num(seed.get('bytes_per_param'))} B/参数）得到模型状态 "
        f"{gb(seed.get('model_states_gb'))} GB；主流混合精度 AdamW 还要存 fp32 主权重和 fp32 的一阶、二阶矩，"
        f"实际是 {num(seed.get('precise_bytes_per_param'))} B/参数，即 {gb(seed.get('precise_model_states_gb'))} GB"
        "（ZeRO 论文）。两种算法都还没算激活值。",
        f"A common rule of thumb (optimizer ≈ 4× the weights, {num(seed.get('bytes_per_param'))} B/param) "
        f"gives {gb(seed.get('model_states_gb'))} GB of model states; standard mixed-precision AdamW also keeps an "
        f"fp32 master copy and fp32 moments, {num(seed.get('precise_bytes_per_param'))} B/param = "
        f"{gb(seed.get('precise_model_states_gb'))} GB (ZeRO paper). Neither includes activations.",
    )


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


def _alt_line(w: Writer, est: dict, label: str | None = None) -> None:
    total, fits, room = est.get("total_gb"), est.get("fits"), est.get("headroom_gb")
    mode = mode_label(w, est.get("mode"))
    if est.get("mode") == "inference" and est.get("precision") in ("int8", "int4"):
        mode = w.t(f"{est['precision']} 量化推理", f"{est['precision']}-quantised inference")
    if est.get("optimizer") == "adamw_8bit" and est.get("mode") == "full":
        mode = w.t(
            f"{mode}、8-bit AdamW（优化器状态按 8-bit 存）", f"{mode} with 8-bit AdamW (optimizer states in 8-bit)"
        )
    mode = label or mode
    card = _gpu_label(est)
    if _bare_size(card):
        card = w.t(f"{card} 的卡", f"a {card} card")
    elif w.lang == "en":
        card = f"the {card}"
    weights = est.get("weights_gb")
    if fits is None and isinstance(weights, (int, float)):  # no card to compare with: say what dominates
        w.add(
            "alternatives",
            f"{mode}：每卡约 {gb(total)} GB（其中权重 {gb(weights)} GB）。",
            f"{mode}: about {gb(total)} GB per GPU (weights {gb(weights)} GB).",
        )
        return
    w_zh = w_en = ""
    if isinstance(weights, (int, float)) and weights > 0.05:  # what dominates: the (quantised) weights
        w_zh, w_en = f"，其中权重 {gb(weights)} GB", f", weights {gb(weights)} GB"
    if fits is True:
        w.add(
            "alternatives",
            f"{mode}：每卡约 {gb(total)} GB{w_zh}，{cat_words(card, '放得下')}（余量约 {gb(room)} GB）。",
            f"{mode}: about {gb(total)} GB per GPU{w_en} — fits {card} ({gb(room)} GB to spare).",
        )
    elif fits is False:
        w.add(
            "alternatives",
            f"{mode}：每卡约 {gb(total)} GB{w_zh}，{cat_words(card, '也放不下')}（差约 {gb(-(room or 0))} GB）。",
            f"{mode}: about {gb(total)} GB per GPU{w_en} — still does not fit {card} ({gb(-(room or 0))} GB short).",
        )
    else:
        w.add("alternatives", f"{mode}：每卡约 {gb(total)} GB。", f"{mode}: about {gb(total)} GB per GPU.")


def _activations_bound_adapter(est: dict) -> bool:
    """LoRA/QLoRA that does not fit because of activations (per GPU, not sharded by ZeRO-3)."""
    return (
        est.get("fits") is False
        and est.get("mode") in ("lora", "qlora")
        and (est.get("activations_gb") or 0) > (est.get("model_states_gb") or 0)
    )


def _min_gpus_line(w: Writer, res: dict, as_alternative: bool, prefix: tuple[str, str] | None = None) -> None:
    n, nodes, per, room = res.get("min_gpus"), res.get("nodes"), res.get("per_gpu_total_gb"), res.get("headroom_gb")
    card = str(res.get("gpu") or "").replace("NVIDIA ", "").replace("GeForce ", "")
    est: dict = res["estimate"] if isinstance(res.get("estimate"), dict) else {}
    inference = est.get("mode") == "inference"
    how_zh = "张量并行" if inference else " ZeRO-3/FSDP 分片"
    how_en = "tensor parallelism" if inference else "ZeRO-3/FSDP sharding"
    if not n:
        summary = res.get("summary") or {}
        w.add(
            "alternatives" if as_alternative else "verdict",
            summary.get("zh") or "在搜索范围内找不到能放下的卡数。",
            summary.get("en") or "No GPU count within the search range fits.",
        )
        return
    node_zh = f"（{num(nodes)} 台 8 卡机）" if nodes and n > 8 else ""
    node_en = f" ({num(nodes)} servers of 8 GPUs)" if nodes and n > 8 else ""
    mode = _job_label(w, est)
    if inference and est.get("precision"):
        mode = w.t(f"{est['precision']} 推理", f"{est['precision']} inference")
    job_zh = cat_words(_model_label(w, est), mode) if est and not as_alternative else ""
    job_en = f"For {mode} of {_model_label(w, est)} y" if est and not as_alternative else "Y"
    how_zh = f"用{how_zh}" if n > 1 else ""  # one card splits nothing
    zh = (f"{job_zh}：" if job_zh else "") + (
        f"{how_zh}至少要 {num(n)} 张 {card}{node_zh}，每卡约 {gb(per)} GB，余量约 {gb(room)} GB。"
    )
    en = (  # the count right after the job: it is the answer
        f"{job_en}ou need at least {num(n)} × {card}{node_en}"
        + (f" with {how_en}" if n > 1 else "")
        + f": about {gb(per)} GB per GPU, {gb(room)} GB to spare."
    )
    floor, states, usable = res.get("floor_gpus"), res.get("states_gb"), res.get("usable_gb")
    if floor and states and usable and floor != n:  # capacity alone first, then what the search added
        what_zh, what_en = (
            ("权重", "weights") if inference else ("权重+梯度+优化器状态", "weights + gradients + optimizer states")
        )
        zh += (
            f"单看容量：{what_zh} {gb(states)} GB ÷ 每卡可用 {gb(usable)} GB ≈ {num(floor)} 张；"
            + (
                "再加 KV 缓存、框架开销，并且张量并行数要能整除注意力头数（1/2/4/8…），"
                if inference
                else "再加激活值和框架开销，"
            )
            + f"所以是 {num(n)} 张。"
        )
        en += (
            f" By capacity alone: {what_en} {gb(states)} GB ÷ {gb(usable)} GB usable per GPU ≈ {num(floor)}; "
            + (
                "the KV cache, engine overhead and a tensor-parallel size that divides the attention heads (1/2/4/8…) "
                if inference
                else "activations and overhead "
            )
            + f"make it {num(n)}."
        )
    pre_zh, pre_en = prefix or (("多加卡：", "More GPUs: ") if as_alternative else ("", ""))
    if pre_en.endswith("; "):  # "No single card holds it; with ZeRO-3 …"
        en = en[0].lower() + en[1:]
    w.add("alternatives" if as_alternative else "verdict", pre_zh + zh, pre_en + en)


def _borderline_lines(w: Writer, est: dict, bigger: list[ToolResult]) -> None:
    """A verdict within 5% of nominal memory: why it is a close call and how to tip it."""
    nominal = next(
        (a for a in est.get("assumptions") or [] if isinstance(a, dict) and "nvidia-smi" in str(a.get("en"))), None
    )
    if nominal:
        w.add(
            "verdict",
            "这是临界情况：" + str(nominal.get("zh") or "") + "。",
            "This is a close call: " + str(nominal.get("en") or "") + ".",
        )
    fits = est.get("fits")
    if est.get("mode") == "inference":
        levers_zh = "缩短上下文或减小并发/batch、KV 缓存改用 fp8，或者换显存更大的卡。"
        levers_en = "shorten the context or lower concurrency/batch, store the KV cache in fp8, or use a larger card."
    else:  # training keeps no KV cache: its levers are the sequence, the micro-batch and recomputation
        zh_parts, en_parts = ["缩短序列长度"], ["shorten the sequence"]
        if (est.get("batch") or 1) > 1:
            zh_parts.append("把每卡微批降到 1（用梯度累积补回）")
            en_parts.append("drop the micro-batch to 1 (gradient accumulation keeps the effective batch)")
        if est.get("checkpointing") is False:
            zh_parts.append("打开梯度检查点")
            en_parts.append("turn on gradient checkpointing")
        zh_parts.append("用分块交叉熵（如 Liger Kernel）")
        en_parts.append("use a chunked cross-entropy (e.g. Liger Kernel)")
        levers_zh = "、".join(zh_parts) + "，或者换显存更大的卡。"
        levers_en = ", ".join(en_parts) + ", or use a larger card."
    w.add(
        "next",
        ("想稳妥放下：" if fits is False else "想留足余量：") + levers_zh,
        ("To make it fit with margin: " if fits is False else "For more margin: ") + levers_en,
    )
    for e in bigger:
        _alt_line(w, e.result, w.t("换大显存卡", "A larger card"))


def rent_notes(w: Writer, res: dict, section: str) -> None:
    """find_min_gpus' own notes: the whole-server count with its per-GPU memory, thin headroom."""
    n, rent = res.get("min_gpus"), res.get("rent_gpus")
    if n and rent and rent != n:
        servers = -(-int(rent) // 8)
        where_zh = f"{num(servers)} 台 8 卡机" if rent >= 8 else f"一台 {num(rent)} 卡机"
        where_en = (
            f"{num(servers)} whole 8-GPU server{'s' if servers > 1 else ''}"
            if rent >= 8
            else f"one {num(rent)}-GPU server"
        )
        w.add(
            section,
            f"{num(n)} 张是理论最少；按整机租实际是 {num(rent)} 张（{where_zh}），分片到 {num(rent)} 张时"
            f"每卡约 {gb(res.get('rent_per_gpu_total_gb'))} GB，余量约 {gb(res.get('rent_headroom_gb'))} GB。",
            f"{num(n)} is the bare minimum; rented as {where_en} that is {num(rent)} GPUs, about "
            f"{gb(res.get('rent_per_gpu_total_gb'))} GB per GPU with {gb(res.get('rent_headroom_gb'))} GB to spare.",
        )
    for note in res.get("notes") or []:
        if isinstance(note, dict) and not (rent != n and "bare minimum" in str(note.get("en"))):
            w.add(section, (note.get("zh") or "").rstrip("。") + "。", (note.get("en") or "").rstrip(".") + ".")


def _time_needs_memory(w: Writer, est: dict) -> None:
    """A training-time answer on named cards: say first when the job does not fit them at all."""
    if est.get("fits") is not False:
        return
    card = str(est.get("gpu") or "").replace("NVIDIA ", "").replace("GeForce ", "")
    mode = mode_label(w, est.get("mode"))
    n = est.get("gpus") or 1
    how_zh = f"、{num(n)} 张卡 ZeRO-3 切分后" if n > 1 and est.get("zero_stage") == 3 else ""
    how_en = f" on {num(n)} GPUs with ZeRO-3" if n > 1 and est.get("zero_stage") == 3 else ""
    w.add(
        "verdict",
        f"先说明：按这个配置放不下——{mode}{how_zh}每卡约需 {gb(est.get('total_gb'))} GB，{card} 只有 "
        f"{gb(est.get('gpu_memory_gb'))} GB；下面的时间只在换成放得下的方案（LoRA/QLoRA、更多卡或更大显存的卡）后才有意义。",
        f"First, this does not fit: {mode}{how_en} needs about {gb(est.get('total_gb'))} GB per GPU, and the {card} "
        f"has {gb(est.get('gpu_memory_gb'))} GB; the time below only applies once the job fits (LoRA/QLoRA, more "
        "GPUs or larger cards).",
    )
    w.parts["verdict"].insert(w.part_start, w.parts["verdict"].pop())  # before the time it qualifies


@renderer("estimate_memory", grouped=True)
def estimate_memory(w: Writer, r: ToolResult, ctx: Context) -> None:
    piped = [e for e in ctx.by_name("estimate_memory") if isinstance(e.result.get("pipeline"), dict)]
    if piped:  # FLUX / SDXL / Wan / Whisper: per-component weights and residency options
        from assistant.offline.writing.render_pipeline import pipeline_memory

        pipeline_memory(w, ctx, piped)
        return
    if ctx.by_name("plan_configurations"):
        return  # a follow-up estimate explaining an infeasible plan; the plan renderer quotes it
    if ctx.intent == "cpu_serving" and ctx.by_name("cpu_inference") and not r.args.get("gpus", 1) > 1:
        return  # the weights against the card, for a host-RAM answer: quoted by render_cpu
    if ctx.intent == "cpu_training":
        _cpu_training_ram(w, r.result, bool(_DRY_RUN.search(ctx.question or "")))
        return
    if ctx.intent == "train_time":
        _time_needs_memory(w, ctx.by_name("estimate_memory")[0].result)
        return
    ests = ctx.by_name("estimate_memory")
    if len(ctx.slots.co_models) >= 2 and len({str(e.result.get("model")) for e in ests}) >= 2:
        _co_deployed(w, ests)
        setup_lines(w, ctx.said, ests[0].result)
        return
    from assistant.offline.intents.each import precisions_each

    by_precision = (  # 「BF16和FP8分别要多少」: one line per precision the question asked (intents/each.py)
        len(precisions_each(ctx.slots)) >= 2
        and len({str(e.args.get("gpu") or "") for e in ests}) <= 1
        and all(e.args.get("mode") == "inference" for e in ests)
    )
    if len({str(e.args.get("model")) for e in ests if e.args.get("model")}) >= 2 or by_precision:
        _memory_by_model(w, ctx, ests)
        setup_lines(w, ctx.said, ests[0].result)
        return
    first_gpu = str(ests[0].args.get("gpu") or "")
    bigger = [
        e
        for e in ests
        if _bare_size(str(e.args.get("gpu") or ""))
        and str(e.args.get("gpu")) != first_gpu
        and ests[0].result.get("borderline")
    ]  # "a 32 GB / 48 GB card" asked after a close call
    ests = [e for e in ests if e not in bigger]
    cards = list(dict.fromkeys(str(e.result.get("gpu")) for e in ests if e.result.get("gpu")))
    if len(cards) > 1:
        _memory_by_card(w, ctx, ests, cards)
        setup_lines(w, ctx.said, ests[0].result)
        return
    wanted = ctx.slots.mode or ("full" if ctx.slots.training and not ctx.slots.finetune else None)
    primary = next((e for e in ests if str(e.args.get("mode")) == str(wanted)), ests[0])
    tp_est, layer_est = split_pair(ests)
    if tp_est is not None and layer_est is not None and not tp_est.result.get("fits"):
        primary = layer_est  # no split named: lead with the way that fits (or comes closer), whole layers per card
    next_stage = next_stage_est(ests, primary)
    est = primary.result
    _rollout_lead(w, ctx, est)
    _asked_memory_part(w, est, ctx.said)
    lora = next(
        (
            e.result
            for e in ests
            if e is not primary and e.args.get("mode") in ("lora", "qlora") and e.result.get("fits") is True
        ),
        None,
    )
    full_reason = _full_reason(ctx, est)
    if full_reason and est.get("fits") is False:
        # Megatron / a ZeRO stage / FSDP named with a bare "fine-tune": the job is full fine-tuning; LoRA is the
        # way out, not the verdict (knowledge/trainers.yaml)
        _full_lead(w, full_reason, lora)
        sentence = fit_sentence(w, est, lead=False)
    elif ctx.slots.finetune and not ctx.slots.mode and est.get("fits") is False and lora:
        w.add(
            "verdict",
            f"可以微调，但只能用 {mode_label(w, lora.get('mode'))}，全量微调放不下。",
            f"Yes, but only with {mode_label(w, lora.get('mode'))}; full fine-tuning does not fit.",
        )
        sentence = fit_sentence(w, est, lead=False)
    else:
        sentence = fit_sentence(w, est, lead=True)
    split_lead = multi_card_lead(w, ctx, est, tp_est, layer_est, next_stage)
    body = fit_sentence(w, est, lead=False) if split_lead else None
    if split_lead and body:
        sentence = (split_lead[0] + body[0], split_lead[1] + body[1])
    if sentence:
        w.add("verdict", *sentence)
    multi_card_lines(w, ctx, est, tp_est, layer_est, next_stage)
    _longest_context_line(w, ctx, est)
    _seq_cap_line(w, ctx, est)
    moe_line(w, est)
    _data_parallel_line(w, est)
    card_rule_lines(w, est, ctx)
    if tp_est is not None and tp_est is not primary and isinstance(tp_est.result.get("tp_note"), dict):
        note = tp_est.result["tp_note"]  # led with the layer split: the TP rule still decides how to serve it
        w.add("verdict", str(note["zh"]).rstrip("。") + "。", str(note.get("en") or "").rstrip(".") + ".")
    method_lines(w, est)
    host_ram_lines(w, ctx, est)
    runtime_default_lines(w, ctx, primary)
    setup_lines(w, ctx.said, est)
    engine_lines(w, ctx, est)
    if est.get("borderline"):
        _borderline_lines(w, est, bigger)
    _breakdown(w, est)
    if est.get("mode") == "full":
        asks_rule = "asks_rule_of_thumb" in ctx.said
        seed_rule_line(w, est, "verdict" if asks_rule else "assumptions")
    if est.get("fits") is True and est.get("max_batch"):
        serving = est.get("mode") == "inference"
        w.add(
            "numbers",
            (
                f"这张卡上最多约 {num(est['max_batch'])} 条并发序列"
                if serving
                else f"这张卡上最大微批约 {num(est['max_batch'])}"
            )
            + (
                f"，最长{'上下文' if serving else '序列'}约 {num(est['max_seq_len'])} tokens"
                if est.get("max_seq_len")
                else ""
            ),
            (
                f"Up to about {plural(est['max_batch'], 'concurrent sequence')} on this card"
                if serving
                else f"Largest micro-batch on this card: about {num(est['max_batch'])}"
            )
            + (
                f"; longest {'context' if serving else 'sequence'} about {num(est['max_seq_len'])} tokens"
                if est.get("max_seq_len")
                else ""
            ),
        )
    _asked_batch_line(w, ctx, est)
    for other in ests:
        if other in (tp_est, layer_est, next_stage):
            continue  # said in the split / next-stage lines
        if other is not primary and not (other.args.get("checkpointing") == "none" and "oom_report" in ctx.said):
            _alt_line(w, other.result)  # the no-checkpointing figure of an OOM report is quoted on line 1
    for mg in ctx.by_name("find_min_gpus"):
        unnamed = not ctx.slots.gpus and not ctx.slots.vram_gb
        if not mg.result.get("min_gpus") and _activations_bound_adapter(est):
            # the search found no count because adapters' activations are per GPU: say why, not "try LoRA"
            w.add(
                "alternatives",
                f"加卡解决不了：ZeRO-3 只切分权重、梯度和优化器状态，激活值（{gb(est['activations_gb'])} GB，含 logits 缓冲 "
                f"{gb(est.get('logits_gb'))} GB）每张卡都要各存一份。",
                f"More GPUs do not help: ZeRO-3 shards weights, gradients and optimizer states, but every GPU keeps "
                f"its own activations ({gb(est['activations_gb'])} GB, incl. the {gb(est.get('logits_gb'))} GB logits buffer).",
            )
            continue
        # no card named and none holds the job alone: how many it takes is the answer, right after the total
        lead_count = unnamed and not est.get("smallest_card_gb") and est.get("gpus", 1) == 1
        _min_gpus_line(
            w,
            mg.result,
            as_alternative=not lead_count,
            prefix=("单张卡放不下，", "No single card holds it; ") if unnamed else None,
        )
        rent_notes(w, mg.result, "alternatives")
        if unnamed:
            w.add(
                "assumptions",
                f"没指定卡型；卡数按 {_gpu_label(mg.result)} 算，换别的卡可以接着问「用 H800 呢」。",
                f'No GPU was named; the GPU count uses the {_gpu_label(mg.result)}. Ask "what about H800?" '
                "for another card.",
            )
    if (ctx.slots.gpu_count or 1) > 1 and est.get("zero_stage") == 3 and ctx.slots.zero_stage is None:
        w.add(
            "assumptions",
            "多卡训练按 ZeRO-3/FSDP 把权重（以及梯度、优化器状态）切分到各卡上计算。",
            "Training on several GPUs is assumed to shard weights (and gradients, optimizer states) with ZeRO-3/FSDP.",
        )
    if ctx.slots.zero_stage and (est.get("gpus") or 1) == 1:
        w.add(
            "assumptions",
            "ZeRO/FSDP 是把状态切到多张卡上才省显存，单卡开 ZeRO-3 本身不省（除非再加 CPU offload）。",
            "ZeRO/FSDP saves memory by splitting state across GPUs; on one GPU it saves nothing (unless you "
            "add CPU offload).",
        )
    _model_fallback_note(w, ctx, est)
    _tool_assumptions(w, est, limit=3)
    _memory_next_steps(w, ctx, est, ests)


_ASKED_PART = (  # (mention read in reading/shapes.py, result key, zh, en)
    ("asked_kv_cache", "kv_cache_gb", "KV 缓存", "the KV cache"),
    ("asked_activations", "activations_gb", "激活值", "activation memory"),
    (
        "asked_optimizer",
        "optimizer_gb",
        "优化器状态（含 fp32 主权重）",
        "optimizer states (incl. the fp32 master copy)",
    ),
    ("asked_host_ram", "host_ram_gb", "需要的主机内存（CPU offload）", "host RAM needed (CPU offload)"),
)


def _asked_memory_part(w: Writer, est: dict, said: set[str]) -> None:
    """Answer the asked component first ("KV cache at 8192 tokens" → the KV figure), then the total."""
    for mention, key, zh, en in _ASKED_PART:
        v = est.get(key)
        if mention in said and isinstance(v, (int, float)) and v > 0:
            gib = est.get("gib", {}).get(key.removesuffix("_gb")) if isinstance(est.get("gib"), dict) else None
            extra_zh = extra_en = ""
            n = est.get("gpus") or 1
            if key == "kv_cache_gb" and est.get("mode") == "inference":
                seqs, ctx, per, all_ = (
                    est.get("concurrency") or 1,
                    est.get("context"),
                    est.get("kv_per_sequence_gb"),
                    est.get("kv_cache_all_gpus_gb"),
                )
                if isinstance(per, (int, float)) and ctx:
                    extra_zh = f"；一条 {num(ctx)} token 的序列整模型要 {gb(per)} GB"
                    extra_en = f"; one {num(ctx)}-token sequence needs {gb(per)} GB across the model"
                    if seqs > 1 and isinstance(all_, (int, float)):
                        extra_zh += f"，{num(seqs)} 条共 {gb(all_)} GB"
                        extra_en += f", {num(seqs)} of them {gb(all_)} GB"
                    if n > 1:
                        extra_zh += f"，张量并行 {num(n)} 卡平分"
                        extra_en += f", split over {num(n)} GPUs by tensor parallelism"
            per_gpu_zh = "每卡" if n > 1 else ""
            per_gpu_en = " per GPU" if n > 1 else ""
            if key == "host_ram_gb":  # offloaded states live in each server's RAM, not on a GPU
                per_gpu_zh, per_gpu_en = ("每台机器", " per server") if n > 1 else ("", "")
            w.add(
                "verdict",
                f"{zh}{per_gpu_zh}约 {gb(v)} GB" + (f"（{gb(gib)} GiB）" if gib else "") + extra_zh + "。",
                f"{en[0].upper() + en[1:]} is about {gb(v)} GB{per_gpu_en}"
                + (f" ({gb(gib)} GiB)" if gib else "")
                + extra_en
                + ".",
            )
    tp = est.get("trainable_params")
    if "asked_trainable" in said and isinstance(tp, (int, float)) and est.get("mode") in ("lora", "qlora"):
        w.add("verdict", f"LoRA 可训练参数约 {big(tp)} 个。", f"LoRA adds about {big(tp)} trainable parameters.")


_PRECISION_ORDER = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")


def _best_precision_per_card(w: Writer, ests: list[ToolResult], cards: list[str]) -> None:
    """Serving on several cards: per card, the highest-precision weights that fit on one GPU."""
    if not all(e.result.get("mode") == "inference" for e in ests):
        return
    zh, en = [], []
    for card in cards:
        fitting = [e.result for e in ests if str(e.result.get("gpu")) == card and e.result.get("fits") is True]
        fitting.sort(
            key=lambda r: _PRECISION_ORDER.index(r["precision"]) if r.get("precision") in _PRECISION_ORDER else 9
        )
        label = _gpu_label({"gpu": card})
        mine = [e.result for e in ests if str(e.result.get("gpu")) == card]
        n = int(mine[0].get("gpus") or 1) if mine else 1
        who_zh, who_en = (
            (f"{n} 张 {label} ", f"{n} × {label}") if n > 1 else (f"{label} 单卡", f"the {label} on one card")
        )
        tp_bad = next((r.get("tp_note") for r in mine if r.get("tp_valid") is False and r.get("tp_note")), None)
        if fitting:
            p = fitting[0].get("precision")
            spare = fitting[0].get("headroom_gb")
            thin = isinstance(spare, (int, float)) and spare < 3  # a couple of GB left: little room for KV cache
            spare_zh = f"（每卡只剩约 {gb(spare)} GB 给 KV 缓存，长上下文要量化）" if thin else ""
            spare_en = (
                f" (only about {gb(spare)} GB per card left for the KV cache; quantise for long context)"
                if thin
                else ""
            )
            if isinstance(tp_bad, dict) and tp_bad.get("short_zh"):
                zh.append(f"{who_zh}按容量用 {p} 放得下，但{tp_bad['short_zh']}{spare_zh}")
                en.append(f"{who_en} holds it at {p} by capacity, but {tp_bad['short_en']}{spare_en}")
            else:
                zh.append(f"{who_zh}用 {p} 能放下{spare_zh}")
                en.append(f"{who_en} holds it at {p}{spare_en}")
        else:
            tried = "/".join(str(r.get("precision")) for r in mine)
            zh.append(f"{who_zh}（{tried}）都放不下")
            en.append(f"{who_en} cannot hold it ({tried})")
    if zh:
        w.add("verdict", "结论：" + "；".join(zh) + "。", "Verdict: " + "; ".join(en) + ".")


def _memory_by_card(w: Writer, ctx: Context, ests: list[ToolResult], cards: list[str]) -> None:
    """「用A100还是4090」: one verdict line per card (and per mode when the question left it open)."""
    _best_precision_per_card(w, ests, cards)
    # after a card choice (line 1 says which and why) the per-card fits are detail, not the answer
    chosen = ctx.intent == "card_choice"
    section, bullet = ("numbers", "") if chosen else ("verdict", "- ")
    if not chosen:
        w.add("verdict", "分别看每张卡：", "Card by card:")
    for card in cards:
        for e in ests:
            if str(e.result.get("gpu")) == card:
                sentence = fit_sentence(w, e.result, lead=False)
                if sentence:
                    marks: dict[Any, str] = {True: w.t("能", "fits"), False: w.t("不能", "does not fit")}
                    mark = marks.get(e.result.get("fits"), "")
                    if e.result.get("fits") and e.result.get("tp_valid") is False:
                        mark = w.t("按容量能（并行方式要换）", "fits by capacity (change the split)")
                    w.add(section, f"{bullet}{mark}：{sentence[0]}", f"{bullet}{mark}: {sentence[1]}")
    first = ests[0].result
    method_lines(w, first)
    host_ram_lines(w, ctx, first)
    _breakdown(w, first)
    if first.get("mode") == "full":
        seed_rule_line(w, first)
    for mg in ctx.by_name("find_min_gpus"):
        _min_gpus_line(w, mg.result, as_alternative=True)
    _model_fallback_note(w, ctx, first)
    _tool_assumptions(w, first, limit=2)
    if chosen:
        return
    w.add(
        "next",
        "显存够用的卡里再比速度和价格：可以接着问「这两张卡一个月多少钱」。",
        'Among the cards that fit, compare speed and price next: ask "how much per month for these cards?"',
    )


def _memory_by_model(w: Writer, ctx: Context, ests: list[ToolResult]) -> None:
    """「14b 和 32b 各要多少」 / "llama-3-8b and 70b in ollama": one line per model asked, each with its own
    figure (and verdict when a card was named), the runtime's default precision said once."""
    seen: set[str] = set()
    for e in ests:
        model = f"{e.args.get('model')}|{e.args.get('precision')}"
        if model in seen or e.error:
            continue
        seen.add(model)
        sentence = fit_sentence(w, e.result, lead=True)
        if sentence:
            w.add("verdict", sentence[0], sentence[1])
    first = ests[0]
    _stated_size_note(w, ctx)
    runtime_default_lines(w, ctx, first)
    host_ram_lines(w, ctx, first.result)
    _breakdown(w, first.result)
    _tool_assumptions(w, first.result, limit=2)


def _stated_size_note(w: Writer, ctx: Context) -> None:
    """The precision was read from the file size the user gave, not said: say so (reading/slots)."""
    if "precision_from_stated_size" in ctx.slots.mentions and ctx.slots.precision:
        p = ctx.slots.precision
        w.add(
            "verdict",
            f"（按你说的文件大小推算是 {p} 量化的权重：文件字节 × 8 ÷ 参数量 ≈ 每权重的比特数；bf16 要大约 4 倍。）",
            f"(The file size you gave means {p}-quantised weights: file bytes × 8 ÷ parameters ≈ bits per weight; "
            "bf16 would be about 4× that.)",
        )


def _model_fallback_note(w: Writer, ctx: Context, est: dict) -> None:
    s = ctx.slots
    if est.get("mode") == "inference" or est.get("precision") == s.precision:
        _stated_size_note(w, ctx)  # training keeps 16-bit weights whatever a quoted file size says
    unknown = [g.name for g in s.gpu_mentions if g.gpu_id is None and not g.memory_gb]
    if unknown and not any(e.args.get("gpu") for e in ctx.by_name("estimate_memory")):
        w.add(
            "verdict",
            f"（规格表里没有 {unknown[0]}，没法按它判断；告诉我它的显存大小（如 4 GB）就能算能不能放下。）",
            f"({unknown[0]} is not in the GPU table, so the verdict is not checked against it; tell me its memory "
            "(e.g. 4 GB) and I will check whether it fits.)",
        )
    if any(m.catalog_id is None and m.size_b for m in s.model_mentions):
        return  # line 1 already says it (writing/lead.assumed_note)
    if s.model and est.get("model_kind") == "generic" and not re.fullmatch(r"[\d.]+[bm]", s.model):
        # in the verdict paragraph (line 1): the figure is for a generic shape, not that model's own
        w.add(
            "verdict",
            f"（模型目录里还没有「{s.model}」，这里按同样参数量的通用稠密架构估算，不是它的真实结构。）",
            f"('{s.model}' is not in the model catalog yet, so a generic dense architecture of the same size is "
            "used, not its real shape.)",
        )


def _memory_next_steps(w: Writer, ctx: Context, est: dict, ests: list[ToolResult]) -> None:
    room, cap = est.get("headroom_gb"), est.get("gpu_memory_gb")
    if (
        est.get("fits") is False
        and isinstance(room, (int, float))
        and isinstance(cap, (int, float))
        and -room < 0.05 * cap
        and not est.get("borderline")
    ):  # a close call has its own next step
        w.add(
            "next",
            "只差一点：缩短上下文/减小 batch、调高推理引擎的显存占用比例，或开更省显存的选项，就可能放下。",
            "It is only just short: a shorter context or smaller batch, a higher serving-engine memory fraction, "
            "or a leaner setting may make it fit.",
        )
    if est.get("fits") is False and est.get("mode") == "full" and ctx.slots.mode == "pretrain":
        w.add(
            "next",
            "从头预训练用不了 LoRA/QLoRA（没有可以冻结的底座）：省显存靠 8-bit 优化器、加卡用 ZeRO-3/FSDP 切分，"
            "或者换更大显存的卡。",
            "Pre-training from scratch cannot use LoRA/QLoRA (there is no base model to freeze): save memory with an "
            "8-bit optimizer, shard over more GPUs with ZeRO-3/FSDP, or rent larger cards.",
        )
    elif est.get("fits") is False and est.get("mode") == "full":
        big = (cap or 0) >= 80
        w.add(
            "next",
            "先在这张卡上用 LoRA/QLoRA 把流程跑通，确实需要全量训练时再租多卡"
            + ("用 ZeRO-3 切分。" if big else "（或 A100/H100 这类大显存卡）。"),
            "Get the pipeline working with LoRA/QLoRA on this card first; rent several GPUs "
            + ("with ZeRO-3 sharding " if big else "(or large-memory cards such as A100/H100) ")
            + "only if you really need full fine-tuning.",
        )
    elif (
        est.get("fits") is False
        and est.get("mode") in ("lora", "qlora")
        and (est.get("activations_gb") or 0) > (est.get("model_states_gb") or 0)
    ):
        batch = est.get("batch") or 1
        accum_zh = f"每卡微批降到 1、梯度累积 {num(batch)} 步（等效 batch 不变），" if batch > 1 else ""
        accum_en = (
            f"micro-batch 1 with {num(batch)} gradient-accumulation steps (same effective batch), " if batch > 1 else ""
        )
        w.add(
            "next",
            f"显存主要花在激活值上：{accum_zh}或缩短序列；logits 缓冲可以用分块交叉熵（如 Liger Kernel）压下来。",
            "Activations are what does not fit: "
            + (f"use {accum_en}or a shorter sequence" if accum_en else "use a shorter sequence")
            + "; a chunked cross-entropy (e.g. Liger Kernel) shrinks the logits buffer.",
        )
        seq = est.get("seq_len") or 0
        if isinstance(seq, (int, float)) and seq >= 16384:
            # one sequence too long for one card: split it across cards (DeepSpeed-Ulysses, arXiv:2309.14509;
            # ring attention, arXiv:2310.01889); LLaMA-Factory and XTuner expose it as sequence_parallel_size
            w.add(
                "next",
                f"{num(seq)} token 的单条序列在一张卡上放不下时，用序列并行把它切到多张卡：DeepSpeed-Ulysses 或 ring attention"
                "（LLaMA-Factory、XTuner 的 sequence_parallel_size，如 8 卡设 8），每张卡只存 1/N 长度的激活值。",
                f"When one {num(seq)}-token sequence does not fit one card, split it across cards with sequence "
                "parallelism: DeepSpeed-Ulysses or ring attention (sequence_parallel_size in LLaMA-Factory and XTuner, e.g. "
                "8 on 8 GPUs), so each card holds 1/N of the sequence's activations.",
            )
    elif est.get("fits") is False and est.get("mode") != "inference":
        w.add(
            "next",
            "可以换更大显存的卡，或者加卡用 ZeRO-3/FSDP 切分。",
            "Use a larger-memory card, or add GPUs and shard with ZeRO-3/FSDP.",
        )
    elif est.get("fits") is False:
        w.add(
            "next",
            "可以换更大显存的卡、加卡做并行，或者降低精度（int8/int4 量化）。",
            "Use a larger-memory card, add GPUs, or lower the precision (int8/int4 quantisation).",
        )
    if est.get("model_kind") == "generic":
        w.add(
            "next",
            "告诉我具体模型名（如 Qwen2.5-7B、Llama-3-8B）、序列长度和 batch，能估得更准。",
            "Name the exact model (e.g. Qwen2.5-7B, Llama-3-8B), sequence length and batch for a tighter figure.",
        )
    if est.get("mode") == "inference":
        # a serving engine preallocates: its startup log, not a training-style peak, says what is left for KV
        w.add(
            "next",
            "租到后按实际的最长上下文和并发启动推理服务（如 vLLM 的 --max-model-len、--max-num-seqs），"
            "看启动日志里给 KV cache 留了多少显存、能同时放下多少请求。",
            "Once rented, start the server with your real maximum context and concurrency (vLLM: --max-model-len, "
            "--max-num-seqs) and read the KV-cache memory and maximum concurrency it reports at startup.",
        )
        return
    w.add(
        "next",
        "租到机器后先跑几步，用 torch.cuda.max_memory_allocated() 对照实际峰值。",
        "Once rented, run a few steps and check the real peak with torch.cuda.max_memory_allocated().",
    )


def _co_deployed(w: Writer, ests: list[ToolResult]) -> None:
    """Several models on the same card(s): every one keeps its own full weights resident, so the weights
    add up; what is left of the usable memory is shared by their KV caches (each engine reserves its own)."""
    firsts: dict[str, dict] = {}
    for e in ests:  # one row per model: the sizing at the asked precision (follow-ups re-size at lower ones)
        firsts.setdefault(str(e.result.get("model")), e.result)
    rows = list(firsts.values())
    weights = [float(r.get("weights_gb") or 0.0) for r in rows]
    total = sum(weights)
    usable = float(rows[0].get("usable_gb") or 0.0)
    gpu = str(rows[0].get("gpu") or "")
    n = int(rows[0].get("gpus") or 1)
    per = " + ".join(f"{x:.1f}" for x in weights)
    names = "、".join(_model_label(w, r) for r in rows)
    names_en = ", ".join(_model_label(w, r) for r in rows)
    left = usable * n - total
    where = f"{n} × {gpu}" if n > 1 else gpu
    if not gpu or usable <= 0:  # no card named: the weights add up, there is nothing to hold them against
        w.add(
            "verdict",
            f"{names} 同时部署，权重合计 {per} ≈ {total:.1f} GB，卡上要放得下这些再留出各自的 KV 缓存。",
            f"Serving {names_en} together needs {per} ≈ {total:.1f} GB of weights in total, plus each one's KV cache.",
        )
    elif left > 0:
        w.add(
            "verdict",
            f"放得下：{names} 同时部署，权重合计 {per} ≈ {total:.1f} GB，{where} 可用约 {usable * n:.1f} GB，"
            f"剩余约 {left:.1f} GB 留给各自的 KV 缓存和运行开销。",
            f"Yes: serving {names_en} together needs {per} ≈ {total:.1f} GB of weights in total; {where} has about "
            f"{usable * n:.1f} GB usable, leaving about {left:.1f} GB for their KV caches and runtime overhead.",
        )
    else:
        w.add(
            "verdict",
            f"放不下：{names} 同时部署，权重合计 {per} ≈ {total:.1f} GB，超过 {where} 的可用约 {usable * n:.1f} GB。",
            f"No: serving {names_en} together needs {per} ≈ {total:.1f} GB of weights, more than the about "
            f"{usable * n:.1f} GB usable on {where}.",
        )
    w.add(
        "numbers",
        "每个推理进程都会按自己的比例预留显存：vLLM 的 gpu_memory_utilization、LMDeploy 的 cache_max_entry_count"
        "（空闲显存中留给 KV 缓存的比例），同卡部署多个模型时要把各自的比例调小，使总和不超过整卡。",
        "Each serving process reserves memory by its own fraction: vLLM's gpu_memory_utilization, LMDeploy's "
        "cache_max_entry_count (the share of free memory kept for KV cache); with several models on one card "
        "lower each so their sum stays within the card.",
    )


def _parallel_count_line(w: Writer, ctx: Context) -> None:
    """「tensor_parallelism=2 pipeline_parallelism=8 要几张卡」: the count is arithmetic, so it leads — one model
    replica spans TP × PP GPUs, data parallelism multiplies replicas (Megatron-LM: world size =
    TP × PP × DP, https://github.com/NVIDIA/Megatron-LM)."""
    tp, pp, dp = ctx.slots.tp_size, ctx.slots.pp_size, ctx.slots.dp_size
    if not (tp and pp) and not ((tp or pp) and dp):
        return
    tp, pp = tp or 1, pp or 1
    per_replica = tp * pp
    if dp:
        w.add(
            "verdict",
            f"需要 {per_replica * dp} 张 GPU：张量并行 {tp} × 流水线并行 {pp} = 每个模型副本 {per_replica} 张，"
            f"再 × 数据并行 {dp} = {per_replica * dp} 张。",
            f"You need {per_replica * dp} GPUs: tensor parallel {tp} × pipeline parallel {pp} = {per_replica} GPUs "
            f"per model replica, × data parallel {dp} = {per_replica * dp} GPUs.",
        )
        return
    w.add(
        "verdict",
        f"至少需要 {per_replica} 张 GPU：张量并行 {tp} × 流水线并行 {pp} = {per_replica} 张构成一个模型副本；"
        f"数据并行度为 d 时总数是 {per_replica} × d（总 GPU 数必须是 {per_replica} 的整数倍）。",
        f"You need {per_replica} GPUs: tensor parallel {tp} × pipeline parallel {pp} = {per_replica} GPUs form one "
        f"model replica; with data-parallel degree d the total is {per_replica} × d (the world size must be a "
        f"multiple of {per_replica}).",
    )


def _rollout_lead(w: Writer, ctx: Context, res: dict) -> None:
    """GRPO/PPO with EasyR1/verl named: their vLLM rollout shares the training cards (knowledge/trainers.yaml
    rl_rollouts), so the update-only figure is not the answer — line 1 gives the per-card rollout check and the
    count while the engine's share stays reserved. `res` is a find_min_gpus or an estimate_memory result."""
    from assistant.offline.intents.trainer_modes import colocated_rollout
    from tools.memory_methods import colocated_rollout_need

    row = colocated_rollout(ctx.slots)
    if not row:
        return
    if isinstance(res.get("estimate"), dict):  # find_min_gpus: its count over its capacity-only floor
        est: dict = res["estimate"]
        states, n, floor = res.get("states_gb"), res.get("min_gpus"), res.get("floor_gpus")
        margin = n / floor if isinstance(n, int) and isinstance(floor, int) and floor else None
    else:  # estimate_memory on N cards: the per-GPU total over the per-GPU share of the training state
        est, states = res, res.get("training_state_gb")
        total, cards = res.get("total_gb"), res.get("gpus") or 1
        margin = total * cards / states if isinstance(total, (int, float)) and isinstance(states, float) else None
    params, usable = est.get("params"), res.get("usable_gb")
    if not (
        isinstance(params, (int, float))
        and isinstance(usable, (int, float))
        and isinstance(states, (int, float))
        and isinstance(margin, (int, float))
    ):
        return
    util, tp = float(row["gpu_memory_utilization"]), int(row["tensor_parallel_size"])
    need = colocated_rollout_need(float(params), float(usable), float(states), float(margin), util, tp)
    label = row["label"]
    if need["rollout_fits"]:
        tp_zh = f"每卡 vLLM 权重 {gb(need['weights_per_card_gb'])} GB 放得进它的 {gb(need['reserve_gb'])} GB"
        tp_en = f"vLLM's {gb(need['weights_per_card_gb'])} GB of weights per card fit its {gb(need['reserve_gb'])} GB"
    else:
        tp_zh = (
            f"每卡 vLLM 要放 {gb(need['weights_per_card_gb'])} GB 权重，超过它占的 {gb(need['reserve_gb'])} GB，"
            f"加多少卡都一样，要把 {row['tp_key']} 调到 {need['tp_needed']}"
        )
        tp_en = (
            f"vLLM must hold {gb(need['weights_per_card_gb'])} GB of weights per card, more than its "
            f"{gb(need['reserve_gb'])} GB share — more cards do not change that; set {row['tp_key']} to "
            f"{need['tp_needed']}"
        )
    w.add(
        "verdict",
        f"按 {label} 的默认设置（vLLM 与训练同卡，{row['util_key']}={util:g}、{row['tp_key']}={tp}），"
        f"生成阶段{tp_zh}；这块显存在更新策略时如果不释放（没开 vLLM sleep 模式），每卡只剩 "
        f"{gb(need['update_share_gb'])} GB 给策略 + 参考模型的训练状态，要约 {num(need['gpus_reserved'])} 张"
        f"（按整机 {num(need['rent_gpus_reserved'])} 张）；下面的数字只算了更新阶段。",
        f"With {label}'s defaults (vLLM colocated, {row['util_key']}={util:g}, {row['tp_key']}={tp}): in the "
        f"rollout {tp_en}; if that share stays reserved while the policy updates (no vLLM sleep mode), each card "
        f"has only {gb(need['update_share_gb'])} GB left for the policy and reference states — about "
        f"{num(need['gpus_reserved'])} GPUs ({num(need['rent_gpus_reserved'])} as whole 8-GPU servers); the figures "
        "below cover the update alone.",
    )
    w.add("assumptions", f"出处：{row['source']}", f"Source: {row['source']}")


def _one_server_offload_line(w: Writer, res: dict) -> None:
    """More than one server for training: what one 8-GPU server does with ZeRO-3 CPU offload, and the host RAM it
    needs (a team with one machine asks exactly this)."""
    one = res.get("one_server_offload")
    if not isinstance(one, dict) or not one.get("fits") or not one.get("host_ram_gb"):
        return
    card = str(res.get("gpu") or "").replace("NVIDIA ", "")
    ram = float(one["host_ram_gb"])
    w.add(
        "alternatives",
        f"只有一台 8 卡机的话：ZeRO-3 把参数和优化器状态都卸载到 CPU（offload_param + offload_optimizer），每张 {card} "
        f"只需约 {gb(one.get('per_gpu_gb'))} GB，但这台机器要约 {ram:,.0f} GB 内存（"
        "DeepSpeed 估算公式：18 字节/参数 × 1.5 倍缓冲），而且每步都要在 CPU 和 GPU 之间搬数据，比不卸载慢数倍。",
        f"With only one 8-GPU server: ZeRO-3 offloading both parameters and optimizer states to CPU (offload_param + "
        f"offload_optimizer) needs only about {gb(one.get('per_gpu_gb'))} GB per {card}, but about {ram:,.0f} GB "
        f"of host RAM (DeepSpeed's estimator: 18 bytes/param × a 1.5 buffer), and moving "
        "data between CPU and GPU every step makes it several times slower.",
    )


def _asked_count_line(w: Writer, ctx: Context, res: dict) -> None:
    """「这个35B的要8卡才能跑吗」: a count put as a question is answered first — yes, or fewer will do, or not enough."""
    asked, n = ctx.slots.gpu_count, res.get("min_gpus")
    if not asked or "asked_count" not in ctx.slots.cues:
        return
    if not n:
        w.add("verdict", f"{num(asked)} 张也不够。", f"{num(asked)} GPUs are not enough.")
    elif n < asked:
        est: dict = res["estimate"] if isinstance(res.get("estimate"), dict) else {}
        tp = n > 1 and est.get("mode") == "inference"
        w.add(
            "verdict",
            f"不需要 {num(asked)} 张，{num(n)} 张就放得下" + (f"（张量并行 TP={num(n)}）。" if tp else "。"),
            f"No — {num(n)} will do, not {num(asked)}" + (f" (tensor parallel, TP={num(n)})." if tp else "."),
        )
    elif n == asked:
        w.add("verdict", f"是的，至少要 {num(asked)} 张。", f"Yes, {num(asked)} is the least.")
    else:
        w.add("verdict", f"{num(asked)} 张不够，要 {num(n)} 张。", f"{num(asked)} are not enough; it takes {num(n)}.")


@renderer("find_min_gpus")
def find_min_gpus(w: Writer, r: ToolResult, ctx: Context) -> None:
    if ctx.by_name("estimate_memory") or ctx.by_name("find_max_fit"):
        return  # shown as an alternative by the estimate_memory renderer
    res = r.result
    _parallel_count_line(w, ctx)
    _rollout_lead(w, ctx, res)
    _asked_count_line(w, ctx, res)
    _min_gpus_line(w, res, as_alternative=False)
    rent_notes(w, res, "verdict")
    _one_server_offload_line(w, res)
    inner: dict = res["estimate"] if isinstance(res.get("estimate"), dict) else {}
    if inner:
        whole_zh, whole_en = whole_model_clause(w, inner)
        if whole_zh:
            w.add("verdict", whole_zh + "。", whole_en[0].upper() + whole_en[1:] + ".")
        card_rule_lines(w, inner, ctx)
        method_lines(w, inner)
        host_ram_lines(w, ctx, inner)
    setup_lines(
        w, ctx.said, inner or None
    )  # the named setup's note (a merged LoRA, quantised code), as for an estimate
    if r.args.get("precision") == "fp8" and not ctx.slots.precision and r.args.get("mode") == "inference":
        w.add(
            "assumptions",
            f"{_model_label(w, res.get('estimate') or {})} 官方发布的就是 FP8 权重（「满血版」），所以先按 FP8 算；"
            "换成 bf16 权重，显存和卡数大约翻倍。",
            f"{_model_label(w, res.get('estimate') or {})} is released with FP8 weights (the full model), so FP8 comes "
            "first; bf16 weights roughly double the memory and the GPU count.",
        )
    for ic in ctx.by_name("interconnect_advice"):  # the rented count's links (consumer cards: no P2P/NVLink)
        for rule in ic.result.get("rules") or []:
            if isinstance(rule, dict) and rule.get("status") in ("warn", "fail"):
                w.add("verdict", "互联：" + str(rule.get("zh") or ""), "Interconnect: " + str(rule.get("en") or ""))
    est: dict = res["estimate"] if isinstance(res.get("estimate"), dict) else {}
    if est:
        _breakdown(w, est)
        if est.get("mode") == "full":
            seed_rule_line(w, est)
    if not ctx.slots.gpus and not ctx.slots.vram_gb:
        w.add(
            "assumptions",
            f"你没指定卡型，这里按 {_gpu_label(res) or 'A100 80GB'} 计算；换成别的卡可以直接问「那 H800 呢」。",
            f'No GPU was named, so {_gpu_label(res) or "A100 80GB"} is assumed; ask "what about H800?" for another card.',
        )
    _model_fallback_note(w, ctx, est)
    _tool_assumptions(w, res, limit=3)
    if est.get("mode") == "full":
        w.add(
            "alternatives",
            "改做 LoRA/QLoRA 微调，所需卡数会少得多；可以接着问「那 LoRA 呢」。",
            'LoRA/QLoRA fine-tuning needs far fewer GPUs; ask "what about LoRA?".',
        )
    if (res.get("min_gpus") or 0) > 8:
        if est.get("mode") == "inference":
            w.add(
                "next",
                "超过一台 8 卡机就要跨机部署（张量并行最好留在机内，跨机用流水线并行），机间要 InfiniBand/RoCE 这类高速 RDMA 网络。",
                "More than one 8-GPU server means serving across nodes (keep tensor parallelism inside a node, "
                "pipeline across nodes) over a fast RDMA network (InfiniBand/RoCE).",
            )
        else:
            w.add(
                "next",
                "超过一台 8 卡机就是多机训练，机间要 InfiniBand/RoCE 这类高速 RDMA 网络，租之前问清楚。",
                "More than one 8-GPU server means multi-node training, which needs a fast RDMA network (InfiniBand/RoCE); ask "
                "the provider before renting.",
            )


@renderer("find_max_fit")
def find_max_fit(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    what = res.get("solve_for")
    label = {
        "batch": ("最大微批", "largest micro-batch"),
        "seq_len": ("最长训练序列", "longest training sequence"),
        "context": ("最长上下文", "longest context"),
        "concurrency": ("最大并发序列数", "most concurrent sequences"),
    }
    zh, en = label.get(str(what), (str(what), str(what)))
    card = str(res.get("gpu") or "").replace("NVIDIA ", "").replace("GeForce ", "")
    value = res.get("max_value")
    unit_zh = " tokens" if what in ("seq_len", "context") else ""
    n = r.args.get("gpus") or 1
    bare = _bare_size(card)  # the user gave a memory size ("24GB"), not a GPU name
    where_zh = f"{num(n)} 张 {card}{' 的卡' if bare else ''}" if n > 1 else (f"{card} 的卡" if bare else card)
    where_en = (
        f"{num(n)} × {card}{' cards' if bare else ''}" if n > 1 else (f"a {card} card" if bare else f"the {card}")
    )
    if value:
        w.add(
            "verdict",
            f"{cat_words(where_zh, '上')}{zh}约 {num(value)}{unit_zh}。",
            f"On {where_en}, the {en} is about {num(value)}{unit_zh}.",
        )
        if what == "seq_len" and value < 1024 and not res.get("capped_by_model"):
            # technically fits, but shorter than most fine-tuning samples: say what would make it usable
            w.add(
                "verdict",
                f"只有 {num(value)} tokens，大多数微调数据（常见 2k–8k）都放不下，实际等于跑不了：换 48 GB / 80 GB 的卡，"
                "或者换更小的模型。",
                f"Only {num(value)} tokens — shorter than most fine-tuning samples (typically 2k–8k), so in practice it "
                "does not run: use a larger GPU (48 GB / 80 GB) or a smaller model.",
            )
        if res.get("capped_by_model"):
            w.add(
                "verdict",
                "这是模型本身的上下文上限，不是显存不够。",
                "That is the model's own context limit, not memory.",
            )
            scaled, more = res.get("rope_scaled_context"), res.get("max_with_rope_scaling")
            if scaled and more:
                w.add(
                    "verdict",
                    f"开启 YaRN rope scaling 后模型最长可到 {num(scaled)} tokens；同样设置下显存能放下约 "
                    f"{num(more)} tokens。",
                    f"With YaRN rope scaling the model goes up to {num(scaled)} tokens; with the same settings memory "
                    f"holds about {num(more)} tokens.",
                )
    else:
        serving = (r.args.get("mode") or "") == "inference"
        w.add(
            "verdict",
            f"单张 {card}{' 的卡' if bare else ' '}上连最小的配置都放不下，"
            + ("要多卡或量化。" if serving else "要多卡（ZeRO-3）或改用 LoRA/QLoRA。"),
            f"A single {card}{' card' if bare else ''} cannot hold even the smallest setting; you need "
            + ("more GPUs or quantisation." if serving else "more GPUs (ZeRO-3) or LoRA/QLoRA."),
        )
    for mg in ctx.by_name("find_min_gpus"):
        _min_gpus_line(w, mg.result, as_alternative=True)
        n = mg.result.get("min_gpus")
        if n:
            w.add(
                "next",
                f"想知道 {num(n)} 张时{zh}能到多少，可以接着问「{num(n)} 张呢」。",
                f'To see the {en} on {plural(n, "GPU")}, ask "what about {num(n)} of them?"',
            )
    est: dict = res["estimate"] if isinstance(res.get("estimate"), dict) else {}
    if est:
        method_lines(w, est, section="numbers")
        _breakdown(w, est)
    _tool_assumptions(w, res, limit=3)


# ---------------------------------------------------------------- lookup_model -----------------
@renderer("lookup_model")
def lookup_model(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    arch = res.get("architecture") or {}
    name = res.get("name") or "?"
    pub = res.get("params_published")
    w.add(
        "verdict",
        f"{name}：约 {num(res.get('params_b'))}B 参数"
        + (f"（官方写作 {pub}）" if pub else "")
        + (
            f"，{num(arch.get('num_layers'))} 层，隐藏维度 {num(arch.get('hidden_size'))}，{num(arch.get('num_heads'))} 个注意力头、"
            f"{num(arch.get('num_kv_heads'))} 个 KV 头"
            if arch
            else ""
        )
        + "。",
        f"{name}: about {num(res.get('params_b'))}B parameters"
        + (f" (published as {pub})" if pub else "")
        + (
            f", {num(arch.get('num_layers'))} layers, hidden size {num(arch.get('hidden_size'))}, "
            f"{num(arch.get('num_heads'))} attention heads, {num(arch.get('num_kv_heads'))} KV heads"
            if arch
            else ""
        )
        + ".",
    )
    if res.get("weights_bf16_gb") is not None:
        w.add(
            "numbers",
            f"bf16 权重约 {gb(res['weights_bf16_gb'])} GB",
            f"bf16 weights: about {gb(res['weights_bf16_gb'])} GB",
        )
    if res.get("kv_bytes_per_token_fp16"):
        w.add(
            "numbers",
            f"KV 缓存每 token {num(res['kv_bytes_per_token_fp16'])} 字节（按 fp16 计）",
            f"KV cache: {num(res['kv_bytes_per_token_fp16'])} bytes per token (fp16)",
        )
    if arch.get("max_position_embeddings"):
        w.add(
            "numbers",
            f"最大位置长度 {num(arch['max_position_embeddings'])} tokens",
            f"Max position embeddings: {num(arch['max_position_embeddings'])} tokens",
        )
    if res.get("is_moe"):
        w.add(
            "numbers",
            f"MoE：每个 token 激活约 {num(res.get('active_params'))} 个参数",
            f"MoE: about {num(res.get('active_params'))} parameters active per token",
        )
    if res.get("source"):
        w.add(
            "assumptions",
            f"架构数据来自 {res['source']}（截至 {res.get('as_of', '')}）",
            f"Architecture from {res['source']} (as of {res.get('as_of', '')})",
        )
    w.add(
        "next",
        "想知道它要多少显存，可以问「这个模型全量训练/LoRA/推理要多少显存」。",
        'To size it, ask "how much memory for full fine-tuning / LoRA / inference of this model?"',
    )


# ---------------------------------------------------------------- decode_speed -----------------
@renderer("decode_speed")
def decode_speed(w: Writer, r: ToolResult, ctx: Context) -> None:
    """Band first, then what it rests on: batch 1, memory-bound, η_bw range."""
    res = r.result
    card = str(res.get("gpu") or "").replace("NVIDIA ", "").replace("GeForce ", "")
    lo, mid, hi = res.get("tokens_per_s_low"), res.get("tokens_per_s_mid"), res.get("tokens_per_s_high")
    model = _model_label(w, res)  # 「7B 模型」, never the internal generic-7B
    if res.get("fits") is False:
        # the weights alone exceed the card(s): no speed on this setup, say what it takes instead
        n, cap, whole = res.get("gpus") or 1, res.get("gpu_memory_gb"), res.get("weights_total_gb")
        cards_zh, cards_en = (f"{num(n)} 张 {card}", f"{num(n)}× {card}") if n > 1 else (f"一张 {card}", f"one {card}")
        w.add(
            "verdict",
            f"{model}的权重约 {num(whole)} GB，{cards_zh}（每张 {num(cap)} GB）放不下，这个配置跑不起来，谈不上速度："
            "要么用更多卡做张量并行（每卡只读自己那份权重，单条速度按带宽合计估），要么量化到 int4（AWQ/GPTQ，约 0.5 字节/参数）。",
            f"{model}'s weights are about {num(whole)} GB, which does not fit {cards_en} ({num(cap)} GB each), so there "
            "is no speed to give on this setup: split it over more GPUs with tensor parallel (each reads only its "
            "share of the weights), or quantise to int4 (AWQ/GPTQ, about 0.5 bytes per parameter).",
        )
        return
    n = int(r.args.get("gpus") or 1)
    notes_zh, notes_en = (["张量并行"], ["tensor parallel"]) if n > 1 else ([], [])
    if not ctx.slots.gpus and ctx.slots.vram_gb:  # 「两张24G的卡」: a size, not a card — say which card stands in
        size, short = f"{ctx.slots.vram_gb:g}", card.replace(f" {ctx.slots.vram_gb:g}GB", "")
        notes_zh.append(f"你只说了 {size}G 显存，这里按 {short} 估，换卡后大致按显存带宽成比例变化")
        notes_en.append(f"you gave only {size} GB, so the {short} stands in; other cards scale roughly with bandwidth")
    card_zh = (f"{n} 张 {card}" if n > 1 else card) + (f"（{'；'.join(notes_zh)}）" if notes_zh else "")
    card_en = (f"{n}× {card}" if n > 1 else f"the {card}") + (f" ({'; '.join(notes_en)})" if notes_en else "")
    per_min = "per_minute" in ctx.said and isinstance(lo, (int, float)) and isinstance(hi, (int, float))
    lo_min = round(lo * 60, -1) if isinstance(lo, (int, float)) else 0.0
    hi_min = round(hi * 60, -1) if isinstance(hi, (int, float)) else 0.0
    min_zh = f"，约每分钟 {num(lo_min)}–{num(hi_min)} token" if per_min else ""
    min_en = f", about {num(lo_min)}–{num(hi_min)} tokens a minute" if per_min else ""
    bw = res.get("mem_bw_gbs")
    w.add(
        "verdict",
        f"{model} 在 {card_zh} 上单条序列（batch 1）解码约 **{num(lo)}–{num(hi)} tokens/s**（中值 {num(mid)}）{min_zh}，"
        f"即每个 token {num(res.get('ms_per_token_low'))}–{num(res.get('ms_per_token_high'))} ms"
        + (f"；上限由显存带宽 {num(bw)} GB/s 决定。" if per_min and bw else "。"),
        f"{model} on {card_en} decodes about **{num(lo)}–{num(hi)} tokens/s** for a single sequence (batch 1; "
        f"mid {num(mid)}){min_en}, i.e. {num(res.get('ms_per_token_low'))}–{num(res.get('ms_per_token_high'))} ms "
        "per token" + (f"; the memory bandwidth ({num(bw)} GB/s) sets the ceiling." if per_min and bw else "."),
    )
    comm = res.get("tp_comm_ms") or 0
    comm_zh, comm_en = (
        (f"，再加每 token {num(comm)} ms 的 PCIe all-reduce", f", plus {num(comm)} ms of PCIe all-reduce per token")
        if comm
        else ("", "")
    )
    w.add(
        "numbers",
        f"每个 token 读取 {num(res.get('bytes_per_step_gb'))} GB（权重 {num(res.get('weights_read_gb'))} GB + "
        f"KV 缓存 {num(res.get('kv_read_gb'))} GB，上下文 {num(res.get('context'))} token）；显存带宽 "
        f"{num(res.get('mem_bw_gbs'))} GB/s × η {num(res.get('eta_low'))}–{num(res.get('eta_high'))} ÷ "
        f"{num(res.get('bytes_per_step_gb'))} GB{comm_zh} → {num(lo)}–{num(hi)} tokens/s",
        f"Each token reads {num(res.get('bytes_per_step_gb'))} GB (weights {num(res.get('weights_read_gb'))} GB + "
        f"KV cache {num(res.get('kv_read_gb'))} GB at a {num(res.get('context'))}-token context); bandwidth "
        f"{num(res.get('mem_bw_gbs'))} GB/s × η {num(res.get('eta_low'))}–{num(res.get('eta_high'))} ÷ "
        f"{num(res.get('bytes_per_step_gb'))} GB{comm_en} → {num(lo)}–{num(hi)} tokens/s",
    )
    if res.get("tokens_per_s_ceiling"):
        w.add(
            "numbers",
            f"硬上限（带宽全部用满、不算通信）：{num(res.get('mem_bw_gbs'))} ÷ {num(res.get('bytes_per_step_gb'))} = "
            f"{num(res.get('tokens_per_s_ceiling'))} tokens/s；实测明显低于这个区间，多半是框架、kernel 或批处理设置的问题，不是卡",
            f"Hard ceiling (all bandwidth used, no communication): {num(res.get('mem_bw_gbs'))} ÷ "
            f"{num(res.get('bytes_per_step_gb'))} = {num(res.get('tokens_per_s_ceiling'))} tokens/s; a measured figure "
            "far below the band points at the framework, kernels or batching, not the card",
        )
    for a in (res.get("assumptions") or [])[:5]:
        if isinstance(a, dict):
            w.add("assumptions", a.get("zh", ""), a.get("en", ""))
    w.add(
        "next",
        "int8/int4 量化（AWQ/GPTQ）读的字节更少，单条速度近似按比例提高；多条并发的总吞吐问「并发 N 路怎么配」。",
        "int8/int4 quantisation (AWQ/GPTQ) reads fewer bytes, so single-stream speed rises roughly in proportion; "
        "for total throughput with N concurrent users ask how to serve N concurrent requests.",
    )


# ---------------------------------------------------------------- what the job adds beyond the GPU total -------
_METHOD_NAME = {"dpo": "DPO", "kto": "KTO", "orpo": "ORPO", "simpo": "SimPO", "ppo": "PPO", "grpo": "GRPO"}


def method_lines(w: Writer, est: dict, section: str = "verdict") -> None:
    """DPO/GRPO/PPO…: why the method needs more than SFT on the same card, with the tool's figures."""
    method = str(est.get("method") or "sft")
    if method == "sft":
        return
    name = _METHOD_NAME.get(method, method.upper())
    zh: list[str] = []
    en: list[str] = []
    acts, ref, whole = est.get("activations_gb"), est.get("reference_model_gb") or 0, est.get("whole_model_weights_gb")
    if (est.get("sequences_per_example") or 1) > 1:
        zh.append(
            f"每条样本是一对偏好数据（chosen + rejected），两条序列一起前向，同样 batch 下激活值（含 logits）翻倍，每卡约 {gb(acts)} GB"
        )
        en.append(
            f"each example is a preference pair (chosen + rejected) run together, so at the same batch the activations "
            f"(incl. logits) double: about {gb(acts)} GB per GPU"
        )
    if ref:
        zh.append(
            f"还要加载一个冻结的参考模型（reference / ref_model，只前向、无梯度和优化器），每卡约 {gb(ref)} GB"
            + (f"（整个模型 {gb(whole)} GB 的一份）" if isinstance(whole, (int, float)) else "")
        )
        en.append(
            f"a frozen reference model (ref_model: forward only, no gradients or optimizer states) adds about "
            f"{gb(ref)} GB per GPU"
            + (f" (a copy of the whole {gb(whole)} GB model)" if isinstance(whole, (int, float)) else "")
        )
    elif method in ("dpo", "kto", "ppo", "grpo") and est.get("mode") in ("lora", "qlora"):
        zh.append("LoRA 时参考模型就是关掉适配器的同一个底座，不另占显存")
        en.append("with LoRA the reference model is the same base with adapters disabled, no extra memory")
    if est.get("reward_model_gb"):
        zh.append(f"冻结的奖励模型每卡约 {gb(est['reward_model_gb'])} GB")
        en.append(f"a frozen reward model about {gb(est['reward_model_gb'])} GB per GPU")
    if est.get("value_model_gb"):
        zh.append(f"要训练的价值模型（critic）再加一套模型状态，每卡约 {gb(est['value_model_gb'])} GB")
        en.append(
            f"the value model (critic) is trained too: another {gb(est['value_model_gb'])} GB of model states per GPU"
        )
    if est.get("rollout_kv_gb"):
        zh.append(f"生成回答（rollout，常用 vLLM）的 KV 缓存约 {gb(est['rollout_kv_gb'])} GB")
        en.append(f"generating the rollouts (often with vLLM) needs about {gb(est['rollout_kv_gb'])} GB of KV cache")
    if not zh:
        return
    w.add(
        section,
        f"{name} 比同配置的 SFT 更占显存：" + "；".join(zh) + "。",
        f"{name} needs more than SFT with the same settings: " + "; ".join(en) + ".",
    )
    fixes_zh, fixes_en = [], []
    if ref and method in ("dpo", "kto"):
        fixes_zh.append("precompute_ref_log_probs=True（先算好参考对数概率，训练时不加载参考模型）")
        fixes_en.append(
            "precompute_ref_log_probs=True (reference log-probs computed up front, no reference model loaded)"
        )
    if ref:
        fixes_zh.append("改用 LoRA（参考模型 = 关掉适配器的底座）")
        fixes_en.append("LoRA (the reference is the base with adapters disabled)")
        if (est.get("zero_stage") or 0) < 3:
            fixes_zh.append("多卡用 ZeRO-3（参考模型也会被切分）")
            fixes_en.append("ZeRO-3 across GPUs (the reference is sharded too)")
    if method == "grpo":
        fixes_zh.append("num_generations 和 max_completion_length 调小，beta=0 不加载参考模型")
        fixes_en.append("a smaller num_generations / max_completion_length; beta=0 loads no reference model")
    if (est.get("sequences_per_example") or 1) > 1:
        fixes_zh.append("每卡微批减半、梯度累积加倍")
        fixes_en.append("halve the micro-batch and double gradient accumulation")
    if fixes_zh:
        w.add(section, "省显存的办法：" + "；".join(fixes_zh) + "。", "To save memory: " + "; ".join(fixes_en) + ".")


_DRY_RUN = re.compile(r"跑通|测试|试一下|流程|dry[\s-]*run|smoke|\btest", re.I)


def _cpu_training_ram(w: Writer, est: dict, dry_run: bool) -> None:
    """Training on the CPU: the job's memory is host RAM, in fp32 (CPU matmuls in fp16 are slow or missing). A dry
    run of the pipeline is a yes; real training is possible but not advisable (the guide's FLOPs gap)."""
    weights, total, params = est.get("weights_gb"), est.get("total_gb"), est.get("params")
    if not isinstance(weights, (int, float)) or not isinstance(total, (int, float)):
        return
    label = _model_label(w, est)
    full = params * 16 / 1e9 if isinstance(params, (int, float)) else None  # fp32 weights 4 + grads 4 + Adam 8
    w.add(
        "verdict",
        ("可以在 CPU 上跑通流程，只是慢" if dry_run else "能在 CPU 上跑，但慢几十到上百倍，真训练不建议")
        + "（CPU 算力约为 GPU 的百分之一，见下方指南）。要改的：设备改成 CPU（TrainingArguments 的 "
        'use_cpu=True，旧版 --no_cuda；或 device_map="cpu"），不用 bitsandbytes 的 int4/int8 量化；'
        f"按 fp32（float32）加载：CPU 对 fp16/半精度矩阵运算支持差，去掉 .half()/.cuda()，用 torch_dtype=torch.float32；"
        f"{label} 的 fp32 权重约 {gb(weights)} GB 内存，{mode_label(w, str(est.get('mode')))}合计约 {gb(total)} GB"
        + (f"，全量微调（fp32 权重 + 梯度 + Adam 两个状态，16 B/参数）约 {gb(full)} GB" if full else "")
        + "。只为跑通流程，用一个小模型（几亿参数）和几条数据更快，确认无误再上 GPU。",
        (
            "Yes, the pipeline runs on the CPU, only slowly"
            if dry_run
            else "It runs on the CPU, but tens to hundreds of times slower, so real training there is not advisable"
        )
        + " (a CPU has about a hundredth of a GPU's compute; see the guide "
        'below). What to change: the device (TrainingArguments use_cpu=True, formerly --no_cuda, or device_map="cpu"), '
        "no bitsandbytes int4/int8 quantisation, and "
        f"fp32 (float32) loading: CPU kernels handle fp16/half matmuls poorly, so drop .half()/.cuda() and "
        f"use torch_dtype=torch.float32; {label}'s fp32 weights take about {gb(weights)} GB of RAM, "
        f"{mode_label(w, str(est.get('mode')))} about {gb(total)} GB in all"
        + (
            f", full fine-tuning (fp32 weights + grads + two Adam states, 16 B/param) about {gb(full)} GB"
            if full
            else ""
        )
        + ". To test the pipeline only, a small model (a few hundred million parameters) and a few samples is faster; "
        "move to a GPU once it works.",
    )


# 「是显存不足还是内存不足」, "is it VRAM or RAM": the two memories asked as alternatives
_VRAM_OR_RAM = re.compile(
    r"显存.{0,6}还是.{0,6}内存|内存.{0,6}还是.{0,6}显存|\b(?:v?ram|gpu memory)\b.{0,12}\bor\b.{0,12}\b(?:v?ram|system memory|host memory)\b",
    re.I,
)


def _which_is_short(w: Writer, ctx: Context, est: dict, ram_needed: float | None) -> str | None:
    """「显存不足还是内存不足」: say which of the two is short (both, one, neither) before the figures."""
    have = ctx.slots.host_ram_gb
    fits = est.get("fits")
    if ram_needed is None or not isinstance(have, (int, float)) or not isinstance(fits, bool):
        return None
    if not _VRAM_OR_RAM.search(ctx.slots.text or ""):
        return None
    ram_short = ram_needed > have
    if not fits and ram_short:
        return w.t("显存和内存都不够：", "Both are short, GPU memory and host RAM: ")
    if not fits:
        return w.t("是显存不够，内存够：", "It is GPU memory that is short; host RAM is enough: ")
    if ram_short:
        return w.t("是内存（主机 RAM）不够，显存够：", "It is host RAM that is short; GPU memory is enough: ")
    return w.t("按估算显存和内存都够：", "By the estimate both GPU memory and host RAM are enough: ")


_VRAM_WORD = re.compile(r"显存|vram|gpu\s*(?:memory|内存)|显卡内存", re.I)


def _ram_is_the_question(ctx: Context) -> bool:
    """Host RAM asked about a training job, with no word of GPU memory in the question (intents/ops.host_ram_asked)."""
    from assistant.offline.intents.ops import host_ram_asked

    return host_ram_asked(ctx.slots) and not ctx.slots.gpus and not _VRAM_WORD.search(ctx.slots.text or "")


def host_ram_lines(w: Writer, ctx: Context, est: dict, section: str = "verdict") -> None:
    """内存 / RAM asked (not 显存): the host RAM per machine, what it is made of, against what the user has."""
    ram = est.get("host_ram")
    if not isinstance(ram, dict) or not isinstance(ram.get("total_gb"), (int, float)):
        return
    if "host_ram_word" not in ctx.said and not ctx.slots.host_ram_gb:
        return
    total = ram["total_gb"]
    zh = f"主机内存（RAM，不是显存）：每台机器约需 {gb(total)} GB。"
    en = f"Host RAM (system memory, not GPU VRAM): about {gb(total)} GB per machine."
    notes = [n for n in ram.get("notes") or [] if isinstance(n, dict)]
    if notes:
        zh += str(notes[0].get("zh") or "").rstrip("。") + "。"
        en += " " + str(notes[0].get("en") or "").rstrip(".") + "."
    have = ctx.slots.host_ram_gb
    unsharded = ram.get("unsharded_load_gb") or 0
    if isinstance(have, (int, float)) and have > 0:
        worst = max(total, unsharded)
        if worst > have and est.get("mode") == "inference":
            zh += (
                f"你的 {gb(have)} GB 内存比权重文件小：用 GPU 推理时 safetensors 按需映射（mmap），通常仍能加载，只是更慢；"
                "纯 CPU / GGUF 推理放不下，要加内存或开 swap。"
            )
            en += (
                f" Your {gb(have)} GB of RAM is smaller than the weight files: GPU inference maps safetensors on demand "
                "(mmap) and usually still loads, only slower; CPU / GGUF inference will not fit — add RAM or swap."
            )
        elif worst > have:
            zh += f"你的 {gb(have)} GB 内存不够（按最坏情况 {gb(worst)} GB）：加内存或开 swap，或者让加载时就切分（ZeRO-3 zero.Init、low_cpu_mem_usage、LoRA 只载一份模型）。"
            en += (
                f" Your {gb(have)} GB of RAM is not enough (worst case {gb(worst)} GB): add RAM or swap, or shard "
                "while loading (ZeRO-3 zero.Init, low_cpu_mem_usage, LoRA loads one model)."
            )
        elif (fp32 := ram.get("unsharded_load_fp32_gb") or 0) > have:
            zh += (
                f"按 bf16 加载最多约 {gb(worst)} GB，你的 {gb(have)} GB 够；但 from_pretrained 没写 torch_dtype 时 transformers 4.x "
                f"按 fp32 加载，每个进程各一份就是 {gb(fp32)} GB，超过 {gb(have)} GB，会被系统 OOM 杀进程：加上 "
                "torch_dtype=torch.bfloat16，或用 ZeRO-3 zero.Init / low_cpu_mem_usage。"
            )
            en += (
                f" Loaded in bf16 it peaks at about {gb(worst)} GB, within your {gb(have)} GB; but without torch_dtype "
                f"transformers 4.x loads fp32, a copy per process: {gb(fp32)} GB, over {gb(have)} GB, and the kernel's OOM "
                "killer stops it: pass torch_dtype=torch.bfloat16, or use ZeRO-3 zero.Init / low_cpu_mem_usage."
            )
        else:
            zh += f"你的 {gb(have)} GB 内存够用。"
            en += f" Your {gb(have)} GB of RAM is enough."
    w.add(section, zh, en)
    which = _which_is_short(w, ctx, est, max(total, unsharded) if isinstance(have, (int, float)) else None)
    verdict = w.parts["verdict"]
    if which and section == "verdict" and len(verdict) > w.part_start:
        # the either-or answer replaces the yes/no word the fit sentence opens with
        verdict[w.part_start] = which + re.sub(r"^(?:不能|能|No|Yes)\s*[：:，,.。—-]\s*", "", verdict[w.part_start])
    elif section == "verdict" and _ram_is_the_question(ctx):  # 「需要多少内存」 and no word of 显存: RAM leads
        w.lead_with(zh, en)
    for n in notes[1:3]:
        w.add("assumptions", str(n.get("zh") or ""), str(n.get("en") or ""))
    ram_verdict = _gguf_ram_verdict(w, est, have)
    if ram_verdict and section == "verdict":
        w.parts["verdict"].insert(w.part_start, ram_verdict)


def _gguf_ram_verdict(w: Writer, est: dict, have: object) -> str | None:
    """No card named, a GGUF run (ollama / llama.cpp) and the RAM stated: the RAM is the memory that decides, so
    line 1 is the yes/no against it, with the largest model that the same quantisation would fit."""
    weights, params = est.get("whole_model_weights_gb"), est.get("params")
    if (
        est.get("gpu")
        or est.get("mode") != "inference"
        or not str(est.get("whole_model_precision") or "").startswith("GGUF")
    ):
        return None
    if not isinstance(have, (int, float)) or have <= 0 or not isinstance(weights, (int, float)) or not params:
        return None
    need = weights + (est.get("kv_cache_gb") or 0)
    if need <= 0.85 * have:  # the OS and other programs keep some of the RAM
        return w.t(
            f"能：{gb(have)} GB 内存放得下约 {gb(need)} GB（{est['whole_model_precision']} 权重 + KV 缓存），纯 CPU 推理，速度受内存带宽限制。",
            f"Yes: {gb(have)} GB of RAM holds the about {gb(need)} GB ({est['whole_model_precision']} weights + KV cache); "
            "it runs on the CPU, at a speed set by memory bandwidth.",
        )
    per_b = weights / (float(params) / 1e9)  # GB per billion parameters at this quantisation
    fit_b = max(0.0, (0.85 * have - (est.get("kv_cache_gb") or 0)) / per_b)
    return w.t(
        f"不能：{est['whole_model_precision']} 权重就要约 {gb(weights)} GB，超过你的 {gb(have)} GB 内存（还要留给系统和 KV 缓存）。"
        f"办法：换小模型（同样量化下约 {fit_b:.0f}B 以内放得下）、把内存加到 {gb(need / 0.85)} GB 以上，或租一张大显存的 GPU / 云主机。",
        f"No: the {est['whole_model_precision']} weights alone are about {gb(weights)} GB, more than your {gb(have)} GB of "
        "RAM (which also holds the OS and the KV cache). Options: a smaller model (up to about "
        f"{fit_b:.0f}B fits at the same quantisation), more RAM (at least {gb(need / 0.85)} GB), or renting a GPU / "
        "cloud instance with enough memory.",
    )


def card_rule_lines(w: Writer, est: dict, ctx: Context | None = None) -> None:
    """Rules of the card and the engine that decide before memory does: FP8 support, tensor-parallel sizes — and,
    when the question is about multi-GPU serving of int4 weights, the group rule that limits their TP sizes."""
    keys = ["tp_note", "fp8_note", "bf16_note"]
    text = (ctx.slots.text or "") if ctx is not None else ""
    if ctx is not None and not est.get("tp_note") and "multi_gpu_word" in ctx.said:
        keys.insert(0, "quant_tp_note")
    for key in keys:
        note = est.get(key)
        if isinstance(note, dict) and note.get("zh"):
            zh, en = str(note["zh"]).rstrip("。") + "。", str(note.get("en") or "").rstrip(".") + "."
            if key == "quant_tp_note" and not _MEMORY_ASKED.search(text):
                w.lead_with(zh, en)  # 「14B 的不支持多卡并行，有什么区别」: the rule is the answer, the figures follow
            else:
                w.add("verdict", zh, en)


_MEMORY_ASKED = re.compile(r"显存|内存|多少\s*g|够不够|放得下|放不下|memory|vram|\bfit\b|how much", re.I)


# ---------------------------------------------------------------- "I get OOM with setup S": what to change in S ----
def oom_fits_lead(w: Writer, est: dict, results: list[ToolResult]) -> tuple[str, str]:
    """The estimate says S should fit, yet the user gets OOM: name the settings in S that decide it — gradient
    checkpointing and the sequence length when activations are a large share (with the no-checkpointing figure when
    it was estimated), a reference model for DPO, the full weights each process loads for LoRA before sharding."""
    total, cap = est.get("total_gb"), est.get("gpu_memory_gb")
    zh = f"按估算每卡约需 {gb(total)} GB，这张卡（{gb(cap)} GB）本应放得下；报 OOM 多半是设置的问题："
    en = f"By the estimate this needs about {gb(total)} GB per GPU and should fit the {gb(cap)} GB card, so the OOM usually comes from a setting: "
    parts_zh: list[str] = []
    parts_en: list[str] = []
    acts, seq, batch = est.get("activations_gb") or 0, est.get("seq_len"), est.get("batch") or 1
    training = est.get("mode") != "inference"
    no_ckpt = next(
        (
            r.result
            for r in results
            if r.name == "estimate_memory" and not r.error and r.args.get("checkpointing") == "none"
        ),
        None,
    )
    if training and (acts >= 0.25 * (total or 1) or no_ckpt):
        if est.get("checkpointing") == "full":
            tail_zh = tail_en = ""
            if no_ckpt and isinstance(no_ckpt.get("activations_gb"), (int, float)):
                tail_zh = (
                    f"，不开时激活值约 {gb(no_ckpt['activations_gb'])} GB、每卡合计约 {gb(no_ckpt.get('total_gb'))} GB"
                )
                tail_en = (
                    f"; without it activations are about {gb(no_ckpt['activations_gb'])} GB, "
                    f"{gb(no_ckpt.get('total_gb'))} GB per GPU in all"
                )
            parts_zh.append(
                "这个估算按开了梯度检查点（gradient_checkpointing=True）算" + tail_zh + "：先确认它真的开着"
                "（每层只存输入、反向时重算一次前向，多花约 20–33% 的时间）"
            )
            parts_en.append(
                "this estimate assumes gradient checkpointing (gradient_checkpointing=True)" + tail_en + ": check it "
                "is really on (only layer inputs are kept and the forward is recomputed in backward, ~20–33% more time)"
            )
        else:
            parts_zh.append(
                f"激活值约 {gb(acts)} GB：打开梯度检查点（gradient_checkpointing=True，每层只存输入，多花约 20–33% 的时间）"
            )
            parts_en.append(
                f"activations are about {gb(acts)} GB: turn on gradient checkpointing (gradient_checkpointing=True: "
                "layer inputs only, ~20–33% more time)"
            )
        if seq:
            parts_zh.append(
                f"序列长度（cutoff_len / max_length）{num(seq)}、每卡 batch {num(batch)} 决定激活值，长度减半激活值约减半"
            )
            parts_en.append(
                f"the sequence length (cutoff_len / max_length) {num(seq)} and micro-batch {num(batch)} set the "
                "activations; halving the length roughly halves them"
            )
    if training and (est.get("reference_model_gb") or 0) > 0:
        parts_zh.append(
            f"{_METHOD_NAME.get(str(est.get('method')), '')} 的参考模型每卡还占 {gb(est['reference_model_gb'])} GB"
        )
        parts_en.append(f"the reference model takes another {gb(est['reference_model_gb'])} GB per GPU")
    if not parts_zh:
        parts_zh.append("先调小最长上下文（max-model-len / cutoff_len）、并发或 batch")
        parts_en.append("lower the maximum context (max-model-len / cutoff_len), the concurrency or the batch")
    return (
        zh + "；".join(parts_zh) + "；再看有没有别的进程占着显存（nvidia-smi）。",
        en + "; ".join(parts_en) + "; and check for other processes holding memory (nvidia-smi).",
    )


def oom_load_lead(w: Writer, est: dict) -> tuple[str, str] | None:
    """OOM while loading (from_pretrained / get_peft_model), before training starts: each process puts the WHOLE
    base on its GPU first — sharding (ZeRO-3) or adapters only act later."""
    whole = est.get("whole_model_weights_gb")
    if not isinstance(whole, (int, float)) or est.get("mode") == "inference":
        return None
    cap = est.get("gpu_memory_gb")
    fits_zh = "放不下" if isinstance(cap, (int, float)) and whole > cap * 0.95 else "装完就所剩无几"
    fits_en = "does not fit" if isinstance(cap, (int, float)) and whole > cap * 0.95 else "leaves little room"
    return (
        f"在加载模型 / get_peft_model 这一步就 OOM，说明还没开始训练：每个进程（每张卡）先各自加载一份完整底座 {gb(whole)} GB，"
        f"{gb(cap)} GB 的卡{fits_zh}；ZeRO-3 要在 from_pretrained 之前启用 zero.Init 才会边加载边切分，"
        "或者改用 QLoRA（4-bit 底座）、device_map 按层分到多卡。",
        f"An OOM at model loading / get_peft_model means training has not started: each process (each GPU) first "
        f"loads a full copy of the base, {gb(whole)} GB, which on a {gb(cap)} GB card {fits_en}; ZeRO-3 only shards "
        "while loading when zero.Init is active before from_pretrained — or use QLoRA (4-bit base) or a device_map "
        "layer split.",
    )


def runtime_default_lines(w: Writer, ctx: Context, r: ToolResult) -> None:
    """Defaults the user did not choose but gets: ollama's 4-bit pull, transformers' fp32 load without torch_dtype."""
    est = r.result
    if r.args.get("int4_format") == "q4_k_m" and not ctx.slots.precision:
        whole = est.get("whole_model_weights_gb")
        w.add(
            "verdict",
            f"ollama 默认拉取的是 4-bit 量化（Q4_K_M，约 4.84 bit/权重），不是 bf16：整个模型约 {gb(whole)} GB"
            "（要 bf16 / 8-bit 得显式选 fp16 / q8_0 标签）。",
            f"ollama pulls a 4-bit quantisation by default (Q4_K_M, about 4.84 bits per weight), not bf16: the whole "
            f"model is about {gb(whole)} GB (bf16 / 8-bit need an explicit fp16 / q8_0 tag).",
        )
    if r.args.get("mode") == "qlora" and "Unsloth" in ctx.slots.engines and ctx.slots.mode in (None, "inference"):
        w.add(
            "verdict",
            "Unsloth 的示例 notebook 默认 load_in_4bit=True，底座按 4-bit（QLoRA）加载，这里也按 QLoRA 算。",
            "Unsloth's notebooks load the base with load_in_4bit=True (QLoRA) by default, so this is sized as QLoRA.",
        )
    if r.args.get("load_fp32") and "from_pretrained_call" not in ctx.slots.mentions:
        whole = est.get("whole_model_weights_gb")
        half = f"（bf16 约 {gb(whole / 2)} GB）" if isinstance(whole, (int, float)) else ""
        half_en = f" (bf16: about {gb(whole / 2)} GB)" if isinstance(whole, (int, float)) else ""
        w.add(
            "verdict",
            f"这里按 transformers 的默认精度算：from_pretrained 不写 torch_dtype 时 transformers 4.x 按 fp32 加载"
            f"（4 B/参数），权重约 {gb(whole)} GB，是 bf16 的两倍{half}；"
            '单卡放不下时 device_map="auto" 会把一部分层放到 CPU，速度会慢很多。加上 torch_dtype=torch.bfloat16 或 "auto"。',
            f"Sized at transformers' default: without torch_dtype, transformers 4.x from_pretrained loads fp32 "
            f"(4 B/param), about {gb(whole)} GB of weights, twice bf16{half_en}; when one card cannot hold it, "
            'device_map="auto" puts some layers on the CPU, which is much slower. Pass torch_dtype=torch.bfloat16 or "auto".',
        )
    elif r.args.get("load_fp32"):
        ram = est.get("host_ram") if isinstance(est.get("host_ram"), dict) else {}
        per = ram.get("per_process_model_gb") if isinstance(ram, dict) else None
        w.add(
            "verdict",
            "你的代码里 from_pretrained 没写 torch_dtype：transformers 4.x 默认按 fp32 加载（4 B/参数），显存和内存都是 bf16 的两倍"
            + (f"（加载时一份就是 {gb(per)} GB）" if isinstance(per, (int, float)) and per else "")
            + '；加上 torch_dtype=torch.bfloat16 或 "auto"。',
            "Your from_pretrained call sets no torch_dtype: transformers 4.x then loads fp32 (4 B/param), twice bf16 in "
            "both GPU memory and RAM"
            + (f" ({gb(per)} GB per copy while loading)" if isinstance(per, (int, float)) and per else "")
            + '; pass torch_dtype=torch.bfloat16 or "auto".',
        )


def engine_lines(w: Writer, ctx: Context, est: dict) -> None:
    """The user named vLLM / SGLang: how that engine takes its memory (pre-allocated at start-up, KV pool)."""
    note = est.get("engine_note")
    named = {"vllm": "vLLM", "sglang": "SGLang"}.get(str(est.get("engine") or ""))
    if not isinstance(note, dict) or not named or named not in ctx.slots.engines:
        return
    w.add("numbers", str(note.get("zh") or "").rstrip("。") + "。", str(note.get("en") or "").rstrip(".") + ".")


# ---- several cards: how one model is split for serving, the ZeRO stage of a training job ----------------


def split_pair(ests: list[ToolResult]) -> tuple[ToolResult | None, ToolResult | None]:
    """(tensor-parallel estimate, layer-split estimate) of one serving job on N cards, when both were sized."""
    serving = [e for e in ests if e.result.get("mode") == "inference" and (e.result.get("gpus") or 1) > 1]
    layer = next((e for e in serving if e.result.get("engine") == "hf"), None)
    tp = next((e for e in serving if e.result.get("engine") != "hf"), None)
    if layer is None or tp is None or layer.result.get("precision") != tp.result.get("precision"):
        return None, None
    return tp, layer


def next_stage_est(ests: list[ToolResult], primary: ToolResult) -> ToolResult | None:
    """The ZeRO-3 estimate sized beside a ZeRO-0/1/2 (or DDP) training job on N cards."""
    base = primary.result
    if base.get("mode") == "inference" or (base.get("gpus") or 1) <= 1 or (base.get("zero_stage") or 0) >= 3:
        return None
    return next(
        (
            e
            for e in ests
            if e is not primary and e.result.get("zero_stage") == 3 and e.result.get("mode") == base.get("mode")
        ),
        None,
    )


def _sharding_said(ctx: Context) -> bool:
    from assistant.offline.intents.args import names_sharding

    return names_sharding(ctx.slots)


def multi_card_lead(
    w: Writer,
    ctx: Context,
    est: dict,
    tp_est: ToolResult | None,
    layer_est: ToolResult | None,
    next_stage: ToolResult | None,
) -> tuple[str, str] | None:
    """Line 1 for N cards when the user named no way to split: 「能，但要切分」 and how, when a split fits."""
    n = est.get("gpus") or 1
    if n <= 1:
        return None
    if tp_est is not None and layer_est is not None and est.get("fits"):
        whole, usable = est.get("whole_model_weights_gb") or 0, est.get("usable_gb") or 0
        one = whole > usable  # the weights alone exceed one card: the split is what makes it fit
        return (
            f"能，但要把模型切到 {n} 张卡上{'（一张卡放不下）' if one else ''}：",
            f"Yes, but only split over the {n} GPUs{' (one card cannot hold it)' if one else ''}: ",
        )
    if est.get("mode") == "inference" or est.get("state_exceeds_all_gpus") or _sharding_said(ctx):
        return None
    from assistant.offline.intents.args import expects_fit, reports_oom

    if reports_oom(ctx.slots) and not expects_fit(ctx.slots):
        return (
            None  # 「3 张 V100 还是 OOM，到底要多少」: the run as configured does not fit; line 1 says what to change
        )
    zero3 = next((c for c in est.get("changes") or [] if c.get("kind") == "zero_stage"), None)
    if zero3 is None and next_stage is not None and next_stage.result.get("fits"):
        zero3 = {"total_gb": next_stage.result.get("total_gb")}
    usable = est.get("usable_gb") or 0
    if est.get("fits") is False and zero3 is not None and _fills_card(zero3.get("total_gb"), usable):
        # 11.8 GB sharded on an 11.8 GB card: an estimate good to ±10–20% leaves no room, so it is not a yes
        return (
            f"照现在的数据并行放不下；用 ZeRO-3/FSDP 切到 {n} 张卡上每卡约 {gb(zero3.get('total_gb'))} GB，几乎占满"
            f"每卡 {gb(usable)} GB，没有余量，实际很可能仍会 OOM。照默认的数据并行：",
            f"Not as it runs (data parallel); sharded over the {n} GPUs with ZeRO-3/FSDP it needs about "
            f"{gb(zero3.get('total_gb'))} GB per GPU, nearly all of the {gb(usable)} GB, with no margin, so it will "
            "likely still OOM. With the default data parallel: ",
        )
    if est.get("fits") is False and zero3 is not None:
        return (
            f"能，但要用 ZeRO-3/FSDP 把模型切到 {n} 张卡上（每卡约 {gb(zero3.get('total_gb'))} GB）；照默认的数据并行：",
            f"Yes, but only sharded over the {n} GPUs with ZeRO-3/FSDP (about {gb(zero3.get('total_gb'))} GB per "
            "GPU); with the default data parallel: ",
        )
    return None


def multi_card_lines(
    w: Writer,
    ctx: Context,
    est: dict,
    tp_est: ToolResult | None,
    layer_est: ToolResult | None,
    next_stage: ToolResult | None,
) -> None:
    """The split flags for serving on N cards; for training the whole state against all cards, the ZeRO paper's
    per-GPU formula for the stage used, and the next stage's figure when the stated one OOMs or is tight."""
    n = est.get("gpus") or 1
    if n <= 1:
        return
    if est.get("mode") == "inference":
        _split_how_line(w, ctx, est, tp_est, layer_est)
        return
    state, all_gpus = est.get("training_state_gb"), est.get("all_gpus_usable_gb")
    if est.get("state_exceeds_all_gpus") and isinstance(state, (int, float)) and isinstance(all_gpus, (int, float)):
        per = all_gpus / n if n else 0
        need = -(-state // per) if per else None
        w.add(
            "verdict",
            f"整个训练状态（权重 + 梯度 + 优化器状态）约 {gb(state)} GB，比 {n} 张卡加起来能用的 {gb(all_gpus)} GB 还大："
            f"怎么切分都放不下。只靠加卡至少要 {num(need)} 张这样的卡（再加激活值），或者改 LoRA/QLoRA、把优化器卸载到 CPU。",
            f"The whole training state (weights + gradients + optimizer states) is about {gb(state)} GB, more than "
            f"the {gb(all_gpus)} GB all {n} cards offer together: no sharding fits it. More cards alone means at "
            f"least {num(need)} of them (plus activations); otherwise LoRA/QLoRA or CPU optimizer offload.",
        )
    elif isinstance(state, (int, float)) and isinstance(all_gpus, (int, float)):
        w.add(
            "numbers",
            f"整个训练状态（权重 + 梯度 + 优化器状态）约 {gb(state)} GB，{n} 张卡合计可用 {gb(all_gpus)} GB",
            f"Whole training state (weights + gradients + optimizer states): about {gb(state)} GB; all {n} cards "
            f"offer {gb(all_gpus)} GB",
        )
    formula = est.get("zero_formula")
    if isinstance(formula, dict) and isinstance(formula.get("label"), dict):
        section = "verdict" if _sharding_said(ctx) else "numbers"
        w.add(section, formula["label"]["zh"] + "。", formula["label"]["en"] + ".")
    if next_stage is not None:
        nxt = next_stage.result
        stage = est.get("zero_stage") or 0
        name = f"ZeRO-{stage}" if stage else w.t("数据并行", "data parallel")
        room = nxt.get("headroom_gb")
        ckpt = nxt.get("checkpointing") == "full"  # the estimate already assumes recomputation
        more_zh = (
            "这已按开着梯度检查点（gradient_checkpointing / recompute）算，再要省就"
            if ckpt
            else "再开梯度检查点（gradient_checkpointing / recompute）、"
        )
        more_en = (
            "this already assumes gradient checkpointing (recompute) is on; beyond it, "
            if ckpt
            else "add gradient checkpointing (recompute), "
        )
        tail_zh = (
            f"放得下，余量约 {gb(room)} GB"
            if nxt.get("fits")
            else f"还差约 {gb(-(room or 0))} GB；{more_zh}把优化器卸载到 CPU（offload_optimizer）或改 LoRA"
        )
        tail_en = (
            f"fits, {gb(room)} GB to spare"
            if nxt.get("fits")
            else f"still {gb(-(room or 0))} GB short; {more_en}CPU optimizer offload (offload_optimizer) or LoRA"
        )
        w.add(
            "verdict",
            f"要省显存，先把 {name} 换成 ZeRO-3（权重也切分，DeepSpeed zero_optimization.stage=3 或 FSDP FULL_SHARD）："
            f"每卡约 {gb(nxt.get('total_gb'))} GB，{tail_zh}。",
            f"To save memory, move from {name} to ZeRO-3 (weights sharded too: DeepSpeed zero_optimization.stage=3 or "
            f"FSDP FULL_SHARD): about {gb(nxt.get('total_gb'))} GB per GPU, {tail_en}.",
        )


def _split_how_line(
    w: Writer, ctx: Context, est: dict, tp_est: ToolResult | None, layer_est: ToolResult | None
) -> None:
    """How to put one model on N cards, by the flags of the runtimes named (or the usual ones), with each
    way's per-card figure when both were sized."""
    from tools.memory_parallel import split_how

    n = est.get("gpus") or 1
    engines = list(ctx.slots.engines)
    if re.search(r"(?<![a-z])transformers|device_map|accelerate", ctx.slots.text or "", re.I):
        engines.append("transformers")
    if re.search(r"--num[-_]gpus", ctx.slots.text or "", re.I) and "FastChat" not in engines:
        engines.append("FastChat")
    zh_l, en_l = split_how("layers", n, engines, "zh"), split_how("layers", n, engines, "en")
    zh_t, en_t = split_how("tp", n, engines, "zh"), split_how("tp", n, engines, "en")

    def fig(e: ToolResult | None) -> tuple[str, str]:
        if e is None:
            return "", ""
        r = e.result
        ok = r.get("fits")
        return (
            f"（每卡约 {gb(r.get('total_gb'))} GB，{'放得下' if ok else '放不下' if ok is False else ''}）",
            f" (about {gb(r.get('total_gb'))} GB per GPU{', fits' if ok else ', does not fit' if ok is False else ''})",
        )

    if tp_est is not None and layer_est is not None:
        fl, ft = fig(layer_est), fig(tp_est)
        w.add(
            "verdict",
            f"怎么切：按层切分{fl[0]}——{zh_l}，每张卡放一部分层，同一时刻只有一张卡在算；张量并行{ft[0]}——{zh_t}，"
            "每层都切到各卡上，卡间通信多，vLLM 还默认只用 90% 显存并留出 CUDA 图的空间。",
            f"How to split: whole layers per card{fl[1]} — {en_l}; each card holds some layers and they work in "
            f"turn. Tensor parallel{ft[1]} — {en_t}; every layer is split across the cards (more traffic), and vLLM "
            "plans within 90% of memory and reserves room for CUDA graphs.",
        )
        return
    if est.get("engine") == "hf":
        w.add(
            "verdict",
            f"按层切分：{zh_l}——每张卡放约 1/{n} 的层（和这些层的 KV 缓存），按顺序轮流计算，显存能合用，速度不会翻倍。",
            f"Layer split: {en_l} — each card holds about 1/{n} of the layers (and their KV cache) and they run in "
            "turn: the memory adds up, the speed does not.",
        )
    else:
        w.add(
            "verdict",
            f"张量并行：{zh_t}——每层的权重和 KV 头平分到 {n} 张卡；不想受注意力头整除的限制可以按层切分（{zh_l}）。",
            f"Tensor parallel: {en_t} — each layer's weights and KV heads split over the {n} GPUs; to avoid the "
            f"head-divisibility rule split whole layers instead ({en_l}).",
        )
        s = ctx.slots
        owned = s.gpu_count if s.tp_size and s.gpu_count and s.gpu_count > n else None
        replica_line(w, {**est, "gpus": owned} if owned else est)  # 「8*A100，TP=4」: replicas over all eight


def smallest_tp(est: dict) -> int | None:
    """The fewest GPUs (a power of two dividing the count) whose memory holds the weights with at least 20% of
    the usable memory left for the KV cache — the tensor-parallel size one replica needs."""
    n, whole, usable = est.get("gpus") or 1, est.get("whole_model_weights_gb"), est.get("usable_gb")
    if not isinstance(whole, (int, float)) or not isinstance(usable, (int, float)) or usable <= 0:
        return None
    k = 1
    while k < n:
        if n % k == 0 and whole / k <= 0.8 * usable:
            return k
        k *= 2
    return n


def replica_line(w: Writer, est: dict) -> None:
    """Inference on more GPUs than one copy needs: replicas (data parallel) of the smallest TP scale throughput
    about linearly, while a larger TP adds an all-reduce per layer (so TP8 gives less than twice TP4)."""
    n, k = est.get("gpus") or 1, smallest_tp(est)
    if est.get("mode") != "inference" or k is None or k >= n:
        return
    reps = n // k
    tp_zh = "单卡就放得下（不用张量并行）" if k == 1 else f"{k} 卡张量并行（TP={k}）就放得下"
    tp_en = "fits one GPU (no tensor parallel needed)" if k == 1 else f"fits {k} GPUs with tensor parallel (TP={k})"
    w.add(
        "verdict",
        f"求吞吐：一份模型{tp_zh}，{n} 张卡更划算的是 {reps} 个副本（数据并行，DP={reps}，前面用路由/负载均衡分请求），"
        f"吞吐接近线性增长；把 TP 开到 {n} 每层多一次跨卡 all-reduce（通信开销，没有 NVLink 时更明显），"
        "所以 TP 翻倍吞吐达不到 2 倍是正常的。副本太小会挤掉 KV 缓存，长上下文、高并发时可以少几个副本。",
        f"For throughput: one copy {tp_en}, so on {n} GPUs run {reps} replicas (data parallel, DP={reps}, behind a "
        f"router / load balancer), which scales throughput almost linearly; raising TP to {n} adds an all-reduce "
        "per layer (communication overhead, worse without NVLink), so doubling TP giving less than 2× is normal. "
        "Replicas that are too small squeeze the KV cache; with long contexts and high concurrency use fewer.",
    )


def moe_line(w: Writer, est: dict) -> None:
    """A MoE model: every expert is resident (memory follows the total parameters), each token computes only the
    active ones (speed follows those) — the point users miss when a model "only has 2.8B parameters"."""
    note = next(
        (a for a in est.get("assumptions") or [] if isinstance(a, dict) and str(a.get("en", "")).startswith("MoE:")),
        None,
    )
    if note:
        w.add(
            "verdict",
            note["zh"] + "；显存按总参数算，速度按激活参数算。",
            note["en"] + "; memory follows the total, speed the active.",
        )
