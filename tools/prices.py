"""China GPU rental price ranges (RMB): per card-hour, per card-month, per 8-card server, by market.

Data: `knowledge/prices.yaml` (dated points with `source`, `as_of`, `confidence`). Users' own quotes
override the defaults: a YAML/CSV file (`quotes_file`, or env `GPU_ADVISOR_QUOTES`) and/or an
hourly/monthly figure. Every answer carries "prices move — confirm with the provider".

Other modules call `price_band(gpu_id_or_name)` (hourly/monthly bands for cost estimates) and
`seed_checks()` (common rule-of-thumb price statements checked against the data).
"""

from __future__ import annotations

import math
import os
import re
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tools.data import load_yaml
from tools.errors import ToolInputError
from tools.gpus import GpuSpec, resolve_gpu
from tools.quotes import Quote, load_quotes  # noqa: F401 — re-export; reading moved to tools/quotes.py
from tools.registry import ToolSpec

HOURS_PER_MONTH = 720  # the convention used by the price notes: card-month = 720 card-hours
QUOTES_ENV = "GPU_ADVISOR_QUOTES"
Market = Literal["long_term_lease", "rental_platform", "public_cloud_on_demand"]
MARKET_LEVEL: dict[str, str] = {
    "long_term_lease": "low",
    "rental_platform": "typical",
    "public_cloud_on_demand": "high",
}


class Band(BaseModel):
    """low / typical / high in CNY. `typical` is the midpoint of `typical_range` when one is known."""

    low: float
    typical: float
    high: float
    typical_range: list[float] | None = None

    def scaled(self, k: float) -> "Band":
        return Band(
            low=self.low * k,
            typical=self.typical * k,
            high=self.high * k,
            typical_range=[x * k for x in self.typical_range] if self.typical_range else None,
        )

    def rounded(self, digits: int = 2) -> "Band":
        return Band(
            low=round(self.low, digits),
            typical=round(self.typical, digits),
            high=round(self.high, digits),
            typical_range=[round(x, digits) for x in self.typical_range] if self.typical_range else None,
        )


def _band(raw: dict[str, Any]) -> Band:
    typ = raw["typical"]
    if isinstance(typ, (list, tuple)):
        rng = [float(typ[0]), float(typ[1])]
        return Band(low=float(raw["low"]), typical=(rng[0] + rng[1]) / 2, high=float(raw["high"]), typical_range=rng)
    return Band(low=float(raw["low"]), typical=float(typ), high=float(raw["high"]))


class PriceRow(BaseModel):
    key: str
    gpus: list[str]
    proxy_for: list[str] = Field(default_factory=list)
    hourly_cny: Band
    monthly_cny: Band
    server_8card_monthly_cny: Band
    dated_points: list[dict[str, Any]] = Field(default_factory=list)
    overseas_usd_h: dict[str, Any] | None = None
    confidence: str
    note: str | None = None
    source: str
    as_of: str


@lru_cache(maxsize=1)
def _prices() -> tuple[dict[str, Any], dict[str, PriceRow]]:
    raw = load_yaml("prices.yaml")
    rows: dict[str, PriceRow] = {}
    for r in raw["prices"]:
        data = dict(r)
        data["hourly_cny"] = _band(r["hourly_cny"])
        data["monthly_cny"] = _band(r["monthly_cny"])
        data["server_8card_monthly_cny"] = _band(r["server_8card_monthly_cny"])
        data["as_of"] = str(r["as_of"])
        data["dated_points"] = [{k: str(v) for k, v in p.items()} for p in r.get("dated_points", [])]
        rows[r["key"]] = PriceRow.model_validate(data)
    return raw["meta"], rows


def price_meta() -> dict[str, Any]:
    return _prices()[0]


def warning_text() -> str:
    meta = price_meta()
    return f"{meta['warning_zh']} / {meta['warning_en']}"


def row_for(gpu: GpuSpec) -> tuple[PriceRow | None, bool]:
    """The price row for a GPU and whether it is only a proxy (a related card's price)."""
    rows = _prices()[1]
    for row in rows.values():
        if gpu.id in row.gpus:
            return row, False
    for row in rows.values():
        if gpu.id in row.proxy_for:
            return row, True
    return None, False


# ---------------------------------------------------------------- user quotes


# ---------------------------------------------------------------- the tool


