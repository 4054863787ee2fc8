"""The answer to a stated requirement checked card by card (intents/requirement.py): the verdict per card from the
figures the conversation gave, why cards do not add up, and what lowers memory per card.

Every number here is one the user (or the person they quote) gave, or a card's memory from knowledge/gpus.yaml;
the sums are written out so they can be checked.
"""

from __future__ import annotations

import re

from assistant.offline.reading.frame import Frame
from assistant.offline.writing.render import Writer


def _g(x: float) -> str:
    return f"{x:g}"


# 「一张显存超过40G的…可以吗」 "a single card with more than 40GB": a card the user is thinking of, not one they have
_HYPOTHETICAL_RE = re.compile(
    r"(?:一张|单张|单卡|一块|one|a single)[^，,。？?]{0,12}?(?:超过|大于|不小于|以上|至少|>|≥|over|more than|at least)\s*"
    r"(?P<n>\d+(?:\.\d+)?)\s*(?:gb|g)",
    re.I,
)


def _zh_card(label: str, gb: float) -> str:
    return f"{_g(gb)} GB 的卡" if label == f"{_g(gb)} GB" else f"{label} 每张 {_g(gb)} GB"


def _en_card(label: str, gb: float) -> str:
    return f"a {_g(gb)} GB card" if label == f"{_g(gb)} GB" else f"{label}: {_g(gb)} GB per card"


# serving engines that split one model's weights across the cards (tensor parallel / layers), unlike training's DDP:
# their names are read from knowledge/engines.yaml into `Frame.engines`; the words below name the split itself
_SPLIT_ENGINES = frozenset({"vLLM", "SGLang", "LMDeploy", "TGI"})
_SPLIT_RE = re.compile(r"tensor[-_ ]parallel|--tp\b|tp\s*=|device_map|张量并行|按层切分", re.I)


def _split_serving(f: Frame, training: bool, mine: list[tuple[str, float, int]]) -> tuple[str, float, int] | None:
    """The user's cards when the figure is a model's total served across several of them: inference with an engine
    that splits the weights (vLLM --tensor-parallel-size, device_map), so each card holds its share."""
    splits = bool(_SPLIT_ENGINES & set(f.engines)) or bool(_SPLIT_RE.search(f.text or ""))
    if training or not mine or not splits:
        return None
    label, gb, n = mine[0]
    return (label, gb, n) if n > 1 else None


def _split_statement(w: Writer, need: float, card: tuple[str, float, int]) -> None:
    label, gb, n = card
    share = need / n
    ok = share <= gb
    left = gb - share
    w.add(
        "verdict",
        ("能放下权重：" if ok else "放不下：")
        + f"推理时 vLLM/SGLang 的张量并行（--tensor-parallel-size {n}）或按层切分会把模型分到 {n} 张卡上，"
        f"{_g(need)} GB ÷ {n} = {share:.1f} GB/卡，{_zh_card(label, gb)}"
        + (f"，每张剩约 {left:.1f} GB 给 KV cache 和运行开销。" if ok else f"，每张差约 {-left:.1f} GB。"),
        ("The weights fit: " if ok else "Does not fit: ")
        + f"for inference, vLLM/SGLang tensor parallel (--tensor-parallel-size {n}) or a layer split puts the model "
        f"on {n} cards, {_g(need)} GB ÷ {n} = {share:.1f} GB per card; {_en_card(label, gb)}"
        + (
            f", leaving about {left:.1f} GB each for the KV cache and runtime overhead."
            if ok
            else f", about {-left:.1f} GB short on each."
        ),
    )
    w.add(
        "next",
        "vLLM 启动时按 --gpu-memory-utilization（默认 0.9）把每张卡的这部分显存先占住，剩下的都给 KV cache，所以"
        "两张卡都显示快占满是正常的；要少占就调小它或 --max-model-len。",
        "vLLM reserves --gpu-memory-utilization (0.9 by default) of every card at start-up and gives what the "
        "weights leave to the KV cache, so both cards looking nearly full is expected; lower it or --max-model-len "
        "to reserve less.",
    )
    w.add(
        "assumptions",
        f"{_g(need)} GB 按整个模型的权重理解（不是每张卡的要求）；张量并行还要求卡数能整除注意力头数。",
        f"The {_g(need)} GB is read as the whole model's weights (not a per-card figure); tensor parallel also needs "
        "the card count to divide the attention heads.",
    )


