"""The severity policy, applied in one place (knowledge/diagnosis/severity_policy.yaml; docs/diagnosis.md).

Why one place: rules decide *what* is wrong; whether it is critical is a policy question with one
answer everywhere — critical only for a hardware fault or a GPU/host unusable until reset/replacement,
warning for what blocks or degrades the job (the renter fixes it, or the provider must for links and
cooling), info for what needs no action. Each class also carries the renter's verdict.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from tools.diagnosis.findings import SEVERITY_RANK, FaultAnswer, Finding, Text

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


# ---------------------------------------------------------------- the renter's yes/no about a paste
# Which class answers "is the card broken?" first: a hardware finding anywhere in the paste decides it.
CLASS_ORDER = ("hardware", "host_reset", "provider_fix", "renter_fix", "info")
QUESTIONS = ("hardware", "driver", "memory")


def topic_of(f: Finding) -> str | None:
    """driver | gpu_memory | host_memory | None, from the policy's topics."""
    for topic, ids in (policy().get("topics") or {}).items():
        if f.id in ids:
            return str(topic)
    return None


def fault_answer(question: str, findings: list[Finding], recognised: bool) -> FaultAnswer:
    """Line 1 for "是卡坏了吗 / is it the driver / 是不是显存不够": yes / no / probably_not / unclear, with the
    deciding finding. Classes and topics come from the severity policy (one source); the question only
    says which of them to look at."""
    real = [f for f in findings if f.severity in ("warning", "critical", "info")]
    by_class: dict[str, list[Finding]] = {}
    for f in real:
        by_class.setdefault(finding_class(f), []).append(f)
    top_cls = next((c for c in CLASS_ORDER if by_class.get(c) and c != "info"), None)
    top = by_class[top_cls][0] if top_cls else None

    def out(answer: str, zh: str, en: str, f: Finding | None, domain: str | None) -> FaultAnswer:
        return FaultAnswer(
            question=question,
            answer=answer,
            domain=domain,
            finding_id=f.id if f else None,
            text=Text(zh=zh, en=en),
        )

    if not recognised:
        return out(
            "unclear",
            "单凭这段内容判断不了：没有认出可诊断的输出。请贴 `nvidia-smi -q`、`dmesg -T | grep -iE 'nvrm|xid'` 和报错原文。",
            "Can't tell from this: nothing diagnosable was recognised. Paste `nvidia-smi -q`, "
            "`dmesg -T | grep -iE 'nvrm|xid'` and the error itself.",
            None,
            None,
        )
    if question == "driver":
        drv = next((f for f in real if topic_of(f) == "driver"), None)
        if drv:
            return out(
                "yes",
                f"是，问题在驱动/CUDA 这一层：{drv.title.zh}。",
                f"Yes — it is the driver/CUDA stack: {drv.title.en}.",
                drv,
                "driver",
            )
        return _not_it(out, top, top_cls, "驱动", "the driver")
    if question == "memory":
        mem = next((f for f in real if topic_of(f) == "gpu_memory"), None)
        if mem:
            return out(
                "yes", f"是，显存不够：{mem.title.zh}。", f"Yes — GPU memory: {mem.title.en}.", mem, "gpu_memory"
            )
        host = next((f for f in real if topic_of(f) == "host_memory"), None)
        if host:
            return out(
                "no",
                f"不是显存，是主机内存（RAM）不够：{host.title.zh}。",
                f"No — not GPU memory but the host's RAM: {host.title.en}.",
                host,
                "host_memory",
            )
        return _not_it(out, top, top_cls, "显存不够", "GPU memory")
    # "is the card broken / a hardware fault / do I need another card?"
    if top is None or top_cls is None:
        return out(
            "no",
            "没有，这段输出里看不到硬件故障的迹象。",
            "No — nothing in this paste points to a hardware fault.",
            None,
            None,
        )
    if top_cls == "hardware":
        return out(
            "yes",
            f"是，很可能是硬件（这张卡或它所在的平台）出了问题：{top.title.zh}。改代码解决不了，找服务商换机或开工单。",
            f"Yes — this points to a hardware fault (the card or its platform): {top.title.en}. Code changes won't "
            "fix it; move machine or open a ticket.",
            top,
            "hardware",
        )
    if top_cls == "host_reset" and topic_of(top) == "driver":  # NVML driver/library mismatch after an upgrade
        return out(
            "probably_not",
            f"不像是卡坏了：{top.title.zh}——是驱动/库版本这一层的问题（软件），重启机器或重新加载驱动模块即可，换卡解决不了。",
            f"Probably not the card: {top.title.en} — the driver/library versions (software); a reboot or reloading "
            "the driver module fixes it, another card would not.",
            top,
            "driver",
        )
    if top_cls == "host_reset":
        return out(
            "unclear",
            f"还不能断定卡坏了：{top.title.zh}——GPU/驱动卡在只有复位才能恢复的状态。请服务商复位 GPU 或重启节点；复位后又出现才按硬件故障处理。",
            f"Not proven yet: {top.title.en} — the GPU/driver is stuck in a state only a reset clears. Ask the "
            "provider to reset the GPU or reboot the node; if it comes back after that, treat it as hardware.",
            top,
            "platform",
        )
    if top_cls == "provider_fix":
        return out(
            "probably_not",
            f"卡本身大概率没坏：{top.title.zh}——问题在卡周围的平台（链路、散热或网络），要服务商处理。",
            f"Probably not the card itself: {top.title.en} — the platform around it (link, cooling or network) "
            "is at fault, and the provider has to fix it.",
            top,
            "platform",
        )
    app = _application_xid(top)
    return out(
        "probably_not",
        f"不像是卡坏了：{top.title.zh}——这是软件/配置层面的问题（程序、环境或参数），换卡解决不了。{app[0]}",
        f"Probably not a broken card: {top.title.en} — a software/configuration problem (the program, its "
        f"environment or settings), which another card would not fix.{app[1]}",
        top,
        "software",
    )


