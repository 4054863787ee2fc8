"""The offline planner reads the training method and host RAM from casual questions and says what they cost.

Phrasings are our own (none copied from the real-question sets). Figures are worked by hand:
Qwen2.5-7B 7.62e9 × 2 B = 15.23 GB; Qwen2.5-14B 14.77e9 × 2 B = 29.5 GB; Qwen2.5-32B 32.76e9 × 2 B = 65.5 GB;
Qwen2.5-72B 72.71e9 × 2 B = 145.4 GB (config.json parameter counts); DeepSeek-V3 671e9 × 2 B = 1,342 GB (bf16,
since the A800 has no FP8 tensor cores); Qwen1.5-32B has 40 attention heads (config.json).
"""

from __future__ import annotations

import pytest

from assistant.offline import answer
from assistant.offline.reading.slots import extract


@pytest.mark.parametrize(
    "q, method",
    [
        ("想用dpo训一下qwen2.5 7b，全参", "dpo"),
        ("PT+SFT+DPO 一路训下来 DPO 阶段爆显存", "dpo"),
        ("grpo强化学习 qwen2.5-7b 全量 要多少显存", "grpo"),
        ("RLHF 用 PPO 训 qwen2.5-7b 要几张 A100", "ppo"),
        ("做偏好对齐训练 7b 要多大显存", "dpo"),
        ("orpo vs simpo which needs less VRAM for llama3 8b", "orpo"),
        ("qwen2.5 7b lora 微调要多少显存", None),
    ],
)
def test_method_is_read(q: str, method: str | None) -> None:
    assert extract(q).method == method


@pytest.mark.parametrize(
    "q, ram, word",
    [
        ("8张A800，机器内存512G", 512.0, True),
        ("cpu内存只有96G，4张4090", 96.0, True),
        ("单机内存1T 跑 70b", 1000.0, True),
        ("I have 64GB RAM and a 24GB 4090", 64.0, True),
        ("GPU内存12G够不够跑chatglm2-6b", None, False),
        ("显存24G能跑7b吗", None, False),
    ],
)
def test_host_ram_is_read_and_not_confused_with_vram(q: str, ram: float | None, word: bool) -> None:
    f = extract(q)
    assert f.host_ram_gb == ram
    assert ("host_ram_word" in f.mentions) is word


def _text(q: str) -> str:
    a, _ = answer(q)
    return a.text


def test_dpo_answer_names_pairs_reference_and_host_ram() -> None:
    t = _text("想用dpo训一下qwen2.5 7b，全参，8张A800够不够？机器内存512G")
    assert "DPO" in t.split("\n")[0]
    assert "chosen" in t and "参考模型" in t
    # 8 processes × (policy + reference) × 15.23 GB = 243.7 GB if zero.Init is not active
    assert "主机内存（RAM" in t and "244 GB" in t and "512 GB" in t


def test_grpo_answer_names_reference_and_rollouts() -> None:
    t = _text("grpo强化学习 qwen2.5-7b 全量 要多少显存")
    assert "GRPO" in t and "参考模型" in t and "rollout" in t


def test_fp8_release_on_a800_is_sized_in_bf16_with_why() -> None:
    t = _text("A800 部署 DeepSeek-V3 要几张卡")
    first = t.split("\n\n")[0]
    assert "1,342 GB" in first and "FP8 张量核" in first and "bf16" in first


def test_invalid_tensor_parallel_size_is_said_with_valid_ones() -> None:
    t = _text("6张A10部署qwen1.5-32b-chat能行吗")
    first = t.split("\n\n")[0]
    assert "整除 40" in first and "4 或 8" in first and "pipeline-parallel-size" in first


def test_oom_while_loading_says_each_process_loads_the_whole_base() -> None:
    t = _text("两张3090 lora qwen2.5-14b，get_peft_model 的时候就爆显存了")
    line1 = t.split("\n")[0]
    assert line1.startswith("在加载模型") and "29.5 GB" in line1


def test_oom_that_should_fit_names_gradient_checkpointing_and_length() -> None:
    t = _text("A100 80G 上 lora 微调 qwen2.5-7b，cutoff_len 4096，一直 OOM 怎么办")
    line1 = t.split("\n")[0]
    assert "gradient_checkpointing" in line1 and "4096" in line1


def test_english_ram_question_gets_host_ram_figure() -> None:
    t = _text("I have 64GB RAM and a 24GB 4090, how much system RAM does Qwen2.5-32B inference need?")
    assert "Host RAM" in t and "65.5 GB" in t and "VRAM" in t


