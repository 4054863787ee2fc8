"""Does it fit / why OOM with MY setup: the answer is about the setup named, and line 1 leads with it.

Hand-derived values (each from a public source):
- GLM-4V-9B: 13.9e9 params (huggingface.co/THUDM/glm-4v-9b, safetensors total); its model card loads it with
  torch_dtype=torch.bfloat16 → 13.9e9 × 2 B = 27.8 GB bf16 > one 24 GB card, < two; fp32 would be 55.6 GB.
- Qwen2-72B: 64 attention heads, 8 KV heads (huggingface.co/Qwen/Qwen2-72B-Instruct/blob/main/config.json):
  valid TP sizes divide both → 1, 2, 4, 8, 16; 6 GPUs = TP 2 × PP 3.
- GLM-4.5V: vision_config.num_heads 12 (huggingface.co/zai-org/GLM-4.5V/blob/main/config.json) with 96 decoder heads
  and 8 KV heads → TP ∈ {1, 2, 4}; 8 GPUs = TP 4 × PP 2.
- Meta llama example.py (github.com/meta-llama/llama/issues/136): 7B KV per token = 2 × 32 layers × 4096 × 2 B =
  0.5 MiB; 32 × 2048 tokens = 32 GiB.
- Qwen-7B: 7.72e9 params (huggingface.co/Qwen/Qwen-7B) × 2 B ≈ 15.4 GB fp16 read by a weight-only converter.
- GPT-2 124M (huggingface.co/openai-community/gpt2, nanoGPT train.py defaults): 124,439,808 × 16 B ≈ 1.99 GB.
- A bare 10B: int8 10e9 × 1 B = 10 GB, int4 10e9 × 0.5 B = 5 GB.
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.reading.setups import setup_mentions


def _run(q: str) -> tuple[str, list]:
    a, results = answer(q)
    return a.text, results


def _gb(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"(\d[\d,]*(?:\.\d+)?)\s*GB(?!/)", text)]


# ---- default precision: the model card's dtype, fp32 only when the card's snippet (or the user) says so ----------


def test_glm4v_on_two_4090s_with_transformers_is_bf16_and_fits() -> None:
    text, results = _run("两张4090用transformers跑glm-4v-9b，老是提示显存不够，到底能不能跑")
    est = next(r for r in results if r.name == "estimate_memory")
    assert est.args.get("precision") in (None, "bf16") and not est.args.get("load_fp32")
    first = text.splitlines()[0]
    assert first.startswith("能") and "按层切分" in first, first
    assert any(27 <= v <= 28.5 for v in _gb(first)), first  # 13.9e9 × 2 B


def test_a_model_whose_card_loads_fp32_keeps_the_fp32_default() -> None:
    _, results = _run("用transformers在一张3090上跑qwen3-embedding-8b推理，显存够吗")
    est = next(r for r in results if r.name == "estimate_memory")
    assert est.args.get("precision") == "fp32"


# ---- tensor-parallel sizes: each card at its own count, the head rule on line 1 ------------------------------------


def test_each_card_is_sized_at_its_own_count_and_6_v100_is_not_a_tp_size() -> None:
    text, results = _run("qwen2-72b要跑长上下文，8卡4090行不行？或者6块V100呢")
    counts = {r.args.get("gpu"): r.args.get("gpus") for r in results if r.name == "estimate_memory"}
    assert counts.get("RTX 4090") == 8 and counts.get("V100") == 6, counts
    first = text.splitlines()[0]
    assert "8 张 RTX 4090" in first and "6 张" in first, first
    assert "--tensor-parallel-size 2 --pipeline-parallel-size 3" in first, first  # 2 × 3 = 6, 2 divides 64 and 8
    assert "单卡" not in first, first
    assert "量化" in first, first  # ~1.1 GB per 4090 left for KV cache: long context needs quantised weights


def test_glm45v_twelve_vision_heads_rule_out_tp8() -> None:
    from tools.memory import EstimateMemoryInput, estimate_memory

    out = estimate_memory(EstimateMemoryInput(model="GLM-4.5V", mode="inference", gpus=8, gpu="RTX 4090"))
    assert out.tp_valid is False and out.tp_sizes == [1, 2, 4]
    assert out.tp_note and "--pipeline-parallel-size 2" in out.tp_note["zh"]
    text, _ = _run("8张4090能部署glm-4.5v吗，听说它只能4卡")
    assert "流水线并行" in text and "12 个注意力头" in text


def test_tp_layouts_use_exactly_the_cards() -> None:
    from tools.memory_parallel import tp_pp_layouts
    from tools.models import find_entry

    arch = find_entry("Qwen2-72B").arch  # type: ignore[union-attr]
    assert tp_pp_layouts(arch, 6) == [(2, 3), (1, 6)]
    assert tp_pp_layouts(arch, 8) == [(4, 2), (2, 4), (1, 8)]


# ---- setups that decide the answer -------------------------------------------------------------------------------


def test_llama_example_py_kv_preallocation_leads() -> None:
    text, _ = _run("llama 7b needs only ~8.5GB they say, yet example.py OOMs on my 24GB 4090, why?")
    first = text.splitlines()[0]
    assert "max_batch_size" in first and "32 GiB" in first, first
    assert "--max_batch_size 1" in first and "14.6 GB" in first  # 13.5 GB weights + 1 GiB cache at batch 1


@pytest.mark.parametrize(
    ("q", "setup"),
    [
        ("langchain-chatglm 在6G显卡上一直爆显存，chatglm-6b int4 也不行", "langchain_chatglm_embedding"),
        ("Wan2.1 14B 用两张H100会比一张快吗，要怎么开多卡", "wan_multi_gpu"),
        ("wan2.2 lora 训练 720p 帧数多一点就爆显存，H100 80G 都不够", "video_dit_lora_checkpointing"),
        ("T4 不支持 bf16，把 deepspeed 配置里 fp16 打开训练就行了吗", "fp16_on_no_bf16_card"),
        ("同一张 H100 上起两个 vllm 实例可以吗", "two_workers_one_gpu"),
        ("can I run two vllm instances (14B and 72B GPTQ) on one A100 80G?", "two_workers_one_gpu"),
        ("llamafactory 全参微调 qwen2-7b，README 说 60GB 就够，我 80G 还是 OOM", "llamafactory_pure_bf16"),
    ],
)
def test_setup_named_in_my_words_is_read(q: str, setup: str) -> None:
    assert f"setup:{setup}" in setup_mentions(q)


def test_langchain_answer_names_the_embedding_model() -> None:
    text, _ = _run("langchain-chatglm 在8G显卡上爆显存，能跑吗（chatglm-6b）")
    assert "EMBEDDING_DEVICE" in text and "int4" in text


def test_quantiser_reads_fp16_into_host_ram() -> None:
    text, _ = _run("qwen-7b 转 int8 的时候是不是要先加载 fp16 权重？会不会把显存撑爆")
    assert "15.4 GB" in text and "CPU 内存" in text  # 7.72e9 × 2 B


def test_two_workers_answer_names_isolation() -> None:
    text, _ = _run("a100 80g一张卡，同时起两个worker跑 qwen2.5-7b，显存够不够")
    assert "MIG" in text and "隔离" in text


def test_video_lora_oom_leads_with_activations() -> None:
    text, _ = _run("wan2.1 14b 训练 lora，480p 81帧，A100 80G 显存不够正常吗")
    first = text.splitlines()[0]
    assert first.startswith("只算权重") and "激活值" in first, first
    assert "gradient checkpointing" in text


def test_nanogpt_on_a_3060_is_sized_as_gpt2_small() -> None:
    text, results = _run("my laptop has an RTX 3060, is that enough to train nanoGPT?")
    est = next(r for r in results if r.name == "estimate_memory")
    assert est.args.get("model") == "GPT-2-Small" and est.result.get("fits") is True
    assert abs(est.result["model_states_gb"] - 1.99) < 0.05  # 124,439,808 × 16 B
    assert "--batch_size" in text


def test_trt_fp16_build_that_doesnt_load_is_a_fit_question() -> None:
    text, results = _run("rtx 4070 12gb can't load llama 7b, built with build.py --dtype float16")
    assert any(r.name == "estimate_memory" for r in results)
    first = text.splitlines()[0]
    assert first.startswith("No"), first
    assert "--weight_only_precision int8" in text


def test_full_and_qlora_counts_both_on_line_one() -> None:
    text, _ = _run("how many A800 80G do I need to full fine-tune Qwen1.5-72B, and how many for QLoRA?")
    first = text.splitlines()[0]
    assert "full fine-tuning: at least" in first and "QLoRA fine-tuning: at least 1 ×" in first, first


def test_int8_and_int4_sizes_are_stated() -> None:
    text, _ = _run("一个10B的模型，int8 和 int4 版本各要多大显存，两张24G够不够")
    assert "int8 约 10 GB" in text and "int4 约 5 GB" in text


def test_bare_gpt2_repo_name_does_not_swallow_gpt2_ml() -> None:
    from tools.models import find_entry

    assert find_entry("nanoGPT") is not None and find_entry("nanoGPT").id == "GPT-2-Small"  # type: ignore[union-attr]
    assert find_entry("gpt2-ml") is None  # a 1.5B Chinese model, not GPT-2 124M


def test_llama_prealloc_note_stays_out_of_training_questions() -> None:
    q = "pretraining llama2 on 4 V100 with max_seq_len 4096 keeps hitting OOM, batch size 1"
    assert "setup:llama_reference_kv_prealloc" not in setup_mentions(q)


def test_lmdeploy_4bit_export_through_transformers_is_named() -> None:
    text, _ = _run("两张3090用transformers加载internlm-chat-20b-4bit还是爆显存，咋回事")
    assert "LMDeploy" in text and "TurboMind" in text
