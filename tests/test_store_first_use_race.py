"""Several processes building the embedded vector store at once on a fresh machine.

Why: without an inter-process lock the second process opened the half-migrated sqlite file, took it
for broken ("no such table: migrations") and moved it aside under the first — a panic for one user
and a rebuilt store for the other. Seen running the eval slices in parallel on a new checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = "from tools.search_guide import search\nr = search('vLLM 显存占用太高', 2)\nprint('HITS', len(r.hits))\n"


@pytest.mark.slow
def test_parallel_first_use_builds_one_store(tmp_path: Path) -> None:
    env = {**os.environ, "GPU_ADVISOR_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(6)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err.decode()[-2000:]
        assert b"HITS 2" in out, out.decode()
        assert b"Panic" not in err, err.decode()[-2000:]
    assert not list(tmp_path.glob("chroma.broken-*")), "a store was moved aside as broken"
