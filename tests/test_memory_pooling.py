""" "Does memory on several cards add up?" — real questions from public issue trackers (URL on each) and our own
casual phrasings, with the expected lead derived by hand:

- data parallel (PyTorch DDP, the default of torchrun / accelerate / HF Trainer) keeps a full replica per process
  (https://pytorch.org/docs/stable/notes/ddp.html): memory does not pool, a bigger batch over more cards needs the
  same memory per card;
- only splitting the model shares it: ZeRO-3 / FSDP (arXiv:1910.02054), tensor / pipeline parallel, device_map.

Per-card figures for a named model come from estimate_memory; the tests check them against hand arithmetic
(weights = parameters × bytes, published parameter counts).
"""

from __future__ import annotations

import re

import pytest

from assistant.advisor import ask
from assistant.offline.intents import analyse

NO_EN = ("No", "does not pool")
NO_ZH = ("不会",)

REAL_NO = [
    # https://github.com/AlexeyAB/darknet/issues/1276 — maintainer: "Video RAM doesn't sum up"
    (
        "If I would train model with 2 x GTX1060, does video RAM sums up? For example, will it be possible to "
        "utilize 12GB of RAM over both GPUs or training will only utilize memory in one GPU (6GB)?",
        NO_EN,
    ),
    # https://github.com/jcjohnson/neural-style/issues/449 — a second card does not double an 8 GB 1070
    (
        "I have a GeForce GTX 1070 with 8GB of memory. If I add another graphic card, does it double the memory "
        "to 16GB so I could produce images in higher resolution?",
        NO_EN,
    ),
    # https://github.com/deepbeepmeep/Wan2GP/issues/611 — 2 × 4090 "总共48G", OOM on GPU 0
    ("我的电脑是2块4090 24G，总共48G显存，但是第二块显卡好像不能被调用，每次都提示CUDA out of memory", NO_ZH),
    # https://github.com/xx025/stable-video-diffusion-webui/issues/5 — maintainer: 多卡显存累加这个问题太难了
    ("因为如果只是修改frame的参数会导致内存溢出。所以想请教下两张或多张nv卡的情况是否有办法可以提升显存大小", NO_ZH),
    # https://github.com/feihuzhang/GANet/issues/17 — ">= 12 GB for one card or total?", two 11 GB 2080 Ti
    (
        "I'd like to know the GPU mem. requirement of >=12 GB is claimed for for one GPU card or the total GPU "
        "cards? If I only have two 2080ti (each mem. is 11GB, total mem. is 22GB), can I run the training?",
        ("Counted per card", "11 GB", "12 GB"),
    ),
]

OWN_NO = [
    ("两张2080ti 22g魔改的能当44g用吗 跑训练", ("不会", "22 GB")),
    ("can I add a second 4090 so I can run batch 4 instead of 2? batch 2 already uses all 24GB", NO_EN),
]


@pytest.mark.parametrize(("question", "words"), REAL_NO + OWN_NO)
def test_line_one_says_memory_does_not_add_up(question, words):
    first = ask(question).answer.split("\n")[0]
    assert first.startswith(("No", "不会", "Counted per card", "按每张卡算")), first
    for w in words:
        assert w in first, first


def test_batch_and_split_advice_follow():
    ans = ask("can I add a second 4090 so I can run batch 4 instead of 2? batch 2 already uses all 24GB").answer
    assert "each GPU needs what one card needed" in ans
    assert "ZeRO-3 / FSDP" in ans and "device_map" in ans


def test_vicuna_13b_on_two_4090_is_split_not_pooled():
    # https://github.com/Vision-CAIR/MiniGPT-4/issues/143 — 两块4090能否合并使用，Vicuna-13B
    # hand: 13.0e9 × 2 B = 26 GB of fp16 weights > 24 GB on one card; ÷ 2 = 13 GB per card with a split
    res = ask(
        "请问如果一台主机上使用两块RTX 4090显卡，两块显卡的内存能否合并使用？目前4090显卡只有24GB内存，如果尝试加载Vicuna-13B模型可能会出现内存不足"
    )
    first = res.answer.split("\n")[0]
    assert first.startswith("能分摊，但要把模型切开")
    copy, split = [float(x) for x in re.findall(r"每卡约(?:需)? (\d+(?:\.\d+)?) GB", first)][:2]
    assert copy > 24 > split, first
    assert 26 <= copy <= 32 and 13 <= split <= 19  # weights + KV/overhead on top of 26 GB and 13 GB
    assert [c.name for c in res.tool_calls].count("estimate_memory") == 2


def test_qwen2_vl_72b_total_memory_needs_the_split():
    # https://github.com/QwenLM/Qwen3-VL/issues/340 — maintainer: the table's memory is all cards added up
    # (inference split across them); hand: 73.4e9 × 2 B ≈ 147 GB bf16 weights, halved over two cards ≈ 73 GB
    first = ask("想问一下,这里的GPU memroy 是单卡的大小,还是可以多张一起加起来的大小（Qwen2-VL-72B）").answer.split(
        "\n"
    )[0]
    assert first.startswith("能分摊")
    copy, split = [float(x) for x in re.findall(r"每卡约(?:需)? (\d+(?:\.\d+)?) GB", first)][:2]
    assert 145 <= copy <= 160 and 72 <= split <= 85


def test_eight_3090_full_finetune_7b_ddp_vs_zero3():
    # hand: Qwen2.5-7B 7.62e9 params × 16 B (bf16 weights + grads, fp32 master + 2 Adam moments) = 121.9 GB of
    # model states on EVERY card under DDP; ZeRO-3 over 8 cards: 121.9 / 8 = 15.2 GB of states per card
    res = ask("8卡3090训练qwen2.5-7b全参，显存能加起来吗")
    first = res.answer.split("\n")[0]
    assert first.startswith("不会叠加") and "ZeRO-3 / FSDP" in first
    ddp, zero3 = [float(x) for x in re.findall(r"约 (\d+(?:\.\d+)?) GB", first)][:2]
    assert ddp > 121.9 and 15.2 < zero3 < ddp / 2


def test_nvlink_question_keeps_the_card_answer():
    # https://github.com/AlexeyAB/darknet/issues/2932 — "connect two TITAN RTX with nvlink, will my ram double?"
    first = ask("If I connect two TITAN RTX with nvlink, will my ram double? Can I use 48GB of ram in training?").answer
    assert first.startswith("No") and "NVLink" in first.split("\n")[0]


@pytest.mark.parametrize(
    "question",
    [
        "两张3090用NVLink连起来显存能叠加吗",  # the card's own row answers it: gpus.applies_spec_question
        "要多少显存才能跑 qwen2.5-7b",  # no pooling asked
    ],
)
def test_questions_that_do_not_ask_about_pooling_stay_elsewhere(question):
    intents, _, _ = analyse(question)
    assert "memory_pooling" not in intents


def test_total_vram_or_one_card_is_the_pooling_question() -> None:
    """https://github.com/hiyouga/LlamaFactory/issues/4559: "70B GPTQ finetuning requires at least 48GB of total VRAM
    (I have 96 Gb) or 48GB VRAM on 1 video card?" — the maintainer: 48 GB per GPU; data parallel keeps a copy per card."""
    from assistant.advisor import ask

    r = ask(
        "70B GPTQ finetuning requires at least 48GB of total VRAM (in this case I have 96 Gb of VRAM) or 48GB VRAM "
        "on 1 video card ?",
        backend="offline",
    )
    assert "does not pool" in r.answer.splitlines()[0] and "ZeRO-3" in r.answer
