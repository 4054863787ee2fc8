"""Kernel logs (`dmesg`, `dmesg -T`, `journalctl -k`, /var/log/kern.log): NVRM Xid, SXid,
"fallen off the bus" (with and without an Xid) and PCIe AER lines.

Shapes handled (sources in docs/diagnosis.md; regexes follow leptonai/gpud kmsg.go):
  NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
  NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.
  NVRM: Xid (0000:03:00): 14, Channel 00000001                    (old drivers: no "PCI:")
  NVRM: Xid (PCI:0018:01:00): 145, pid=..., RLW_RXPIPE Nonfatal XC0 i0 Link 13 (...)
  NVRM: Xid (PCI:0009:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)
  NVRM: Xid (PCI:0000:dc:00): 45, pid=..., Ch 00000001 caused by previous Xid 149
  NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.
  NVRM: The NVIDIA GPU 0000:b3:00.0 / (PCI ID: 10de:26b5) ... fallen off the bus and is not responding
  nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 ...
  pcieport 0000:00:02.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0
  nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)
  nvidia 0000:3b:00.0:    [ 5] SDES  / [ 5] Surprise Down Error
  NVRM: GPU6 _kgspBootGspRm: (the GPU is likely in a bad state and may need to be reset)   (GSP, no Xid)
  NVRM: ... Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) ...                          (no Xid)
  NVRM: GPU Board Serial Number: 0322716036227
  INFO: task python3:1234 blocked for more than 120 seconds.  /  task:python3 state:D ...    (hung task)
  nvidia 0000:02:00.0: device has no AER-aware driver     (the device below the AER port)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.diagnosis.text import norm_bus_id

_XID = re.compile(
    r"NVRM: Xid \((?:PCI:)?([0-9a-fA-F]{1,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)\):\s*(\d+),\s?(.*)$"
)
_SXID = re.compile(r"SXid \((?:PCI:)?([0-9a-fA-F:.]+)\):\s*(\d+),\s?(.*)$")
_PID = re.compile(r"pid='?([^,']*)'?,\s*name=([^,]*),")
_PREV = re.compile(r"caused by previous Xid (\d+)")
_RECOVERY = re.compile(r"recovery action changed from (0x[0-9a-fA-F]+) \(([^)]*)\) to (0x[0-9a-fA-F]+) \(([^)]*)\)")
_FATALITY = re.compile(r"\b(Fatal|Nonfatal|Non-fatal)\b")
_LINK = re.compile(r"\bLink (\d+)\b")
_UNIT = re.compile(r"\b([A-Z]{3,}(?:_[A-Z0-9]+)+)\b")
_FALLEN_SINGLE = re.compile(
    r"NVRM:\s+GPU ((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?):\s+GPU has fallen off the bus"
)
_FALLEN_MULTI_START = re.compile(
    r"NVRM:\s+The NVIDIA GPU ((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)"
)
# AER lines are located with str.find and matched with anchored patterns (no leading \S+ scan).
_AER_RECV_TAIL = re.compile(
    r"(?:Multiple )?(Corrected|Correctable|Uncorrected \((?:Fatal|Non-Fatal)\)|Uncorrectable \((?:Fatal|Non-Fatal)\)) errors? (?:message )?received:? ?(?:from )?(?:id=)?([0-9a-fA-F:.]*)"
)
_AER_SEV_TAIL = re.compile(
    r"(Corrected|Correctable|Uncorrected \((?:Fatal|Non-Fatal)\)|Uncorrectable \((?:Fatal|Non-Fatal)\)), type=([^,]{1,60})"
)
_AER_BIT = re.compile(r"\[\s*(\d{1,2})\]\s+(\S{1,40})")
_NVRM_OTHER = re.compile(
    r"NVRM: (?:API mismatch|RmInitAdapter failed|GPU at PCI:([0-9a-fA-F:.]+): GPU-[0-9a-f-]+|loading NVIDIA UNIX)"
)
_GPU_UUID = re.compile(r"NVRM: GPU at PCI:([0-9a-fA-F:.]+): (GPU-[0-9a-fA-F-]+)")
_SERIAL = re.compile(r"NVRM: GPU Board Serial Number:\s*(\S+)")
_GSP_FAIL = re.compile(
    r"Cannot initialize GSP firmware|_kgspBootGspRm|GSP-CrashCat|kgspHealthCheck|may need to be reset|"
    r"GPU marked for reset|Back to back GSP RPC timeout|Timeout waiting for RPC from GSP|rpcRecvPoll timedout"
)
_RESET_REQUIRED = re.compile(r"NV_ERR_RESET_REQUIRED|GPU marked for reset|requires? (?:a )?reset|may need to be reset")
_HUNG = re.compile(r"\btask (\S+?):(\d+) blocked for more than (\d+) seconds")
_STATE_D = re.compile(r"\btask:(\S+)\s+state:D\b")
_AER_DOWNSTREAM = re.compile(
    r"\bnvidia ((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): (?:device has no AER-aware driver|AER:)"
)
_VERSION = re.compile(r"NVRM: loading NVIDIA UNIX (?:Open Kernel Module for )?\S+ Kernel Module\s+(\d+\.\d+(?:\.\d+)?)")


@dataclass
class XidLine:
    code: int
    bus_id: str | None
    text: str
    line: str
    pid: str | None = None
    process: str | None = None
    previous_xid: int | None = None
    recovery_to: str | None = None
    fatality: str | None = None
    link: int | None = None
    unit: str | None = None


@dataclass
class AerLine:
    bus_id: str | None
    severity: str  # corrected | nonfatal | fatal
    line: str
    error_type: str | None = None
    bits: list[str] = field(default_factory=list)


@dataclass
class KernelLog:
    xids: list[XidLine] = field(default_factory=list)
    sxids: list[tuple[int, str, str]] = field(default_factory=list)  # (code, bus, line)
    fallen_off: list[tuple[str | None, str]] = field(default_factory=list)  # (bus_id, line)
    aer: list[AerLine] = field(default_factory=list)
    rm_init_failed: list[str] = field(default_factory=list)
    api_mismatch: list[str] = field(default_factory=list)
    driver_version: str | None = None
    uuids: dict[str, str] = field(default_factory=dict)  # bus id -> GPU UUID ("NVRM: GPU at PCI:...")
    serials: dict[str, str] = field(default_factory=dict)  # bus id -> board serial (line after "GPU at PCI:")
    gsp_failures: list[str] = field(default_factory=list)  # GSP boot/RPC/crash lines without an Xid
    reset_required: list[str] = field(default_factory=list)  # NV_ERR_RESET_REQUIRED / "needs to be reset"
    hung_tasks: list["HungTask"] = field(default_factory=list)
    aer_downstream: dict[str, str] = field(default_factory=dict)  # AER port bus -> GPU bus named right after it


@dataclass
class HungTask:
    """A task stuck in state D; `in_gpu_driver` when its stack runs through nvidia/nvidia_uvm."""

    task: str
    line: str
    seconds: int | None = None
    in_gpu_driver: bool = False
    stack: list[str] = field(default_factory=list)


def _last_token(prefix: str) -> str | None:
    """`... pcieport 0000:00:03.1:` → `0000:00:03.1` (the device named before the colon)."""
    toks = prefix.rstrip().rstrip(":").split()
    return toks[-1] if toks else None


def _aer_level(sev: str) -> str:
    if sev.startswith("Correct"):
        return "corrected"
    return "fatal" if "(Fatal)" in sev else "nonfatal"


def parse(lines: list[str]) -> KernelLog | None:
    out = KernelLog()
    pending_multi: tuple[str | None, str, int] | None = None  # (bus, first line, lines left)
    last_aer: AerLine | None = None
    last_bus: str | None = None  # from the latest "NVRM: GPU at PCI:" line (the serial follows it)
    hung: HungTask | None = None
    hung_left = 0
    for line in lines:
        if hung is not None and hung_left > 0:
            hung_left -= 1
            if "[nvidia" in line or " nvidia_" in line or "uvm_" in line or "os_acquire" in line:
                hung.in_gpu_driver = True
                if len(hung.stack) < 3:
                    hung.stack.append(line.strip())
        if "blocked for more than" in line or "state:D" in line:
            m = _HUNG.search(line) or _STATE_D.search(line)
            if m:
                if hung is not None and hung_left > 0 and "state:D" in line and m.re is _STATE_D:
                    hung_left = 40  # the "task:… state:D" line of the same report
                else:
                    secs = int(m.group(3)) if m.re is _HUNG else None
                    hung = HungTask(task=m.group(1), line=line.strip(), seconds=secs)
                    out.hung_tasks.append(hung)
                    hung_left = 40
                continue
        if pending_multi is not None:
            bus, first, left = pending_multi
            if "fallen off the bus" in line:
                out.fallen_off.append((bus, first + " … " + line.strip()))
                pending_multi = None
                continue
            pending_multi = (bus, first, left - 1) if left > 1 else None
        if "NVRM" in line:
            if "Xid" in line:
                m = _XID.search(line)
                if m:
                    out.xids.append(_xid_line(m, line))
                    continue
            m = _FALLEN_SINGLE.search(line)
            if m:
                out.fallen_off.append((norm_bus_id(m.group(1)), line.strip()))
                continue
            m = _FALLEN_MULTI_START.search(line)
            if m:
                if "fallen off the bus" in line:
                    out.fallen_off.append((norm_bus_id(m.group(1)), line.strip()))
                else:
                    pending_multi = (norm_bus_id(m.group(1)), line.strip(), 4)
                continue
            if "GPU at PCI:" in line:
                u = _GPU_UUID.search(line)
                if u and norm_bus_id(u.group(1)):
                    last_bus = norm_bus_id(u.group(1))
                    out.uuids[last_bus] = u.group(2)  # type: ignore[index]
                continue
            if "Serial Number" in line:
                sn = _SERIAL.search(line)
                if sn and last_bus:
                    out.serials[last_bus] = sn.group(1)
                continue
            if _GSP_FAIL.search(line) and len(out.gsp_failures) < 20:
                out.gsp_failures.append(line.strip())
            if _RESET_REQUIRED.search(line) and len(out.reset_required) < 20:
                out.reset_required.append(line.strip())
            if "RmInitAdapter failed" in line:
                out.rm_init_failed.append(line.strip())
            elif "API mismatch" in line:
                out.api_mismatch.append(line.strip())
            elif "loading NVIDIA UNIX" in line:
                v = _VERSION.search(line)
                if v:
                    out.driver_version = v.group(1)
            continue
        if "SXid" in line:
            m = _SXID.search(line)
            if m:
                out.sxids.append((int(m.group(2)), m.group(1), line.strip()))
            continue
        if "AER" in line or "PCIe Bus Error" in line:
            i = line.find(": AER: ")
            j = line.find("PCIe Bus Error: severity=")
            if i >= 0 and j < 0:
                m = _AER_RECV_TAIL.match(line, i + 7)
                if m:
                    last_aer = AerLine(
                        norm_bus_id(m.group(2)) or norm_bus_id(_last_token(line[:i])),
                        _aer_level(m.group(1)),
                        line.strip(),
                    )
                    out.aer.append(last_aer)
                continue
            if j >= 0:
                m = _AER_SEV_TAIL.match(line, j + len("PCIe Bus Error: severity="))
                if m:
                    bus = norm_bus_id(_last_token(line[:j].replace(" AER:", "")))
                    level = _aer_level(m.group(1))
                    if last_aer is not None and last_aer.error_type is None and last_aer.severity == level:
                        last_aer.bus_id = bus or last_aer.bus_id
                        last_aer.error_type = m.group(2).strip()
                        last_aer.line += "\n" + line.strip()
                    else:
                        last_aer = AerLine(bus, level, line.strip(), m.group(2).strip())
                        out.aer.append(last_aer)
            continue
        if last_aer is not None and "nvidia " in line:
            d = _AER_DOWNSTREAM.search(line)
            if d and last_aer.bus_id and norm_bus_id(d.group(1)):
                out.aer_downstream.setdefault(last_aer.bus_id, norm_bus_id(d.group(1)))  # type: ignore[arg-type]
        if last_aer is not None and "]" in line:
            k = line.find("[", line.find(": ") + 1 if ": " in line else 0)
            m = _AER_BIT.match(line, k) if k >= 0 else None
            if m and len(last_aer.bits) < 16:
                last_aer.bits.append(m.group(2))
                if len(last_aer.line) < 1000:
                    last_aer.line += "\n" + line.strip()
    if not (
        out.xids
        or out.sxids
        or out.fallen_off
        or out.aer
        or out.rm_init_failed
        or out.api_mismatch
        or out.uuids
        or out.gsp_failures
        or out.reset_required
        or out.hung_tasks
    ):
        return None
    return out


def _xid_line(m: re.Match[str], line: str) -> XidLine:
    rest = m.group(3).strip()
    x = XidLine(code=int(m.group(2)), bus_id=norm_bus_id(m.group(1)), text=rest, line=line.strip())
    p = _PID.search(rest)
    if p:
        x.pid, x.process = p.group(1).strip(), p.group(2).strip()
    prev = _PREV.search(rest)
    if prev:
        x.previous_xid = int(prev.group(1))
    if x.code == 154:
        r = _RECOVERY.search(rest)
        if r:
            x.recovery_to = r.group(4).strip()
    if 144 <= x.code <= 150 or x.code in (74, 136, 137, 155):
        f = _FATALITY.search(rest)
        if f:
            x.fatality = "fatal" if f.group(1) == "Fatal" else "nonfatal"
        lk = _LINK.search(rest)
        if lk:
            x.link = int(lk.group(1))
        u = _UNIT.search(rest)
        if u:
            x.unit = u.group(1)
    return x
