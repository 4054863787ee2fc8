"""The largest model a card (or N cards) holds for a job: 「24G显存最大能跑多大的模型」, "biggest model on a 3060 12GB".

Why a tool of its own: every other memory tool starts from a model. This one inverts the estimate: for each weight
precision it finds the parameter count at which `estimate_memory` (the same formulas, the same usable-memory rule:
nvidia-smi capacity × the engine's memory fraction for serving, all of it for training) stops fitting, then names
the largest catalog models at or below it that really fit (their own KV and vocabulary, not the generic shape).
Total memory grows linearly in the parameter count at a fixed precision and context, so a secant step from two
estimates lands next to the limit; a few checks then walk down to the last size that fits (0.1B steps).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field

from tools.memory import EstimateMemoryInput, estimate_memory
from tools.registry import ToolSpec

JobMode = Literal["inference", "lora", "qlora", "full"]
# The precisions a user picks between for each job (inference: the checkpoint, INT8, 4-bit AWQ/GPTQ/GGUF).
PRECISIONS: dict[str, tuple[str, ...]] = {
    "inference": ("bf16", "int8", "int4"),
    "lora": ("bf16",),
    "qlora": ("nf4",),
    "full": ("bf16",),
}
# Families shown as examples, newest open dense families first (ids as in knowledge/models/).
EXAMPLE_FAMILIES = (r"Qwen3-\d+(?:\.\d+)?B", r"Qwen2\.5-\d+(?:\.\d+)?B", r"Llama-3\.[13]-\d+B", r"GLM-4-\d+B.*")
LIMIT_B = 2000.0  # above any dense model served today


class LargestModelInput(BaseModel):
    gpu: str = Field(description="GPU name ('RTX 4090', '3060 12G') or size ('24GB')")
    gpus: int = Field(1, ge=1, le=64, description="cards: tensor parallel for inference, ZeRO-3 for training")
    mode: JobMode = Field("inference", description="inference | lora | qlora | full (fine-tuning)")
    precision: str | None = Field(None, description="one weight precision only (bf16 / int8 / int4); default: each")
    context: int = Field(4096, ge=128, le=1_000_000, description="inference context per sequence, tokens")
    seq_len: int = Field(2048, ge=128, le=1_000_000, description="training sequence length, tokens")
    like: str | None = Field(
        None,
        description="a catalog model the user wanted: examples come from its own line first (DeepSeek-R1 → its "
        "R1-Distill models, Qwen2.5-72B → smaller Qwen2.5 sizes)",
    )


class Example(BaseModel):
    model: str
    params_b: float
    total_gb: float = Field(description="its estimate on this setup, per GPU (decimal GB)")


class LargestRow(BaseModel):
    precision: str
    max_params_b: float | None = Field(description="largest generic dense model that fits, billions; null if none")
    total_gb_at_max: float | None = None
    examples: list[Example] = Field(default_factory=list, description="largest catalog models that fit, per family")


class LargestModelOutput(BaseModel):
    gpu: str
    gpu_name: str
    gpus: int
    mode: str
    usable_gb: float | None = Field(description="memory the estimate fits into, per GPU (decimal GB)")
    reported_gb: float | None = Field(None, description="nvidia-smi capacity per GPU (decimal GB)")
    all_gpus_usable_gb: float | None = Field(None, description="usable_gb × gpus: what ZeRO-3 shards the job over")
    context: int
    rows: list[LargestRow]
    assumptions: list[dict[str, str]]
    sources: list[str]


def _job(inp: LargestModelInput, precision: str, **model: str) -> EstimateMemoryInput:
    extra = {"context": inp.context, "concurrency": 1} if inp.mode == "inference" else {"seq_len": inp.seq_len}
    if inp.mode != "inference" and inp.gpus > 1:
        extra["zero"] = 3
    prec = {} if inp.mode == "qlora" else {"precision": precision}
    return EstimateMemoryInput(mode=inp.mode, gpu=inp.gpu, gpus=inp.gpus, **prec, **extra, **model)


def _headroom(inp: LargestModelInput, precision: str, params_b: float) -> tuple[float, float]:
    out = estimate_memory(_job(inp, precision, params=f"{params_b:.1f}B"))
    return float(out.headroom_gb or 0.0), float(out.total_gb)


def _max_params(inp: LargestModelInput, precision: str) -> tuple[float | None, float | None]:
    """Bracket the limit between a size that fits (a) and one that does not (b), then narrow it with
    false-position steps (headroom is close to linear in the size) to 1% or 0.1B."""
    a, b = 1.0, 70.0
    ha, ta = _headroom(inp, precision, a)
    if ha < 0:
        a, (ha, ta) = 0.1, _headroom(inp, precision, 0.1)
        if ha < 0:
            return None, None
    hb, _ = _headroom(inp, precision, b)
    while hb >= 0 and b < LIMIT_B:  # 70B still fits (8 × 80 GB): widen
        a, ha, ta = b, hb, _headroom(inp, precision, b)[1]
        b = min(LIMIT_B, b * 4)
        hb, _ = _headroom(inp, precision, b)
    if hb >= 0:
        return b, _headroom(inp, precision, b)[1]
    side = 0
    for _ in range(12):
        if b - a <= max(0.1, 0.01 * a):
            break
        p = round(a + ha * (b - a) / (ha - hb), 1)
        p = min(max(p, round(a + 0.1, 1)), round(b - 0.1, 1))  # keep inside the bracket
        hp, tp = _headroom(inp, precision, p)
        if hp >= 0:
            a, ha, ta = p, hp, tp
            if side == 1:
                hb /= 2  # Illinois step: the far end stayed twice, so pull the next guess towards it
            side = 1
        else:
            b, hb = p, hp
            if side == -1:
                ha /= 2
            side = -1
    return round(a, 1), ta


@lru_cache(maxsize=1)
def _dense_sized() -> tuple[tuple[str, float], ...]:
    """(id, params in billions) of the dense catalog models whose id carries their size. MoE rows are left out:
    every expert is resident, but the size in the name is not the count that matters here."""
    from tools.models import load_catalog, size_in_name

    out = []
    for entry in load_catalog():
        size = size_in_name(entry.id)
        if size and not entry.active_params_published:
            out.append((entry.id, size / 1e9))
    return tuple(out)


@lru_cache(maxsize=1)
def _example_pool() -> tuple[tuple[int, str, float], ...]:
    """(family rank, id, params in billions) for the dense catalog models of the example families."""
    pool = [
        (rank, model_id, size_b)
        for model_id, size_b in _dense_sized()
        for rank, rx in enumerate(EXAMPLE_FAMILIES)
        if re.fullmatch(rx, model_id)
    ]
    return tuple(sorted(pool, key=lambda t: (t[0], -t[2])))


def _line_pool(like: str) -> list[tuple[str, float]]:
    """(id, billions) of the dense catalog models on the wanted model's own line, largest first: its distills
    ("DeepSeek-R1" → "DeepSeek-R1-Distill-…") or the other sizes of the same release ("Qwen2.5-72B" → "Qwen2.5-32B")."""
    from tools.models import find_entry

    entry = find_entry(like)
    if entry is None:
        return []
    base = re.sub(r"-\d+(?:\.\d+)?B$", "", entry.id)
    line = re.compile(rf"{re.escape(entry.id)}-Distill-.+|{re.escape(base)}-\d+(?:\.\d+)?B")
    pool = [(m, b) for m, b in _dense_sized() if m != entry.id and line.fullmatch(m)]
    return sorted(pool, key=lambda t: -t[1])


def _first_fit(
    inp: LargestModelInput, precision: str, max_b: float, candidates: list[tuple[str, float]]
) -> Example | None:
    """The first candidate (largest first) near or below the limit that really fits, checked with its own config."""
    for model_id, size_b in candidates:
        if size_b > max_b * 1.15:
            continue
        est = estimate_memory(_job(inp, precision, model=model_id))
        if (est.headroom_gb or 0) >= 0:
            return Example(model=model_id, params_b=round(est.params / 1e9, 1), total_gb=round(est.total_gb, 1))
    return None


def _examples(inp: LargestModelInput, precision: str, max_b: float) -> list[Example]:
    out: list[Example] = []
    if inp.like:
        found = _first_fit(inp, precision, max_b, _line_pool(inp.like))
        if found:
            out.append(found)
    for rank in range(len(EXAMPLE_FAMILIES)):
        family = [(m, b) for r, m, b in _example_pool() if r == rank]
        found = _first_fit(inp, precision, max_b, family)
        if found:
            out.append(found)
        if len(out) == 2:
            break
    return out


def largest_model(inp: LargestModelInput) -> LargestModelOutput:
    precisions = (inp.precision,) if inp.precision else PRECISIONS[inp.mode]
    rows: list[LargestRow] = []
    probe = estimate_memory(_job(inp, precisions[0], params="1B"))
    for prec in precisions:
        max_b, total = _max_params(inp, prec)
        rows.append(
            LargestRow(
                precision=prec,
                max_params_b=max_b,
                total_gb_at_max=round(total, 1) if total is not None else None,
                examples=_examples(inp, prec, max_b) if max_b else [],
            )
        )
    job_zh = {
        "inference": f"推理、单路 {inp.context} token 上下文",
        "lora": f"LoRA 微调、序列 {inp.seq_len}",
        "qlora": f"QLoRA（4-bit 底座）微调、序列 {inp.seq_len}",
        "full": f"全量微调（混合精度 AdamW）、序列 {inp.seq_len}",
    }
    job_en = {
        "inference": f"inference, one sequence of {inp.context} tokens",
        "lora": f"LoRA, sequence {inp.seq_len}",
        "qlora": f"QLoRA (4-bit base), sequence {inp.seq_len}",
        "full": f"full fine-tuning (mixed-precision AdamW), sequence {inp.seq_len}",
    }
    assumptions = [
        {
            "zh": f"按{job_zh[inp.mode]}估；上限是通用稠密架构（按参数量推的层数和宽度）在这套卡上刚好放得下的参数量，"
            "具体模型的 KV 和词表不同，所以举的例子是逐个按它们自己的配置核过的。",
            "en": f"Sized for {job_en[inp.mode]}; the limit is the parameter count at which a generic dense architecture "
            "(layers and width scaled from the size) just fits this setup; real models differ in KV cache and "
            "vocabulary, so each example was checked with its own config.",
        },
        {
            "zh": "MoE 模型（DeepSeek-V3、Qwen3-30B-A3B 等）的全部专家都要放进显存，按总参数量算，不按激活参数量。",
            "en": "MoE models (DeepSeek-V3, Qwen3-30B-A3B …) keep every expert resident: count their total parameters, "
            "not the active ones.",
        },
    ]
    return LargestModelOutput(
        gpu=inp.gpu,
        gpu_name=str(probe.gpu or inp.gpu),
        gpus=inp.gpus,
        mode=inp.mode,
        usable_gb=round(probe.usable_gb, 1) if probe.usable_gb is not None else None,
        all_gpus_usable_gb=round(probe.usable_gb * inp.gpus, 1) if probe.usable_gb is not None else None,
        reported_gb=getattr(probe, "gpu_memory_gb", None),
        context=inp.context if inp.mode == "inference" else inp.seq_len,
        rows=rows,
        assumptions=assumptions,
        sources=list(probe.sources)[:4],
    )


TOOLS = [
    ToolSpec(
        name="largest_model",
        description=(
            "The largest model (billions of parameters) that fits a card or N cards for inference (per precision: "
            "bf16, int8, int4), LoRA, QLoRA or full fine-tuning, by inverting estimate_memory, with the largest "
            "catalog models that really fit as examples. Decimal GB."
        ),
        input_model=LargestModelInput,
        func=largest_model,
    )
]
