"""The same retrieval behaviour against a real `chroma run` server on loopback (CHROMA_URL mode)."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

try:  # run from the project root (python -m pytest) or with tests/ on the path
    from tests import retrieval_cases as cases
except ImportError:  # pragma: no cover
    import retrieval_cases as cases

pytestmark = pytest.mark.server


def _chroma_binary() -> str:
    local = Path(sys.executable).parent / "chroma"
    found = str(local) if local.exists() else shutil.which("chroma")
    if not found:
        pytest.skip("the `chroma` CLI (ships with chromadb) is not installed")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory):
    port = _free_port()
    data = tmp_path_factory.mktemp("chroma-server")
    log = open(data / "server.log", "wb")
    proc = subprocess.Popen(
        [_chroma_binary(), "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(data / "db")],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1) as resp:
                if resp.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"chroma run did not start: {(data / 'server.log').read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)
    yield url
    os.killpg(proc.pid, signal.SIGTERM)  # the process group we started, nothing else
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)
    log.close()


@pytest.fixture()
def make(chroma_url, tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GPU_ADVISOR_EMBED_URL", raising=False)

    def _make(guide: Path, home: Path):
        from tools.retrieval.search import Retriever
        from tools.retrieval.user_docs import UserDocs

        # one collection per test home: tests share the server but not each other's data
        name = "t_" + hashlib.blake2b(str(home).encode(), digest_size=6).hexdigest()
        return Retriever(
            guide_dir=guide, chroma_url=chroma_url, user_docs=UserDocs(home / "user_docs"), collection_name=name
        )

    return _make


def test_server_chinese_and_english_queries(make, tmp_path):
    cases.case_chinese_and_english_queries(make, tmp_path)


def test_server_off_topic_low_relevance(make, tmp_path):
    cases.case_off_topic_is_low_relevance(make, tmp_path)


def test_server_rebuild_only_when_corpus_changes(make, tmp_path):
    cases.case_rebuild_only_when_corpus_changes(make, tmp_path)


def test_server_user_docs_persist(make, tmp_path):
    cases.case_user_docs_persist(make, tmp_path)


def test_server_backend_is_reported_and_nothing_written_locally(make, tmp_path):
    r = make(cases.write_corpus(tmp_path / "guide"), tmp_path / "home")
    result = r.search("两台8卡服务器用什么网络", k=2)
    assert result.backend == "server" and result.hits[0].doc_id == "cluster-networking"
    assert not (tmp_path / "home" / "chroma").exists()


def test_cli_search_with_chroma_url(chroma_url, tmp_path):
    env = {
        **os.environ,
        "GPU_ADVISOR_HOME": str(tmp_path / "home"),
        "GPU_ADVISOR_GUIDE_DIR": str(cases.write_corpus(tmp_path / "guide")),
    }
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "assistant.cli",
            "search",
            "掉卡了怎么办",
            "--json",
            "--k",
            "2",
            "--chroma-url",
            chroma_url,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    import json

    payload = json.loads(out.stdout)
    assert payload["backend"] == "server" and payload["hits"][0]["doc_id"] == "dropped-gpu"


def test_unreachable_server_is_a_bilingual_error(tmp_path):
    from tools.errors import ToolInputError
    from tools.retrieval.store import http_client

    with pytest.raises(ToolInputError) as info:
        http_client(f"http://127.0.0.1:{_free_port()}")
    assert "Chroma" in info.value.zh and "Cannot reach" in info.value.en
