"""CLI contract for `gpus`, `price`, `train-time` and `plan`: JSON keys, values from data, bilingual exit-2 errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from assistant.cli import cli
from assistant.commands._common import run_cli


def call(capsys, *args: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    """Run the CLI in-process (same path as the console script) and capture its output."""
    code = 0
    try:
        run_cli(cli, list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_gpus_json_contract(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = call(capsys, "gpus", "NVIDIA A100-SXM4-80GB", "4090", "--json")
    assert code == 0
    data = json.loads(out)
    keys = {
        "name",
        "memory_gb",
        "mem_bw_gbs",
        "bf16_dense_tflops",
        "fp8_dense_tflops",
        "nvlink_gbs",
        "pcie_gen",
        "tdp_w",
        "source",
        "as_of",
    }
    a100, r4090 = data["gpus"]
    assert keys <= set(a100) and keys <= set(r4090)
    # datasheets: A100 SXM 80GB 2,039 GB/s, 312 BF16, no FP8, NVLink 600; 4090 1,008 GB/s, 165.2, FP8 330.3, PCIe 4
    assert (a100["mem_bw_gbs"], a100["bf16_dense_tflops"], a100["fp8_dense_tflops"], a100["nvlink_gbs"]) == (
        2039,
        312,
        None,
        600,
    )
    assert (r4090["mem_bw_gbs"], r4090["bf16_dense_tflops"], r4090["pcie_gen"], r4090["tdp_w"]) == (1008, 165.2, 4, 450)
    assert data["comparison"] and data["seed_notes"]


def test_gpus_lists_the_whole_table(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = call(capsys, "gpus", "--json")
    assert code == 0 and len(json.loads(out)["gpus"]) >= 28


def test_price_json_contract(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = call(capsys, "price", "4090", "--hours", "10", "--count", "2", "--json")
    assert code == 0
    d = json.loads(out)
    for key in ("hourly_cny", "monthly_cny", "total_cny"):
        assert set(d[key]) >= {"low", "typical", "high"}
    assert d["total_cny"]["typical"] == pytest.approx(10 * 2 * 2.1)  # §3.4 typical ¥1.9–2.3 → 2.1
    assert d["as_of"] and d["source"] and d["advice"]
    assert "confirm with the provider" in d["warning"]


def test_price_user_quote_flag(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = call(capsys, "price", "H800", "--days", "2", "--hourly", "9", "--json")
    d = json.loads(out)
    assert code == 0 and d["total_cny"]["typical"] == 9 * 48


def test_train_time_json(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = call(
        capsys,
        "train-time",
        "--params",
        "175",
        "--tokens",
        "300B",
        "--gpu",
        "A100 80G",
        "--gpus",
        "1024",
        "--mode",
        "pretrain",
        "--json",
    )
    assert code == 0
    d = json.loads(out)
    assert d["flops"] == pytest.approx(3.14e23, rel=0.005)  # GPT-3
    assert d["days"]["low"] < d["days"]["mid"] < d["days"]["high"]


def test_plan_json_contract(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = call(
        capsys,
        "plan",
        "--model",
        "qwen2.5-7b",
        "--mode",
        "full",
        "--tokens",
        "1B",
        "--deadline",
        "7d",
        "--budget",
        "50000",
        "--json",
    )
    assert code == 0
    d = json.loads(out)
    assert d["options"]
    for o in d["options"]:
        assert {"gpu", "count", "nodes", "interconnect", "fits", "per_gpu_gb", "days", "cost_cny", "notes"} <= set(o)
        assert set(o["days"]) == {"low", "mid", "high"} and set(o["cost_cny"]) == {"low", "mid", "high"}
        assert o["fits"] is True and o["cost_cny"]["mid"] <= 50000 and o["days"]["mid"] <= 7


def test_human_tables_render(capsys) -> None:  # type: ignore[no-untyped-def]
    for args in (
        ["gpus", "4090", "H100"],
        ["price", "A100 80G", "--months", "1"],
        ["train-time", "--params", "7", "--tokens", "1B", "--gpu", "4090"],
        ["plan", "--model", "7B", "--mode", "lora", "--tokens", "100M", "--gpu", "4090"],
    ):
        code, out, err = call(capsys, *args)
        assert code == 0, (args, err)
        assert out.strip()


@pytest.mark.parametrize(
    "args",
    [
        ["gpus", "RTX 9999"],
        ["price", "4090", "--hours", "3", "--days", "1"],
        ["price", "not-a-card"],
        ["train-time", "--gpu", "4090", "--tokens", "1B"],
        ["plan", "--model", "qwen2.5-7b", "--deadline", "someday"],
        ["plan", "--model", "qwen2.5-7b", "--budget", "100 USD"],
    ],
)
def test_bad_input_exits_2_bilingual(capsys, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    code, _, err = call(capsys, *args)
    assert code == 2
    assert "错误 / Error" in err and "Traceback" not in err


def test_console_script_path_exits_2() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "assistant.cli", "gpus", "RTX 9999"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2 and "错误 / Error" in out.stderr and "Traceback" not in out.stderr


def test_gpus_cli_shows_driver_total_and_no_seed_wording(capsys) -> None:
    from tests.cli_inprocess import run_cli_inprocess

    code, out, _ = run_cli_inprocess(capsys, "gpus", "4090 48G")
    assert code == 0
    assert "49140" in out and "51.527" in out  # nvidia-smi MiB and MiB × 2^20 / 1e9
    assert "warranty" in out and "保修" in out
    code, out, _ = run_cli_inprocess(capsys, "gpus", "a100", "4090")
    assert code == 0 and "seed" not in out.lower() and "种子" not in out
