"""Training methods beyond SFT, host RAM, whole-model weights, FP8 releases on non-FP8 cards, TP divisibility.

Every expected value is worked by hand below from public figures:
- Qwen2.5-7B: 7,615,616,512 params, 28 layers, 4 KV heads × head_dim 128 (config.json,
  huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json; the model card says 7.61B);
- Qwen1.5-32B: 40 attention heads, 8 KV heads (config.json; vLLM's error for TP 6 quotes "(40)");
- Qwen2.5-72B: 72.7B params (model card), DeepSeek-V3: 671B (model card, FP8 release);
- DPO: chosen + rejected per example and a frozen reference model (arXiv:2305.18290; TRL DPOTrainer docs);
  GRPO: num_generations completions per prompt, default 8 (TRL GRPOConfig); PPO adds reward + value models
  (InstructGPT arXiv:2203.02155 §3.5);
- transformers loads a full copy per process unless ZeRO-3 zero.Init; 4.x without torch_dtype loads fp32.
"""

from __future__ import annotations

import pytest

from tools.memory import EstimateMemoryInput, FindMinGpusInput, estimate_memory, find_min_gpus

P_QWEN7 = 7_615_616_512
GB = 1e9


def est(**kw):
    return estimate_memory(EstimateMemoryInput(**kw))


def test_dpo_full_adds_one_bf16_reference_copy_per_gpu() -> None:
    # 7,615,616,512 × 2 B = 15.23 GB, forward only (no grads / optimizer states)
    one = est(model="qwen2.5-7b", mode="full", method="dpo")
    assert one.reference_model_gb == pytest.approx(P_QWEN7 * 2 / GB, rel=1e-3)
    sft = est(model="qwen2.5-7b", mode="full")
    assert one.weights_gb - sft.weights_gb == pytest.approx(15.23, abs=0.01)
    assert one.gradients_gb == sft.gradients_gb and one.optimizer_gb == sft.optimizer_gb
    # ZeRO-3 over 8 GPUs shards the reference too: 15.23 / 8 = 1.904 GB; ZeRO-2 does not (TRL gives it stage 0)
    z3 = est(model="qwen2.5-7b", mode="full", method="dpo", gpus=8, zero=3)
    z2 = est(model="qwen2.5-7b", mode="full", method="dpo", gpus=8, zero=2)
    assert z3.reference_model_gb == pytest.approx(1.904, abs=0.002)
    assert z2.reference_model_gb == pytest.approx(15.23, abs=0.01)


def test_dpo_pairs_double_activations_at_the_same_batch() -> None:
    # chosen + rejected: 2 sequences per example, so activations (incl. logits) are exactly 2x SFT
    sft = est(model="qwen2.5-7b", mode="lora", seq_len=4096, batch=2)
    dpo = est(model="qwen2.5-7b", mode="lora", seq_len=4096, batch=2, method="dpo")
    assert dpo.sequences_per_example == 2
    assert dpo.activations_gb == pytest.approx(2 * sft.activations_gb, rel=1e-3)
    assert dpo.logits_gb == pytest.approx(2 * sft.logits_gb, rel=1e-3)
    # LoRA: the reference is the base with adapters disabled, no extra weights
    assert dpo.reference_model_gb == 0 and dpo.weights_gb == sft.weights_gb


@pytest.mark.parametrize(
    "method, pairs, ref",
    [("orpo", 2, False), ("simpo", 2, False), ("kto", 1, True), ("grpo", 1, True)],
)
def test_methods_pairs_and_reference(method: str, pairs: int, ref: bool) -> None:
    # ORPO (arXiv:2403.07691) and SimPO (arXiv:2405.14734) are reference-free; KTO is unpaired with a reference
    out = est(model="qwen2.5-7b", mode="full", method=method)
    assert out.sequences_per_example == pairs
    assert (out.reference_model_gb > 0) is ref


def test_reference_dropped_by_precompute_or_grpo_beta_zero() -> None:
    assert est(model="qwen2.5-7b", mode="full", method="dpo", precompute_ref_log_probs=True).reference_model_gb == 0
    assert est(model="qwen2.5-7b", mode="full", method="grpo", kl_beta=0).reference_model_gb == 0


