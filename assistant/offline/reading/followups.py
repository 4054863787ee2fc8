"""Follow-up questions: carry slots from earlier user turns ("那A100呢？", "what about QLoRA?", "换成8卡呢").

A follow-up is a short question that changes one thing. We read the earlier user turns (newest
last), merge their slots in order, and let the new question override only what it says.
"""

from __future__ import annotations

import re

from assistant.offline.reading.slots import Slots, extract

_FOLLOWUP_RE = re.compile(
    r"^\s*(?:那|那么|那如果|如果|换成|换|改成|改用|用|再|要是|假如|还有|然后)|"
    r"^\s*(?:and|what about|how about|and if|and with|same (?:for|with|but)|switch to|with|on|for|"
    r"instead|now|ok,? (?:and|what about))\b|"
    r"呢\s*[?？]?\s*$|\binstead\b|换成|改成|改用|\bswitch(?:ed)? to\b",
    re.I,
)

# Leading words that open follow-ups (「用QLoRA呢」「with 8 GPUs?」) and complete questions alike.
_WEAK_LEAD_RE = re.compile(r"\s*(?:用|再|with|on|for)", re.I)

# Fields a follow-up can inherit. Intent cues are inherited only when the new turn has none.
_CARRY = (
    "gpu_hours",  # a run's GPU-hours said in this turn ("184320 GPU hours 用 64 张卡") belong to it
    "method",
    "model",
    "params_b",
    "gpus",
    "gpu_memory_gb",
    "gpu_form",
    "gpu_count",
    "nodes",
    "mode",
    "precision",
    "optimizer",
    "zero_stage",
    "context",
    "batch",
    "tokens",
    "budget_cny",
    "deadline_hours",
    "period_hours",
    "period_unit",
    "period_count",
    "concurrency",
    "finetune",
    "training",
    # where the values came from, and the quantities beyond the job's shape
    "gpu_mentions",
    "model_mentions",
    "users",
    "samples",
    "sample_tokens",
    "epochs",
    "hours_per_day",
    "days_per_week",
    "project_months",
    "budget_per",
    "link_gbps",
    "link_name",
    "host_ram_gb",
    "engines",
    "pipeline",
    "vram_gb",
)
# Cues that describe the question shape (not the topic): a follow-up keeps the old shape.
_SHAPE_CUES = {"price", "compare", "specs", "how_many", "fit", "max_fit", "time", "plan"}


# Thanks / acknowledgements in front of the follow-up itself (「谢谢。那IB带宽…」, "thanks! and on 8 cards?")
_COURTESY = re.compile(
    r"^\s*(?:(?:非常|十分)?(?:谢谢|感谢|多谢)(?:您|你|了|啦)?|好的|好滴|明白了?|懂了|了解了?|收到|原来如此|"
    r"(?:thanks?|thank you|thx|ok(?:ay)?|got it|i see|cool|great|makes sense)(?:\s+(?:so much|a lot))?)"
    r"[\s,，.。!！~]*",
    re.I,
)


def strip_courtesy(question: str) -> str:
    """The question without the thanks in front of it; unchanged when nothing else follows."""
    rest = question or ""
    for _ in range(3):  # 「好的，谢谢，请问…」: several in a row
        stripped = _COURTESY.sub("", rest, count=1)
        if stripped == rest:
            break
        rest = stripped
    return rest if rest.strip() else (question or "")


