"""Issue 18 item 4: page uploads — count, type and size limits, and no copy left to download."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from assistant.uploads import MAX_UPLOAD_BYTES, MAX_UPLOADS, read_uploads


@pytest.fixture
def gradio_dir(tmp_path, monkeypatch):
    """Uploads land in Gradio's cache folder; point it at a fresh one."""
    folder = tmp_path / "gradio-cache"
    folder.mkdir()
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(folder))
    return folder


def _upload(folder: Path, name: str, data: bytes) -> Path:
    sub = folder / os.urandom(4).hex()
    sub.mkdir()
    path = sub / name
    path.write_bytes(data)
    return path


def test_a_log_is_read_and_its_cached_copy_deleted(gradio_dir):
    path = _upload(gradio_dir, "dmesg.log", "NVRM: Xid 79, GPU has fallen off the bus\n".encode("gb18030"))
    out = read_uploads(str(path))
    assert "Xid 79" in out.text and not out.errors and not out.truncated
    assert not path.exists(), "the upload stayed downloadable from Gradio's cache"


def test_wrong_type_too_many_and_too_large(gradio_dir):
    exe = _upload(gradio_dir, "payload.exe", b"MZ\x90\x00")
    logs = [_upload(gradio_dir, f"n{i}.log", b"ok\n") for i in range(MAX_UPLOADS + 2)]
    out = read_uploads([str(exe), *map(str, logs)])
    messages = " ".join(e.en for e in out.errors)
    assert "Unsupported file type .exe" in messages and f"At most {MAX_UPLOADS} files" in messages
    assert all(e.zh for e in out.errors)
    assert not exe.exists() and not any(p.exists() for p in logs)  # everything uploaded is cleaned up
    big = _upload(gradio_dir, "big.log", b"line of log\n" * 2_000_000)  # 24 MB
    out = read_uploads(str(big))
    assert out.errors and "too large" in out.errors[0].en and out.text == ""


def test_a_long_log_is_cut_at_a_whole_line(gradio_dir):
    line = "GPU 0: 显存 81920MiB\n".encode()
    path = _upload(gradio_dir, "long.txt", line * (MAX_UPLOAD_BYTES // len(line) + 100))
    out = read_uploads(str(path))
    assert out.truncated and out.text.endswith("81920MiB\n") and len(out.text.encode()) <= MAX_UPLOAD_BYTES


def test_files_outside_gradios_folder_are_never_deleted(gradio_dir, tmp_path):
    outside = tmp_path / "keep.log"
    outside.write_text("mine\n", encoding="utf-8")
    assert read_uploads(str(outside)).text == "mine\n"
    assert outside.exists()


def test_special_files_and_links_are_refused(gradio_dir):
    link = gradio_dir / "secret.log"
    link.symlink_to("/etc/passwd")
    out = read_uploads(str(link))
    assert out.errors and out.text == ""
    fifo = gradio_dir / "pipe.log"
    os.mkfifo(fifo)
    assert read_uploads(str(fifo)).errors


def test_error_boxes_escape_file_names(gradio_dir):
    path = _upload(gradio_dir, "x.<img>", b"x")
    html = read_uploads(str(path)).errors_html("en")
    assert "<img" not in html and "&lt;img" in html


def test_tempdir_default_is_gradios_folder():
    from assistant.uploads import _upload_dirs

    assert Path(tempfile.gettempdir()).resolve() / "gradio" in _upload_dirs()
