"""「两张卡用 NVLink 显存能叠加吗」: a common misconception, answered "no" on line 1 with each card's own memory.

Why it matters: the spec answer used to lead with "有。… NVLink 112.5 GB/s" — a confident yes to a question
that was not asked. NVLink (and PCIe) connect separate devices; CUDA exposes each GPU with its own memory, and a
model larger than one card must be split (tensor/pipeline parallel, ZeRO-3/FSDP). Card memory from the NVIDIA
datasheets: RTX 3090 24 GB, A100 SXM4 80 GB, RTX 4090 24 GB (no NVLink on Ada GeForce).
"""

from __future__ import annotations

import pytest

from assistant.offline import answer


@pytest.mark.parametrize(
    "question, per_card, lang",
    [
        ("两张3090用nvlink桥接以后显存能叠加成48G不", "24 GB", "zh"),
        ("俩4090显存可以合并起来用吗", "24 GB", "zh"),
        ("2张a100 nvlink之后显存能共享吗 当160G用", "80 GB", "zh"),
        ("if I bridge two 3090s with NVLink will the vram double to 48gb?", "24 GB", "en"),
        ("can two A100s pool their memory over nvlink", "80 GB", "en"),
    ],
)
def test_memory_is_not_pooled_across_cards(question: str, per_card: str, lang: str) -> None:
    a, _ = answer(question)
    first = a.text.splitlines()[0]
    assert first.startswith("不会") if lang == "zh" else first.startswith("No"), first
    assert per_card in first
    assert ("并行" in first) if lang == "zh" else ("parallel" in first)
    assert not first.startswith(("有。", "Yes"))


def test_a_plain_nvlink_question_still_gets_the_link() -> None:
    a, _ = answer("3090有nvlink吗")
    assert a.text.splitlines()[0].startswith("有。")