def is_followup(question: str, slots: Slots) -> bool:
    """Short and elliptical, or says nothing about a model/GPU-shaped question on its own."""
    q = strip_courtesy((question or "").strip()).strip()
    if slots.is_log:
        return False
    short = len(q) <= 40 or len(q.split()) <= 8
    m = _FOLLOWUP_RE.search(q)
    if m and short and not (_WEAK_LEAD_RE.fullmatch(m.group(0)) and slots.model and slots.cues & _SHAPE_CUES):
        # 「用2-bit量化跑Llama-2-70B要多少显存」: a leading 用/with/for that opens a question with its own model and
        # its own ask is a new question, not "the same, with X"
        return True
    # "QLoRA" / "8卡" / "H800" alone
    said_something = bool(
        slots.gpus
        or slots.model
        or slots.mode
        or slots.gpu_count
        or slots.context
        or slots.precision
        or slots.period_hours
        or slots.tokens
        or slots.budget_cny
        or slots.method
    )
    if short and said_something and not (slots.cues & _SHAPE_CUES) and not slots.out_of_scope:
        return True
    # "一张 4090 够不够？" / "how many servers is that?": a sizing question with no model of its own
    needs_model = slots.cues & {"fit", "how_many", "max_fit", "time"}
    shortish = len(q) <= 60 or len(q.split()) <= 12
    # "how much would 4 of them cost per month?" / 「这个配置一个月多少钱」: a price of the GPU named before
    if (
        shortish
        and "price" in slots.cues
        and not slots.gpus
        and not slots.out_of_scope
        and re.search(r"那|这|\bthat\b|\bit\b|\bthose\b|\bthese\b|\bthem\b|\bthey\b", q, re.I)
    ):
        return True
    return bool(
        shortish
        and needs_model
        and not (slots.model or slots.params_b or slots.gpu_hours)  # GPU-hours are a job of their own
        and not slots.out_of_scope
        and (said_something or re.search(r"那|这|that|it\b|those|these|them", q, re.I))
    )


# A turn that only lists capacities: 「8G ？16？」「24G呢」「16g够不够」「如果只有1T呢」「12G 还是 16G」.
_CAPACITY_RE = re.compile(r"(?<![a-z0-9.])(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>tb|t|gb|g|gib)?(?![a-z0-9.])", re.I)
# Words that may sit beside the capacities in such a turn (no topic of its own).
_CAPACITY_FILLER_RE = re.compile(
    r"(?:的|卡|显卡|显存|内存|够|够不够|够吗|行|行不行|行吗|可以|可以吗|能|能不能|呢|吗|还是|或者|或|和|跟|"
    r"那|那么|如果|要是|只有|换成|是|不是|就|呀|啊|啦|哪个|which|or|and|what about|how about|enough|card|cards|"
    r"gpu|vram|ram|memory|with|only|if|i|have|a|an|the|of|is|it|ok|[?？,，。.!！~、/\s])*",
    re.I,
)
# Markers of a turn that leans on the one before: 「那」「这个参数」「是不是」「什么意思」「如果只有」…
_LEANS_RE = re.compile(
    r"^\s*(?:那|那么|那我|如果|要是|假如|还有|然后|所以|也就是说)|这个|这些|那个|上面|刚才|你说的|按你|按照你|"
    r"你的公式|什么意思|是不是|是说|呢\s*[?？]?\s*$|\b(?:that|this|those|these|it|you said|you are saying|your)\b",
    re.I,
)


def capacities(question: str) -> list[tuple[float, str]]:
    """(decimal GB, unit) for each capacity in a turn that says nothing else ('8G ？16？' → [(8, 'g'), (16, 'g')]);
    [] when the turn has words of its own beyond capacities and fillers."""
    q = strip_courtesy((question or "").strip())
    found = list(_CAPACITY_RE.finditer(q))
    units = [m.group("unit") for m in found if m.group("unit")]
    if not units or len(q) > 40:
        return []  # a bare number alone is not a capacity; '8G？16？' gives the second its unit by the first
    rest = _CAPACITY_RE.sub(" ", q)
    if _CAPACITY_FILLER_RE.fullmatch(rest) is None:
        return []
    out = []
    for m in found:
        unit = (m.group("unit") or units[0]).lower()
        out.append((float(m.group("num")) * (1000 if unit.startswith("t") else 1), unit))
    return out


def leans_on_context(question: str, slots: Slots) -> bool:
    """A turn with no topic of its own (no model, GPU, pipeline) that only makes sense after the earlier ones:
    bare capacities, or a short in-domain fragment that points back ('这个参数在哪里改', '如果只有1T呢',
    '双CPU、2T内存、Q8大概速度多少'). Clearly off-topic words (weather, poems) never lean."""
    if slots.is_log or slots.out_of_scope or _has_topic(slots) or slots.pipeline or slots.unknown_model:
        return False
    q = strip_courtesy((question or "").strip()).strip()
    if capacities(q):
        return True
    said = bool(
        slots.host_ram_gb
        or slots.vram_gb
        or slots.gpu_count
        or slots.precision
        or slots.context
        or slots.batch
        or slots.mode
        or slots.quantities
    )
    shortish = len(q) <= 120 or len(q.split()) <= 25
    # 「请问预计要训练多久」「要几张卡」: a sizing question that needs the model named before
    sizing = bool(slots.cues & {"time", "fit", "how_many", "max_fit"})
    return shortish and (said or sizing or bool(_LEANS_RE.search(q)) or not slots.in_domain)