def test_grpo_rollout_kv_cache_is_num_generations_times_length() -> None:
    # KV per token = 28 layers × 2 (K,V) × 4 heads × 128 × 2 B = 57,344 B; 8 completions × 1024 tokens
    # = 8 × 1024 × 57,344 = 469,762,048 B = 0.470 GB
    out = est(model="qwen2.5-7b", mode="full", method="grpo", seq_len=1024)
    assert out.rollout_kv_gb == pytest.approx(0.4698, abs=0.001)
    assert out.kv_cache_gb == pytest.approx(0.4698, abs=0.001)
    sixteen = est(model="qwen2.5-7b", mode="full", method="grpo", seq_len=1024, num_generations=16)
    assert sixteen.rollout_kv_gb == pytest.approx(2 * 0.4698, abs=0.002)


def test_ppo_keeps_four_models() -> None:
    # value model at the policy's size and setup = the SFT model states again; reward model frozen, 15.23 GB
    sft = est(model="qwen2.5-7b", mode="full", gpus=8, zero=3)
    ppo = est(model="qwen2.5-7b", mode="full", gpus=8, zero=3, method="ppo")
    assert ppo.value_model_gb == pytest.approx(sft.model_states_gb, abs=0.01)
    assert ppo.reward_model_gb == pytest.approx(15.23 / 8, abs=0.002)
    assert ppo.reference_model_gb == pytest.approx(15.23 / 8, abs=0.002)


def test_method_on_inference_is_a_bilingual_error() -> None:
    from tools.errors import ToolInputError

    with pytest.raises(ToolInputError) as e:
        est(model="qwen2.5-7b", mode="inference", method="dpo")
    assert "训练方法" in str(e.value.zh) and "training method" in str(e.value.en)


def test_host_ram_one_full_copy_per_process_without_zero3() -> None:
    # DPO full on 8 GPUs with ZeRO-2: 8 processes × (policy + reference) × 15.23 GB = 243.7 GB;
    # without torch_dtype (fp32 in transformers 4.x) it doubles: 487.4 GB
    out = est(model="qwen2.5-7b", mode="full", method="dpo", gpus=8, zero=2)
    assert out.host_ram is not None
    assert out.host_ram.load_gb == pytest.approx(8 * 2 * P_QWEN7 * 2 / GB, rel=1e-3)
    assert out.host_ram.unsharded_load_fp32_gb == pytest.approx(487.4, abs=0.1)
    fp32 = est(model="qwen2.5-7b", mode="full", gpus=8, zero=2, load_fp32=True)
    assert fp32.host_ram_total_gb == pytest.approx(8 * P_QWEN7 * 4 / GB, rel=1e-3)


def test_host_ram_zero3_loads_one_checkpoint_shard_per_process() -> None:
    # zero.Init: each of 8 ranks holds one 5 GB checkpoint shard (save_pretrained max_shard_size "5GB") → 40 GB
    out = est(model="qwen2.5-7b", mode="full", gpus=8, zero=3)
    assert out.host_ram is not None and out.host_ram.sharded_loading
    assert out.host_ram_total_gb == pytest.approx(40.0, abs=0.01)
    assert out.host_ram.unsharded_load_gb == pytest.approx(8 * 15.23, abs=0.1)


def test_host_ram_offload_keeps_the_deepspeed_figure() -> None:
    # ZeRO-Offload: 16 B/param × 1.5 (DeepSpeed memory.rst) for 7,615,616,512 params = 182.8 GB per node
    out = est(model="qwen2.5-7b", mode="full", zero=2, offload="optimizer")
    assert out.host_ram_gb == pytest.approx(P_QWEN7 * 16 * 1.5 / GB, rel=1e-3)
    assert out.host_ram_total_gb == pytest.approx(out.host_ram_gb, rel=1e-3)


def test_whole_model_weights_stated_under_tensor_parallel() -> None:
    # Qwen2.5-72B 72,706,203,648 × 2 B = 145.4 GB whatever the TP size
    out = est(model="qwen2.5-72b", mode="inference", gpus=4, gpu="A100 80GB")
    assert out.whole_model_weights_gb == pytest.approx(145.41, abs=0.01)
    assert out.weights_gb == pytest.approx(145.41 / 4, abs=0.01)
    # ZeRO-2 keeps full weights per GPU: Qwen2.5-7B bf16 15.23 GB whole, 15.23 GB on each of 4 GPUs
    z2 = est(model="qwen2.5-7b", mode="lora", gpus=4, zero=2)
    assert z2.whole_model_weights_gb == pytest.approx(15.23, abs=0.01)
    assert z2.weights_gb >= 15.23


