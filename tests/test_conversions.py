"""tools/conversions.py against hand-worked values.

Sources: SI / IEC 80000-13 prefixes (GB = 10^9 B, GiB = 2^30 = 1,073,741,824 B, MiB = 2^20 =
1,048,576 B); NVIDIA nccl-tests doc/PERFORMANCE.md (busbw = algbw × 2(n−1)/n for all-reduce,
(n−1)/n for all-gather / reduce-scatter, 1 for broadcast); the Llama 2 paper (Touvron et al. 2023,
Table 2: Llama-2-70B, 1,720,320 A100-80GB GPU-hours, 2T tokens) and the A100 datasheet (312 TFLOPS
dense BF16).
"""

from __future__ import annotations

import pytest

from tools.registry import all_tools, run_tool


def test_registered_with_units_in_descriptions():
    tools = all_tools()
    assert "GiB = 2^30" in tools["convert_units"].description
    assert "GB/s" in tools["busbw_from_algbw"].description
    assert "percent" in tools["implied_mfu"].description


@pytest.mark.parametrize(
    "value,src,dst,expected",
    [
        (80, "GB", "GiB", 74.50580596923828),  # 80e9 / 1,073,741,824
        (24564, "MiB", "GB", 25.757220864),  # 24,564 × 1,048,576 = 25,757,220,864 B (RTX 4090 in nvidia-smi)
        (81920, "MiB", "GB", 85.89934592),  # 81,920 × 1,048,576 = 85,899,345,920 B (= 80 GiB)
        (81920, "MiB", "GiB", 80.0),
        (1, "TiB", "TB", 1.099511627776),  # 2^40 / 10^12
        (2039, "GB/s", "TB/s", 2.039),  # A100 80GB SXM memory bandwidth
        (3.35, "TB/s", "GB/s", 3350.0),  # H100 SXM
        (24, "gib", "mb", 25769.803776),  # case-insensitive: 24 × 2^30 / 10^6
    ],
)
def test_convert_units(value, src, dst, expected):
    out = run_tool("convert_units", {"value": value, "from_unit": src, "to_unit": dst})
    assert out["result"] == pytest.approx(expected, rel=1e-12)


def test_convert_units_table_and_bytes():
    out = run_tool("convert_units", {"value": 80, "from_unit": "GB"})
    assert out["n_bytes"] == 80_000_000_000
    assert out["table"]["GiB"] == pytest.approx(74.506, abs=5e-4)
    assert out["table"]["MiB"] == pytest.approx(76293.9453125)  # 80e9 / 1,048,576
    assert "2^30" in out["explanation_en"] and "10^9" in out["explanation_zh"]


@pytest.mark.parametrize(
    "args",
    [
        {"value": 80, "from_unit": "GB", "to_unit": "GB/s"},  # size vs bandwidth
        {"value": 100, "from_unit": "Gbps", "to_unit": "GB/s"},  # bits: say so instead of a wrong factor of 8
        {"value": 1, "from_unit": "furlong", "to_unit": "GB"},
        {"value": -1, "from_unit": "GB", "to_unit": "GiB"},
    ],
)
def test_convert_units_bad_input_is_bilingual(args):
    err = run_tool("convert_units", args)["error"]
    assert err["zh"] and err["en"]


@pytest.mark.parametrize(
    "algbw,n,op,expected",
    [
        (120, 8, "all_reduce", 210.0),  # 120 × 2·7/8 = 120 × 1.75
        (100, 2, "all_reduce", 100.0),  # 2·1/2 = 1
        (100, 16, "all_reduce", 187.5),  # 2·15/16 = 1.875
        (80, 8, "all_gather", 70.0),  # 7/8
        (80, 8, "reduce_scatter", 70.0),
        (50, 8, "broadcast", 50.0),
    ],
)
def test_busbw_from_algbw(algbw, n, op, expected):
    out = run_tool("busbw_from_algbw", {"algbw_gbs": algbw, "n_gpus": n, "op": op})
    assert out["busbw_gbs"] == pytest.approx(expected)
    assert "PERFORMANCE.md" in out["source"]


def test_busbw_reuses_the_interconnect_factor():
    from tools.interconnect import busbw_factor

    out = run_tool("busbw_from_algbw", {"algbw_gbs": 1, "n_gpus": 6, "op": "all_reduce"})
    assert out["factor"] == busbw_factor("all_reduce", 6) == pytest.approx(10 / 6)


def test_implied_mfu_llama2_70b():
    # C = 6 × 68,976,648,192 × 2e12 = 8.277e23 FLOPs; 1,720,320 h × 3600 = 6.193e9 GPU-s;
    # 8.277e23 / 6.193e9 = 1.3365e14 FLOP/s = 133.65 TFLOPS; / 312 = 0.4284 (Llama 2 paper: 38–43% band)
    out = run_tool("implied_mfu", {"model": "llama-2-70b", "tokens": 2e12, "gpu_hours": 1_720_320, "gpu": "A100 80GB"})
    assert out["flops"] == pytest.approx(8.2772e23, rel=1e-4)
    assert out["achieved_tflops"] == pytest.approx(133.65, abs=0.01)
    assert out["peak_tflops"] == 312
    assert out["mfu"] == pytest.approx(0.4284, abs=1e-4)
    assert out["mfu_pct"] == pytest.approx(42.8, abs=0.05)


def test_implied_mfu_from_params_and_impossible_input():
    # 7B × 1T tokens × 6 = 4.2e22 FLOPs; on H100 (989 TFLOPS dense bf16) in 29,493 GPU-h → 4.2e22 / (29,493 × 3600 × 989e12) = 0.40
    out = run_tool("implied_mfu", {"params_b": 7, "tokens": 1e12, "gpu_hours": 29493, "gpu": "H100 SXM"})
    assert out["mfu"] == pytest.approx(0.40, abs=0.001)
    # the same run claimed in 1,000 GPU-hours would need > 100% of peak: refused, not reported
    err = run_tool("implied_mfu", {"params_b": 7, "tokens": 1e12, "gpu_hours": 1000, "gpu": "H100 SXM"})["error"]
    assert "100%" in err["en"] and err["zh"]
