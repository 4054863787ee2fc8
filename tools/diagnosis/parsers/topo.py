"""`nvidia-smi topo -m` (space- or tab-separated) and `nvidia-smi topo -p2p <r|w|n|a|p>`.

Legend (nvidia-smi): X self; SYS crosses the inter-socket link; NODE crosses host bridges in
a NUMA node; PHB crosses a host bridge; PXB several PCIe bridges; PIX at most one bridge;
NV# a bonded set of # NVLinks. -p2p status: OK, CNS, GNS, TNS, NS (not supported), U.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_DEV = re.compile(r"^(GPU\d+|NIC\d+|mlx5_\d+)$")
_LINK = re.compile(r"^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC|PHB|OK|CNS|GNS|TNS|NS|U|CPU)$")
P2P_TOKENS = {"OK", "CNS", "GNS", "TNS", "NS", "U"}


@dataclass
class Topology:
    devices: list[str] = field(default_factory=list)
    matrix: dict[tuple[str, str], str] = field(default_factory=dict)
    is_p2p: bool = False
    p2p_mode: str | None = None
    lines: list[str] = field(default_factory=list)
    headerless: bool = False

    @property
    def gpus(self) -> list[str]:
        return [d for d in self.devices if d.startswith("GPU")]

    def gpu_links(self) -> list[str]:
        gs = self.gpus
        return [self.matrix[(a, b)] for a in gs for b in gs if a != b and (a, b) in self.matrix]

    def nvlink_counts(self) -> list[int]:
        return [int(v[2:]) for v in self.gpu_links() if v.startswith("NV") and v[2:].isdigit()]


def parse(lines: list[str]) -> list[Topology] | None:
    found: list[Topology] = []
    cur: Topology | None = None
    for line in lines:
        toks = line.replace("\t", " ").split()
        if not toks:
            continue
        is_header = toks[0] == "GPU0" and (len(toks) == 1 or bool(_DEV.match(toks[1])) or toks[1] == "CPU")
        if cur is None or is_header:
            if is_header:
                cols = []
                for tok in toks:
                    if _DEV.match(tok):
                        cols.append(tok)
                    else:
                        break
                cur = Topology(devices=cols)
                cur.lines.append(line.rstrip())
                found.append(cur)
                continue
            if cur is None:
                # a matrix pasted without its header row (「GPU0  X  NV6  NV6  NV6」): the diagonal X and the
                # link tokens after it say how many GPU columns there are; unseen rows are pruned below
                if toks[0] == "GPU0" and len(toks) >= 3 and toks[1] == "X" and all(_LINK.match(v) for v in toks[2:]):
                    cur = Topology(devices=[f"GPU{i}" for i in range(len(toks) - 1)], headerless=True)
                    found.append(cur)
                else:
                    continue
        if _DEV.match(toks[0]) and len(toks) >= 1 + len(cur.devices) and toks[0] in cur.devices:
            vals = toks[1 : 1 + len(cur.devices)]
            if all(_LINK.match(v) for v in vals):
                for col, v in zip(cur.devices, vals, strict=False):
                    cur.matrix[(toks[0], col)] = v
                cur.lines.append(line.rstrip())
                continue
        if toks[0].startswith("Legend") or toks[0] in ("NIC", "X"):
            continue
        if "p2p" in line.lower() and "status" in line.lower():
            continue
    for t in found:
        if t.headerless:  # columns past the GPU rows were NICs or CPU affinity: keep only the GPUs seen as rows
            rows = {a for a, _ in t.matrix}
            t.devices = [d for d in t.devices if d in rows]
            t.matrix = {k: v for k, v in t.matrix.items() if k[0] in rows and k[1] in rows}
        values = {v for (a, b), v in t.matrix.items() if a != b}
        t.is_p2p = bool(values) and values <= P2P_TOKENS
    for line in lines:
        m = re.search(r"topo -p2p ([rwnap])", line)
        if m:
            for t in found:
                if t.is_p2p:
                    t.p2p_mode = m.group(1)
    found = [t for t in found if t.matrix]
    return found or None
