"""`nvidia-smi dmon`: one line per GPU per sample.

  # gpu   pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk
  # Idx     W      C      C      %      %      %      %    MHz    MHz
      0    68     45      -     12      3      0      0   1593   1410
Columns follow the header (its set depends on `-s`); `-` means not supported (nvidia-smi(1)).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import mean


@dataclass
class DmonGpu:
    index: int
    samples: list[dict[str, float]] = field(default_factory=list)

    def avg(self, col: str) -> float | None:
        vals = [s[col] for s in self.samples if col in s]
        return mean(vals) if vals else None

    def peak(self, col: str) -> float | None:
        vals = [s[col] for s in self.samples if col in s]
        return max(vals) if vals else None


@dataclass
class Dmon:
    columns: list[str]
    gpus: dict[int, DmonGpu] = field(default_factory=dict)
    header_line: str = ""


def parse(lines: list[str]) -> Dmon | None:
    out: Dmon | None = None
    for line in lines:
        s = line.strip()
        if s.startswith("#"):
            toks = s.lstrip("#").split()
            if toks and toks[0] == "gpu" and ("pwr" in toks or "sm" in toks):
                out = out or Dmon(columns=toks, header_line=s)
            continue
        if out is None or not s:
            continue
        toks = s.split()
        if len(toks) != len(out.columns) or not toks[0].isdigit():
            continue
        idx = int(toks[0])
        row: dict[str, float] = {}
        for col, tok in zip(out.columns[1:], toks[1:], strict=False):
            try:
                row[col] = float(tok)
            except ValueError:
                continue  # "-" = not supported
        out.gpus.setdefault(idx, DmonGpu(idx)).samples.append(row)
    return out if out and out.gpus else None
