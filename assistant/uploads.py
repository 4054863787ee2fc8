"""Files a page visitor uploads: how many, which kinds, how large — and gone once read.

WHY here and not in the page: the limits are policy (docs/reliability.md), testable without a
browser, and the page only calls `read_uploads`. An upload is copied by Gradio into its cache
folder, from where it could be downloaded again by anyone holding the link; we delete our copy as
soon as its text is read (and the page sets Gradio's own cache expiry as a backstop).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.errors import ToolInputError
from tools.textcodec import decode_text

MAX_UPLOADS = 3
MAX_UPLOAD_BYTES = 2_000_000  # read at most this much of each file (the diagnosis reads the start)
MAX_UPLOAD_HARD_BYTES = 20_000_000  # refused outright above this (also Gradio's max_file_size)
ALLOWED_SUFFIXES = frozenset({".txt", ".log", ".out", ".err", ".csv", ".md", ".json", ".yaml", ".yml"})


@dataclass
class UploadText:
    text: str = ""
    truncated: bool = False
    errors: list[ToolInputError] = field(default_factory=list)

    def errors_html(self, lang: str) -> str:
        """The problems as the page's error boxes (file names escaped: a name can hold markup)."""
        from html import escape

        return "".join(f'<div class="ga-error">{escape(e.zh if lang == "zh" else e.en)}</div>' for e in self.errors)


def _path_of(upload: Any) -> Path:
    return Path(getattr(upload, "path", None) or getattr(upload, "name", None) or str(upload))


def _upload_dirs() -> list[Path]:
    dirs = [Path(tempfile.gettempdir()) / "gradio"]
    if os.environ.get("GRADIO_TEMP_DIR"):
        dirs.append(Path(os.environ["GRADIO_TEMP_DIR"]))
    return [d.resolve() for d in dirs]


def _discard(path: Path) -> None:
    """Delete the upload's cached copy — only inside Gradio's upload folder, never anywhere else."""
    try:
        real = path.resolve()
        if path.is_symlink() or not any(real.is_relative_to(d) for d in _upload_dirs()):
            return
        real.unlink(missing_ok=True)
    except OSError:
        pass


def _read_one(path: Path) -> tuple[str, bool]:
    name = path.name[:80]
    if path.suffix.lower() not in ALLOWED_SUFFIXES:
        raise ToolInputError(
            f"不支持的文件类型 {path.suffix or '（无扩展名）'}：请上传 .txt / .log / .out 文本日志",
            f"Unsupported file type {path.suffix or '(none)'}: upload a .txt / .log / .out text log",
            field="upload",
        )
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        raise ToolInputError(
            f"无法读取上传的文件 {name}", f"Cannot read the uploaded file {name}", field="upload"
        ) from None
    try:
        info = os.fstat(fd)
        import stat

        if not stat.S_ISREG(info.st_mode):
            raise ToolInputError(f"{name} 不是普通文件", f"{name} is not a regular file", field="upload")
        if info.st_size > MAX_UPLOAD_HARD_BYTES:
            raise ToolInputError(
                f"{name} 太大（上限 {MAX_UPLOAD_HARD_BYTES / 1e6:g} MB）；请只上传出错前后的日志",
                f"{name} is too large (limit {MAX_UPLOAD_HARD_BYTES / 1e6:g} MB); upload the part around the error",
                field="upload",
            )
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(MAX_UPLOAD_BYTES + 1)
    finally:
        os.close(fd)
    truncated = len(data) > MAX_UPLOAD_BYTES
    if truncated:  # cut at the last whole line (never inside a multi-byte character)
        data = data[:MAX_UPLOAD_BYTES]
        data = data[: data.rfind(b"\n") + 1] or data
    return decode_text(data), truncated


def read_uploads(upload: Any) -> UploadText:
    """Text of one upload or a list of them, within the limits above; each file's cached copy is
    deleted after reading. Problems come back as bilingual errors, never as exceptions."""
    out = UploadText()
    if not upload:
        return out
    items = list(upload) if isinstance(upload, (list, tuple)) else [upload]
    paths = [_path_of(u) for u in items]
    if len(paths) > MAX_UPLOADS:
        out.errors.append(
            ToolInputError(
                f"一次最多上传 {MAX_UPLOADS} 个文件，只读取了前 {MAX_UPLOADS} 个",
                f"At most {MAX_UPLOADS} files at a time; only the first {MAX_UPLOADS} were read",
                field="upload",
            )
        )
    texts = []
    for path in paths[:MAX_UPLOADS]:
        try:
            text, truncated = _read_one(path)
            texts.append(text)
            out.truncated = out.truncated or truncated
        except ToolInputError as exc:
            out.errors.append(exc)
    for path in paths:
        _discard(path)
    out.text = "\n".join(t for t in texts if t.strip())
    return out
