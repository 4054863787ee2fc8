"""`nvcc -V`: the CUDA *toolkit* version. It matters for compiling extensions, not for the
PyTorch wheel (pip/conda wheels bundle their own CUDA runtime)."""
from __future__ import annotations

import re
from dataclasses import dataclass

_REL = re.compile(r"Cuda compilation tools, release (\d+\.\d+), V(\d+(?:\.\d+)*)")


@dataclass
class Nvcc:
    release: str | None
    full: str | None
    line: str
    missing: bool = False


def parse(lines: list[str]) -> Nvcc | None:
    for line in lines:
        if "Cuda compilation tools" in line:
            m = _REL.search(line)
            if m:
                return Nvcc(m.group(1), m.group(2), line.strip())
        if "nvcc: command not found" in line or "nvcc: not found" in line:
            return Nvcc(None, None, line.strip(), missing=True)
    return None
