"""The CLI's contract that every sub-command relies on: bilingual errors, exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tools.errors import ToolInputError
from tools.lang import detect_language
from tools.units import GB, GiB, gb_to_gib

CLI = [sys.executable, "-m", "assistant.cli"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60)


def test_help_is_bilingual() -> None:
    out = run("--help")
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    assert "算力顾问" in text and "offline by default" in text


def test_unknown_command_exits_2_with_both_languages_and_no_traceback() -> None:
    out = run("no-such-command")
    assert out.returncode == 2
    assert "错误 / Error" in out.stderr
    assert "Traceback" not in out.stderr


def test_units_are_decimal_and_binary() -> None:
    # 80 GB (datasheet, decimal) is 74.5 GiB (what nvidia-smi's MiB figures add up to).
    assert GB == 1_000_000_000 and GiB == 1_073_741_824
    assert gb_to_gib(80) == pytest.approx(74.506, abs=1e-3)


def test_language_detection() -> None:
    assert detect_language("能用4090全量训练7B吗") == "zh"
    assert detect_language("how many A100s for a 70B full fine-tune?") == "en"
    assert detect_language("") == "en"


def test_tool_input_error_carries_both_languages() -> None:
    err = ToolInputError("未知模型", "unknown model", suggestions=["Qwen2.5-7B"])
    assert "未知模型" in err.bilingual() and "unknown model" in err.bilingual()
    assert err.to_dict()["error"]["suggestions"] == ["Qwen2.5-7B"]


def test_ci_script_calls_the_readme_test_command() -> None:
    root = Path(__file__).resolve().parent.parent
    readme_head = (root / "README.md").read_text(encoding="utf-8").split("\n\n", 3)[:3]
    assert any("make test" in block for block in readme_head)
    assert "make test" in (root / ".ci" / "run").read_text(encoding="utf-8")


def test_pasted_bytes_decode_utf8_bom_and_gbk() -> None:
    from tools.textcodec import decode_text

    assert decode_text("显存".encode("utf-8")) == "显存"
    assert decode_text("\ufeff显存".encode("utf-8")) == "显存"  # BOM dropped
    assert decode_text("掉卡了".encode("gbk")) == "掉卡了"  # Chinese Windows terminals
    assert decode_text(b"\xff\xfe\xfa") != ""  # never raises
