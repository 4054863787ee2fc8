"""The embedders as registered Chroma embedding functions; imported only when a Chroma store opens.

A persisted collection records its embedding function by `name()` and `get_config()`, and Chroma
rebuilds it from its registry (`@register_embedding_function`) when the collection is reopened.
The twins below keep the names the embedders always had (`gpu_advisor_hash_ngram`,
`gpu_advisor_openai_compat`), so stores built before embedding.py stopped importing chromadb open
unchanged. Their vectors are the plain classes' own: only Chroma's protocol is added.
"""

from __future__ import annotations

from typing import Any

from chromadb.api.types import Documents, EmbeddingFunction
from chromadb.utils.embedding_functions import register_embedding_function

from tools.retrieval.embedding import DEFAULT_DIM, HashNgramEmbedding, OpenAICompatibleEmbedding


@register_embedding_function
class ChromaHashNgramEmbedding(HashNgramEmbedding, EmbeddingFunction[Documents]):  # type: ignore[misc]
    """HashNgramEmbedding as Chroma sees it."""

    def __init__(self, dim: int = DEFAULT_DIM) -> None:
        HashNgramEmbedding.__init__(self, dim)


@register_embedding_function
class ChromaOpenAICompatibleEmbedding(OpenAICompatibleEmbedding, EmbeddingFunction[Documents]):  # type: ignore[misc]
    """OpenAICompatibleEmbedding as Chroma sees it."""

    def __init__(self, url: str, model: str = "bge-m3", timeout_s: float = 60.0) -> None:
        OpenAICompatibleEmbedding.__init__(self, url, model, timeout_s)


def for_chroma(embedding: Any) -> Any:
    """The registered twin of one of our embedders (same configuration); anything else as given
    (a caller's own Chroma embedding function)."""
    if isinstance(embedding, (ChromaHashNgramEmbedding, ChromaOpenAICompatibleEmbedding)):
        return embedding
    if isinstance(embedding, HashNgramEmbedding):
        return ChromaHashNgramEmbedding(dim=embedding.dim)
    if isinstance(embedding, OpenAICompatibleEmbedding):
        return ChromaOpenAICompatibleEmbedding(embedding.url, embedding.model, embedding.timeout_s)
    return embedding