# "your formula / still the same problem / later I changed…": the turn continues the setup. A quoted maintainer
# remark alone does not say so (it may bring a new comparison of its own).
_POINTS_BACK_RE = re.compile(
    r"按照?你的|你的公式|你说的|后续|仍然|依然|还是(?:出现|会|报)|同样的问题|"
    r"\b(?:as you said|your formula|you are saying|you said|still (?:get|getting|ooms?|fails?)|same (?:problem|error|issue))\b",
    re.I,
)


def points_back(question: str, slots: Slots) -> bool:
    """A turn that quotes an earlier answer or says the same problem persists, with no model of its own: the model
    (and the rest of the setup) comes from the earlier turns, whatever the length; the figures it quotes are its own."""
    if slots.is_log or slots.out_of_scope or slots.model or slots.params_b or slots.pipeline:
        return False
    return bool(_POINTS_BACK_RE.search(question or ""))


def user_turns(history: list[dict] | None) -> list[str]:
    out = []
    for turn in history or []:
        role = turn.get("role") if isinstance(turn, dict) else getattr(turn, "type", None)
        content = turn.get("content") if isinstance(turn, dict) else getattr(turn, "content", "")
        if isinstance(content, list):  # content blocks (Gradio 6 / LangChain): keep the text parts
            content = " ".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
        if role in ("user", "human") and isinstance(content, str) and content.strip():
            out.append(content)
    return out


def resolve(question: str, history: list[dict] | None) -> tuple[Slots, bool]:
    """Slots for `question` with earlier turns carried in when it is a follow-up.

    Returns (slots, carried) where `carried` says whether history was used.
    """
    now = extract(question)
    earlier = user_turns(history)
    if earlier:
        _same_card_as_before(now, earlier)
        _same_method_as_before(now, earlier)
    _stated_figures(now, [question])
    if not earlier or not (is_followup(question, now) or leans_on_context(question, now) or points_back(question, now)):
        return now, False
    base: Slots | None = None
    for turn in earlier:
        turn_slots = extract(turn)
        if turn_slots.is_log or turn_slots.out_of_scope:
            continue
        if base is None or not is_followup(turn, turn_slots):
            base = (
                turn_slots
                if base is None or not _has_topic(base) or _has_topic(turn_slots)
                else _merge(base, turn_slots)
            )
        else:
            base = _merge(base, turn_slots)
    if base is None or (not _has_topic(base) and not base.pipeline and not base.in_domain):
        return now, False
    merged = _merge(base, now)
    _apply_capacities(merged, base, question)
    _stated_figures(merged, [question, *reversed(earlier)])
    return merged, True


def _same_method_as_before(now: Slots, earlier: list[str]) -> None:
    """ "I can't finetune 65b even with two cards?" after "fine-tune 65b … 4-bit LoRA": a bare "finetune" of the size an
    earlier turn named with its method (LoRA / QLoRA, the 4-bit base) is that method, not full fine-tuning."""
    if now.mode is not None or not now.finetune or not now.params_b:
        return
    for turn in reversed(earlier):
        before = extract(turn)
        if before.params_b == now.params_b and before.mode in ("lora", "qlora"):
            now.mode, now.modes, now.finetune = before.mode, [before.mode], False
            if before.mode == "qlora" and now.precision is None:
                now.precision = before.precision
            return


