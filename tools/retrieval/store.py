"""The vector half: a Chroma collection holding one embedding per passage.

Embedded by default (`chromadb.PersistentClient` at `$GPU_ADVISOR_HOME/chroma`, telemetry
off); with `--chroma-url` / `CHROMA_URL` it talks to a `chroma run` server instead
(`chromadb.HttpClient`), which is how the store scales past one process or one machine.

The collection records the content hash of what it holds (`metadata.corpus_hash`). Opening it
with the same hash does nothing; a different hash adds only the passages whose ids (which
embed their content hash) are missing and deletes the stale ones. An embedded store that
cannot be opened (corrupt or from an incompatible version) is moved aside and rebuilt from
the corpus and the user's documents, which live outside it in `user_docs/`.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import urlparse

from tools.errors import ToolInputError
from tools.retrieval.corpus import Passage
from tools.retrieval.paths import chroma_dir

BATCH = 500


@dataclass
class SyncStats:
    """What `VectorStore.sync` did (tests and the CLI read it)."""

    changed: bool = False
    added: int = 0
    removed: int = 0
    seconds: float = 0.0
    messages: list[str] = field(default_factory=list)


def _settings() -> Any:
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False)


def http_client(url: str) -> Any:
    """A client for a `chroma run` server at `url` (http://host:port)."""
    import chromadb

    parsed = urlparse(url if "://" in url else f"http://{url}")
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ToolInputError(
            f"Chroma 地址无效：{url}（应为 http://主机:端口）",
            f"Invalid Chroma URL: {url} (expected http://host:port)",
            field="chroma_url",
        )
    port = parsed.port or (443 if parsed.scheme == "https" else 8000)
    try:
        client = chromadb.HttpClient(
            host=parsed.hostname, port=port, ssl=parsed.scheme == "https", settings=_settings()
        )
        client.heartbeat()
    except Exception as exc:  # connection refused, DNS, TLS …
        raise ToolInputError(
            f"连不上 Chroma 服务 {url}：{exc}", f"Cannot reach the Chroma server at {url}: {exc}", field="chroma_url"
        ) from exc
    return client


def persistent_client(path: Path) -> Any:
    import chromadb

    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(path), settings=_settings())


def _forget_cached_systems() -> None:
    """Chroma caches one system per path in-process; drop it before reopening a moved store."""
    try:
        from chromadb.api.client import SharedSystemClient

        SharedSystemClient.clear_system_cache()
    except Exception:  # noqa: S110 -- pragma: no cover; chromadb's internal API moved: nothing to clear
        pass


