"""Batch-1 decode speed: tokens/s ≈ η_bw · BW / (weight bytes + KV bytes), η_bw 0.6–0.9 (memory-bound roofline, Williams et al., CACM 2009).

Expected values are worked by hand below from published configs and datasheets, not read off the code.
"""

from __future__ import annotations

import pytest

from tools.errors import ToolInputError
from tools.registry import run_tool


def test_llama3_8b_on_4090_hand_worked_band() -> None:
    # Llama-3-8B (meta-llama/Meta-Llama-3-8B config.json): 8.03e9 params → bf16 weights 16.06 GB;
    # KV per token = 2 (K,V) × 32 layers × 8 KV heads × 128 dims × 2 B = 131,072 B → 4096 tokens = 0.537 GB.
    # RTX 4090 datasheet bandwidth 1,008 GB/s.  0.6 × 1008 / 16.60 = 36.4 ; 0.9 × 1008 / 16.60 = 54.7 tokens/s.
    out = run_tool("decode_speed", {"model": "Llama-3-8B", "gpu": "4090"})
    assert out["weights_read_gb"] == pytest.approx(16.06, abs=0.05)
    assert out["kv_read_gb"] == pytest.approx(131072 * 4096 / 1e9, abs=0.005)
    assert out["mem_bw_gbs"] == 1008
    assert out["tokens_per_s_low"] == pytest.approx(0.6 * 1008 / 16.60, abs=0.3)
    assert out["tokens_per_s_high"] == pytest.approx(0.9 * 1008 / 16.60, abs=0.3)
    assert out["ms_per_token_low"] == pytest.approx(1000 / out["tokens_per_s_high"], abs=0.1)
    assert out["eta_low"] == 0.6 and out["eta_high"] == 0.9


def test_more_bandwidth_or_fewer_bytes_means_faster() -> None:
    a100 = run_tool("decode_speed", {"model": "Llama-3-8B", "gpu": "A100 80GB SXM"})  # 2,039 GB/s
    r4090 = run_tool("decode_speed", {"model": "Llama-3-8B", "gpu": "4090"})  # 1,008 GB/s
    assert a100["tokens_per_s_mid"] / r4090["tokens_per_s_mid"] == pytest.approx(2039 / 1008, rel=0.01)
    int4 = run_tool("decode_speed", {"model": "Llama-3-8B", "gpu": "4090", "precision": "int4"})
    assert int4["tokens_per_s_mid"] > 2.5 * r4090["tokens_per_s_mid"]  # ~4.5 bits vs 16 per weight
    longer = run_tool("decode_speed", {"model": "Llama-3-8B", "gpu": "4090", "context": 32768})
    assert longer["kv_read_gb"] == pytest.approx(131072 * 32768 / 1e9, abs=0.01)
    assert longer["tokens_per_s_mid"] < r4090["tokens_per_s_mid"]


def test_assumptions_say_batch_1_and_memory_bound() -> None:
    out = run_tool("decode_speed", {"model": "qwen2.5-7b", "gpu": "4090"})
    text = " ".join(a["en"] for a in out["assumptions"])
    assert "Batch 1" in text and "memory-bandwidth bound" in text and "60–90%" in text


def test_unknown_gpu_is_a_bilingual_error() -> None:
    err = run_tool("decode_speed", {"model": "Llama-3-8B", "gpu": "GTX 9999 Ultra"})["error"]
    assert err["zh"] and err["en"] and err["field"] == "gpu"
    from tools.memory_decode import DecodeSpeedInput, decode_speed

    with pytest.raises(ToolInputError):
        decode_speed(DecodeSpeedInput(model="Llama-3-8B", gpu="GTX 9999 Ultra"))
