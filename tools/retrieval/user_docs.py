"""The user's own documents (a provider's price sheet, an internal runbook, notes).

`gpu-advisor index add PATH…` copies each file's text into `$GPU_ADVISOR_HOME/user_docs/`
and records it in `manifest.json`, so the documents survive restarts and do not depend on the
original file staying put; the vector store is only an index and can always be rebuilt from
here. Markdown and plain text are accepted (`.md .markdown .txt .text .rst .log .csv .tsv`);
text is decoded as UTF-8, falling back to GB18030 (common for Chinese files from Windows).

Safety (issue 18): every change to the manifest happens under an exclusive file lock, so two
`index add` at once never lose a document; the manifest is written to a unique temp file and
renamed (atomic); only regular files are read, size-capped before reading; a folder's symlinks
that point outside it are skipped (a link to a secret must not become searchable); an empty path is
refused (it would mean the current folder). A damaged manifest is rebuilt from the stored copies,
with a message, instead of silently disabling retrieval.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable, Iterator

from tools.errors import ToolInputError
from tools.retrieval.corpus import Passage, parse_user_document
from tools.retrieval.paths import user_docs_dir
from tools.textcodec import decode_text, read_regular_file

log = logging.getLogger(__name__)

MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdown"}
TEXT_SUFFIXES = {".txt", ".text", ".rst", ".log", ".csv", ".tsv"}
SUPPORTED = MARKDOWN_SUFFIXES | TEXT_SUFFIXES
MAX_BYTES = 20_000_000  # 20 MB of text is far beyond a runbook; refuse rather than hang
# Per document: every answer searches every passage, so one huge file must not slow all later answers.
# 2,000,000 characters is ~1,000 pages — any runbook or price sheet; a log dump belongs in `diagnose`.
MAX_DOC_CHARS = 2_000_000


@dataclass
class UserDoc:
    """One manifest entry."""

    id: str
    name: str
    file: str  # copy inside user_docs/
    original_path: str
    format: str  # "markdown" | "text"
    sha256: str
    chars: int
    added_at: str


def _decode(data: bytes, name: str) -> str:
    if b"\0" in data[:8192]:
        raise ToolInputError(
            f"{name} 看起来是二进制文件，只支持 Markdown 和纯文本",
            f"{name} looks binary; only Markdown and plain text are supported",
            field="path",
        )
    return decode_text(data)


def _slug(stem: str) -> str:
    slug = re.sub(r"[^0-9a-z\u4e00-\u9fff]+", "-", stem.lower()).strip("-")
    return slug[:40] or "doc"


class UserDocs:
    """The manifest and the stored copies under one folder."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or user_docs_dir()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.manifest_path = self.folder / "manifest.json"
        self.messages: builtins.list[str] = []
        self._lock_depth = 0

    # ---------------------------------------------------------- manifest
    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """An exclusive lock on this folder for a read-modify-write of the manifest (POSIX flock;
        elsewhere no lock — the atomic rename still keeps the manifest whole)."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            yield
            return
        if self._lock_depth:  # re-entered (list() rebuilding inside add()): already held
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        with open(self.folder.parent / f".{self.folder.name}.lock", "a+b") as fh:  # beside the folder, not in it
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            self._lock_depth = 1
            try:
                yield
            finally:
                self._lock_depth = 0
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def list(self) -> "builtins.list[UserDoc]":
        if not self.manifest_path.exists():
            return []
        try:
            raw = json.loads(self.manifest_path.read_text(encoding="utf-8"))
            return [UserDoc(**entry) for entry in raw.get("docs", [])]
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            return self._rebuild_manifest(exc)

    def _rebuild_manifest(self, exc: Exception) -> builtins.list[UserDoc]:
        """The stored copies are the truth: rebuild the manifest from them, keep the broken one aside."""
        with self.locked():
            try:  # another process may have rebuilt it while we waited for the lock
                raw = json.loads(self.manifest_path.read_text(encoding="utf-8"))
                return [UserDoc(**entry) for entry in raw.get("docs", [])]
            except (OSError, ValueError, TypeError, AttributeError):
                pass
            aside = self.manifest_path.with_name(f"manifest.broken-{time.strftime('%Y%m%d-%H%M%S')}.json")
            with contextlib.suppress(OSError):
                os.replace(self.manifest_path, aside)
            docs: builtins.list[UserDoc] = []
            for path in sorted(self.folder.glob("u-*")):
                if not path.is_file() or path.is_symlink() or path.suffix.lower() not in SUPPORTED:
                    continue
                text = path.read_text(encoding="utf-8", errors="replace")
                docs.append(
                    UserDoc(
                        id=path.stem,
                        name=path.name,
                        file=path.name,
                        original_path="",
                        format="markdown" if path.suffix.lower() in MARKDOWN_SUFFIXES else "text",
                        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                        chars=len(text),
                        added_at=time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(path.stat().st_mtime)),
                    )
                )
            self._write(docs)
        self.messages.append(
            f"用户文档清单已损坏（{type(exc).__name__}），已从 {len(docs)} 份保存的副本重建，旧清单移到 {aside.name} / "
            f"The user-document manifest was damaged ({type(exc).__name__}); rebuilt it from {len(docs)} stored "
            f"copies (the old one is kept as {aside.name})"
        )
        log.warning("user-document manifest rebuilt from %d stored copies (%s)", len(docs), exc)
        return docs

    def _write(self, docs: Iterable[UserDoc]) -> None:
        payload = {"version": 1, "docs": [asdict(d) for d in docs]}
        fd, tmp = tempfile.mkstemp(prefix=".manifest-", suffix=".tmp", dir=self.folder)  # unique per writer
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(payload, fh, ensure_ascii=False, indent=2)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.manifest_path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def fingerprint(self) -> tuple[int, int]:
        """Cheap change detector (mtime, size) of the manifest."""
        try:
            st = self.manifest_path.stat()
            return st.st_mtime_ns, st.st_size
        except FileNotFoundError:
            return 0, 0

    # ---------------------------------------------------------- add / remove
    @staticmethod
    def expand(paths: Iterable[str | Path]) -> builtins.list[Path]:
        """Files to add: each path, or every supported regular file under a folder (links that lead
        outside the folder are skipped)."""
        files: builtins.list[Path] = []
        for raw in paths:
            if not str(raw).strip():
                raise ToolInputError(
                    "路径是空的（空路径会被当成当前文件夹），请给出文件或文件夹",
                    "The path is empty (it would mean the current folder); give a file or folder",
                    field="path",
                )
            path = Path(raw).expanduser()
            if not path.exists():
                raise ToolInputError(f"找不到文件 {raw}", f"File not found: {raw}", field="path")
            if path.is_dir():
                found = UserDocs._walk(path)
                if not found:
                    raise ToolInputError(
                        f"文件夹 {raw} 里没有 Markdown 或文本文件",
                        f"No Markdown or text files in folder {raw}",
                        field="path",
                    )
                files.extend(found)
            elif not path.is_file():
                raise ToolInputError(
                    f"{raw} 不是普通文件（设备、管道或套接字不能添加）",
                    f"{raw} is not a regular file (devices, pipes and sockets cannot be added)",
                    field="path",
                )
            elif path.suffix.lower() not in SUPPORTED:
                raise ToolInputError(
                    f"不支持的文件类型 {path.suffix or '（无扩展名）'}：{raw}。支持 {' '.join(sorted(SUPPORTED))}",
                    f"Unsupported file type {path.suffix or '(none)'}: {raw}. Supported: {' '.join(sorted(SUPPORTED))}",
                    field="path",
                )
            else:
                files.append(path)
        return files

    @staticmethod
    def _walk(folder: Path) -> builtins.list[Path]:
        """Supported regular files under `folder`, never following a link out of it."""
        root = folder.resolve()
        found: builtins.list[Path] = []
        for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                path = Path(dirpath) / name
                if path.suffix.lower() not in SUPPORTED:
                    continue
                try:
                    real = path.resolve()
                except (OSError, RuntimeError):
                    continue
                if not real.is_relative_to(root) or not real.is_file():
                    log.info("index add: skipped %s (a link out of the folder, or not a regular file)", path)
                    continue
                found.append(path)
        return sorted(found)

    def add(self, paths: Iterable[str | Path]) -> builtins.list[UserDoc]:
        """Copy each file in and record it; re-adding a path replaces its previous copy."""
        files = self.expand(paths)
        prepared = [(path, self._read(path)) for path in files]  # read and check everything before any change
        with self.locked():
            return self._add_locked(prepared)

    @staticmethod
    def _read(path: Path) -> str:
        data = read_regular_file(path, max_bytes=MAX_BYTES, field="path")  # size checked before reading
        text = _decode(data, path.name)
        if len(text) > MAX_DOC_CHARS:
            raise ToolInputError(
                f"{path.name} 太长（{len(text):,} 个字符，每份文档上限 {MAX_DOC_CHARS:,}）；请拆成几份再添加",
                f"{path.name} is too long ({len(text):,} characters, limit {MAX_DOC_CHARS:,} per document); "
                "split it and add the parts",
                field="path",
            )
        return text

    def _add_locked(self, prepared: builtins.list[tuple[Path, str]]) -> builtins.list[UserDoc]:
        docs = self.list()
        added: builtins.list[UserDoc] = []
        for path, text in prepared:
            fmt = "markdown" if path.suffix.lower() in MARKDOWN_SUFFIXES else "text"
            sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
            doc_id = f"u-{_slug(path.stem)}-{sha[:6]}"
            # validate before storing: raises if there is nothing to search
            parse_user_document(
                text, doc_id, path.name, f"user_docs/{doc_id}{path.suffix.lower()}", markdown=fmt == "markdown"
            )
            original = str(path.resolve())
            for old in [d for d in docs if d.original_path == original or d.id == doc_id]:
                docs.remove(old)
                if old.file != f"{doc_id}{path.suffix.lower()}":
                    (self.folder / old.file).unlink(missing_ok=True)
            stored = f"{doc_id}{path.suffix.lower()}"
            fd, tmp = tempfile.mkstemp(prefix=".doc-", suffix=".tmp", dir=self.folder)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, self.folder / stored)
            entry = UserDoc(
                id=doc_id,
                name=path.name,
                file=stored,
                original_path=original,
                format=fmt,
                sha256=sha,
                chars=len(text),
                added_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            )
            docs.append(entry)
            added.append(entry)
        self._write(docs)
        return added

    def resolve(self, key: str) -> UserDoc:
        """A document by id, the path it was added with (relative, `~` or absolute), file name,
        or unique id prefix — in that order of precedence."""
        docs = self.list()
        key = key.strip()
        try:
            as_path = str(Path(key).expanduser().resolve()) if key else ""
        except (OSError, RuntimeError, ValueError):
            as_path = ""
        matches = (
            [d for d in docs if d.id == key]
            or [d for d in docs if key and d.original_path in (key, as_path)]
            or [d for d in docs if d.name == key]
            or [d for d in docs if key and d.id.startswith(key)]
        )
        if len(matches) == 1:
            return matches[0]
        if not matches:
            known = "、".join(d.id for d in docs) or "（还没有添加文档）"
            known_en = ", ".join(d.id for d in docs) or "(no documents added yet)"
            raise ToolInputError(
                f"找不到文档 {key}：它既不是已添加文档的 id，也不是添加时用的路径或文件名。"
                f"已有文档：{known}（用 gpu-advisor index list 查看）",
                f"No document matches {key}: it is neither the id of an added document nor the path "
                f"or file name it was added with. Documents: {known_en} (see gpu-advisor index list)",
                field="doc",
                suggestions=[d.id for d in docs],
            )
        raise ToolInputError(
            f"{key} 对应多个文档，请写完整 id",
            f"{key} matches several documents; use the full id",
            field="doc",
            suggestions=[d.id for d in matches],
        )

    def remove_path_or_id(self, key: str) -> builtins.list[UserDoc]:
        """What `index remove` does: a folder that was added removes every document added from
        under it; anything else is one document (see `resolve`)."""
        try:
            folder = Path(key).expanduser().resolve()
        except (OSError, RuntimeError, ValueError):
            folder = None
        if folder is not None and folder.is_dir():
            with self.locked():
                under = [d for d in self.list() if d.original_path and Path(d.original_path).is_relative_to(folder)]
                if under:
                    gone = {d.id for d in under}
                    self._write([d for d in self.list() if d.id not in gone])
                    for d in under:
                        (self.folder / d.file).unlink(missing_ok=True)
                    return under
        return [self.remove(key)]

    def remove(self, key: str) -> UserDoc:
        with self.locked():
            doc = self.resolve(key)
            self._write([d for d in self.list() if d.id != doc.id])
            (self.folder / doc.file).unlink(missing_ok=True)
        return doc

    # ---------------------------------------------------------- passages
    def passages(self) -> builtins.list[Passage]:
        out: builtins.list[Passage] = []
        for doc in self.list():
            path = self.folder / doc.file
            if not path.exists():
                continue  # copy deleted by hand; `index list` still shows the entry
            text = path.read_text(encoding="utf-8")
            out.extend(
                parse_user_document(text, doc.id, doc.name, f"user_docs/{doc.file}", markdown=doc.format == "markdown")
            )
        return out
