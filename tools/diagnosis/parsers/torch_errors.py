"""PyTorch / CUDA runtime errors pasted from a traceback or a REPL.

- OOM, legacy (<2.1): `CUDA out of memory. Tried to allocate X (GPU 0; T total capacity;
  A already allocated; F free; R reserved in total by PyTorch)`
- OOM, 2.x: `... Tried to allocate X. GPU 0 has a total capacity of T of which F is free.
  [Process P has M memory in use.] Including non-PyTorch memory, this process has U memory in
  use. Of the allocated memory A is allocated by PyTorch, and R is reserved by PyTorch but
  unallocated.` (some 2.1 builds spell "capacty")
- `The NVIDIA driver on your system is too old (found version 11040)`
- `CUDA driver version is insufficient for CUDA runtime version`
- `uncorrectable ECC error encountered`
- `torch.cuda.is_available()` → False
- legacy (≤1.3): `(GPU 0; T total capacity; A already allocated; F free; C cached)` — C is the
  cached-but-free part
- `NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch
  installation. The current PyTorch install supports CUDA capabilities sm_50 … sm_90.`
- the checklist's own line: `torch_check: version=2.3.1+cu121 cuda=12.1 available=True device_count=8`
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SIZE = r"([0-9.]+)\s*(KiB|MiB|GiB|TiB|bytes|B)"  # "of which 0 bytes is free" (PyTorch 2.x)
_OOM_ALLOC = re.compile(r"Tried to allocate " + _SIZE)
_OOM_LEGACY = re.compile(
    r"\(GPU (\d+); "
    + _SIZE
    + r" total capacity; "
    + _SIZE
    + r" already allocated; "
    + _SIZE
    + r" free; "
    + _SIZE
    + r" reserved in total by PyTorch\)"
)
_OOM_CACHED = re.compile(
    r"\(GPU (\d+); "
    + _SIZE
    + r" total capacity; "
    + _SIZE
    + r" already allocated; "
    + _SIZE
    + r" free; "
    + _SIZE
    + r" cached\)"
)
_ARCH = re.compile(r"(\S.*?) with CUDA capability sm_(\d+) is not compatible with the current PyTorch installation")
_ARCH_SUPPORTS = re.compile(r"supports CUDA capabilities ((?:(?:sm|compute)_\d+\s*)+)")
_OOM_NEW_TOTAL = re.compile(r"GPU (\d+) has a total capac(?:i)?ty of " + _SIZE + r" of which " + _SIZE + r" is free")
_OOM_NEW_PROC = re.compile(r"Process (\d+) has " + _SIZE + r" memory in use")
_OOM_NEW_THIS = re.compile(r"this process has " + _SIZE + r" memory in use")
_OOM_NEW_ALLOC = re.compile(
    r"Of the allocated memory "
    + _SIZE
    + r" is allocated by PyTorch,(?: with [0-9.]+\s*(?:KiB|MiB|GiB|TiB|B) allocated in private pools \([^)]*\),)? and "
    + _SIZE
    + r" is reserved by PyTorch but unallocated"
)
_TOO_OLD = re.compile(r"NVIDIA driver on your system is too old \(found version (\d+)\)")
_TORCH_CHECK = re.compile(r"torch_check:\s*version=(\S+)\s+cuda=(\S+)\s+available=(\S+)(?:\s+device_count=(\d+))?")
_TORCH_VERSION = re.compile(r"\b(\d+\.\d+\.\d+)\+cu(\d{2,3})\b")
_UNITS = {"B": 1, "bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}

SIMPLE = (
    ("driver_insufficient", "CUDA driver version is insufficient for CUDA runtime version"),
    ("uncorrectable_ecc", "uncorrectable ECC error encountered"),
    ("illegal_memory_access", "an illegal memory access was encountered"),
    ("device_side_assert", "device-side assert triggered"),
    ("no_kernel_image", "no kernel image is available for execution on the device"),
    ("devices_busy", "busy or unavailable"),
    ("no_driver", "Found no NVIDIA driver on your system"),
    ("unknown_error", "CUDA error: unknown error"),
    ("launch_failure", "unspecified launch failure"),
    ("cuda_init_error", "CUDA initialization:"),
)


def _gib(num: str, unit: str) -> float:
    return float(num) * _UNITS[unit] / 2**30


@dataclass
class Oom:
    line: str
    gpu: int | None = None
    requested_gib: float | None = None
    total_gib: float | None = None
    free_gib: float | None = None
    allocated_gib: float | None = None
    reserved_unallocated_gib: float | None = None
    this_process_gib: float | None = None
    other_processes: list[tuple[int, float]] = field(default_factory=list)
    format: str = "unknown"


@dataclass
class TorchErrors:
    ooms: list[Oom] = field(default_factory=list)
    too_old_found: int | None = None  # e.g. 11040 = driver supports CUDA 11.4
    events: dict[str, str] = field(default_factory=dict)  # kind -> first line
    is_available: bool | None = None
    available_line: str | None = None
    torch_version: str | None = None
    torch_cuda: str | None = None
    device_count: int | None = None
    too_old_line: str | None = None
    arch: tuple[str, int, list[int], str] | None = None  # (GPU name, sm, sm list the wheel has, line)


def parse(lines: list[str]) -> TorchErrors | None:
    out = TorchErrors()
    found = False
    prev = ""
    for line in lines:
        if "is not compatible with the current PyTorch" in line and out.arch is None:
            m = _ARCH.search(line)
            if m:
                out.arch = (m.group(1).strip(" \"'「“"), int(m.group(2)), [], line.strip())
                found = True
        if out.arch is not None and not out.arch[2] and "supports CUDA capabilities" in line:
            m = _ARCH_SUPPORTS.search(line)
            if m:
                sms = [int(x.split("_")[1]) for x in m.group(1).split() if x.startswith("sm_")]
                out.arch = (out.arch[0], out.arch[1], sms, out.arch[3])
        if ("out of memory" in line and "CUDA" in line) or ("Tried to allocate" in line and "(GPU " in line):
            out.ooms.append(_oom(line))
            found = True
        elif "too old" in line:
            m = _TOO_OLD.search(line)
            if m:
                out.too_old_found = int(m.group(1))
                out.too_old_line = line.strip()
                found = True
        if "torch_check:" in line:
            m = _TORCH_CHECK.search(line)
            if m:
                out.torch_version, out.torch_cuda = m.group(1), (None if m.group(2) == "None" else m.group(2))
                out.is_available = m.group(3) == "True"
                out.available_line = line.strip()
                out.device_count = int(m.group(4)) if m.group(4) else None
                found = True
        elif "is_available()" in line:
            tail = line.split("is_available()", 1)[1]
            if "False" in tail or "True" in tail:
                out.is_available = "True" in tail
                out.available_line = line.strip()
                found = True
        elif line.strip() in ("False", "True") and "is_available()" in prev:
            out.is_available = line.strip() == "True"
            out.available_line = prev.strip() + " → " + line.strip()
            found = True
        if out.torch_version is None and "+cu" in line:
            m = _TORCH_VERSION.search(line)
            if m:
                out.torch_version = m.group(0)
                c = m.group(2)
                out.torch_cuda = f"{c[:-1]}.{c[-1]}"
        if "uncorrectable_ecc" not in out.events and "uncorrectable ecc" in line.lower():
            # "Uncorrectable ECC Error" in the renter's words or a framework's message: same fault as CUDA's
            out.events["uncorrectable_ecc"] = line.strip()[:300]
            found = True
        for kind, needle in SIMPLE:
            if kind not in out.events and needle in line:
                out.events[kind] = line.strip()
                found = True
        prev = line
    return out if found else None


def _oom(line: str) -> Oom:
    o = Oom(line=line.strip())
    m = _OOM_ALLOC.search(line)
    if m:
        o.requested_gib = _gib(m.group(1), m.group(2))
    m = _OOM_LEGACY.search(line)
    if m:
        o.format = "legacy"
        o.gpu = int(m.group(1))
        o.total_gib = _gib(m.group(2), m.group(3))
        o.allocated_gib = _gib(m.group(4), m.group(5))
        o.free_gib = _gib(m.group(6), m.group(7))
        reserved = _gib(m.group(8), m.group(9))
        o.reserved_unallocated_gib = max(reserved - o.allocated_gib, 0.0)
        return o
    m = _OOM_CACHED.search(line)
    if m:
        o.format = "legacy"
        o.gpu = int(m.group(1))
        o.total_gib = _gib(m.group(2), m.group(3))
        o.allocated_gib = _gib(m.group(4), m.group(5))
        o.free_gib = _gib(m.group(6), m.group(7))
        o.reserved_unallocated_gib = _gib(m.group(8), m.group(9))
        return o
    m = _OOM_NEW_TOTAL.search(line)
    if m:
        o.format = "2.x"
        o.gpu = int(m.group(1))
        o.total_gib = _gib(m.group(2), m.group(3))
        o.free_gib = _gib(m.group(4), m.group(5))
    for p in _OOM_NEW_PROC.finditer(line):
        o.other_processes.append((int(p.group(1)), _gib(p.group(2), p.group(3))))
    m = _OOM_NEW_THIS.search(line)
    if m:
        o.this_process_gib = _gib(m.group(1), m.group(2))
    m = _OOM_NEW_ALLOC.search(line)
    if m:
        o.allocated_gib = _gib(m.group(1), m.group(2))
        o.reserved_unallocated_gib = _gib(m.group(3), m.group(4))
    return o
