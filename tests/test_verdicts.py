"""Three-way verdicts against published outcomes: setups reported as having run give fits / fits_with_changes,
published OOMs give fits == False (as configured), with the change that the publisher used where they say it."""

from __future__ import annotations

import json

import pytest

from tools.memory import EstimateMemoryInput, estimate_memory

QWEN_V1 = {  # Qwen/Qwen-7B and Qwen/Qwen-72B config.json (w1/w2 = intermediate_size / 2; c_attn has a bias)
    "7B": {"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008,
           "vocab_size": 151936},
    "72B": {"hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64, "intermediate_size": 24576,
            "vocab_size": 152064},
}  # fmt: skip
LLAMA_65B = {"model_type": "llama", "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
             "intermediate_size": 22016, "vocab_size": 32000, "max_position_embeddings": 2048}  # fmt: skip


@pytest.fixture
def qwen_v1(tmp_path):
    def make(size: str) -> str:
        path = tmp_path / f"qwen-{size}.json"
        cfg = {"model_type": "qwen2", "tie_word_embeddings": False, "max_position_embeddings": 32768, **QWEN_V1[size]}
        path.write_text(json.dumps(cfg))
        return str(path)

    return make


RAN = "fits", "fits_with_changes"


def test_qwen25_72b_bf16_30k_prompt_on_three_a100() -> None:
    # QwenLM/Qwen2.5 speed benchmark: Qwen2.5-72B-Instruct BF16, 30,720-token prompt + 2,048 generated, 3 × A100 80GB
    out = estimate_memory(
        EstimateMemoryInput(
            model="qwen2.5-72b", mode="inference", engine="hf", gpus=3, context=30720 + 2048, gpu="A100 80GB"
        )
    )
    assert out.verdict == "fits" and out.fits


def test_qwen25_32b_tp2_on_two_l40s() -> None:
    # vllm-project/vllm issue #15815: Qwen2.5-32B-Instruct TP=2 on L40S, max_model_len 10000 — started, 7.71 GiB KV
    out = estimate_memory(EstimateMemoryInput(model="qwen2.5-32b", mode="inference", gpus=2, context=10000, gpu="L40S"))
    assert out.verdict == "fits"


def test_llama3_8b_vllm_on_an_80gb_card() -> None:
    # vllm-project/vllm PR #10511: `vllm serve meta-llama/Meta-Llama-3-8B` (max_model_len 8192) on an 80 GB GPU
    out = estimate_memory(EstimateMemoryInput(model="Llama-3-8B", mode="inference", context=8192, gpu="A100 80GB"))
    assert out.verdict == "fits" and out.max_context_fit["vllm"] == 8192  # capped at the model's 8k window


def test_qwen_7b_lora_8k_on_one_a100(qwen_v1) -> None:
    # QwenLM/Qwen README: Qwen-7B LoRA, seq 8192, batch 1, one A100-SXM4-80G: 36.6 G
    out = estimate_memory(
        EstimateMemoryInput(model=qwen_v1("7B"), mode="lora", lora_rank=64, seq_len=8192, loss="bf16", gpu="A100 80GB")
    )
    assert out.verdict in RAN


def test_qwen_72b_qlora_8k_on_one_a100(qwen_v1) -> None:
    # QwenLM/Qwen README: Qwen-72B-Chat-Int4 Q-LoRA, seq 8192, one A100-SXM4-80G: 75.6 G (ran)
    out = estimate_memory(
        EstimateMemoryInput(
            model=qwen_v1("72B"), mode="qlora", precision="int4", int4_format="gptq", lora_rank=64, seq_len=8192,
            loss="bf16", gpu="A100 80GB",
        )
    )  # fmt: skip
    assert out.verdict in RAN


def test_guanaco_65b_qlora_on_one_48gb_gpu(tmp_path) -> None:
    # Dettmers et al., QLoRA (arXiv:2305.14314) §1/§5: LLaMA-65B fine-tuned on a single 48 GB GPU — NF4 + double
    # quantisation, LoRA r=64 on all linear layers, bf16 adapters, paged AdamW, source 384 + target 128 tokens
    path = tmp_path / "llama-65b.json"
    path.write_text(json.dumps(LLAMA_65B))
    out = estimate_memory(
        EstimateMemoryInput(
            model=str(path), mode="qlora", precision="int4", lora_rank=64, adapter_dtype="bf16", seq_len=512,
            gpu="48GB",
        )
    )  # fmt: skip
    assert out.verdict in RAN


