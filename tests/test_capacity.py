"""Usable capacity and engine profiles, checked against hand arithmetic written here.

Reported = nvidia-smi MiB × 2^20 / 1e9 (cited per card in knowledge/gpus.yaml); usable = reported × the engine's
memory fraction (vLLM gpu_memory_utilization 0.9, SGLang mem_fraction_static 0.85, 1.0 for training and HF generate).
"""

from __future__ import annotations

import pytest

from tools.memory import GB, EstimateMemoryInput, GiB, estimate_memory
from tools.memory_capacity import resolve_gpu_capacity

A100_MIB, RTX4090_MIB = 81920, 24564  # modal-labs/modal-client PR #2797; vllm-project/vllm issue #7553


def test_reported_capacity_is_mib_not_nominal_gb() -> None:
    a100 = resolve_gpu_capacity("A100 80GB")
    assert a100.memory_gb == 80 and a100.reported_mib == A100_MIB
    assert a100.reported_gb == pytest.approx(81920 * 2**20 / 1e9, abs=1e-3)  # 85.899 GB
    card = resolve_gpu_capacity("4090")
    assert card.reported_gb == pytest.approx(25.757, abs=1e-3)
    # a bare size is the smallest driver total among the cards sold at that size: "80GB" cards report 81,559 MiB
    # (H100, nvidia-smi in NVIDIA/nccl#1453) to 81,920 MiB (A100), so 85.5 GB — never the nominal 80.0
    bare = resolve_gpu_capacity("80GB")
    assert bare.reported_mib == 81559 and bare.reported_gb == pytest.approx(81559 * 2**20 / 1e9, abs=1e-3)
    assert resolve_gpu_capacity("24GB").reported_gb >= 24
    odd = resolve_gpu_capacity("7GB")  # no card is sold at 7 GB: face value
    assert odd.reported_gb == 7 and odd.reported_mib is None and odd.reported_confidence == "nominal"


@pytest.mark.parametrize(
    ("engine", "kwargs", "fraction"),
    [("vllm", {}, 0.9), ("vllm", {"gpu_memory_utilization": 0.95}, 0.95), ("sglang", {}, 0.85),
     ("sglang", {"mem_fraction_static": 0.9}, 0.9), ("hf", {}, 1.0)],
)  # fmt: skip
def test_usable_is_reported_times_the_engine_fraction(engine: str, kwargs: dict, fraction: float) -> None:
    out = estimate_memory(
        EstimateMemoryInput(model="qwen2.5-7b", mode="inference", context=4096, gpu="4090", engine=engine, **kwargs)
    )
    reported = RTX4090_MIB * 2**20 / 1e9
    assert (out.nominal_gb, out.gpu_memory_gb) == (24, 24)
    assert out.reported_gb == pytest.approx(reported, abs=1e-3) and out.reported_mib == RTX4090_MIB
    assert out.usable_gb == pytest.approx(reported * fraction, abs=2e-3)
    assert out.reserve_gb == pytest.approx(reported * (1 - fraction), abs=2e-3)
    assert out.fits == (out.total_gb <= out.usable_gb) and out.engine == engine


def test_training_uses_the_whole_reported_card() -> None:
    out = estimate_memory(EstimateMemoryInput(model="qwen2.5-7b", mode="lora", seq_len=2048, gpu="A100 80GB"))
    assert out.usable_gb == pytest.approx(85.899, abs=1e-3) and out.reserve_gb == 0


def test_a_verdict_that_nominal_gb_gets_wrong() -> None:
    """Qwen2.5-32B AWQ on a 4090 under vLLM: ≈ 22.2 GB against 0.9 × 24 = 21.6 GB (nominal) but
    0.9 × 25.76 = 23.2 GB (reported): it fits, as people run it (with a modest max_model_len)."""
    out = estimate_memory(
        EstimateMemoryInput(model="qwen2.5-32b", mode="inference", precision="int4", gpu="4090", context=2048)
    )
    assert 0.9 * 24 < out.total_gb <= out.usable_gb and out.fits and out.verdict == "fits"


def test_vllm_memory_outside_pytorch_grows_with_tensor_parallel() -> None:
    """vllm PR #10511 logs: non_torch_memory 1.79 GiB at TP=1, 3.58 GiB at TP=2 (Llama-3-8B); profile 1.5 / 3.5."""
    tp1 = estimate_memory(EstimateMemoryInput(model="Llama-3-8B", mode="inference", context=4096, gpus=1))
    tp2 = estimate_memory(EstimateMemoryInput(model="Llama-3-8B", mode="inference", context=4096, gpus=2))
    assert tp1.overhead_gb == pytest.approx(1.5 * GiB / GB, abs=1e-3)
    assert tp2.overhead_gb == pytest.approx(3.5 * GiB / GB, abs=1e-3)
    assert tp1.engine_version and "vLLM" in tp1.engine_version


def test_hf_prefills_the_whole_prompt_vllm_in_chunks() -> None:
    """Qwen2.5-7B (h = 3584, f = 18944) at a 131,072-token prompt: HF keeps one layer's (4h + 2f)·2 B per token for
    every prompt token = 131072 × 104,128 B = 13.65 GB (+ last-token fp32 logits 152,064 × 4 B); vLLM an
    8,192-token chunk = 0.853 GB."""
    per_token = (4 * 3584 + 2 * 18944) * 2
    logits = 152064 * 4
    hf = estimate_memory(EstimateMemoryInput(model="qwen2.5-7b", mode="inference", context=131072, engine="hf"))
    vl = estimate_memory(EstimateMemoryInput(model="qwen2.5-7b", mode="inference", context=131072, engine="vllm"))
    assert hf.activations_gb == pytest.approx((131072 * per_token + logits) / GB, abs=2e-3)
    assert vl.activations_gb == pytest.approx((8192 * per_token + logits) / GB, abs=2e-3)


