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
_LNKSTA = re.compile(r"LnkSta:\s+Speed ([0-9.]+)GT/s( \(downgraded\))?(?: \(ok\))?, Width x(\d+)( \(downgraded\))?")
_LNKCAP = re.compile(r"LnkCap:\s+Port #\d+, Speed ([0-9.]+)GT/s, Width x(\d+)")


@dataclass
class PciLink:
    """LnkCap (what the link can do) vs LnkSta (what it trained to) from `lspci -vv`."""

    sta_speed: float
    sta_width: int
    line: str
    cap_speed: float | None = None
    cap_width: int | None = None
    speed_flagged: bool = False  # lspci's own "(downgraded)"
    width_flagged: bool = False
    bus_id: str | None = None
    cap_line: str | None = None

    @property
    def width_degraded(self) -> bool:
        return self.width_flagged or (self.cap_width is not None and self.sta_width < self.cap_width)

    @property
    def speed_degraded(self) -> bool:
        return self.speed_flagged or (self.cap_speed is not None and self.sta_speed < self.cap_speed)


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
    link: PciLink | None = None

    @property
    def is_gpu(self) -> bool:
        k = self.klass.lower()
        return "3d controller" in k or "vga compatible" in k or "display controller" in k


@dataclass
class Lspci:
    devices: list[PciDevice] = field(default_factory=list)
    links: list[PciLink] = field(default_factory=list)  # every LnkSta seen (NVIDIA device or not named)

    @property
    def gpus(self) -> list[PciDevice]:
        return [d for d in self.devices if d.is_gpu]

    @property
    def nvswitches(self) -> list[PciDevice]:
        return [d for d in self.devices if d.klass.lower().startswith("bridge")]


def parse(lines: list[str]) -> Lspci | None:
    out = Lspci()
    last: PciDevice | None = None
    cap: tuple[float, int, str] | None = None
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
                cap = None
                continue
        if "LnkCap:" in line:
            c = _LNKCAP.search(line)
            if c:
                cap = (float(c.group(1)), int(c.group(2)), line.strip())
            continue
        if "LnkSta:" in line:
            m = _LNKSTA.search(line)
            if not m:
                continue
            link = PciLink(
                sta_speed=float(m.group(1)),
                sta_width=int(m.group(3)),
                line=line.strip(),
                cap_speed=cap[0] if cap else None,
                cap_width=cap[1] if cap else None,
                cap_line=cap[2] if cap else None,
                speed_flagged=bool(m.group(2)),
                width_flagged=bool(m.group(4)),
                bus_id=last.bus_id if last else None,
            )
            cap = None
            out.links.append(link)
            if last is not None and last.link is None:
                last.link = link
                if m.group(2) or m.group(4):
                    last.link_downgraded = True
                    last.link_line = line.strip()
    return out if out.devices or out.links else None