class PriceInput(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)  # inf/nan are refused with a bilingual error, never computed

    gpu: str = Field(..., description="GPU name, forgiving: '4090', 'A100 80G', 'H100', '910B'")
    count: int = Field(1, ge=1, le=4096, description="number of cards rented")
    hours: float | None = Field(
        None, gt=0, description="rental period in hours (give at most one of hours/days/months)"
    )
    days: float | None = Field(None, gt=0, description="rental period in days")
    months: float | None = Field(None, gt=0, description="rental period in months (720 h each)")
    market: Market | None = Field(None, description="restrict advice to one market; None = show all three")
    hourly_quote_cny: float | None = Field(None, gt=0, description="your own quote per card-hour (overrides the table)")
    monthly_quote_cny: float | None = Field(
        None, gt=0, description="your own quote per card-month (overrides the table)"
    )
    quotes_file: str | None = Field(None, description=f"YAML/CSV file of your quotes; default: env {QUOTES_ENV}")
    hours_per_day: float | None = Field(
        None, gt=0, le=24, description="usage pattern: hours the machine runs per day (with days_per_week, weeks)"
    )
    days_per_week: float = Field(7, gt=0, le=7, description="usage pattern: days per week it runs")
    weeks: float | None = Field(None, gt=0, le=520, description="usage pattern: project length in weeks")
    disk_gb: float = Field(0, ge=0, le=1_000_000, description="extra data disk kept while the machine is off, GB")
    disk_cny_per_gb_day: float | None = Field(
        None, ge=0, le=100, description="your platform's extra-disk price per GB per day (billed even when stopped)"
    )
    daily_quote_cny: float | None = Field(None, gt=0, description="your quote per card-day (按日), if offered")
    weekly_quote_cny: float | None = Field(None, gt=0, description="your quote per card-week (按周), if offered")
    spot_discount: float | None = Field(
        None, gt=0, lt=1, description="spot/preemptible discount off the hourly price (0.5 = half price)"
    )

    @model_validator(mode="after")
    def _one_period(self) -> "PriceInput":
        if sum(x is not None for x in (self.hours, self.days, self.months)) > 1:
            raise ValueError("时长只能给一个：小时、天或月 / give only one of hours, days or months")
        return self


class MarketPrice(BaseModel):
    market: str
    zh: str
    en: str
    hourly_cny: float
    monthly_cny: float


class BreakEven(BaseModel):
    """A monthly plan pays off when utilisation > monthly / (hourly × 720), hourly = the rental-platform typical rate.

    Values ≥ 1 mean the monthly price gives no saving over paying by the hour at that level.
    """

    hourly_reference_cny: float = Field(description="per card-hour used as the hourly alternative (typical)")
    vs_long_term_lease: float = Field(description="utilisation at which a long-term lease (low monthly) beats hourly")
    vs_platform_monthly: float = Field(description="utilisation at which the platform monthly (typical) beats hourly")
    hours_per_month_lease: float
    hours_per_month_platform: float


class BillingOption(BaseModel):
    mode: str = Field(description="hourly | daily | weekly | monthly | spot")
    zh: str
    en: str
    total_cny: float
    arithmetic: str = Field(description="how the total was computed, with the numbers")


class UsagePlan(BaseModel):
    """Cheapest billing mode for a usage pattern (hours/day × days/week × weeks), disk billed while off included."""

    hours_used: float
    calendar_days: float
    options: list[BillingOption]
    cheapest: str
    advice_zh: str
    advice_en: str
    not_priced: list[str] = Field(default_factory=list, description="modes left out for lack of a price (give a quote)")


class PriceOutput(BaseModel):
    gpu: str
    gpu_name: str
    price_key: str | None
    proxy: bool = Field(description="True when the price is a related card's (no data for this exact card)")
    count: int
    hourly_cny: Band = Field(description="per card-hour")
    monthly_cny: Band = Field(description="per card-month (720 h)")
    server_8card_monthly_cny: Band = Field(description="whole 8-card server per month")
    by_market: list[MarketPrice]
    period_hours: float | None
    card_hours: float | None = Field(None, description="count × period_hours: the GPU-hours the total is priced on")
    billing: Literal["hourly", "monthly"] | None = Field(None, description="billing used for total_cny")
    total_cny: Band | None = Field(None, description="count × period at the chosen billing")
    alternative_total_cny: Band | None = Field(None, description="the other billing, for comparison")
    break_even: BreakEven
    user_quote: Quote | None = None
    dated_points: list[dict[str, str]] = Field(default_factory=list)
    overseas_usd_h: dict[str, Any] | None = None
    confidence: str
    source: str
    as_of: str
    advice: list[str]
    warning: str
    usage_plan: UsagePlan | None = Field(None, description="billing from a usage pattern, when one is given")


