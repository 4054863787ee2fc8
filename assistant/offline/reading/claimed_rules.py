"""The memory rules of thumb a user quotes to have them checked: 「LoRA或者推理，FP32精度，折算是1B=4G的显存，就是70B模型需要
280G显存；全参数训练，FP32精度，折算是1B=16G的显存…对不对？」 → two claims (lora fp32 4 B/param on 70B; full fp32 16 B/param).

Why a reader of its own: the slot reader keeps one model, one mode and one precision per question, and blanks
「1B=4G」 so it is not read as a 1B model or a 4 GB card; a rule check needs every clause's own job, precision and
rate. The asking words and the job words are knowledge/route_words.yaml (rule_check, rule_full/lora/inference).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from assistant.offline.reading.routes import named_precisions, route_regex

# 「1B=4G」「1B参数约2GB」「每B 16G」: GB per billion parameters (= bytes per parameter)
_RATE_RE = re.compile(
    r"(?:(?<![a-z0-9.])1\s*b|每\s*(?:1\s*)?b|每十亿参数|per billion(?: param(?:eter)?s?)?)\s*(?:参数)?\s*"
    r"(?:=|≈|~|～|约等于|约为|约|对应|折合|需要|要|占|大约)?\s*(\d+(?:\.\d+)?)\s*(?:gib|gb|g)(?![a-z])"
    r"|(\d+(?:\.\d+)?)\s*(?:gib|gb|g)\s*(?:per|/|每)\s*(?:1\s*)?(?:b\b|billion)",
    re.I,
)
# 「70B模型需要280G显存」 "a 7B model needs 14GB": a size and its total
_TOTAL_RE = re.compile(
    r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*b\s*(?:的)?\s*(?:模型|参数|model|params?)?[^\d，,。；;?？]{0,10}?"
    r"(?:就是|需要|要|占|得|=|≈|needs?|requires?|takes?|uses?)\s*(?:约|大约|大概|about|~)?\s*(\d+(?:\.\d+)?)\s*(?:gib|gb|g)(?![a-z])",
    re.I,
)
_CLAUSE_RE = re.compile(r"[；;。\n]|(?<=\D)\.\s")
_SIZE_RE = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*b(?![a-z])", re.I)
_PRECISIONS = {"fp32", "bf16", "fp16", "int8", "int4"}


@dataclass(frozen=True)
class Claim:
    mode: str  # inference | lora | full
    precision: str | None
    bytes_per_param: float
    params_b: float
    job_words: str  # the user's own words for the job (「LoRA或者推理」), echoed by the writer


def asks_check(text: str) -> bool:
    return bool(route_regex("rule_check").search(text or ""))


def _job(clause: str) -> tuple[str, str] | None:
    hits = []
    for mode in ("full", "lora", "inference"):
        m = route_regex(f"rule_{mode}").search(clause)
        if m:
            hits.append((m.start(), mode, m.group(0)))
    if not hits:
        return None
    modes = {h[1] for h in hits}
    mode = "full" if "full" in modes else "lora" if "lora" in modes else "inference"
    hits.sort()
    words = (
        "/".join(h[2] for h in hits) if len(hits) > 1 and mode != "full" else next(h[2] for h in hits if h[1] == mode)
    )
    return mode, words


@lru_cache(maxsize=64)
def claimed_rules(text: str) -> tuple[Claim, ...]:
    """Every clause that states a rate or a size-and-total for a named job, when the text asks if it is right."""
    if not text or not asks_check(text):
        return ()
    sizes = [float(m.group(1)) for m in _SIZE_RE.finditer(text) if float(m.group(1)) != 1.0]
    out: list[Claim] = []
    mode_before: tuple[str, str] | None = None
    for clause in _CLAUSE_RE.split(text):
        job = _job(clause) or mode_before
        rate = _RATE_RE.search(clause)
        # 「1B=4G」 is the rate itself; the total is a real size with its GB (「70B模型需要280G」)
        total = next((m for m in _TOTAL_RE.finditer(clause) if float(m.group(1)) != 1.0), None)
        if job is None and rate and not out:
            job = ("inference", "")  # 「是不是1B=2G」 with no job named: the weights, as most people mean it
        mode_before = job
        if job is None or not (rate or total):
            continue
        params = float(total.group(1)) if total else (sizes[0] if sizes else 1.0)
        if rate:
            bpp = float(rate.group(1) or rate.group(2))
        else:
            bpp = float(total.group(2)) / params if total and params else 0.0
        named = [p for p in named_precisions(clause) if p in _PRECISIONS]
        if bpp > 0 and params > 0:
            out.append(Claim(job[0], named[0] if named else None, bpp, params, job[1]))
    return tuple(out[:4])