class VectorStore:
    """One Chroma collection per embedding function; ids are `Passage.passage_id`."""

    def __init__(
        self,
        embedding: Any,
        chroma_url: str | None = None,
        path: Path | None = None,
        collection_name: str | None = None,
    ) -> None:
        self.embedding = embedding
        self.chroma_url = chroma_url
        self.path = path or chroma_dir()
        self.backend = "server" if chroma_url else "embedded"
        self.collection_name = collection_name or f"gpu_advisor_{embedding.key()}"
        self._client: Any = None
        self._collection: Any = None
        self._identity: tuple[int, int] | None = None

    # -------------------------------------------------------------- opening
    def _open(self) -> Any:
        from tools.retrieval.chroma_embedding import for_chroma  # registers our embedders with Chroma

        client = http_client(self.chroma_url) if self.chroma_url else persistent_client(self.path)
        collection = client.get_or_create_collection(
            self.collection_name,
            embedding_function=for_chroma(self.embedding),
            configuration={"hnsw": {"space": "cosine"}},
        )
        collection.count()  # touch it: a broken store fails here, not at the first query
        self._client, self._collection = client, collection
        self._identity = self._file_identity()
        return collection

    def _file_identity(self) -> tuple[int, int] | None:
        """(device, inode) of the embedded store's sqlite file: changes when the CLI rebuilds the store."""
        if self.chroma_url:
            return None
        try:
            st = (self.path / "chroma.sqlite3").stat()
            return st.st_dev, st.st_ino
        except OSError:
            return (0, 0)

    def fingerprint(self) -> str | None:
        """What the embedded store looks like on disk without opening it: the sqlite file's inode,
        size and header, and each segment folder's file names and sizes. Chroma rewrites mtimes on
        every open, so they are left out; damage (garbage, truncation, a folder gone) and a rebuild
        change what is kept. None for a server, or a store that is missing or not sqlite."""
        if self.chroma_url:
            return None
        try:
            db = self.path / "chroma.sqlite3"
            st = db.stat()
            with open(db, "rb") as fh:
                if fh.read(16) != b"SQLite format 3\x00":
                    return None
            parts = [f"db:{st.st_ino}:{st.st_size}"]
            for sub in sorted(self.path.iterdir()):
                if sub.is_dir():
                    files = ",".join(f"{f.name}={f.stat().st_size}" for f in sorted(sub.iterdir()))
                    parts.append(f"{sub.name}:{files}")
            return "|".join(parts)
        except OSError:
            return None

    def process_lock(self) -> Any:
        """An inter-process lock for opening and filling the embedded store. Why: two processes that
        start at once on a fresh machine (the page and a CLI call, or parallel eval runs) would both
        create the sqlite file; the second reads it half-migrated, takes it for broken and moves it
        aside under the first. A server does its own locking."""
        if self.chroma_url:
            return contextlib.nullcontext()
        from filelock import FileLock

        self.path.parent.mkdir(parents=True, exist_ok=True)
        return FileLock(str(self.path.with_name(f"{self.path.name}.lock")))

    @property
    def vectors_path(self) -> Path:
        """Where the plain-array copy of this collection's vectors lives (beside the store)."""
        return self.path.with_name(f"{self.path.name}.vectors") / f"{self.collection_name}.vec"

    def embeddings(self, ids: Sequence[str]) -> Any:
        """The stored vectors of `ids`, in that order (float32 rows); raises if any is missing."""
        import numpy as np

        if not ids:
            return np.zeros((0, 1), dtype=np.float32)
        collection = self.collection()
        found: dict[str, Any] = {}
        for i in range(0, len(ids), 1000):
            got = collection.get(ids=list(ids[i : i + 1000]), include=["embeddings"])
            found.update(zip(got["ids"], got["embeddings"], strict=True))
        missing = [i for i in ids if i not in found]
        if missing:
            raise ValueError(f"{len(missing)} passages missing from the store, e.g. {missing[0]}")
        return np.asarray([found[i] for i in ids], dtype=np.float32).reshape(len(ids), -1)

    def reset(self) -> None:
        """Forget the open client, so the next use reopens the store from disk (a long-running page
        picks up a store that `gpu-advisor index rebuild` replaced, or recovers after damage)."""
        _forget_cached_systems()
        self._client = self._collection = None

    def _move_aside(self) -> Path:
        _forget_cached_systems()
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.name}.broken-{stamp}")
        if self.path.exists():
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
            self.path.rename(target)
        return target

    def collection(self, messages: list[str] | None = None) -> Any:
        """The collection, opening it (and recovering a broken embedded store) on first use."""
        if self._collection is not None:
            if self.chroma_url or self._file_identity() == self._identity:
                return self._collection
            self.reset()  # replaced or removed on disk since we opened it
        if not self.chroma_url and not (self.path / "chroma.sqlite3").exists() and messages is not None:
            messages.append(
                "向量库不存在，正在从指南和你的文档建立 / No vector store found; "
                "building it from the guide and your documents"
            )
        try:
            return self._open()
        except ToolInputError:
            raise
        except BaseException as exc:  # Rust-side panics are BaseException (pyo3 PanicException)
            if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
                raise
            self.recover(exc, messages)
            return self._open()

    def recover(self, exc: BaseException, messages: list[str] | None) -> None:
        """An embedded store that fails is moved aside (kept for inspection); a server error is reported."""
        if self.chroma_url:
            raise ToolInputError(
                f"Chroma 服务出错：{exc}", f"The Chroma server failed: {exc}", field="chroma_url"
            ) from exc
        self._client = self._collection = None
        moved = self._move_aside()
        note = (
            f"向量库无法使用（{type(exc).__name__}），已移到 {moved.name} 并从指南和你的文档重建 / "
            f"The vector store failed ({type(exc).__name__}); moved it to {moved.name} "
            "and rebuilt it from the guide and your documents"
        )
        if messages is not None:
            messages.append(note)

    def drop(self) -> None:
        """Delete the collection (used by `index rebuild`)."""
        collection = self.collection()
        try:
            self._client.delete_collection(collection.name)
        finally:
            self._collection = None

    # -------------------------------------------------------------- contents
    def _stored_ids(self, collection: Any) -> set[str]:
        ids: set[str] = set()
        offset = 0
        while True:
            batch = collection.get(include=[], limit=5000, offset=offset)["ids"]
            ids.update(batch)
            if len(batch) < 5000:
                return ids
            offset += len(batch)

    def sync(self, passages: Sequence[Passage], content_hash: str) -> SyncStats:
        """Make the collection hold exactly `passages`; a no-op when the hash is unchanged."""
        start = time.perf_counter()
        stats = SyncStats()
        collection = self.collection(stats.messages)
        meta = collection.metadata or {}
        if meta.get("corpus_hash") == content_hash and collection.count() == len(passages):
            stats.seconds = time.perf_counter() - start
            return stats
        wanted = {p.passage_id: p for p in passages}
        stored = self._stored_ids(collection)
        stale = sorted(stored - set(wanted))
        missing = [wanted[i] for i in wanted if i not in stored]
        for i in range(0, len(stale), BATCH):
            collection.delete(ids=stale[i : i + BATCH])
        for i in range(0, len(missing), BATCH):
            batch = missing[i : i + BATCH]
            texts = [p.index_text() for p in batch]
            collection.add(
                ids=[p.passage_id for p in batch],
                documents=texts,
                embeddings=self.embedding(texts),
                metadatas=[{"doc_id": p.doc_id, "kind": p.kind} for p in batch],
            )
        collection.modify(metadata={"corpus_hash": content_hash})
        stats.changed, stats.added, stats.removed = True, len(missing), len(stale)
        stats.seconds = time.perf_counter() - start
        return stats

    def query(self, text: str, n: int) -> list[tuple[str, float]]:
        """[(passage_id, cosine similarity)], best first."""
        collection = self.collection()
        count = collection.count()
        if count == 0 or n <= 0:
            return []
        vector = self.embedding([text])[0]
        result = collection.query(query_embeddings=[vector], n_results=min(n, count), include=["distances"])
        return [(pid, 1.0 - float(d)) for pid, d in zip(result["ids"][0], result["distances"][0], strict=True)]