def _quote_for(gpu: GpuSpec, inp: PriceInput) -> Quote | None:
    path = inp.quotes_file or os.environ.get(QUOTES_ENV)
    quote = load_quotes(path).get(gpu.id) if path else None
    if inp.hourly_quote_cny or inp.monthly_quote_cny:
        quote = Quote(
            gpu=gpu.id,
            hourly_cny=inp.hourly_quote_cny or (quote.hourly_cny if quote else None),
            monthly_cny=inp.monthly_quote_cny or (quote.monthly_cny if quote else None),
            provider="user input",
            date=None,
        )
    return quote


def _yuan(value: float) -> str:
    """¥ amounts as people read them: whole yuan from ¥100 up, cents below (¥6.5 per hour must not read ¥6)."""
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def _break_even_advice(u_lease: float, u_plat: float) -> str:
    parts_zh, parts_en = [], []
    pairs: tuple[tuple[float, str, str], ...] = (
        (u_plat, "平台包月", "platform monthly"),
        (u_lease, "长租/整机", "long-term lease"),
    )
    if abs(u_plat - u_lease) < 1e-9:  # one monthly price (e.g. the user's own quote): say it once
        pairs = ((u_plat, "包月", "monthly"),)
    for u, zh, en in pairs:
        if u < 1:
            parts_zh.append(f"{zh}在每月使用超过约 {u:.0%}（{u * HOURS_PER_MONTH:.0f} 小时）时比按小时便宜")
            parts_en.append(f"{en} beats hourly above ~{u:.0%} utilisation ({u * HOURS_PER_MONTH:.0f} h/month)")
        else:
            parts_zh.append(f"{zh}按这个价格不比按小时便宜（主要买的是稳定占卡），可以要长租折扣")
            parts_en.append(
                f"{en} is not cheaper than hourly at these prices (it buys guaranteed capacity); ask for a long-term discount"
            )
    return (
        "；".join(parts_zh)
        + "。短期测试按小时，长期项目包月/包年。 / "
        + "; ".join(parts_en)
        + ". Hourly for short tests, monthly/yearly for long projects."
    )


def price_band(
    gpu: str | GpuSpec, *, hourly_quote_cny: float | None = None, quotes_file: str | None = None
) -> tuple[Band, Band, PriceRow | None]:
    """Hourly and monthly per-card bands (CNY) for a GPU, user quotes applied. Raises when no data."""
    out = gpu_price(
        PriceInput(
            gpu=gpu if isinstance(gpu, str) else gpu.id, hourly_quote_cny=hourly_quote_cny, quotes_file=quotes_file
        )
    )
    return out.hourly_cny, out.monthly_cny, _prices()[1].get(out.price_key or "")


