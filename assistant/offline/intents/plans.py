"""Plans: configurations ranked for the job under the user's budget, deadline and card limits. When
nothing is feasible the memory estimate shows why; a budget alone becomes hours of the best option."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from assistant.offline.intents import args as A
from assistant.offline.intents.args import PLAN
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.reading.routes import says_api, says_self_host
from assistant.offline.types import ToolCall, ToolResult
from tools.lang import has_cjk

if TYPE_CHECKING:
    from tools.reference_models import ReferenceModel

NAME = PLAN


# "需要什么硬件配置" / "hardware requirements": a configuration question in other words
_HARDWARE_RE = re.compile(
    r"(?:什么|啥)(?:样的)?(?:硬件|机器|服务器)(?:配置)?|需要.{0,4}硬件配置|what hardware (?:do|would|should)",
    re.I,
)


# "what TP/PP should I use": a layout question — the count and its TP × PP (find_min_gpus), not a ranked plan
_LAYOUT_RE = re.compile(
    r"\btp\b|\bpp\b|tensor[- ]parallel|pipeline[- ]parallel|张量并行|流水线并行|模型并行|3d 并行|tp\s*[/和&]\s*pp",
    re.I,
)


# 「8张A800训练也内存不足」: the user already tried a configuration and it failed — the job on their cards answers it
_TRIED_RE = re.compile(r"(?:内存|显存)(?:不足|不够|溢出)|爆显存|\boom\b|out of memory", re.I)


def applies(f: Frame) -> bool:
    tried = bool(f.gpus and f.gpu_count and ("oom_report" in f.mentions or _TRIED_RE.search(f.text)))
    if tried and has_size(f) and not (f.budget_cny or f.deadline_hours):
        return False
    if "how_many" in f.cues and f.training and not (f.budget_cny or f.deadline_hours) and _LAYOUT_RE.search(f.text):
        return False
    return (
        ("plan" in f.cues or bool(_HARDWARE_RE.search(f.text)))
        and (has_size(f) or bool(f.budget_cny) or bool(f.deadline_hours))
        or (has_size(f) and bool(f.budget_cny or f.deadline_hours))
    )


def _mode(f: Frame) -> str:
    """The plan's job. A requirements question with no training word is serving ("system requirements
    of X", "跑 X 要什么配置"); a fine-tune named beside a deployment ("离线部署…如果要微调") is training."""
    if f.training and f.mode == "inference":
        return "full" if not f.finetune else "lora" if "lora" in f.text.lower() else "full"
    if not f.training and f.mode is None and not f.finetune:
        return "inference"
    return A.plan_mode(f)


def _plan_data(f: Frame, mode: str) -> dict:
    """The training data the plan times: tokens if said; samples × their length (the average chat sample of
    knowledge/mfu.yaml when no length is said, as the time estimate does) × epochs."""
    if mode == "inference" or f.tokens or not f.samples:
        return {"tokens": f.tokens}
    from assistant.offline.intents.train_time import chat_tokens_per_sample

    per = f.sample_tokens or chat_tokens_per_sample()
    return {"tokens": f.samples * per * (f.epochs or 1)}


def calls(f: Frame) -> list[ToolCall]:
    mode = _mode(f)
    return [
        A.call(
            NAME,
            "plan_configurations",
            **A.train_model_args(f),
            mode=mode,
            **_plan_data(f, mode),
            budget=f.budget_cny,
            deadline=f.deadline_hours,
            # serving at the checkpoint's own precision: DeepSeek-R1 ships FP8 (672 GB), not 1.3 TB of BF16
            precision=f.precision or ("fp8" if mode == "inference" and A.native_fp8(f.model) else None),
            max_gpus=f.gpu_count,
            gpus=[A.gpu_arg(f, g) for g in f.gpus[:4]] or None,
            **(
                {"context": f.context, "concurrency": f.concurrency}
                if mode == "inference"
                else {"seq_len": f.context, "micro_batch": f.batch}
            ),
        ),
        A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2),
    ]


def follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    out: list[ToolCall] = []
    done = {r.name for r in results}
    for r in results:  # no feasible plan under the user's constraints → show why, with the memory estimate
        if (
            r.name == "plan_configurations"
            and not r.error
            and not any(o.get("feasible", True) for o in r.result.get("options") or [] if isinstance(o, dict))
        ):
            mem = {k: v for k, v in A.memory_kwargs(f).items() if k != "gpu"}
            if f.gpus:
                mem["gpu"] = A.gpu_arg(f)
            elif f.vram_gb:
                mem["gpu"] = f"{f.vram_gb:g}GB"
            mem["mode"] = r.result.get("mode") or mem.get("mode")
            out.append(A.call(NAME, "estimate_memory", **mem))
    for r in results:  # "预算2千块 能微调吗": how many hours the budget rents of the best option (gpu_price checks it)
        if (
            r.name == "plan_configurations"
            and not r.error
            and f.budget_cny
            and not f.tokens
            and not f.deadline_hours
            and "gpu_price" not in done
        ):
            best = next(
                (o for o in r.result.get("options") or [] if isinstance(o, dict) and o.get("feasible", True)), None
            )
            rate = ((best or {}).get("cost_cny") or {}).get("mid")
            if best and isinstance(rate, (int, float)) and rate > 0 and "hour" in str(best.get("cost_basis") or ""):
                hours = int(f.budget_cny // rate)
                if hours >= 1:
                    out.append(
                        A.call(
                            NAME,
                            "gpu_price",
                            gpu=best.get("gpu") or best.get("gpu_name"),
                            gpu_count=best.get("count"),
                            hours=hours,
                        )
                    )
                    done.add("gpu_price")
    return out


# ---- buy vs rent, self-host vs API: a short answer keyed to utilisation, with the prices --------
OWN_VS_RENT = "own_vs_rent"
HOST_VS_API = "host_vs_api"

_BUY_RE = re.compile(
    r"购买|买卡|买显卡|买服务器|自购|采购|自己买|买一台|买.{0,8}(?:主机|机器|显卡|服务器|卡)|本地的?硬件|自建机房|"
    r"\bbuy(?:ing)?\b|\bpurchas|\bown (?:hardware|gpus?|a gpu)|build (?:my|a) (?:own )?(?:rig|server|workstation)",
    re.I,
)
_RENT_WORD_RE = re.compile(r"租|云计算|云服务|云上|上云|cloud|\brent|rental|\blease", re.I)
_EVERYONE_RENTS_RE = re.compile(r"(?:大家|都是|一般|通常|普遍).{0,6}租|租.{0,4}还是.{0,4}买|买.{0,4}还是.{0,4}租", re.I)


def applies_own_vs_rent(f: Frame) -> bool:
    if f.training and not _BUY_RE.search(f.text):
        return False
    buy, rent = bool(_BUY_RE.search(f.text)), bool(_RENT_WORD_RE.search(f.text))
    return (buy and rent) or bool(_EVERYONE_RENTS_RE.search(f.text))


def applies_host_vs_api(f: Frame) -> bool:
    """ "本地部署还是调API", with or without a volume: a volume ("每天100万token") decides it against the
    break-even, so it is passed to the serving plan rather than answered as a plain serving plan."""
    return says_api(f.text) and says_self_host(f.text)


def size_b(f: Frame) -> float:
    """The model's size in billions: as said, else the catalog's count, else a reference model's, else 0."""
    if f.params_b:
        return f.params_b
    if f.model and A.catalog_has(f.model):
        try:
            from tools.models import resolve_model

            return float(resolve_model(f.model, None).params) / 1e9
        except Exception:  # a half-written row: size unknown
            return 0.0
    ref = reference(f)
    return ref.params_b if ref else 0.0


def serving_card(f: Frame) -> str:
    """The card a serving plan prices when none is named: one rented per card in China
    (knowledge/rentability.yaml) — a RTX 4090 for models up to ~40B (4-bit or split over a few cards), an H20
    (96 GB, 4.0 TB/s) above; never an export-controlled SXM card that only rents as a whole 8-card server."""
    return "H20" if size_b(f) > 40 else "RTX 4090"


def own_vs_rent_calls(f: Frame) -> list[ToolCall]:
    """The named card (else a 4090, the common own-or-rent card) priced per hour and per month (the
    tool's break-even utilisation); the model's memory when one is named (which card it needs)."""
    big = size_b(f) > 40  # a 70B+/MoE model is rented as data-centre cards, a ≤30B one on a 4090
    gpus = [A.card_name(f, g) for g in f.gpus[:2]] or (["H20"] if big else ["RTX 4090"])
    # a usage pattern ("每天用10小时") → the tool's cheapest billing mode for it, with its sums
    usage = (  # over four weeks (about a month) unless a project length was said
        {"hours_per_day": f.hours_per_day or 24, "days_per_week": f.days_per_week or 7, "weeks": f.weeks or 4}
        if (f.hours_per_day or f.days_per_week)
        else {"months": 1}
    )
    out = [A.call(OWN_VS_RENT, "gpu_price", gpu=g, gpu_count=f.gpu_count, **usage) for g in gpus]
    if has_size(f):
        mem = dict(A.memory_kwargs(f), mode="inference" if not f.training else A.memory_kwargs(f).get("mode"))
        if not f.gpus:  # which card count the model needs on the card priced above
            mem["gpu"] = gpus[0]
            out.append(A.call(OWN_VS_RENT, "find_min_gpus", **{k: v for k, v in mem.items() if k != "gpus"}))
        out.append(A.call(OWN_VS_RENT, "estimate_memory", **mem))
    out.append(A.call(OWN_VS_RENT, "search_guide", query=f.text[:200], k=2, doc_id="buy-vs-rent"))
    return out


# With no model named, the example is one that both a self-hoster and a hosted API serve (a like-for-like
# price row in knowledge/api_prices.yaml), so the break-even compares the same model on both sides.
HOST_VS_API_DEFAULT_MODEL = "Qwen3-32B"


def host_vs_api_calls(f: Frame) -> list[ToolCall]:
    """The serving plan of the named model (else a mid-size open model with a hosted-API price of its own)
    against the dated API prices at the user's volume when given, and the guide's data/cost comparison."""
    model = A.model_args(f) if has_size(f) else {"model": HOST_VS_API_DEFAULT_MODEL}
    gpu = A.gpu_arg(f) if f.gpus else serving_card(f)
    precision = f.precision or ("fp8" if A.native_fp8(f.model) else None)
    return [
        A.call(
            HOST_VS_API,
            "plan_serving",
            gpu=gpu,
            gpus=f.gpu_count,
            precision=precision,
            monthly_output_mtok=f.monthly_tokens / 1e6 if f.monthly_tokens else None,
            **model,
        ),
        A.call(HOST_VS_API, "search_guide", query=f.text[:200], k=2, doc_id="local-vs-api"),
    ]


# ---- the cheapest way to run model X: fewest cards quantised and at its shipped precision, priced ----
CHEAPEST = "cheapest_run"

_CHEAP_RE = re.compile(
    r"lowest[- ]cost|cheapest|cheaper|low[- ]cost|small cost|budget|afford|最便宜|最省钱|省钱|成本最低|低成本|便宜|"
    r"预算(?:大概|大约|多少|是多少)|要多少钱|需要多少钱|花多少钱|多少钱|多少费用|什么价位|费用",
    re.I,
)
_RUN_RE = re.compile(
    r"\brun\b|running|deploy|serve|inference|host|跑|部署|推理|预测|运行|服务器|使用.{0,6}模型|用.{0,4}模型|配置建议",
    re.I,
)


def reference(f: Frame) -> ReferenceModel | None:
    """A model outside the architecture catalog known by its published size (knowledge/reference_models.yaml)."""
    from tools.reference_models import find_reference

    return None if f.model and A.catalog_has(f.model) else find_reference(f.text)


def size_args(f: Frame) -> dict[str, Any]:
    """`model`/`params` for the memory tools: the catalog's model, else a reference model's published size."""
    if has_size(f) and (A.catalog_has(f.model or "") or not reference(f)):
        return A.model_args(f)
    ref = reference(f)
    return {"params": f"{ref.params_b:g}B"} if ref else {}


def applies_cheapest(f: Frame) -> bool:
    # with users / a context / a card count it is a ranked plan under those constraints (plan_configurations)
    if f.training or f.mode not in (None, "inference") or f.budget_cny or f.concurrency or f.users or f.context:
        return False
    if not (has_size(f) or reference(f)):
        return False
    from assistant.offline.intents.serving import applies_serving

    if applies_host_vs_api(f) or applies_own_vs_rent(f) or applies_serving(f):
        return False  # "自己部署和调 API 哪个便宜" compares two routes; it is not "the cheapest cards for X"
    if _RENT_TO_RUN_RE.search(f.text):  # "租云GPU跑这个有什么推荐": what to rent for it, priced
        return True
    if f.gpus and f.period_hours and not _CHEAPEST_WORDS_RE.search(f.text):
        # 「一张4090放得下吗？租一个月多少钱？」: the price of the named card for the period said, not the cheapest route
        return False
    return bool(_CHEAP_RE.search(f.text)) and bool(_RUN_RE.search(f.text) or f.mode == "inference")


_CHEAPEST_WORDS_RE = re.compile(r"最便宜|最省钱|成本最低|cheapest|lowest[- ]cost", re.I)
_RENT_TO_RUN_RE = re.compile(
    r"租.{0,10}(?:跑|推理|部署|运行).{0,12}(?:推荐|建议|配置|方案|哪|什么)|(?:推荐|建议).{0,8}(?:租|配置|机器|显卡)|"
    r"rent.{0,30}(?:to run|for running|to serve).{0,30}(?:recommend|suggest|which|what)|"
    r"(?:recommend|suggest).{0,30}(?:rent|cloud gpu|gpu server)",
    re.I,
)


def _card(f: Frame) -> str:
    size = size_b(f) or 7
    return A.gpu_arg(f) or ("RTX 4090" if size <= 20 else A.DEFAULT_GPU)


def cheapest_calls(f: Frame) -> list[ToolCall]:
    size = size_args(f)
    ref = reference(f)
    shipped = ref.shipped_precision if ref else A.shipped_precision(f.model)
    full = "bf16" if shipped in (None, "bf16", "fp16") else shipped
    out = [
        A.call(CHEAPEST, "find_min_gpus", **size, mode="inference", precision=p, gpu=_card(f))
        for p in dict.fromkeys(["int4", full])
    ]
    # the whole model at its full precision on one card: the tool's weights figure is the whole model's
    out.append(A.call(CHEAPEST, "estimate_memory", **size, mode="inference", precision=full, gpus=1, gpu=_card(f)))
    out.append(
        A.call(
            CHEAPEST,
            "search_guide",
            query=f.text[:160] + (" 免费 按小时 抢占式" if has_cjk(f.text) else " free tier hourly spot"),
            k=2,
            doc_id="free-gpu-tiers",
        )
    )
    return out


def cheapest_follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """Price each count per hour (hourly billing, stopped when idle, is the cheap route)."""
    out = []
    for r in results:
        n = r.result.get("min_gpus") if r.name == "find_min_gpus" and not r.error else None
        if isinstance(n, int) and n >= 1:
            out.append(A.call(CHEAPEST, "gpu_price", gpu=_card(f), gpu_count=n, hours=1))
    return out


# ---- a serving count beyond the user's cards or beyond one server: the quantised counts beside it ----
def quantised_counts(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """find_min_gpus again at int8/int4 (AWQ/GPTQ) on the same card, when serving at the checkpoint's precision
    needs more cards than the user said they have (「我4张4090跑不起来」) or more than one 8-card server: the
    quantised count is usually what fits their hardware. fp8 weights are already one byte, so only int4 follows."""
    out: list[ToolCall] = []
    asked: set[tuple[str, str]] = {
        (str(r.args.get("gpu")), str(r.args.get("precision"))) for r in results if r.name == "find_min_gpus"
    }
    for r in results:
        if r.name != "find_min_gpus" or r.error or str(r.args.get("mode")) != "inference":
            continue
        precision = str(r.args.get("precision") or "bf16")
        if precision in ("int4", "int8"):
            continue
        n = r.result.get("rent_gpus") or r.result.get("min_gpus")
        have = f.gpu_count
        if not (n is None or (have and n > have) or n > 8):
            continue
        fp8_too = (str(r.args.get("gpu")), "fp8") in asked  # int8 weights are as large as the fp8 release
        for alt in ("int4",) if precision == "fp8" or fp8_too else ("int8", "int4"):
            key = (str(r.args.get("gpu")), alt)
            if key not in asked:
                asked.add(key)
                out.append(A.call(A.MIN_GPUS, "find_min_gpus", **{**r.args, "precision": alt}))
    return out


# 「教程用的是 8 卡 H800，我没有这种硬件，有替代方案吗」: the author's rig is not the learner's floor — the guide's
# section on learning with one 24 GB card, free notebooks and hourly rental answers it (free-gpu-tiers)
NO_HARDWARE = "no_hardware"
_SOMEONE_ELSES_RIG_RE = re.compile(
    r"教程|课程|作者|博主|仓库|论文|tutorial|course|the author|the repo|this repo|paper|book|书里", re.I
)
_LACK_RE = re.compile(
    r"没有(?:硬件|这种|这样的|那么多|条件|gpu|显卡|卡)|没硬件|买不起|达不到|用不起|只有一张|只有一块|我只有|"
    r"without (?:any |a )?(?:gpus?|hardware)|no (?:gpus?|hardware)|can(?:not|'t) afford|only (?:have )?(?:one|a single)",
    re.I,
)
_ALTERNATIVE_RE = re.compile(
    r"替代|代替|平替|怎么学|如何学|低成本|便宜|colab|alternative|cheaper|cheap way|follow (?:it|along|the)|learn", re.I
)


def applies_no_hardware(f: Frame) -> bool:
    """Someone else's multi-GPU setup, the user lacks it, and asks for a way to follow along anyway."""
    t = f.text or ""
    return bool(_SOMEONE_ELSES_RIG_RE.search(t) and _LACK_RE.search(t) and _ALTERNATIVE_RE.search(t))


def no_hardware_calls(f: Frame) -> list[ToolCall]:
    from tools.lang import has_cjk

    # topic words in the question's language, so the section comes back in that language
    topic = (
        "教程 多卡服务器 没有硬件 替代 一张 24 GB 卡 LoRA QLoRA 按小时租"
        if has_cjk(f.text or "")
        else "tutorial multi-GPU server no hardware one 24 GB card LoRA QLoRA rent by the hour"
    )
    return [A.call(NO_HARDWARE, "search_guide", query=f"{f.text or ''} {topic}", k=2, doc_id="free-gpu-tiers")]
