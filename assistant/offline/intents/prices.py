"""Rental prices and billing: the market ranges for a card, the user's own quotes (both → break-even)."""

from __future__ import annotations

import re

from assistant.offline.intents import args as A
from assistant.offline.intents.args import PRICE
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.reading.money import MoneyQuote
from assistant.offline.types import ToolCall, ToolResult

NAME = PRICE


def applies(f: Frame) -> bool:
    return "price" in f.cues and bool(f.gpus)


def _whole_server(f: Frame, gpu: str) -> int | None:
    """「济南能租H100吗？一个月多少」: a card China rents only as a whole 8-GPU server (knowledge/rentability.yaml)
    is priced as that server when availability is asked and no count was said — the one price a renter can pay."""
    if "asked_availability" not in f.mentions:
        return None
    from tools.rentability import best_offer

    card = A.card_name(f, gpu)
    if not card:
        return None
    try:
        offer, _ = best_offer(card)
    except Exception:  # a card the table does not resolve: priced per card as asked
        return None
    return 8 if offer is not None and offer.unit == "server_8" else None


def calls(f: Frame) -> list[ToolCall]:
    # Both quotes → the tool's break-even on them; a single quote is compared with the market instead
    # (passing it would replace the market ranges).
    both = bool(f.hourly_quote_cny and f.monthly_quote_cny)
    # a usage pattern (每天8小时、一周三天、做6周) → the tool's usage plan: the cheapest billing mode with its sums
    usage = (
        {"hours_per_day": f.hours_per_day or 24, "days_per_week": f.days_per_week or 7, "weeks": f.weeks}
        if (f.hours_per_day or f.days_per_week)
        else None
    )
    period = usage or A.period_args(f)
    out = [
        A.call(
            NAME,
            "gpu_price",
            gpu=A.card_name(f, gpu),
            gpu_count=f.gpu_count or _whole_server(f, gpu),
            hourly_quote_cny=f.hourly_quote_cny if both else None,
            monthly_quote_cny=f.monthly_quote_cny if both else None,
            **period,
        )
        for gpu in f.gpus[:4]
    ]
    if "asked_availability" in f.mentions:  # 「青岛有没有4090租，多少钱」: can it be rented, then its price
        out[:0] = [A.call(NAME, "gpu_rentability", gpu=A.card_name(f, gpu)) for gpu in f.gpus[:2]]
    if "place_shandong" in f.mentions:  # the guide on renting in Shandong says whether local prices differ
        from tools.lang import has_cjk

        query = "山东 济南 青岛 价格 全国价" if has_cjk(f.text) else "Shandong Jinan Qingdao price national prices"
        out.append(A.call(NAME, "search_guide", query=query, k=1, doc_id="shandong-datacenters"))
    out.append(A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2))
    if f.daily_quote_cny:
        # 「8卡A800一天2000元」: the user's day price for the cards named, per hour and per card-hour, before the market
        days = f.period_count if f.period_unit == "day" and f.period_count else 1
        out.insert(
            0,
            A.call(
                NAME,
                "quote_cost",
                amount=f.daily_quote_cny,
                currency="CNY",
                per="day",
                hours=24.0 * days,
                count=1,
                gpus_in_quote=f.gpu_count if f.gpu_count and f.gpu_count > 1 else None,
                # 「一秒只能出15个token」: the quote per million tokens at the user's own generation speed
                output_tokens_per_s=_serving_speed(f),
            ),
        )
    single = (f.hourly_quote_cny is None) != (f.monthly_quote_cny is None)
    if single and f.period_hours and not usage:
        # "报价一个月3万，我只用10天" / "2块钱一小时，训练30小时": the user's own rate × the user's hours first
        amount, per = (f.hourly_quote_cny, "hour") if f.hourly_quote_cny else (f.monthly_quote_cny, "month")
        out.insert(
            0,
            A.call(
                NAME, "quote_cost", amount=amount, currency="CNY", per=per, hours=f.period_hours, count=f.gpu_count or 1
            ),
        )
    return out


def _serving_speed(f: Frame) -> float | None:
    """A generation speed the user measured (not a training run's tokens/s)."""
    from assistant.offline.intents.serving import measured_tps

    return None if f.training else measured_tps(f)


# ---- the user's own quote in their currency: the hours they run × their rate ---------------------
QUOTE = "quote"


def _quote(f: Frame) -> MoneyQuote | None:
    from assistant.offline.reading.money import read_money_quote

    return read_money_quote(f.text)


