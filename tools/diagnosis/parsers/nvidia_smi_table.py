"""The default `nvidia-smi` table, drivers R450/R470 through R580 and R610.

Formats (see docs/diagnosis.md §Formats): the header reads
`NVIDIA-SMI x  Driver Version: x  CUDA Version: y` up to R580 and
`NVIDIA-SMI x  KMD Version: x  CUDA UMD Version: y` from R610. Each GPU is two or three
`|`-separated rows; any field may be `N/A` or `ERR!`. A failure message may replace the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.diagnosis.text import norm_bus_id

_LOOSE_CUDA = re.compile(r"CUDA (?:UMD )?Version[:：]?\s*(\d{1,2}\.\d{1,2})\b")
_LOOSE_DRIVER = re.compile(r"(?:Driver|KMD) Version[:：]?\s*(\d{3}(?:\.\d{1,3}){0,2})\b")
_HEADER = re.compile(r"NVIDIA-SMI\s+(\S+)\s+(?:Driver|KMD) Version:\s*(\S+)\s+CUDA (?:UMD )?Version:\s*(\S+)")
_ROW1_CELL1 = re.compile(r"^\s*(\d{1,2})\s+(.*?)\s+(On|Off|ERR!|N/A)\s*$")
_BUS = re.compile(r"([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])")
_ROW2_CELL1 = re.compile(
    r"^\s*(\d+%|N/A|ERR!)\s+(\d+C|N/A|ERR!)\s+(P\d+|N/A|ERR!)\s+(?:(\S+)\s+)?(\d+W|N/A|ERR!)\s*/\s*(\d+W|N/A|ERR!)\s*$"
)
_MEM = re.compile(r"(\d+|ERR!|N/A)\s*MiB\s*/\s*(\d+|ERR!|N/A)\s*MiB")
_UTIL = re.compile(r"^\s*(\d+%|N/A|ERR!)\s+(\S.*?)?\s*$")
_PROC = re.compile(r"^\|\s+(\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(C\+G|M\+C|C|G|M)\s+(.*?)\s+(\d+MiB|N/A)\s*\|\s*$")
FAILURES = (
    (
        "unable_to_determine_handle",
        re.compile(r"Unable to determine the device handle for GPU\s*([0-9A-Fa-f:.]+)?:?\s*(.*)"),
    ),
    ("gpu_lost", re.compile(r"GPU is lost\. Reboot the system to recover this GPU")),
    ("no_devices", re.compile(r"No devices were found")),
    ("driver_not_loaded", re.compile(r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver")),
    ("nvml_version_mismatch", re.compile(r"Failed to initialize NVML: Driver/library version mismatch")),
    ("nvml_unknown_error", re.compile(r"Failed to initialize NVML: Unknown Error")),
)


@dataclass
class SmiGpu:
    index: int
    name: str
    persistence: str | None = None
    bus_id: str | None = None
    ecc: str | None = None
    fan: str | None = None
    temp_c: int | None = None
    perf: str | None = None
    power_w: int | None = None
    power_cap_w: int | None = None
    memory_used_mib: int | None = None
    memory_total_mib: int | None = None
    util_pct: int | None = None
    compute_mode: str | None = None
    mig: str | None = None
    err_fields: int = 0
    lines: list[str] = field(default_factory=list)


@dataclass
class SmiProcess:
    gpu: int
    pid: int
    type: str
    name: str
    memory_mib: int | None
    line: str = ""  # the row as pasted, for evidence


@dataclass
class SmiTable:
    smi_version: str | None = None
    driver_version: str | None = None
    cuda_version: str | None = None
    header_style: str | None = None  # "driver" (<=R580) or "kmd" (R610+)
    gpus: list[SmiGpu] = field(default_factory=list)
    processes: list[SmiProcess] = field(default_factory=list)
    mig_devices: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (kind, line)
    header_line: str | None = None


def _int(tok: str | None, suffix: str = "") -> int | None:
    if not tok:
        return None
    tok = tok.strip()
    if suffix and tok.endswith(suffix):
        tok = tok[: -len(suffix)]
    return int(tok) if tok.isdigit() else None


def parse(lines: list[str]) -> SmiTable | None:
    out = SmiTable()
    loose_cuda: str | None = None
    loose_driver: str | None = None
    current: SmiGpu | None = None
    row = 0
    in_procs = False
    in_mig = False
    for line in lines:
        if (
            "NVIDIA-SMI" in line
            or "Unable to determine" in line
            or "GPU is lost" in line
            or "No devices were found" in line
            or "Failed to initialize NVML" in line
        ):
            m = _HEADER.search(line)
            if m:
                out.smi_version, out.driver_version, out.cuda_version = m.group(1), m.group(2), m.group(3)
                out.header_style = "kmd" if "KMD Version" in line else "driver"
                out.header_line = line.strip()
                continue
            for kind, rx in FAILURES:
                if rx.search(line):
                    out.failures.append((kind, line.strip()))
                    break
            continue
        if ("CUDA" in line or "Version" in line) and len(line) < 500 and out.driver_version is None:
            mc = _LOOSE_CUDA.search(line)
            md = _LOOSE_DRIVER.search(line)
            loose_cuda = loose_cuda or (mc.group(1) if mc else None)
            loose_driver = loose_driver or (md.group(1) if md else None)
        s = line.strip()
        if len(s) > 300:  # real table rows are < 100 chars; long lines cannot be rows
            continue
        if not s.startswith("|"):
            if s.startswith("+") or s.startswith("="):
                continue
            current, row = None, 0
            continue
        if "Processes:" in s:
            in_procs, in_mig, current = True, False, None
            continue
        if "MIG devices:" in s:
            in_mig, current = True, None
            continue
        if in_procs:
            m = _PROC.match(s)
            if m:
                mem = m.group(7)
                out.processes.append(
                    SmiProcess(
                        int(m.group(1)), int(m.group(4)), m.group(5), m.group(6).strip(), _int(mem, "MiB"), s.strip()
                    )
                )
            continue
        if in_mig:
            if re.match(r"^\|\s+\d+\s+\d+\s+\d+\s+\d+\s+\|", s):
                out.mig_devices += 1
            continue
        cells = s.strip("|").split("|")
        if len(cells) < 3:
            continue
        m1 = _ROW1_CELL1.match(cells[0])
        bus = _BUS.search(cells[1])
        if m1 and bus:
            current = SmiGpu(
                index=int(m1.group(1)),
                name=m1.group(2).strip(),
                persistence=m1.group(3),
                bus_id=norm_bus_id(bus.group(1)),
                ecc=cells[2].strip() or None,
            )
            current.err_fields += s.count("ERR!")
            current.lines.append(s)
            out.gpus.append(current)
            row = 1
            continue
        if current is not None and row == 1:
            m2 = _ROW2_CELL1.match(cells[0])
            mem = _MEM.search(cells[1])
            if m2 or mem or "ERR!" in s:
                if m2:
                    current.fan = m2.group(1)
                    current.temp_c = _int(m2.group(2), "C")
                    current.perf = m2.group(3)
                    current.power_w = _int(m2.group(5), "W")
                    current.power_cap_w = _int(m2.group(6), "W")
                if mem:
                    current.memory_used_mib = _int(mem.group(1))
                    current.memory_total_mib = _int(mem.group(2))
                mu = _UTIL.match(cells[2])
                if mu:
                    current.util_pct = _int(mu.group(1), "%")
                    rest = (mu.group(2) or "").split()
                    if rest:
                        current.compute_mode = " ".join(rest[:2]) if rest[0] == "E." else rest[0]
                current.err_fields += s.count("ERR!")
                current.lines.append(s)
                row = 2
                continue
        if current is not None and row == 2:
            mig = cells[-1].strip()
            if mig in ("Disabled", "Enabled", "N/A"):
                current.mig = mig
            row = 3
    if out.driver_version is None and (loose_cuda or loose_driver):
        # values quoted from the header in a sentence ("nvidia-smi 右上角写 CUDA Version 12.2")
        out.cuda_version, out.driver_version = loose_cuda, loose_driver
        out.header_style = "quoted"
    if not (out.gpus or out.driver_version or out.cuda_version or out.failures):
        return None
    return out
