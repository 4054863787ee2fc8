"""The answer shape (issue 16 items 1–2): verdict first, at most five key lines, the details in a
collapsible <details> block, the not-used line, sources once at the end by title; clean punctuation;
no internal words."""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.writing.render import Writer, clean_punctuation

_QUESTIONS = [
    "能用4090全量训练7B吗",
    "Can I fully fine-tune a 7B model on an RTX 4090?",
    "70B 全量微调要几张 A100，一个月多少钱？",
    "A100 80G 一个月多少钱",
    "8卡A100训练7B，1T token 要多久",
]


def _key_part(text: str, lang: str) -> str:
    marker = Writer.DETAILS_OPEN[lang]
    return text.split(marker)[0] if marker in text else text


@pytest.mark.parametrize("question", _QUESTIONS)
def test_shape(question: str) -> None:
    a, _ = answer(question)
    text = a.text
    first = text.splitlines()[0]
    assert first and not first.startswith(("**", "-", "<")), first  # line 1 is the verdict itself
    assert re.search(r"\d", first), first  # with the deciding number
    key = _key_part(text, a.language)
    bullets = [ln for ln in key.splitlines() if ln.startswith("- ")]
    assert len(bullets) <= Writer.MAX_KEY_LINES, bullets
    assert text.count(Writer.DETAILS_OPEN[a.language]) == 1 and text.count(Writer.DETAILS_CLOSE) == 1
    sources = text.split("**来源**" if a.language == "zh" else "**Sources**")
    assert len(sources) == 2 and "`" not in sources[1]  # once, at the end, titles (no doc ids)
    assert text.index(Writer.DETAILS_CLOSE) < text.index(sources[1])


@pytest.mark.parametrize("question", _QUESTIONS)
def test_no_internal_words(question: str) -> None:
    a, _ = answer(question)
    assert not re.search(r"种子|seed article|the seed\b", a.text, re.I), a.text


def test_clean_punctuation() -> None:
    assert clean_punctuation("放不下。；换 LoRA。") == "放不下。换 LoRA。"
    assert clean_punctuation("It does not fit.; Use LoRA.") == "It does not fit. Use LoRA."
    assert clean_punctuation("约 1 字节；（见 `faq`）") == "约 1 字节。（见 `faq`）"
    assert clean_punctuation("`a.;b` 不动") == "`a.;b` 不动"  # code is quoted verbatim
