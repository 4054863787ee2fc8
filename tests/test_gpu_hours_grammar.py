"""One GPU-hours grammar (reading/quantities.py) read by both the slot reader (a run's published compute) and
the money reader (a quote × the user's GPU-hours). Values are the figures as written, converted by hand:
万 = 10^4, 百万 = 10^6, k = 10^3, M/million = 10^6.

Sources of the phrasings: Llama 2 paper (Touvron et al. 2023, Table 2: "3,311,616" A100-80GB GPU hours for the
family; 1,720,320 for the 70B), LLaVA (Liu et al. 2023) and LLaVA-1.5 training-cost threads ("1845 … and 3310
A100 GPU hours" style two-stage totals), Chinese write-ups quoting 「172 万 A100 卡时」 for Llama-2-70B.
"""

from __future__ import annotations

import pytest

from assistant.offline.reading import read_one
from assistant.offline.reading.money import read_gpu_hours


@pytest.mark.parametrize(
    "text,first,gpu",
    [
        ("Llama 2 70B took 1,720,320 A100 GPU-hours, how much would that cost?", 1_720_320, "A100"),
        ("llama2-70b用了172 万 A100 卡时，租卡要多少钱", 1_720_000, "A100"),
        ("训练用了1845 A100 GPU hours，折合多少钱", 1845, "A100"),
        ("about 2k GPU hrs on H100", 2000, "H100"),
        ("1.5M H100 GPU-hours of pretraining", 1_500_000, "H100"),
        ("我们大概要 500 gpu小时", 500, None),
        ("30万卡时的H800", 300_000, "H800"),
    ],
)
def test_both_readers_read_the_same_figure(text: str, first: float, gpu: str | None) -> None:
    f = read_one(text)
    assert f.gpu_hours == pytest.approx(first)
    assert read_gpu_hours(text)[0] == pytest.approx(first)
    if gpu:
        assert any(gpu in g for g in f.gpus), f.gpus  # the card between number and unit is still read


def test_a_joined_figure_shares_the_unit() -> None:
    assert read_gpu_hours("stage 1 and 2 took 1845 and 3310 A100 GPU hours") == [1845, 3310]
    assert read_gpu_hours("两阶段分别是1845和3310卡时") == [1845, 3310]


@pytest.mark.parametrize(
    "text",
    ["8 gpu h100 servers", "每小时 2.5 元的 4090", "$1.2/GPU-hour", "训练了3个小时"],
)
def test_not_gpu_hours(text: str) -> None:
    assert read_gpu_hours(text) == []
    assert read_one(text).gpu_hours is None
