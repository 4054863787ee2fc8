"""The named model's weights beside an answer that does not size it: a diagnosis, a guide-led cause, a spec or
support question about a model on a card.

Why: the size of the weights is the first fact a user checks a card against (「FastChat --num-gpus 2 为什么不能
多卡」 with Llama-2-13B is a 26 GB model; 「310P 能部署 Qwen2.5-72B 吗」 is 145 GB of fp16 weights). When no
intent sized the model, one inference estimate at the named precision gives that figure, and the writer shows only
its weights line (writing/model_facts.py) — never a fit verdict nobody asked for.
"""

from __future__ import annotations

import re

from assistant.offline.intents import args as A
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall

NAME = "model_facts"

# Tools whose answer already states the model's memory (or decides it is not the question)
_SIZING = {
    "estimate_memory",
    "find_min_gpus",
    "find_max_fit",
    "plan_serving",
    "plan_configurations",
    "decode_speed",
    "largest_model",
    "cpu_inference",
    "estimate_pipeline_memory",
    "choose_gpu",
    "lookup_model",
    "estimate_training_time",
    "rescale_training_time",
    "published_run",
    "pretraining_run",
    "engine_reservation",
    "compute_budget",
}


def calls(f: Frame, intents: list[str], planned: list[ToolCall], quiet: set[str]) -> list[ToolCall]:
    """One inference estimate of the named model when nothing planned sizes it; none for statements (declines,
    invalid input), pipelines (sized by their own tool) and sizes without a model (a bare "7B" says its own size)."""
    if not has_size(f) or not f.model or f.pipeline or f.decline or f.out_of_scope:
        return []
    if set(intents) & quiet or any(c.name in _SIZING for c in planned):
        return []
    if f.is_log:  # a model named only inside the paste is the log's context, not the user's question
        own = (f.text or "").replace(f.paste or "", " ").lower()
        own = re.sub(r"^\s*model\s*[:=].*$", " ", own, flags=re.M)  # "Model: Ollama Phi3 Mini": a log's own field
        if not any(m.text.strip().lower() in own for m in f.model_mentions if m.text.strip()):
            return []
    args = A.model_args(f)
    if "model" not in args:
        return []
    named = next((m.text for m in f.model_mentions if m.catalog_id == f.model and not m.variant), None)
    if named and A.catalog_has(named):
        args = {"model": named.strip()}  # "Qwen2-72B-Instruct-GPTQ-Int4": the name keeps the weights' precision
    # 「token长度设置的8192」: the context said sizes one sequence's KV cache beside the weights
    ctx = {"context": f.context} if f.context else {}
    return [A.call(NAME, "estimate_memory", mode="inference", precision=f.precision, **args, **ctx)]
