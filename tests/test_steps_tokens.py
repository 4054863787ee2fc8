"""A run's data given as steps × batch × sequence length, and its card-hours.

https://github.com/ymcui/Chinese-LLaMA-Alpaca/issues/514: 「用16张A100卡batch_size=1024大约6h可以训练1K步 …
（预训练 block_size 512）」. Hand-worked: 1000 × 1024 × 512 = 524,288,000 tokens; 16 × 6 h = 96 GPU-hours.
"""

from __future__ import annotations

from assistant.advisor import ask
from assistant.offline.reading.run_figures import steps_batch_length

QUESTION = (
    "预训练阶段7b、13b所需要的资源及训练时间？我看在其他issue中有提到：“在LoRA预训练阶段，用16张A100卡batch_size=1024"
    "大约6h可以训练1K步。”请问，这个是指的7b还是13b呢？问题二：如果想预训练最大长度1024的，资源数及训练时间有相关参考吗？"
    "（Chinese-LLaMA-Alpaca，预训练 block_size 512）"
)


def test_steps_batch_and_block_size_are_read() -> None:
    assert steps_batch_length(QUESTION) == (1000, 1024, 512)  # block_size, not the 1024 of question two
    assert steps_batch_length("batch 8 跑了 100 步") is None  # no length: no token count


def test_tokens_and_card_hours_in_the_answer() -> None:
    r = ask(QUESTION, backend="offline")
    assert "1000 步 × 每步 1024 条 × 512 token = 5.243亿 token" in r.answer
    assert "16 × 6 小时（= 96 卡时）" in r.answer
    assert "你没给数据量" not in r.answer
