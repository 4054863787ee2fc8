"""「24G显存最大能跑多大的模型」/ "biggest model I can run on a 3060 12GB": the size limit of the user's card.

Every other memory rule starts from a model; this question has none, only a card (or a memory size) and a job.
Answering it with a guide passage about 7B on 24 GB, or with a training "No" for a model nobody named, is a
confident answer to another question, so the limit is computed (tools/largest_model) for the job asked: inference
at each weight precision, LoRA, QLoRA or full fine-tuning.
"""

from __future__ import annotations

import re

from assistant.offline.intents import args as A
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall, ToolResult

NAME = "largest_model"

_LARGEST_RE = re.compile(
    r"(?:最大|最多)?能(?:跑|带|装|放|推理|部署|运行|微调|训练|训|用|上)(?:得动|得了|起)?多大|"
    r"(?:跑|带|装|放|微调|训练|训|部署)(?:得动|得了|起)?(?:最大|多大)的?(?:模型|参数|尺寸|规模)|"
    r"最大(?:能)?(?:跑|带|微调|训练|部署)?(?:几|多少)\s*b|能跑(?:几|多少)\s*b|(?:能|可以)(?:跑|部署|微调)(?:什么|哪些|啥)(?:样的)?(?:大)?模型|"
    r"(?:biggest|largest|max(?:imum)?)\s+(?:size\s+)?(?:llm|model|parameter)|"
    r"how (?:big|large) (?:of )?(?:a |an )?(?:model|llm)|what (?:size )?(?:models?|llms?) (?:can|could) (?:i|we|it) "
    r"(?:run|fit|load|serve|fine-?tune|train)|what can (?:i|we) (?:run|fit)",
    re.I,
)


# "4060ti 16g和4070 12g哪个适合跑本地大模型": two cards, no model, a language-model job
_WHICH_RE = re.compile(r"哪个|哪张|哪款|选哪|还是|更适合|更合适|\bwhich\b|\bvs\.?\b|\bor\b|better", re.I)
_LLM_RE = re.compile(r"大模型|本地模型|跑模型|(?<![a-z])llms?(?![a-z])|\bmodels?\b", re.I)


def applies_choice(f: Frame) -> bool:
    """Two to four cards compared for running models in general: which one holds the larger model decides."""
    return (
        len(dict.fromkeys(f.gpus)) >= 2
        and not has_size(f)
        and bool(_WHICH_RE.search(f.text))
        and bool(_LLM_RE.search(f.text))
        and not f.training
        and not f.budget_cny
        and not f.decline
    )


def applies(f: Frame) -> bool:
    """A size-limit question with a card or a memory size and no model of its own."""
    return bool(_LARGEST_RE.search(f.text)) and not has_size(f) and bool(f.gpus or f.vram_gb) and not f.decline


def _modes(f: Frame) -> list[str]:
    """The job: inference unless training is said; a bare 微调 shows LoRA and QLoRA (the two a small card uses),
    a bare 训练 full training beside them."""
    kw_mode = A.memory_kwargs(f).get("mode")
    if not f.training and not f.finetune:
        return ["inference"]
    if kw_mode in ("lora", "qlora", "full") and (f.mode or f.finetune or f.method):
        return [str(kw_mode)]
    # 「24G能训多大的模型」 with no method: full training, and the LoRA / QLoRA sizes that a small card really trains
    return ["lora", "qlora"] if f.finetune else ["full", "lora", "qlora"]


def calls(f: Frame) -> list[ToolCall]:
    if applies_choice(f):
        cards = list(dict.fromkeys(f.gpus))[:4]
        out = [A.call(NAME, "largest_model", gpu=A.gpu_arg(f, g) or g, mode="inference") for g in cards]
        return [*out, A.call(NAME, "gpu_specs", names=[A.card_name(f, g) or g for g in cards])]
    gpu = A.gpu_arg(f) if f.gpus else f"{f.vram_gb:g}GB"
    out = []
    for mode in _modes(f):
        length = {"context": f.context} if mode == "inference" else {"seq_len": f.context}
        out.append(
            A.call(
                NAME,
                "largest_model",
                gpu=gpu,
                gpus=f.gpu_count or 1,
                mode=mode,
                precision=f.precision if f.precision in ("bf16", "int8", "int4") and mode == "inference" else None,
                **{k: v for k, v in length.items() if v},
            )
        )
    return out


def smaller_line_calls(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """After a single-card serving estimate that does not fit (「4090 能跑 DeepSeek-R1 吗」): the card's size limit,
    with examples from the model's own line (its distills, its smaller sizes) — what people actually run there."""
    for r in results:
        if (
            r.name == "estimate_memory"
            and not r.error
            and A.fits(r.result) is False
            and str(r.args.get("mode")) == "inference"
            and int(r.args.get("gpus") or 1) == 1
            and r.args.get("gpu")
            and r.args.get("model")
            and A.catalog_has(str(r.args.get("model")))
        ):
            return [A.call(NAME, "largest_model", gpu=r.args["gpu"], mode="inference", like=r.args["model"])]
    return []