_DEPLOY_RE = re.compile(r"deployment|endpoint|serverless|instances?|replicas?|部署|实例", re.I)
_COMPUTE_RE = re.compile(
    r"\bvm\b|gpu|instance|cloud|server|train|training|inference|a100|h100|显卡|服务器|训练|云|实例|机器", re.I
)


def applies_quote(f: Frame) -> bool:
    q = _quote(f)
    # "max $84.24/day for one instance": a per-day deployment ceiling is one day of running
    per_day = q is not None and q.per == "day" and bool(_DEPLOY_RE.search(f.text))
    has_hours = q is not None and (q.hours is not None or bool(f.period_hours) or bool(q.gpu_hours) or per_day)
    return q is not None and has_hours and (f.in_domain or bool(_COMPUTE_RE.search(f.text)))


def quote_calls(f: Frame) -> list[ToolCall]:
    """quote_cost at the user's rate for the user's hours; the China market price of the named card
    beside it (in CNY, said to be the China price), never a converted figure."""
    q = _quote(f)
    if q is None:
        return []
    hours = q.hours if q.hours is not None else f.period_hours  # "for 0 hours" is refused by the tool, not replaced
    if hours is None and q.per == "day":
        hours = 24.0  # a per-day deployment figure: one day of running
    count = f.gpu_count or 1
    if q.gpu_hours and q.per_gpu_hour is not None:
        # "1845 and 3310 A100 GPU hours … ~$0.50/A100 GPU hour": the GPU-hours are the hours, one GPU at that rate
        hours, count = sum(q.gpu_hours), 1
    elif q.gpu_hours and hours is None and q.per == "hour":
        hours, count = sum(q.gpu_hours), 1  # 「300 A100 卡时，按 $2 每小时」: the GPU-hours at the hourly rate
    elif q.rate_gpus and q.rate_gpus > 1:
        count = 1  # "$8 per hour for 4xA100": the rate is already for the whole set
    bundle_gpus = None
    if q.per == "total":  # "$100 on 8xA100 for 3 hours": the amount covers the whole set for those hours
        count = 1
        n = q.rate_gpus or f.gpu_count
        bundle_gpus = n if n and n > 1 else None
    out = [
        A.call(
            QUOTE,
            "quote_cost",
            amount=q.amount,
            currency=q.currency if q.currency in ("USD", "EUR", "GBP") else "other",
            per=q.per,
            hours=hours,
            count=count,
            gpu_hours_parts=q.gpu_hours if len(q.gpu_hours) >= 2 else [],
            claimed_total=q.claimed_total if q.claimed_total and q.claimed_total != q.amount else None,
            **({"gpus_in_quote": bundle_gpus} if bundle_gpus else {}),
        )
    ]
    from assistant.offline.intents.train_time import applies_published, published_calls

    if applies_published(f):  # "Alpaca could be reproduced for $24": the authors' own cards and hours beside it
        out += [c for c in published_calls(f, QUOTE) if c.name == "published_run"]
    for gpu in f.gpus[:1]:
        out.append(A.call(QUOTE, "gpu_price", gpu=A.card_name(f, gpu), gpu_count=f.gpu_count, hours=hours))
    if _providers(f):
        # "$294/month on GCP": the provider's own pricing page and stop-vs-delete billing; the China price of the
        # same card (or the common one) beside the user's figure
        out += _provider_calls(f, QUOTE)
        if not f.gpus:
            out += _china_calls(f, QUOTE, hours)
    return out


# ---- a provider whose prices are not carried (GCP, TPU, AWS, Azure, Colab, Lambda, RunPod, vast.ai) -------
ELSEWHERE = "price_elsewhere"
BILLING = "billing_stop"

# "how much / cost / charged / 多少钱 / 费用": a price question (the reading layer's price cue misses some)
_MONEY_RE = re.compile(
    r"多少钱|多少美元|多少人民币|费用|花费|花多少|价格|价钱|报价|收费|计费|扣费|账单|贵不贵|便宜|"
    r"how much|cost|price|pricing|charged?|bill(?:ed|ing)?|fees?|\$\s*\d|\busd\b|dollars?|cheap|expensive",
    re.I,
)
# "stopped / shut down / idle … still charged?": stop versus release
_STOP_RE = re.compile(
    r"关机|停机|关掉|关了|关闭|停掉|停了|停止|暂停|闲置|不用的时候|释放|销毁|"
    r"\bstop(?:s|ped|ping)?\b|shut\s*(?:it\s*)?down|idle|deallocat\w*|paused?|terminat\w*",
    re.I,
)
_CHARGE_RE = re.compile(
    r"收费|扣费|扣钱|还扣|扣计算|计算单元|计费|花钱|收钱|还要钱|要钱|算钱|charg\w*|bill\w*|fees?|\bpay\w*|cost\w*|"
    r"compute units?",
    re.I,
)
# the common card on Chinese rental platforms (knowledge/gpus.yaml note on the RTX 4090): the China-market
# reference when the question names a provider but no card
REFERENCE_GPU = "RTX 4090"


