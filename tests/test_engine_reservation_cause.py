"""「vLLM 下显存占用高达18G，参数只要2.5G，开销在哪」: the engine's reservation is the cause, and the context the
user set sizes one sequence's KV cache beside the weights.

Questions: https://github.com/QwenLM/Qwen3/issues/1509 (Qwen3-4B-AWQ under vLLM, 8192 tokens) and
https://github.com/xorbitsai/inference/issues/4077 (Qwen3-Embedding-0.6B under Xinference + vLLM). Qwen3-4B config.json
(huggingface.co/Qwen/Qwen3-4B): 36 layers, 8 KV heads, head_dim 128 → 2 × 36 × 8 × 128 × 2 B = 147,456 B = 144 KiB
per token; × 8192 = 1.208 GB (hand-worked). vLLM docs: --gpu-memory-utilization defaults to 0.9 of the card.
"""

from __future__ import annotations

from assistant.advisor import ask
from assistant.offline.reading.slots import extract
from tools.retrieval.leads import guide_leads

QWEN3_AWQ = (
    "Qwen3 4B AWQ量化模型在vllm下显存占用高达18G：如题，调整gpu_memory_utilizaton参数到低于18G就会报显存不足的错误，"
    "但是读取参数只需要2.5G+，token长度设置的8192。请问这中间的十几G显存开销是在哪里呢，有办法减少吗？"
)


def test_a_context_set_with_a_verb_is_read() -> None:
    assert extract("token长度设置的8192").context == 8192
    assert extract("上下文长度设成 32768").context == 32768


def test_engine_memory_complaints_lead_with_the_reservation() -> None:
    assert guide_leads(QWEN3_AWQ) == ["memory-looks-full"]
    assert guide_leads("Qwen3-Embedding-0.6B 显存占用过多（Xinference 1.10.0，vllm 引擎）") == ["memory-looks-full"]
    assert guide_leads("vLLM 跑 7B 要多少显存") == []  # a sizing question, not a complaint


def test_the_answer_names_the_reservation_and_one_sequence_kv() -> None:
    r = ask(QWEN3_AWQ, backend="offline")
    assert "gpu_memory_utilization" in r.answer.split("\n")[0].replace("-", "_")
    assert "8,192 token，一条完整序列的 KV 缓存约 1.2 GB（每 token 144 KiB" in r.answer


def test_no_lead_rescans_the_text_from_every_position() -> None:
    """A lookahead `(?=.*…)` not anchored at `^` rescans the whole question from each start position: quadratic on a
    pasted log (a 20,000-character paste took 25 s). Structural, so it holds on any machine."""
    from tools.retrieval.leads import _patterns
    from tools.retrieval.paths import guide_dir

    for doc_id, rx in _patterns(str(guide_dir())):
        src = rx.pattern
        assert "(?=.*" not in src or src.startswith("^"), doc_id
