"""Published training runs of known recipes (knowledge/published_runs.yaml), carried to the user's cards.

Why: "how long do LLaVA's two stages take on A100 40G", "is Vicuna really $300", "Alpaca used 3 or 8 A100s?" are
answered best by what the authors measured, not by 6·N·D with a guessed MFU. Each stage's GPU-hours are cards ×
hours; on other cards the time scales with cards × dense peak at the same efficiency (tools/train_scaling.py,
the same rule the rescale tool states); at the user's own rate the cost is GPU-hours × rate, in their currency.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tools.data import load_yaml
from tools.errors import ToolInputError
from tools.registry import ToolSpec


@lru_cache(maxsize=1)
def runs_data() -> dict[str, Any]:
    return load_yaml("published_runs.yaml")


def find_runs(text: str) -> list[str]:
    """Ids of the recipes named in the text (whole-word aliases; the longest alias wins per position)."""
    low = text.lower()
    hits: list[tuple[int, int, str]] = []
    for row in runs_data()["runs"]:
        for alias in row["aliases"]:
            for m in re.finditer(rf"(?<![A-Za-z0-9_-]){re.escape(alias.lower())}(?![A-Za-z0-9_-])", low):
                hits.append((m.start(), -len(alias), row["id"]))
    hits.sort()
    out: list[str] = []
    taken_end = -1
    for start, neg_len, rid in hits:
        if start < taken_end:
            continue
        taken_end = start - neg_len
        if rid not in out:
            out.append(rid)
    return out


def _row(run: str) -> dict[str, Any]:
    key = run.strip().lower()
    for row in runs_data()["runs"]:
        if key == row["id"] or key in (a.lower() for a in row["aliases"]):
            return dict(row)
    ids = [r["id"] for r in runs_data()["runs"]]
    raise ToolInputError(
        f"没有这个公开训练记录：{run}", f"No published run named {run!r}", field="run", suggestions=ids
    )


class PublishedRunInput(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    run: str = Field(
        ..., description="recipe id or alias: 'alpaca', 'vicuna', 'llava', 'llava-v1.5-7b', 'modded-nanogpt'"
    )
    gpu: str | None = Field(None, description="your card, to carry the published hours over ('A100 40G', '4090')")
    n_gpus: int | None = Field(None, ge=1, le=100_000, description="your card count (default: the run's count)")
    rate_per_gpu_hour: float | None = Field(None, gt=0, description="your price per GPU-hour, in your currency")
    currency: str = Field("USD", description="currency of rate_per_gpu_hour (no conversion is applied)")


class StageOut(BaseModel):
    stage: str
    stage_zh: str
    data: str
    data_zh: str
    gpu: str
    n_gpus: int
    hours: float = Field(description="published wall-clock hours")
    minutes: float | None = Field(None, description="the same in minutes when under an hour")
    gpu_hours: float = Field(description="n_gpus × hours")
    your_hours: float | None = Field(None, description="on your cards at the same efficiency (cards × dense peak)")
    your_arithmetic: str | None = None
    cost_at_rate: float | None = Field(None, description="gpu_hours × your rate, in your currency")


class PublishedRunOutput(BaseModel):
    id: str
    recipe: str
    model: str
    params_b: float
    mode: str
    stages: list[StageOut]
    total_gpu_hours: float
    total_hours: float
    cost_usd: float | None = Field(None, description="what the authors said it cost")
    cost_is_upper_bound: bool = False
    pricing: str | None = None
    pricing_zh: str | None = None
    implied_usd_per_gpu_hour: float | None = Field(None, description="cost_usd ÷ total_gpu_hours")
    your_gpu: str | None = None
    your_n_gpus: int | None = None
    total_cost_at_rate: float | None = None
    currency: str | None = None
    source: str
    as_of: str
    notes: list[str] = Field(default_factory=list)


def published_run(inp: PublishedRunInput) -> PublishedRunOutput:
    from tools.gpus import resolve_gpu
    from tools.train_scaling import RescaleInput, rescale_training_time

    row = _row(inp.run)
    mine = resolve_gpu(inp.gpu) if inp.gpu else None
    stages: list[StageOut] = []
    for s in row["stages"]:
        n, hours = int(s["n_gpus"]), float(s["hours"])
        st = StageOut(
            stage=s["stage"],
            stage_zh=s["stage_zh"],
            data=s["data"],
            data_zh=s["data_zh"],
            gpu=resolve_gpu(s["gpu"]).name,
            n_gpus=n,
            hours=hours,
            minutes=round(hours * 60, 1) if hours < 1 else None,
            gpu_hours=round(n * hours, 2),
        )
        if mine is not None:
            r = rescale_training_time(
                RescaleInput(ref_gpu=s["gpu"], ref_gpus=n, ref_hours=hours, gpu=mine.id, n_gpus=inp.n_gpus or n)
            )
            st.your_hours, st.your_arithmetic = r.hours, r.arithmetic
        if inp.rate_per_gpu_hour:
            st.cost_at_rate = round(st.gpu_hours * inp.rate_per_gpu_hour, 2)
        stages.append(st)
    total_gh = round(sum(s.gpu_hours for s in stages), 2)
    cost = row.get("cost_usd")
    notes = [
        "换卡时按 卡数 × 稠密峰值 缩放、假设效率（MFU）相同；显存更小的卡可能要 ZeRO-3/offload，会更慢。 / On other cards "
        "the time scales with cards × dense peak at the same efficiency (MFU); a card with less memory may need "
        "ZeRO-3/offload and run slower."
    ]
    return PublishedRunOutput(
        id=row["id"],
        recipe=row["recipe"],
        model=row["model"],
        params_b=float(row["params_b"]),
        mode=row["mode"],
        stages=stages,
        total_gpu_hours=total_gh,
        total_hours=round(sum(s.hours for s in stages), 2),
        cost_usd=float(cost) if cost is not None else None,
        cost_is_upper_bound=bool(row.get("cost_is_upper_bound")),
        pricing=row.get("pricing"),
        pricing_zh=row.get("pricing_zh"),
        implied_usd_per_gpu_hour=round(float(cost) / total_gh, 2) if cost is not None and total_gh else None,
        your_gpu=mine.name if mine else None,
        your_n_gpus=(inp.n_gpus or stages[0].n_gpus) if mine else None,
        total_cost_at_rate=round(sum(s.cost_at_rate or 0 for s in stages), 2) if inp.rate_per_gpu_hour else None,
        currency=inp.currency if inp.rate_per_gpu_hour else None,
        source=row["source"],
        as_of=str(row["as_of"]),
        notes=notes,
    )


TOOLS = [
    ToolSpec(
        name="published_run",
        description=(
            "What the authors of a known training recipe (Alpaca, Vicuna, LLaVA-v1.5 stages, modded-nanogpt speedrun) "
            "published: cards, count, wall-clock hours per stage, GPU-hours, the cost they quoted and its pricing "
            "(e.g. spot), with the source; optionally carried to your cards (same efficiency, cards × dense peak) "
            "and priced at your own rate per GPU-hour."
        ),
        input_model=PublishedRunInput,
        func=published_run,
    ),
]
