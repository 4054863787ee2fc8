"""Reading fixes found by trying the product as a user: the host RAM right after a Chinese verb, and
'which part is wrong' cause questions reaching the guide instead of a spec sheet."""

from __future__ import annotations

import pytest

from assistant.advisor import ask
from assistant.offline.reading import read_one


@pytest.mark.parametrize(
    ("question", "ram"),
    [
        ("配置512G内存，1张L40s 48G显卡，跑DeepSeek-R1-Q4_K_M 报内存不足", 512.0),
        ("服务器装了256G内存 两张4090 能跑r1 q2吗", 256.0),
    ],
)
def test_host_ram_after_a_chinese_word_is_not_the_cards_memory(question: str, ram: float) -> None:
    f = read_one(question)
    assert f.host_ram_gb == ram
    assert f.gpu_memory_gb in (None, 48)  # the card keeps its own size


@pytest.mark.parametrize(
    "question",
    [
        "训练时显存满了 GPU利用率在0-97%反复跳，3090，yolov8 batch 32，这是哪里有问题需要修改吗",
        "my gpu util keeps jumping between 0 and 100% during training on a 4090, what is wrong",
    ],
)
def test_what_is_wrong_about_a_symptom_is_answered_from_the_guide(question: str) -> None:
    a = ask(question)
    assert all(c.name == "search_guide" for c in a.tool_calls)
    first = a.answer.splitlines()[0]
    assert "GPU-Util" in first and "TFLOPS" not in first


def test_rent_for_a_named_pipeline_is_a_price_question() -> None:
    a = ask("租4090跑stable diffusion出图，一个月大概多少钱")
    assert [c.name for c in a.tool_calls][0] == "gpu_price"
    assert a.answer.splitlines()[0].startswith("租 RTX 4090")


def test_rent_and_memory_of_a_pipeline_are_both_answered_in_order() -> None:
    """FLUX.1-dev's weights (12B transformer + 4.8B T5 + CLIP + VAE ≈ 16.9B × 2 B ≈ 33.7 GB) exceed a 4090, so the
    memory part says so after the rent."""
    a = ask("租4090跑flux一个月多少钱，显存够吗")
    names = [c.name for c in a.tool_calls]
    assert names.index("gpu_price") < names.index("estimate_memory")
    lines = a.answer.splitlines()
    assert lines[0].startswith("租 RTX 4090") and "33.7 GB" in lines[1]


@pytest.mark.parametrize(
    "question",
    ["显卡租了一周，结果一直在排队装环境，这钱能退吗", "can I get a refund for the hours my rented A100 was broken?"],
)
def test_a_refund_question_gets_the_billing_guide_not_a_spec_sheet(question: str) -> None:
    a = ask(question)
    first = a.answer.splitlines()[0]
    assert ("退款规则" in first) or ("refund rules" in first)
    assert "TFLOPS" not in first


def test_what_to_check_after_a_crash_is_the_cause_and_after_delivery_the_checklist() -> None:
    crash = ask("my training crashes with NCCL timeout after 30 minutes on 2 nodes, what should I check")
    assert "Watchdog" in crash.answer.splitlines()[0]  # PyTorch's NCCL watchdog timeout section
    handover = ask("新租的8卡机器，验收要查什么")
    assert any(c.name == "delivery_checklist" for c in handover.tool_calls)


@pytest.mark.parametrize(
    ("question", "model"),
    [
        ("r1-distill-qwen-7b 4090能跑吗", "DeepSeek-R1-Distill-Qwen-7B"),
        ("r1蒸馏版14b要多少显存", "DeepSeek-R1-Distill-Qwen-14B"),
        ("R1 32B 蒸馏 两张3090", "DeepSeek-R1-Distill-Qwen-32B"),
        ("r1-distill-llama-8b lora", "DeepSeek-R1-Distill-Llama-8B"),
        ("R1 671b 满血版要几张H20", "DeepSeek-R1"),  # the released size is R1 itself
    ],
)
def test_r1_at_a_distill_size_is_the_distill(question: str, model: str) -> None:
    """DeepSeek released R1 at 671B only; 1.5/7/8/14/32/70B are the R1-Distill models on Qwen2.5 / Llama bases
    (huggingface.co/deepseek-ai/DeepSeek-R1#distilled-models)."""
    assert read_one(question).model == model
