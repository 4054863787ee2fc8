"""Issue 12: short follow-ups are answered in the previous turn's context.

Own phrasings (not the dev cases'); expected figures hand-worked from public sources:
InfiniBand NDR 4x = 400 Gb/s and HDR = 200 Gb/s per port (NVIDIA/Mellanox ConnectX-7/6 product briefs),
so 400 ÷ 8 = 50 GB/s and 200 ÷ 8 = 25 GB/s per direction; H100 SXM NVLink 4 = 900 GB/s bidirectional
(NVIDIA H100 datasheet), 450 GB/s each way.
"""

from __future__ import annotations

import pytest

from assistant.offline import answer
from assistant.offline.reading.followups import is_followup, strip_courtesy
from assistant.offline.reading.slots import extract


def _chat(*turns: str) -> str:
    hist: list[dict] = []
    text = ""
    for t in turns:
        a, _ = answer(t, hist, "auto")
        text = a.text
        hist += [{"role": "user", "content": t}, {"role": "assistant", "content": text}]
    return text


@pytest.mark.parametrize(
    ("q", "rest"),
    [
        ("谢谢。那A100呢？", "那A100呢？"),
        ("非常感谢！换成8卡呢", "换成8卡呢"),
        ("好的，那 QLoRA 呢", "那 QLoRA 呢"),
        ("thanks! and on two cards?", "and on two cards?"),
        ("Got it. What about the H20?", "What about the H20?"),
        ("谢谢", "谢谢"),  # nothing after the thanks: unchanged
    ],
)
def test_strip_courtesy(q: str, rest: str) -> None:
    assert strip_courtesy(q) == rest


def test_thanks_in_front_is_still_a_follow_up() -> None:
    q = "多谢。那4090呢？"
    assert is_followup(q, extract(q))


def test_ib_rate_follow_up_is_the_port_line_rate() -> None:
    last = _chat(
        "H100 的 NVLink 号称 900GB/s，可我们 nccl-tests 测出来才 370 GB/s，是机器有问题吗",
        "明白了。那 IB 带宽 25GB/s 是实测的吗？",
    )
    first = last.strip().splitlines()[0]
    # 25 GB/s × 8 = 200 Gb/s: one HDR port's per-direction line rate, a nominal figure
    assert first.startswith("25 GB/s") and "200 Gb/s" in first and "HDR" in first
    assert "不是实测" in first


def test_ib_rate_in_the_first_question_is_not_called_measured_nvlink() -> None:
    # "NVLink 160 GB/s, IB 50 GB/s" on an H800: 160 is a measured NVLink figure (below 200 GB/s each way),
    # 50 is exactly one NDR port (400 Gb/s ÷ 8) — it must not be reported as "25% of the NVLink peak"
    for q in (
        "H800 的 NVLink 论文里写 160GB/s，IB 是 50GB/s，规格不是 400GB/s 吗？",
        "H800 NVLink: the paper says 160 GB/s and IB 50 GB/s, but the spec sheet says 400 GB/s?",
    ):
        text = _chat(q)
        assert "400 Gb/s ÷ 8 = 50 GB/s" in text
        assert "25%" not in text
