"""Docker / NVIDIA Container Toolkit errors when a container asks for GPUs.

Shapes (NVIDIA Container Toolkit troubleshooting; real threads in tests/diagnosis_samples/real):
  docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].
  nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file
  nvidia-container-cli: initialization error: nvml error: driver not loaded
  nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your driver
  docker: Error response from daemon: unknown or invalid runtime name: nvidia
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# (event, pattern) — first match per event kept with its line.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("no_gpu_runtime", re.compile(r'could not select device driver (?:"[^"]*" )?with capabilities: \[\[gpu\]\]')),
    ("runtime_unknown", re.compile(r"unknown or invalid runtime name: nvidia")),
    ("nvml_lib_missing", re.compile(r"nvidia-container-cli: initialization error: load library failed: libnvidia-ml")),
    (
        "driver_not_loaded",
        re.compile(r"nvidia-container-cli: initialization error: (?:nvml error: )?driver not loaded"),
    ),
    (
        "cuda_requirement",
        re.compile(r"nvidia-container-cli: requirement error: unsatisfied condition: cuda\s*>=\s*([0-9.]+)"),
    ),
    ("cli_error", re.compile(r"nvidia-container-cli: (?:mount|ldcache|detection|container) error")),
)


@dataclass
class ContainerRuntime:
    events: dict[str, str] = field(default_factory=dict)  # event -> first line
    cuda_required: str | None = None


def parse(lines: list[str]) -> ContainerRuntime | None:
    out = ContainerRuntime()
    for line in lines:
        if "device driver" not in line and "nvidia-container-cli" not in line and "runtime name" not in line:
            continue
        for event, pat in PATTERNS:
            m = pat.search(line)
            if m and event not in out.events:
                out.events[event] = line.strip()
                if event == "cuda_requirement":
                    out.cuda_required = m.group(1)
    return out if out.events else None
