"""`dcgmi diag -r 1..4` result tables (DCGM 2.x/3.x and 4.x layouts).

Rows are `| Test name | Pass/Fail/Warn/Skip [- All | GPU list] |`; 4.x adds per-GPU lines
(`| | GPU0: Fail |`) and `Warning:`/`Error:` rows. Level 1 = quick deployment checks, 2 = ~2 min,
3 = ~15 min hardware, 4 = extended (DCGM docs). GeForce/Quadro support level 1 only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_RESULT = re.compile(r"^(Pass|Fail|Warn|Skip|Error)\b(.*)$", re.IGNORECASE)


@dataclass
class DcgmResult:
    test: str
    result: str  # pass | fail | warn | skip
    detail: str
    line: str


@dataclass
class DcgmDiag:
    results: list[DcgmResult] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    driver_version: str | None = None
    level: int | None = None

    @property
    def failed(self) -> list[DcgmResult]:
        return [r for r in self.results if r.result in ("fail", "error")]

    @property
    def warned(self) -> list[DcgmResult]:
        return [r for r in self.results if r.result == "warn"]


def parse(lines: list[str]) -> DcgmDiag | None:
    out = DcgmDiag()
    seen_table = False
    last_test = ""
    for line in lines:
        s = line.strip()
        m = re.search(r"dcgmi diag\s+(?:-r|--run)\s+(\d)", s)
        if m:
            out.level = int(m.group(1))
        if not s.startswith("|") or s.count("|") < 3:
            continue
        cells = [c.strip() for c in s.strip("|").split("|")]
        if len(cells) < 2:
            continue
        name, value = cells[0], cells[1]
        if name == "Diagnostic" and value == "Result":
            seen_table = True
            continue
        if not seen_table or name.startswith("-----"):
            continue
        if name == "Driver Version Detected":
            out.driver_version = value
            continue
        if name.startswith("Warning") or name.startswith("Error") or name.startswith("Info"):
            if value:
                out.messages.append(f"{last_test}: {name} {value}".strip())
            continue
        mr = _RESULT.match(value)
        if mr:
            test = name or last_test
            if name:
                last_test = name
            out.results.append(DcgmResult(test, mr.group(1).lower(), mr.group(2).strip(" -"), s))
    return out if out.results else None
