"""Test-wide guards: no test may reach the internet (loopback only); no real LLM settings leak in."""

from __future__ import annotations

import os

import pytest

from tests import netguard

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
for _var in (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GPU_ADVISOR_BACKEND",
    "GPU_ADVISOR_MODEL",
    "CHROMA_URL",
    "GPU_ADVISOR_EMBED_URL",
    "GPU_ADVISOR_GUIDE_DIR",
):
    os.environ.pop(_var, None)
# Retrieval state (vector store, the user's added documents) goes to a throw-away folder: tests
# never read or write the developer's ~/.gpu_advisor.
import atexit  # noqa: E402 -- after the environment is cleaned above
import shutil  # noqa: E402
import tempfile  # noqa: E402

os.environ["GPU_ADVISOR_HOME"] = tempfile.mkdtemp(prefix="gpu-advisor-test-")
atexit.register(shutil.rmtree, os.environ["GPU_ADVISOR_HOME"], True)

InternetAccessBlocked = netguard.InternetAccessBlocked


@pytest.fixture(autouse=True, scope="session")
def _no_internet():
    netguard.install()
    yield
    netguard.uninstall()


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """A private GPU_ADVISOR_HOME (store, user documents, caches) with no embedding endpoint; the
    retriever singletons are dropped before and after so no test sees another's store."""
    monkeypatch.setenv("GPU_ADVISOR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GPU_ADVISOR_EMBED_URL", raising=False)
    from tools.search_guide import reset_retrievers

    reset_retrievers()
    yield tmp_path / "home"
    reset_retrievers()
