"""Result models of a guide search (pydantic only, cheap to import)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Title(BaseModel):
    """A document title in both languages (a user document has the same text in both)."""

    zh: str
    en: str


class Hit(BaseModel):
    """One retrieved passage. Cite it as `doc_id` § `section` (`source`)."""

    doc_id: str = Field(description="guide document id (e.g. 'delivery-acceptance') or user document id ('u-…')")
    title: Title = Field(description="document title, Chinese and English")
    section: str = Field(description="section heading the passage comes from")
    text: str = Field(
        description="passage text; for a Chinese query the Chinese paragraphs of the "
        "section, for an English query the English ones (whole section if one side is missing)"
    )
    score: float = Field(
        description="fused rank score in 0–1 (reciprocal rank fusion of vector + BM25 + "
        "title match, divided by its maximum; 1.0 for a passage that repeats the "
        "query nearly word for word); compares hits of one query only"
    )
    relevance: float = Field(
        description="share (0–1) of the query's words found in this passage, domain words "
        "weighted up (see tools/retrieval/relevance.py); absolute, unlike score"
    )
    low_relevance: bool = Field(
        description="true when the passage shares no domain word with the query or "
        "relevance < 0.34: say the sources do not cover it instead of "
        "answering from this passage"
    )
    mismatch: Literal["", "subject", "unnamed", "generic"] = Field(
        "",
        description="why the passage may not be about this question (tools/retrieval/subjects.py): 'subject' = "
        "its declared subject (front matter `about:`) is not in the question, or its heading names a GPU, "
        "model or engine while the question names another one (also low_relevance); 'unnamed' = its heading "
        "names things the question does not mention; 'generic' = it shares only words most passages use "
        "(显存, GPU, 训练). Such hits come after the ones without a mismatch; do not lead with them",
    )
    source: str = Field(description="file the passage comes from, e.g. knowledge/guide/<id>.md or user_docs/<file>")
    kind: Literal["guide", "user"] = Field(
        description="'guide' = our reviewed corpus, 'user' = a document the user added"
    )
    origin: Literal["guide", "user"] = Field(
        "guide",
        description="who wrote it: 'user' = the user's own material (not reviewed, never the guide; a tool's "
        "figures take precedence over its claims); 'guide' = the reviewed guide",
    )
    note: str = Field("", description="for user documents: how to present it (the user's own material)")
    citations: list[str] = Field(
        default_factory=list, description="the document's own sources (papers, datasheets, docs)"
    )
    as_of: str = Field(default="", description="date the document's facts were checked (ISO)")
    see_also: list[str] = Field(
        default_factory=list,
        description="ids of other guide documents this passage points to (search them for details)",
    )


class SearchResult(BaseModel):
    """Hits for one query, best first: relevant hits by score, then any low-relevance ones by score."""

    query: str
    language: Literal["zh", "en"] = Field(
        description="language detected in the query; decides which paragraphs `text` shows"
    )
    hits: list[Hit]
    low_relevance: bool = Field(description="true when no hit is relevant: answer 'not in my sources'")
    backend: str = Field(description="'embedded' (local Chroma folder) or 'server' (Chroma at CHROMA_URL)")
    embedding: str = Field(description="embedding used for the vector half, e.g. 'hash1024' (offline default)")
    messages: list[str] = Field(default_factory=list, description="notices such as 'store was rebuilt'")
