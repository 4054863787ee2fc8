"""Retrieval over the guidance corpus (`knowledge/guide/`) and the user's own documents.

Offline by default: hashed character n-gram vectors in Chroma, fused with BM25 over jieba
tokens (reciprocal rank fusion). Nothing here imports chromadb or jieba at import time;
the heavy modules are imported inside the functions that need them.

Public entry point for callers: `tools.search_guide.search(query, k)`; the engine is
`tools.retrieval.search.Retriever`.
"""