def test_fp8_release_on_a_card_without_fp8_is_sized_in_bf16() -> None:
    # DeepSeek-V3: 671e9 × 2 B = 1,342 GB in bf16; the A800 (Ampere) has no FP8 tensor cores
    a800 = est(model="deepseek-v3", mode="inference", precision="bf16", gpus=8, gpu="A800")
    assert a800.whole_model_weights_gb == pytest.approx(1342, rel=0.001)
    assert a800.fp8_note is not None and "FP8" in a800.fp8_note["zh"] and "1,342" in a800.fp8_note["en"]
    assert a800.gpu_fp8 is False
    h800 = est(model="deepseek-v3", mode="inference", precision="fp8", gpus=8, gpu="H800")
    assert h800.fp8_note is None and h800.gpu_fp8 is True


def test_fp8_weights_are_the_nearest_option_on_an_fp8_card() -> None:
    # Qwen3-235B-A22B bf16: 470 GB > 4 × H20 (4 × 92.4 GB usable); FP8 weights 235 GB fit (H20 is Hopper)
    out = est(model="qwen3-235b-a22b", mode="inference", gpus=4, gpu="H20")
    assert out.fits is False and out.whole_model_weights_gb == pytest.approx(470.2, abs=0.1)
    assert out.nearest_option is not None and out.nearest_option.value == "fp8"


def test_tensor_parallel_must_divide_the_heads() -> None:
    # Qwen1.5-32B: 40 heads, 8 KV heads → TP 1, 2, 4, 8 (not 6: vLLM refuses it)
    out = est(model="qwen1.5-32b", mode="inference", gpus=6, gpu="A10")
    assert out.tp_valid is False and out.tp_sizes == [1, 2, 4, 8]
    assert out.tp_note is not None and "4 或 8" in out.tp_note["zh"] and "pipeline-parallel-size" in out.tp_note["en"]
    assert est(model="qwen1.5-32b", mode="inference", gpus=4, gpu="A10").tp_valid is True
    # Llama-3-70B: 64 heads, 8 KV heads: TP 16 is allowed (KV heads replicated, 16 is a multiple of 8)
    from tools.memory_parallel import tp_allowed
    from tools.models import resolve_model

    assert tp_allowed(resolve_model("llama-3-70b", None).arch, 16)
    assert not tp_allowed(resolve_model("qwen2.5-7b", None).arch, 8)  # 28 heads


def test_find_min_gpus_skips_tp_sizes_the_model_refuses() -> None:
    # Qwen2.5-7B has 28 heads: TP 8 is invalid. On 8 GB cards (7.2 GB usable by vLLM at 0.9) TP 4 needs
    # 15.23 / 4 = 3.8 GB of weights + ~3.5 GiB outside PyTorch (vLLM TP≥2) ≈ 7.6 GB > 7.2 → the next valid count is
    # 16 (two servers: TP 4 × pipeline), never the 8 that vLLM would refuse
    out = find_min_gpus(FindMinGpusInput(model="qwen2.5-7b", mode="inference", gpu="8GB"))
    assert out.min_gpus == 16


def test_kv_cache_per_sequence_and_over_all_gpus() -> None:
    # Llama-3.1-70B: 80 layers × 2 × 8 KV heads × 128 × 2 B = 327,680 B/token; × 20,000 tokens = 6.55 GB per
    # sequence; 4 sequences = 26.2 GB, i.e. 13.1 GB on each of 2 GPUs under tensor parallelism
    out = est(model="llama-3.1-70b", mode="inference", precision="fp16", gpus=2, context=20_000, concurrency=4)
    assert out.kv_per_sequence_gb == pytest.approx(6.5536, abs=0.001)
    assert out.kv_cache_all_gpus_gb == pytest.approx(26.214, abs=0.002)
    assert out.kv_cache_gb == pytest.approx(13.107, abs=0.002)


def test_total_gpu_memory_is_cards_times_nominal() -> None:
    # 3 servers × 8 × L20 48 GB = 1,152 GB (datasheet 48 GB)
    out = est(model="deepseek-r1", mode="inference", precision="fp8", gpus=24, gpu="L20")
    assert out.total_gpu_memory_gb == pytest.approx(1152, abs=0.1)


def test_nearest_option_never_proposes_a_refused_tp_size() -> None:
    # Qwen2.5-7B (28 heads): TP 8 is refused by vLLM, so "more GPUs" skips 8 (here: 16 = TP 4 × pipeline 4)
    out = est(model="qwen2.5-7b", mode="inference", gpu="8GB")
    assert out.nearest_option is not None and out.nearest_option.kind == "gpus"
    assert out.nearest_option.value != "8"
