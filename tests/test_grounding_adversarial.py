"""Issue 18 item 3: the grounding guard against invented numbers, on real tool results.

The sources are what the tools really return for two common questions (a rental price and a memory
fit); the grounded answers restate those figures the ways people and LLMs write them (1.1万, 十五 GB,
GB ↔ GiB, rounding); every invented answer carries one figure no tool gave, in Chinese numerals,
with a magnitude, glued to a currency code, or as a round figure — the ways the probe slipped 23 of
32 past the old guard. Each invented figure is checked against the hand-computed tool values in its
comment, so a case cannot pass by accident.
"""

from __future__ import annotations

import pytest

from assistant.grounding import check
from tools.registry import run_tool

PRICE_Q = "A100 80G 八卡租十天多少钱？"
MEMORY_Q = "能用4090全量训练Qwen2.5-7B吗"


@pytest.fixture(scope="module")
def price_sources():
    result = run_tool("gpu_price", {"gpu": "A100 80G", "days": 10, "count": 8})
    # the figures the answers below restate (knowledge/prices.yaml, A100 80GB row)
    assert result["total_cny"]["typical"] == 11040.0  # 5.75 ¥/h × 240 h × 8 cards
    assert result["hourly_cny"]["typical"] == 5.75 and result["monthly_cny"]["typical"] == 4325.0
    assert result["server_8card_monthly_cny"]["typical"] == 34600.0
    return [PRICE_Q, result]


@pytest.fixture(scope="module")
def memory_sources():
    """A fixed estimate_memory result: the guard is under test here, not the estimator.

    Qwen2.5-7B (7,615,616,512 params, config.json) full fine-tune: model states 7.6156e9 × 16 B = 121.85 GB
    (ZeRO paper §3), optimizer 7.6156e9 × 12 B = 91.39 GB, bf16 weights 15.23 GB; the total adds activations,
    logits and overhead (127.374 GB = 118.63 GiB); a 4090 is 24 GB, so 103.374 GB short.
    """
    result = {
        "model": "Qwen2.5-7B",
        "params": 7_615_616_512,
        "weights_gb": 15.231,
        "optimizer_gb": 91.387,
        "model_states_gb": 121.85,
        "total_gb": 127.374,
        "total_gib": 118.63,
        "gpu": "NVIDIA GeForce RTX 4090 24GB",
        "gpu_memory_gb": 24.0,
        "headroom_gb": -103.374,
        "seed_rule": {"bytes_per_param": 8, "precise_bytes_per_param": 16},
    }
    assert result["model_states_gb"] == pytest.approx(7_615_616_512 * 16 / 1e9, abs=0.01)
    assert result["optimizer_gb"] == pytest.approx(7_615_616_512 * 12 / 1e9, abs=0.01)
    return [MEMORY_Q, result]


GROUNDED_PRICE = [
    "A100 80G 八卡租十天，典型总价约 ¥11,040（区间 ¥8,256–26,880），约 1.1万元。",
    "每卡每小时典型 ¥5.75，每卡每月约 4,325 元；整台 8 卡服务器月租约 3.46万元（¥24,800–80,000）。",
    "8 × A100 80G for 10 days: typically ¥11,040 (¥8,256–¥26,880), about 11k yuan.",
    "Per card-hour ¥5.75 typical; per card-month about ¥4,300; a whole 8-card server about ¥34,600/month.",
    "Monthly beats hourly above about 75% utilisation (539 h/month); the period is 240 hours.",
    "总价约一万一千零四十元，按 240 小时计。",
]

GROUNDED_MEMORY = [
    "全量训练 Qwen2.5-7B 需要约 127.4 GB（118.6 GiB），单张 4090 只有 24 GB，放不下。",
    "其中优化器状态约 91.4 GB，模型状态约 121.9 GB，权重约十五 GB。",
    "A full fine-tune of Qwen2.5-7B needs about 127 GB (118.6 GiB); a 4090 has 24 GB — short by about 103 GB.",
    "Optimizer states alone are ~91 GB; the 7B model has 7.6B parameters (about 76亿).",
    "按每参数 16 字节算，模型状态 121.85 GB。",
]


@pytest.mark.parametrize("answer", GROUNDED_PRICE)
def test_grounded_price_answers_pass(answer, price_sources):
    report = check(answer, price_sources)
    assert report.grounded, report.ungrounded


@pytest.mark.parametrize("answer", GROUNDED_MEMORY)
def test_grounded_memory_answers_pass(answer, memory_sources):
    report = check(answer, memory_sources)
    assert report.grounded, report.ungrounded


