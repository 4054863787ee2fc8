"""PCIe bus errors from the BMC's event log (IPMI SEL). Severity per the kernel AER guide: correctable alone is a
warning about the link; uncorrectable/fatal is critical. Texts: knowledge/diagnosis/pcie_faults.yaml. Joining them
with a lost or uninitialisable GPU (one failing link) happens in tools/diagnosis/incidents.py."""

from __future__ import annotations

from tools.diagnosis import signals
from tools.diagnosis.rules.context import Ctx

NAME = "pcie_faults"


def rules_ipmi_sel(c: Ctx) -> None:
    s = c.p.get("ipmi_sel")
    if not s:
        return
    if s.uncorrectable:
        t = signals.finding_text(NAME, "sel_bus_uncorrectable", {"event": s.uncorrectable_event or "Bus Fatal Error"})
        c.add("sel_bus_uncorrectable", "critical", t["title"], s.uncorrectable, t["causes"], t["actions"])
    if s.correctable:
        t = signals.finding_text(NAME, "sel_bus_correctable", {"count": len(s.correctable)})
        c.add("sel_bus_correctable", "warning", t["title"], s.correctable, t["causes"], t["actions"])
