"""Byte units, said explicitly: GB = 10^9 bytes (decimal, as GPU datasheets use), GiB = 2^30 bytes
(binary, as nvidia-smi's MiB and PyTorch's allocator use)."""

from __future__ import annotations

GB = 10**9
GiB = 2**30
MiB = 2**20


def to_gb(n_bytes: float) -> float:
    return n_bytes / GB


def to_gib(n_bytes: float) -> float:
    return n_bytes / GiB


def gb_to_gib(gb: float) -> float:
    return gb * GB / GiB


def mib_to_gb(mib: float) -> float:
    return mib * MiB / GB


def round_sig(x: float, digits: int = 3) -> float:
    """Round to `digits` significant figures for display (never used inside arithmetic)."""
    if x == 0:
        return 0.0
    from math import floor, log10

    return round(x, -int(floor(log10(abs(x)))) + digits - 1)
