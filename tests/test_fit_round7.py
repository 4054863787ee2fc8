"""Round 7 fit / memory / card-count questions: our own phrasings, values worked out by hand from public sources.

- RTX 2080 Ti: 11 GB, nvidia-smi 11264 MiB (NVIDIA Turing whitepaper App. A); 11264 / 1024 = 11 GiB. The RTX 2080
  has 8 GB, so "RTX 2080, 11264MiB" is the Ti's memory.
- GGUF Q4_K_M ≈ 4.84 bits/weight (llama.cpp quantize table), Q4_0 4.5 bits: LLaMA-65B 65.2e9 × 4.5…4.85 / 8 ≈
  36.7…39.5 GB (arXiv:2302.13971 for the size); a 70B at Q4_K_M ≈ 70e9 × 0.605 B ≈ 42.4 GB > 32 GB of RAM.
- vLLM's KV pool: the largest power of two ≤ 20,000 tokens is 2^14 = 16,384; an fp8 KV cache halves the bytes per
  token (vLLM --kv-cache-dtype), so the same pool holds 2 × 20,000 = 40,000 tokens.
- ZeRO-Offload (arXiv:2101.06840): fp32 master weights + Adam m + v = 12 B/param in host RAM; Llama-2-13B
  13.0e9 × 12 B ≈ 156 GB.
- Qwen2.5-32B 32.76e9 params (huggingface.co/Qwen/Qwen2.5-32B) × 2 B ≈ 65.5 GB bf16 after merging a LoRA
  (W' = W + BA has W's shape, so merging adds no parameters).
- Qwen2.5-72B bf16 ≈ 145 GB; an RTX A6000 has 48 GB (≈ 43 GB usable by vLLM): 145 / 43 ≈ 3.4 → 4 cards, and 4
  divides its 64 attention heads.
- Qwen2.5-1.5B 1.54e9 params × 4 B (fp32, what CPU kernels use) ≈ 6.2 GB of RAM for the weights.
"""

from __future__ import annotations

import re

from assistant.offline import answer
from assistant.offline.intents import analyse
from assistant.offline.reading import read


def _frame(q: str):
    return read(q, None)[0]


def _run(q: str) -> tuple[str, list]:
    a, results = answer(q)
    return a.text, results


def _gb(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"(\d[\d,]*(?:\.\d+)?)\s*GB(?!/)", text)]


# ---- reading ------------------------------------------------------------------------------------------------------


def test_stated_mib_names_the_sibling_card_and_block_counts_cards() -> None:
    f = _frame("服务器上有 2 块 NVIDIA GeForce RTX 2080，显存为 11264MiB，LoRA 微调 Qwen2.5-1.5B 够不够")
    g = f.gpu_mentions[0]
    assert g.gpu_id == "rtx_2080_ti" and g.memory_gb == 11  # 11264 MiB / 1024 = 11 GiB: the 2080 Ti, not the 8 GB 2080
    assert f.gpu_count == 2
    assert f.budget_cny is None  # 「2 块」 before a card name counts cards, it is not ¥2


def test_a_pasted_cuda_oom_is_an_oom_report() -> None:
    q = (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.65 GiB total "
        "capacity; 22.90 GiB already allocated)\n我用 4090 LoRA 微调 Qwen2.5-7B，还能怎么省显存？"
    )
    assert "oom_report" in _frame(q).mentions


def test_user_sentence_after_an_inline_error_is_read() -> None:
    f = _frame(
        "ValueError: Total number of attention heads (40) must be divisible by tensor parallel size (3). "
        "I have 3 A6000 GPUs serving Llama-2-13B, what can I do?"
    )
    assert f.gpu_count == 3 and f.model and "13B" in f.model


def test_free_cards_are_the_count_sized() -> None:
    assert _frame("服务器有8张A100 40G，其他被占用，只有3张空闲，能部署 Qwen2.5-32B 吗").gpu_count == 3
    assert _frame("8 A100 40GB in the box but only 2 of them are free; can Qwen2.5-32B be served?").gpu_count == 2


def test_at_least_how_big_is_not_a_card_count() -> None:
    assert "how_many" not in _frame("跑 Qwen2.5-7B 至少需要多大的显存？单卡4090够吗").cues
    assert "how_many" in _frame("至少要几张 A100 才能全量微调 13B").cues


# ---- estimates ------------------------------------------------------------------------------------------------------


def test_llama_cpp_four_sizes_are_gguf_and_all_estimated() -> None:
    text, results = _run("llama.cpp with 4-bit LLaMA 7B / 13B / 33B / 65B: how much memory does each need?")
    ests = [r for r in results if r.name == "estimate_memory"]
    assert len(ests) == 4
    assert all(r.args.get("int4_format") == "q4_k_m" for r in ests)
    w65 = next(r.result["whole_model_weights_gb"] for r in ests if "65" in str(r.args.get("model")))
    assert 36 <= w65 <= 42  # 65.2e9 × 4.5…4.85 bits / 8


def test_ram_only_gguf_run_leads_with_the_ram_verdict() -> None:
    text, _ = _run("My PC has 32 GB of RAM and no GPU. Can ollama run a 70B model?")
    first = text.splitlines()[0]
    assert first.startswith("No") and "32 GB" in first
    assert any(40 <= x <= 45 for x in _gb(first))  # 70e9 × 0.605 B ≈ 42.4 GB of Q4_K_M weights


