"""Training FLOPs, time and cost against published figures.

- GPT-3 (Brown et al. 2020, Table D.1): 175B parameters × 300B tokens → 3.14e23 training FLOPs ≈ 6·N·D.
- Llama 2 (Touvron et al. 2023, Table 2): 7B 184,320 / 13B 368,640 / 70B 1,720,320 A100-80GB GPU-hours for 2T tokens;
  A100 BF16 dense peak 312 TFLOPS (datasheet) → implied MFU computed here by hand.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tools.errors import ToolInputError
from tools.train_time import TrainTimeInput, estimate_time, estimate_training_time, mfu_band, training_flops

A100_BF16 = 312e12


def test_gpt3_training_flops() -> None:
    flops, k, _ = training_flops(175e9, 300e9)
    assert k == 6
    assert flops == pytest.approx(3.14e23, rel=0.005)  # 6 × 175e9 × 300e9 = 3.15e23


def test_full_recomputation_is_8nd_and_lora_4nd() -> None:
    assert training_flops(7e9, 1e9, recompute="full")[0] == pytest.approx(8 * 7e9 * 1e9)
    assert training_flops(7e9, 1e9, mode="lora")[0] == pytest.approx(4 * 7e9 * 1e9)


@pytest.mark.parametrize("params, gpu_hours", [(6.74e9, 184_320), (13.0e9, 368_640), (69.0e9, 1_720_320)])
def test_llama2_gpu_hours_imply_mfu_inside_the_pretrain_band(params: float, gpu_hours: float) -> None:
    implied = 6 * params * 2e12 / (gpu_hours * 3600 * A100_BF16)
    assert 0.37 < implied < 0.44  # ≈ 0.39 / 0.38 / 0.43
    band, _ = mfu_band("pretrain", "bf16")
    assert band.low <= implied <= band.high
    # at the implied MFU the tool reproduces the published GPU-hours
    est = estimate_time(
        gpu="A100 80G", n_gpus=2048, active_params=params, tokens=2e12, mode="pretrain", mfu=implied, with_cost=False
    )
    assert est.gpu_hours.mid == pytest.approx(gpu_hours, rel=1e-4)


def test_time_uses_dense_peak_and_mfu() -> None:
    # 6 × 7e9 × 1e9 = 4.2e19 FLOPs; 8 × 989.4e12 × 0.5 = 3.958e15 FLOP/s → 10,612 s = 2.948 h
    est = estimate_time(gpu="H100", n_gpus=8, active_params=7e9, tokens=1e9, mode="pretrain", mfu=0.5, with_cost=False)
    assert est.peak_tflops_per_gpu == pytest.approx(989.4)
    assert est.wall_hours.mid == pytest.approx(4.2e19 / (8 * 989.4e12 * 0.5) / 3600, rel=1e-3)


def test_tf32_counts_only_when_enabled() -> None:
    off = estimate_time(
        gpu="A100 80G", n_gpus=1, active_params=1e9, tokens=1e9, precision="fp32", mfu=0.4, with_cost=False
    )
    on = estimate_time(
        gpu="A100 80G",
        n_gpus=1,
        active_params=1e9,
        tokens=1e9,
        precision="fp32",
        tf32_enabled=True,
        mfu=0.4,
        with_cost=False,
    )
    assert off.peak_tflops_per_gpu == 19.5 and on.peak_tflops_per_gpu == 156  # A100 datasheet FP32 / TF32 dense
    assert off.wall_hours.mid == pytest.approx(on.wall_hours.mid * 156 / 19.5, rel=1e-3)
    assert any("TF32" in w for w in off.warnings)


def test_fp8_only_where_card_and_framework_support_it() -> None:
    a100 = estimate_time(
        gpu="A100 80G", n_gpus=1, active_params=1e9, tokens=1e9, precision="fp8", fp8_framework=True, with_cost=False
    )
    assert a100.precision_used == "bf16" and a100.warnings
    h100 = estimate_time(
        gpu="H100", n_gpus=1, active_params=1e9, tokens=1e9, precision="fp8", fp8_framework=True, with_cost=False
    )
    assert h100.precision_used == "fp8" and h100.peak_tflops_per_gpu == 1979
    no_fw = estimate_time(gpu="H100", n_gpus=1, active_params=1e9, tokens=1e9, precision="fp8", with_cost=False)
    assert no_fw.precision_used == "bf16"
    # the FP8 MFU band is scaled down: FP8 is faster than BF16, but less than 2×
    assert h100.wall_hours.mid < no_fw.wall_hours.mid < 2 * h100.wall_hours.mid


def test_v100_has_no_bf16_so_fp16_is_used() -> None:
    est = estimate_time(gpu="V100", n_gpus=1, active_params=1e9, tokens=1e9, with_cost=False)
    assert est.precision_used == "fp16" and est.peak_tflops_per_gpu == 125  # V100 datasheet FP16 tensor


def test_moe_counts_active_parameters() -> None:
    est = estimate_training_time(
        TrainTimeInput(params_b=671, active_params_b=37, tokens=1e12, gpu="H800", n_gpus=2048, mode="pretrain")
    )
    assert est.flops == pytest.approx(6 * 37e9 * 1e12)
    assert any("MoE" in n for n in est.notes)


def test_catalog_model_and_token_strings() -> None:
    est = estimate_training_time(TrainTimeInput(model="qwen2.5-7b", tokens="1B", gpu="A100 80G", n_gpus=8))
    assert est.tokens == 1e9
    assert 7.0e9 < est.active_params < 8.0e9  # Qwen2.5-7B has 7.6B parameters
    samples = estimate_training_time(TrainTimeInput(params_b=7, samples=50_000, seq_len=2048, epochs=3, gpu="4090"))
    assert samples.tokens == 50_000 * 2048 * 3


def test_doubling_gpus_halves_time_when_compute_bound() -> None:
    a = estimate_time(gpu="H100", n_gpus=8, active_params=7e9, tokens=1e10, mode="pretrain", with_cost=False)
    b = estimate_time(gpu="H100", n_gpus=16, active_params=7e9, tokens=1e10, mode="pretrain", with_cost=False)
    assert b.wall_hours.mid == pytest.approx(a.wall_hours.mid / 2, rel=1e-3)
    assert b.gpu_hours.mid == pytest.approx(a.gpu_hours.mid, rel=1e-3)


def test_weak_interconnect_adds_communication() -> None:
    kw = dict(active_params=7e9, tokens=1e9, tokens_per_step=32_768, zero3=True, with_cost=False)
    pcie = estimate_time(gpu="4090", n_gpus=8, **kw)
    nvs = estimate_time(gpu="A100 80G", n_gpus=8, **kw)
    # ZeRO-3 gathers the parameters in forward and backward and reduce-scatters the gradients on EVERY micro-step:
    # 32,768 tokens / 8 GPUs / 2,048 tokens per micro-batch = 2 micro-steps; 3 × 2 × 7/8 × 14 GB = 73.5 GB per step,
    # over the P2P-off GeForce PCIe 4.0 busbw mid (6–16 → 11 GB/s) = 6.68 s per step
    assert pcie.comm.micro_steps == 2 and pcie.comm.strategy == "zero3"
    assert pcie.comm.sync_s_per_step.mid == pytest.approx(3 * 2 * 7 / 8 * 14e9 / 11e9, abs=2e-3)
    assert pcie.mfu_effective.mid < pcie.mfu.mid / 2  # communication of the order of the compute halves the MFU
    assert pcie.comm.comm_share_mid > 0.3 and pcie.comm.comm_share_mid > 3 * nvs.comm.comm_share_mid
    assert pcie.wall_hours.high > pcie.wall_hours.mid  # sync not overlapped at the slow end


def test_cost_is_gpu_hours_times_price() -> None:
    est = estimate_training_time(TrainTimeInput(params_b=7, tokens=1e9, gpu="A100 80G", hourly_price_cny=10))
    assert est.cost_cny.mid == pytest.approx(est.gpu_hours.mid * 10, abs=1)
    table = estimate_training_time(TrainTimeInput(params_b=7, tokens=1e9, gpu="A100 80G"))
    # §3.4 A100 80GB typical ¥5.0–6.5 per card-hour
    assert table.price_per_gpu_hour_cny.low == 5.0 and table.price_per_gpu_hour_cny.high == 6.5
    assert "confirm with the provider" in " ".join(table.notes)


@settings(max_examples=25, deadline=None)
@given(tokens=st.floats(min_value=1e7, max_value=1e12), k=st.integers(min_value=2, max_value=10))
def test_cost_and_time_scale_with_tokens(tokens: float, k: int) -> None:
    a = estimate_time(
        gpu="A100 80G", n_gpus=8, active_params=7e9, tokens=tokens, mode="pretrain", mfu=0.4, hourly_price_cny=6
    )
    b = estimate_time(
        gpu="A100 80G", n_gpus=8, active_params=7e9, tokens=k * tokens, mode="pretrain", mfu=0.4, hourly_price_cny=6
    )
    hours = 6 * 7e9 * tokens / (8 * 312e12 * 0.4) / 3600
    assert a.wall_hours.mid == pytest.approx(hours, rel=1e-3, abs=1e-3)
    assert b.wall_hours.mid == pytest.approx(k * hours, rel=1e-3, abs=1e-3)
    assert b.cost_cny.mid == pytest.approx(k * 8 * hours * 6, rel=1e-3, abs=1)  # cost ∝ time


def test_bad_input() -> None:
    with pytest.raises(ValidationError):
        TrainTimeInput(tokens="1B", gpu="4090")  # no model and no params
    with pytest.raises(ToolInputError):
        estimate_training_time(TrainTimeInput(params_b=7, tokens="lots", gpu="4090"))
    with pytest.raises(ToolInputError):
        estimate_training_time(TrainTimeInput(params_b=7, tokens=1e9, gpu="RTX 9999"))
