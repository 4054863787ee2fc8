"""Deterministic tools: pure functions from pydantic inputs to pydantic outputs.

Every number GPU Advisor states comes from one of these tools or from a cited passage of
`knowledge/`. Modules here must not import heavy libraries (torch, langchain, gradio,
chromadb) at import time, so that `gpu-advisor estimate …` starts fast.
"""