def _providers(f: Frame) -> list[str]:
    from tools.prices import find_providers

    return find_providers(f.text)


def applies_elsewhere(f: Frame) -> bool:
    """ "GCP 上训练两天要多少钱" / "Cloud TPU v3-256 跑 24 小时多少美元": a provider this table does not price."""
    # the money words first: the provider table (tools.prices) is not imported for questions without them
    return ("price" in f.cues or bool(_MONEY_RE.search(f.text))) and bool(_providers(f))


def applies_billing(f: Frame) -> bool:
    """ "关机了还扣钱吗" / "if I just stop the instance, am I still charged?": stop versus release."""
    if f.is_log or has_size(f):  # a job with a model size is a sizing question that mentions money in passing
        return False
    return bool(_STOP_RE.search(f.text) and _CHARGE_RE.search(f.text))


def _provider_calls(f: Frame, intent: str) -> list[ToolCall]:
    from tools.prices import find_tpu_slice, instance_family

    out = []
    family = instance_family(f.text)
    for pid in _providers(f)[:3]:
        slice_ = find_tpu_slice(f.text) if pid == "gcp_tpu" else None
        # the instance family as written ("p3"), so the tool reports the GPU it carries
        provider = f"{pid} {family[0]}" if family and pid == "aws" else pid
        out.append(A.call(intent, "provider_pricing", provider=provider, accelerator=slice_))
    return out


def _china_calls(f: Frame, intent: str, hours: float | None) -> list[ToolCall]:
    """The China-market price of the same card (or of the common card when none is named), for comparison."""
    from tools.prices import find_tpu_slice, instance_gpu

    if "gcp_tpu" in _providers(f) and find_tpu_slice(f.text):
        return []  # the TPU slice's GPU equivalent is priced in follow_ups, once its count is known
    # the card named, else the card of an instance family named ("AWS p3" → V100), else the common card
    named = instance_gpu(f.text)
    gpus = f.gpus[:2] or [named or REFERENCE_GPU]
    period = {"hours": hours} if hours else {}
    return [
        A.call(intent, "gpu_price", gpu=A.card_name(f, g) if f.gpus else g, gpu_count=f.gpu_count, **period)
        for g in gpus
    ]


def elsewhere_calls(f: Frame) -> list[ToolCall]:
    out = _provider_calls(f, ELSEWHERE)
    out += _china_calls(f, ELSEWHERE, f.period_hours)
    if applies_billing(f):
        out.append(A.call(ELSEWHERE, "search_guide", query=_billing_query(f), k=2, doc_id=_BILLING_DOC))
    return out


def elsewhere_follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """A TPU slice priced as its GPU equivalent in China: the same dense BF16 peak, the user's hours."""
    done = {r.name for r in results}
    if "gpu_price" in done:
        return []
    for r in results:
        tpu = r.result.get("tpu") if r.name == "provider_pricing" and isinstance(r.result, dict) else None
        if isinstance(tpu, dict) and tpu.get("gpu_count"):
            period = {"hours": f.period_hours} if f.period_hours else {}
            return [A.call(ELSEWHERE, "gpu_price", gpu=tpu["gpu"], count=int(tpu["gpu_count"]), **period)]
    return []


_BILLING_DOC = "billing-hourly-monthly"


# the section's own words: a long question about fees ranks the stop-versus-release section below the threshold
_BILLING_QUERY = {
    "zh": "关机（停止）了还收费吗 停止和释放的区别 磁盘 公网IP 照收",
    "en": "Is a stopped instance still billed? Stop versus release: disks and static IPs keep billing, terminate",
}


def _billing_query(f: Frame) -> str:
    zh = bool(re.search(r"[\u4e00-\u9fff]", f.text))
    return _BILLING_QUERY["zh" if zh else "en"]


def billing_calls(f: Frame) -> list[ToolCall]:
    """The guide's stop-versus-release passage, and the named providers' own words for it."""
    out = [A.call(BILLING, "search_guide", query=_billing_query(f), k=2, doc_id=_BILLING_DOC)]
    return _provider_calls(f, BILLING) + out
