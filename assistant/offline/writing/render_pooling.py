"""The answers of intents/pooling.py, led by the user's own question:

- memory_pooling: line 1 says whether memory adds up (data parallel: no, a full copy per card; split: yes, with the
  per-card share from estimate_memory); then what splits it and what it still leaves on every card;
- engine_reservation: line 1 says "this is preallocation" with the figure computed from the user's card and setting
  (engine_reservation tool), then the model's own need (estimate_memory) and how to reserve less.

Numbers come from the tool results or the question; the data-parallel rule is PyTorch's DDP note
(https://pytorch.org/docs/stable/notes/ddp.html), the sharding rule ZeRO (arXiv:1910.02054).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.offline.intents import pooling as P
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer

if TYPE_CHECKING:
    from tools.memory_engines import PreallocationProfile


def _g(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") if abs(x - round(x)) > 0.05 else f"{round(x):d}"


def render(w: Writer, intent: str, f: Frame, results: list[ToolResult]) -> None:
    ok = [r for r in results if not r.error and r.name != "search_guide"]
    if intent == P.RESERVE:
        _reservation(w, f, ok)
    else:
        _pooling(w, f, ok)
    from assistant.offline.writing.render_tools import guide_snippets

    guide_snippets(w, results, limit=1)


# ---------------------------------------------------------------- memory pooling -------------------


def _card(f: Frame, results: list[ToolResult]) -> tuple[str, float | None]:
    if f.gpu_mentions and f.gpu_mentions[0].memory_gb:  # the size the user gave (a modded 22 GB 2080 Ti) wins
        return f.gpu_mentions[0].name, f.gpu_mentions[0].memory_gb
    spec = next((r.result for r in results if r.name == "gpu_specs"), None)
    if spec:
        g = (spec.get("gpus") or [{}])[0]
        return str(g.get("name") or (f.gpus[0] if f.gpus else "")), g.get("memory_gb")
    if f.gpu_mentions and f.gpu_mentions[0].memory_gb:
        return f.gpu_mentions[0].name, f.gpu_mentions[0].memory_gb
    if f.gpus:
        return f.gpus[0], P._card_gb(f.gpus[0])
    if f.vram_gb:
        return f"{_g(f.vram_gb)} GB", f.vram_gb
    return "", None


def _pooling(w: Writer, f: Frame, results: list[ToolResult]) -> None:
    n = P.cards(f)
    ests = [r.result for r in results if r.name == "estimate_memory"]
    name, gb = _card(f, results)
    if len(ests) == 2:
        _pooling_sized(w, f, n, ests[0], ests[1])
    else:
        per = f" {n} × {_g(gb)} GB" if gb else f" {n} 张卡"
        per_en = f" {n} × {_g(gb)} GB" if gb else f" {n} cards"
        total = f"（不等于一张 {_g(n * gb)} GB 的卡）" if gb else ""
        total_en = f" (not one {_g(n * gb)} GB card)" if gb else ""
        req = f.required_gb if f.required_gb and gb and abs(f.required_gb - gb) > 0.5 else None
        if req and gb:
            ok = gb >= req
            w.add(
                "verdict",
                f"按每张卡算：{_g(req)} GB 是一张卡要放下的量，{name} 每张 {_g(gb)} GB，"
                + ("够。" if ok else f"比 {_g(req)} GB 少，不够；{n} 张合计 {_g(n * gb)} GB 也不能当一张卡用。"),
                f"Counted per card: {_g(req)} GB is what each GPU must hold; {name} has {_g(gb)} GB per card, "
                + (
                    "enough."
                    if ok
                    else f"less than {_g(req)} GB, so no — {n} cards with {_g(n * gb)} GB in all do not act as one."
                ),
            )
        w.add(
            "verdict",
            f"不会自动叠加：数据并行（PyTorch DDP，torchrun / accelerate / HF Trainer 的默认做法）每张卡都放一份完整的模型，"
            f"再各算自己那份 batch，所以{per}{total}每张卡能用的仍只有自己的显存；单卡放不下的，加卡后每张卡照样放不下。",
            f"No — memory does not pool: under data parallel (PyTorch DDP, the default of torchrun, accelerate and the "
            f"HF Trainer) each GPU holds a full copy of the model and runs its own share of the batch, so{per_en}"
            f"{total_en} still gives each copy only one card's memory; what overflows one card overflows each card.",
        )
    if len(ests) == 1:
        e = ests[0]
        w.add(
            "next",
            f"{_label(w, e.get('model'))} 本身推理每张卡约需 {_g(float(e.get('total_gb') or 0))} GB（权重约 {_g(float(e.get('weights_gb') or 0))} GB），"
            "每张卡都要放下这一整份。",
            f"{_label(w, e.get('model'))} itself needs about {_g(float(e.get('total_gb') or 0))} GB per card for inference "
            f"({_g(float(e.get('weights_gb') or 0))} GB of weights), and every card must hold that whole copy.",
        )
    w.add(
        "next",
        "加卡再把 batch 加到 N 倍时，每张卡分到的 batch 不变，每卡显存和单卡时一样；要省显存得减每卡 batch（配合梯度累积保持总 batch）。",
        "Adding cards and raising the batch N-fold keeps each card's batch the same, so each GPU needs what one "
        "card needed; to save memory lower the per-GPU batch (gradient accumulation keeps the total batch).",
    )
    w.add(
        "next",
        "想让几张卡一起装下一个模型，要把模型切开：ZeRO-3 / FSDP 把参数、梯度、优化器状态分到各卡（每卡约 1/N，激活值仍在每张卡上）；"
        '推理用张量并行（vLLM --tensor-parallel-size）或 device_map="auto" 按层把不同的层放到不同的卡（流水线式，一次只有一张卡在算）；'
        "代码不支持切分时，只能换更大显存的卡（16 GB / 24 GB 以上）或用 CPU 卸载（offload，慢）。",
        "To make several cards hold one model, split the model: ZeRO-3 / FSDP shard parameters, gradients and "
        "optimizer states across the GPUs (about 1/N each, activations still on every card); for inference, tensor "
        'parallel (vLLM --tensor-parallel-size) or device_map="auto" / pipeline parallel put different layers on '
        "different GPUs (one card computes at a time). Where the code cannot split the model, a card with more "
        "memory or CPU offload (slow) is the way.",
    )
    if "nvlink" in f.mentions:
        w.add(
            "next",
            "NVLink 只加快卡间通信，不会把两张卡的显存合成一块；程序看到的仍是两张独立的卡。",
            "NVLink only speeds up traffic between the cards; it does not merge their memory — programs still see "
            "two separate GPUs.",
        )
    w.add(
        "assumptions",
        "出处：PyTorch DDP 说明（每个进程一份完整模型，pytorch.org/docs/stable/notes/ddp.html）；ZeRO 论文 arXiv:1910.02054（分片）；"
        "Accelerate 大模型推理文档（device_map 按层放到多卡）。",
        "Sources: PyTorch DDP notes (a full replica per process, pytorch.org/docs/stable/notes/ddp.html); ZeRO, "
        "arXiv:1910.02054 (sharding); Accelerate big-model inference docs (device_map places layers on several GPUs).",
    )


def _fits_zh(e: dict) -> str:
    if e.get("headroom_gb") is None or not e.get("gpu_memory_gb"):
        return ""
    return "，放得下" if e.get("fits") else f"，超过每卡 {_g(e['gpu_memory_gb'])} GB"


def _fits_en(e: dict) -> str:
    if e.get("headroom_gb") is None or not e.get("gpu_memory_gb"):
        return ""
    return ", fits" if e.get("fits") else f", above the {_g(e['gpu_memory_gb'])} GB per card"


def _label(w: Writer, raw: object) -> str:
    """A model's name for the reader: a size-only sizing (`generic-70B`) reads as 「70B 模型」 / "a 70B model"."""
    name = str(raw or "")
    if name.startswith("generic-"):
        size = name.replace("generic-", "")
        return w.t(f"{size} 模型", f"a {size} model")
    return name


