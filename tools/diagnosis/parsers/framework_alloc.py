"""GPU allocation failures from frameworks other than PyTorch (PaddlePaddle, TensorFlow).

Shapes (Paddle gpu_info.cc / system_allocator.cc / ResourceExhaustedError, TensorFlow BFC allocator):
  Expected allocating <= available, but received allocating:10243394109 > available:426114816.
  Cannot malloc 11053.8 MB GPU memory. … Current FLAGS_fraction_of_gpu_memory_to_use value is 0.72.
  Out of memory error on GPU 0. Cannot allocate 1.2GB memory on GPU 0, 14.8GB memory has been allocated and available memory is only 900.5MB.
  OOM when allocating tensor with shape[32,1024,1024] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
Paddle prints MB as size / 2**20 (MiB); the byte counts are bytes. Everything is reported in GB (10^9 B).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_PADDLE_BYTES = re.compile(r"received allocating:\s*(\d+)\s*>\s*available:\s*(\d+)")
_PADDLE_MALLOC = re.compile(r"Cannot malloc ([0-9.]+) MB GPU memory")
_PADDLE_FRACTION = re.compile(r"FLAGS_fraction_of_gpu_memory_to_use value is ([0-9]+(?:\.[0-9]+)?)")
_PADDLE_2X = re.compile(
    r"Cannot allocate ([0-9.]+)\s*([KMG]?B) memory on GPU (\d+), ([0-9.]+)\s*([KMG]?B) memory has been allocated and "
    r"available memory is only ([0-9.]+)\s*([KMG]?B)"
)
_TF = re.compile(r"OOM when allocating tensor with shape\s*\[([\d,\s]*)\] and type (\w+)(?: on \S*?device:GPU:(\d+))?")
# Host RAM, not GPU memory: PyTorch's CPU allocator and safetensors/torch memory-mapping a checkpoint
_HOST = re.compile(
    r"DefaultCPUAllocator: (?:can't allocate memory|not enough memory): you tried to allocate (\d+) bytes|unable to mmap (\d+) bytes"
)
# Paddle 2.x prints sizes with binary units written KB/MB/GB (memory/allocation/allocator.cc: string_format of 2^10 steps)
_UNIT = {"B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30}
_DTYPE_BYTES = {
    "float": 4,
    "float32": 4,
    "half": 2,
    "float16": 2,
    "bfloat16": 2,
    "double": 8,
    "float64": 8,
    "int32": 4,
    "int64": 8,
    "int8": 1,
    "uint8": 1,
    "bool": 1,
}


@dataclass
class FrameworkAlloc:
    framework: str  # paddle | tensorflow | host (CPU RAM)
    line: str
    requested_gb: float | None = None
    free_gb: float | None = None
    allocated_gb: float | None = None
    fraction: float | None = None  # FLAGS_fraction_of_gpu_memory_to_use
    gpu: int | None = None
    shape: str | None = None


def parse(lines: list[str]) -> FrameworkAlloc | None:
    out: FrameworkAlloc | None = None
    for line in lines:
        if out is None:
            out = _first(line)
        if out is not None and out.fraction is None:
            f = _PADDLE_FRACTION.search(line)
            if f:
                out.fraction = float(f.group(1))
    return out


def _first(line: str) -> FrameworkAlloc | None:
    h = _HOST.search(line)
    if h:
        return FrameworkAlloc("host", line.strip()[:300], int(h.group(1) or h.group(2)) / 1e9)
    m = _PADDLE_BYTES.search(line)
    if m:
        return FrameworkAlloc("paddle", line.strip()[:300], int(m.group(1)) / 1e9, int(m.group(2)) / 1e9)
    m = _PADDLE_MALLOC.search(line)
    if m:
        return FrameworkAlloc("paddle", line.strip()[:300], float(m.group(1)) * 2**20 / 1e9)
    m = _PADDLE_2X.search(line)
    if m:
        req, alloc, free = (float(m.group(i)) * _UNIT[m.group(i + 1)] / 1e9 for i in (1, 4, 6))
        return FrameworkAlloc("paddle", line.strip()[:300], req, free, alloc, gpu=int(m.group(3)))
    m = _TF.search(line)
    if m:
        dims = [int(d) for d in m.group(1).replace(" ", "").split(",") if d]
        size = _DTYPE_BYTES.get(m.group(2).lower())
        tf_req: float | None = math.prod(dims) * size / 1e9 if dims and size else None
        gpu = int(m.group(3)) if m.group(3) else None
        return FrameworkAlloc("tensorflow", line.strip()[:300], tf_req, gpu=gpu, shape=m.group(1))
    return None
