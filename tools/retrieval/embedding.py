"""Embeddings that work offline and understand Chinese, plus an optional HTTP embedder.

Default: hashed character n-grams ("feature hashing", Weinberger et al., ICML 2009).
Chinese has no spaces, so runs of CJK ideographs become overlapping 1/2/3-grams; Latin text
becomes whole words plus character 3-grams (so "utilisation" still meets "utilization" and a
typo such as "nvida-smi" keeps most of its 3-grams). Each feature is hashed with blake2b —
never Python's `hash()`, which is salted per process and would make vectors differ between
runs — into a signed bucket, and the vector is L2-normalised so cosine = dot product.

Optional: any OpenAI-compatible `/v1/embeddings` endpoint (e.g. bge-m3 served locally by
vLLM, llama.cpp or text-embeddings-inference) when `GPU_ADVISOR_EMBED_URL` is set. Nothing is
ever downloaded: Chroma's default MiniLM embedding is never used (it fetches a model and fails
offline: chromadb.utils.embedding_functions.DefaultEmbeddingFunction downloads all-MiniLM-L6-v2 on first use).

Both are plain classes here, so hashing a query never imports chromadb (about 0.6 s of a cold
`gpu-advisor ask`). Their registered Chroma twins live in `chroma_embedding.py`, imported only
when a Chroma store is opened; they keep the names `name()` returns, so a persisted collection
still records which embedder built it and stores built before the split open unchanged.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import unicodedata
import urllib.error
import urllib.request
from functools import lru_cache
from typing import Any, Iterable, Sequence

from tools.errors import ToolInputError

Documents = Sequence[str]
Embeddings = list[Any]  # numpy float32 vectors (numpy is imported only where vectors are built)
Space = str  # Chroma's distance names: "cosine", "ip", "l2"

DEFAULT_DIM = 1024

_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_LATIN_WORD = re.compile(r"[a-z0-9]+(?:[.+][a-z0-9]+)*")
# weights: single ideographs are ambiguous (卡 = card, stuck, ...), bigrams carry most meaning
_W_CJK = {1: 0.4, 2: 1.0, 3: 0.8}
_W_WORD = 1.0
_W_CHAR3 = 0.5


def normalise(text: str) -> str:
    """NFKC (full-width → half-width: ＧＰＵ → GPU, ８０ＧＢ → 80GB) and lower case."""
    return unicodedata.normalize("NFKC", text or "").lower()


def features(text: str) -> Iterable[tuple[str, float]]:
    """(feature, weight) pairs for one text; deterministic and language-agnostic."""
    text = normalise(text)
    for run in _CJK_RUN.findall(text):
        for n, weight in _W_CJK.items():
            for i in range(len(run) - n + 1):
                yield "c:" + run[i : i + n], weight
    for word in _LATIN_WORD.findall(text):
        yield "w:" + word, _W_WORD
        padded = f"#{word}#"
        if len(padded) > 4:
            for i in range(len(padded) - 2):
                yield "3:" + padded[i : i + 3], _W_CHAR3


@lru_cache(maxsize=262_144)  # n-grams repeat a lot across passages; hashing dominates embed time
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    h = int.from_bytes(digest, "little")
    return h % dim, (1.0 if (h >> 63) & 1 else -1.0)


def bucket_weights(text: str, dim: int = DEFAULT_DIM) -> dict[int, float]:
    """Bucket → signed, sublinear weight (1 + ln tf above 1), before normalising: the one definition
    the dense vector (stored in Chroma) and the sparse query vector (vector_index.py) share."""
    counts: dict[str, float] = {}
    for feat, weight in features(text):
        counts[feat] = counts.get(feat, 0.0) + weight
    out: dict[int, float] = {}
    for feat, weight in counts.items():
        idx, sign = _bucket(feat, dim)
        out[idx] = out.get(idx, 0.0) + (sign * (1.0 + math.log(weight)) if weight > 1.0 else sign * weight)
    return out


def hash_embed(text: str, dim: int = DEFAULT_DIM) -> Any:
    """One L2-normalised float32 numpy vector; identical across processes and machines."""
    import numpy as np

    vec = np.zeros(dim, dtype=np.float32)
    for idx, weight in bucket_weights(text, dim).items():
        vec[idx] = weight
    norm = float(np.linalg.norm(vec))
    if norm == 0.0:  # empty or punctuation-only text: a fixed unit vector, not NaN
        vec[0] = 1.0
        return vec
    return vec / norm


def sparse_hash_embed(text: str, dim: int = DEFAULT_DIM) -> dict[int, float]:
    """The same unit vector as `hash_embed`, as {bucket: value} of its non-zero entries (float64),
    without numpy: a query has a few dozen features, so ranking needs only those columns."""
    weights = {i: w for i, w in bucket_weights(text, dim).items() if w != 0.0}
    norm = math.sqrt(sum(w * w for w in weights.values()))
    if norm == 0.0:
        return {0: 1.0}
    return {i: w / norm for i, w in weights.items()}


class HashNgramEmbedding:
    """Hashed character n-grams, no model, no download (Chroma's twin: chroma_embedding.py)."""

    def __init__(self, dim: int = DEFAULT_DIM) -> None:
        self.dim = int(dim)

    def __call__(self, input: Documents) -> Embeddings:  # noqa: A002 - Chroma requires `input`
        return [hash_embed(doc, self.dim) for doc in input]

    def sparse_query(self, text: str) -> dict[int, float]:
        """The query's unit vector as {index: value}, without numpy (vector_index.VectorIndex.query)."""
        return sparse_hash_embed(text, self.dim)

    @staticmethod
    def name() -> str:
        return "gpu_advisor_hash_ngram"

    def get_config(self) -> dict[str, Any]:
        return {"dim": self.dim}

    @classmethod
    def build_from_config(cls, config: dict[str, Any]) -> "HashNgramEmbedding":
        return cls(dim=int(config.get("dim", DEFAULT_DIM)))

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "ip", "l2"]

    def key(self) -> str:
        """Short identity used in collection names (a different embedder = a different collection)."""
        return f"hash{self.dim}"

    def identity(self) -> str:
        """Everything that decides the vectors: the persisted vector copy is keyed on it."""
        return f"{self.name()}:dim={self.dim}"


