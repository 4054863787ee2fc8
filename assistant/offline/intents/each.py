"""One figure per value named: 「BF16和FP8的deepseek v3，分别需要多少显存」, 「chatglm3 … 和chatglm2对比呢」,
"int4 and int8 inference respectively".

Why a rule of its own: the slot reader keeps one value per axis (the first precision, the first model), so a
question that asks the same thing of two values got one answer and lost the other. This rule reads the other
values (precisions from knowledge/reading_terms.yaml `precision_words`, models from Frame.model_mentions) and
gives the intent one frame per value; the intent's own calls run on each, the writer prints one line each.
"""

from __future__ import annotations

import re

from assistant.offline.reading.frame import Frame
from assistant.offline.reading.routes import named_precisions

# intents whose answer is a figure for one model at one precision
EACH_INTENTS = {"memory", "decode_speed"}
# two precisions joined as alternatives ("BF16和FP8", "int4 and int8", "fp16/int8"), not "bf16 转 int4"
_JOINED = re.compile(r"(?:和|与|跟|及|以及|或|或者|还是|and|or|vs\.?|/|、|,|，)\s*$", re.I)


def precisions_each(f: Frame) -> list[str]:
    """The precisions to size one by one: two or more named and either joined as alternatives or asked of
    each ('分别' / 'respectively')."""
    text = (f.text or "").lower()
    named = named_precisions(text)
    if len(named) < 2:
        return []
    if "each" in f.cues or "compare" in f.cues:
        return named[:3]
    # "bf16和fp8": the word before the second precision joins it to the first
    from assistant.offline.reading.routes import _precision_regexes

    rx = dict(_precision_regexes())[named[1]]
    m = rx.search(text)
    return named[:3] if m and _JOINED.search(text[: m.start()]) else []


def models_each(f: Frame) -> list[str]:
    """Catalog models to size one by one: two or more different ones named and compared or asked of each;
    the one the user already measured ('7B 用了 17G，那 72B 呢') is not asked again."""
    if not ({"each", "compare"} & f.cues):
        return []
    ids = [m.catalog_id for m in f.model_mentions if m.catalog_id and m.catalog_id != f.measured_model]
    ids = list(dict.fromkeys(ids))
    return ids[:3] if len(ids) >= 2 else []


# 「8B 32B 72B 模型」, "7B, 13B and 70B": bare sizes in a list, each a model of its own
_SIZE_RE = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,3}(?:\.\d)?)\s*[bB](?![a-zA-Z0-9])")
_LIST_GAP_RE = re.compile(r"^\s*(?:[、,，/]|和|与|及|or|and|vs\.?|,?\s*and)?\s*$", re.I)


def sizes_each(f: Frame) -> list[float]:
    """Two or more bare sizes listed side by side (no catalog models to tell them apart): one frame each, in order."""
    if f.co_models or len({m.catalog_id for m in f.model_mentions if m.catalog_id}) >= 2:
        return []
    hits = list(_SIZE_RE.finditer(f.text or ""))
    run: list[float] = []
    for prev, cur in zip(hits, hits[1:], strict=False):
        if _LIST_GAP_RE.match(f.text[prev.end() : cur.start()]):
            run += [float(prev.group(1)), float(cur.group(1))]
        elif run:
            break
    sizes = list(dict.fromkeys(run))
    return sizes[:4] if len(sizes) >= 2 else []


def each_frames(f: Frame, intent: str) -> list[Frame]:
    """The frames the intent answers in turn: one per precision or model asked of each, else the frame."""
    if intent not in EACH_INTENTS or f.co_models:
        return [f]
    precisions = precisions_each(f)
    if precisions:
        return [f.model_copy(update={"precision": p}) for p in precisions]
    sizes = sizes_each(f) if intent == "decode_speed" else []
    if sizes:
        return [f.model_copy(update={"params_b": b, "model": None}) for b in sizes]
    models = models_each(f)
    if models:
        size_of = {m.catalog_id: m.size_b for m in f.model_mentions}
        return [
            f.model_copy(update={"model": m, "params_b": size_of.get(m) if m != f.model else f.params_b})
            for m in models
        ]
    return [f]