def _pooling_sized(w: Writer, f: Frame, n: int, copy: dict, split: dict) -> None:
    model = _label(w, copy.get("model") or f.model)
    inference = copy.get("mode") == "inference"
    c, s = float(copy.get("total_gb") or 0), float(split.get("total_gb") or 0)
    if inference:
        w.add(
            "verdict",
            (
                "能分摊，但要把模型切开："
                if split.get("fits") is not False
                else "放不下：显存能分摊（要把模型切开），但切开也不够——"
            )
            + f"每张卡各放一份完整的 {model}（数据并行 / 多副本）时每卡约需 {_g(c)} GB{_fits_zh(copy)}；"
            f'用张量并行（vLLM --tensor-parallel-size {n}）或 device_map="auto" 按层切到 {n} 张卡上，每卡约 {_g(s)} GB{_fits_zh(split)}'
            "——切开之后看的才是多张卡加起来的总显存。",
            (
                "Only if the model is split: "
                if split.get("fits") is not False
                else "No: memory pools only when the model is split, and even split it does not fit — "
            )
            + f"with a full copy of {model} on each GPU (data parallel / replicas) each "
            f"card needs about {_g(c)} GB{_fits_en(copy)}; split over {n} cards with tensor parallel (vLLM "
            f'--tensor-parallel-size {n}) or device_map="auto", about {_g(s)} GB per card{_fits_en(split)}'
            " — only then does the cards' total memory count.",
        )
    else:
        w.add(
            "verdict",
            f"不会叠加：数据并行（DDP，torchrun / accelerate / Trainer 的默认）每张卡都放一份完整的 {model} 训练状态，"
            f"{n} 张卡时每卡仍要约 {_g(c)} GB{_fits_zh(copy)}；只有切分才分摊：ZeRO-3 / FSDP 分到 {n} 张卡上每卡约 {_g(s)} GB{_fits_zh(split)}。",
            f"No — memory does not pool under data parallel (DDP, the default of torchrun, accelerate and the "
            f"Trainer): each GPU holds a full copy of {model}'s training state, about {_g(c)} GB per card on "
            f"{n} cards{_fits_en(copy)}; only sharding splits it: ZeRO-3 / FSDP over {n} cards, about {_g(s)} GB "
            f"per card{_fits_en(split)}.",
        )
    if split.get("fits") is False and inference:
        w.add(
            "next",
            "切开也放不下时，先量化：4-bit（GPTQ / AWQ / GGUF Q4）把权重降到 bf16 的约 1/4，或换小一号的模型（如 7B）。",
            "If it does not fit even split, quantise first: 4-bit (GPTQ / AWQ / GGUF Q4) cuts the weights to about a "
            "quarter of bf16, or take a smaller model (e.g. 7B).",
        )
    w.add(
        "numbers",
        f"每卡一份：{_g(c)} GB/卡（权重 {_g(float(copy.get('weights_gb') or 0))} GB）；切分后：{_g(s)} GB/卡（权重 {_g(float(split.get('weights_gb') or 0))} GB）。",
        f"A copy per card: {_g(c)} GB per GPU (weights {_g(float(copy.get('weights_gb') or 0))} GB); split: "
        f"{_g(s)} GB per GPU (weights {_g(float(split.get('weights_gb') or 0))} GB).",
    )


