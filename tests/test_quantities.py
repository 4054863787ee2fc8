"""Human quantities → numbers. Expected values are hand-worked from the unit definitions
(万 = 10^4, 亿 = 10^8, B = 10^9, T = 10^12, month = 30 days, GiB = 2^30 bytes)."""

from __future__ import annotations

import pytest

from tools.errors import ToolInputError
from tools.quantities import (
    parse_chinese_number,
    parse_duration_hours,
    parse_money_cny,
    parse_number,
    parse_param_count,
    parse_size_gb,
    parse_token_count,
)


@pytest.mark.parametrize(
    "text, value",
    [
        ("七", 7),
        ("十", 10),
        ("十五", 15),
        ("二十五", 25),
        ("两千", 2000),
        ("三千", 3000),
        ("一百二十万", 1_200_000),
        ("百亿", 10**10),
        ("1万亿", 10**12),
        ("2千亿", 2 * 10**11),
        ("130亿", 1.3e10),
        ("3亿5000万", 3.5e8),
        ("1.5万", 15_000),
        ("半", 0.5),
        ("七十亿", 7e9),
    ],
)
def test_chinese_numerals(text, value):
    assert parse_chinese_number(text) == pytest.approx(value)


@pytest.mark.parametrize(
    "text, value",
    [
        ("7B", 7_000_000_000),
        ("7b", 7_000_000_000),
        ("1.5B", 1_500_000_000),
        ("70b", 70_000_000_000),
        ("70亿", 7_000_000_000),
        ("130亿", 13_000_000_000),
        ("百亿", 10_000_000_000),
        ("500M", 500_000_000),
        ("7e9", 7_000_000_000),
        ("7", 7_000_000_000),
        ("７Ｂ", 7_000_000_000),
        ("7B params", 7_000_000_000),
        ("70亿参数", 7_000_000_000),
        ("0.5B", 500_000_000),
        ("6,738,415,616", 6_738_415_616),
    ],
)
def test_param_counts(text, value):
    assert parse_param_count(text) == value


def test_param_count_passes_numbers_through():
    assert parse_param_count(7e9) == 7_000_000_000


@pytest.mark.parametrize(
    "text, value",
    [
        ("1T", 10**12),
        ("1万亿", 10**12),
        ("500B tokens", 5 * 10**11),
        ("2千亿", 2 * 10**11),
        ("300M", 3 * 10**8),
        ("100万", 10**6),
        ("15T tokens", 15 * 10**12),
    ],
)
def test_token_counts(text, value):
    assert parse_token_count(text) == value


@pytest.mark.parametrize(
    "text, value",
    [
        ("5万", 50_000),
        ("50000元", 50_000),
        ("¥3k", 3_000),
        ("3千块", 3_000),
        ("1.2万元", 12_000),
        ("5w", 50_000),
        ("RMB 8000", 8_000),
        ("50,000", 50_000),
        ("两万", 20_000),
        ("￥1,500", 1_500),
    ],
)
def test_money(text, value):
    assert parse_money_cny(text) == pytest.approx(value)


def test_money_refuses_other_currencies():
    with pytest.raises(ToolInputError) as err:
        parse_money_cny("$100")
    assert "人民币" in err.value.zh and "CNY" in err.value.en


@pytest.mark.parametrize(
    "text, hours",
    [
        ("48h", 48),
        ("7d", 168),
        ("7天", 168),
        ("一周", 168),
        ("两周", 336),
        ("1个月", 720),
        ("半个月", 360),
        ("90 min", 1.5),
        ("3天", 72),
        ("2 weeks", 336),
        ("1年", 8760),
        ("十天", 240),
    ],
)
def test_durations(text, hours):
    assert parse_duration_hours(text) == pytest.approx(hours)


def test_bare_duration_needs_a_unit():
    with pytest.raises(ToolInputError):
        parse_duration_hours("48")
    assert parse_duration_hours("48", bare_unit_hours=1) == 48


@pytest.mark.parametrize(
    "text, gb",
    [
        ("24GB", 24.0),
        ("80G", 80.0),
        ("24", 24.0),
        ("24 GiB", 24 * 2**30 / 1e9),
        ("1TB", 1000.0),
        ("512MB", 0.512),
        ("24GB显存", 24.0),
        ("80GB HBM3", 80.0),
        ("48g", 48.0),
    ],
)
def test_sizes(text, gb):
    assert parse_size_gb(text) == pytest.approx(gb)


def test_number_with_multipliers():
    assert parse_number("3k") == 3000 and parse_number("5w") == 50_000 and parse_number("两千") == 2000


@pytest.mark.parametrize(
    "fn, bad",
    [
        (parse_param_count, "-3"),
        (parse_param_count, "abc"),
        (parse_param_count, "7X"),
        (parse_param_count, ""),
        (parse_param_count, "0"),
        (parse_token_count, "lots"),
        (parse_money_cny, "-5万"),
        (parse_money_cny, "很多钱"),
        (parse_duration_hours, "一会儿"),
        (parse_size_gb, "24 apples"),
        (parse_size_gb, "-24GB"),
        (parse_param_count, True),
    ],
)
def test_bad_input_is_bilingual(fn, bad):
    with pytest.raises(ToolInputError) as err:
        fn(bad)
    assert err.value.zh and err.value.en and err.value.zh != err.value.en
