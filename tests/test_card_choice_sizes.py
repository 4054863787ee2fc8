"""One card at two memory sizes (「A100 40G 还是 80G」) is a choice between two table rows, answered with which one.

A100 40GB and 80GB share the GA100 chip: 312 dense BF16 TFLOPS each (NVIDIA A100 datasheet), so a training choice
rests on memory and price, never on "1.0× faster". Qwen2.5-32B bf16 weights are 32.76e9 × 2 B = 65.5 GB: more than a
40 GB card (40,960 MiB = 42.9 GB), less than an 80 GB one (81,920 MiB = 85.9 GB)."""

from __future__ import annotations

from assistant.advisor import ask


def _first(q: str) -> tuple[str, list[str]]:
    a = ask(q, backend="offline")
    return a.answer.splitlines()[0], [c.name for c in a.tool_calls]


def test_two_sizes_of_one_card_get_a_choice_for_training() -> None:
    first, tools = _first("lora 微调 qwen2.5-7b，A100 40G 跟 80G 选哪个")
    assert "choose_gpu" in tools and first.startswith("选")
    assert "312" in first and "1.0 倍" not in first  # same chip: no "faster" claim


def test_two_sizes_of_one_card_for_serving_a_32b_pick_the_80gb() -> None:
    first, tools = _first("a100 40g or 80g to serve qwen2.5-32b in bf16?")
    assert "choose_gpu" in tools and "80GB" in first.split(":")[0]