# ---------------------------------------------------------------- engine reservation ---------------


def _reservation(w: Writer, f: Frame, results: list[ToolResult]) -> None:
    from tools.memory_engines import preallocation_profile

    res = next((r.result for r in results if r.name == "engine_reservation"), None)
    est = next((r.result for r in results if r.name == "estimate_memory"), None)
    engine = P.engine_of(f) or (res or {}).get("engine") or ""
    prof = preallocation_profile(engine)
    _stated_split(w, f)
    if res and res.get("reserved_per_gpu_gb") is None:
        w.add(
            "verdict",
            f"这是 {res['engine']} 启动时的预分配，不是模型本身要这么多：每张卡占用 = {res['formula']['zh']}。",
            f"This is {res['engine']}'s start-up preallocation, not what the model needs: per card it holds "
            f"{res['formula']['en']}.",
        )
    elif res:
        formula = res["formula"]
        mib = res.get("reserved_per_gpu_mib")
        smi_zh = f"（nvidia-smi 里约 {mib:,} MiB）" if mib else ""
        smi_en = f" (about {mib:,} MiB in nvidia-smi)" if mib else ""
        each_zh = f"，{res['gpus']} 张卡每张都这样" if res.get("gpus", 1) > 1 else ""
        each_en = f", on each of the {res['gpus']} cards" if res.get("gpus", 1) > 1 else ""
        w.add(
            "verdict",
            f"这是 {res['engine']} 启动时的预分配，不是模型本身要这么多：{formula['zh']}{smi_zh}{each_zh}。",
            f"This is {res['engine']}'s start-up preallocation, not what the model needs: {formula['en']}{smi_en}{each_en}.",
        )
    else:
        basis_zh = "整张卡显存" if prof.basis == "total" else "加载权重后剩下的空闲显存"
        basis_en = "the card's total memory" if prof.basis == "total" else "the memory free after loading the weights"
        w.add(
            "verdict",
            f"这是 {prof.engine} 启动时的预分配，不是模型本身要这么多：它按 {prof.setting}（默认 {prof.default:g}）× {basis_zh} 先占住显存做 KV cache。",
            f"This is {prof.engine}'s start-up preallocation, not what the model needs: it reserves {prof.setting} "
            f"(default {prof.default:g}) × {basis_en} up front for the KV cache.",
        )
    share = f.gpu_memory_utilization
    if share and not res and 0 < share < 1:
        # 「限制只占用 50% 的显存」: the user's share as the setting, a fraction (0.5), not a percentage
        w.add(
            "verdict",
            f"要只占 {share * 100:g}%：把 {prof.setting} 设成 {share:g}（这是 0–1 的比例，不是百分数）；"
            "这部分要装下权重、激活峰值和 KV cache，装不下时启动会报 KV cache 不够，再调小 max-model-len。",
            f"To take only {share * 100:g}%: set {prof.setting} to {share:g} (a fraction from 0 to 1, not a percentage); "
            "that share must hold the weights, the activation peak and the KV cache, and if start-up reports no room "
            "for the KV cache, lower max-model-len.",
        )
    if est:
        model = _label(w, est.get("model") or f.model)
        quant = str(est.get("precision") or "") not in ("bf16", "fp16", "fp32", "")
        total, weights = _g(float(est.get("total_gb") or 0)), _g(float(est.get("weights_gb") or 0))
        whole = est.get("whole_model_weights_gb")
        if whole and (est.get("gpus") or 1) > 1:
            w.add(
                "next",
                f"整个模型的权重约 {_g(float(whole))} GB，分到 {est.get('gpus')} 张卡上每张约 {weights} GB。",
                f"The whole model's weights are about {_g(float(whole))} GB, about {weights} GB on each of "
                f"{est.get('gpus')} cards.",
            )
        w.add(
            "next",
            f"{model} 本身（{est.get('precision')}）推理每卡约需 {total} GB，权重约 {weights} GB；多出来的是 KV cache 池"
            + ("，量化只让权重变小，池子会把省下的显存补满。" if quant else "。"),
            f"{model} itself ({est.get('precision')}) needs about {total} GB per GPU for inference, {weights} GB of "
            "it weights; the rest is the KV-cache pool"
            + (" — quantising shrinks the weights and the pool fills what they free." if quant else "."),
        )
        if f.context and (est.get("gpus") or 1) == 1:
            from assistant.offline.writing.model_facts import kv_line

            kv_line(w, est, f.context, "next")  # 「token长度设置的8192」: what one such sequence holds in the pool
    if res and res.get("left_for_activations_gb") is not None and res["left_for_activations_gb"] < 2:
        w.add(
            "next",
            f"{res['setting']}={res['fraction']:g} 只给激活和临时缓冲留 {res['left_for_activations_gb']:.2f} GB，"
            "输入一大（多张图、长上下文）就会崩；调回 0.8 左右。",
            f"{res['setting']}={res['fraction']:g} leaves only {res['left_for_activations_gb']:.2f} GB for activations "
            "and temporary buffers, so a larger input (several images, a long context) crashes; go back to about 0.8.",
        )
    _not_memory(w, f, prof)
    lower = (res or {}).get("lower") or {
        "zh": f"调小 {prof.setting} 就少占；" + prof.absolute["zh"],
        "en": f"lower {prof.setting} to reserve less; " + prof.absolute["en"],
    }
    w.add("next", lower["zh"], lower["en"])
    if prof.floor and "lowered_fails" in f.mentions:  # 「调到低于18G就报显存不足」: the floor is the question
        w.add("verdict", prof.floor["zh"], prof.floor["en"])
    if prof.order and ("two_instances" in f.mentions or len(f.co_models) > 1):
        w.add("next", prof.order["zh"], prof.order["en"])
    if prof.basis == "free_after_weights" and "two_instances" in f.mentions:
        w.add(
            "next",
            f"同一张卡上的第二个实例按它启动那一刻剩下的空闲显存算 {prof.setting}，所以两个比例加起来可以超过 1"
            f"（例如先起的拿走空闲的 60%，后起的再拿剩下部分的 50%）；先起的占得越多，后起的越小，启动顺序决定各自的 KV cache。",
            f"A second instance on the same card applies {prof.setting} to what is free when it starts, so the two "
            f"fractions can add up to more than 1 (the first takes 60% of the free memory, the second 50% of what is "
            f"left); the start order decides each one's KV cache.",
        )
    if prof.default_note:
        w.add("assumptions", prof.default_note["zh"], prof.default_note["en"])
    w.add("assumptions", f"出处：{prof.source}（{prof.as_of}）", f"Source: {prof.source} ({prof.as_of})")


