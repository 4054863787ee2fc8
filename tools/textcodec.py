"""Decode bytes users paste or upload: UTF-8 first (with or without BOM), then GB18030 — what
Chinese Windows terminals and editors still write — and only then UTF-8 with replacement
characters, so no input is ever rejected for its encoding."""

from __future__ import annotations


def decode_text(data: bytes) -> str:
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="replace")
