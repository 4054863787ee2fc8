"""Words of a question that are not what they look like: a name's hyphen is not a minus sign, the numbers of the
cards in use are not a card count, what a job uses is not a card's size, a length limit is not a budget, and an AI
service's account matters are not ours. Each phrasing below is written for this test (casual, as users type);
the expected values are the plain reading of the sentence."""

from __future__ import annotations

import pytest

from assistant.offline import answer
from assistant.offline.reading.shapes import card_sizes
from assistant.offline.reading.slots import extract
from tools.planner import PlanInput, plan_configurations


def _calls(q: str) -> list[dict]:
    _, results = answer(q)
    return [{"name": r.name, **r.args} for r in results]


@pytest.mark.parametrize(
    "q, size",
    [
        ("全量微调 Llama -13B 大概要多少显存", 13.0),  # a name written apart from its size
        ("qwen -7b 推理要多大显存", 7.0),
    ],
)
def test_name_hyphen_is_not_a_negative_size(q: str, size: float) -> None:
    s = extract(q)
    assert not s.invalid
    assert s.params_b == size


def test_a_negative_size_on_its_own_is_still_refused() -> None:
    assert extract("一个 -3B 的模型能用 4090 训练吗").invalid  # no name before the minus: a negative size


@pytest.mark.parametrize(
    "q",
    [
        "8卡A800加载完，显存占用集中在0卡~6卡，7卡是空的，为啥",
        "0-6号卡都占满了，最后一张没用上",
        "跑起来之后0到6卡满了",
    ],
)
def test_a_range_of_card_numbers_is_not_zero_cards(q: str) -> None:
    s = extract(q)
    assert not s.invalid  # 「0卡」 here names a card, it is not a count of zero
    assert s.gpu_count != 0


@pytest.mark.parametrize(
    "text, sizes",
    [
        ("量化前占用 20G，量化后占用 22G，4090 上跑", []),  # what the job used
        ("一开始用了 18G，后来涨到 23G", []),
        ("It is consuming 20GB, and with use_py_session it uses 14GB", []),
        ("A100 40G 和 80G 选哪个", [40, 80]),  # two sizes of one card
    ],
)
def test_usage_figures_are_not_card_sizes(text: str, sizes: list[int]) -> None:
    assert card_sizes(text) == sizes


def test_usage_figures_do_not_invent_a_card_variant() -> None:
    a, _ = answer("模型量化成 int4 以后显存占用没降，量化前占用 20G，量化后占用 22G（lmdeploy，4090）")
    assert "4090 20GB" not in a.text and "4090 22GB" not in a.text  # no "not in the table" for a 4090 20 GB


@pytest.mark.parametrize(
    "q, budget",
    [
        ("24g 显存，单条数据长度不超过300就可以，但我的有 2000 长，咋办（ChatGLM-6B LoRA）", None),
        ("预算不超过3万，训练7B", 30000.0),
        ("费用不超过5000元", 5000.0),
        ("不超过2w能租到什么", 20000.0),
    ],
)
def test_a_limit_on_something_else_is_not_a_budget(q: str, budget: float | None) -> None:
    assert extract(q).budget_cny == budget


def test_a_serving_budget_rules_out_sets_that_cost_more_per_month() -> None:
    # ¥10,000 cannot pay one month of an 8-card B200 set (or of any set whose monthly price is above it)
    out = plan_configurations(PlanInput(params_b=6.0, mode="inference", budget=10000))
    assert out.options, "a 6B model at ¥10,000 has cards that fit"
    best = out.options[0]
    assert best.cost_cny is not None and best.cost_cny.mid <= 10000
    assert all(o.cost_cny is None or o.cost_cny.mid <= 10000 for o in out.options)


def test_a_plan_without_a_price_never_prints_none() -> None:
    a, _ = answer("ChatGLM-6B LoRA，3090 Ti，个别数据长度会到 2000，有什么好的建议吗")
    assert "None" not in a.text


