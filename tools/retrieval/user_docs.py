"""The user's own documents (a provider's price sheet, an internal runbook, notes).

`gpu-advisor index add PATH…` copies each file's text into `$GPU_ADVISOR_HOME/user_docs/`
and records it in `manifest.json`, so the documents survive restarts and do not depend on the
original file staying put; the vector store is only an index and can always be rebuilt from
here. Markdown and plain text are accepted (`.md .markdown .txt .text .rst .log .csv .tsv`);
text is decoded as UTF-8, falling back to GB18030 (common for Chinese files from Windows).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable

from tools.errors import ToolInputError
from tools.retrieval.corpus import Passage, parse_user_document
from tools.retrieval.paths import user_docs_dir
from tools.textcodec import decode_text

MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdown"}
TEXT_SUFFIXES = {".txt", ".text", ".rst", ".log", ".csv", ".tsv"}
SUPPORTED = MARKDOWN_SUFFIXES | TEXT_SUFFIXES
MAX_BYTES = 20_000_000  # 20 MB of text is far beyond a runbook; refuse rather than hang


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

    # ---------------------------------------------------------- manifest
    def list(self) -> list[UserDoc]:
        if not self.manifest_path.exists():
            return []
        try:
            raw = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ToolInputError(
                f"用户文档清单 {self.manifest_path} 已损坏：{exc}",
                f"The user-document manifest {self.manifest_path} is damaged: {exc}",
            ) from exc
        return [UserDoc(**entry) for entry in raw.get("docs", [])]

    def _write(self, docs: Iterable[UserDoc]) -> None:
        payload = {"version": 1, "docs": [asdict(d) for d in docs]}
        tmp = self.manifest_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(payload, ensure_ascii=False, indent=2), encoding="utf-8")
        os.replace(tmp, self.manifest_path)

    def fingerprint(self) -> tuple[int, int]:
        """Cheap change detector (mtime, size) of the manifest."""
        try:
            st = self.manifest_path.stat()
            return st.st_mtime_ns, st.st_size
        except FileNotFoundError:
            return 0, 0

    # ---------------------------------------------------------- add / remove
    @staticmethod
    def expand(paths: Iterable[str | Path]) -> list[Path]:
        """Files to add: each path, or every supported file under a folder."""
        files: list[Path] = []
        for raw in paths:
            path = Path(raw).expanduser()
            if not path.exists():
                raise ToolInputError(f"找不到文件 {raw}", f"File not found: {raw}", field="path")
            if path.is_dir():
                found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED)
                if not found:
                    raise ToolInputError(
                        f"文件夹 {raw} 里没有 Markdown 或文本文件",
                        f"No Markdown or text files in folder {raw}",
                        field="path",
                    )
                files.extend(found)
            elif path.suffix.lower() not in SUPPORTED:
                raise ToolInputError(
                    f"不支持的文件类型 {path.suffix or '（无扩展名）'}：{raw}。支持 {' '.join(sorted(SUPPORTED))}",
                    f"Unsupported file type {path.suffix or '(none)'}: {raw}. Supported: {' '.join(sorted(SUPPORTED))}",
                    field="path",
                )
            else:
                files.append(path)
        return files

    def add(self, paths: Iterable[str | Path]) -> list[UserDoc]:
        """Copy each file in and record it; re-adding a path replaces its previous copy."""
        files = self.expand(paths)
        docs = self.list()
        added: list[UserDoc] = []
        for path in files:
            data = path.read_bytes()
            if len(data) > MAX_BYTES:
                raise ToolInputError(
                    f"{path.name} 太大（{len(data) / 1e6:.0f} MB，上限 20 MB）",
                    f"{path.name} is too large ({len(data) / 1e6:.0f} MB, limit 20 MB)",
                    field="path",
                )
            text = _decode(data, path.name)
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
            (self.folder / stored).write_text(text, encoding="utf-8")
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

    def remove_path_or_id(self, key: str) -> list[UserDoc]:
        """What `index remove` does: a folder that was added removes every document added from
        under it; anything else is one document (see `resolve`)."""
        try:
            folder = Path(key).expanduser().resolve()
        except (OSError, RuntimeError, ValueError):
            folder = None
        if folder is not None and folder.is_dir():
            under = [d for d in self.list() if Path(d.original_path).is_relative_to(folder)]
            if under:
                gone = {d.id for d in under}
                self._write([d for d in self.list() if d.id not in gone])
                for d in under:
                    (self.folder / d.file).unlink(missing_ok=True)
                return under
        return [self.remove(key)]

    def remove(self, key: str) -> UserDoc:
        doc = self.resolve(key)
        self._write([d for d in self.list() if d.id != doc.id])
        (self.folder / doc.file).unlink(missing_ok=True)
        return doc

    # ---------------------------------------------------------- passages
    def passages(self) -> list[Passage]:
        out: list[Passage] = []
        for doc in self.list():
            path = self.folder / doc.file
            if not path.exists():
                continue  # copy deleted by hand; `index list` still shows the entry
            text = path.read_text(encoding="utf-8")
            out.extend(
                parse_user_document(text, doc.id, doc.name, f"user_docs/{doc.file}", markdown=doc.format == "markdown")
            )
        return out
