"""Session 8 (fit/memory): catalog rows for Qwen-VL and XLM-RoBERTa encoders, encoder memory without logits or
KV cache, options a user switched off, the data-parallel reading of a device_map=None OOM, and setup notes for
cross-encoder group size, FlagEmbedding's evaluation batch and a command that lists two of four GPUs.
Phrasings are our own; expected values are hand arithmetic from config.json shapes (comments)."""

from __future__ import annotations

import pytest

from assistant.advisor import ask
from assistant.offline.reading import read
from tools.memory import EstimateMemoryInput, estimate_memory
from tools.models import resolve_model


def _params(name: str) -> int:
    return int(resolve_model(name).params)


@pytest.mark.parametrize("name", ["bce-embedding-base_v1", "bce-reranker-base_v1", "bge-reranker-base"])
def test_xlmr_base_aliases_count_278m(name: str) -> None:
    # XLM-R base: emb 250002×768 = 192,001,536; layer = 4(768²+768) + (768·3072+3072) + (3072·768+768) + 2·1536
    # = 7,087,872, ×12 = 85,054,464; emb LN 1,536; positions/type/pooler 986,112 → 278,043,648
    assert resolve_model(name).name == "XLM-RoBERTa-base"
    assert _params(name) == 278_043_648


def test_qwen_vl_is_9_6b_not_7b() -> None:
    # Qwen-7B decoder counted from shapes (~7.7B) + 1.94B ViT-bigG/resampler → ~9.66B (model card: 9.6B)
    assert 9.5e9 < _params("Qwen-VL-Chat") < 9.8e9


def test_encoder_training_has_no_vocab_logits() -> None:
    # a 250k-vocab LM head at 16 × 2048 tokens would be ~131 GB of logits; an encoder has none
    out = estimate_memory(EstimateMemoryInput(model="xlm-roberta-large", mode="full", gpu="RTX 4090", batch=8))
    assert out.logits_gb == 0.0
    # states 16 B × 559.9M ≈ 8.96 GB; the whole job fits a 24 GB card at 8 × 512 tokens
    assert out.model_states_gb == pytest.approx(8.96, rel=0.02)
    assert out.fits


def test_encoder_serving_has_no_kv_cache() -> None:
    out = estimate_memory(EstimateMemoryInput(model="bge-reranker-base", mode="inference", gpu="8GB"))
    assert out.kv_cache_gb == 0.0
    assert out.weights_gb == pytest.approx(0.556, rel=0.02)  # 278.0M × 2 B


def test_period_unit_is_a_whole_word() -> None:
    # "torchrun" holds the letters "hr": not one hour of anything
    f, _ = read("torchrun --nproc_per_node 4 train.py 跑 Llama-2-7B 显存不够")
    assert f.period_hours is None


def test_commented_flag_is_off() -> None:
    f, _ = read("训练命令：\npython run.py \\\n# --gradient_checkpointing\n--fp16 \\\n--model bge-m3\n8G 显存够吗")
    assert "checkpointing_on" not in f.mentions
    assert "setup:shell_comment_breaks_continuation" in f.mentions


def test_removed_quantisation_flag_is_not_qlora() -> None:
    f, _ = read("我去掉了 --load_in_4bit 之后用两张 2080Ti 22G 跑 Baichuan2-7B 的 LoRA，爆显存了")
    assert f.mode != "qlora"


def test_device_map_none_ddp_does_not_fit_on_32gb_cards() -> None:
    # Qwen-72B in 4-bit ≈ 72.3e9 × ~0.52 B ≈ 38–41 GB per process under data parallel, above a 32 GB V100 (34.4 GB)
    a = ask(
        "4 x V100 32GB, Q-LoRA on Qwen-72B-Chat-Int4 with device_map = None, still OOM. What can I change?",
        backend="offline",
    )
    calls = [c for c in a.tool_calls if c.name == "estimate_memory"]
    assert calls and calls[0].args.get("zero") == 0
    assert 'device_map="auto"' in a.answer


def test_reranker_training_names_group_size() -> None:
    q = "Fine-tuning bge-reranker-base on one 24GB 4090 with --per_device_train_batch_size 16 gives CUDA out of memory, how do I fix it?"
    a = ask(q, backend="offline")
    assert "train_group_size" in a.answer


def test_flagembedding_eval_names_default_batch_and_idle_cards() -> None:
    q = (
        "Eight 4090s, but python -m FlagEmbedding.evaluation.msmarco --embedder_name_or_path BAAI/bge-m3 "
        "--devices cuda:0 cuda:1 runs out of memory. Why?"
    )
    a = ask(q, backend="offline")
    assert "3000" in a.answer and "two GPUs" in a.answer


def test_fairly_slow_is_not_a_symptom() -> None:
    # 「CPU 会比较慢」 describes an option; the question is how much memory the two encoders need
    a = ask("bge-reranker-base 和 bce-embedding-base_v1 都放 GPU 上，CPU 会比较慢，6G 显存的卡够吗", backend="offline")
    assert any(c.name == "estimate_memory" for c in a.tool_calls)


def test_card_memory_in_mib_is_read() -> None:
    # 12288 MiB / 1024 = 12.0 (GiB, the figure a nominal "12 GB" card shows)
    f, _ = read("显存只有 12288MiB，能 LoRA 微调 Qwen2-1.5B 吗")
    assert f.vram_gb == 12.0


def test_model_glued_to_finetune_is_read() -> None:
    f, _ = read("单卡A100能否全参数finetuneQwen2-7B？")
    assert f.model == "Qwen2-7B"


@pytest.mark.parametrize("said", ["batch 1 都OOM", "依旧会OOM", "仍然OOM"])
def test_oom_said_after_an_adverb_is_a_report(said: str) -> None:
    f, _ = read(f"两张 3090 LoRA 微调 Llama-2-13B，{said}")
    assert "oom_report" in f.mentions


def test_no_card_named_gets_the_memory_size_that_holds_it() -> None:
    import re

    # Qwen2-1.5B full fine-tune: 1.54e9 × 16 B ≈ 24.7 GB of states alone, above 0.9 × 24 GB, so never the 24 GB
    # class; the class named must hold the whole per-GPU total with 10% to spare
    a = ask("全量微调 Qwen2-1.5B 需要多大显存的显卡？", backend="offline")
    m = re.search(r"放得下的最小常见显存档是 (\d+) GB", a.answer)
    total = estimate_memory(EstimateMemoryInput(model="Qwen2-1.5B", mode="full")).total_gb
    assert m and int(m.group(1)) != 24 and total <= 0.9 * int(m.group(1))
    assert total > 0.9 * {48: 32, 32: 24}.get(int(m.group(1)), 0)  # and the class below would not


def test_largest_on_several_cards_says_it_shards() -> None:
    a = ask("4张A100 40G 最多能 LoRA 微调多大的模型？", backend="offline")
    assert "ZeRO-3" in a.answer and "DDP" in a.answer


def test_vlm_oom_names_image_tokens() -> None:
    a = ask("Qwen2.5-VL-7B LoRA 微调，4 张 4090，图片是 3000x2000 的，一直 OOM，加卡有用吗", backend="offline")
    assert "max_pixels" in a.answer.lower()


def test_llamafactory_full_is_one_flag() -> None:
    a = ask("LLaMA-Factory 能全参数微调 Qwen2-7B 吗，要怎么设置", backend="offline")
    assert "--finetuning_type full" in a.answer
