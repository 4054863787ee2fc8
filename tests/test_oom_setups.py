""" "I got OOM with setup S" answered for S as the user ran it, plus three readings found on real posts.

Hand arithmetic (bf16 weights = 2 B/param):
- Qwen2.5-7B (7.62e9 params, config.json of Qwen/Qwen2.5-7B) → 15.2 GB of weights: under plain data parallel
  every 16 GB V100 holds all of it before activations and the LoRA states, so three V100s still OOM; ZeRO-3
  splits it (≈ 5 GB each) — the change to make.
- Full training of a 7B on one 80 GB card: 16 B/param × 7e9 = 112 GB of states > 80 GB (ZeRO paper, arXiv:1910.02054).
"""

from __future__ import annotations

import pytest

from assistant.offline import answer
from assistant.offline.intents import choose_intents
from assistant.offline.reading import read_one


def _estimates(results):  # type: ignore[no-untyped-def]
    return [r for r in results if r.name == "estimate_memory"]


def test_oom_on_several_cards_without_zero_is_sized_as_data_parallel() -> None:
    a, results = answer("qwen2.5-7b lora微调，用了3张V100 16G还是OOM，到底要多大显存")
    est = _estimates(results)[0]
    assert est.args.get("zero") == 0  # nothing said about ZeRO/FSDP: the launchers' default DDP
    assert est.result["fits"] is False
    assert "ZeRO-3" in a.text.split("###")[0]  # the change to make is in the key lines
    assert "不会叠加" in a.text


def test_named_zero_or_a_count_question_keeps_sharding() -> None:
    _, results = answer("两张4090全量微调qwen2.5-1.5b，用deepspeed zero3，还是OOM")
    assert _estimates(results)[0].args.get("zero") == 3
    _, results = answer("I get OOM on 8 x A100 80GB continuing pretraining of Yi-34B, how many GPUs at least?")
    assert all(r.args.get("zero") != 0 for r in results if r.name in ("find_min_gpus", "estimate_memory"))


def test_an_oom_the_estimate_explains_leads_with_the_estimate() -> None:
    q = "我用A800 80G做qwen2.5-7b的全量继续预训练，一直OOM，这是什么原因？"
    assert choose_intents(read_one(q))[0] == "memory"
    first, second = answer(q)[0].text.splitlines()[:2]
    assert first.startswith("要改的是")  # what to change in the setup leads, then the estimate that shows why
    assert "放不下" in second and "A800" in second


@pytest.mark.parametrize(
    ("question", "count", "gb"),
    [
        ("I used 8 GPUs, 24G*8, to train a 7B model and got OOM", 8, 24),
        ("two 24gb cards, can I fine-tune a 7b with lora?", 2, 24),
        ("8*24G的卡全量微调7b会OOM吗", 8, 24),
        ("4x16G 能跑 qwen2.5-14b 推理吗", 4, 16),
    ],
)
def test_count_times_memory(question: str, count: int, gb: float) -> None:
    f = read_one(question)
    assert (f.gpu_count, f.vram_gb) == (count, gb)


@pytest.mark.parametrize(
    "question",
    [
        "My GPU randomly falls off the bus while training. Reboot fixes it for a day. What should I check?",
        "Our Tesla T4 keeps disappearing from the VM. Only a reboot helps. Is the card bad?",
    ],
)
def test_english_dropped_gpu_stories_reach_the_diagnosis(question: str) -> None:
    _, results = answer(question)
    assert "diagnose_logs" in [r.name for r in results]
