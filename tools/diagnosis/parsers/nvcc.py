"""`nvcc -V`: the CUDA *toolkit* version. It matters for compiling extensions, not for the
PyTorch wheel (pip/conda wheels bundle their own CUDA runtime)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_REL = re.compile(r"Cuda compilation tools, release (\d+\.\d+), V(\d+(?:\.\d+)*)")
_LOOSE = re.compile(r"release\s*(\d{1,2}\.\d{1,2})\b")


@dataclass
class Nvcc:
    release: str | None
    full: str | None
    line: str
    missing: bool = False


def parse(lines: list[str]) -> Nvcc | None:
    loose: Nvcc | None = None
    for line in lines:
        if loose is None and "nvcc" in line and "release" in line and len(line) < 500:
            m = _LOOSE.search(line)
            if m:
                loose = Nvcc(m.group(1), None, line.strip())
        if "Cuda compilation tools" in line:
            m = _REL.search(line)
            if m:
                return Nvcc(m.group(1), m.group(2), line.strip())
        if "nvcc: command not found" in line or "nvcc: not found" in line:
            return Nvcc(None, None, line.strip(), missing=True)
    return loose  # "nvcc -V says release 12.4" quoted in a sentence
