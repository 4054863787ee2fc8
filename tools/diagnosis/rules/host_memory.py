"""Host RAM, not GPU memory: a process killed while loading, the OOM killer, a Windows paging file too small.

Texts and thresholds: knowledge/diagnosis/host_memory.yaml (sources there). With the renter's own sizes
(「内存只有128G，权重大约167GB」) the finding names both and the shortfall, and the RAM a box needs to load it
whole: the weights plus ~10% for the OS and buffers (a rule of thumb, said as such), rounded up to the next RAM
size servers are sold with.
"""

from __future__ import annotations

import math

from tools.diagnosis import signals
from tools.diagnosis.rules.context import Ctx

NAME = "host_memory"


def _fmt(x: float) -> str:
    return f"{x:.0f}" if abs(x - round(x)) < 0.05 else f"{x:.1f}"


def rules_host_memory(c: Ctx) -> None:
    h = c.p.get("host_memory")
    if not h:
        return
    if h.paging_line:
        t = signals.finding_text(NAME, "host_paging_file_small")
        c.add("host_paging_file_small", "warning", t["title"], [h.paging_line], t["causes"], t["actions"])
    if not (h.killed_line or h.oom_line or h.sigkill_line or h.told_line):
        return
    gpu_oom = c.has("framework_oom") or any(f.id.startswith("oom_") for f in c.findings)
    if gpu_oom and not (h.oom_line or h.told_line):
        return  # a CUDA OOM in the same paste explains a dead process better than a bare "Killed"
    data = signals.load(NAME)
    when = signals.snippet(NAME, "when_loading" if h.loading else "when_running")
    values: dict[str, object] = {"when_zh": when[0], "when_en": when[1]}
    told_oom = bool(h.told_line and "oom" in h.told_line.lower())
    if h.oom_line or (told_oom and not h.killed_line):
        values["signal"] = "OOM killer"
    else:
        values["signal"] = "SIGKILL / -9" if h.sigkill_line and not h.killed_line else "Killed"
    numbers: tuple[str, str] = ("", "")
    extra: list[tuple[str, str]] = []
    if h.ckpt_gb and h.ram_gb and h.ckpt_gb > h.ram_gb * 0.7:
        need = h.ckpt_gb * float(data.get("headroom", 1.1))
        tier = next((t for t in data.get("ram_tiers_gb") or [] if t >= need), math.ceil(need))
        v = {
            "ckpt_gb": _fmt(h.ckpt_gb),
            "ram_gb": _fmt(h.ram_gb),
            "short_gb": _fmt(max(h.ckpt_gb - h.ram_gb, 0.0)),
            "need_gb": _fmt(need),
            "tier_gb": _fmt(float(tier)),
            "swap_gb": _fmt(max(float(tier) - h.ram_gb, 16.0)),
        }
        numbers = signals.snippet(NAME, "numbers_both", v) if h.ckpt_gb > h.ram_gb else ("", "")
        extra.append(signals.snippet(NAME, "need_both", v))
    elif h.oom_rss_gb:
        gb = h.oom_rss_gb
        numbers = signals.snippet(
            NAME,
            "numbers_rss",
            {"proc": h.oom_proc or "process", "rss_gb": _fmt(gb), "rss_gib": _fmt(gb * 1e9 / 2**30)},
        )
    elif h.ram_gb:
        numbers = signals.snippet(NAME, "numbers_ram", {"ram_gb": _fmt(h.ram_gb)})
    values["numbers_zh"], values["numbers_en"] = numbers
    t = signals.finding_text(NAME, "host_ram_oom_killed", values)
    actions = extra + t["actions"] if extra else t["actions"]
    c.add("host_ram_oom_killed", "warning", t["title"], h.evidence, t["causes"], actions)
