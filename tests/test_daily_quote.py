"""A day's price the user quotes for the cards named (「8卡A800 租一天要2000」): per hour and per card-hour, hand-worked
(2000 ÷ 24 = 83.33 /h; ÷ 8 cards = 10.42 per GPU-hour), and set against the market's per-card range."""

from __future__ import annotations

from assistant.advisor import ask
from assistant.offline.reading.slots import extract
from tools.quote_cost import QuoteCostInput, quote_cost


def test_a_day_price_is_read_as_a_quote_not_a_budget() -> None:
    for text in ("A800 8卡 租一天 要 2000", "8卡A800一天2000元，折合每卡每小时多少钱", "2000元/天的8卡A800贵吗"):
        s = extract(text)
        assert s.daily_quote_cny == 2000 and s.budget_cny is None, text
    assert extract("一天跑8小时，4090多少钱").daily_quote_cny is None  # hours a day, not a price


def test_per_gpu_hour_from_a_day_price() -> None:
    out = quote_cost(QuoteCostInput(amount=2000, currency="CNY", per="day", hours=24, gpus_in_quote=8))
    assert out.hourly_rate == 83.3333 and out.per_gpu_hour == 10.42


def test_the_answer_leads_with_the_users_own_rate_and_compares_it() -> None:
    # the day-price form of https://github.com/deepseek-ai/DeepSeek-R1/issues/525 (「A800 8卡 租一天 要 2000」)
    r = ask("租一台8卡4090服务器一天800块，贵吗", backend="offline")
    lines = r.answer.splitlines()
    assert "¥4.17" in lines[0]  # 800 ÷ 24 ÷ 8
    assert "高" in lines[1] and "卡时" in lines[1]
