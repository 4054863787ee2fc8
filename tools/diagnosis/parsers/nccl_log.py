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
_NVLS = re.compile(r"(\d+) nvls channels")  # "32 coll channels, 0 nvls channels, 32 p2p channels"
_SEQ = re.compile(r"SeqNum=(\d+)")
_IFACES = re.compile(
    r"(?:Bootstrap|NET/Socket|NET)\s*: Using (?:interface )?((?:\[\d+\])?[\w.:-]+?:[0-9a-fA-F:.%\w-]+<\d+>(?:\s+\[\d+\][\w.:-]+?:[0-9a-fA-F:.%\w-]+<\d+>)*)"
)
_IFACE = re.compile(r"(?:\[\d+\])?([\w.-]+):([0-9a-fA-F:.%\w-]+)<\d+>")
_OLD_STYLE = re.compile(r"\[\d+\] (?:\S+ )?(?:NCCL )?(?:INFO|WARN) ")
CONNECT_ERRORS = (
    "Connection refused",
    "Connection timed out",
    "Call to connect failed",
    "No route to host",
    "Network is unreachable",
    "Connection reset by peer",
    "Connection closed by remote peer",
    "Address family not supported",
)


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
    seqnums: list[int] = field(default_factory=list)  # SeqNum of each watchdog timeout
    ifaces: list[tuple[str, str, str]] = field(default_factory=list)  # (name, address, line) from Bootstrap/NET/Socket
    connect_errors: list[str] = field(default_factory=list)
    shm_errors: list[str] = field(default_factory=list)
    oom_errors: list[str] = field(default_factory=list)
    p2p_errors: list[str] = field(default_factory=list)
    ib_used: str | None = None  # "NET/IB : Using [0]mlx5_0:1/IB …"
    nvls_channels: int | None = None
    nvls_line: str | None = None


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
        if "NCCL" in line or _OLD_STYLE.search(line):
            _taxonomy(out, line)
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
            if "nvls channels" in line and out.nvls_channels is None:
                m = _NVLS.search(line)
                if m:
                    out.nvls_channels, out.nvls_line = int(m.group(1)), line.strip()
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
            seq = _SEQ.search(line)
            if seq:
                out.seqnums.append(int(seq.group(1)))
            found = True
        elif "Some NCCL operations have failed or timed out" in line and not out.watchdogs:
            out.watchdogs.append((None, None, line.strip()))
            found = True
    found = found or bool(out.ifaces or out.connect_errors or out.shm_errors or out.oom_errors or out.p2p_errors)
    return out if found else None


def _taxonomy(out: NcclLog, line: str) -> None:
    """Collect the lines each NCCL failure cause is diagnosed from (one list per cause)."""
    s = line.strip()
    if ": Using" in line and ("Bootstrap" in line or "NET/Socket" in line or "NET :" in line):
        m = _IFACES.search(line)
        if m and len(out.ifaces) < 40:
            for name, addr in _IFACE.findall(m.group(1)):
                out.ifaces.append((name, addr, s))
    if "NET/IB : Using [" in line and out.ib_used is None:
        out.ib_used = s
    if any(e in line for e in CONNECT_ERRORS) and len(out.connect_errors) < 20:
        out.connect_errors.append(s)
    shm = "/dev/shm" in line  # noqa: S108 — a substring of NCCL's log line, not a file we open
    if (shm or "posix_fallocate" in line or "shared memory segment" in line) and len(out.shm_errors) < 20:
        out.shm_errors.append(s)
    if ("out of memory" in line or "Failed to CUDA calloc" in line or "Failed to CUDA malloc" in line) and len(
        out.oom_errors
    ) < 20:
        out.oom_errors.append(s)
    if ("peer access is not supported" in line or "failed to open CUDA IPC handle" in line) and len(
        out.p2p_errors
    ) < 20:
        out.p2p_errors.append(s)
