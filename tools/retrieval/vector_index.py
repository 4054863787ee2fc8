"""A plain-array copy of the vector store's passage vectors, so an offline answer needs no chromadb.

Why: importing chromadb and opening its PersistentClient cost about 0.9 s of a cold
`gpu-advisor ask` (issue 16), while the corpus is a few hundred passages — one matrix product.
Chroma stays the store of record (`index add`, `--chroma-url`, rebuilds); after it has synced, its
stored vectors are copied into one file beside the store, and later processes rank against that
copy directly — without numpy either (its import is another 0.1–0.3 s): the file is a JSON header
line and raw little-endian float32 columns, read with `array`, and a query (a few dozen non-zero
buckets, `embedding.sparse_hash_embed`) touches only its own columns.

The copy is used only when its key matches exactly: the corpus content hash (passage ids embed
their text, the chunker version and the collection name), the embedder's identity (name and
configuration), and the store's fingerprint (sqlite file inode and size, segment files' names and
sizes — a store damaged, deleted or rebuilt since no longer matches, so the next answer goes
through Chroma, which detects and rebuilds it as before). Anything else — missing, stale, damaged,
unreadable — is a miss, never an error, and the caller falls back to Chroma.

Ranking is exact cosine similarity over every passage, summed in float64 (Chroma's HNSW is
approximate and sums in float32, but at this size with its default search depth it returns the same
neighbours in the same order; tests compare the two on the fixture and the real corpus).
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

FORMAT = 2  # bump when the file layout changes
MAGIC = b"gpu-advisor-vectors"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class VectorIndex:
    """Passage ids and their L2-normalised float32 vectors, stored column by column
    (`columns[d * n + j]` = dimension d of passage j) so a sparse query reads only its columns."""

    ids: tuple[str, ...]
    dim: int
    columns: array  # typecode "f", len(ids) * dim

    @classmethod
    def build(cls, ids: Sequence[str], vectors: Any) -> "VectorIndex":
        """From the store's vectors (rows); numpy is already loaded on that path (Chroma uses it)."""
        import numpy as np

        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(ids):
            raise ValueError(f"expected {len(ids)} vectors, got shape {matrix.shape}")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        unit = (matrix / np.where(norms == 0.0, 1.0, norms)).astype(np.float32)
        columns = array("f")
        columns.frombytes(np.ascontiguousarray(unit.T).tobytes())
        return cls(tuple(ids), int(matrix.shape[1]), columns)

    def query(self, vector: Mapping[int, float] | Sequence[float], n: int) -> list[tuple[str, float]]:
        """[(passage id, cosine similarity)], best first (ties in stored order) — what
        `VectorStore.query` returns. `vector` is dense, or sparse as {dimension: value}."""
        size = len(self.ids)
        if n <= 0 or not size:
            return []
        items = vector.items() if isinstance(vector, Mapping) else enumerate(vector)
        sparse = {int(d): float(v) for d, v in items if v}
        norm = math.sqrt(sum(v * v for v in sparse.values())) or 1.0
        scores = [0.0] * size
        for d, v in sparse.items():
            if 0 <= d < self.dim:
                w = v / norm
                column = self.columns[d * size : (d + 1) * size]
                scores = [s + w * c for s, c in zip(scores, column, strict=True)]
        order = sorted(range(size), key=lambda j: -scores[j])[:n]  # sorted() is stable: ties keep stored order
        return [(self.ids[j], scores[j]) for j in order]


def save(path: Path, index: VectorIndex, key: dict[str, Any]) -> None:
    """Write atomically (temp file + rename): two processes may write the same copy at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {"key": {**key, "format": FORMAT}, "ids": list(index.ids), "dim": index.dim}
    data = index.columns
    if sys.byteorder != "little":  # pragma: no cover - big-endian hosts
        data = array("f", data)
        data.byteswap()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(MAGIC + b" " + json.dumps(header, ensure_ascii=False).encode("utf-8") + b"\n")
            fh.write(data.tobytes())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def load(path: Path, key: dict[str, Any]) -> VectorIndex | None:
    """The copy at `path` if it was written for exactly `key`, else None (missing, stale or damaged)."""
    try:
        raw = path.read_bytes()
        head, sep, body = raw.partition(b"\n")
        if not sep or not head.startswith(MAGIC + b" "):
            return None
        header = json.loads(head[len(MAGIC) + 1 :].decode("utf-8"))
        if header.get("key") != {**key, "format": FORMAT}:
            return None
        ids, dim = tuple(str(i) for i in header["ids"]), int(header["dim"])
        if dim <= 0 or len(body) != 4 * dim * len(ids):
            return None
        columns = array("f")
        columns.frombytes(body)
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 — a truncated or foreign file is a miss, not an error
        log.info("vector copy %s unreadable (%s); using the store", path, exc)
        return None
    if sys.byteorder != "little":  # pragma: no cover
        columns.byteswap()
    if not math.isfinite(sum(columns)):  # unit vectors: the sum is bounded unless a value is NaN/inf
        return None
    return VectorIndex(ids, dim, columns)
