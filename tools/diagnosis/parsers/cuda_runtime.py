"""CUDA runtime/driver API errors that are not PyTorch-specific (any CUDA program prints them).

- 802 `cudaErrorSystemNotReady` / "system not yet initialized": on NVSwitch systems (HGX A100/H100/
  H200/B200) CUDA cannot start until nvidia-fabricmanager runs (NVIDIA Fabric Manager user guide).
- 217 `cudaErrorPeerAccessUnsupported` / "peer access is not supported between these two devices".
- 804 "forward compatibility was attempted on non supported HW" (cuda-compat on a GeForce card).
- 100 "no CUDA-capable device is detected".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "system_not_ready",
        re.compile(
            r"system not yet initialized|cudaErrorSystemNotReady|CUDA_ERROR_SYSTEM_NOT_READY|\b802\b.*not yet init"
        ),
    ),
    (
        "peer_access_unsupported",
        re.compile(r"peer access is not supported between these two devices?|cudaErrorPeerAccessUnsupported"),
    ),
    ("forward_compat_unsupported", re.compile(r"forward compatibility was attempted on non supported HW")),
    ("no_device", re.compile(r"no CUDA-capable device is detected|CUDA_ERROR_NO_DEVICE")),
)


@dataclass
class CudaRuntime:
    events: dict[str, str] = field(default_factory=dict)  # event -> first line


def parse(lines: list[str]) -> CudaRuntime | None:
    out = CudaRuntime()
    for line in lines:
        for event, pat in PATTERNS:
            if event not in out.events and pat.search(line):
                out.events[event] = line.strip()
    return out if out.events else None
