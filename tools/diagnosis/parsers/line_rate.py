"""The network the renter says each node has, and the bandwidth they measured, in their own words
("each node has one NIC with 10Gbps", 「每台 8 张 100G 网卡，测到 600Gbps」). Only read next to an nccl-tests
word, so a plain sizing question is not a paste. Patterns in knowledge/diagnosis/line_rate.yaml; the unit's case
decides bits (Gb, Gbps) from bytes (GB/s)."""

from __future__ import annotations

from dataclasses import dataclass

from tools.diagnosis import signals

NAME = "line_rate"


@dataclass
class LineRate:
    nics: int
    gbps: float  # per NIC, gigabits per second
    nic_line: str
    measured_gbs: float | None = None  # gigabytes per second
    measured_line: str | None = None

    @property
    def line_gbs(self) -> float:
        return self.nics * self.gbps / 8


def _to_gbs(value: float, unit: str) -> float:
    bits = "bit" in unit.lower() or unit in ("Gbps", "Gb/s", "gbps")
    return value / 8 if bits else value


def parse(lines: list[str]) -> LineRate | None:
    text = "\n".join(lines[:400])
    if not signals.search(NAME, "test_words", text):
        return None
    nics = gbps = None
    nic_line = ""
    hit = signals.first_line(NAME, "nics_counted", lines, limit=400)
    if hit and 1 <= int(hit[1].group(1)) <= 64:
        nic_line, m = hit
        nics, gbps = int(m.group(1)), float(m.group(2))
    else:
        single = signals.first_line(NAME, "nic_single", lines, limit=400)
        if single:
            nic_line, m = single
            nics, gbps = 1, float(m.group(1))
    if not nics or not gbps or not (1 <= gbps <= 1600):
        return None
    out = LineRate(nics, gbps, nic_line[:300])
    for line in lines[:400]:
        for rx in signals.patterns(NAME)["measured"]:
            for m in rx.finditer(line):
                value, unit = float(m.group(1)), m.group(2)
                if unit.lower().startswith("gb") and "bit" not in unit and value == gbps and unit != "GB/s":
                    continue  # the NIC's own speed said again
                out.measured_gbs, out.measured_line = _to_gbs(value, unit), line.strip()[:300]
                # above the wire is the narrative's "busbw higher than the NIC" (tree algorithm, NVLink): not this kind
                return None if out.measured_gbs > 1.05 * out.line_gbs else out
    return out
