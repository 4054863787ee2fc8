"""Join findings into incidents (one story, one next action) and write the renter's next step.

Why: an AER burst on a root port and Xid 79 on the GPU below it are one failing PCIe link; a hot GPU
and low utilisation are one throttling story; Xids followed by hung tasks are one wedged driver.
Listing them separately buries the action. Joins use PCI topology (the AER port → the device the
kernel names right after it, or the only GPU lost in the paste) and time order (cause before effect).

The next action leads with the verdict: move machine / ask the provider / fix your setup. For the
provider's problems it carries the ticket text: hostname, GPU index, UUID, PCI address, serial, time,
the evidence lines and `nvidia-bug-report.sh`. "Exclude it with CUDA_VISIBLE_DEVICES" is offered only
when the paste shows more than one GPU, always with CUDA_DEVICE_ORDER=PCI_BUS_ID (CUDA's default
order is fastest-first, not nvidia-smi's — CUDA C Programming Guide, environment variables).
"""

from __future__ import annotations

import re
from typing import Any

from tools.diagnosis import policy
from tools.diagnosis.findings import SEVERITY_RANK, Finding, Incident, Text

LOSS = ("xid_79", "gpu_lost", "gpu_fallen_off_bus", "pci_rev_ff")
# a GPU the driver cannot bring up, or that the renter saw vanish: after bus errors it is the same failing link
INIT_FAIL = ("rm_init_adapter_failed", "gpu_dropped_reported")
AER = ("pcie_aer_fatal", "pcie_aer_nonfatal", "pcie_aer_corrected", "sel_bus_uncorrectable", "sel_bus_correctable")
THERMAL = ("gpu_hot", "clocks_sw_thermal", "clocks_hw_slowdown", "dcgm_health_thermal", "gpu_near_slowdown_temp")
SLOW = ("input_bound_suspected", "gpu_hang_suspected", "stalled_job_suspected", "clocks_power_cap")
_TIME = re.compile(r"^\[?((?:[A-Z][a-z]{2} ){1,2}[ \d]?\d \d\d:\d\d:\d\d(?: \d{4})?|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d)")

VERDICT_LEAD = {
    "move_machine": ("换机器", "Move machine"),
    "ask_provider": ("找服务商处理", "Ask the provider"),
    "fix_setup": ("改你的环境/配置", "Fix your setup"),
    "no_action": ("无需处理", "No action needed"),
}


def build(ctx: Any, findings: list[Finding]) -> list[Incident]:
    """Incidents, worst first; each finding belongs to exactly one."""
    groups: list[list[Finding]] = []
    used: set[int] = set()

    def take(members: list[Finding]) -> None:
        groups.append(members)
        used.update(id(f) for f in members)

    losses = [f for f in findings if f.id in LOSS] or [f for f in findings if f.id in INIT_FAIL]
    aers = [f for f in findings if f.id in AER]
    k = ctx.p.get("kernel_log")
    for loss in losses:
        below = {v for v in (k.aer_downstream.values() if k else [])}
        linked = [
            a for a in aers if id(a) not in used and (loss.bus_id in below or len({x.bus_id for x in losses}) == 1)
        ]
        take([loss] + linked + [f for f in losses if f is not loss and f.bus_id == loss.bus_id and id(f) not in used])
        if linked:
            _link_story(loss, linked)
    hung = [f for f in findings if f.id in ("hung_task_gpu_driver",) and id(f) not in used]
    xids = [f for f in findings if f.id.startswith("xid_") and id(f) not in used]
    if hung:
        take(hung + xids)
    for hot in [f for f in findings if f.id in THERMAL]:
        if id(hot) in used:
            continue
        same = [
            f
            for f in findings
            if f is not hot
            and id(f) not in used
            and (f.id in THERMAL or f.id in SLOW)
            and (f.gpu_index is None or hot.gpu_index is None or f.gpu_index == hot.gpu_index)
        ]
        take([hot] + same)
    for f in findings:
        if id(f) not in used:
            take([f])
    incidents = [_incident(ctx, g) for g in groups]
    incidents.sort(key=lambda i: -SEVERITY_RANK[i.severity])
    return incidents


def _link_story(loss: Finding, linked: list[Finding]) -> None:
    """Bus errors, then a lost GPU: say it is one failing link and lead with the physical checks
    (texts in knowledge/diagnosis/pcie_faults.yaml; the kernel AER guide and NVIDIA's Xid catalog)."""
    from tools.diagnosis import signals

    if any(a.id.startswith("pcie_aer") for a in linked) and loss.id in LOSS:
        cause = Text(
            zh="同一条 PCIe 链路先报了 AER 错误（上游端口），随后这块 GPU 掉线：是一条坏链路",
            en="The same PCIe link reported AER errors first (upstream port), then this GPU dropped: one failing link",
        )
    else:
        zh, en = signals.snippet("pcie_faults", "linked_cause")
        cause = Text(zh=zh, en=en)
    loss.causes.insert(0, cause)
    check_zh, check_en = signals.snippet("pcie_faults", "physical_checks")
    loss.actions.insert(0, Text(zh=check_zh, en=check_en))


def _incident(ctx: Any, members: list[Finding]) -> Incident:
    members = sorted(members, key=lambda f: -SEVERITY_RANK[f.severity])
    root = members[0]
    verdict = policy.verdict_of(root)
    ticket = _ticket(ctx, root, members) if verdict in ("move_machine", "ask_provider") else None
    return Incident(
        id=root.id,
        severity=root.severity,
        verdict=verdict,
        title=root.title,
        finding_ids=[f.id for f in members],
        gpu_index=root.gpu_index,
        bus_id=root.bus_id,
        next_action=_next(ctx, root, verdict, ticket),
        ticket=ticket,
    )


