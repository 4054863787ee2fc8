"""'Is this temperature OK?' is answered from the temperature guide: the card's own slowdown threshold and the
thermal-slowdown flags (NVML nvmlTemperatureThresholds_t; nvidia-smi -q -d TEMPERATURE / PERFORMANCE), never
with a spec sheet or a price list."""

from __future__ import annotations

import pytest

from assistant.advisor import ask
from tools.retrieval.synonyms import expand


@pytest.mark.parametrize(
    "question",
    [
        "4090跑训练一直95度，会不会坏",
        "租的A800服务器温度 87℃ 要紧吗",
        "显卡温度老是90多度正常吗",
        "my 3090 sits at 89C during training, is that ok?",
        "GPU temps hit 92C and the clocks drop, what can I do on a rented box",
    ],
)
def test_temperature_questions_get_the_slowdown_threshold_answer(question: str) -> None:
    a = ask(question)
    head = "\n".join(a.answer.splitlines()[:2])
    assert "nvidia-smi -q -d" in head
    assert "slowdown" in head.lower() or "降频" in head
    assert "¥" not in head and "TFLOPS" not in head  # not a price list or a spec sheet


def test_a_temperature_reading_expands_the_query_but_a_count_does_not() -> None:
    assert "temperature" in expand("8卡 跑到 100度")
    assert "temperature" in expand("sits at 89C")
    assert "temperature" not in expand("训练3天 8卡")
    assert "temperature" not in expand("batch 1024c")  # four digits and a letter is no temperature