def _endpoint(url: str) -> str:
    """The embeddings URL; only http(s) — never file: or a custom scheme (urllib would open those too)."""
    url = url.rstrip("/")
    if not url.lower().startswith(("http://", "https://")):
        raise ValueError(f"embedding endpoint must be http(s): {url!r}")
    if url.endswith("/embeddings"):
        return url
    if url.endswith("/v1"):
        return url + "/embeddings"
    return url + "/v1/embeddings"


class OpenAICompatibleEmbedding:
    """Embeddings from an OpenAI-compatible `/v1/embeddings` server (e.g. bge-m3 served locally).

    The API key (if any) is read from `GPU_ADVISOR_EMBED_API_KEY` at call time and is never
    stored in the collection configuration.
    """

    batch_size = 64

    def __init__(self, url: str, model: str = "bge-m3", timeout_s: float = 60.0) -> None:
        self.url = url
        self.model = model
        self.timeout_s = float(timeout_s)

    def __call__(self, input: Documents) -> Embeddings:  # noqa: A002
        out: list[Any] = []
        docs = list(input)
        for start in range(0, len(docs), self.batch_size):
            out.extend(self._request(docs[start : start + self.batch_size]))
        return out

    def _request(self, texts: Sequence[str]) -> list[Any]:
        import numpy as np

        body = json.dumps({"model": self.model, "input": list(texts)}).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        key = os.environ.get("GPU_ADVISOR_EMBED_API_KEY")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        try:
            req = urllib.request.Request(_endpoint(self.url), data=body, headers=headers, method="POST")  # noqa: S310
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:  # noqa: S310 -- scheme checked in _endpoint
                payload = json.loads(resp.read().decode("utf-8"))
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise ToolInputError(
                f"无法从嵌入服务 {self.url} 获取向量：{exc}。请检查 GPU_ADVISOR_EMBED_URL，或取消该设置以使用离线默认嵌入。",
                f"Could not get embeddings from {self.url}: {exc}. Check GPU_ADVISOR_EMBED_URL, "
                "or unset it to use the offline default embedding.",
                field="GPU_ADVISOR_EMBED_URL",
            ) from exc
        rows = sorted(payload.get("data", []), key=lambda r: r.get("index", 0))
        if len(rows) != len(texts):
            raise ToolInputError(
                f"嵌入服务返回了 {len(rows)} 个向量，期望 {len(texts)} 个",
                f"The embedding server returned {len(rows)} vectors, expected {len(texts)}",
                field="GPU_ADVISOR_EMBED_URL",
            )
        vectors = []
        for row in rows:
            vec = np.asarray(row["embedding"], dtype=np.float32)
            norm = float(np.linalg.norm(vec))
            vectors.append(vec / norm if norm else vec)
        return vectors

    @staticmethod
    def name() -> str:
        return "gpu_advisor_openai_compat"

    def get_config(self) -> dict[str, Any]:
        return {"url": self.url, "model": self.model}

    @classmethod
    def build_from_config(cls, config: dict[str, Any]) -> "OpenAICompatibleEmbedding":
        return cls(url=config["url"], model=config.get("model", "bge-m3"))

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "ip"]

    def identity(self) -> str:
        """What decides the vectors (server and model): the persisted vector copy is keyed on it."""
        return f"{self.name()}:{self.url}:{self.model}"

    def key(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.model.lower()).strip("-")[:40] or "model"
        return f"oa-{slug}"


def embedding_from_env() -> HashNgramEmbedding | OpenAICompatibleEmbedding:
    """The offline hash embedding unless `GPU_ADVISOR_EMBED_URL` names an embeddings server."""
    url = os.environ.get("GPU_ADVISOR_EMBED_URL")
    if url:
        return OpenAICompatibleEmbedding(url=url, model=os.environ.get("GPU_ADVISOR_EMBED_MODEL") or "bge-m3")
    return HashNgramEmbedding()
