"""Two memory questions about more than the model itself:

- `memory_pooling` — "does memory on several cards add up?" (「两张2080ti共22GB」, "batch 2 with a 2nd GPU",
  "can two 12G cards hold the model"). Under data parallel (PyTorch DDP, the default of torchrun / accelerate /
  the HF Trainer) every card holds a full copy of the model (https://pytorch.org/docs/stable/notes/ddp.html), so
  memory does not pool; it is shared only when the model is split — ZeRO-3 / FSDP (arXiv:1910.02054), tensor or
  pipeline parallel, device_map="auto". With a sized model both per-card figures come from estimate_memory.
- `engine_reservation` — "observed memory is far above the model" with a serving engine: the engine's start-up
  fraction (knowledge/engines.yaml `preallocation`), computed by the `engine_reservation` tool from the user's card
  and setting, beside the model's own estimate.
"""

from __future__ import annotations

from assistant.offline.intents import args as A
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall, ToolResult

POOL = "memory_pooling"
RESERVE = "engine_reservation"
NAMES = (POOL, RESERVE)


# ---------------------------------------------------------------- does memory add up ---------------


def applies_pooling(f: Frame) -> bool:
    asked = "pool_question" in f.mentions or "pooled_memory" in f.mentions
    if not asked or f.is_log or f.decline or f.hourly_quote_cny or (f.budget_cny or 0) > 10 or "time" in f.cues:
        return False
    if f.required_gb and not has_size(f) and "pool_question" not in f.mentions:
        return False  # a stated per-card figure, no model: intents/requirement.py checks it card by card
    several = (f.gpu_count or 0) > 1 or bool(f.stated_total_gb) or "pool_question" in f.mentions
    known_cards_only = bool(f.gpus) and not has_size(f) and all(_card_gb(g) for g in f.gpus)
    if known_cards_only and ("nvlink" in f.mentions or "pool_question" not in f.mentions):
        return False  # "will NVLink merge the two cards' memory": the card's own row answers it (gpus.py)
    return several


def cards(f: Frame) -> int:
    """How many cards the question is about: the count said, else two ("add a 2nd GPU", "两张卡")."""
    return f.gpu_count if f.gpu_count and f.gpu_count > 1 else 2


def is_inference(f: Frame) -> bool:
    from assistant.offline.intents.memory import memory_kwargs

    return memory_kwargs(f).get("mode") == "inference"


def pooling_calls(f: Frame) -> list[ToolCall]:
    if not has_size(f):
        out = [A.call(POOL, "gpu_specs", names=[g]) for g in f.gpus[:1] if _card_gb(g)]
        if f.pipeline:  # an image/video/speech pipeline: its own weights per card (one full copy each)
            kw = {"model": f.pipeline, "mode": "inference", "gpu": A.gpu_arg(f) if f.gpus else None}
            out.append(A.call(POOL, "estimate_memory", **{k: v for k, v in kw.items() if v}))
        return out
    from assistant.offline.intents.memory import memory_kwargs

    kw = {k: v for k, v in memory_kwargs(f).items() if v is not None}
    n = cards(f)
    if kw.get("mode") == "inference":
        # one full copy per card (replicas) against the model split over the n cards (tensor parallel / layers)
        return [
            A.call(POOL, "estimate_memory", **{**kw, "gpus": 1}),
            A.call(POOL, "estimate_memory", **{**kw, "gpus": n}),
        ]
    return [
        A.call(POOL, "estimate_memory", **{**kw, "gpus": n, "zero": 0}),  # DDP: a full copy on every card
        A.call(POOL, "estimate_memory", **{**kw, "gpus": n, "zero": 3}),  # ZeRO-3 / FSDP: states sharded n ways
    ]


def _card_gb(name: str) -> float | None:
    from tools.gpus import resolve_gpu

    try:
        return float(resolve_gpu(name).memory_gb)
    except Exception:  # a card the table lacks  # noqa: BLE001
        return None


# ---------------------------------------------------------------- engine start-up reservation -------


def engine_of(f: Frame) -> str | None:
    from tools.memory_engines import preallocation_engines

    known = preallocation_engines()
    return next((e for e in f.engines if e in known), None)


