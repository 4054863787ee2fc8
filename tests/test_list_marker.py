"""A list number glued to a size at a line's start is not part of the size.

https://github.com/TigerResearch/TigerBot/issues/165 (「2.70B的模型持续增量预训练…（TigerBot-70B，全参数）」): item 2 of
a list, asking about the 70B model named in the same message; a 2.7B model written alone stays 2.7B.
"""

from __future__ import annotations

from assistant.offline.reading.slots import extract

TIGERBOT = "如何在领域数据上增量预训练呢？\n2.70B的模型持续增量预训练，至少需要多少个机器呢？（TigerBot-70B，全参数，8 卡 A100 机器）"


def test_list_number_before_a_size_named_again_is_dropped() -> None:
    assert extract(TIGERBOT).params_b == 70.0


def test_a_real_fractional_size_stays() -> None:
    assert extract("Phi-2 2.70B 能跑吗").params_b == 2.7
    assert extract("1. 2.7B的模型要多少显存").params_b == 2.7
    assert extract("2.70B的模型要多少显存").params_b == 2.7  # no 70B elsewhere: nothing says it is a list


def test_how_many_machines_is_a_count_question() -> None:
    assert "how_many" in extract(TIGERBOT).cues
