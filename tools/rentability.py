"""What can actually be rented in China: rent unit, availability and billing modes per GPU × market.

Data: knowledge/rentability.yaml (evidence per row, dated). Prices are not duplicated there: each market points
at a price level of knowledge/prices.yaml (low = long-term lease ÷ 8, typical = platform, high = public cloud).
The planner calls `offers(gpu_id, market)` so it proposes only what a renter can get, costs whole 8-GPU servers
where that is the unit, and says why a card is absent.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools.data import load_yaml
from tools.errors import ToolInputError
from tools.gpus import resolve_gpu
from tools.registry import ToolSpec

MarketKind = Literal["rental_platform", "public_cloud", "idc_lease"]
MARKETS: tuple[MarketKind, ...] = ("rental_platform", "public_cloud", "idc_lease")
AVAIL_ORDER = {"common": 0, "limited": 1, "rare": 2}


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return load_yaml("rentability.yaml")


def market_meta(market: str) -> dict[str, Any]:
    return dict(_data()["meta"]["markets"][market])


class Offer(BaseModel):
    """One GPU in one market."""

    gpu: str
    market: str
    market_zh: str
    market_en: str
    unit: Literal["card", "server_8"]
    availability: Literal["common", "limited", "rare", "not_offered"]
    availability_zh: str
    risk: int | None = Field(None, description="0 common, 1 limited, 2 rare; None when not offered")
    billing: list[str] = Field(default_factory=list, description="billing modes the market sells")
    price_level: str = Field(description="which level of knowledge/prices.yaml prices this market")
    min_term_months: float = 0
    evidence: str | None = None
    why_zh: str | None = None
    why_en: str | None = None

    @property
    def offered(self) -> bool:
        return self.availability != "not_offered"


def offers(gpu: str) -> list[Offer]:
    """Every market's row for a GPU (resolved id). A GPU with no row is 'not researched': nothing is offered."""
    gid = resolve_gpu(gpu).id
    meta = _data()["meta"]
    row = next((r for r in _data()["gpus"] if r["gpu"] == gid), None)
    out: list[Offer] = []
    for m in MARKETS:
        mm = meta["markets"][m]
        cell = (row or {}).get(m) or {
            "unit": "card",
            "availability": "not_offered",
            "why_zh": "没有该卡在此市场的出租记录",
            "why_en": "no record of this card being rented in this market",
        }
        av = cell["availability"]
        out.append(
            Offer(
                gpu=gid,
                market=m,
                market_zh=mm["zh"],
                market_en=mm["en"],
                unit=cell["unit"],
                availability=av,
                availability_zh=meta["availability"][av]["zh"],
                risk=meta["availability"][av]["risk"],
                billing=list(mm["billing"]) if av != "not_offered" else [],
                price_level=mm["price_level"],
                min_term_months=float(mm.get("min_term_months", 0)),
                evidence=cell.get("evidence"),
                why_zh=cell.get("why_zh"),
                why_en=cell.get("why_en"),
            )
        )
    return out


def best_offer(gpu: str, market: str | None = None) -> tuple[Offer | None, list[Offer]]:
    """The market a renter would use: the one asked for, else per-card before whole servers, then the most available.
    Returns (offer or None, all rows) so the caller can explain an absence."""
    rows = offers(gpu)
    pool = [o for o in rows if o.offered and (market in (None, "any") or o.market == market)]
    if not pool:
        return None, rows
    pool.sort(key=lambda o: (o.unit != "card", AVAIL_ORDER[o.availability], MARKETS.index(o.market)))
    return pool[0], rows


def absence_reason(rows: list[Offer], market: str | None) -> tuple[str, str]:
    """Why nothing is offered (zh, en)."""
    asked = [o for o in rows if market in (None, "any") or o.market == market]
    zh = "；".join(f"{o.market_zh.split('（')[0]}：{o.why_zh or '不提供'}" for o in asked)
    en = "; ".join(f"{o.market_en.split(' (')[0]}: {o.why_en or 'not offered'}" for o in asked)
    return zh, en


class RentabilityInput(BaseModel):
    gpu: str = Field(..., description="GPU name: 'H100', '4090', 'A800', 'L20'")
    market: Literal["any", "rental_platform", "public_cloud", "idc_lease"] = Field(
        "any",
        description="rental_platform (AutoDL/恒源云/矩池云…), public_cloud (阿里云/腾讯云/火山引擎…), idc_lease, or any",
    )


class RentabilityOutput(BaseModel):
    gpu: str
    gpu_name: str
    best: Offer | None = Field(None, description="where a renter would get it (per card first, then whole servers)")
    markets: list[Offer]
    note_zh: str
    note_en: str
    as_of: str


def gpu_rentability(inp: RentabilityInput) -> RentabilityOutput:
    spec = resolve_gpu(inp.gpu)
    best, rows = best_offer(spec.id, inp.market)
    meta = _data()["meta"]
    if best is None:
        zh, en = absence_reason(rows, inp.market)
        note_zh, note_en = (
            f"{spec.name} 在所选市场租不到：{zh}。",
            f"{spec.name} cannot be rented in that market: {en}.",
        )
    elif best.unit == "server_8":
        note_zh = f"{spec.name} 只能整台 8 卡服务器租（{best.market_zh}，{best.availability_zh}），按月起租。"
        note_en = f"{spec.name} is rented only as whole 8-GPU servers ({best.market_en}, {best.availability}), monthly minimum."
    else:
        note_zh = f"{spec.name} 可按卡租（{best.market_zh}，{best.availability_zh}）。"
        note_en = f"{spec.name} can be rented per card ({best.market_en}, {best.availability})."
    if spec.id in ("h100_sxm_80gb", "h200_sxm_141gb", "b200_hgx", "a100_80gb_sxm"):
        note_zh += meta["export_control_note_zh"]
        note_en += " " + meta["export_control_note_en"]
    return RentabilityOutput(
        gpu=spec.id,
        gpu_name=spec.name,
        best=best,
        markets=rows,
        note_zh=note_zh,
        note_en=note_en,
        as_of=str(meta["as_of"]),
    )


def check_market(market: str | None) -> str | None:
    if market in (None, "any"):
        return None
    if market not in MARKETS:
        raise ToolInputError(
            f"未知市场 {market}", f"Unknown market {market}", field="market", suggestions=["any", *MARKETS]
        )
    return market


TOOLS = [
    ToolSpec(
        name="gpu_rentability",
        description=(
            "Can this GPU be rented in China, and how: per market (rental_platform = AutoDL/恒源云/矩池云…, public_cloud = "
            "阿里云/腾讯云/火山引擎/百度智能云, idc_lease = whole-server IDC lease) the rent unit (card | 8-GPU server), "
            "availability (common/limited/rare/not_offered), billing modes (hourly/daily/weekly/monthly/yearly/spot), "
            "minimum term, dated evidence, and why a card is absent (e.g. export-controlled H100 only as 8-card servers)."
        ),
        input_model=RentabilityInput,
        func=gpu_rentability,
    ),
]
