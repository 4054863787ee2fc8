"""Two reading rules found on real questions (none of these phrasings is from an eval set):
- 「还是OOM / 还是不行 / 还是报错」: 还是 means "still" before a failure word, so it is not a comparison;
- a later part that repeats the card without the model ("我用了5张V100，合计80G，还是OOM") is part of the same
  memory question, not a spec question about the card (and never a "V100 80GB" lookup)."""

from __future__ import annotations

import pytest

from assistant.offline import answer
from assistant.offline.intents import choose_intents
from assistant.offline.reading import read_one


@pytest.mark.parametrize(
    "question",
    ["lora微调7b，batch改成1了还是OOM", "换了驱动还是不行", "改了配置还是报错", "两张3090跑14b还是爆显存"],
)
def test_still_is_not_or(question: str) -> None:
    assert "compare" not in read_one(question).cues


@pytest.mark.parametrize("question", ["用A100还是4090", "H20还是A800训练好", "租还是买"])
def test_or_is_still_a_comparison(question: str) -> None:
    assert "compare" in read_one(question).cues


def test_a_part_repeating_the_card_stays_with_the_memory_question() -> None:
    q = "qwen2.5-7b lora微调，2张4090（24G）还是OOM？我又换成4张4090，一共96G，还是OOM，到底要多少显存"
    assert choose_intents(read_one(q)) == ["memory"]
    a, results = answer(q)
    assert "gpu_price" not in [r.name for r in results]  # nobody asked a price
    assert "96GB" not in a.text.replace(" ", "")  # the total is not a card size
