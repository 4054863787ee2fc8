"""A released base model's own pre-training (knowledge/pretraining.yaml): "Llama 3 8B's 1.3M GPU-hours ÷ 24,576
GPUs = 53 h?", 「预训练 Llama-2-7B 用了多少卡时」, "what would pre-training Qwen2.5-7B from scratch take".

Why its own intent: the generic time estimate assumes ~20 tokens per parameter when no tokens are given, which is
100× short of what these models were pre-trained on; the authors' tokens and GPU-hours answer it, with 6·N·D as
the check. Continued pre-training, LoRA, or the user's own token count are the user's run (train_time)."""

from __future__ import annotations

import re
from typing import Any

from assistant.offline.intents import args as A
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall, ToolResult

NAME = "pretraining_run"

_PRETRAIN_RE = re.compile(
    r"pre-?train|from scratch|预训练|从头训|从头开始训|从零训|从零开始训|"
    r"gpu[\s-]*hours?\s+(?:used\s+)?(?:to|for|of)\s+(?:train|compute|pre)|trained on\s+[\d.]+\s*[tb]\b",
    re.I,
)
# the user's own run on top of a released base: not the base model's pre-training
_OWN_RUN_RE = re.compile(
    r"继续预训练|增量预训练|二次预训练|领域预训练|continued|continual|further pre-?train|\blora\b|qlora|微调|fine-?tun|\bsft\b",
    re.I,
)
_ASKS_RE = re.compile(
    r"多久|多长时间|多少小时|gpu\s*小时|gpu\s*时|几个小时|几天|多少天|耗时|用时|时间|多少钱|费用|花费|成本|卡时|机时|算力|资源|多少卡|几张卡|"
    r"how long|how many (?:hours|days|gpus|cards)|hours?|days?|time|cost|price|budget|gpu[\s-]*hours?|compute|"
    r"resources?|\$\s*\d|dollars?|flops?",
    re.I,
)
_COUNT_RE = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(k|K|千|万)?\s*(?:GPUs|GPU|cards|张卡|张|块卡|块|卡)(?![a-z])"
)
_PAREN_RE = re.compile(r"\s*[(（]\s*(\d{1,3}(?:,\d{3})+|\d+)")


def subject_model(f: Frame) -> str | None:
    """The last catalog model named ("Llama 2 7B took 184,320 h … and MiniCPM-2B?": the one asked about)."""
    named = [m.catalog_id for m in f.model_mentions if m.catalog_id]
    return named[-1] if named else (f.model if f.model and f.params_b else None)


def _row(f: Frame) -> dict[str, Any] | None:
    from tools.train_pretrained import find_pretraining_row

    model = subject_model(f)
    return find_pretraining_row(model) if model else None


def applies(f: Frame) -> bool:
    if f.is_log or not (f.mode == "pretrain" or _PRETRAIN_RE.search(f.text)) or _OWN_RUN_RE.search(f.text):
        return False
    if not _ASKS_RE.search(f.text):
        return False
    row = _row(f)
    if row is None:
        return False
    # "pre-train Qwen2.5-7B's architecture on 100B tokens": the user's own token budget is their run
    return not (f.tokens and abs(f.tokens / float(row["tokens"]) - 1) > 0.2)


def stated_card_count(f: Frame) -> int | None:
    """The card count said: the reader's, else "24K GPUs (24576, to be precise)" / 「2048 张 H800」 in the text."""
    if f.gpu_count:
        return f.gpu_count
    for m in _COUNT_RE.finditer(f.text):
        n = float(m.group(1).replace(",", "")) * {"k": 1e3, "K": 1e3, "千": 1e3, "万": 1e4}.get(m.group(2) or "", 1)
        exact = _PAREN_RE.match(f.text, m.end())  # the exact figure in brackets right after a rounded one
        if exact and abs(float(exact.group(1).replace(",", "")) / n - 1) <= 0.05:
            n = float(exact.group(1).replace(",", ""))
        if n >= 1 and n == int(n):
            return int(n)
    return None


def calls(f: Frame) -> list[ToolCall]:
    from assistant.offline.reading.money import read_money_quote

    q = read_money_quote(f.text)
    rate = q.per_gpu_hour if q is not None else None
    return [
        A.call(
            NAME,
            "pretraining_run",
            model=subject_model(f),
            gpu=A.gpu_arg(f) if f.gpus else None,
            n_gpus=stated_card_count(f),
            rate_per_gpu_hour=rate,
            currency=q.currency if q is not None and rate else None,
        ),
        # the guide's section on pre-training vs fine-tuning (same memory per step, 100× the tokens)
        A.call(
            NAME, "search_guide", query=f"{f.text.strip()} 预训练 pretraining tokens", k=2, doc_id="training-time-cost"
        ),
    ]


def follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """The China rental price of the same GPU-hours when the question is about money and gave no rate."""
    if not re.search(r"多少钱|费用|花费|成本|预算|cost|price|budget|\$|dollars?|元|块钱", f.text, re.I):
        return []
    for r in results:
        if (
            r.name == "pretraining_run"
            and not r.error
            and not r.result.get("cost_at_rate")
            and r.result.get("your_gpu_hours")
        ):
            return [A.call(NAME, "gpu_price", gpu=r.result["your_gpu"], count=1, hours=r.result["your_gpu_hours"])]
    return []
