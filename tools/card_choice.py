"""Which of two to four cards suits one job ("H20 和 A800 哪个适合训练 70B", "4090 or 3090 for serving a 7B").

Why a tool of its own: a per-card memory verdict ("does not fit on one H20") answers a different question.
"Which one" is decided, once each card can hold the job at all, by what limits that kind of job:
- training is compute-bound: at the same MFU, time ∝ 1 / (cards × dense BF16 TFLOPS) and the bill for the
  whole job ∝ price per card-hour ÷ TFLOPS (the cards × hours product is the same work). Dense peaks are the
  datasheet figures in knowledge/gpus.yaml (never the "with sparsity" ones).
- decoding (inference) is memory-bandwidth-bound: each generated token reads the weights once, so tokens/s
  per stream ∝ memory bandwidth (Pope et al., "Efficiently Scaling Transformer Inference", arXiv:2211.05102);
  the card that holds the model on fewer cards wins first, bandwidth decides between equals.
Prices are the dated China-market typical per card-hour of knowledge/prices.yaml (whole 8-card servers ÷ 8
where that is the only way a card is rented).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tools.memory import FindMinGpusInput, MemoryJob, find_min_gpus
from tools.registry import ToolSpec

Basis = Literal["only_fit", "compute_cost", "compute", "fewest_cards", "bandwidth", "none_fit"]


class ChooseGpuInput(MemoryJob):
    cards: list[str] = Field(min_length=2, max_length=4, description="the cards to choose between ('H20', 'A800')")
    max_gpus: int = Field(256, ge=1, le=4096, description="search limit per card")


class CardRow(BaseModel):
    gpu: str
    gpu_name: str
    min_gpus: int | None = Field(description="fewest of this card that hold the job; null if none up to max_gpus")
    rent_gpus: int | None = Field(None, description="as rented (whole 8-card servers above 8)")
    memory_gb: float
    bf16_dense_tflops: float | None
    mem_bw_gbs: float | None
    hourly_cny: float | None = Field(None, description="typical China-market CNY per card-hour (dated table)")
    price_proxy: bool = Field(False, description="the price is a related card's")
    cny_per_pflops_hour: float | None = Field(
        None, description="hourly price ÷ dense BF16 PFLOPS: the job's bill at equal MFU is proportional to it"
    )
    relative_speed: float | None = Field(
        None, description="vs the fastest card, per card: TFLOPS ratio (training) or bandwidth ratio (inference)"
    )
    rent_unit: str | None = Field(None, description="card | server_8: how it is rented in China (rentability.yaml)")
    availability: str | None = Field(None, description="common | limited | rare | not_offered")


class ChooseGpuOutput(BaseModel):
    mode: str
    model: str
    rows: list[CardRow]
    choice: str | None = Field(description="the card chosen (its `gpu`), null when none holds the job")
    basis: Basis
    summary: dict[str, str]
    assumptions: list[dict[str, str]]
    sources: list[str]


def _price(card: str) -> tuple[float | None, bool]:
    from tools.errors import ToolInputError
    from tools.prices import PriceInput, gpu_price

    try:
        p = gpu_price(PriceInput(gpu=card))
    except ToolInputError:
        return None, False
    return float(p.hourly_cny.typical), bool(p.proxy)


def _row(job: ChooseGpuInput, card: str) -> CardRow:
    from tools.gpus import resolve_gpu

    spec = resolve_gpu(card)
    data = job.model_dump(exclude_unset=True, exclude={"cards", "max_gpus", "gpus"})
    mg = find_min_gpus(FindMinGpusInput(**data, gpu=card, max_gpus=job.max_gpus))
    tflops = spec.bf16_dense_tflops or spec.fp16_dense_tflops
    hourly, proxy = _price(card)
    from tools.rentability import best_offer

    offer, _ = best_offer(spec.id)
    return CardRow(
        rent_unit=offer.unit if offer else None,
        availability=offer.availability if offer else None,
        gpu=spec.id,
        gpu_name=spec.name,
        min_gpus=mg.min_gpus,
        rent_gpus=mg.rent_gpus,
        memory_gb=spec.memory_gb,
        bf16_dense_tflops=tflops,
        mem_bw_gbs=spec.mem_bw_gbs,
        hourly_cny=hourly,
        price_proxy=proxy,
        cny_per_pflops_hour=round(hourly / (tflops / 1000), 2) if hourly and tflops else None,
    )


def _choose(rows: list[CardRow], training: bool) -> tuple[CardRow | None, Basis]:
    able = [r for r in rows if r.min_gpus is not None]
    if not able:
        return None, "none_fit"
    if len(able) == 1:
        return able[0], "only_fit"
    if training:
        if all(r.cny_per_pflops_hour for r in able):
            return min(able, key=lambda r: r.cny_per_pflops_hour or 0.0), "compute_cost"
        return max(able, key=lambda r: r.bf16_dense_tflops or 0.0), "compute"
    fewest = min(r.min_gpus or 0 for r in able)
    tied = [r for r in able if r.min_gpus == fewest]
    if len(tied) < len(able) and len(tied) == 1:
        return tied[0], "fewest_cards"
    return max(tied, key=lambda r: r.mem_bw_gbs or 0.0), "bandwidth"


def _count(r: CardRow) -> tuple[str, str]:
    if r.min_gpus is None:
        return "放不下", "does not hold it"
    n, rent = r.min_gpus, r.rent_gpus or r.min_gpus
    if rent > n and rent % 8 == 0:
        return f"至少 {n} 张（整机租 {rent // 8} 台 8 卡）", f"at least {n} (rented as {rent // 8} 8-GPU servers)"
    return f"至少 {n} 张", f"at least {n}"


def _summary(best: CardRow | None, basis: Basis, rows: list[CardRow], training: bool) -> dict[str, str]:
    if best is None:
        return {
            "zh": "这几张卡在搜索范围内都放不下这个任务。",
            "en": "None of these cards holds this job within the search limit.",
        }
    other = next(r for r in rows if r.gpu != best.gpu)
    counts_zh = "，".join(f"{r.gpu_name} {_count(r)[0]}" for r in rows)
    counts_en = "; ".join(f"{r.gpu_name} {_count(r)[1]}" for r in rows)
    if basis == "only_fit":
        zh, en = f"选 {best.gpu_name}：只有它放得下", f"The {best.gpu_name}: it is the only one that holds the job"
    elif training:
        bt, ot = best.bf16_dense_tflops or 0.0, other.bf16_dense_tflops or 0.0
        if bt and ot and abs(bt - ot) <= 0.03 * max(bt, ot):  # A100 40GB vs 80GB: the same chip, 312 TFLOPS each
            zh = f"选 {best.gpu_name}：两张卡 BF16 稠密算力一样（都是 {bt:g} TFLOPS），差别只在显存和价格"
            en = f"The {best.gpu_name}: both have the same {bt:g} dense BF16 TFLOPS, so memory and price decide"
        elif bt >= ot:
            zh = f"选 {best.gpu_name}：训练受算力限制，BF16 稠密算力 {bt:g} 对 {ot:g} TFLOPS，同样卡数按稠密峰值快约 {bt / ot:.1f} 倍"
            en = (
                f"The {best.gpu_name}: training is compute-bound, {bt:g} vs {ot:g} dense BF16 TFLOPS, about "
                f"{bt / ot:.1f}× faster at the same card count on dense peaks"
            )
        else:
            zh = f"选 {best.gpu_name}：算力 {bt:g} 对 {ot:g} TFLOPS 虽然低，但按每卡时价格折算，同样的训练量更便宜"
            en = (
                f"The {best.gpu_name}: {bt:g} vs {ot:g} dense BF16 TFLOPS is slower, but at the price per card-hour "
                "the same training costs less"
            )
        if basis == "compute_cost" and best.cny_per_pflops_hour and other.cny_per_pflops_hour:
            k = other.cny_per_pflops_hour / best.cny_per_pflops_hour
            if k >= 1.05:
                zh += f"（每 PFLOPS·小时 ¥{best.cny_per_pflops_hour:g} 对 ¥{other.cny_per_pflops_hour:g}，总费用约省 {1 - 1 / k:.0%}）"
                en += (
                    f"; ¥{best.cny_per_pflops_hour:g} vs ¥{other.cny_per_pflops_hour:g} per PFLOPS-hour: about "
                    f"{1 - 1 / k:.0%} less for the whole job"
                )
    elif basis == "fewest_cards":
        zh = f"选 {best.gpu_name}：显存大，{_count(best)[0]}就放得下（{other.gpu_name} {_count(other)[0]}）"
        en = f"The {best.gpu_name}: its memory holds the model on fewer cards"
    else:
        bw, ow = best.mem_bw_gbs or 0.0, other.mem_bw_gbs or 0.0
        zh = f"选 {best.gpu_name}：推理解码受显存带宽限制，{bw:g} 对 {ow:g} GB/s，单路生成快约 {bw / ow:.2f} 倍"
        en = f"The {best.gpu_name}: decoding is memory-bandwidth-bound, {bw:g} vs {ow:g} GB/s, about {bw / ow:.2f}× per stream"
        if best.hourly_cny and other.hourly_cny and ow and other.hourly_cny / ow < best.hourly_cny / bw * 0.95:
            zh += f"；但 {other.gpu_name} 更便宜（¥{other.hourly_cny:g} 对 ¥{best.hourly_cny:g}/卡时），按每元的生成速度它更划算"
            en += (
                f"; the {other.gpu_name} is cheaper (¥{other.hourly_cny:g} vs ¥{best.hourly_cny:g} per card-hour) and "
                "gives more speed per yuan"
            )
    whole = [r.gpu_name for r in rows if r.rent_unit == "server_8"]
    if whole:
        counts_zh += f"（{'、'.join(whole)} 在国内只能整台 8 卡服务器长租）"
        counts_en += f" ({', '.join(whole)}: only whole 8-GPU servers on long leases in China)"
    return {"zh": f"{zh}。需要的卡数：{counts_zh}。", "en": f"{en}. Cards needed: {counts_en}."}


def choose_gpu(inp: ChooseGpuInput) -> ChooseGpuOutput:
    rows = [_row(inp, c) for c in dict.fromkeys(inp.cards)]
    training = (inp.mode or "inference") != "inference"
    key = "bf16_dense_tflops" if training else "mem_bw_gbs"
    top = max((getattr(r, key) or 0.0) for r in rows) or 1.0
    for r in rows:
        value = getattr(r, key)
        r.relative_speed = round(value / top, 3) if value else None
    best, basis = _choose(rows, training)
    from tools.models import resolve_model

    model = resolve_model(inp.model, inp.params)
    assumptions = [
        {
            "zh": "训练：同样的 MFU 下，用时 ∝ 1 ÷（卡数 × 稠密 BF16 算力），整个任务的费用 ∝ 每卡时价格 ÷ 算力。",
            "en": "Training: at equal MFU, time ∝ 1 / (cards × dense BF16 TFLOPS) and the job's bill ∝ price per "
            "card-hour ÷ TFLOPS.",
        }
        if training
        else {
            "zh": "推理：每生成一个 token 都要把权重读一遍，单路速度 ∝ 显存带宽；先比要几张卡，再比带宽。",
            "en": "Inference: each generated token reads the weights once, so per-stream speed ∝ memory bandwidth; "
            "fewer cards first, then bandwidth.",
        },
        {
            "zh": "价格是中国大陆租卡市场的典型价（带日期），下单前请确认。",
            "en": "Prices are dated China-market typical rates; confirm before renting.",
        },
    ]
    return ChooseGpuOutput(
        mode=inp.mode or "inference",
        model=model.name,
        rows=rows,
        choice=best.gpu if best else None,
        basis=basis,
        summary=_summary(best, basis, rows, training),
        assumptions=assumptions,
        sources=["knowledge/gpus.yaml", "knowledge/prices.yaml", "arXiv:2211.05102"],
    )


TOOLS = [
    ToolSpec(
        name="choose_gpu",
        description=(
            "Which of 2–4 cards suits one job (a model + mode): per card the fewest GPUs that hold it, dense BF16 "
            "TFLOPS, memory bandwidth and the China-market price per card-hour; the choice and its basis — "
            "training: compute (and price ÷ TFLOPS); inference: fewest cards, then memory bandwidth."
        ),
        input_model=ChooseGpuInput,
        func=choose_gpu,
    ),
]
