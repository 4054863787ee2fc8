"""Shared state for the rules (`Ctx`), the inventory, and context read from the paste (host, GPU named in prose)."""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any

from tools.diagnosis.detect import Parsed
from tools.diagnosis.findings import Finding, GpuInfo, Inventory, Text, XidEvent, quote

T = Text


class Ctx:
    """Collects findings while the rules run."""

    def __init__(self, parsed: Parsed) -> None:
        self.p = parsed
        self.findings: list[Finding] = []
        self.inventory = Inventory()
        self.xids: list[XidEvent] = []
        self.bus_to_index: dict[str, int] = {}
        self.index_to_uuid: dict[int, str] = {}
        self.bus_to_uuid: dict[str, str] = {}
        self.host: str | None = None
        self.expect: tuple[int | None, str | None] | None = None  # (GPU count, model) the renter says they rented
        self.model: str | None = None  # the model being served, as the renter named it (serving arithmetic)
        self.session_len: int | None = None  # tokens one request needs, from the renter's words
        self.serving: Any = None  # tools.diagnosis.serving.ServingMath, when the paste is a serving launch

    def add(
        self,
        fid: str,
        severity: str,
        title: tuple[str, str],
        evidence: list[str] | None = None,
        causes: list[tuple[str, str]] | None = None,
        actions: list[tuple[str, str]] | None = None,
        gpu_index: int | None = None,
        bus_id: str | None = None,
    ) -> Finding:
        f = Finding(
            id=fid,
            severity=severity,
            title=T(zh=title[0], en=title[1]),
            evidence=quote(evidence or []),
            causes=[T(zh=z, en=e) for z, e in causes or []],
            actions=[T(zh=z, en=e) for z, e in actions or []],
            gpu_index=gpu_index,
            bus_id=bus_id,
        )
        self.findings.append(f)
        return f

    def has(self, fid: str) -> bool:
        return any(f.id == fid for f in self.findings)

    def gpu_label(self, index: int | None, bus: str | None) -> tuple[str, str]:
        if index is not None and bus:
            return f"GPU {index}（PCI {bus}）", f"GPU {index} (PCI {bus})"
        if index is not None:
            return f"GPU {index}", f"GPU {index}"
        if bus:
            return f"PCI {bus} 上的 GPU", f"the GPU at PCI {bus}"
        return "这块 GPU", "this GPU"

    def ticket(self, index: int | None, bus: str | None, what_zh: str, what_en: str) -> tuple[str, str]:
        """The provider ticket, with exactly what to include."""
        uuid = (self.index_to_uuid.get(index) if index is not None else None) or (
            self.bus_to_uuid.get(bus) if bus else None
        )
        node = self.host or "（主机名 hostname）"
        node_en = self.host or "(hostname)"
        idx_zh = str(index) if index is not None else "（nvidia-smi 左列的编号）"
        idx_en = str(index) if index is not None else "(the number in nvidia-smi's first column)"
        bus_zh = bus or "（nvidia-smi 的 Bus-Id 列）"
        bus_en = bus or "(nvidia-smi's Bus-Id column)"
        ident_zh = f"节点 {node}，GPU 序号 {idx_zh}，UUID {uuid or '（nvidia-smi -L 查看）'}，PCI 总线号 {bus_zh}"
        ident_en = f"node {node_en}, GPU index {idx_en}, UUID {uuid or '(see nvidia-smi -L)'}, PCI bus id {bus_en}"
        return (
            f"给服务商开工单：{what_zh}。写明{ident_zh}；附上相关 Xid/内核日志原文和 `sudo nvidia-bug-report.sh` 生成的 "
            "nvidia-bug-report.log.gz（没有 root 权限就请服务商在宿主机上运行）。记下 UUID，避免以后又被分到同一块坏卡。",
            f"Open a ticket with the provider: {what_en}. Include {ident_en}; attach the Xid/kernel-log lines and the "
            "nvidia-bug-report.log.gz from `sudo nvidia-bug-report.sh` (ask the provider to run it on the host if you lack root). "
            "Record the UUID so you can tell if you are given the same bad GPU again.",
        )

    def exclude(self, index: int | None, bus: str | None = None) -> tuple[str, str]:
        """Keep working on the other GPUs — only when the paste shows more than one, and always with
        CUDA_DEVICE_ORDER=PCI_BUS_ID (CUDA's default order is fastest-first, not nvidia-smi's)."""
        gpus = self.inventory.gpus
        if index is None and bus:
            index = self.bus_to_index.get(bus)
        keep = ",".join(str(g.index) for g in gpus if g.index is not None and g.index != index)
        if len(gpus) < 2 or index is None or not keep:
            return ("先停止在这块卡上跑任务。", "Stop running jobs on this GPU for now.")
        cmd = f"CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES={keep}"
        return (
            f"自己能做的：用 `{cmd}` 排除 GPU {index}，先用其余的卡继续跑（PCI_BUS_ID 让编号与 nvidia-smi 一致；分布式任务要相应减少进程数）。",
            f"What you can do now: exclude GPU {index} with `{cmd}` and keep working on the rest "
            "(PCI_BUS_ID makes the numbering match nvidia-smi; reduce the number of ranks accordingly).",
        )