@pytest.mark.parametrize(
    "q",
    [
        "openai新注册的key秒封了，换了服务器也不行，有办法吗",
        "chatgpt 充值绑卡一直失败，有没有稳定的充值方法",
        "Can anyone contribute an API key? I can't recharge ChatGPT from my country",
    ],
)
def test_ai_service_accounts_are_out_of_scope(q: str) -> None:
    assert extract(q).out_of_scope


@pytest.mark.parametrize(
    "q",
    [
        "用 vLLM 部署兼容 OpenAI API 的服务，7B 要什么卡",
        "调 OpenAI API 和自己部署 Qwen-72B 哪个划算",
    ],
)
def test_openai_compatible_serving_stays_in_scope(q: str) -> None:
    assert not extract(q).out_of_scope


def test_a_mining_client_is_declined() -> None:
    calls = _calls("my qubic client only does 2200 it/s on an H800, how to make it faster?")
    assert calls == []  # declined without a tool


@pytest.mark.parametrize(
    "q",
    [
        "我的4090训练时显存占用22G，nvidia-smi看利用率只有30%，是不是卡有问题",
        "租的A100利用率才40%，是不是卡有问题",
    ],
)
def test_a_named_card_with_a_symptom_is_not_answered_with_its_spec_sheet(q: str) -> None:
    names = [c["name"] for c in _calls(q)]
    assert "gpu_specs" not in names and "search_guide" in names  # the cause, from the guide


def test_a_plain_spec_question_still_gets_the_spec_sheet() -> None:
    assert "gpu_specs" in [c["name"] for c in _calls("A100 的规格")]


def test_a_models_total_served_with_tensor_parallel_is_split_over_the_cards() -> None:
    # 70 GB of weights over 2 × A40 48 GB with vLLM TP=2: 70 / 2 = 35 GB per card ≤ 48 GB (hand arithmetic)
    a, _ = answer(
        "I have two A40 GPUs (96GB in total). The model requires 70GB, but vLLM fills both GPUs to 48GB, why?"
    )
    line1 = a.text.split("\n")[0]
    assert "35.0 GB" in line1 and "does not fit" not in line1.lower()


def test_a_cards_own_size_is_not_a_stated_requirement() -> None:
    from assistant.offline.reading.quoted import stated_requirement_gb

    assert stated_requirement_gb("最低配置要求 如果是A100 40G显卡的情况下，最少需要多少张") is None  # the card's size
    assert stated_requirement_gb("官方说需要 24G 显存") == 24.0


def test_one_card_counted_by_its_memory_is_the_card() -> None:
    s = extract("qwen1.5 72b 一块80G跑不起vllm服务")
    assert s.vram_gb == 80.0
    assert extract("单张24G能跑14B推理吗").vram_gb == 24.0


def test_how_many_cards_for_an_unknown_model_says_it_cannot_size_it() -> None:
    a, results = answer("如果是A100 40G显卡，最少需要多少张，4张可行吗？（Skywork-MoE）")
    assert not [r for r in results if r.name == "gpu_specs"]  # not the card's spec sheet
    assert "Skywork-MoE" in a.text.split("\n")[0]  # the first line says which model it does not know


def test_a_time_question_without_a_model_says_the_size_it_assumed_first() -> None:
    a, _ = answer("两张3090一次完整的训练大概花费多少时间")
    line1 = a.text.split("\n")[0]
    assert "没说训练的是什么模型" in line1 and "7B" in line1  # an assumption, said as one, before any figure


def test_a_quoted_requirement_in_a_paste_is_not_the_renters_card() -> None:
    q = (
        "72b全参微调爆显存，readme写70b全参微调需要1200g显存\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.83 GiB. "
        "GPU 0 has a total capacity of 79.33 GiB of which 2.1 GiB is free."
    )
    a, _ = answer(q)
    assert "1200 GB" not in a.text and "your card" not in a.text  # 1,200 GB is a requirement, no card holds it