def _renter_action(root: Finding) -> Text | None:
    """The root's first action that is not itself a ticket (tickets are written here, once)."""
    for a in root.actions:
        if not a.en.startswith("Open a ticket"):
            return a
    return None


def _exclude(ctx: Any, root: Finding) -> tuple[str, str] | None:
    gpus = ctx.inventory.gpus
    if len(gpus) < 2 or root.gpu_index is None:
        return None
    keep = ",".join(str(g.index) for g in gpus if g.index is not None and g.index != root.gpu_index)
    if not keep:
        return None
    cmd = f"CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES={keep}"
    return (
        f"换机前可先用 `{cmd}` 避开 GPU {root.gpu_index} 继续跑（PCI_BUS_ID 让编号与 nvidia-smi 一致；分布式要减少进程数）。",
        f"Until you move, `{cmd}` keeps jobs off GPU {root.gpu_index} (PCI_BUS_ID makes the numbering match nvidia-smi; use fewer ranks).",
    )


_GENERIC = ("Stop running jobs", "What you can do now: exclude", "What you can do now: find")


def _next(ctx: Any, root: Finding, verdict: str, ticket: Text | None) -> Text:
    lz, le = VERDICT_LEAD.get(verdict, ("", ""))
    if policy.finding_class(root) == "host_reset":
        lz, le = "找服务商重置这块 GPU 或重启节点", "Ask the provider to reset the GPU or reboot the node"
    act = _renter_action(root)
    if act and act.en.startswith(_GENERIC):
        act = None
    if verdict == "move_machine":
        zh = f"{lz}：{root.title.zh}，这块卡在维修/重启前不能用。"
        en = f"{le}: {root.title.en}; this GPU is unusable until it is repaired or the node rebooted."
        if act:
            zh, en = zh + act.zh, en + " " + act.en
        ex = _exclude(ctx, root)
        if ex:
            zh, en = zh + ex[0], en + " " + ex[1]
        if ticket:
            zh, en = zh + "给服务商的工单：" + ticket.zh, en + " Ticket for the provider: " + ticket.en
        return Text(zh=zh, en=en)
    if verdict == "ask_provider":
        zh = f"{lz}：{root.title.zh}。"
        en = f"{le}: {root.title.en}."
        if act:
            zh, en = zh + act.zh, en + " " + act.en
        if ticket:
            zh, en = zh + "工单：" + ticket.zh, en + " Ticket: " + ticket.en
        return Text(zh=zh, en=en)
    if verdict == "fix_setup":
        if act:
            return Text(zh=f"{lz}：{act.zh}", en=f"{le}: {act.en}")
        return Text(zh=f"{lz}：处理「{root.title.zh}」", en=f"{le}: address “{root.title.en}”")
    if act:
        return Text(zh=f"{lz}。{act.zh}", en=f"{le}. {act.en}")
    return Text(zh=f"{lz}：{root.title.zh}", en=f"{le}: {root.title.en}")


def _when(members: list[Finding]) -> str | None:
    for f in members:
        for line in f.evidence:
            m = _TIME.match(line.strip())
            if m:
                return m.group(1)
    return None


def _ticket(ctx: Any, root: Finding, members: list[Finding]) -> Text:
    """What to send the provider, filled from the paste; placeholders say where to find the rest."""
    bus = root.bus_id or next((f.bus_id for f in members if f.bus_id), None)
    index = root.gpu_index if root.gpu_index is not None else (ctx.bus_to_index.get(bus) if bus else None)
    uuid = (ctx.index_to_uuid.get(index) if index is not None else None) or (ctx.bus_to_uuid.get(bus) if bus else None)
    k = ctx.p.get("kernel_log")
    if not uuid and k and len(k.uuids) == 1:
        bus = bus or next(iter(k.uuids))
        uuid = next(iter(k.uuids.values()))
    serial = (k.serials.get(bus) if (k and bus) else None) or (
        next(iter(k.serials.values())) if k and len(k.serials) == 1 else None
    )
    when = _when(members)
    ev: list[str] = []
    for f in members:
        for line in f.evidence:
            if line not in ev and len(ev) < 4:
                ev.append(line)
    host = ctx.host
    zh = (
        f"「{root.title.zh}」。节点 {host or '（hostname）'}，GPU 序号 {index if index is not None else '（nvidia-smi 第一列）'}，"
        f"UUID {uuid or '（nvidia-smi -L）'}，PCI 地址 {bus or '（nvidia-smi 的 Bus-Id）'}，序列号 {serial or '（nvidia-smi -q | grep Serial）'}，"
        f"时间 {when or '（日志时间）'}。证据："
        + " | ".join(ev).rstrip("。.")
        + "。附 `sudo nvidia-bug-report.sh` 生成的 nvidia-bug-report.log.gz"
        "（没有 root 就请服务商在宿主机上运行）；记下 UUID，避免再分到同一块卡。"
    )
    en = (
        f"“{root.title.en}”. Node {host or '(hostname)'}, GPU index {index if index is not None else '(first column of nvidia-smi)'}, "
        f"UUID {uuid or '(nvidia-smi -L)'}, PCI address {bus or '(Bus-Id in nvidia-smi)'}, serial {serial or '(nvidia-smi -q | grep Serial)'}, "
        f"time {when or '(log timestamp)'}. Evidence: "
        + " | ".join(ev).rstrip(".")
        + ". Attach nvidia-bug-report.log.gz from `sudo nvidia-bug-report.sh` "
        "(ask the provider to run it on the host if you lack root); note the UUID so you are not given the same GPU again."
    )
    return Text(zh=zh, en=en)
