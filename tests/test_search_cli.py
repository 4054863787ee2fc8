"""`gpu-advisor search` and `gpu-advisor index …` through the real entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_inprocess import run_cli_inprocess

try:  # run from the project root (python -m pytest) or with tests/ on the path
    from tests import retrieval_cases as cases
except ImportError:  # pragma: no cover
    import retrieval_cases as cases

ROOT = Path(__file__).resolve().parent.parent
HIT_FIELDS = {"doc_id", "title", "section", "text", "score", "source", "low_relevance"}


@pytest.fixture()
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GPU_ADVISOR_GUIDE_DIR", str(cases.write_corpus(tmp_path / "guide")))
    monkeypatch.delenv("GPU_ADVISOR_EMBED_URL", raising=False)
    from tools.search_guide import reset_retrievers

    reset_retrievers()
    yield tmp_path
    reset_retrievers()


run = run_cli_inprocess


def test_search_json_contract(env, capsys):
    code, out, _ = run(capsys, "search", "两台8卡服务器用什么网络", "--k", "3", "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["language"] == "zh" and payload["low_relevance"] is False
    assert 1 <= len(payload["hits"]) <= 3
    first = payload["hits"][0]
    assert HIT_FIELDS <= set(first) and first["doc_id"] == "cluster-networking"
    assert first["title"] == {"zh": "集群网络怎么选", "en": "Choosing the cluster network"}
    assert first["section"] == "带宽档位 / Bandwidth tiers" and "100G" in first["text"]
    assert first["source"] == "knowledge/guide/cluster-networking.md"


def test_search_readable_output_and_not_in_sources(env, capsys):
    code, out, _ = run(capsys, "search", "nvidia-smi 看不到卡了", "--k", "2")
    assert code == 0 and "掉卡怎么办" in out and "dropped-gpu" in out
    code, out, _ = run(capsys, "search", "recipe", "for", "dumplings")
    assert code == 0 and out.startswith("Not in my sources")
    code, out, _ = run(capsys, "search", "今天天气怎么样")
    assert code == 0 and out.startswith("资料里没有找到相关内容")


@pytest.mark.parametrize(
    "args",
    [
        ["search", "   "],
        ["search", "显存", "--k", "0"],
        ["index", "remove", "no-such-doc"],
        ["index", "add", "missing.md"],
    ],
)
def test_bad_input_exits_2_with_bilingual_message(env, capsys, args):
    code, _, err = run(capsys, *args)
    assert code == 2 and err.startswith("错误 / Error:") and "Traceback" not in err


def test_unsupported_file_type_is_refused(env, capsys):
    pdf = env / "quote.pdf"
    pdf.write_bytes(b"%PDF-1.7\n")
    code, _, err = run(capsys, "index", "add", str(pdf))
    assert code == 2 and "不支持的文件类型 .pdf" in err and "Unsupported file type .pdf" in err


@pytest.mark.slow
def test_index_add_list_remove_across_processes(env):
    """Each command is its own process: what `index add` stores must survive to the next one."""
    sheet = env / "济南报价.md"
    sheet.write_text("# 济南某机房报价\n\nL20 48GB 单卡包月 3456 元，不含公网带宽。\n", encoding="utf-8")

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "assistant.cli", *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=dict(os.environ),
            timeout=60,
        )

    added = cli("index", "add", str(sheet), "--json")
    assert added.returncode == 0, added.stderr
    doc_id = json.loads(added.stdout)["added"][0]["id"]
    assert doc_id.startswith("u-") and json.loads(added.stdout)["added"][0]["passages"] == 1
    sheet.unlink()  # the stored copy is what counts
    found = cli("search", "济南 L20 包月多少钱", "--json", "--k", "3")
    hit = json.loads(found.stdout)["hits"][0]
    assert hit["doc_id"] == doc_id and "3456" in hit["text"] and hit["kind"] == "user"
    listed = cli("index", "list", "--json")
    assert [d["id"] for d in json.loads(listed.stdout)["docs"]] == [doc_id]
    removed = cli("index", "remove", doc_id)
    assert removed.returncode == 0 and doc_id in removed.stdout
    after = cli("search", "济南 L20 包月多少钱", "--json", "--k", "5")
    assert all(h["doc_id"] != doc_id for h in json.loads(after.stdout)["hits"])
    assert json.loads(cli("index", "list", "--json").stdout)["docs"] == []


def test_index_rebuild(env, capsys):
    code, out, _ = run(capsys, "index", "rebuild", "--json")
    assert code == 0 and json.loads(out)["passages"] == 6 and json.loads(out)["backend"] == "embedded"
