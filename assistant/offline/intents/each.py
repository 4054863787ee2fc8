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


def each_frames(f: Frame, intent: str) -> list[Frame]:
    """The frames the intent answers in turn: one per precision or model asked of each, else the frame."""
    if intent not in EACH_INTENTS or f.co_models:
        return [f]
    precisions = precisions_each(f)
    if precisions:
        return [f.model_copy(update={"precision": p}) for p in precisions]
    models = models_each(f)
    if models:
        sizes = {m.catalog_id: m.size_b for m in f.model_mentions}
        return [
            f.model_copy(update={"model": m, "params_b": sizes.get(m) if m != f.model else f.params_b}) for m in models
        ]
    return [f]
