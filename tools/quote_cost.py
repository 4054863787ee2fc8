"""The user's own price quote, in the user's own currency: what the hours they will actually use cost.

Why a tool of its own: `gpu_price` answers in CNY from the market table; a user who quotes "$294/month"
or "$4/hr" wants that figure applied to their hours, not our table and not an exchange rate we would
have to invent. So this tool never converts currencies: the answer is in the currency of the quote.

Hours in a billing month: cloud calculators that quote a VM "per month" assume it runs the whole month,
730 h (= 8,760 h / 12, the year-averaged month most cloud calculators use; e.g.
https://calculatorlib.com/cloud-cost-monthly-to-hourly-calculator). Chinese rental platforms count a card-month as 720 h (30 days),
the convention of `knowledge/prices.yaml`. Both are inputs, so a user's own month length wins.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.registry import ToolSpec

HOURS_PER_MONTH_CLOUD = 730.0  # 8,760 h / 12: the cloud calculators' month
HOURS_PER_MONTH_CN = 720.0  # 30 × 24, the card-month of knowledge/prices.yaml
_PER_HOURS = {"hour": 1.0, "day": 24.0, "week": 168.0}

Currency = Literal["USD", "CNY", "EUR", "GBP", "JPY", "HKD", "SGD", "KRW", "INR", "other"]


class QuoteCostInput(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    amount: float = Field(..., gt=0, description="the quoted price, in its own currency (294 for '$294/month')")
    currency: Currency = Field("USD", description="currency of the quote; the answer stays in it (no conversion)")
    per: Literal["hour", "day", "week", "month", "total"] = Field(
        "hour", description="what the quote is for; total = the amount buys `hours` of running ('$10 for 39 hours')"
    )
    hours: float = Field(..., gt=0, le=1_000_000, description="hours the machine will actually run (billed)")
    count: int = Field(1, ge=1, le=10_000, description="machines or GPUs at that price")
    hours_per_month: float | None = Field(
        None, gt=0, le=744, description="hours in the quote's month; default 730 (cloud calculators), 720 for CNY"
    )
    gpu_hours_parts: list[float] = Field(
        default_factory=list, description="GPU-hour figures the hours add up from ('1845 and 3310 A100 GPU hours')"
    )
    claimed_total: float | None = Field(
        None, gt=0, description="the total the user worked out or was told ('so ~$1000?'), checked against ours"
    )
    gpus_in_quote: int | None = Field(
        None,
        ge=1,
        le=10_000,
        description="cards the quoted price covers (「8卡A800一天2000元」: 8): the per-GPU-hour rate",
    )
    output_tokens_per_s: float | None = Field(
        None,
        gt=0,
        le=10_000_000,
        description="generation speed the user measured on the quoted machine (「一秒只能出15个token」): tokens per "
        "hour and day at it, and the quote per million tokens",
    )


class QuoteCostOutput(BaseModel):
    currency: str
    hourly_rate: float = Field(description="the quote per hour of running time, in its currency")
    hours: float
    count: int
    total: float = Field(description="hourly_rate × hours × count, in the quote's currency")
    quoted_total_if_kept_all_month: float | None = Field(
        None, description="a monthly quote for the whole month (what 'per month' assumes), for comparison"
    )
    hours_per_month: float | None = None
    arithmetic: str
    notes: list[str] = Field(default_factory=list)
    gpu_hours_sum: str | None = Field(None, description="'1845 + 3310 = 5155' when the hours were given in parts")
    claimed_total: float | None = None
    claimed_ratio: float | None = Field(None, description="total ÷ claimed_total (1 = the user's figure is right)")
    gpus_in_quote: int | None = None
    per_gpu_hour: float | None = Field(None, description="hourly_rate ÷ gpus_in_quote: the price per card-hour")
    gpu_hours: float | None = Field(None, description="hours × gpus_in_quote: the GPU-hours the quote covers")
    output_tokens_per_s: float | None = None
    tokens_per_day: float | None = Field(None, description="output_tokens_per_s × 86,400 s")
    cost_per_million_tokens: float | None = Field(
        None, description="hourly_rate ÷ (tokens per hour ÷ 1e6): the quote per million generated tokens at that speed"
    )


def quote_cost(inp: QuoteCostInput) -> QuoteCostOutput:
    month_h: float | None = None
    if inp.per == "total":  # "$10 for 39 hours of GPU time": the bundle's own price per hour
        hourly = inp.amount / inp.hours
        step = f"{inp.amount:g} / {inp.hours:g} h = {hourly:.4g}/h"
    elif inp.per == "month":
        month_h = inp.hours_per_month or (HOURS_PER_MONTH_CN if inp.currency == "CNY" else HOURS_PER_MONTH_CLOUD)
        hourly = inp.amount / month_h
        step = f"{inp.amount:g} / {month_h:g} h = {hourly:.4g}/h"
    else:
        hourly = inp.amount / _PER_HOURS[inp.per]
        step = f"{inp.amount:g}/{inp.per}" if inp.per == "hour" else f"{inp.amount:g} / {_PER_HOURS[inp.per]:g} h"
    total = hourly * inp.hours * inp.count
    count_txt = f" × {inp.count}" if inp.count > 1 else ""
    arithmetic = f"{step}; {hourly:.4g} × {inp.hours:g} h{count_txt} = {total:.4g} {inp.currency}"
    notes = [
        "只在机器运行时按时计费（停机后 GPU 不再收费，但磁盘/存储通常照收）。 / Billed only while the machine runs "
        "(a stopped VM stops the GPU charge; disks and storage usually keep billing).",
        "币种按你的报价，不做汇率换算。 / In the currency you quoted; no exchange rate applied.",
    ]
    per_gpu = gpu_hours = None
    if inp.gpus_in_quote and inp.gpus_in_quote > 1:
        per_gpu = hourly / inp.gpus_in_quote
        arithmetic += f"; {hourly:.4g}/h ÷ {inp.gpus_in_quote} GPUs = {per_gpu:.4g} per GPU-hour"
        gpu_hours = inp.hours * inp.gpus_in_quote
        arithmetic += f"; {inp.gpus_in_quote} GPUs × {inp.hours:g} h = {gpu_hours:g} GPU-hours"
    tps = inp.output_tokens_per_s
    per_mtok = hourly / (tps * 3600 / 1e6) if tps else None
    if tps and per_mtok is not None:
        arithmetic += f"; {tps:g} tokens/s × 86,400 s = {tps * 86400:.4g} tokens/day; {hourly:.4g}/h ÷ {tps * 3600 / 1e6:.4g} M tokens/h = {per_mtok:.4g} per M tokens"
    parts = inp.gpu_hours_parts
    gpu_hours_sum = " + ".join(f"{p:g}" for p in parts) + f" = {sum(parts):g}" if len(parts) >= 2 else None
    return QuoteCostOutput(
        gpu_hours_sum=gpu_hours_sum,
        claimed_total=inp.claimed_total,
        claimed_ratio=round(total / inp.claimed_total, 2) if inp.claimed_total else None,
        gpus_in_quote=inp.gpus_in_quote,
        output_tokens_per_s=tps,
        tokens_per_day=round(tps * 86400) if tps else None,
        cost_per_million_tokens=round(per_mtok, 2) if per_mtok is not None else None,
        per_gpu_hour=round(per_gpu, 2) if per_gpu is not None else None,
        gpu_hours=gpu_hours,
        currency=inp.currency,
        hourly_rate=round(hourly, 4),
        hours=inp.hours,
        count=inp.count,
        total=round(total, 2),
        quoted_total_if_kept_all_month=round(inp.amount * inp.count, 2) if inp.per == "month" else None,
        hours_per_month=month_h,
        arithmetic=arithmetic,
        notes=notes,
    )


TOOLS = [
    ToolSpec(
        name="quote_cost",
        description=(
            "The cost of the hours a user will actually run at THEIR OWN quoted price, in the quote's currency "
            "(no exchange rate): hourly rate = amount / hours in the period (a 'per month' cloud quote assumes "
            "730 h; a CNY card-month 720 h), total = hourly × hours × count. Use when the user quotes a price "
            "('$294/month', '$4/hr') and says how long they need it."
        ),
        input_model=QuoteCostInput,
        func=quote_cost,
    ),
]
