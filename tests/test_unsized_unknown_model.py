"""A model nobody here knows, named without its size: say so on line 1 and ask for the size — never answer with
another model's figures or an unrelated guide passage (the brief's worst outcome: a confident answer to another
question).
"""

from __future__ import annotations

import pytest

from assistant.offline import answer
from assistant.offline.reading import read_one


@pytest.mark.parametrize(
    "question, name",
    [
        ("想本地部署 FooVoice3 需要多大显存啊", "FooVoice3"),
        ("跑 MagicPortrait 要什么显卡，4090够吗", "MagicPortrait"),
        ("how much vram do I need for Zephyr-orpo inference", "Zephyr-orpo"),
        ("训练 YOLOv8 要几张卡", "YOLOv8"),
    ],
)
def test_an_unknown_unsized_model_is_named_and_its_size_asked_for(question: str, name: str) -> None:
    a, results = answer(question)
    first = a.text.splitlines()[0]
    assert name in first
    assert ("参数量" in first) if "显" in question or "卡" in question else ("parameter count" in first)
    assert not results  # nothing was sized or searched for: no other model's number can leak in


@pytest.mark.parametrize(
    "question",
    [
        "用vLLM部署Qwen2.5-7B要多大显存",  # a catalog model
        "部署 FooVoice3（1.3B）要多大显存",  # a size was given: it is sized as a generic model
        "预算有限，主要做 CV 模型训练（ResNet、YOLO 这类），选什么卡？",  # a kind of model, the guide answers
        "用DeepSpeed训练要什么显卡",  # a tool name, not a model
        "paddleseg2.8 训练要多大显存",  # a version string
    ],
)
def test_known_sized_or_generic_questions_are_not_caught(question: str) -> None:
    assert not read_one(question).unknown_model or "这类" in question
    a, _ = answer(question)
    assert "问题里也没有它的参数量" not in a.text.splitlines()[0]
