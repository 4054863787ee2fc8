"""The NVIDIA Xid catalog (knowledge/xid.yaml): meaning, category, actions, severity.

Source: NVIDIA "Xid Catalog" (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html)
via the generated mirror in leptonai/gpud; each row carries `source` and `as_of`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from tools.data import load_yaml


@lru_cache(maxsize=1)
def catalog() -> dict[int, dict[str, Any]]:
    data = load_yaml("xid.yaml")
    return {int(row["code"]): row for row in data["xids"]}


def entry(code: int) -> dict[str, Any] | None:
    return catalog().get(code)


# Xids that NVIDIA's k8s-device-plugin treats as application errors (internal/rm/health.go).
APPLICATION_XIDS = frozenset({13, 31, 43, 45, 68, 109})
