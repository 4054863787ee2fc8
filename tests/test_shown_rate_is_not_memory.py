"""A bandwidth a user measured ("3868 GB/s") is a rate, not the memory size nvidia-smi showed.

Why: "显示 … 3868 GB/s，正常吗" used to be read as "the card shows 3868 MB of memory" and answered "suspicious:
fewer MiB than a genuine card". The RTX 4090's datasheet memory bandwidth is 1008 GB/s (NVIDIA Ada whitepaper).
"""

from __future__ import annotations

from assistant.offline import answer
from assistant.offline.reading import read_one as read_frame


def test_a_measured_rate_is_not_reported_memory() -> None:
    f = read_frame("bandwidthTest 显示 Memory Bandwidth 3868 GB/s，4090 官方才 1008，正常吗")
    assert f.reported_memory is None


def test_a_shown_memory_size_is_still_read() -> None:
    f = read_frame("我的4090 nvidia-smi 只显示 23028MiB，是不是假卡")
    assert f.reported_memory == (23028.0, "MiB")


def test_the_answer_does_not_call_the_card_fake() -> None:
    a, _ = answer("测出来显存带宽 2590 GB/s，4090 显示这么高正常吗")
    assert "可疑" not in a.text.splitlines()[0]
