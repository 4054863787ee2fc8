"""Session 10: the setup a bug report states is read as the user's (issue-template fields, ModelScope folder
names, the tensor-parallel size), host RAM on its own line is not the card's memory, and a quantisation glued to
another model's name stays with that model.

Hand-worked values (decimal GB):
- Qwen1.5-7B: 7.72e9 parameters (Qwen/Qwen1.5-7B config.json) × 2 B (fp16) = 15.4 GB — with `--tp 1` all of it
  sits on one T4, whose 15,360 MiB (nvidia-smi) is 16.1 GB, so weights plus the engine's overhead do not fit.
- DeepSeek-Coder-6.7B: 6.74e9 × 2 B (bf16) = 13.5 GB; a Q5 quantisation of *another* model does not change it.
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.reading.logs import is_machine_line, is_person_line
from assistant.offline.reading.slots import extract, user_words
from tools.models import find_entry

T4_REPORT = (
    "[Bug]多卡启动一个进程会报0卡内存不足\n"
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 172.00 MiB. GPU 0 has a total capacty of "
    "15.57 GiB of which 127.38 MiB is free.\n"
    "Reproduction: CUDA_VISIBLE_DEVICES='0,1,2' lmdeploy serve api_server ../Qwen1___5-7B-Chat --tp 1\n"
    "Environment: T4 8*16G，lmdeploy0.2.6"
)


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("Qwen1___5-7B-Chat", "Qwen1.5-7B"),  # ModelScope writes each "." of a repo name as "___"
        ("/root/.cache/modelscope/hub/qwen/Qwen2___5-7B-Instruct", "Qwen2.5-7B"),
    ],
)
def test_modelscope_folder_names_resolve(name: str, model: str) -> None:
    entry = find_entry(name)
    assert entry is not None and entry.id == model
    assert extract(f"{name} 加载失败").model == model


def test_issue_template_fields_are_the_users_words() -> None:
    line = "Environment: T4 8*16G，lmdeploy0.2.6"
    assert not is_machine_line(line) and is_person_line(line)
    kept = user_words(T4_REPORT)
    assert "--tp 1" in kept and "T4 8*16G" in kept and "OutOfMemoryError" not in kept


def test_card_zero_is_an_index_not_a_count() -> None:
    s = extract(T4_REPORT)
    assert not s.invalid  # 「0卡内存不足」 is card 0 running out of memory
    assert (s.model, s.gpu_count, s.tp_size) == ("Qwen1.5-7B", 8, 1)


def test_tp_size_decides_the_cards_one_copy_spans() -> None:
    reply, results = answer(T4_REPORT)
    text = reply.text
    mem = next(r for r in results if r.name == "estimate_memory")
    assert mem.args.get("gpus") == 1  # --tp 1: the whole model on one T4, not split over the eight
    lead = text.split("<details>")[0]
    assert re.search(r"15\.4 GB", lead)  # 7.72e9 × 2 B
    assert "不能" in lead or "放不下" in lead
    # the nearest change is the cards already there (--tp 2: 15.4 GB of weights ÷ 2 per card), ahead of int4
    assert lead.startswith("要改的是：2 张卡")


def test_host_ram_on_its_own_line_is_not_the_cards_memory() -> None:
    s = extract("deepseek-coder-6.7b-instruct 部署出错\nA800 80G\n内存32G\n已经部署了一个Qwen-57B-q5的模型用了40G显存")
    assert s.host_ram_gb == 32 and s.gpu_memory_gb == 80


def test_a_quantisation_glued_to_another_model_stays_with_it() -> None:
    s = extract("已经部署了一个Qwen-57B-q5的模型用了40G显存，再部署deepseek-coder-6.7b-instruct 就报资源不足，A800 80G")
    assert s.model == "DeepSeek-Coder-6.7B"
    assert s.weight_quant is None and s.precision is None
    own = extract("Qwen2.5-7B-AWQ 需要多少显存")
    assert own.precision == "int4"  # the sized model's own suffix still counts


@pytest.mark.parametrize("q", ["3 epoches", "epoches: 3", "three epoches"])
def test_epoch_typo_is_read(q: str) -> None:
    s = extract(f"train 7B on 10000 samples of 512 tokens for {q} on a 4090, how long")
    assert s.epochs == 3 and s.tokens == 10000 * 512 * 3


def test_a_capacity_the_card_never_shipped_with_is_said_first() -> None:
    # NVIDIA: the GeForce RTX 3080 Ti has 12 GB GDDR6X only (the 24 GB GA102 card is the 3090)
    text = answer("rtx 3080ti 24G 能跑 qwen2.5-7b 推理吗")[0].text
    first = text.split("\n")[0]
    assert "12 GB" in first and "24" in first
    stock = answer("3080ti 能跑 qwen2.5-7b 吗")[0].text.split("<details>")[0]
    assert "RTX 3080 Ti 12GB" in stock and "放不下" in stock  # 15.2 GB of bf16 weights > 12 GB
