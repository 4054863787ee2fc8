"""Kubernetes GPU pastes: node capacity/allocatable and NVIDIA k8s-device-plugin logs.

Shapes (k8s-device-plugin README and issues; samples in tests/diagnosis_samples/k8s_*.txt):
  Capacity:\n  nvidia.com/gpu:  4\nAllocatable:\n  nvidia.com/gpu:  0        (`kubectl describe node`)
  capacity:\n    nvidia.com/gpu: "16"                                      (`kubectl get node -o yaml`)
  XidCriticalError: Xid=69 on Device=GPU-…, the device will go unhealthy.
  'nvidia.com/gpu' device marked unhealthy: GPU-…
  could not load NVML library: libnvidia-ml.so.1 / nvml init failed: ERROR_LIBRARY_NOT_FOUND
  Incompatible strategy detected auto / invalid device discovery strategy
  "deviceDiscoveryStrategy": "tegra"
Why a kind of its own: the count k8s can schedule is what the plugin registered, not what
nvidia-smi shows, so "0 allocatable" and "1 of 4" are read here, not as a GPU dropping out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SECTION = re.compile(r"^\s*(Capacity|Allocatable|capacity|allocatable):\s*$")
_KEY = re.compile(r"^\s+([\w./-]+):\s+\"?([\w.]+)\"?\s*$")
_GPU = re.compile(r"^\s+nvidia\.com/gpu(?:\.shared)?:\s+\"?(\d+)\"?\s*$")
_XID = re.compile(r"XidCriticalError: Xid=(\d+)")
_STRATEGY = re.compile(r'"?deviceDiscoveryStrategy"?\s*[:=]\s*"?(\w+)"?|--device-discovery-strategy[= ](\w+)')
EVENTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "unhealthy",
        re.compile(r"device (?:marked|is) unhealthy|the device will go unhealthy|marking device .* unhealthy", re.I),
    ),
    (
        "nvml_missing",
        re.compile(
            r"could not load NVML|ERROR_LIBRARY_NOT_FOUND|NVML not detected|Failed to initialize NVML: could not load"
        ),
    ),
    ("strategy_incompatible", re.compile(r"Incompatible strategy detected|invalid device discovery strategy")),
    ("insufficient_gpu", re.compile(r"Insufficient nvidia\.com/gpu")),
)


@dataclass
class Kubernetes:
    capacity: int | None = None
    allocatable: int | None = None
    sections_without_gpu: list[str] = field(default_factory=list)  # "Capacity" blocks with no nvidia.com/gpu
    events: dict[str, str] = field(default_factory=dict)  # event -> first line
    xids: list[int] = field(default_factory=list)
    strategy: str | None = None
    strategy_line: str | None = None
    lines: dict[str, str] = field(default_factory=dict)  # "capacity"/"allocatable" -> the line


def _close(out: Kubernetes, section: str | None, keys: int, gpu_seen: bool) -> None:
    if section and keys and not gpu_seen:
        out.sections_without_gpu.append(section)


def parse(lines: list[str]) -> Kubernetes | None:
    out = Kubernetes()
    section: str | None = None
    keys, gpu_seen = 0, False
    for line in lines:
        m = _SECTION.match(line)
        if m:
            _close(out, section, keys, gpu_seen)
            section, keys, gpu_seen = m.group(1).capitalize(), 0, False
            continue
        if section:
            g = _GPU.match(line)
            if g:
                gpu_seen, keys = True, keys + 1
                value = int(g.group(1))
                if section == "Capacity" and out.capacity is None:
                    out.capacity, out.lines["capacity"] = value, f"Capacity: {line.strip()}"
                elif section == "Allocatable" and out.allocatable is None:
                    out.allocatable, out.lines["allocatable"] = value, f"Allocatable: {line.strip()}"
                continue
            if _KEY.match(line):
                keys += 1
                continue
            _close(out, section, keys, gpu_seen)
            section = None
        for event, pat in EVENTS:
            if event not in out.events and pat.search(line):
                out.events[event] = line.strip()[:300]
        x = _XID.search(line)
        if x and int(x.group(1)) not in out.xids:
            out.xids.append(int(x.group(1)))
        s = _STRATEGY.search(line)
        if s and out.strategy is None:
            out.strategy, out.strategy_line = (s.group(1) or s.group(2)).lower(), line.strip()
    _close(out, section, keys, gpu_seen)
    found = out.capacity is not None or out.allocatable is not None or out.events or out.xids
    if out.sections_without_gpu and "nvidia" in "\n".join(lines).lower():
        found = True
    return out if found or out.strategy == "tegra" else None