def test_hf_device_map_splits_layers_not_heads() -> None:
    """device_map="auto" over 2 GPUs: each holds half the layers' weights and KV; the prefill workspace of one layer
    is not divided (only one GPU computes at a time)."""
    one = estimate_memory(EstimateMemoryInput(model="qwen2.5-7b", mode="inference", context=32768, engine="hf"))
    two = estimate_memory(EstimateMemoryInput(model="qwen2.5-7b", mode="inference", context=32768, engine="hf", gpus=2))
    assert two.weights_gb == pytest.approx(one.weights_gb / 2, abs=1e-3)
    assert two.kv_cache_gb == pytest.approx(one.kv_cache_gb / 2, abs=1e-3)
    assert two.activations_gb == pytest.approx(one.activations_gb, abs=1e-3)


@pytest.mark.parametrize(("loss", "bytes_per_logit"), [("hf", 16), ("bf16", 10), ("chunked", 3.5), ("fused", 0.5)])
def test_loss_implementation_sets_the_logits_buffer(loss: str, bytes_per_logit: float) -> None:
    """Llama-3-8B, 4,096 tokens, vocab 128,256: 525.3M logit elements × bytes per element."""
    out = estimate_memory(EstimateMemoryInput(model="Llama-3-8B", mode="lora", seq_len=4096, loss=loss))
    assert out.logits_gb == pytest.approx(4096 * 128256 * bytes_per_logit / GB, abs=1e-3)
    assert out.loss == loss


def test_default_loss_is_the_transformers_fp32_upcast() -> None:
    out = estimate_memory(EstimateMemoryInput(model="Llama-3-8B", mode="lora", seq_len=4096))
    assert out.loss == "hf" and out.logits_gb == pytest.approx(4096 * 128256 * 16 / GB, abs=1e-3)


def test_deepspeed_zero2_keeps_an_fp32_gradient_partition() -> None:
    """DeepSpeed estimate_zero2_model_states_mem_needs: 2P + 18P/N; the ZeRO paper's P_os+g: 2P + 14P/N.
    P = 7e9, N = 8: 14 + 15.75 = 29.75 GB vs 14 + 12.25 = 26.25 GB."""
    ds = estimate_memory(EstimateMemoryInput(params="7B", mode="full", gpus=8, zero=2))
    paper = estimate_memory(EstimateMemoryInput(params="7B", mode="full", gpus=8, zero=2, engine="fsdp"))
    assert ds.engine == "deepspeed" and ds.model_states_gb == pytest.approx(29.75, abs=0.01)
    assert paper.model_states_gb == pytest.approx(26.25, abs=0.01)


def test_adapter_dtype_and_gptq_base() -> None:
    """bf16 adapters hold 2 + 2 B instead of 4 + 4 B per trainable parameter; a GPTQ/AWQ base stores
    0.5 + 32/128/8 = 0.53125 B per quantised parameter (NF4 + double quant: 0.5 + 0.0159)."""
    fp32 = estimate_memory(EstimateMemoryInput(model="Llama-3-8B", mode="qlora", precision="int4"))
    bf16 = estimate_memory(
        EstimateMemoryInput(model="Llama-3-8B", mode="qlora", precision="int4", adapter_dtype="bf16")
    )
    assert fp32.weights_gb - bf16.weights_gb == pytest.approx(fp32.trainable_params * 2 / GB, abs=1e-3)
    assert fp32.gradients_gb == pytest.approx(2 * bf16.gradients_gb, abs=1e-3)
    gptq = estimate_memory(EstimateMemoryInput(model="Llama-3-8B", mode="qlora", precision="int4", int4_format="gptq"))
    emb = 2 * 128256 * 4096 + (32 * 2 + 1) * 4096  # embeddings, LM head and norms stay 16-bit
    quantised = 8_030_261_248 - emb
    expect_gptq = (quantised * 0.53125 + emb * 2 + gptq.trainable_params * 4) / GB
    assert gptq.weights_gb == pytest.approx(expect_gptq, abs=2e-3)
    assert gptq.weights_gb > fp32.weights_gb  # 0.531 > 0.516 B/param


def test_engine_that_does_not_match_the_mode_is_a_bilingual_error() -> None:
    from tools.errors import ToolInputError

    with pytest.raises(ToolInputError) as err:
        estimate_memory(EstimateMemoryInput(params="7B", mode="inference", engine="deepspeed"))
    assert "推理" in err.value.zh and "inference" in err.value.en
    with pytest.raises(ToolInputError):
        estimate_memory(EstimateMemoryInput(params="7B", mode="full", engine="vllm"))


def test_modded_card_is_sized_by_its_driver_total_and_carries_the_caveat() -> None:
    """RTX 4090 48G (modded): nvidia-smi 49140 MiB (tinygrad/open-gpu-kernel-modules#36) = 51.53 GB; under vLLM
    0.9 × 51.53 = 46.37 GB usable. Qwen2.5-32B AWQ at 32k fits; the answer says the card is off-warranty."""
    out = estimate_memory(
        EstimateMemoryInput(model="qwen2.5-32b", mode="inference", precision="int4", context=32768, gpu="4090 48G")
    )
    assert out.reported_mib == 49140 and out.usable_gb == pytest.approx(0.9 * 49140 * 2**20 / 1e9, abs=2e-3)
    assert out.verdict == "fits"
    assert any("保修" in a["zh"] and "warranty" in a["en"] for a in out.assumptions)
