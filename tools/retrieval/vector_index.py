"""A plain-array copy of the vector store's passage vectors, so an offline answer needs no chromadb.

Why: importing chromadb and opening its PersistentClient cost about 0.9 s of a cold
`gpu-advisor ask` (issue 16), while the corpus is a few hundred passages — one matrix product.
Chroma stays the store of record (`index add`, `--chroma-url`, rebuilds); after it has synced, its
stored vectors are copied into one `.npz` file beside the store, and later processes rank against
that copy directly.

The copy is used only when its key matches exactly: the corpus content hash (passage ids embed
their text, the chunker version and the collection name), the embedder's identity (name and
configuration), and the store's fingerprint (sqlite file inode and size, segment files' names and
sizes — a store damaged, deleted or rebuilt since no longer matches, so the next answer goes
through Chroma, which detects and rebuilds it as before). Anything else — missing, stale, damaged,
unreadable — is a miss, never an error, and the caller falls back to Chroma.

Ranking is exact cosine similarity over every passage (Chroma's HNSW is approximate, but at this
size with its default search depth it returns the same neighbours; tests compare the two).
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

FORMAT = 1  # bump when the file layout changes
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class VectorIndex:
    """Passage ids and their L2-normalised vectors, one row each."""

    ids: tuple[str, ...]
    matrix: np.ndarray  # (len(ids), dim) float32

    @classmethod
    def build(cls, ids: Sequence[str], vectors: Any) -> "VectorIndex":
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(ids):
            raise ValueError(f"expected {len(ids)} vectors, got shape {matrix.shape}")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        unit = (matrix / np.where(norms == 0.0, 1.0, norms)).astype(np.float32, copy=False)
        return cls(tuple(ids), unit)

    def query(self, vector: Any, n: int) -> list[tuple[str, float]]:
        """[(passage id, cosine similarity)], best first (ties in stored order) — what
        `VectorStore.query` returns."""
        if n <= 0 or not self.ids:
            return []
        q = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        sims = self.matrix @ (q / norm if norm else q)
        n = min(n, len(self.ids))
        order = np.argsort(-sims, kind="stable")[:n]
        return [(self.ids[i], float(sims[i])) for i in order]


def save(path: Path, index: VectorIndex, key: dict[str, Any]) -> None:
    """Write atomically (temp file + rename): two processes may write the same copy at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    try:
        with open(tmp, "wb") as fh:
            np.savez(
                fh,
                key=np.array(json.dumps({**key, "format": FORMAT}, sort_keys=True)),
                ids=np.array(index.ids, dtype=str),
                matrix=index.matrix,
            )
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def load(path: Path, key: dict[str, Any]) -> VectorIndex | None:
    """The copy at `path` if it was written for exactly `key`, else None (missing, stale or damaged)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            stored = json.loads(str(data["key"]))
            if stored != {**key, "format": FORMAT}:
                return None
            ids = tuple(str(i) for i in data["ids"])
            matrix = np.asarray(data["matrix"], dtype=np.float32)
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 — a truncated or foreign file is a miss, not an error
        log.info("vector copy %s unreadable (%s); using the store", path, exc)
        return None
    if matrix.ndim != 2 or matrix.shape[0] != len(ids) or not np.isfinite(matrix).all():
        return None
    return VectorIndex(ids, matrix)
