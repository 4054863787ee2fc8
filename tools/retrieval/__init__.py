"""Retrieval over the guidance corpus (`knowledge/guide/`) and the user's own documents.

Offline by default: hashed character n-gram vectors in Chroma, fused with BM25 over jieba
tokens and a title/tags ranker (reciprocal rank fusion). Nothing here imports chromadb or jieba
at import time; the heavy modules load inside the functions that need them. Chroma is the store
of record; an answer ranks against a plain-array copy of its vectors (vector_index) when the copy
matches the corpus, the embedder and the store on disk, so a warm offline `ask` imports neither
chromadb nor numpy (issue 16: cold `ask` ≤ 5× cold `estimate`).

Entry point for callers: `tools.search_guide.search(query, k=5) -> SearchResult`
(hits: doc_id, title {zh, en}, section, text, score, relevance, low_relevance, source, kind,
citations, as_of, see_also). The engine is `tools.retrieval.search.Retriever`.

Modules: corpus (parse/split), embedding (hash n-grams; optional /v1/embeddings; no chromadb),
chroma_embedding (the same embedders registered with Chroma, imported only when a store opens),
bm25 (jieba tokens, BM25 in plain Python), synonyms (query expansion), relevance (low-relevance
flag), store (Chroma embedded or server), vector_index (the plain-array copy), user_docs
(`gpu-advisor index …`), models (result types), paths (state folders).

Settings (environment):
  GPU_ADVISOR_HOME        state folder, default ~/.gpu_advisor: chroma/ (vector store),
                          chroma.vectors/ (its vectors as one file per collection; rebuilt
                          from the store whenever it does not match), user_docs/ (copies +
                          manifest.json), cache/ (jieba, token cache)
  CHROMA_URL              use a `chroma run` server instead of the embedded store
                          (same as `--chroma-url`)
  GPU_ADVISOR_EMBED_URL   OpenAI-compatible embeddings server (…/v1), e.g. bge-m3 served locally;
  GPU_ADVISOR_EMBED_MODEL model name (default bge-m3); GPU_ADVISOR_EMBED_API_KEY optional key
  GPU_ADVISOR_GUIDE_DIR   a different corpus folder (tests, a private corpus)
"""