# ---------------------------------------------------------------- published OOMs


def test_qwen25_7b_awq_on_an_8gb_card_at_util_0_7() -> None:
    # vllm-project/vllm issue #13882: RTX 4060 8 GB, gpu_memory_utilization 0.7, max_model_len 4096:
    # "the rest of the memory reserved for KV Cache is -1.05GiB" → no KV blocks, the engine fails
    out = estimate_memory(
        EstimateMemoryInput(
            model="qwen2.5-7b", mode="inference", precision="int4", int4_format="awq", context=4096,
            gpu_memory_utilization=0.7, gpu="8GB",
        )
    )  # fmt: skip
    assert out.fits is False and out.verdict != "fits"


def test_qwen_72b_lora_on_four_a100_without_zero3_ooms_and_zero3_is_the_change(qwen_v1) -> None:
    # QwenLM/Qwen README: "OOM occurs on 4 A100-SXM4-80G GPUs … with LoRA fine-tuning without Deepspeed ZeRO 3";
    # with ZeRO-3 it ran (215–289 G in total)
    out = estimate_memory(
        EstimateMemoryInput(
            model=qwen_v1("72B"), mode="lora", lora_rank=64, seq_len=2048, gpus=4, zero=2, loss="bf16",
            gpu="A100 80GB",
        )
    )  # fmt: skip
    assert out.fits is False and out.verdict == "fits_with_changes"
    assert any(c.kind == "zero_stage" and c.value == "3" for c in out.changes)


def test_qwen_7b_full_parameter_on_one_a100_does_not_fit(qwen_v1) -> None:
    # QwenLM/Qwen README: "We do not provide single-GPU training script [for full-parameter finetuning] as the
    # insufficient GPU memory will break down the training." 7.72B × 16 B = 123.5 GB > 85.9 GB (81920 MiB)
    out = estimate_memory(EstimateMemoryInput(model=qwen_v1("7B"), mode="full", seq_len=512, gpu="A100 80GB"))
    assert out.fits is False and out.verdict != "fits"
    if out.verdict == "does_not_fit":
        assert out.nearest_option is not None


# ---------------------------------------------------------------- the changes themselves


def test_long_context_on_a_4090_offers_max_model_len_and_fp8_kv() -> None:
    """Qwen2.5-7B at 65,536 tokens on a 4090 under vLLM: weights 15.2 GB + KV 65,536 × 57,344 B = 3.76 GB + 1.6 GB
    + prefill > 23.2 GB usable; a shorter max_model_len or an fp8 KV cache each fit, and each carries its total."""
    out = estimate_memory(
        EstimateMemoryInput(model="qwen2.5-7b", mode="inference", context=65536, concurrency=4, gpu="4090")
    )
    assert out.fits is False and out.verdict == "fits_with_changes"
    kinds = {c.kind: c for c in out.changes}
    assert {"max_model_len", "kv_cache_dtype"} & set(kinds)
    for c in out.changes:
        assert c.total_gb <= out.usable_gb and c.label["zh"] and c.label["en"]
    if "max_model_len" in kinds:
        assert int(kinds["max_model_len"].value) < 65536


def test_micro_batch_and_fused_ce_for_long_sequence_lora() -> None:
    out = estimate_memory(EstimateMemoryInput(model="Llama-3-8B", mode="lora", seq_len=8192, batch=4, gpu="4090"))
    assert out.fits is False and out.verdict == "fits_with_changes"
    kinds = [c.kind for c in out.changes]
    assert "micro_batch" in kinds or "chunked_ce" in kinds or "qlora" in kinds
    mb = next((c for c in out.changes if c.kind == "micro_batch"), None)
    if mb:
        assert "累积" in mb.label["zh"] and "accumulation" in mb.label["en"]


def test_what_fits_has_no_changes() -> None:
    out = estimate_memory(EstimateMemoryInput(model="qwen2.5-7b", mode="qlora", precision="int4", gpu="4090"))
    assert out.verdict == "fits" and out.changes == [] and out.nearest_option is None
