"""Decode NVLink5 Xids 144–150 with NVIDIA's "XID 144-150 Decode" sheet (knowledge/diagnosis/nvlink5_decode.yaml).

The kernel line names the unit (e.g. RLW_RXPIPE) and carries two hex words: intrinfo, then the
error status. A rule matches when the unit and the error status are equal and the intrinfo bits
fit one of the rule's 32-character patterns (bit 31 first; '1'/'0' must match, '-' is free).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from tools.data import load_yaml

_HEX_PAIR = re.compile(r"\((0x[0-9a-fA-F]{1,8})\s+(0x[0-9a-fA-F]{1,8})")


def words(text: str) -> tuple[int, int] | None:
    """(intrinfo, error_status) from `... (0x0409a0c2 0x00000008 ...)`."""
    m = _HEX_PAIR.search(text)
    return (int(m.group(1), 16), int(m.group(2), 16)) if m else None


def _matches(pattern: str, value: int) -> bool:
    if len(pattern) != 32:
        return False
    for idx, ch in enumerate(pattern):
        bit = (value >> (31 - idx)) & 1
        if (ch == "1" and not bit) or (ch == "0" and bit):
            return False
    return True


@lru_cache(maxsize=1)
def _rules() -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for row in load_yaml("diagnosis", "nvlink5_decode.yaml")["rules"]:
        out.setdefault(int(row["xid"]), []).append(row)
    return out


def _unit_aliases(unit: str) -> set[str]:
    return {u for u in re.split(r"[^A-Za-z0-9_]+", unit.upper()) if u}


def decode(xid: int, unit: str | None, text: str) -> dict[str, Any] | None:
    """The matching decode row (resolution, investigatory, severity, hw_sw, local_remote) or None."""
    pair = words(text)
    if pair is None or not unit:
        return None
    intrinfo, status = pair
    for row in _rules().get(xid, []):
        if unit.upper() not in _unit_aliases(row["unit"]) or int(row["error_status"], 16) != status:
            continue
        if _matches(row["intrinfo_v2"], intrinfo) or _matches(row["intrinfo_v1"], intrinfo):
            return row
    return None
