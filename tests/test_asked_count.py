"""A card count put as a question (「要8卡才能跑吗」 "do I really need 8 GPUs") is answered against the least count.

Expected counts are hand-worked: Llama-3-70B bf16 weights are 70.6e9 × 2 B ≈ 141 GB, more than one 80 GB card and
less than two (so 2 with tensor parallelism, not 8); a 35B model's bf16 weights are 70 GB, more than one 64 GB
Ascend 910B and less than two.
"""

from __future__ import annotations

from assistant.advisor import ask
from assistant.offline.reading.slots import extract


def test_a_count_before_cai_neng_is_a_count_not_a_card_index() -> None:
    assert extract("这个35B的要8卡才能跑吗").gpu_count == 8
    assert extract("8卡才占了一半显存").gpu_count is None  # 「8卡才…」 here names card 8's memory, not a count


def test_fewer_cards_than_asked_are_said_first() -> None:
    r = ask("do I really need 8 GPUs to serve Llama-3-70B on A100 80GB?", backend="offline")
    assert r.answer.splitlines()[0].startswith("No — 2 will do, not 8 (tensor parallel, TP=2).")
    assert "Not used: 8 GPUs" not in r.answer


def test_ascend_count_question_leads_with_the_count_not_the_stack() -> None:
    # vllm-ascend named beside 「能跑吗」 used to make the stack guide the whole answer
    r = ask("这个35B的要8卡才能跑吗，太牛了（vllm-ascend，Atlas A2 上部署 Qwen3.6-35B-A3B）", backend="offline")
    assert r.answer.startswith("不需要 8 张，2 张就放得下（张量并行 TP=2）。")
    assert any(c.name == "find_min_gpus" and "910B" in str(c.args.get("gpu")) for c in r.tool_calls)
