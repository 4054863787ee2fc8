"""`nvidia-smi -L`: one line per GPU (and per MIG device) with its UUID.

    GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1b2c3d4e-...)
      MIG 3g.40gb     Device  0: (UUID: MIG-...)
The UUID is what a renter should record and put in a ticket (ml-engineering debug.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_GPU = re.compile(r"^GPU (\d{1,3}): (.{1,120}?) \(UUID: (GPU-[0-9a-fA-F-]{8,64})\)$")
_MIG = re.compile(r"^MIG \S{1,20}\s+Device\s+(\d+): \(UUID: (MIG-[0-9a-fA-F/-]{8,80})\)$")


@dataclass
class SmiList:
    gpus: list[tuple[int, str, str]] = field(default_factory=list)  # (index, name, uuid)
    mig_devices: int = 0


def parse(lines: list[str]) -> SmiList | None:
    out = SmiList()
    for line in lines:
        s = line.strip()
        if "UUID:" not in s or len(s) > 300:
            continue
        m = _GPU.match(s)
        if m:
            out.gpus.append((int(m.group(1)), m.group(2).strip(), m.group(3)))
            continue
        if _MIG.match(s):
            out.mig_devices += 1
    return out if out.gpus else None
