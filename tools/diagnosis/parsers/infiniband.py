"""InfiniBand / RoCE tools: `ibstat`, `ibstatus`, `ibv_devinfo`, `ibdev2netdev`, `ib_write_bw`.

- ibstat:      CA 'mlx5_0' … Port 1: State: Active / Physical state: LinkUp / Rate: 200 / Link layer: InfiniBand
- ibstatus:    Infiniband device 'mlx5_0' port 1 status: state: 4: ACTIVE / phys state: 5: LinkUp /
               rate: 100 Gb/sec (4X EDR) / link_layer: Ethernet
- ibv_devinfo: hca_id: mlx5_0 … port: 1 state: PORT_ACTIVE (4) … link_layer: InfiniBand
- ibdev2netdev: mlx5_0 port 1 ==> ib0 (Up) — the *netdev* (IPoIB/Ethernet) state, not the RDMA port
- ib_write_bw: `#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]` (or [Gb/sec]
               with --report_gbits) followed by result rows.
A usable RDMA port is Active/LinkUp (ibstat(8)); anything else has no link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_CA = re.compile(r"^CA '([\w.-]+)'")
_IBSTATUS_DEV = re.compile(r"^Infiniband device '([\w.-]+)' port (\d+) status:")
_HCA = re.compile(r"^hca_id:\s*([\w.-]+)")
_PORT = re.compile(r"^\s*Port (\d+):\s*$|^\s*port:\s*(\d+)\s*$")
_KV = re.compile(r"^\s*([A-Za-z_ ]+?)\s*:\s*(.*?)\s*$")
_DEV2NET = re.compile(r"^(\S+)\s+port\s+(\d+)\s+==>\s+(\S+)\s+\((Up|Down)\)")
_BW_HEAD = re.compile(r"#bytes\s+#iterations\s+BW peak\[(MB/sec|Gb/sec)\]\s+BW average\[(MB/sec|Gb/sec)\]")
_BW_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s*$")
_BW_DEV = re.compile(r"Device\s*:\s*([\w.-]+)")


@dataclass
class IbPort:
    device: str
    port: int
    state: str | None = None  # Active | Down | Init | Armed (normalised from all three tools)
    phys_state: str | None = None  # LinkUp | Polling | Disabled | …
    rate_gbps: float | None = None
    link_layer: str | None = None
    lines: list[str] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        return (self.state or "").lower() == "active" and (self.phys_state or "linkup").lower().replace(
            "_", ""
        ) == "linkup"


@dataclass
class IbBw:
    device: str | None
    unit: str  # MB/sec | Gb/sec
    rows: list[tuple[int, float, float]] = field(default_factory=list)  # (bytes, peak, average)
    line: str = ""

    @property
    def average_gbps(self) -> float | None:
        """Largest-message average in Gb/s (MB/sec here is 10^6 bytes/s, perftest's unit)."""
        if not self.rows:
            return None
        avg = self.rows[-1][2]
        return avg if self.unit == "Gb/sec" else avg * 8 / 1000


@dataclass
class Infiniband:
    ports: list[IbPort] = field(default_factory=list)
    netdevs: list[tuple[str, int, str, str, str]] = field(default_factory=list)  # (dev, port, netdev, Up/Down, line)
    bw: list[IbBw] = field(default_factory=list)


def _state(v: str) -> str:
    v = v.strip()
    m = re.match(r"\d+:\s*(\w+)", v)  # ibstatus "4: ACTIVE"
    if m:
        v = m.group(1)
    v = v.replace("PORT_", "").split()[0] if v else v
    return v.capitalize() if v.isupper() else v


def _rate(v: str) -> float | None:
    m = re.match(r"([0-9.]+)", v.strip())
    return float(m.group(1)) if m else None


def parse(lines: list[str]) -> Infiniband | None:
    out = Infiniband()
    device: str | None = None
    port: IbPort | None = None
    bw: IbBw | None = None
    bw_dev: str | None = None
    for raw in lines:
        line = raw.rstrip()
        s = line.strip()
        m = _CA.match(s) or _HCA.match(s)
        if m:
            device, port = m.group(1), None
            continue
        m = _IBSTATUS_DEV.match(s)
        if m:
            device = m.group(1)
            port = IbPort(device, int(m.group(2)), lines=[s])
            out.ports.append(port)
            continue
        m = _PORT.match(line)
        if m and device:
            port = IbPort(device, int(m.group(1) or m.group(2)), lines=[])
            out.ports.append(port)
            continue
        m = _DEV2NET.match(s)
        if m:
            out.netdevs.append((m.group(1), int(m.group(2)), m.group(3), m.group(4), s))
            continue
        d = _BW_DEV.search(s)
        if d and ("Device" in s and "Dual-port" in s or s.startswith("Device")):
            bw_dev = d.group(1)
        h = _BW_HEAD.search(s)
        if h:
            bw = IbBw(bw_dev, h.group(2), line=s)
            out.bw.append(bw)
            continue
        if bw is not None:
            r = _BW_ROW.match(s)
            if r:
                bw.rows.append((int(r.group(1)), float(r.group(3)), float(r.group(4))))
                bw.line = s
                continue
        if port is not None:
            kv = _KV.match(line)
            if not kv:
                continue
            key, val = kv.group(1).strip().lower(), kv.group(2)
            if key == "state":
                port.state = _state(val)
                port.lines.append(s)
            elif key in ("physical state", "phys state", "phys_state"):
                port.phys_state = _state(val)
                port.lines.append(s)
            elif key in ("rate", "active_speed"):
                port.rate_gbps = port.rate_gbps or _rate(val)
            elif key in ("link layer", "link_layer"):
                port.link_layer = val.strip()
    if not (out.ports or out.netdevs or any(b.rows for b in out.bw)):
        return None
    out.bw = [b for b in out.bw if b.rows]
    return out
