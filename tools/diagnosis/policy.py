"""The severity policy, applied in one place (knowledge/diagnosis/severity_policy.yaml; docs/diagnosis.md).

Why one place: rules decide *what* is wrong; whether it is critical is a policy question with one
answer everywhere — critical only for a hardware fault or a GPU/host unusable until reset/replacement,
warning for what blocks or degrades the job (the renter fixes it, or the provider must for links and
cooling), info for what needs no action. Each class also carries the renter's verdict.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from tools.diagnosis.findings import SEVERITY_RANK, Finding

POLICY_FILE = Path(__file__).resolve().parents[2] / "knowledge" / "diagnosis" / "severity_policy.yaml"
VERDICTS = ("move_machine", "ask_provider", "fix_setup", "no_action", "need_more_input")


@lru_cache(maxsize=1)
def policy() -> dict[str, Any]:
    return yaml.safe_load(POLICY_FILE.read_text(encoding="utf-8"))


def finding_class(f: Finding) -> str:
    """hardware | host_reset | provider_fix | renter_fix | info for one finding."""
    p = policy()
    cls = p["findings"].get(f.id)
    if cls:
        return str(cls)
    if f.id.startswith("xid_") and f.id[4:].isdigit():
        return _xid_class(int(f.id[4:]), f.severity)
    return {"critical": "host_reset", "warning": "renter_fix"}.get(f.severity, "info")


def _xid_class(code: int, severity: str) -> str:
    """From NVIDIA's catalog bucket: RESET_GPU-style → the provider resets; else hardware; app Xids → renter."""
    from tools.diagnosis.xid import entry

    p = policy()
    e = entry(code) or {}
    bucket = ((e.get("immediate_action") or {}).get("bucket")) or ""
    if severity == "critical":
        return "host_reset" if bucket in p["RESET_BUCKETS"] else "hardware"
    if severity == "warning":
        return "renter_fix" if code in p["APPLICATION_XIDS"] else "provider_fix"
    return "info"


def cap(f: Finding) -> str:
    return str(policy()["classes"][finding_class(f)]["severity"])


def verdict_of(f: Finding) -> str:
    if f.severity in ("ok", "info"):
        return "no_action"
    return str(policy()["classes"][finding_class(f)]["verdict"])


def apply(findings: list[Finding]) -> None:
    """Clamp every finding to its class's level (a renter-fixable blocker is never critical)."""
    for f in findings:
        c = cap(f)
        if SEVERITY_RANK[f.severity] > SEVERITY_RANK[c]:
            f.severity = c  # type: ignore[assignment]
