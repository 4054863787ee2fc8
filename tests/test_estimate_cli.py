"""`gpu-advisor estimate` and `gpu-advisor models`: the CLI contract other parts and the evals rely on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from assistant.cli import cli

ROOT = Path(__file__).resolve().parent.parent
KEYS = {
    "params",
    "weights_gb",
    "gradients_gb",
    "optimizer_gb",
    "model_states_gb",
    "activations_gb",
    "kv_cache_gb",
    "overhead_gb",
    "total_gb",
    "total_gib",
    "assumptions",
    "sources",
}


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _json(*args: str) -> dict:
    res = _run(*args, "--json")
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_json_contract_params_7b_full():
    out = _json("estimate", "--params", "7B", "--mode", "full")
    assert KEYS <= set(out)
    assert out["params"] == 7_000_000_000
    # ZeRO paper accounting: 16 B/param mixed-precision AdamW → 112 GB of model states for 7B
    assert out["model_states_gb"] == pytest.approx(112.0)
    assert out["weights_gb"] + out["gradients_gb"] + out["optimizer_gb"] == pytest.approx(
        out["model_states_gb"], abs=0.01
    )
    assert out["total_gib"] == pytest.approx(out["total_gb"] * 1e9 / 2**30, abs=0.01)
    assert out["seed_rule"]["model_states_gb"] == pytest.approx(56.0)
    assert all(a["zh"] and a["en"] for a in out["assumptions"])


def test_gpu_size_verdict():
    out = _json("estimate", "--params", "7B", "--mode", "full", "--gpu", "24GB")
    assert out["fits"] is False and out["headroom_gb"] < 0 and out["gpu_memory_gb"] == 24
    out = _json("estimate", "--model", "qwen2.5 7b", "--mode", "qlora", "--gpu", "24GB")
    assert out["fits"] is True and out["headroom_gb"] > 0


def test_all_options_parse():
    out = _json(
        "estimate",
        "-m",
        "Llama-3-8B",
        "--mode",
        "full",
        "--precision",
        "bf16",
        "--optimizer",
        "adamw_8bit",
        "--gpus",
        "8",
        "--zero",
        "2",
        "--offload",
        "--seq-len",
        "4096",
        "--batch",
        "2",
        "--checkpointing",
        "selective",
        "--gpu",
        "80G",
    )
    assert out["gpus"] == 8 and out["zero_stage"] == 2 and out["host_ram_gb"] > 0 and out["optimizer_gb"] == 0
    out = _json("estimate", "-m", "Llama-3-8B", "--gpus", "8", "--fsdp")
    assert out["zero_stage"] == 3
    out = _json("estimate", "-m", "Qwen2.5-7B", "--mode", "lora", "--lora-rank", "16", "--lora-targets", "q,v")
    # r=16 on q (3584→3584) and v (3584→512) over 28 layers: 28·16·((3584+3584)+(3584+512)) = 5,046,272
    assert out["trainable_params"] == 5_046_272
    out = _json(
        "estimate",
        "-m",
        "Llama-3-8B",
        "--mode",
        "inference",
        "--context",
        "8192",
        "--concurrency",
        "4",
        "--kv-dtype",
        "fp8",
    )
    # 2·32·8·128 values × 1 byte × 8192 tokens × 4 sequences
    assert out["kv_cache_gb"] == pytest.approx(65_536 * 8192 * 4 / 1e9, abs=6e-4)


def test_readable_table_for_people():
    res = _run("estimate", "--params", "7B", "--mode", "full", "--gpu", "24GB")
    assert res.exit_code == 0
    for text in ("权重", "Weights", "GiB", "合计", "放不下", "does not fit", "假设"):
        assert text in res.output


@pytest.mark.parametrize(
    "args",
    [
        ["estimate", "--model", "nosuchmodel-xyz"],
        ["estimate", "--params", "-3"],
        ["estimate", "--params", "7B", "--zero", "7"],
        ["estimate", "--params", "7B", "--mode", "full", "--precision", "int4"],
        ["estimate"],
        ["estimate", "--params", "7B", "--gpus", "0"],
        ["estimate", "--params", "7B", "--gpu", "NoSuchCard 9000"],
    ],
)
def test_bad_input_exit_2_bilingual_no_traceback(args):
    proc = subprocess.run(
        [sys.executable, "-m", "assistant.cli", *args, "--json"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "错误" in proc.stderr and "Error" in proc.stderr


def test_models_list_and_lookup():
    listing = _json("models")
    assert listing["count"] >= 40
    one = _json("models", "deepseek r1")
    assert one["name"] == "DeepSeek-R1" and one["is_moe"] and one["is_mla"]
    assert one["active_params"] / 1e9 == pytest.approx(37, rel=0.02)  # model card: 37B activated
    res = _run("models", "llama3 8b")
    assert res.exit_code == 0 and "8,030,261,248" in res.output


def test_estimate_imports_nothing_heavy():
    code = (
        "import sys; from assistant.cli import main; sys.argv=['gpu-advisor','estimate','--params','7B','--json'];\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy=[m for m in ('torch','langchain','langchain_core','gradio','chromadb','transformers','numpy') if m in sys.modules]\n"
        "print('HEAVY', heavy, file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "HEAVY []" in proc.stderr, proc.stderr


def test_json_adds_capacity_verdict_changes_engine() -> None:
    d = _json("estimate", "-m", "qwen2.5-7b", "--mode", "inference", "--context", "65536", "--concurrency", "4",
              "--gpu", "4090")  # fmt: skip
    assert KEYS <= set(d) and {"fits", "usable_gb", "gpu_memory_gb", "headroom_gb", "borderline"} <= set(d)
    assert d["gpu_memory_gb"] == d["nominal_gb"] == 24
    assert d["reported_gb"] == pytest.approx(24564 * 2**20 / 1e9, abs=1e-3)  # nvidia-smi 24564 MiB
    assert d["usable_gb"] == pytest.approx(0.9 * d["reported_gb"], abs=2e-3)
    assert d["engine"] == "vllm" and d["verdict"] == "fits_with_changes" and d["fits"] is False
    assert d["changes"] and {"kind", "value", "total_gb", "label"} <= set(d["changes"][0])
    assert set(d["max_context_fit"]) == {"hf", "vllm", "sglang"}


def test_new_flags_engine_loss_adapter_mem_fraction() -> None:
    d = _json("estimate", "-m", "Llama-3-8B", "--mode", "lora", "--seq-len", "4096", "--loss", "fused",
              "--adapter-dtype", "bf16")  # fmt: skip
    assert d["loss"] == "fused" and d["logits_gb"] == pytest.approx(4096 * 128256 * 0.5 / 1e9, abs=1e-3)
    s = _json("estimate", "-m", "qwen2.5-7b", "--mode", "inference", "--engine", "sglang", "--mem-fraction", "0.8",
              "--gpu", "A100 80GB")  # fmt: skip
    assert s["engine"] == "sglang" and s["usable_gb"] == pytest.approx(0.8 * 81920 * 2**20 / 1e9, abs=2e-3)
    from tools.errors import ToolInputError

    with pytest.raises(ToolInputError) as err:  # the CLI entry point prints it in zh + en
        _run("estimate", "-m", "qwen2.5-7b", "--mode", "inference", "--engine", "deepspeed")
    assert "推理" in err.value.zh and "inference" in err.value.en


def test_human_view_shows_the_three_capacities_and_the_changes() -> None:
    res = _run("estimate", "-m", "qwen2.5-7b", "--mode", "inference", "--context", "65536", "--concurrency", "4",
               "--gpu", "4090")  # fmt: skip
    assert res.exit_code == 0
    assert "nominal 24 GB" in res.output and "reported 25.76 GB (24,564 MiB)" in res.output
    assert "usable 23.18 GB" in res.output and "→" in res.output
