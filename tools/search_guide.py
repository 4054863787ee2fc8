"""`search_guide`: find the passages of the guidance corpus (and the user's documents) that
answer an advice question, with the citation to quote.

Plain API for the agent: `search(query, k=5) -> SearchResult`. Heavy modules (chromadb,
jieba) are imported on the first search, not when this module is imported.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

from tools.errors import ToolInputError
from tools.registry import ToolSpec
from tools.retrieval.models import Hit, SearchResult, Title

__all__ = [
    "search",
    "warm_up",
    "get_retriever",
    "reset_retrievers",
    "SearchGuideInput",
    "SearchResult",
    "Hit",
    "Title",
    "TOOLS",
]

MAX_QUERY_CHARS = 2000  # same limit as SearchGuideInput.query
_LOCK = threading.Lock()
_RETRIEVERS: dict[tuple, Any] = {}


def get_retriever(chroma_url: str | None = None, guide_dir: Path | None = None) -> Any:
    """One Retriever per (home, corpus folder, Chroma URL, embedding), reused across calls."""
    from tools.retrieval.paths import guide_dir as default_guide_dir
    from tools.retrieval.paths import home_dir

    url = chroma_url if chroma_url is not None else (os.environ.get("CHROMA_URL") or None)
    key = (
        str(home_dir()),
        str(guide_dir or default_guide_dir()),
        url,
        os.environ.get("GPU_ADVISOR_EMBED_URL"),
        os.environ.get("GPU_ADVISOR_EMBED_MODEL"),
    )
    with _LOCK:
        retriever = _RETRIEVERS.get(key)
        if retriever is None:
            from tools.retrieval.search import Retriever

            retriever = _RETRIEVERS[key] = Retriever(guide_dir=guide_dir, chroma_url=url)
        return retriever


def reset_retrievers() -> None:
    """Forget cached retrievers (tests switch GPU_ADVISOR_HOME between cases)."""
    with _LOCK:
        _RETRIEVERS.clear()


def warm_up(chroma_url: str | None = None) -> None:
    """Open or build the index now (imports chromadb/jieba, ~1 s), e.g. when the web page starts."""
    get_retriever(chroma_url).refresh()


def search(query: str, k: int = 5, chroma_url: str | None = None, doc_id: str | None = None) -> SearchResult:
    """Best `k` passages for `query`, best first; see `Hit` for the fields.

    If `result.low_relevance` is true, nothing in the sources answers the question: say so.
    """
    query = (query or "").strip()
    if not query:
        raise ToolInputError("查询不能为空", "The query must not be empty", field="query")
    if not 1 <= k <= 50:
        raise ToolInputError("k 必须在 1 到 50 之间", "k must be between 1 and 50", field="k")
    note = None
    if len(query) > MAX_QUERY_CHARS:
        # tokenising and scoring grow faster than linearly with the query; a question is never this long
        note = (
            f"查询太长（{len(query):,} 个字符），只用了前 {MAX_QUERY_CHARS:,} 个字符 / "
            f"The query is too long ({len(query):,} characters); only the first {MAX_QUERY_CHARS:,} were used"
        )
        query = query[:MAX_QUERY_CHARS]
    retriever = get_retriever(chroma_url)
    result = retriever.search(query, k) if doc_id is None else retriever.search(query, k, doc_id=doc_id)
    if note:
        result.messages.insert(0, note)
    return result


class SearchGuideInput(BaseModel):
    query: str = Field(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="the question or keywords, Chinese or English (e.g. 'GPU利用率低怎么排查', "
        "'what network for two 8-card servers')",
    )
    k: int = Field(default=4, ge=1, le=20, description="number of passages to return (1–20)")
    doc_id: str | None = Field(
        None,
        max_length=200,
        description="optional: search only this document's sections (an id from an earlier "
        "hit, e.g. 'zero-fsdp-offload') — every section competes, not just the "
        "best two of a document",
    )

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query must not be blank")
        return value


def _run(inp: SearchGuideInput) -> SearchResult:
    return search(inp.query, inp.k, doc_id=inp.doc_id)


TOOLS = [
    ToolSpec(
        name="search_guide",
        description=(
            "Search the reviewed guidance corpus on renting and running GPU servers (memory, cards, "
            "prices, networking, storage I/O, delivery checks, dropped GPUs, errors, LoRA, inference, "
            "Shandong data centres) plus documents the user added. Returns up to k passages, best first, "
            "each with doc_id, title {zh,en}, section, text (in the query's language), score (0–1, rank "
            "fusion, relative within one query), relevance (0–1 share of query words found), "
            "low_relevance, source (file) and citations. Cite passages as doc_id § section. If "
            "low_relevance is true for the result, the sources do not cover the question: say so, "
            "do not guess. Numbers for sizing and prices come from the other tools, not from here."
        ),
        input_model=SearchGuideInput,
        func=_run,
    )
]
