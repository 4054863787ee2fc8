"""Decide which parsers apply to a paste. One paste may mix several outputs, so every kind
whose cheap signature appears is parsed, and a kind counts as detected only if its parser
actually found something (a stray word like "AER" in prose does not make a kernel log).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

# kind -> substrings; any one present means "run this parser". Order = report order.
SIGNATURES: dict[str, tuple[str, ...]] = {
    "nvidia_smi_table": (
        "NVIDIA-SMI",
        "Unable to determine the device handle",
        "No devices were found",
        "Failed to initialize NVML",
        "GPU is lost",
        "MiB /",
        "CUDA Version",
    ),
    "nvidia_smi_list": ("(UUID: GPU-",),
    "nvidia_smi_query": (
        "NVSMI LOG",
        "Product Name",
        "FB Memory Usage",
        "Clocks Event Reasons",
        "Clocks Throttle Reasons",
        "Remapped Rows",
        "GPU Current Temp",
        "Retired Pages",
    ),
    "topo": ("GPU0",),
    "kernel_log": ("NVRM", "SXid", "AER", "PCIe Bus Error"),
    "lspci": ("NVIDIA Corporation",),
    "nvcc": ("Cuda compilation tools", "nvcc: command not found", "nvcc: not found", "nvcc"),
    "torch_errors": (
        "out of memory",
        "too old",
        "insufficient for CUDA runtime",
        "uncorrectable ECC",
        "is_available",
        "torch_check:",
        "CUDA error",
        "device-side assert",
        "no kernel image",
        "Found no NVIDIA driver",
        "CUDA initialization",
    ),
    "nccl_log": ("NCCL", "Watchdog caught collective"),
    "nccl_tests": ("busbw", "nThread", "Avg bus bandwidth", "Out of bounds values", "#wrong", "_perf"),
    "iostat": ("%util",),
    "dcgmi_diag": ("Diagnostic",),
}


@dataclass
class Parsed:
    kinds: list[str] = field(default_factory=list)
    results: dict[str, Any] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    def get(self, kind: str) -> Any:
        return self.results.get(kind)


def parse_all(text: str) -> Parsed:
    lines = text.split("\n")
    out = Parsed(lines=lines)
    for kind, needles in SIGNATURES.items():
        if not any(n in text for n in needles):
            continue
        module = importlib.import_module(f"tools.diagnosis.parsers.{kind}")
        result = module.parse(lines)
        if result:
            out.kinds.append(kind)
            out.results[kind] = result
    return out


def detect_kinds(text: str) -> list[str]:
    return parse_all(text).kinds
