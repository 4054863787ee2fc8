"""A requirement someone else stated, checked per card; and model-licence declines that name the right licence.

Hand-worked values:
- RTX 3060: 12 GB (NVIDIA RTX 3060 spec page); RTX 4090: 24 GB (Ada whitepaper). A stated 24 GB per-card requirement
  does not fit a 12 GB card, and two of them (24 GB in all) do not pool under data parallelism
  (PyTorch DDP keeps a replica per GPU, https://pytorch.org/docs/stable/notes/ddp.html).
- LLaMA (v1) weights: "released under a noncommercial license focused on research use cases"
  (https://ai.meta.com/blog/large-language-model-llama-meta-ai/); Llama 2 Community License: commercial use with
  conditions, > 700 million monthly active users need a licence from Meta (https://ai.meta.com/llama/license/).
"""

from __future__ import annotations

import pytest

from assistant.offline.intents.decline import cue_of, statement
from assistant.offline.reading.quoted import quoted_sequences, stated_requirement_gb, stated_total_gb
from tests.conversation import run_turns

_conv = run_turns


# ---------------------------------------------------------------- reading the figures
@pytest.mark.parametrize(
    "text, need",
    [
        ("官方说明 LoRA 微调要 24G 显存，我两张 3060 12G 一共24G", 24.0),
        ("作者说16G显存就够用了", 16.0),
        ("（维护者：在 24GB 的 A10 上测过，预计 >20G 显存可用）", 20.0),  # 24GB belongs to the A10, not the need
        ("the README says it requires 48GB VRAM", 48.0),
        ("7b要多少显存", None),  # a question, not a stated figure
        ("我有两张24G的卡", None),
        ("do two 24gb cards let me do things that would require a 48gb card?", None),  # a what-if
    ],
)
def test_stated_requirement(text: str, need: float | None) -> None:
    assert stated_requirement_gb(text) == need


def test_stated_total_is_not_a_requirement() -> None:
    text = "两张3060 12G 一共24G，官方说要 16G"
    assert stated_total_gb(text) == 24.0
    assert stated_requirement_gb(text) == 16.0


def test_integer_cache_max_entry_count_is_a_sequence_count() -> None:
    assert quoted_sequences("后来把 cache_max_entry_count 改成 8 还是oom") == 8
    assert quoted_sequences("cache_max_entry_count=0.5") is None  # v0.2.1+: a fraction of free memory


# ---------------------------------------------------------------- answering per card
def test_stated_requirement_is_checked_per_card_and_does_not_pool() -> None:
    intents, _, composed, _ = _conv(["官方说明 LoRA 微调要 24G 显存，我两张 3060 12G 一共24G，为啥还 OOM"])
    assert intents == ["stated_requirement"]
    first = composed.text.splitlines()[0]
    assert first.startswith("不够") and "12 GB" in first and "24 GB" in first
    assert "不会相加" in composed.text  # two 12 GB cards are not one 24 GB card
    assert "ZeRO" in composed.text or "FSDP" in composed.text


def test_followup_about_one_bigger_card_with_batch_1() -> None:
    _, _, composed, _ = _conv(
        ["官方说明 LoRA 微调要 24G 显存，我两张 3060 12G 一共24G，为啥还 OOM", "那一张超过24G的卡，batch设1能跑吗"]
    )
    first = composed.text.splitlines()[0]
    assert first.startswith("能") and "24 GB" in first
    assert "batch size 设为 1" in composed.text
    assert "梯度累积" in composed.text


def test_capacities_after_a_quoted_requirement() -> None:
    """Maintainer: > 20 GB. 8 GB and 16 GB are both below it — each card is named in the verdict."""
    _, _, composed, _ = _conv(["这个视频模型普通显卡能跑吗（维护者：预计 >20G 显存可用）", "8g还是16g？"])
    first = composed.text.splitlines()[0]
    assert "8 GB" in first and "16 GB" in first and "20 GB" in first
    assert "放得下" not in first


