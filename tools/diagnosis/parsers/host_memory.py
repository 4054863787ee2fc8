"""Host (CPU) RAM faults: `Killed` after `Loading checkpoint shards`, the kernel OOM killer, a Windows paging file
too small, a launcher reporting SIGKILL, or the renter saying so (「会被系统OOM杀进程」, with the RAM and weight sizes).

Patterns and sizes come from knowledge/diagnosis/host_memory.yaml (tools.diagnosis.signals); this module only
says which matched and reads the numbers (GB = 10^9 B; the kernel's kB are KiB).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.diagnosis import signals

NAME = "host_memory"


@dataclass
class HostMemory:
    killed_line: str | None = None  # the shell's "Killed" / 「已杀死」
    oom_line: str | None = None  # kernel "Out of memory: Killed process …"
    oom_proc: str | None = None
    oom_rss_gb: float | None = None
    paging_line: str | None = None
    sigkill_line: str | None = None
    told_line: str | None = None  # the renter's words: 「被系统OOM杀进程」
    loading: bool = False
    ram_gb: float | None = None
    ckpt_gb: float | None = None

    @property
    def evidence(self) -> list[str]:
        return [x for x in (self.oom_line, self.killed_line, self.sigkill_line, self.paging_line, self.told_line) if x]


def _size(key: str, lines: list[str]) -> float | None:
    hit = signals.first_line(NAME, key, lines, limit=400)
    if not hit:
        return None
    m = hit[1]
    value = float(m.group(1)) * (1000 if m.group(2).lower() == "t" else 1)
    if re.search(r"\d\s*[GT]i\b", m.group(0)):  # `free -h` prints GiB/TiB: report GB (10^9 B)
        value *= (2**40 / 1e12) if m.group(2).lower() == "t" else (2**30 / 1e9)
    return value


def parse(lines: list[str]) -> HostMemory | None:
    out = HostMemory()
    hit = signals.first_line(NAME, "oom_kill", lines)
    if hit:
        out.oom_line, m = hit
        out.oom_proc = m.group(2)
        if m.group(3):
            out.oom_rss_gb = int(m.group(3)) * 1024 / 1e9  # anon-rss is in kB = KiB
    elif (inv := signals.first_line(NAME, "oom_invoked", lines)) is not None:
        out.oom_line = inv[0]
    for key, attr in (("killed_line", "killed_line"), ("paging_file", "paging_line"), ("sigkill", "sigkill_line")):
        found = signals.first_line(NAME, key, lines)
        if found:
            setattr(out, attr, found[0][:300])
    told = signals.first_line(NAME, "told_killed", lines, limit=400)
    out.loading = signals.first_line(NAME, "loading", lines) is not None
    out.ram_gb, out.ckpt_gb = _size("ram_size", lines), _size("ckpt_size", lines)
    if told and (out.ram_gb or out.ckpt_gb or out.loading or "内存" in told[0] or "ram" in told[0].lower()):
        out.told_line = told[0][:300]
    if not (out.killed_line or out.oom_line or out.paging_line or out.sigkill_line or out.told_line):
        return None
    return out