# --------------------------------------------------------------------------- inventory


def build_inventory(c: Ctx) -> None:
    table = c.p.get("nvidia_smi_table")
    query = c.p.get("nvidia_smi_query")
    inv = c.inventory
    by_bus: "OrderedDict[str, GpuInfo]" = OrderedDict()
    if table:
        inv.driver_version = table.driver_version
        inv.cuda_version = table.cuda_version
        for g in table.gpus:
            info = GpuInfo(index=g.index, name=g.name, memory_total_mib=g.memory_total_mib, bus_id=g.bus_id)
            by_bus[g.bus_id or f"idx{g.index}"] = info
    if query:
        inv.driver_version = inv.driver_version or query.driver_version
        inv.cuda_version = inv.cuda_version or query.cuda_version
        for i, g in enumerate(query.gpus):
            key = g.bus_id or f"q{i}"
            found = by_bus.get(key)
            info = found if found is not None else GpuInfo(index=i if not table else None, bus_id=g.bus_id)
            if found is None:
                by_bus[key] = info
            if g.product_name:
                info.name = g.product_name  # -q has the untruncated name
            if g.fb_total_mib is not None:
                info.memory_total_mib = g.fb_total_mib
            info.uuid = g.uuid or info.uuid
    smi_list = c.p.get("nvidia_smi_list")
    if smi_list:
        if by_bus:
            by_index = {g.index: g for g in by_bus.values() if g.index is not None}
            for idx, _name, uuid in smi_list.gpus:
                if idx in by_index:
                    by_index[idx].uuid = by_index[idx].uuid or uuid
        else:
            for idx, name, uuid in smi_list.gpus:
                by_bus[f"L{idx}"] = GpuInfo(index=idx, name=name, uuid=uuid)
    if not by_bus:
        runs = c.p.get("nccl_tests")
        if runs and runs[0].ranks:
            for rank, _host, dev, _bus, name in runs[0].ranks:
                if len(runs[0].hosts) == 1:
                    by_bus[f"r{rank}"] = GpuInfo(index=dev, name=name)
        elif c.p.get("lspci"):
            for d in c.p.get("lspci").gpus:
                by_bus[d.bus_id or d.line] = GpuInfo(name=d.name, bus_id=d.bus_id)
    inv.gpus = list(by_bus.values())
    for g in inv.gpus:
        if g.bus_id and g.index is not None:
            c.bus_to_index[g.bus_id] = g.index
        if g.uuid and g.index is not None:
            c.index_to_uuid[g.index] = g.uuid
    k = c.p.get("kernel_log")
    if k:
        for bus, uuid in k.uuids.items():
            idx = c.bus_to_index.get(bus)
            if idx is not None:
                c.index_to_uuid.setdefault(idx, uuid)
            c.bus_to_uuid[bus] = uuid
    for g in inv.gpus:
        if g.bus_id:
            c.bus_to_uuid.setdefault(g.bus_id, g.uuid) if g.uuid else None
    if not inv.driver_version:
        dcgm = c.p.get("dcgmi_diag")
        k = c.p.get("kernel_log")
        inv.driver_version = (dcgm.driver_version if dcgm else None) or (k.driver_version if k else None)
    c.host = _find_host(c)


_CONTEXT_GPU = re.compile(
    r"(?<![A-Za-z0-9])((?:RTX\s?)?(?:A100|A800|H100|H800|H200|H20|B200|L40S|L40|L20|A10|V100|4090D?|3090|5090)"
    r"(?:[\s-]?(?:SXM\d?|PCIe|NVL|80\s?G(?:B)?|40\s?G(?:B)?))*)(?![A-Za-z0-9])",
    re.IGNORECASE,
)


def context_gpu(c: Ctx) -> str | None:
    """A GPU model named in the user's own words around the log ("8 卡 A100 SXM 机器上…").

    Used only as a fallback for reference values (expected busbw, NVLink expectations) when the
    log itself does not name the GPU; it never becomes inventory.
    """
    for line in c.p.lines[:200]:
        if len(line) > 400 or line.lstrip().startswith(("|", "#")) or "NCCL INFO" in line or "NVRM" in line:
            continue
        m = _CONTEXT_GPU.search(line)
        if m:
            return m.group(1).strip()
    if c.expect and c.expect[1]:
        return c.expect[1]  # what was rented (--expect / the page's field) when the paste names no GPU
    return None


def _find_host(c: Ctx) -> str | None:
    runs = c.p.get("nccl_tests")
    if runs and runs[0].hosts and len(runs[0].hosts) == 1:
        return next(iter(runs[0].hosts))
    for line in c.p.lines[:2000]:
        m = re.match(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d (\S+) kernel:", line)
        if m:
            return m.group(1)
        m = re.match(r"^hostname[:=]\s*(\S+)", line)
        if m:
            return m.group(1)
    return None
