"""KV cache per token per card under tensor parallelism, said beside the whole-model figure.

Hand-worked from config.json: Qwen1.5-72B has 80 layers and 64 KV heads of 128 → 2 × 80 × 64 × 128 × 2 B =
2,621,440 B = 2560 KiB per token; TP 4 splits the heads → 640 KiB (655,360 B) per card (the figure asked in
https://github.com/QwenLM/Qwen3/issues/353, Qwen1.5-72B-Chat-GPTQ-Int4 on 4 × V100 16G). Llama-3-70B has 8 KV heads:
320 KiB per token; at TP 16 each card keeps one head (vLLM replicates KV heads past their count) → 40 KiB.
"""

from __future__ import annotations

from tools.memory import EstimateMemoryInput, estimate_memory


def _kv_line(model: str, gpus: int) -> str:
    est = estimate_memory(EstimateMemoryInput(model=model, mode="inference", gpus=gpus, precision="int4"))
    return next(a["zh"] for a in est.assumptions if a["zh"].startswith("KV 缓存"))


def test_heads_split_over_four_cards() -> None:
    line = _kv_line("Qwen1.5-72B", 4)
    assert "每 token 2560.0 KiB" in line and "4 卡张量并行时每卡每 token 640.0 KiB" in line


def test_heads_replicated_past_their_count() -> None:
    assert "16 卡张量并行时每卡每 token 40.0 KiB" in _kv_line("Llama-3-70B", 16)


def test_one_card_says_no_split() -> None:
    assert "张量并行时" not in _kv_line("Qwen1.5-72B", 1)