def test_multi_gpu_answer_keeps_the_whole_model_weights() -> None:
    t = _text("4张A100推理qwen2.5-72b要多少显存")
    first = t.split("\n")[0]
    assert "整个模型的权重（bf16）约 145.4 GB" in first
    assert "，。" not in t and "，\n" not in t


def test_zero2_answer_says_each_card_holds_the_full_weights() -> None:
    # ZeRO-2 shards gradients and optimizer states, not parameters (ZeRO paper arXiv:1910.02054 §5.2)
    t = _text("4张3090用deepspeed zero2 lora微调qwen2.5-7b，cutoff_len 4096 要多少显存")
    first = t.split("\n")[0]
    assert "ZeRO-2，每卡一份完整权重" in first and "15.2 GB" in first
    assert "序列长度 4096" in t


def test_kv_question_on_two_gpus_gives_per_sequence_and_total() -> None:
    # 327,680 B/token × 16,000 tokens = 5.2 GB per sequence; 2 sequences = 10.5 GB, split over 2 GPUs
    t = _text("两张H100跑llama-3.1-70b，上下文16000，并发2，KV cache要多少")
    first = t.split("\n")[0]
    assert "KV 缓存每卡约 5.2 GB" in first and "5.2 GB" in first and "10.5 GB" in first


def _calls(q: str) -> list[tuple[str, dict]]:
    _, results = answer(q)
    return [(r.name, r.args) for r in results]


def test_serving_and_finetuning_asked_together_get_both() -> None:
    modes = {
        a.get("mode") for n, a in _calls("推理和微调 qwen2.5-7b 分别要多少显存，一张4090够吗") if n == "estimate_memory"
    }
    assert {"inference", "full", "lora"} <= modes
    # serving a model that was fine-tuned earlier is only serving
    later = {a.get("mode") for n, a in _calls("部署微调后的 qwen2.5-7b 要多少显存") if n == "estimate_memory"}
    assert later == {"inference"}


def test_four_bit_finetune_is_qlora_not_an_error() -> None:
    # a 4-bit frozen base for fine-tuning is QLoRA (arXiv:2305.14314): Qwen2.5-7B NF4 base ≈ 7.6e9 × ~0.52 B
    t = _text("qwen2.5-7b 4bit 微调，一张 4090 行吗")
    assert "QLoRA" in t.split("\n")[0] and "不能用 int4" not in t


def test_fp8_release_with_no_card_named_is_sized_on_an_fp8_card() -> None:
    # DeepSeek-R1 FP8 ≈ 671–673 GB > 8 × 80 GB × 0.9 usable → 16 Hopper cards; on an A100 it would be the bf16 size
    calls = _calls("部署 deepseek-r1 满血版要几张卡")
    cards = {a.get("gpu") for n, a in calls if n == "find_min_gpus"}
    assert cards == {"H800"}
    assert "16 张 H800" in _text("部署 deepseek-r1 满血版要几张卡").split("\n")[0]


def test_named_serving_engine_is_used_and_its_preallocation_said() -> None:
    calls = _calls("用 sglang 在两张 H100 上部署 qwen2.5-72b，显存够吗")
    assert any(n == "estimate_memory" and a.get("engine") == "sglang" for n, a in calls)
    assert "mem_fraction_static" in _text("用 sglang 在两张 H100 上部署 qwen2.5-72b，显存够吗")


def test_unsloth_finetune_is_sized_as_qlora_first() -> None:
    # Unsloth notebooks: load_in_4bit=True (QLoRA); LoRA in 16 bits shown beside it
    calls = _calls("用 unsloth 微调 qwen2.5-7b，4090 够吗")
    modes = [a.get("mode") for n, a in calls if n == "estimate_memory"]
    assert modes[:2] == ["qlora", "lora"]
    assert "load_in_4bit" in _text("用 unsloth 微调 qwen2.5-7b，4090 够吗")


def test_grpo_with_vllm_rollouts_is_training_not_a_serving_error() -> None:
    # "vLLM" here generates GRPO rollouts; the job is training, never "vllm is a serving engine"
    t = _text("unsloth 跑 grpo，用 vllm 生成，qwen2.5-7b 在 4090 上显存够吗")
    assert "serving engine" not in t and "推理引擎" not in t
    assert "GRPO" in t or "QLoRA" in t


@pytest.mark.parametrize(
    "q, stage", [("deepspeed: examples/deepspeed/ds_z2_config.json", 2), ("用 ds_z3_offload_config.json 跑", 3)]
)
def test_llamafactory_deepspeed_config_names_the_zero_stage(q: str, stage: int) -> None:
    assert extract(q).zero_stage == stage
