"""Decode bytes users paste or upload, and read operator-named files safely.

Decoding: a BOM decides first (UTF-8, UTF-16 LE/BE — what Excel's "Unicode text" writes), then UTF-8,
then GB18030 — what Chinese Windows terminals, editors and Excel's CSV still write — and only then
UTF-8 with replacement characters, so no input is ever rejected for its encoding.

Reading (`read_regular_file`): regular files only, opened non-blocking and checked with fstat on the
open descriptor (no race with a swapped-in FIFO), size capped *before* reading — so `/dev/zero`, a FIFO
or a directory is refused at once instead of filling memory or hanging.
"""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

from tools.errors import ToolInputError

_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def detect_encoding(data: bytes) -> str:
    """The encoding `decode_text` would use for `data` (for messages and tests)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    if len(data) >= 4 and data[1::2].count(0) > len(data) // 4 and data[0::2].count(0) == 0:
        return "utf-16-le"  # UTF-16 without a BOM: every other byte is NUL
    for encoding in ("utf-8", "gb18030"):
        try:
            data.decode(encoding)
            return encoding
        except UnicodeDecodeError:
            continue
    return "utf-8"


def decode_text(data: bytes) -> str:
    encoding = detect_encoding(data)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace")


def read_regular_file(path: str | os.PathLike[str], *, max_bytes: int, field: str = "path") -> bytes:
    """The bytes of a regular file of at most `max_bytes`, else a bilingual ToolInputError.

    For operator-supplied paths only (CLI flags, env): messages name the path, which the operator typed."""
    p = Path(path).expanduser()
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise ToolInputError(f"找不到文件 {p}", f"File not found: {p}", field=field) from None
    except IsADirectoryError:
        raise ToolInputError(f"{p} 是文件夹，不是文件", f"{p} is a directory, not a file", field=field) from None
    except OSError as exc:
        raise ToolInputError(
            f"无法打开 {p}（{exc.strerror}）", f"Cannot open {p} ({exc.strerror})", field=field
        ) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ToolInputError(f"{p} 是文件夹，不是文件", f"{p} is a directory, not a file", field=field)
        if not stat.S_ISREG(info.st_mode):
            raise ToolInputError(
                f"{p} 不是普通文件（设备、管道或套接字不能读取）",
                f"{p} is not a regular file (devices, pipes and sockets are not read)",
                field=field,
            )
        if info.st_size > max_bytes:
            raise ToolInputError(
                f"{p} 太大（{info.st_size:,} 字节，上限 {max_bytes:,}）",
                f"{p} is too large ({info.st_size:,} bytes, limit {max_bytes:,})",
                field=field,
            )
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:  # grew while we read it
            raise ToolInputError(
                f"{p} 太大（上限 {max_bytes:,} 字节）", f"{p} is too large (limit {max_bytes:,} bytes)", field=field
            )
        return data
    finally:
        os.close(fd)
