"""`gpu-advisor diagnose`: JSON contract, several files in order, bad input → exit 2 bilingual, no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tools.registry import run_tool

SAMPLES = Path(__file__).parent / "diagnosis_samples"
CLI = [sys.executable, "-m", "assistant.cli"]
KEYS = {"kinds", "inventory", "xids", "severity", "findings", "next_action"}


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, timeout=60)


def test_json_one_object_per_file_in_order(tmp_path: Path) -> None:
    files = [SAMPLES / "dmesg_xid13_app_error.txt", SAMPLES / "smi_535_8xa100_idle.txt", SAMPLES / "lspci_rev_ff.txt"]
    out = run("diagnose", "--json", *map(str, files))
    assert out.returncode == 0, out.stderr.decode()
    rows = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert len(rows) == 3
    assert [r["severity"] for r in rows] == ["warning", "ok", "critical"]
    assert [r["file"] for r in rows] == [str(f) for f in files]
    for r in rows:
        assert KEYS <= set(r)
        assert set(r["inventory"]) >= {"gpus", "driver_version", "cuda_version"}
        for f in r["findings"]:
            assert {"id", "severity", "title", "evidence", "causes", "actions"} <= set(f)
            assert set(f["title"]) == {"zh", "en"}
    x = rows[0]["xids"][0]
    assert (x["code"], x["bus_id"], x["count"]) == (13, "0000:4c:00", 3)
    g = rows[1]["inventory"]["gpus"][0]
    assert (g["index"], g["name"], g["memory_total_mib"], g["bus_id"]) == (
        0,
        "NVIDIA A100-SXM4-80GB",
        81920,
        "0000:07:00",
    )


def test_stdin_and_human_table() -> None:
    text = (SAMPLES / "mixed_zh_crlf_ansi_smi_xid79.txt").read_bytes()
    out = run("diagnose", "-", stdin=text)
    assert out.returncode == 0
    s = out.stdout.decode()
    assert "下一步 / next" in s and "Xid 79" in s


def test_bad_inputs_exit_2_bilingual_without_traceback(tmp_path: Path) -> None:
    binary = tmp_path / "bug.gz"
    binary.write_bytes(bytes(range(256)) * 50)
    for args in (
        ["diagnose", str(tmp_path / "missing.txt")],
        ["diagnose", str(binary)],
        ["diagnose", "--expect", "", str(SAMPLES / "smi_no_devices.txt")],
    ):
        out = run(*args)
        err = out.stderr.decode()
        assert out.returncode == 2, args
        assert "错误 / Error" in err and "Traceback" not in err


def test_several_files_with_one_bad_keep_order_and_exit_2(tmp_path: Path) -> None:
    binary = tmp_path / "x.bin"
    binary.write_bytes(b"\x00\x01\x02\x03" * 3000)
    out = run(
        "diagnose", "--json", str(SAMPLES / "smi_no_devices.txt"), str(binary), str(SAMPLES / "nvcc_not_found.txt")
    )
    rows = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert out.returncode == 2 and len(rows) == 3
    assert "error" in rows[1] and rows[1]["error"]["zh"] and rows[2]["severity"] == "info"


def test_rich_markup_in_a_paste_is_printed_not_interpreted(tmp_path: Path) -> None:
    p = tmp_path / "markup.txt"
    p.write_text(
        "NVRM: Xid (PCI:0000:07:00): 79, pid=1, name=[bold red]x[/], GPU has fallen off the bus. [/]\n",
        encoding="utf-8",
    )
    out = run("diagnose", str(p))
    assert out.returncode == 0 and "Traceback" not in out.stderr.decode()
    s = out.stdout.decode()
    assert "[bold" in s and "red]x[/]" in s  # interpreted markup would have vanished


def test_registry_tools() -> None:
    r = run_tool("diagnose_logs", {"text": (SAMPLES / "dmesg_xid63_remap_event.txt").read_text(encoding="utf-8")})
    assert r["severity"] == "warning" and r["xids"][0]["code"] == 63
    bad = run_tool("diagnose_logs", {"text": "x" * 2_000_001})
    assert "error" in bad and bad["error"]["zh"]
    c = run_tool("delivery_checklist", {"gpus": 4, "model": "H100 SXM"})
    assert c["expect"] == "4x H100 SXM" and "all_reduce_perf" in c["script"]


def test_huge_file_fails_fast_with_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "huge.log"
    big.write_bytes(b"NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=p, x\n" * 200_000)  # ~10 MB
    out = run("diagnose", str(big))
    err = out.stderr.decode()
    assert out.returncode == 2 and "2 MB" in err and "20,000" in err and "Traceback" not in err
