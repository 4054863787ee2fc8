"""A serving volume said the way people say it ("每天100万token", "5万次×1000 token", "50k requests a day")
is read as tokens a month and decides "self-host or API" on line 1. Expected values are hand arithmetic
(a month counted as 30 days, as the answer says)."""

from __future__ import annotations

from typing import Any

import pytest

from assistant.offline import answer
from assistant.offline.reading import read_one


@pytest.mark.parametrize(
    ("question", "monthly", "daily"),
    [
        ("自建还是调api划算？每天大概100万token", 1e6 * 30, 1e6),
        ("每天调用5万次，每次1000 token，本地部署qwen2.5-14b还是用api", 5e4 * 1000 * 30, 5e4 * 1000),
        (
            "We get 50k requests a day, 800 tokens each. self-host Llama 3 8B or use an API?",
            50e3 * 800 * 30,
            50e3 * 800,
        ),
        ("日均 2000万 tokens，私有化部署划算吗", 2e7 * 30, 2e7),
        ("自建还是调api划算？每月3000万token", 3e7, None),
        ("每月3,000万token 调API要多少钱", 3e7, None),
    ],
)
def test_volume_is_read_as_tokens_a_month(question: str, monthly: float, daily: float | None) -> None:
    f = read_one(question)
    assert f.monthly_tokens == pytest.approx(monthly)
    assert f.daily_tokens == (pytest.approx(daily) if daily else None)
    assert f.monthly_quote_cny is None  # a token count after 每月 is not a price
    assert f.tokens is None  # nor training tokens
    assert f.period_unit is None  # "每天" was the volume's rate, not a one-day rental


def test_request_counts_are_not_a_context_length() -> None:
    assert read_one("50k requests a day, 800 tokens each, self-host or API?").context != 50 * 1024


def test_price_quotes_still_read_beside_the_volume_rule() -> None:
    f = read_one("4090 按小时 2 元，包月 1200 元，每个月用多少小时以上包月更划算？")
    assert (f.gpus, f.hourly_quote_cny, f.monthly_quote_cny, f.budget_cny) == (["RTX 4090"], 2.0, 1200.0, None)


def _serving(results: list[Any]) -> Any:
    return next(r for r in results if r.name == "plan_serving")


def test_daily_volume_decides_host_vs_api_on_line_one() -> None:
    a, results = answer("自建还是调api划算？每天大概100万token")
    serving = _serving(results)
    assert serving.args["monthly_output_mtok"] == 30  # 100万 × 30 天 = 3,000 万 = 30 M
    first = a.text.splitlines()[0]
    assert "3,000 万" in first
    be = serving.result["apis"][0]["break_even_output_mtok_per_month"]
    assert ("自建更便宜" if 30 > be else "调 API 更便宜") in first
    assert "× 30 天" in a.text  # the conversion is shown, not hidden


def test_without_a_volume_the_break_even_leads() -> None:
    a, results = answer("本地部署和调API哪个划算")
    first = a.text.splitlines()[0]
    be = _serving(results).result["apis"][0]["break_even_output_mtok_per_month"]
    assert first.startswith("看用量") and "自建才划算" in first
    assert f"{be / 100:.3g} 亿" in first or f"{be * 100:,.0f} 万" in first


def test_english_verdict_survives_a_chinese_provider_name() -> None:
    a, results = answer("We get 50k requests a day, 800 tokens each. self-host Llama 3 8B or use an API?")
    first = a.text.splitlines()[0]
    assert first.startswith("At 1.2B output tokens a month")  # 40M a day × 30 = 1.2B
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in first)


def test_a_7b_is_not_priced_against_a_72b_api_as_the_same_model() -> None:
    a, results = answer("本地部署qwen2.5-7b还是调API，每月1亿token")
    api = _serving(results).result["apis"][0]
    assert api["same_model"] is False  # no Qwen2.5-7B row in knowledge/api_prices.yaml; 72B is 10× the size
    assert "72b" not in api["api"].lower()
    assert "不是同一个模型" in a.text


def test_volume_near_capacity_warns_about_peaks() -> None:
    a, results = answer("We get 50k requests a day, 800 tokens each. self-host Llama 3 8B or use an API?")
    cap = _serving(results).result["capacity_output_mtok_per_month"]
    assert 1200 > 0.5 * cap  # 1.2B a month against this setup's full-load month
    assert "peaks will queue" in a.text


@pytest.mark.parametrize(
    ("question", "tokens"),
    [
        ("租A800训练Qwen2.5-14B全量，1亿token大概多久多少钱", 1e8),  # after a comma (normalised to ",")
        ("预训练,500B tokens 要多久", 500e9),
        ("训练用了 2,000,000 tokens", 2e6),  # thousands separators are one number
    ],
)
def test_training_tokens_after_punctuation(question: str, tokens: float) -> None:
    assert read_one(question).tokens == pytest.approx(tokens)