def gpu_price(inp: PriceInput) -> PriceOutput:
    meta = price_meta()
    gpu = resolve_gpu(inp.gpu)
    row, proxy = row_for(gpu)
    quote = _quote_for(gpu, inp)
    if row is None and not (quote and (quote.hourly_cny or quote.monthly_cny)):
        priced = sorted({g for r in _prices()[1].values() for g in r.gpus})
        raise ToolInputError(
            f"价格表里没有 {gpu.name} 的数据；可用 --hourly 给出你拿到的报价",
            f"No price data for {gpu.name}; pass your own quote (--hourly)",
            field="gpu",
            suggestions=[resolve_gpu(g).name for g in priced[:6]],
        )
    advice: list[str] = []
    if row is not None:
        hourly, monthly, server = row.hourly_cny, row.monthly_cny, row.server_8card_monthly_cny
        source, as_of, confidence = row.source, row.as_of, row.confidence
    else:  # quote only
        h = quote.hourly_cny or (quote.monthly_cny / HOURS_PER_MONTH)  # type: ignore[union-attr,operator]
        hourly = Band(low=h, typical=h, high=h)
        monthly = hourly.scaled(HOURS_PER_MONTH)
        server = monthly.scaled(8)
        source, as_of, confidence = "user quote", quote.date or "", "user"  # type: ignore[union-attr]
    if quote is not None:
        if quote.hourly_cny:
            hourly = Band(low=quote.hourly_cny, typical=quote.hourly_cny, high=quote.hourly_cny)
        if quote.monthly_cny:
            monthly = Band(low=quote.monthly_cny, typical=quote.monthly_cny, high=quote.monthly_cny)
            server = monthly.scaled(8)
        who = quote.provider or "user"
        advice.append(
            f"已用你的报价（{who}{'，' + quote.date if quote.date else ''}）覆盖默认价格。 / "
            f"Your quote ({who}{', ' + quote.date if quote.date else ''}) overrides the default ranges."
        )
        source = f"user quote ({who}); defaults: {source}"
        if quote.date:
            as_of = quote.date  # the figures shown are the quote's
    if proxy:
        advice.append(
            f"表中没有 {gpu.name} 的价格，暂用 {row.key} 的价格作参照，请向服务商询价。 / "  # type: ignore[union-attr]
            f"No price for {gpu.name}; showing {row.key} as a stand-in — ask the provider."
        )

    by_market = []
    for market, info in meta["markets"].items():
        if inp.market and market != inp.market:
            continue
        level = MARKET_LEVEL[market]
        by_market.append(
            MarketPrice(
                market=market,
                zh=info["zh"],
                en=info["en"],
                hourly_cny=round(getattr(hourly, level), 2),
                monthly_cny=round(getattr(monthly, level), 2),
            )
        )

    ref = hourly.typical * HOURS_PER_MONTH
    u_lease, u_plat = monthly.low / ref, monthly.typical / ref
    break_even = BreakEven(
        hourly_reference_cny=round(hourly.typical, 2),
        vs_long_term_lease=round(u_lease, 3),
        vs_platform_monthly=round(u_plat, 3),
        hours_per_month_lease=round(u_lease * HOURS_PER_MONTH),
        hours_per_month_platform=round(u_plat * HOURS_PER_MONTH),
    )

    period_hours = (
        inp.hours or (inp.days * 24 if inp.days else None) or (inp.months * HOURS_PER_MONTH if inp.months else None)
    )
    total = alt = None
    billing = None
    if period_hours is not None:
        by_hour = hourly.scaled(period_hours * inp.count)
        n_months = inp.months if inp.months else math.ceil(period_hours / HOURS_PER_MONTH)
        by_month = monthly.scaled(n_months * inp.count)
        if inp.months:
            billing, total, alt = "monthly", by_month, by_hour
        else:
            billing, total, alt = "hourly", by_hour, by_month
        cheaper = "hourly" if by_hour.typical <= by_month.typical else "monthly"
        h_txt, m_txt = _yuan(by_hour.typical), _yuan(by_month.typical)
        if cheaper == "hourly":
            advice.append(
                f"这段时长按小时计费更省（典型 ¥{h_txt} 对包月 ¥{m_txt}）。 / "
                f"Hourly billing is cheaper for this period (typical ¥{h_txt} vs monthly ¥{m_txt})."
            )
        else:
            advice.append(
                f"这段时长包月更省（典型 ¥{m_txt} 对按小时 ¥{h_txt}）。 / "
                f"A monthly plan is cheaper for this period (typical ¥{m_txt} vs hourly ¥{h_txt})."
            )
    advice.append(_break_even_advice(u_lease, u_plat))
    if inp.count >= 8 or gpu.is_sxm:
        if round(server.low) == round(server.high):
            advice.append(
                f"整台 8 卡服务器月租约 ¥{server.typical:,.0f}。 / A whole 8-card server is about "
                f"¥{server.typical:,.0f}/month."
            )
        else:
            advice.append(
                f"整台 8 卡服务器月租约 ¥{server.low:,.0f}–{server.high:,.0f}（典型 ¥{server.typical:,.0f}）。 / "
                f"A whole 8-card server is about ¥{server.low:,.0f}–{server.high:,.0f}/month (typical ¥{server.typical:,.0f})."
            )
    advice.append(f"{meta['hidden_costs_zh']} / {meta['hidden_costs_en']}")
    if confidence in ("low", "estimate"):
        advice.append(f"该价格可信度低（{confidence}）。 / This price has low confidence ({confidence}).")

    usage = usage_plan(inp, hourly.typical, monthly.typical) if inp.hours_per_day is not None else None
    if usage is not None:
        advice.insert(0, f"{usage.advice_zh} / {usage.advice_en}")
    return PriceOutput(
        usage_plan=usage,
        gpu=gpu.id,
        gpu_name=gpu.name,
        price_key=row.key if row else None,
        proxy=proxy,
        count=inp.count,
        hourly_cny=hourly.rounded(),
        monthly_cny=monthly.rounded(0),
        server_8card_monthly_cny=server.rounded(0),
        by_market=by_market,
        period_hours=period_hours,
        card_hours=round(period_hours * inp.count, 2) if period_hours is not None else None,
        billing=billing,
        total_cny=total.rounded(2) if total else None,
        alternative_total_cny=alt.rounded(2) if alt else None,
        break_even=break_even,
        user_quote=quote,
        dated_points=row.dated_points if row else [],
        overseas_usd_h=row.overseas_usd_h if row else None,
        confidence=confidence,
        source=source,
        as_of=as_of,
        advice=advice,
        warning=warning_text(),
    )