def test_english_requirement_and_nvlink() -> None:
    _, _, composed, _ = _conv(
        ["The README says it needs 48GB VRAM. I have two 4090s with 48GB in total, will it work?"]
    )
    assert composed.text.startswith("No")
    assert "does not pool" in composed.text and "24 GB" in composed.text


def test_a_sized_model_keeps_its_own_estimate() -> None:
    """With a model the catalog knows, the tools size it; the stated figure does not replace the estimate."""
    intents, *_ = _conv(["官方说 Qwen2.5-7B 推理要 16G 显存，我 4060 Ti 16G 能跑吗"])
    assert intents[0] != "stated_requirement"


# ---------------------------------------------------------------- licence declines
@pytest.mark.parametrize(
    "text, kind",
    [
        ("用chinese-alpaca微调后能绕开license商用吗", "llama_licence"),
        ("基于 llama1 的模型，协议允许商业化吗", "llama_licence"),
        ("Can I use a Vicuna finetune commercially under its license?", "llama_licence"),
        ("qwen 的模型权重能商用吗，协议怎么规定的", "model_licence"),
        ("vgpu_unlock 能绕过 license 吗", "licence"),
        ("Qwen2.5-72B 推理要几张 A100", None),
    ],
)
def test_licence_kinds(text: str, kind: str | None) -> None:
    assert cue_of(text) == kind


def test_llama_licence_text_names_non_commercial_and_a_lawyer() -> None:
    _, _, composed, _ = _conv(["按这个方法处理以后，基于LLaMA的模型能绕开license商用吗？"])
    text = composed.text
    assert "非商业" in text and "研究" in text
    assert "Llama 2" in text and "7 亿" in text  # the community licence's 700M MAU condition
    assert "律师" in text
    assert "RDS" not in text and "vGPU" not in text  # not the software-activation text


def test_other_model_licence_points_to_its_own_licence() -> None:
    _, _, composed, _ = _conv(["Can I use Mistral weights in a commercial product? what does the license say"])
    text = composed.text
    assert "own licence" in text and "lawyer" in text
    assert "LLaMA (version 1)" not in text


def test_every_decline_kind_has_both_languages() -> None:
    for kind in ("unlawful", "licence", "model_licence", "llama_licence"):
        (zh, en), steps = statement(kind)
        assert zh and en and steps
        assert all(z and e for z, e in steps)


# ---------------------------------------------------------------- quoted GPU-hours × the user's own rate
def test_quoted_gpu_hours_are_summed_at_the_users_rate() -> None:
    """Someone quotes two runs' GPU-hours; the user asks the cost of both at their rate:
    (1200 + 800) GPU-h × $1.20 = $2,400 (hand arithmetic)."""
    from assistant.offline.reading.money import read_money_quote

    q = "thanks! (author: the 7B run took about 1200 H100 GPU hours and the 13B about 800 H100 GPU hours) so at $1.20/GPU hour both cost ~$1000?"
    quote = read_money_quote(q)
    assert quote is not None and quote.amount == 1.2 and quote.per == "hour"
    assert quote.gpu_hours == [1200.0, 800.0] and quote.rate_gpus in (None, 1)  # per GPU-hour, not per 100 GPUs
    _, _, composed, results = _conv([q])
    cost = [r for r in results if r.name == "quote_cost"]
    assert cost and cost[0].args["hours"] == 2000.0
    assert "2400" in composed.text.replace(",", "")
    assert "GPU-hours" in composed.text


def test_one_quoted_run_is_not_summed() -> None:
    from assistant.offline.reading.money import read_money_quote

    quote = read_money_quote("训练用了 300 A100 卡时，按 $2 每小时 算多少钱")
    assert quote is not None and quote.gpu_hours == [300.0] and quote.rate_gpus in (None, 1)
    _, _, composed, results = _conv(["训练用了 300 A100 卡时，按 $2 每小时 算多少钱"])
    assert "600" in composed.text.replace(",", "")  # 300 GPU-h × $2 = $600 (hand arithmetic), not ÷ 100 GPUs
