"""The delivery-acceptance script: valid bash, every seed step present, hostile input stays quoted."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tools.diagnosis.checklist import build_checklist
from tools.errors import ToolInputError

BASH = shutil.which("bash")
CLI = [sys.executable, "-m", "assistant.cli"]
HOSTILE = "A100\"; rm -rf / #$(reboot)`id`'\n echo pwned; ${HOME} \\"


@pytest.mark.skipif(BASH is None, reason="bash not installed")
@pytest.mark.parametrize("model", [None, "A100 80GB SXM", HOSTILE])
def test_script_is_valid_bash(model: str | None, tmp_path) -> None:
    script = tmp_path / "acc.sh"
    script.write_text(build_checklist(8, model).script, encoding="utf-8")
    assert subprocess.run([BASH, "-n", str(script)], capture_output=True).returncode == 0


@pytest.mark.skipif(BASH is None, reason="bash not installed")
def test_hostile_model_round_trips_as_data(tmp_path) -> None:
    out = build_checklist(2, HOSTILE, "out file;rm.txt")
    # run only the variable assignments and print them back: the text must survive unchanged
    assigns = _assignments(out.script)
    probe = assigns + '\nprintf "%s\\n--\\n%s\\n--\\n%s" "$EXPECT_MODEL" "$OUT" "$EXPECT"\n'
    res = subprocess.run([BASH, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0
    model, outfile, expect = res.stdout.split("\n--\n")
    assert model == HOSTILE and outfile == "out file;rm.txt" and expect == f"2x {HOSTILE}"
    assert not any(tmp_path.iterdir())  # nothing ran


def _assignments(script: str) -> str:
    """The top-level `NAME=...` assignments (a quoted value may span lines)."""
    start = script.index("OUT=")
    end = script.index("NCCL_TESTS_DIR=")
    return script[start:end]


def test_script_covers_the_seed_checklist() -> None:
    s = build_checklist(8, "A100 80GB SXM").script
    for needle in (
        "nvidia-smi\n",
        "nvidia-smi -q",
        "lspci | grep -i nvidia",
        "nvidia-smi topo -m",
        'all_reduce_perf" -b 8 -e 1G -f 2 -g "$EXPECT_GPUS"',
        "nvcc -V",
        "torch.cuda.is_available()",
        "iostat -x 1 3",
        'tee "$OUT"',
        "nvidia-smi -L",
        "dmesg -T",
    ):
        assert needle in s, needle
    assert "EXPECT_GPUS=8" in s


@pytest.mark.parametrize("gpus", [0, 65, -1])
def test_bad_counts(gpus: int) -> None:
    with pytest.raises(ToolInputError):
        build_checklist(gpus, "A100")


def test_cli_prints_script_and_rejects_bad_count() -> None:
    ok = subprocess.run(
        [*CLI, "checklist", "--gpus", "4", "--model", "H100 SXM"], capture_output=True, text=True, timeout=60
    )
    assert ok.returncode == 0 and ok.stdout.startswith("#!/usr/bin/env bash") and "EXPECT_GPUS=4" in ok.stdout
    js = subprocess.run([*CLI, "checklist", "--json", "--gpus", "2"], capture_output=True, text=True, timeout=60)
    data = json.loads(js.stdout)
    assert data["expect"] is None and len(data["steps"]) >= 10
    bad = subprocess.run([*CLI, "checklist", "--gpus", "0"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "错误 / Error" in bad.stderr and "Traceback" not in bad.stderr
