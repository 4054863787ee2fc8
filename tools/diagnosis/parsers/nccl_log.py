"""NCCL_DEBUG=INFO logs and PyTorch NCCL watchdog messages.

Transport strings (NCCL): `via P2P/IPC`, `P2P/IPC/read`, `P2P/CUMEM`, `P2P/direct pointer`
(CUDA P2P over NVLink or PCIe); `via SHM` (host memory, P2P off or unsupported);
`via NET/IB/<n>` (+`/GDRDMA` with GPUDirect RDMA); `NET/IBext_v8/<n>` (plugin);
`via NET/Socket/<n>` (TCP). Init lines: `NET/IB : No device found.`, `Using network Socket`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

_VIA = re.compile(r"\bvia (P2P/[\w/ ]+?|SHM[\w/]*|NET/[\w_]+/\d+(?:/GDRDMA)?|CollNet\S*|NVLS\S*)(?:\s|$|/GDRDMA)")
_VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+)(?:\+cuda(\d+\.\d+))?")
_NETWORK = re.compile(r"Using network (\w+)")
_WATCHDOG = re.compile(r"Watchdog caught collective operation timeout: WorkNCCL\((.*?)\) ran for (\d+) milliseconds")
_OPTYPE = re.compile(r"OpType=(\w+)")
_TIMEOUT = re.compile(r"Timeout\(ms\)=(\d+)")
_ENV = re.compile(r"(NCCL_\w+) set by environment to (\S+)")


@dataclass
class NcclLog:
    version: str | None = None
    transports: Counter = field(default_factory=Counter)  # P2P | SHM | NET/IB | NET/Socket | ...
    gdrdma: bool = False
    transport_lines: dict[str, str] = field(default_factory=dict)
    network: str | None = None
    ib_not_found: str | None = None
    warns: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    watchdogs: list[tuple[str | None, int | None, str]] = field(default_factory=list)  # (op, timeout ms, line)
    env: dict[str, str] = field(default_factory=dict)


def _family(t: str) -> str:
    if t.startswith("P2P"):
        return "P2P"
    if t.startswith("SHM"):
        return "SHM"
    if t.startswith("NET/Socket"):
        return "NET/Socket"
    if t.startswith("NET/IB") or t.startswith("NET/IBext"):
        return "NET/IB"
    if t.startswith("NET/"):
        return "NET/" + t.split("/")[1]
    return t.split("/")[0]


def parse(lines: list[str]) -> NcclLog | None:
    out = NcclLog()
    found = False
    for line in lines:
        if "NCCL" in line:
            if " via " in line:
                m = _VIA.search(line + " ")
                if m:
                    fam = _family(m.group(1))
                    out.transports[fam] += 1
                    out.transport_lines.setdefault(fam, line.strip())
                    if "GDRDMA" in line:
                        out.gdrdma = True
                    found = True
                    continue
            if "NCCL WARN" in line:
                if len(out.warns) < 50:
                    out.warns.append(line.strip())
                found = True
            if "NCCL version" in line and out.version is None:
                m = _VERSION.search(line)
                if m:
                    out.version = m.group(1)
                    found = True
            if "Using network" in line:
                m = _NETWORK.search(line)
                if m:
                    out.network = m.group(1)
                    found = True
            if "NET/IB : No device found" in line:
                out.ib_not_found = line.strip()
                found = True
            if "set by environment" in line:
                m = _ENV.search(line)
                if m:
                    out.env[m.group(1)] = m.group(2)
                    found = True
            if (
                "NCCL error" in line
                or "ncclSystemError" in line
                or "ncclInternalError" in line
                or "ncclUnhandledCudaError" in line
                or "ncclRemoteError" in line
            ) and len(out.errors) < 20:
                out.errors.append(line.strip())
                found = True
        if "Watchdog caught collective" in line:
            m = _WATCHDOG.search(line)
            op = tm = None
            if m:
                o = _OPTYPE.search(m.group(1))
                t = _TIMEOUT.search(m.group(1))
                op = o.group(1) if o else None
                tm = int(t.group(1)) if t else None
            out.watchdogs.append((op, tm, line.strip()))
            found = True
    return out if found else None
