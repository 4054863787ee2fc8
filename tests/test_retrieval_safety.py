"""Issue 18 item 6: `index add` under concurrency and hostile paths; store and manifest faults.

Each case is one the pre-release probe hit: two adds at once lost a document and four crashed on a
shared temp file; a link in an added folder made a secret file searchable; /dev/zero and FIFOs were
read before the size check; `index add ""` added the current folder; a corrupt manifest silently
disabled retrieval; a store damaged while the page served broke every chat until a restart.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import retrieval_cases as cases  # noqa: E402

from tests.scaling import HANG_GUARD_S, call_with_hang_guard  # noqa: E402
from tools.errors import ToolInputError  # noqa: E402
from tools.retrieval.user_docs import MAX_DOC_CHARS, UserDocs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


_ADD_SCRIPT = """
import sys
from pathlib import Path
from tools.retrieval.user_docs import UserDocs
folder, files = Path(sys.argv[1]), sys.argv[2:]
for f in files:
    UserDocs(folder).add([f])
"""


def test_concurrent_adds_lose_nothing_and_never_crash(tmp_path):
    """4 processes × 3 documents each, at the same time, into one folder: all 12 are in the manifest."""
    folder = tmp_path / "user_docs"
    folder.mkdir()
    groups = []
    for w in range(4):
        files = []
        for i in range(3):
            path = tmp_path / f"note-{w}-{i}.md"
            path.write_text(f"# 笔记 {w}-{i}\n\n机房 {w} 号机柜第 {i} 台服务器的维护记录。\n", encoding="utf-8")
            files.append(str(path))
        groups.append(files)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _ADD_SCRIPT, str(folder), *files], cwd=ROOT, env=env, stderr=subprocess.PIPE
        )
        for files in groups
    ]
    errors = [p.communicate(timeout=HANG_GUARD_S)[1].decode() for p in procs]  # a hang guard (lock), not a speed target
    assert all(p.returncode == 0 for p in procs), errors
    docs = UserDocs(folder).list()
    assert sorted(d.name for d in docs) == sorted(Path(f).name for g in groups for f in g)
    assert not list(folder.glob("*.tmp")), "temp files left behind"
    assert all((folder / d.file).exists() for d in docs)


def test_links_out_of_an_added_folder_are_not_followed(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root password: hunter2\n", encoding="utf-8")
    added = tmp_path / "docs"
    (added / "sub").mkdir(parents=True)
    (added / "runbook.md").write_text("# 运维手册\n\n先检查 nvidia-smi。\n", encoding="utf-8")
    (added / "leak.txt").symlink_to(secret)
    (added / "sub" / "outside").symlink_to(tmp_path, target_is_directory=True)
    (added / "inside.md").symlink_to(added / "runbook.md")  # a link within the folder is fine
    store = UserDocs(tmp_path / "user_docs")
    docs = store.add([added])
    names = sorted(d.name for d in docs)
    assert "leak.txt" not in names and "secret.txt" not in names
    texts = " ".join((store.folder / d.file).read_text(encoding="utf-8") for d in store.list())
    assert "hunter2" not in texts


def _refused_unread(monkeypatch, store: UserDocs, target) -> ToolInputError:
    """Add `target`; it must be refused before one byte of it is read (no wall clock: a read of
    /dev/zero, a FIFO or a 30 GB file is the bug, however fast this machine is). Refusing happens
    in the caller's thread; a blocking open or read would hang, so the call runs under a hang guard."""
    import builtins
    import io

    def no_read(*a, **k):
        raise AssertionError(f"{target!r} was opened for reading before it was refused")

    for owner, name in ((os, "fdopen"), (builtins, "open"), (io, "open"), (Path, "read_bytes"), (Path, "read_text")):
        monkeypatch.setattr(owner, name, no_read)

    def add():
        with pytest.raises(ToolInputError) as info:
            store.add([target])
        return info.value

    return call_with_hang_guard(add)


