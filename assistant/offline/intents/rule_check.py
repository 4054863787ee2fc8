"""「1B=4G 的折算对不对」: a memory rule of thumb the user quotes, checked clause by clause (tools/memory_rule.py).

Why its own intent: the memory intent would size one job for one model and answer "how much", while the user
asked whether their arithmetic holds — for each job they named (LoRA/推理 at FP32, 全参训练 at FP32)."""

from __future__ import annotations

from assistant.offline.intents import args as A
from assistant.offline.reading.claimed_rules import claimed_rules
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall

NAME = "rule_check"


def applies(f: Frame) -> bool:
    return not f.is_log and bool(claimed_rules(f.text or ""))


def calls(f: Frame) -> list[ToolCall]:
    claims = [
        {"mode": c.mode, "precision": c.precision, "bytes_per_param": c.bytes_per_param, "params_b": c.params_b}
        for c in claimed_rules(f.text or "")
    ]
    return [A.call(NAME, "check_memory_rule", claims=claims)]
