"""Serving, renting and step-time questions reach the planning tools (not training time), with the
user's own volume, pattern and cards; expected values are hand arithmetic written here."""

from __future__ import annotations

from assistant.offline import answer


def _names(results) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.name for r in results]


def test_monthly_output_volume_is_a_serving_volume_not_training_tokens() -> None:
    a, results = answer("自建还是调API划算？qwen2.5-72b，每月大概输出5亿token")
    assert "estimate_training_time" not in _names(results)
    serving = next(r for r in results if r.name == "plan_serving")
    assert serving.args["monthly_output_mtok"] == 500  # 5亿 = 5 × 10^8 = 500 million tokens
    first = a.text.splitlines()[0]
    assert "5 亿" in first  # line 1 answers for the user's own volume
    # the verdict follows from the volume against the break-even: cheaper side = the side 500M falls on
    be = serving.result["apis"][0]["break_even_output_mtok_per_month"]
    assert ("自建更便宜" if 500 > be else "调 API 更便宜") in first
    assert "租期" not in a.text  # 每月 is how much a month, not a one-month rental


def test_usage_pattern_gets_the_cheapest_billing_mode() -> None:
    a, results = answer("4090 每天用8小时，一周只用三天，做6周，多少钱")
    price = next(r for r in results if r.name == "gpu_price")
    assert (price.args["hours_per_day"], price.args["days_per_week"], price.args["weeks"]) == (8, 3, 6)
    assert price.result["usage_plan"]["hours_used"] == 144  # 8 h × 3 d × 6 weeks
    assert "144 h" in a.text.splitlines()[0]


def test_can_i_rent_an_h100_says_how() -> None:
    a, results = answer("H100能租吗")
    assert "gpu_rentability" in _names(results)
    assert "8 卡" in a.text.splitlines()[0]


def test_slow_zero3_on_4090s_is_a_step_time_question() -> None:
    a, results = answer("8卡4090 ZeRO-3 训练7B 为什么这么慢")
    step = next(r for r in results if r.name == "estimate_step_time")
    assert step.args["strategy"] == "zero3" and step.args["n_gpus"] == 8
    first = a.text.splitlines()[0]
    assert "通信占" in first and "MFU" in first