# (answer, the invented figure as the guard names it). Price tool figures: hourly 4.3/5.75/14 (5–6.5),
# monthly 3,100/4,325/10,000 (3,900–4,750), server 24,800/34,600/80,000, total 8,256/11,040/26,880,
# break-even 0.749/1.045, 539/752 h; question: 8 cards, 10 days.
INVENTED_PRICE = [
    ("八卡十天大约三千五百元。", "三千五百"),  # 3,500: nearest 3,100 / 3,900
    ("每卡每月约两千八百元", "两千八百"),  # 2,800
    ("租期按十二天算", "十二"),  # 12 days; the question said 十 (10)
    ("总价约 9万元", "9万"),  # 90,000 — never the stray 9
    ("约 1.9万元", "1.9万"),  # 19,000
    ("报价 RMB9999", "9999"),
    ("每小时 ¥1.5", "1.5"),
    ("每月 7k 就够", "7k"),  # 7,000
    ("整机每月 5.5 万", "5.5 万"),  # 55,000
    ("整机 6万/月", "6万"),  # 60,000
    ("按小时 ¥9.9", "9.9"),
    ("CNY 2999 一个月", "2999"),
    ("一共 ¥66,666", "66,666"),
    ("租十八天更划算", "十八"),
    ("三十张卡一起租", "三十"),
    ("一千五百块就够了", "一千五百"),
    ("大约九千元", "九千"),
    ("总价 1.5万元", "1.5万"),
    ("预算 2万 够用", "2万"),
    ("包月超过百分之六十的时间更省", "百分之六十"),
    ("整机月租 50,000 元起", "50,000"),  # a round figure is not ±50%: 50,000 ≠ 34,600 or 80,000
    ("总价约 20,000 元", "20,000"),
    ("三张卡就够", "三"),
    ("每卡每月两千五百元", "两千五百"),
    ("每小时 ¥0.99", "0.99"),
    ("大约 100万 token 的预算", "100万"),
    ("成本约 3M 元", "3M"),
]

INVENTED_PRICE_EN = [
    ("about ¥3,500 for ten days", "3,500"),
    ("RMB9999 per month", "9999"),
    ("USD 1,299 in total", "1,299"),
    ("roughly 19k yuan", "19k"),
    ("that is 3M tokens", "3M"),
    ("around 250 hours", "250"),
    ("¥0.99/hour", "0.99"),
    ("rent x16 cards", "16"),
    ("costs ¥45,000", "45,000"),
    ("break-even at 65%", "65%"),
    ("2.2M yuan a year", "2.2M"),
    ("a whole server is ¥60,000 per month", "60,000"),
    ("about 3 weeks of rental", "3"),
]

# Memory tool figures: 121.85 GB states (113.48 GiB), 127.37 GB total (118.63 GiB), weights 15.23 GB,
# optimizer 91.39 GB, activations 4.05, logits 3.11, overhead 1.48, 24 GB card, headroom −103.37.
INVENTED_MEMORY = [
    ("需要两百四十 GB 显存", "两百四十"),
    ("大约需要 200 GB", "200"),
    ("权重占四十 GB", "四十"),
    ("激活值约十一 GB", "十一"),
    ("需要 6 张 4090", "6"),
    ("总共约 1.3万 MB", "1.3万"),
    ("显存缺口约 50 GB", "50"),
    ("needs about 150 GB", "150"),
    ("weights take 45 GB", "45"),
    ("you need 6 cards", "6"),
    ("it needs 99 GiB", "99"),
    ("around 7k MB of activations", "7k"),
    ("70 GB of optimizer state", "70"),
    ("about 1,000 GB with long context", "1,000"),
]

ALL_INVENTED = [("price", *c) for c in INVENTED_PRICE + INVENTED_PRICE_EN] + [("memory", *c) for c in INVENTED_MEMORY]


def test_the_invented_set_is_large_and_bilingual():
    assert len(ALL_INVENTED) >= 50
    zh = [a for _, a, _ in ALL_INVENTED if any("\u4e00" <= ch <= "\u9fff" for ch in a)]
    assert len(zh) >= 25 and len(ALL_INVENTED) - len(zh) >= 20


@pytest.mark.parametrize("which,answer,invented", ALL_INVENTED, ids=[a for _, a, _ in ALL_INVENTED])
def test_every_invented_number_is_caught(which, answer, invented, price_sources, memory_sources):
    sources = price_sources if which == "price" else memory_sources
    report = check(answer, sources)
    assert not report.grounded, f"{answer!r} passed"
    assert invented in report.ungrounded, report.ungrounded


@pytest.mark.parametrize("answer", ["只要 ¥1 每小时", "just $1 per hour", "0 元押金", "RMB1"])
def test_one_and_zero_are_not_free_any_more(answer):
    """The old guard always allowed 0 and 1 — so 「¥1/月」 passed. (Tool text with 1:1 would ground 1.)"""
    assert not check(answer, [{"hourly_cny": 5.75, "count": 8}]).grounded


def test_an_invented_figure_inside_a_grounded_answer_is_still_caught(price_sources):
    answer = GROUNDED_PRICE[0] + " 另外押金三千五百元。"
    assert check(answer, price_sources).ungrounded == ["三千五百"]


def test_chinese_words_that_look_like_numerals_are_not_numbers(price_sources):
    for text in ("一下", "一般来说", "两者都行", "万一掉卡", "十分划算", "千万别包年", "第三步", "几十块"):
        assert check(text, price_sources).grounded, text


def test_list_markers_are_the_only_free_numbers(price_sources):
    assert check("1. 先询价\n2. 再比价\n3) 最后签约", price_sources).grounded
    assert not check("先询价，再等 3 天", price_sources).grounded