def _not_memory(w: Writer, f: Frame, prof: PreallocationProfile) -> None:
    """The user blames a request limit for the memory (「max-concurrent-requests 没生效」): say it is not a memory knob."""
    nm = prof.not_memory or {}
    said = next((s for s in nm.get("spellings") or [] if s.lower() in (f.text or "").lower()), None)
    if said:
        w.add("next", str(nm["zh"]).format(flag=said), str(nm["en"]).format(flag=said))


def _stated_split(w: Writer, f: Frame) -> None:
    """ "The model requires 70 GB, two A40": a total served with tensor parallel is split over the cards."""
    n = f.tp_size or f.gpu_count or 1
    name, gb = _card(f, [])
    if not f.required_gb or n < 2 or not gb or P.has_size(f):
        return
    share = f.required_gb / n
    ok = share <= gb
    w.add(
        "verdict",
        ("权重放得下：" if ok else "放不下：")
        + f"张量并行把 {_g(f.required_gb)} GB 分到 {n} 张卡上，{_g(f.required_gb)} GB ÷ {n} = {share:.1f} GB/卡，"
        + f"{name} 每张 {_g(gb)} GB"
        + (f"，各剩约 {gb - share:.1f} GB。" if ok else f"，每张差约 {share - gb:.1f} GB。"),
        ("The weights fit: " if ok else "Does not fit: ")
        + f"tensor parallel splits {_g(f.required_gb)} GB over {n} cards, {_g(f.required_gb)} GB ÷ {n} = "
        + f"{share:.1f} GB per card; {name}: {_g(gb)} GB each"
        + (f", about {gb - share:.1f} GB left on each." if ok else f", about {share - gb:.1f} GB short on each."),
    )
