"""IPMI/BMC event-log rows about the PCIe bus (`ipmitool sel elist`: `6a | 04/12/2024 | 03:27:29 PM | Critical Interrupt
| Bus Correctable error () | Asserted`). Patterns in knowledge/diagnosis/pcie_faults.yaml."""

from __future__ import annotations

from dataclasses import dataclass, field

from tools.diagnosis import signals

NAME = "pcie_faults"


@dataclass
class IpmiSel:
    correctable: list[str] = field(default_factory=list)
    uncorrectable: list[str] = field(default_factory=list)
    uncorrectable_event: str | None = None


def parse(lines: list[str]) -> IpmiSel | None:
    out = IpmiSel()
    for line in lines[:5000]:
        if len(line) > 500:
            continue
        if signals.search(NAME, "sel_uncorrectable", line):
            out.uncorrectable.append(line.strip())
            m = signals.search(NAME, "sel_uncorrectable", line)
            if m and out.uncorrectable_event is None:
                out.uncorrectable_event = m.group(0).strip("| ").strip()
        elif signals.search(NAME, "sel_correctable", line):
            out.correctable.append(line.strip())
    return out if (out.correctable or out.uncorrectable) else None