def usage_plan(inp: PriceInput, hourly: float, monthly: float) -> UsagePlan:
    """Total cost per billing mode for `count` cards used hours_per_day × days_per_week for `weeks`.

    hourly  = hours used × hourly price (+ extra disk billed every calendar day, running or not)
    daily   = days used × your per-day quote;  weekly = weeks × your per-week quote
    monthly = ⌈calendar days ÷ 30⌉ months × monthly price (the machine is yours all month; the disk is included)
    spot    = hours used × hourly × (1 − discount), with the risk of being reclaimed mid-run
    """
    weeks = inp.weeks or 1.0
    hpd = float(inp.hours_per_day or 24)
    days_used = inp.days_per_week * weeks
    hours = hpd * days_used
    cal_days = 7 * weeks
    n = inp.count
    disk = inp.disk_gb * (inp.disk_cny_per_gb_day or 0) * cal_days
    disk_txt = (
        f" + 磁盘 {inp.disk_gb:g} GB × ¥{inp.disk_cny_per_gb_day:g}/GB/日 × {cal_days:g} 日 = ¥{_yuan(disk)} / disk"
        if disk
        else ""
    )
    opts = [
        BillingOption(
            mode="hourly",
            zh="按量（关机不计卡时）",
            en="hourly (stopped = no card-hours)",
            total_cny=round(hours * hourly * n + disk, 2),
            arithmetic=f"{hpd:g} h × {inp.days_per_week:g} d × {weeks:g} wk = {hours:g} h × ¥{_yuan(hourly)} × {n}{disk_txt}",
        )
    ]
    months = math.ceil(cal_days / 30 - 1e-9)
    opts.append(
        BillingOption(
            mode="monthly",
            zh="包月",
            en="monthly",
            total_cny=round(months * monthly * n, 2),
            arithmetic=f"⌈{cal_days:g} d ÷ 30⌉ = {months} 月/months × ¥{_yuan(monthly)} × {n}",
        )
    )
    missing: list[str] = []
    if inp.daily_quote_cny:
        opts.append(
            BillingOption(
                mode="daily",
                zh="按日",
                en="daily",
                total_cny=round(math.ceil(days_used) * inp.daily_quote_cny * n + disk, 2),
                arithmetic=f"⌈{days_used:g}⌉ d × ¥{_yuan(inp.daily_quote_cny)} × {n}{disk_txt}",
            )
        )
    else:
        missing.append("daily")
    if inp.weekly_quote_cny:
        opts.append(
            BillingOption(
                mode="weekly",
                zh="按周",
                en="weekly",
                total_cny=round(math.ceil(weeks) * inp.weekly_quote_cny * n, 2),
                arithmetic=f"⌈{weeks:g}⌉ wk × ¥{_yuan(inp.weekly_quote_cny)} × {n}",
            )
        )
    else:
        missing.append("weekly")
    if inp.spot_discount:
        opts.append(
            BillingOption(
                mode="spot",
                zh="抢占式（可能被回收）",
                en="spot (can be reclaimed)",
                total_cny=round(hours * hourly * (1 - inp.spot_discount) * n + disk, 2),
                arithmetic=f"{hours:g} h × ¥{_yuan(hourly)} × (1 − {inp.spot_discount:g}) × {n}{disk_txt}",
            )
        )
    else:
        missing.append("spot")
    best = min(opts, key=lambda o: o.total_cny)
    second = sorted(opts, key=lambda o: o.total_cny)[1] if len(opts) > 1 else best
    zh = (
        f"按你的用法（每天 {hpd:g} 小时、每周 {inp.days_per_week:g} 天、共 {weeks:g} 周）最省的是{best.zh}：¥{_yuan(best.total_cny)}"
        f"（{best.arithmetic}），次选{second.zh} ¥{_yuan(second.total_cny)}。"
    )
    en = (
        f"For your pattern ({hpd:g} h/day, {inp.days_per_week:g} d/week, {weeks:g} weeks) the cheapest is {best.en}: "
        f"¥{_yuan(best.total_cny)} ({best.arithmetic}); next {second.en} ¥{_yuan(second.total_cny)}."
    )
    if missing:
        zh += f" 未比较 {'/'.join(missing)}：没有公开价格，给出报价即可比较。"
        en += f" Not compared: {'/'.join(missing)} (no public price — pass your quote)."
    return UsagePlan(
        hours_used=hours,
        calendar_days=cal_days,
        options=opts,
        cheapest=best.mode,
        advice_zh=zh,
        advice_en=en,
        not_priced=missing,
    )


