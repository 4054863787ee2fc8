"""nccl-tests against the network the renter says each node has, and nccl-tests run as separate jobs.

Line rate = NICs × Gb/s ÷ 8 (GB/s): the ceiling for cross-node busbw (nccl-tests PERFORMANCE.md). The measured
figure is the renter's own words or, when the paste spans several hosts, the large-message plateau. Thresholds
and texts: knowledge/diagnosis/line_rate.yaml (the 80 % mark is a rule of thumb, said as such there).
"""

from __future__ import annotations

from tools.diagnosis import signals
from tools.diagnosis.parsers.nccl_tests import separate_jobs
from tools.diagnosis.rules.context import Ctx

NAME = "line_rate"


def _gbs(x: float) -> str:
    if x >= 100:
        return f"{x:.0f} GB/s"
    return f"{x:.1f} GB/s" if x >= 10 else f"{x:.2f} GB/s"


def _num(x: float) -> str:
    return f"{x:g}"


def rules_separate_jobs(c: Ctx) -> None:
    runs = c.p.get("nccl_tests") or []
    jobs = separate_jobs(runs)
    if not jobs:
        return
    t = signals.finding_text(NAME, "nccl_tests_separate_jobs", {"jobs": jobs})
    ev = [f"# Rank {r[0]} on {r[1]} device {r[2]} {r[4]}" for run in runs for r in run.ranks if r[0] == 0][:4]
    c.add("nccl_tests_separate_jobs", "warning", t["title"], ev, t["causes"], t["actions"])


def rules_line_rate(c: Ctx) -> None:
    lr = c.p.get("line_rate")
    if not lr or c.has("busbw_above_line_rate"):
        return
    data = signals.load(NAME)
    measured, evidence = lr.measured_gbs, lr.measured_line
    runs = c.p.get("nccl_tests") or []
    if measured is None:
        for run in runs:
            plateau, big = run.plateau()
            if plateau is not None and len(run.hosts) >= 2:
                measured, evidence = plateau, max(big, key=lambda r: r.busbw or 0).line
                break
    line = lr.line_gbs
    values = {
        "nics": lr.nics,
        "gbps": _num(lr.gbps),
        "line": _gbs(line),
        "low": _gbs(0.8 * line),
        "high": _gbs(0.9 * line),
    }
    if measured is None or separate_jobs(runs):
        t = signals.finding_text(NAME, "line_rate_ceiling", values)
        c.add("line_rate_ceiling", "info", t["title"], [lr.nic_line], t["causes"], t["actions"])
        return
    frac = measured / line
    values.update({"measured": _gbs(measured), "pct": f"{100 * frac:.0f}"})
    if frac > 1.05:
        return  # above the wire: tree/NVLink traffic (the narrative rule explains it when the renter asks)
    fid = "busbw_near_line_rate" if frac >= float(data.get("good_fraction", 0.8)) else "busbw_below_line_rate"
    t = signals.finding_text(NAME, fid, values)
    sev = "info" if fid == "busbw_near_line_rate" else "warning"
    c.add(fid, sev, t["title"], [x for x in (evidence, lr.nic_line) if x], t["causes"], t["actions"])