@pytest.mark.parametrize("target", ["", "  ", "/dev/zero", "/dev/null"])
def test_special_and_empty_paths_are_refused_before_reading(tmp_path, monkeypatch, target):
    err = _refused_unread(monkeypatch, UserDocs(tmp_path / "user_docs"), target)
    assert err.zh and err.en


def test_fifo_is_refused_without_blocking(tmp_path, monkeypatch):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    err = _refused_unread(monkeypatch, UserDocs(tmp_path / "user_docs"), fifo)
    assert "regular file" in err.en


def test_size_cap_is_applied_before_reading(tmp_path, monkeypatch):
    sparse = tmp_path / "huge.txt"
    with open(sparse, "wb") as fh:
        fh.truncate(30_000_000_000)  # 30 GB sparse: reading it would take minutes and all memory
    err = _refused_unread(monkeypatch, UserDocs(tmp_path / "user_docs"), sparse)
    assert "too large" in err.en


def test_one_huge_document_is_refused_not_indexed(tmp_path):
    big = tmp_path / "dump.txt"
    big.write_text(("GPU 0 正常，温度 45C，功耗 300W。\n" * (MAX_DOC_CHARS // 20 + 10)), encoding="utf-8")
    with pytest.raises(ToolInputError) as info:
        UserDocs(tmp_path / "user_docs").add([big])
    assert "split" in info.value.en and "拆" in info.value.zh


def test_cli_index_add_empty_path(home):
    from tests.test_fuzz_cli import invoke

    code, _out, err = invoke(["index", "add", ""])
    assert code == 2 and "empty" in err and "空" in err


def test_corrupt_manifest_is_rebuilt_from_the_stored_copies(home, tmp_path):
    guide = cases.write_corpus(tmp_path / "guide")
    note = tmp_path / "price-sheet.md"
    note.write_text("# 报价单\n\n济南机房 4090 整机包月 9800 元，含 2TB 盘。\n", encoding="utf-8")
    store = UserDocs(home / "user_docs")
    doc = store.add([note])[0]
    (home / "user_docs" / "manifest.json").write_text("{not json", encoding="utf-8")
    result = cases.make_embedded(guide, home).search("济南机房 4090 包月", k=3)
    assert result.hits and result.hits[0].doc_id == doc.id, [h.doc_id for h in result.hits]
    assert any("rebuilt" in m and "manifest" in m for m in result.messages)
    assert list((home / "user_docs").glob("manifest.broken-*.json")), "the damaged manifest is kept aside"
    assert json.loads((home / "user_docs" / "manifest.json").read_text(encoding="utf-8"))["docs"][0]["id"] == doc.id


def test_a_serving_retriever_survives_store_damage_and_a_cli_rebuild(home, tmp_path):
    """The page's retriever keeps answering when the store is damaged under it, and reopens the one
    `gpu-advisor index rebuild` (another process) put in its place."""
    from chromadb.api.client import SharedSystemClient

    guide = cases.write_corpus(tmp_path / "guide")
    note = tmp_path / "notes.md"
    note.write_text("# 内部笔记\n\n济南机房 B 区的 4090 服务器每周二凌晨维护。\n", encoding="utf-8")
    doc = UserDocs(home / "user_docs").add([note])[0]
    page = cases.make_embedded(guide, home)
    assert page.search("济南机房 4090 维护时间", k=3).hits[0].doc_id == doc.id
    # damage: the whole store folder disappears under the running page
    import shutil

    shutil.rmtree(home / "chroma")
    SharedSystemClient.clear_system_cache()
    result = page.search("济南机房 4090 维护时间", k=3)
    assert result.hits and result.hits[0].doc_id == doc.id
    # the CLI rebuilds in another process; the page picks the new store up
    env = {**os.environ, "GPU_ADVISOR_HOME": str(home), "GPU_ADVISOR_GUIDE_DIR": str(guide)}
    proc = subprocess.run(
        [sys.executable, "-m", "assistant.cli", "index", "rebuild", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,  # a hang guard for a fresh process (index rebuild), not a speed target
    )
    assert proc.returncode == 0, proc.stderr
    again = page.search("济南机房 4090 维护时间", k=3)
    assert again.hits and again.hits[0].doc_id == doc.id