# ---------------------------------------------------------------- common rule-of-thumb price statements


class SeedCheck(BaseModel):
    id: str
    claim_zh: str
    claim_en: str
    holds: bool
    evidence: str
    values: dict[str, float]


def seed_checks() -> list[SeedCheck]:
    """Check common rule-of-thumb price statements against knowledge/prices.yaml (used by tests and docs)."""
    rows = _prices()[1]
    a100, h100, r4090 = rows["a100_80gb"], rows["h100_80gb_sxm"], rows["rtx_4090"]
    checks: list[SeedCheck] = []

    lo, hi, typ = a100.monthly_cny.low, a100.monthly_cny.high, a100.monthly_cny.typical
    checks.append(
        SeedCheck(
            id="a100_monthly_thousands_to_10k",
            claim_zh="A100 80G 单卡月租几千元到一万元",
            claim_en="A100 80G: a few thousand to ten thousand RMB per card-month",
            holds=1000 <= lo and hi <= 10000 and lo <= typ <= hi,
            evidence=(
                f"per card-month ¥{lo:,.0f}–{hi:,.0f} (typical ¥{typ:,.0f}); it is per CARD — a whole 8-card server is "
                f"¥{a100.server_8card_monthly_cny.low:,.0f}+ (wholesale 2.5–3.8万, Jul 2026)"
            ),
            values={"monthly_low": lo, "monthly_typical": typ, "monthly_high": hi},
        )
    )

    r_hour = h100.hourly_cny.typical / a100.hourly_cny.typical
    r_month = h100.monthly_cny.typical / a100.monthly_cny.typical
    r_low = h100.monthly_cny.low / a100.monthly_cny.low  # wholesale floor vs floor
    checks.append(
        SeedCheck(
            id="h100_two_to_three_times_a100",
            claim_zh="H100 日租约为 A100 的两到三倍",
            claim_en="H100 costs about 2–3× A100 per day",
            holds=all(1.5 <= r <= 3.5 for r in (r_hour, r_month, r_low)),
            evidence=(
                f"typical hourly ratio {r_hour:.2f}×, typical monthly {r_month:.2f}×, wholesale floor {r_low:.2f}× "
                "(overseas on-demand is lower, 1.5–2.5×)"
            ),
            values={
                "hourly_ratio": round(r_hour, 3),
                "monthly_ratio": round(r_month, 3),
                "wholesale_ratio": round(r_low, 3),
            },
        )
    )

    share = r4090.monthly_cny.typical / a100.monthly_cny.typical
    checks.append(
        SeedCheck(
            id="rtx4090_cheap_monthly",
            claim_zh="RTX 4090 便宜，包月适合中小团队",
            claim_en="RTX 4090 is cheap; monthly plans suit small teams",
            holds=share < 0.5,
            evidence=(
                f"4090 typical ¥{r4090.monthly_cny.typical:,.0f}/card-month = {share:.0%} of an A100 80G card-month; "
                f"8-card 4090 server ¥{r4090.server_8card_monthly_cny.low:,.0f}+ per month"
            ),
            values={"monthly_typical": r4090.monthly_cny.typical, "share_of_a100": round(share, 3)},
        )
    )

    util = r4090.monthly_cny.typical / (r4090.hourly_cny.typical * HOURS_PER_MONTH)
    checks.append(
        SeedCheck(
            id="hourly_short_monthly_long",
            claim_zh="短期测试按小时，长期项目包月更划算",
            claim_en="Hourly for short tests, monthly for long projects",
            holds=util < 1,
            evidence=f"4090 monthly beats hourly above {util:.0%} utilisation (monthly / (hourly × 720))",
            values={"break_even_utilisation": round(util, 3)},
        )
    )
    return checks


# ---------------------------------------------------------------- providers whose prices are not carried


