"""Which fine-tuning a named framework runs (knowledge/trainers.yaml): Megatron trains every parameter, and a
ZeRO stage or FSDP is what full fine-tuning needs. A bare "fine-tune" there is sized FULL, said on line 1, with
LoRA as the way out — never "yes, with LoRA" for a framework that has no LoRA."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from assistant.offline.reading.frame import Frame


@lru_cache(maxsize=1)
def _rows() -> tuple[dict[str, Any], ...]:
    from tools.data import load_yaml

    return tuple(load_yaml("trainers.yaml").get("trainers") or [])


def _named(f: Frame, row: dict[str, Any]) -> bool:
    if set(row.get("engines") or []) & set(f.engines):
        return True
    return bool(row.get("zero_stage")) and f.zero_stage is not None


def _ambiguous(f: Frame) -> bool:
    """A training job with neither full nor LoRA said."""
    return f.mode in (None, "inference") and bool(f.finetune or f.training) and not f.method


def full_only(f: Frame) -> dict[str, Any] | None:
    """The named framework only does full-parameter fine-tuning (Megatron-LM): its row, else None."""
    if not _ambiguous(f):
        return None
    return next((r for r in _rows() if r.get("full_only") and _named(f, r)), None)


def likely_full(f: Frame) -> dict[str, Any] | None:
    """The framework or its full-only row, or a setting (ZeRO stage, FSDP) that makes a bare "fine-tune" read
    as full fine-tuning: the row whose reason line 1 gives, else None."""
    if not _ambiguous(f):
        return None
    return full_only(f) or next((r for r in _rows() if r.get("likely") == "full" and _named(f, r)), None)


def colocated_rollout(f: Frame) -> dict[str, Any] | None:
    """An RL trainer named that runs vLLM on the training GPUs (EasyR1, verl): its rollout defaults, else None."""
    import re

    from tools.data import load_yaml

    if f.method not in ("grpo", "ppo"):
        return None
    rows = load_yaml("trainers.yaml").get("rl_rollouts") or []
    return next((r for r in rows if re.search(str(r.get("pattern")), f.text or "", re.I)), None)
