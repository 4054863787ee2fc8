"""The diagnosis report model: findings with severity, quoted evidence, causes, actions.

Severity order (worst wins): unknown < ok < info < warning < critical. The policy that assigns them
lives in one place (tools/diagnosis/policy.py, knowledge/diagnosis/severity_policy.yaml):
- critical: hardware fault, or the GPU/host is unusable until reset or replacement
- warning: blocks or degrades the job (the renter fixes it, or the provider must: link, cooling)
- info: worth knowing; no action
- ok: healthy (recognised, nothing wrong)
- unknown: nothing in the paste was recognised (never reported as info)
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

Severity = Literal["unknown", "ok", "info", "warning", "critical"]
SEVERITY_RANK: dict[str, int] = {"unknown": -1, "ok": 0, "info": 1, "warning": 2, "critical": 3}
Verdict = Literal["move_machine", "ask_provider", "fix_setup", "no_action", "need_more_input"]
MAX_EVIDENCE_LINES = 8
MAX_EVIDENCE_CHARS = 300


def worst(levels: list[str]) -> Severity:
    best: Severity = "ok"
    for level in levels:
        if SEVERITY_RANK.get(level, 0) > SEVERITY_RANK[best]:
            best = level  # type: ignore[assignment]
    return best


# Chinese typography: no space on either side of full-width punctuation (「节点 （主机名）」 → 「节点（主机名）」)
_FULLWIDTH = "（）【】「」『』《》，。；：！？、"
_SPACE_BEFORE = re.compile(f"[ \t]+(?=[{_FULLWIDTH}])")
_SPACE_AFTER = re.compile(f"(?<=[{_FULLWIDTH}])[ \t]+")


def zh_typography(text: str) -> str:
    """Drop spaces next to full-width punctuation; templates that glue optional parts leave them."""
    return _SPACE_AFTER.sub("", _SPACE_BEFORE.sub("", text))


class Text(BaseModel):
    """One message in both languages."""

    zh: str
    en: str

    @field_validator("zh")
    @classmethod
    def _tidy_zh(cls, value: str) -> str:
        return zh_typography(value)


class Finding(BaseModel):
    id: str = Field(description="stable identifier, e.g. xid_79, gpu_hang_suspected")
    severity: Severity
    title: Text
    evidence: list[str] = Field(default_factory=list, description="lines quoted from the paste")
    causes: list[Text] = Field(default_factory=list, description="likely causes, most likely first")
    actions: list[Text] = Field(default_factory=list, description="what to do, renter-side first")
    gpu_index: int | None = None
    bus_id: str | None = Field(default=None, description="PCI id as 0000:3b:00")


class GpuInfo(BaseModel):
    index: int | None = None
    name: str | None = None
    memory_total_mib: int | None = None
    bus_id: str | None = Field(default=None, description="PCI id as 0000:3b:00")
    uuid: str | None = None


class Inventory(BaseModel):
    gpus: list[GpuInfo] = Field(default_factory=list)
    driver_version: str | None = None
    cuda_version: str | None = Field(default=None, description="highest CUDA the driver supports (nvidia-smi header)")


class XidEvent(BaseModel):
    code: int
    bus_id: str | None = None
    count: int = 1
    text: str = Field(description="the first kernel-log line with this code and bus id")
    gpu_index: int | None = None
    name: Text | None = None


class AcceptanceRow(BaseModel):
    check: str
    expected: str
    observed: str
    status: Literal["pass", "fail", "unknown"]
    note: Text | None = None


class Incident(BaseModel):
    """Findings that are one story (joined by PCI topology and time), with one next action."""

    id: str = Field(description="the root finding's id")
    severity: Severity
    verdict: Verdict
    title: Text
    finding_ids: list[str] = Field(default_factory=list, description="root first")
    gpu_index: int | None = None
    bus_id: str | None = None
    next_action: Text
    ticket: Text | None = Field(default=None, description="text to send the provider, when it is theirs to fix")


class FaultAnswer(BaseModel):
    """The renter's yes/no about the paste (「是卡坏了吗」), decided by the findings' policy classes/topics."""

    question: Literal["hardware", "driver", "memory"]
    answer: Literal["yes", "no", "probably_not", "unclear"]
    domain: str | None = Field(None, description="hardware | platform | driver | gpu_memory | host_memory | software")
    finding_id: str | None = Field(None, description="the finding that decided it")
    text: Text


class DiagnosisReport(BaseModel):
    kinds: list[str] = Field(default_factory=list, description="input kinds detected in the paste")
    inventory: Inventory = Field(default_factory=Inventory)
    xids: list[XidEvent] = Field(default_factory=list)
    severity: Severity = "ok"
    findings: list[Finding] = Field(default_factory=list)
    next_action: Text
    verdict: Verdict = Field(
        default="no_action", description="move_machine | ask_provider | fix_setup | no_action | need_more_input"
    )
    incidents: list[Incident] = Field(default_factory=list, description="worst first; findings joined into stories")
    acceptance: list[AcceptanceRow] | None = Field(default=None, description="only with --expect")
    answer: FaultAnswer | None = Field(default=None, description="only with `question`: the yes/no, line 1")
    headline: Text | None = Field(
        default=None,
        description="the top finding's title when it is itself the answer (a verdict on a measurement, the command "
        "to run; severity_policy.yaml lead_as_is): replies lead with it as is",
    )
    serving: Any = Field(
        default=None,
        description="serving arithmetic worked out from a vLLM/LMDeploy paste (tools.diagnosis.serving.ServingMath)",
    )


def quote(lines: list[str]) -> list[str]:
    """Evidence as pasted (the log part only, not the user's sentence in front of it),
    de-duplicated, capped so one noisy log cannot flood the report."""
    from tools.diagnosis.text import log_part

    seen: set[str] = set()
    out: list[str] = []
    for line in lines:
        line = log_part(line.strip())
        if not line or line in seen:
            continue
        seen.add(line)
        out.append(line if len(line) <= MAX_EVIDENCE_CHARS else line[:MAX_EVIDENCE_CHARS] + "…")
        if len(out) >= MAX_EVIDENCE_LINES:
            break
    return out