def requirement_statement(w: Writer, f: Frame) -> None:
    from assistant.offline.intents.requirement import cards

    need = f.required_gb or 0.0
    mine = cards(f)
    training = f.training or f.finetune or f.mode in ("full", "lora", "qlora", "pretrain")
    short = [c for c in mine if c[1] < need]
    hypo = _HYPOTHETICAL_RE.search(f.text or "")
    split = _split_serving(f, training, mine)
    if split:
        _split_statement(w, need, split)
        return
    if hypo and float(hypo.group("n")) >= need:
        job = ("训练", "train") if training else ("跑", "run")
        w.add(
            "verdict",
            f"能，按这个要求：是每张卡都要不小于 {_g(need)} GB；一张显存不小于 {_g(need)} GB 的卡就能{job[0]}，"
            "不需要多卡（加卡也不会降低每张卡要的显存）。",
            f"Yes, by that figure: every card needs at least {_g(need)} GB; one card with at least {_g(need)} GB is "
            f"enough to {job[1]} it, no extra cards needed (more cards do not lower what each card needs).",
        )
        mine, short = [], []
    elif mine:
        per = "；".join(
            f"{_zh_card(label, gb)}，{'小于' if gb < need else '不小于'} {_g(need)} GB，"
            f"{'放不下' if gb < need else '按这个数放得下'}"
            for label, gb, _ in mine
        )
        per_en = "; ".join(
            f"{_en_card(label, gb)}, {'less than' if gb < need else 'at least'} {_g(need)} GB, "
            f"{'does not fit' if gb < need else 'fits by that figure'}"
            for label, gb, _ in mine
        )
        lead_zh = "不够" if short and len(short) == len(mine) else ("部分够" if short else "够")
        lead_en = "No" if short and len(short) == len(mine) else ("Partly" if short else "Yes")
        w.add(
            "verdict",
            f"{lead_zh}：按每张卡算，{_g(need)} GB 是单卡显存的要求（跑起来每张卡都要放下自己那一份），{per}。",
            f"{lead_en}: counted per card, {_g(need)} GB is what one card must hold; {per_en}.",
        )
    elif not hypo:
        w.add(
            "verdict",
            f"按每张卡算：每张卡至少要约 {_g(need)} GB 显存，显存小于 {_g(need)} GB 的卡跑不了。",
            f"Counted per card: each card needs about {_g(need)} GB; a card with less than {_g(need)} GB cannot run it.",
        )
    pooled = [(label, gb, n) for label, gb, n in mine if n > 1]
    if pooled:
        label, gb, n = pooled[0]
        total = f.stated_total_gb or gb * n
        w.add(
            "next",
            f"{n} 张卡合计 {_g(total)} GB 不能当一张 {_g(total)} GB 的卡用：多卡数据并行（DDP，训练脚本的默认做法）"
            "每张卡都放一整份模型（训练时还有梯度和优化器状态），显存不会相加；NVLink 只加快卡间通信，也不会把显存合并。",
            f"{n} cards with {_g(total)} GB in all do not act as one {_g(total)} GB card: data parallelism (DDP, what "
            "training scripts do by default) keeps a full copy of the model (and, when training, its gradients and "
            "optimizer states) on each GPU, so memory does not pool; NVLink speeds up communication, it does not "
            "merge memory either.",
        )
    if training:
        w.add(
            "next",
            f"最省事：一张显存不小于 {_g(need)} GB 的卡（如 48 GB 的 RTX A6000 / L20，80 GB 的 A100 / A800）就能训练；"
            "多加卡只是数据并行加快速度，不降低每张卡要的显存。",
            f"Simplest: one card with at least {_g(need)} GB (a 48 GB RTX A6000 / L20, an 80 GB A100 / A800) is "
            "enough to train; more cards only add data-parallel speed, they do not lower the memory each card needs.",
        )
        w.add(
            "next",
            "batch size 设为 1（per_device_train_batch_size=1）、缩短序列长度、开梯度检查点，只能省下激活值那一部分；"
            "权重、梯度和优化器状态一点不少。再用梯度累积（gradient_accumulation_steps，例如 8）保住等效 batch。",
            "Batch size 1 (per_device_train_batch_size=1), a shorter sequence and gradient checkpointing only cut the "
            "activations; weights, gradients and optimizer states stay the same. Use gradient accumulation "
            "(gradient_accumulation_steps, e.g. 8) to keep the effective batch.",
        )
        w.add(
            "next",
            "要用手上这几张小卡：用 DeepSpeed ZeRO-2/3 或 FSDP 把优化器状态、梯度（ZeRO-3 连参数）切到各卡上，"
            "或改用 LoRA，才能让每张卡要的显存降下来。",
            "To use the smaller cards you have: shard optimizer states and gradients (and with ZeRO-3 the "
            "parameters) across them with DeepSpeed ZeRO-2/3 or FSDP, or switch to LoRA; only that lowers what each "
            "card must hold.",
        )
    else:
        w.add(
            "next",
            "显存不够时：先找项目自带的低显存模式或 CPU 卸载（如 diffusers 的 enable_model_cpu_offload，会变慢），"
            '或用量化版本（int8 / int4）；大语言模型还可以按层切到几张卡上（device_map="auto"、'
            "张量并行 --tensor-parallel-size），每张卡只放一部分。",
            "When a card is short: look for the project's low-VRAM mode or CPU offload (diffusers' "
            "enable_model_cpu_offload, slower), or a quantised build (int8 / int4); a language model can also be "
            'split across cards (device_map="auto", tensor parallel --tensor-parallel-size) so each holds a part.',
        )
    w.add(
        "assumptions",
        f"{_g(need)} GB 取自对话里给出的要求（官方/维护者的数字通常指单卡）；如果它其实是多卡合计，告诉我卡数再算。",
        f"The {_g(need)} GB figure is the requirement given in the conversation (official or maintainer figures "
        "usually mean one card); if it is a multi-card total, tell me the card count and I will redo it.",
    )
    if f.unknown_model:
        w.add(
            "assumptions",
            f"模型目录里没有「{f.unknown_model}」，所以只按这个要求比，没有自己估它的显存；告诉我参数量可以细算。",
            f"'{f.unknown_model}' is not in the model catalog, so this compares against the stated figure instead "
            "of estimating it; give its parameter count for a full estimate.",
        )
