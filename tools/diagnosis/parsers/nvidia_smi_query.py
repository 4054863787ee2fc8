"""`nvidia-smi -q` (the NVSMI LOG): product, UUID, memory, temperature limits, throttle /
event reasons, ECC, retired pages, remapped rows, PCIe link, power.

The layout is indentation-based `Key : Value` lines. R535/R550+ renamed the section
"Clocks Throttle Reasons" to "Clocks Event Reasons" (NVML nvmlClocksEventReasons), so both
names are accepted. Lines are split with str.partition (no regex backtracking).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.diagnosis.text import norm_bus_id

_GPU_BLOCK = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
_NUM = re.compile(r"^-?\d+(?:\.\d+)?")
TOP_LEVEL_KEYS = {"Timestamp", "Driver Version", "CUDA Version", "CUDA UMD Version", "KMD Version", "Attached GPUs"}
# keys that only exist inside a GPU block: a fragment such as `nvidia-smi -q -d TEMPERATURE` pasted
# without its "GPU 0000:..." line still belongs to one (unnamed) GPU
GPU_ONLY_SECTIONS = {
    "Clocks Throttle Reasons",
    "Clocks Event Reasons",
    "FB Memory Usage",
    "Remapped Rows",
    "Retired Pages",
    "Temperature",
    "ECC Errors",
    "GPU Power Readings",
    "Power Readings",
    "PCI",
    "Utilization",
}
TEMP_KEYS = {"GPU Current Temp", "GPU Shutdown Temp", "GPU Slowdown Temp", "GPU Max Operating Temp"}
THROTTLE_SECTIONS = ("Clocks Throttle Reasons", "Clocks Event Reasons", "Clocks Throttle Reasons Counters")


@dataclass
class QueryGpu:
    bus_id: str | None
    product_name: str | None = None
    uuid: str | None = None
    serial: str | None = None
    fb_total_mib: int | None = None
    fb_used_mib: int | None = None
    temp_c: float | None = None
    temp_slowdown_c: float | None = None
    temp_shutdown_c: float | None = None
    temp_max_operating_c: float | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    throttle_active: list[str] = field(default_factory=list)
    throttle_heading: str | None = None
    ecc_volatile_uncorrectable: int = 0
    ecc_aggregate_uncorrectable: int = 0
    ecc_volatile_correctable: int = 0
    retired_dbe: int | None = None
    retired_pending: str | None = None
    remap_uncorrectable: int | None = None
    remap_pending: str | None = None
    remap_failure: str | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    gpu_util_pct: int | None = None
    lines: dict[str, str] = field(default_factory=dict)  # key -> original line, for evidence


@dataclass
class QueryLog:
    driver_version: str | None = None
    cuda_version: str | None = None
    attached_gpus: int | None = None
    gpus: list[QueryGpu] = field(default_factory=list)


def _num(v: str) -> float | None:
    m = _NUM.match(v.strip())
    return float(m.group(0)) if m else None


def _int(v: str) -> int | None:
    n = _num(v)
    return int(n) if n is not None else None


def parse(lines: list[str]) -> QueryLog | None:
    out = QueryLog()
    gpu: QueryGpu | None = None
    stack: list[tuple[int, str]] = []  # (indent, section name)
    seen_log = False
    for raw in lines:
        if not raw.strip():
            continue
        if "NVSMI LOG" in raw:
            seen_log = True
            continue
        m = _GPU_BLOCK.match(raw.strip()) if raw[:1] != " " else None
        if m:
            gpu = QueryGpu(bus_id=norm_bus_id(m.group(1)))
            out.gpus.append(gpu)
            stack = []
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        key, sep, value = raw.strip().partition(":")
        key = key.strip()
        value = value.strip()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if (
            gpu is None
            and key not in TOP_LEVEL_KEYS
            and (key in GPU_ONLY_SECTIONS or key in TEMP_KEYS or key == "Product Name")
        ):
            gpu = QueryGpu(bus_id=None)
            out.gpus.append(gpu)
        if not sep or (not value and key):
            # real -q output has no sections at column 0; a column-0 line without a value is prose
            if indent > 0 or key in GPU_ONLY_SECTIONS:
                stack.append((indent, key))
            continue
        path = [name for _, name in stack]
        if gpu is None:
            if key == "Driver Version":
                out.driver_version = value
            elif key in ("CUDA Version", "CUDA UMD Version"):
                out.cuda_version = value
            elif key == "Attached GPUs":
                out.attached_gpus = _int(value)
            elif key == "KMD Version":
                out.driver_version = value
            continue
        _apply(gpu, path, key, value, raw.strip())
    if not out.gpus and not (seen_log and out.driver_version):
        return None
    return out


def _apply(g: QueryGpu, path: list[str], key: str, value: str, line: str) -> None:
    if key in TEMP_KEYS and (not path or path[0] != "Temperature"):
        path = ["Temperature"]  # fragment pasted without its section heading
    top = path[0] if path else ""
    sect = path[-1] if path else ""
    if not path:
        if key == "Product Name":
            g.product_name = value
            g.lines["product"] = line
        elif key == "GPU UUID":
            g.uuid = value
        elif key == "Serial Number":
            g.serial = value
        return
    if top == "FB Memory Usage":
        if key == "Total":
            g.fb_total_mib = _int(value)
            g.lines["fb_total"] = line
        elif key == "Used":
            g.fb_used_mib = _int(value)
    elif top in THROTTLE_SECTIONS and top != "Clocks Throttle Reasons Counters":
        g.throttle_heading = top
        if value == "Active":
            g.throttle_active.append(key)
            g.lines[f"throttle:{key}"] = line
    elif top == "Temperature":
        n = _num(value)
        if key == "GPU Current Temp":
            g.temp_c = n
            g.lines["temp"] = line
        elif key == "GPU Shutdown Temp":
            g.temp_shutdown_c = n
        elif key == "GPU Slowdown Temp":
            g.temp_slowdown_c = n
        elif key == "GPU Max Operating Temp":
            g.temp_max_operating_c = n
    elif top in ("Power Readings", "GPU Power Readings"):
        if key in ("Power Draw", "Average Power Draw", "Instantaneous Power Draw") and g.power_draw_w is None:
            g.power_draw_w = _num(value)
        elif key in ("Power Limit", "Current Power Limit", "Enforced Power Limit") and g.power_limit_w is None:
            g.power_limit_w = _num(value)
    elif top == "ECC Errors":
        n = _int(value) or 0
        scope = path[1] if len(path) > 1 else ""
        uncorrectable = "Uncorrectable" in key or ("Double Bit" in path and key == "Total")
        correctable = ("Correctable" in key and "Uncorrectable" not in key) or ("Single Bit" in path and key == "Total")
        if uncorrectable and n:
            g.lines.setdefault("ecc", line)
            if scope == "Volatile":
                g.ecc_volatile_uncorrectable += n
            elif scope == "Aggregate":
                g.ecc_aggregate_uncorrectable += n
        elif correctable and scope == "Volatile":
            g.ecc_volatile_correctable += n
    elif top in ("Retired Pages", "Page Retirement"):
        if "Double Bit" in key or "Double Bit" in sect:
            if key in ("Double Bit ECC", "Count") or key.startswith("Double Bit"):
                g.retired_dbe = _int(value)
        elif key.startswith("Pending"):
            g.retired_pending = value
            g.lines["retired_pending"] = line
    elif top == "Remapped Rows":
        if key in ("Uncorrectable Error", "Uncorrectable Errors"):
            g.remap_uncorrectable = _int(value)
            g.lines["remap_unc"] = line
        elif key == "Pending":
            g.remap_pending = value
            g.lines["remap_pending"] = line
        elif key == "Remapping Failure Occurred":
            g.remap_failure = value
            g.lines["remap_failure"] = line
    elif top == "PCI":
        if "PCIe Generation" in path:
            if key in ("Current", "Device Current") and g.pcie_gen_current is None:
                g.pcie_gen_current = _int(value)
                g.lines["pcie_gen"] = line
            elif key in ("Max", "Device Max") and g.pcie_gen_max is None:
                g.pcie_gen_max = _int(value)
        elif "Link Width" in path:
            if key == "Current":
                g.pcie_width_current = _int(value)
                g.lines["pcie_width"] = line
            elif key == "Max":
                g.pcie_width_max = _int(value)
        elif key == "Bus Id" and g.bus_id is None:
            g.bus_id = norm_bus_id(value)
    elif top == "Utilization" and key == "Gpu":
        g.gpu_util_pct = _int(value)