def applies_reservation(f: Frame) -> bool:
    if not engine_of(f) or f.decline:
        return False
    if f.mode in ("full", "lora", "qlora", "pretrain") and "trained_model" not in f.mentions:
        return False
    from tools.memory_engines import preallocation_profile

    prof = preallocation_profile(engine_of(f) or "")
    if "observed_memory" in f.mentions or {"two_instances", "start_failure"} <= f.mentions:
        return True  # two instances alone is a how-to (serving.SHARING); one that failed to start is the reservation
    if "two_instances" in f.mentions and prof.basis == "free_after_weights" and _fraction(f, prof.setting):
        return True  # "0.6 and 0.5 on one card, why does it start?": fractions of the FREE memory
    # a fraction set near 1 on an engine that takes it of the FREE memory leaves almost nothing for activations
    frac = _fraction(f, prof.setting)
    return prof.basis == "free_after_weights" and frac is not None and frac >= 0.95


def applies_after_paste(f: Frame) -> bool:
    """A pasted engine log plus the user's own report of what it holds ("two instances fail", "uses 20 GB")."""
    return applies_reservation(f)


def _fraction(f: Frame, setting: str) -> float | None:
    raw = f.runtime_settings.get(setting)
    if raw is None and setting == "gpu_memory_utilization":
        return f.gpu_memory_utilization
    try:
        v = float(raw) if raw is not None else None
    except ValueError:
        return None
    return v if v is not None and 0 < v <= 1 else None  # > 1 is a block count (LMDeploy), not a fraction


def reservation_args(f: Frame, weights_gb: float | None = None) -> dict | None:
    from tools.memory_engines import preallocation_profile

    engine = engine_of(f)
    if engine is None:
        return None
    prof = preallocation_profile(engine)
    card: dict = {}
    name = A.gpu_arg(f) if f.gpus and _card_gb(f.gpus[0]) else None
    if name and name.upper().removesuffix("GB").replace(".", "", 1).isdigit():
        card = {"card_gb": float(name.upper().removesuffix("GB"))}  # a modded card sized by what the user said
    elif name:
        card = {"gpu": name}
    # a bare size with no card named is not trusted here: 「requires 21G」 is what the user saw, not the card
    if not card:
        return None
    out = {"engine": engine, **card, "gpus": f.tp_size or f.gpu_count or 1}
    frac = _fraction(f, prof.setting)
    if frac:
        out["fraction"] = frac
    if weights_gb is not None:
        out["weights_gb"] = weights_gb
    return out


def _guide(f: Frame) -> ToolCall:
    return A.call(RESERVE, "search_guide", query=A.guide_query(f, RESERVE), k=3)


def reservation_calls(f: Frame) -> list[ToolCall]:
    if f.pipeline and not has_size(f):
        # Whisper on TensorRT-LLM: the pipeline's own weights, then the engine's pool beside them
        pk = {"model": f.pipeline, "mode": "inference", "gpu": A.gpu_arg(f) if f.gpus else None}
        return [A.call(RESERVE, "estimate_memory", **{k: v for k, v in pk.items() if v}), _guide(f)]
    if has_size(f):
        from assistant.offline.intents.memory import memory_kwargs

        kw: dict = {k: v for k, v in memory_kwargs(f).items() if v is not None}
        kw["mode"], kw["gpus"] = "inference", f.tp_size or f.gpu_count or 1
        return [A.call(RESERVE, "estimate_memory", **kw), _guide(f)]  # the model's own need; the reservation follows
    args = reservation_args(f)
    return [*([A.call(RESERVE, "engine_reservation", **args)] if args else []), _guide(f)]


def reservation_follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    if any(r.name == "engine_reservation" for r in results):
        return []
    est = next((r for r in results if r.name == "estimate_memory" and not r.error), None)
    weights = None
    if est is not None:
        res = est.result
        weights = res.get("whole_model_weights_gb") or (res.get("weights_gb") or 0) * (res.get("gpus") or 1) or None
    args = reservation_args(f, weights)
    return [A.call(RESERVE, "engine_reservation", **args)] if args else []
