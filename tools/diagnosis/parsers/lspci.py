"""`lspci` / `lspci -nn` / `lspci | grep -i nvidia`: NVIDIA GPUs, NVSwitches, `rev ff`.

`(rev ff)` means config-space reads return all ones: the device stopped answering on the
PCIe bus (the lspci view of "fallen off the bus"). `LnkSta: ... (downgraded)` from -vv shows a
link trained below its capability.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.diagnosis.text import norm_bus_id

_DEV = re.compile(
    r"^(?:([0-9a-fA-F]{4}):)?([0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+([^:]+?)(?:\s\[[0-9a-f]{4}\])?:\s+NVIDIA Corporation\s+(.*?)\s*(?:\(rev ([0-9a-fA-F]{2})\))?\s*$"
)
_IDS = re.compile(r"\[(10de):([0-9a-fA-F]{4})\]")
_LNKSTA = re.compile(r"LnkSta:\s+Speed ([0-9.]+GT/s)( \(downgraded\))?, Width (x\d+)( \(downgraded\))?")


@dataclass
class PciDevice:
    bus_id: str | None
    klass: str
    name: str
    rev: str | None
    device_id: str | None
    line: str
    link_downgraded: bool = False
    link_line: str | None = None

    @property
    def is_gpu(self) -> bool:
        k = self.klass.lower()
        return "3d controller" in k or "vga compatible" in k or "display controller" in k


@dataclass
class Lspci:
    devices: list[PciDevice] = field(default_factory=list)

    @property
    def gpus(self) -> list[PciDevice]:
        return [d for d in self.devices if d.is_gpu]

    @property
    def nvswitches(self) -> list[PciDevice]:
        return [d for d in self.devices if d.klass.lower().startswith("bridge")]


def parse(lines: list[str]) -> Lspci | None:
    out = Lspci()
    last: PciDevice | None = None
    for line in lines:
        if "NVIDIA" in line and len(line) < 400:
            m = _DEV.match(line.strip())
            if m:
                dom = m.group(1) or "0000"
                ids = _IDS.search(line)
                name = _IDS.sub("", m.group(4)).strip()
                last = PciDevice(
                    norm_bus_id(f"{dom}:{m.group(2)}"),
                    m.group(3).strip(),
                    name,
                    (m.group(5) or "").lower() or None,
                    ids.group(2) if ids else None,
                    line.strip(),
                )
                out.devices.append(last)
                continue
        if last is not None and "LnkSta:" in line:
            m = _LNKSTA.search(line)
            if m and (m.group(2) or m.group(4)):
                last.link_downgraded = True
                last.link_line = line.strip()
    return out if out.devices else None
