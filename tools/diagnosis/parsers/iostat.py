"""`iostat -x` (sysstat), old and new column sets.

Old: `Device: rrqm/s wrqm/s r/s w/s rkB/s wkB/s avgrq-sz avgqu-sz await r_await w_await svctm %util`
New (sysstat ≥ 12): `Device r/s w/s rkB/s wkB/s rrqm/s wrqm/s %rrqm %wrqm r_await w_await aqu-sz
rareq-sz wareq-sz svctm %util` (some builds also add d/s, f/s columns). `%util` near 100 means
saturation only for devices serving requests serially; for NVMe/RAID look at queue size and
await too (iostat man page). The first report is the average since boot, so when several
reports are pasted the first is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class DeviceSample:
    device: str
    util: float | None
    await_ms: float | None
    queue: float | None
    read_kbs: float | None
    line: str


@dataclass
class Iostat:
    reports: list[list[DeviceSample]] = field(default_factory=list)
    iowait: list[float] = field(default_factory=list)
    column_style: str | None = None  # old | new

    def current(self) -> list[DeviceSample]:
        """Samples after the since-boot report when there are several reports."""
        reps = self.reports[1:] if len(self.reports) > 1 else self.reports
        return [s for rep in reps for s in rep]


def _f(tok: str) -> float | None:
    try:
        return float(tok.replace(",", "."))
    except ValueError:
        return None


def parse(lines: list[str]) -> Iostat | None:
    out = Iostat()
    cols: list[str] | None = None
    cpu_next = False
    cpu_cols: list[str] = []
    for line in lines:
        toks = line.split()
        if not toks:
            cols = None
            continue
        if toks[0] == "avg-cpu:":
            cpu_cols = toks[1:]
            cpu_next = True
            continue
        if cpu_next:
            cpu_next = False
            if "%iowait" in cpu_cols and len(toks) == len(cpu_cols):
                v = _f(toks[cpu_cols.index("%iowait")])
                if v is not None:
                    out.iowait.append(v)
            continue
        if toks[0] in ("Device:", "Device") and "%util" in toks:
            cols = toks
            out.column_style = "old" if ("avgqu-sz" in toks or toks[0] == "Device:") else "new"
            out.reports.append([])
            continue
        if cols is not None and len(toks) == len(cols):
            row = dict(zip(cols, toks, strict=False))
            await_ms = None
            for k in ("await", "r_await"):
                if k in row:
                    await_ms = _f(row[k])
                    break
            queue = _f(row.get("aqu-sz", row.get("avgqu-sz", "x")))
            out.reports[-1].append(
                DeviceSample(toks[0], _f(row["%util"]), await_ms, queue, _f(row.get("rkB/s", "x")), line.strip())
            )
    out.reports = [r for r in out.reports if r]
    return out if out.reports else None
