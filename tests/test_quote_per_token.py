"""A day's quote beside the user's measured generation speed: tokens a day and the quote per million tokens.

Question: 「A800 8卡 租一天 要 2000 … 只有做到 1000 token/s 才能盈亏平衡，现在一秒只能出 15个token」
(https://github.com/deepseek-ai/DeepSeek-R1/issues/525). Hand-worked: 15 × 86,400 = 1,296,000 tokens/day; ¥2000 ÷ 24 h = ¥83.33/h;
15 × 3600 = 54,000 tokens/h = 0.054 M → ¥83.33 ÷ 0.054 = ¥1,543.2 per million tokens.
"""

from __future__ import annotations

from assistant.advisor import ask
from assistant.offline.intents import analyse
from assistant.offline.intents.serving import measured_tps
from tools.quote_cost import QuoteCostInput, quote_cost

QUESTION = (
    "简单算了一笔账，如果gpu数量不够，想靠deepseek api挣钱 基本不可能。A800 8卡 租一天 要 2000， 只有 deepseek能做到 "
    "1000 token/s 才能盈亏平衡，现在 一秒只能出 15个token（还是量化版本）, 一天最多挣20"
)


def test_tokens_a_day_and_price_per_million() -> None:
    r = quote_cost(
        QuoteCostInput(amount=2000, currency="CNY", per="day", hours=24, gpus_in_quote=8, output_tokens_per_s=15)
    )
    assert r.tokens_per_day == 1_296_000
    assert r.cost_per_million_tokens == 1543.21


def test_a_target_speed_is_not_the_measured_one() -> None:
    _, f, _ = analyse(QUESTION)
    assert measured_tps(f) == 15.0  # 1000 token/s is what break-even would need


def test_the_answer_gives_the_day_and_the_single_stream_caveat() -> None:
    r = ask(QUESTION, backend="offline")
    assert "一天 86,400 秒约出 130 万 token" in r.answer
    assert "单路" in r.answer and "并发" in r.answer


def test_a_million_tokens_priced_is_a_unit_not_a_volume() -> None:
    from assistant.offline.reading import read_one

    f = read_one("8卡A800一天2000块，跑qwen2.5-72b，一秒30个token，一百万token合多少钱")
    assert f.monthly_tokens is None and f.daily_tokens is None
    assert read_one("每天100万token，自建还是调API").daily_tokens == 1e6  # a volume stays a volume