def test_kv_pool_levers_name_unused_cards_fp8_kv_and_a_length() -> None:
    q = (
        "NUM_GPUS=4\nTENSOR_PARALLEL_SIZE=1\n"
        "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored "
        "in KV cache (20000). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
        "initializing the engine.\n模型是 Qwen2.5-14B-Instruct"
    )
    text, _ = _run(q)
    assert "tensor_parallel_size=4" in text
    assert "--kv-cache-dtype fp8" in text and "40,000" in text  # 2 × 20,000 tokens in the same pool
    assert "--max-model-len 16384" in text  # 2^14 ≤ 20,000 < 2^15


def test_offload_host_ram_names_the_resident_state() -> None:
    text, _ = _run("4 张 A100 80G，ZeRO-3 把优化器和参数都 offload 到 CPU，全量微调 Llama-2-13B 要多少内存？")
    assert "12 B/参数" in text and "pin_memory" in text
    assert any(150 <= x <= 162 for x in _gb(text))  # 13.0e9 × 12 B ≈ 156 GB


def test_lora_tuned_model_is_merged_before_serving() -> None:
    text, _ = _run("用 LoRA 微调后的 Qwen2.5-32B 模型，怎么部署推理？")
    assert "merge_and_unload" in text
    assert any(64 <= x <= 67 for x in _gb(text))  # 32.76e9 × 2 B ≈ 65.5 GB merged bf16


def test_quantised_inference_code_is_the_same() -> None:
    text, _ = _run("AWQ 4bit 的 Qwen2.5-14B 和 bf16 版本的推理代码一样吗？要多大显存")
    assert "quantization_config" in text and "相同" in text


def test_several_cards_without_a_count_answers_the_count() -> None:
    intents, _, _ = analyse("RTX A6000 多卡推理 Qwen2.5-72B 支持吗")
    assert intents[0] == "min_gpus"
    text, _ = _run("RTX A6000 多卡推理 Qwen2.5-72B 支持吗")
    assert "4 张" in text.splitlines()[0]  # 145 GB / ≈ 43 GB usable ≈ 3.4 → 4, a divisor of 64 heads


def test_reference_run_on_my_card_leads_with_whether_it_fits() -> None:
    q = (
        "The authors trained it on 8 A100 80G for two days and say about 40G of VRAM is needed. Is it possible to "
        "train on my single 4090? (LoRA on FLUX.1-dev)"
    )
    intents, _, _ = analyse(q)
    assert intents[0] == "memory"
    text, results = _run(q)
    ests = [r for r in results if r.name == "estimate_memory" and "4090" in str(r.args.get("gpu"))]
    assert ests and ests[0].args.get("gpus", 1) == 1  # the 8 belongs to the authors' A100s
    assert text.splitlines()[0].startswith("Does not fit")  # FLUX.1-dev 11.9e9 × 2 B + T5 9.5 GB > 24 GB


def test_cpu_fine_tune_dry_run_sizes_ram_in_fp32() -> None:
    text, results = _run("我没有显卡，想在CPU上微调 Qwen2.5-1.5B 试一下流程，内存要多少？")
    est = next(r for r in results if r.name == "estimate_memory")
    assert est.args.get("precision") == "fp32"
    assert 5.8 <= est.result["weights_gb"] <= 6.6  # 1.54e9 × 4 B ≈ 6.2 GB
    assert "fp32" in text.splitlines()[0]


def test_plan_question_with_a_stated_setup_leads_with_its_verdict() -> None:
    q = "Which GPUs can QLoRA fine-tune Llama-2-70B? Would 4*24G work?"
    intents, _, _ = analyse(q)
    assert intents[0] == "memory"
    _, results = _run(q)
    est = next(r for r in results if r.name == "estimate_memory")
    assert est.args.get("gpus") == 4 and est.args.get("mode") == "qlora"


# ---- a Mac's unified memory is the card -----------------------------------------------------------------------------
# macOS lets the GPU wire about 75% of the RAM (Metal recommendedMaxWorkingSetSize; gpustack/gpustack#1375):
# 64 GB × 0.75 = 48 GB; Llama-2-70B 68.98e9 × 0.605 B (Q4_K_M) ≈ 41.7 GB fits. 8 GB × 0.75 = 6 GB; a 13B at
# Q4_K_M ≈ 13e9 × 0.605 ≈ 7.9 GB does not. The M2 Max reads 400 GB/s (Apple newsroom, knowledge/cpus.yaml).


def test_mac_unified_memory_is_sized_as_the_gpu_share() -> None:
    text, results = _run("I have a Mac Studio M2 Max with 64GB. Can llama.cpp run Llama-2-70B?")
    est = next(r for r in results if r.name == "estimate_memory")
    assert est.args.get("gpu") == "48GB" and est.args.get("int4_format") == "q4_k_m"
    assert text.startswith("Yes") and "75%" in text
    cpu = next(r for r in results if r.name == "cpu_inference")
    assert cpu.args.get("cpu") == "M2 Max" and "tokens/s" in text


def test_small_mac_does_not_hold_a_13b() -> None:
    text, _ = _run("MacBook Air 8GB: can ollama run a 13B model?")
    assert text.startswith("No")
