"""A price asked for a place in Shandong says what the guide found: no local price list, national prices
(knowledge/guide/shandong-datacenters.md, checked against the CMIS tracker, AutoDL and Alibaba Cloud data); and
「有没有X租」 asks whether the card can be rented at all, answered before the price."""

from __future__ import annotations

from assistant.advisor import ask


def test_a_jinan_price_says_prices_are_national() -> None:
    a = ask("济南这边租一张3090一天多少钱", backend="offline")
    lead = a.answer.split("**下一步**")[0]
    assert "全国" in lead and "shandong-datacenters" in lead
    assert "gpu_price" in [c.name for c in a.tool_calls]


def test_an_english_qingdao_price_says_so_in_english() -> None:
    lead = ask("what does a 4090 cost per hour in Qingdao?", backend="offline").answer.split("**Next steps**")[0]
    assert "national prices" in lead and "全国" not in lead


def test_availability_and_price_are_both_answered_availability_first() -> None:
    a = ask("烟台有没有A800租 一个月多少", backend="offline")
    names = [c.name for c in a.tool_calls]
    assert names.index("gpu_rentability") < names.index("gpu_price")


def test_a_price_without_a_place_has_no_shandong_line() -> None:
    a = ask("4090多少钱一小时", backend="offline").answer
    assert "shandong-datacenters" not in a.split("<details>")[0]