def _application_xid(f: Finding) -> tuple[str, str]:
    """NVIDIA's catalog puts Xid 13/31/43… on the application: say when it would be the card after all."""
    if not (f.id.startswith("xid_") and f.id[4:].isdigit() and int(f.id[4:]) in policy()["APPLICATION_XIDS"]):
        return "", ""
    code = f.id[4:]
    proc = next((m.group(1) for e in f.evidence if (m := re.search(r"\bname=([^,\s<>']+)", e))), None)
    who = (f"，报错的是你的进程 `{proc}`", f", raised in your own process `{proc}`") if proc else ("", "")
    return (
        f"NVIDIA 的 Xid 目录把 Xid {code} 归为应用错误{who[0]}（通常是越界访问、用错指针或 kernel bug）；"
        "只有换了程序、同一张卡仍反复出现，才跑 `dcgmi diag -r 3` 查硬件。",
        f" NVIDIA's Xid catalog files Xid {code} under application errors{who[1]} (usually an out-of-bounds access, a bad "
        "pointer or a kernel bug); only if it keeps recurring on the same GPU with different programs, run "
        "`dcgmi diag -r 3` to test the hardware.",
    )


def _not_it(out: Any, top: Finding | None, top_cls: str | None, zh_what: str, en_what: str) -> Any:
    if top is None:
        return out(
            "no",
            f"不是，这段输出里看不到{zh_what}的问题。",
            f"No — nothing in this paste points to {en_what}.",
            None,
            None,
        )
    domain = {"hardware": "hardware", "host_reset": "platform", "provider_fix": "platform"}.get(
        top_cls or "", "software"
    )
    kind = {"hardware": ("硬件", "hardware"), "platform": ("平台", "the platform")}.get(
        domain, ("别的原因", "something else")
    )
    return out(
        "no",
        f"不是{zh_what}，更像是{kind[0]}：{top.title.zh}。",
        f"No — not {en_what}; it points to {kind[1]}: {top.title.en}.",
        top,
        domain,
    )