class ProviderInput(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    provider: str = Field(
        ..., description="provider as the user wrote it: 'GCP', 'AWS', 'Colab', 'TPU v3-256', 'RunPod'"
    )
    accelerator: str | None = Field(
        None, description="a TPU slice as written ('v3-256', 'v4-32'), for the GPU equivalent"
    )
    compare_gpu: str = Field("A100 80GB", description="GPU whose dense BF16 peak the TPU slice is compared with")


class TpuEquivalent(BaseModel):
    slice: str
    chips: int
    tflops_bf16_per_chip: float
    total_tflops_bf16: float
    gpu: str
    gpu_name: str
    gpu_dense_tflops_bf16: float
    gpu_count: int = Field(description="GPUs of compare_gpu with the same total dense BF16 peak (rounded up)")
    arithmetic: str
    source: str


class ProviderOutput(BaseModel):
    id: str
    name: str
    carried: bool = Field(False, description="False: GPU Advisor carries no price list for this provider")
    pricing_url: str
    stop_en: str
    stop_zh: str
    release_en: str
    release_zh: str
    keeps_billing_en: str
    keeps_billing_zh: str
    cheaper_en: str
    cheaper_zh: str
    tpu: TpuEquivalent | None = None
    instance_gpu: str | None = Field(None, description="the GPU of an instance family named ('p3' → V100), if any")
    source: str
    as_of: str


@lru_cache(maxsize=1)
def _providers() -> list[dict[str, Any]]:
    return list(load_yaml("prices.yaml").get("providers") or [])


def _alias_re(alias: str) -> str:
    body = re.escape(alias.lower()).replace(r"\ ", r"\s*")
    return rf"(?<![a-z0-9]){body}(?![a-z0-9])" if alias.isascii() else body


def find_providers(text: str) -> list[str]:
    """Providers (ids) whose aliases appear in the text, in order of first mention; [] if none is named.

    Why here: the aliases live in knowledge/prices.yaml next to the providers' pricing pages (one source)."""
    low = (text or "").lower()
    first: dict[str, int] = {}
    for row in _providers():
        for alias in row.get("aliases") or []:
            m = re.search(_alias_re(str(alias)), low)
            if m and m.start() < first.get(str(row["id"]), 1 << 30):
                first[str(row["id"])] = m.start()
    if "gcp" in first and "gcp_tpu" in first:
        del first["gcp"]  # "Google Cloud TPU": the TPU price list, not the GPU one
    m = re.search(r"(?<![a-z0-9_\-])(v\d+[a-z]?)-(\d+)(?![\d\-])", low)
    if m and "gcp_tpu" not in first:  # "v5e-8 一小时多少钱": a Cloud TPU slice named without the word TPU
        versions = {str(a["id"]) for r in _providers() for a in r.get("accelerators") or []}
        n = int(m.group(2))
        if (
            m.group(1).lower() in versions and n & (n - 1) == 0
        ):  # slices are powers of two; "deepseek-v3-0324" is not one
            first.pop("gcp", None)
            first["gcp_tpu"] = m.start()
    return sorted(first, key=first.__getitem__)


def find_provider(text: str) -> str | None:
    """The first provider named in the text (see find_providers)."""
    found = find_providers(text)
    return found[0] if found else None


_SLICE_RE = re.compile(r"(?<![a-z0-9])(v\d+[a-z]?)\s*-\s*(\d+)(?![\d])", re.I)


def find_tpu_slice(text: str) -> str | None:
    """'TPU v3-256' → 'v3-256' (a Cloud TPU slice name: version and TensorCore or chip count)."""
    m = _SLICE_RE.search(text or "")
    return f"{m.group(1).lower()}-{m.group(2)}" if m else None


def _tpu_equivalent(accelerator: str, row: dict[str, Any], compare_gpu: str) -> TpuEquivalent:
    m = _SLICE_RE.search(accelerator)
    accs = {str(a["id"]): a for a in row.get("accelerators") or []}
    if not m or m.group(1).lower() not in accs:
        raise ToolInputError(
            f"不认识的 TPU 规格「{accelerator}」；可用：{'、'.join(accs)}（如 v3-256）",
            f"Unknown TPU slice '{accelerator}'; known versions: {', '.join(accs)} (e.g. v3-256)",
            field="accelerator",
            suggestions=[f"{a}-8" for a in accs],
        )
    acc, n = accs[m.group(1).lower()], int(m.group(2))
    chips = n // int(acc["cores_per_chip"]) if acc["name_counts"] == "tensorcores" else n
    if chips < 1:
        raise ToolInputError("TPU 切片至少 1 颗芯片", "A TPU slice has at least one chip", field="accelerator")
    per_chip = float(acc["tflops_bf16_per_chip"])
    total = chips * per_chip
    gpu = resolve_gpu(compare_gpu)
    dense = float(gpu.dense_tflops("bf16") or 0)
    if dense <= 0:
        raise ToolInputError(f"{gpu.name} 没有 BF16 数据", f"No BF16 figure for {gpu.name}", field="compare_gpu")
    count = math.ceil(total / dense - 1e-9)
    unit = "TensorCore" if acc["name_counts"] == "tensorcores" else "chip"
    arithmetic = (
        f"{m.group(1).lower()}-{n} = {n} {unit}s = {chips} chips × {per_chip:g} TFLOPS = {total:,.0f} TFLOPS; "
        f"÷ {dense:g} ({gpu.name} dense BF16) = {total / dense:.1f} → {count}"
    )
    return TpuEquivalent(
        slice=f"{m.group(1).lower()}-{n}",
        chips=chips,
        tflops_bf16_per_chip=per_chip,
        total_tflops_bf16=total,
        gpu=gpu.id,
        gpu_name=gpu.name,
        gpu_dense_tflops_bf16=dense,
        gpu_count=count,
        arithmetic=arithmetic,
        source=str(acc["source"]),
    )


def instance_family(text: str) -> tuple[str, str] | None:
    """(family, GPU) of a cloud instance family named in the text ('AWS p3' → ('p3', 'V100')), from
    knowledge/prices.yaml `instance_gpus`; None if none is named."""
    low = (text or "").lower()
    for row in _providers():
        for family, gpu in (row.get("instance_gpus") or {}).items():
            if re.search(rf"(?<![a-z0-9]){re.escape(str(family).lower())}(?![a-z0-9])", low):
                return str(family), str(gpu)
    return None


def instance_gpu(text: str) -> str | None:
    """The GPU of the instance family named in the text, if any (see instance_family)."""
    found = instance_family(text)
    return found[1] if found else None


def provider_pricing(inp: ProviderInput) -> ProviderOutput:
    """What GPU Advisor can say about a provider whose prices it does not carry: where the official price list
    is, how stopping differs from deleting there, the cheaper tier's name, and for a TPU slice the GPU count with
    the same peak compute (so the China-market price of comparable compute can be shown beside it)."""
    rows = {str(r["id"]): r for r in _providers()}
    # the id itself ("vast", as the intent passes it) or any alias ("vast.ai")
    pid = (
        inp.provider.strip().lower()
        if inp.provider.strip().lower() in rows
        else find_provider(inp.provider) or find_provider(inp.provider.replace("-", " "))
    )
    if pid is None:
        raise ToolInputError(
            f"不认识的服务商「{inp.provider}」",
            f"Unknown provider '{inp.provider}'",
            field="provider",
            suggestions=[str(r["name"]) for r in _providers()],
        )
    row = rows[pid]
    slice_ = inp.accelerator or (find_tpu_slice(inp.provider) if pid == "gcp_tpu" else None)
    tpu = _tpu_equivalent(slice_, row, inp.compare_gpu) if slice_ and row.get("accelerators") else None
    keys = ("stop_en", "stop_zh", "release_en", "release_zh", "keeps_billing_en", "keeps_billing_zh")
    return ProviderOutput(
        id=pid,
        name=str(row["name"]),
        pricing_url=str(row["pricing_url"]),
        cheaper_en=str(row.get("cheaper_en") or ""),
        cheaper_zh=str(row.get("cheaper_zh") or ""),
        tpu=tpu,
        instance_gpu=instance_gpu(inp.provider) if row.get("instance_gpus") else None,
        source=str(row["source"]),
        as_of=str(row["as_of"]),
        **{k: str(row[k]) for k in keys},
    )


TOOLS = [
    ToolSpec(
        name="gpu_price",
        description=(
            "China GPU rental price ranges in CNY (RMB): per card-hour and per card-month as low/typical/high, "
            "per 8-card server per month, by market (long-term lease, rental platform, public cloud on-demand), "
            "total for a period (hours/days/months × count), hourly-vs-monthly break-even utilisation, dated "
            "source points, as_of and confidence. User quotes override defaults. With a usage pattern (hours_per_day, "
            "days_per_week, weeks, disk_gb + disk_cny_per_gb_day billed while off, daily/weekly quotes, spot_discount) it "
            "returns usage_plan: the total per billing mode with the arithmetic and the cheapest. Prices move — confirm with the provider."
        ),
        input_model=PriceInput,
        func=gpu_price,
    ),
    ToolSpec(
        name="provider_pricing",
        description=(
            "For a provider whose prices GPU Advisor does NOT carry (GCP, Cloud TPU, AWS, Azure, Colab, Lambda, RunPod, "
            "vast.ai): its official pricing page to confirm, how stopping differs from deleting/terminating there (what "
            "keeps billing), its cheaper tier (spot/preemptible), and for a TPU slice ('v3-256') the chips, peak BF16 "
            "TFLOPS and the number of GPUs with the same dense peak. Never returns a price."
        ),
        input_model=ProviderInput,
        func=provider_pricing,
    ),
]
