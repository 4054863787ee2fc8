"""Where retrieval keeps its state: `$GPU_ADVISOR_HOME` (default `~/.gpu_advisor`)."""

from __future__ import annotations

import os
from pathlib import Path

GUIDE_DIR = Path(__file__).resolve().parent.parent.parent / "knowledge" / "guide"


def guide_dir() -> Path:
    """The guidance corpus; `GPU_ADVISOR_GUIDE_DIR` points elsewhere (tests, a private corpus)."""
    raw = os.environ.get("GPU_ADVISOR_GUIDE_DIR")
    return Path(raw).expanduser() if raw else GUIDE_DIR


def home_path() -> Path:
    """The per-user state folder's path (not created)."""
    return Path(os.environ.get("GPU_ADVISOR_HOME") or "~/.gpu_advisor").expanduser()


def home_dir() -> Path:
    """The per-user state folder; created on first use."""
    path = home_path()
    path.mkdir(parents=True, exist_ok=True)
    return path


def chroma_dir() -> Path:
    return home_dir() / "chroma"


def user_docs_dir() -> Path:
    path = home_dir() / "user_docs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """jieba's dictionary cache and our token cache live here (never in /tmp)."""
    path = home_dir() / "cache"
    path.mkdir(parents=True, exist_ok=True)
    return path


def chroma_url_from_env() -> str | None:
    return os.environ.get("CHROMA_URL") or None