def _same_card_as_before(now: Slots, earlier: list[str]) -> None:
    """「这套2080方案」 after 「还有个2080TI」: a bare number an earlier turn named with its tier (Ti / SUPER) is that
    card, not the smaller card of the same number (the RTX 2080 has 8 GB, the RTX 2080 Ti 11 GB)."""
    from tools.gpus import resolve_gpu

    if not any(m.gpu_id and not m.memory_gb for m in now.gpu_mentions):
        return
    before = [g for turn in earlier for g in extract(turn).gpu_mentions if g.gpu_id]
    for i, m in enumerate(now.gpu_mentions):
        if not m.gpu_id or m.memory_gb:
            continue
        family = resolve_gpu(m.gpu_id).family
        for b in before:
            tier = resolve_gpu(b.gpu_id or "").family
            if tier.startswith(family) and tier[len(family) :] in ("ti", "super"):
                now.gpus = [b.name if n == m.name else n for n in now.gpus]
                now.gpu_mentions[i] = m.model_copy(update={"name": b.name, "gpu_id": b.gpu_id})
                break


def _stated_figures(frame: Slots, texts: list[str]) -> None:
    """The requirement someone stated and the user's own total, newest turn first (reading/quoted.py)."""
    from assistant.offline.reading.quoted import quoted_sequences, stated_requirement_gb, stated_total_gb

    if texts and frame.concurrency is None:
        frame.concurrency = quoted_sequences(texts[0])  # the setting this turn says it changed to
    for text in texts:
        frame.required_gb = frame.required_gb or stated_requirement_gb(text)
        frame.stated_total_gb = frame.stated_total_gb or stated_total_gb(text)


def _apply_capacities(merged: Slots, base: Slots, question: str) -> None:
    """'8G ？16？' after a sizing turn: each capacity is a card to check (the earlier card is replaced); after a
    host-RAM turn (CPU inference, '2T内存'), a terabyte-scale capacity is the host RAM instead."""
    sizes = capacities(question)
    if not sizes:
        return
    ram_word = bool(re.search(r"(?<!显)内存|\b(?:system\s+)?ram\b", question, re.I)) and "显存" not in question
    if ram_word or (base.host_ram_gb and all(gb >= 256 or unit.startswith("t") for gb, unit in sizes)):
        merged.host_ram_gb = sizes[0][0]
        return
    cards = [gb for gb, unit in sizes if 4 <= gb <= 288 and not unit.startswith("t")]
    if not cards:
        return
    merged.gpus, merged.gpu_mentions, merged.gpu_memory_gb, merged.gpu_form = [], [], None, None
    merged.vram_gb = cards[0]
    merged.card_sizes = [int(gb) if gb == int(gb) else gb for gb in cards]  # type: ignore[misc]
    merged.mentions.add("capacity_followup")  # the sizes are cards to check (intents/memory.py)
    if len(cards) >= 2 or "fit" not in merged.cues:
        merged.cues = (merged.cues - _SHAPE_CUES) | {"fit"}


def _has_topic(s: Slots) -> bool:
    return bool(s.model or s.params_b or s.gpus)


def _merge(base: Slots, new: Slots) -> Slots:
    """`new` overrides `base` only where it said something."""
    merged = base.model_copy(deep=True)
    merged.load = new.load  # the load is what this message says, never carried from an earlier turn
    for name in _CARRY:
        value = getattr(new, name)
        if value not in (None, [], False):
            setattr(merged, name, value)
    # A new GPU replaces the old one; its memory/form come with it (or are reset).
    if new.gpus:
        merged.gpu_memory_gb, merged.gpu_form = new.gpu_memory_gb, new.gpu_form
    # A new mode replaces "微调" vagueness.
    if new.mode:
        merged.finetune = False
        if new.mode in ("qlora", "lora", "full", "pretrain") and base.mode == "inference":
            merged.context = new.context
    new_shape = new.cues & _SHAPE_CUES
    if new_shape:
        merged.cues = (merged.cues - _SHAPE_CUES) | new.cues
    else:
        merged.cues |= new.cues
    merged.in_domain = True
    merged.out_of_scope = False
    merged.is_log = False
    # the shape of the answer comes from the new turn's own words
    merged.text, merged.paste, merged.mentions = new.text, None, set(new.mentions)
    merged.card_sizes, merged.network, merged.asks = list(new.card_sizes), new.network, list(new.asks)
    merged.quoted_rates_gbs = list(new.quoted_rates_gbs)  # the figures this message quotes, not the last one's
    merged.decline = new.decline
    return merged
