"""`dcgmi health -c` and DCGM health-watch messages.

  | Overall Health            | Warning                                        |
  | PCIe system               | Warning - Detected more than 8 PCIe replays per minute for GPU 0 ... |
  ERROR [...] [[Health]] Detected a WARNING in health system Thermal: 'Detected clocks event due to thermal violation in GPU 2. ...'
DCGM health systems: PCIe, NVLink, PMU, MCU, Memory, SM, InfoROM, Thermal, Power, Driver, NVSwitch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_OVERALL = re.compile(r"Overall Health\s*[:|]?\s*\|?\s*(Healthy|Warning|Failure|Fail)", re.I)
_ROW = re.compile(
    r"\|\s*(?:->\s*)?([A-Za-z][A-Za-z ]*?)\s+system\s*\|\s*(Healthy|Warning|Failure|Fail)\b\s*-?\s*(.*?)\|?\s*$", re.I
)
_WATCH = re.compile(r"Detected an? (WARNING|FAILURE|FAIL\w*) in health system (\w+):\s*'?(.*)", re.I)
_GPU = re.compile(r"\bGPU (\d+)\b")


@dataclass
class HealthIncident:
    system: str  # Thermal | PCIe | NVLink | Memory | ...
    level: str  # warning | failure
    text: str
    line: str
    gpu: int | None = None


@dataclass
class DcgmHealth:
    overall: str | None = None  # healthy | warning | failure
    incidents: list[HealthIncident] = field(default_factory=list)
    overall_line: str | None = None


def _level(v: str) -> str:
    v = v.lower()
    return "healthy" if v == "healthy" else "warning" if v == "warning" else "failure"


def parse(lines: list[str]) -> DcgmHealth | None:
    out = DcgmHealth()
    for line in lines:
        m = _OVERALL.search(line)
        if m:
            out.overall, out.overall_line = _level(m.group(1)), line.strip()
            continue
        m = _ROW.search(line)
        if m and _level(m.group(2)) != "healthy":
            g = _GPU.search(m.group(3))
            out.incidents.append(
                HealthIncident(
                    m.group(1).strip(),
                    _level(m.group(2)),
                    m.group(3).strip(),
                    line.strip(),
                    int(g.group(1)) if g else None,
                )
            )
            continue
        m = _WATCH.search(line)
        if m:
            g = _GPU.search(m.group(3))
            out.incidents.append(
                HealthIncident(
                    m.group(2),
                    _level(m.group(1)),
                    m.group(3).strip(" '`"),
                    line.strip(),
                    int(g.group(1)) if g else None,
                )
            )
    return out if out.overall or out.incidents else None
