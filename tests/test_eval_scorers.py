"""The eval scorers: hand-written answer strings → the numbers, verdicts and checks we expect.

Each expected value is worked out by hand in the comment beside it (GB = 1e9 B, GiB = 2^30 B).
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from evals.numbers import chinese_to_number, extract_quantities, find_number
from evals.schema import Case, Expect, NumberExpect
from evals.scorers import (
    args_match,
    check_verdict,
    contains_phrase,
    score_case,
    score_expect,
    text_language,
    verdict_from_text,
)


def dims(text: str) -> list[tuple[float, str | None]]:
    return [(round(q.value, 6), q.dim) for q in extract_quantities(text)]


# ----------------------------------------------------------------------------- extraction


@pytest.mark.parametrize(
    "text, value, dim",
    [
        ("14 GB", 14e9, "bytes"),
        ("13.04 GiB", 13.04 * 2**30, "bytes"),  # 13.04 × 1,073,741,824
        ("24564MiB", 24564 * 2**20, "bytes"),  # nvidia-smi's 4090 total
        ("24G显存", 24e9, "bytes"),  # Chinese listings: bare G = GB
        ("2,039 GB/s", 2.039e12, "bandwidth"),
        ("3.35 TB/s", 3.35e12, "bandwidth"),
        ("100 Gb/s", 12.5e9, "bandwidth"),  # bits: 100e9 / 8
        ("989 TFLOPS", 989e12, "flops_rate"),
        ("624 TOPS", 624e12, "ops_rate"),
        ("3.14e23 FLOPs", 3.14e23, "flop"),
        ("3.14×10^23 FLOPs", 3.14e23, "flop"),
        ("3.14 × 10²³ FLOPs", 3.14e23, "flop"),
        ("约 11.2 万元", 112_000, "cny"),
        ("¥3,100", 3100, "cny"),
        ("2T tokens", 2e12, "tokens"),
        ("1万亿 token", 1e12, "tokens"),
        ("七十亿参数", 7e9, "params"),
        ("7B", 7e9, "params"),
        ("两张", 2, "gpus"),
        ("8卡", 8, "gpus"),
        ("2台", 2, "nodes"),
        ("45%", 45, "percent"),
        ("百分之九十五", 95, "percent"),
        ("487 天", 487 * 86400, "time"),
        ("11.7 小时", 11.7 * 3600, "time"),
        ("93,500 GPU-hours", 93500, "gpu_time"),
        ("9.35 万卡时", 93500, "gpu_time"),
        ("16 bytes/param", 16, "bytes_per_param"),
        ("每个参数 16 字节", 16, "bytes_per_param"),
        ("700W", 700, "watts"),
        ("3.2×", 3.2, "ratio"),
    ],
)
def test_single_quantity(text: str, value: float, dim: str) -> None:
    qs = extract_quantities(text)
    assert len(qs) >= 1, qs
    q = qs[0]
    assert q.dim == dim, qs
    assert q.value == pytest.approx(value, rel=1e-9), qs


@pytest.mark.parametrize(
    "text", ["56–112 GB", "56~112GB", "56 到 112 GB", "56-112 GB", "56 GB to 112 GB", "56 至 112GB"]
)
def test_ranges_give_both_ends_with_the_unit(text: str) -> None:
    qs = extract_quantities(text)
    assert [(q.value, q.dim, q.range_role) for q in qs] == [(56e9, "bytes", "low"), (112e9, "bytes", "high")]


def test_range_with_wan_multiplier_and_per_month() -> None:
    # "2.5–3.8万/月": the left end borrows 万 and the money unit → 25,000 and 38,000 CNY per month
    qs = extract_quantities("8卡A100整机月租约2.5–3.8万/月")
    money = [q for q in qs if q.dim == "cny"]
    assert [q.value for q in money] == [25000, 38000]
    assert {q.per for q in money} == {"month"}


def test_hourly_price_range_keeps_rate() -> None:
    qs = extract_quantities("4090 大约 1.9–2.3 元/小时")
    assert [(q.value, q.dim, q.per) for q in qs if q.dim] == [(1.9, "cny", "h"), (2.3, "cny", "h")]


def test_chinese_numerals() -> None:
    assert chinese_to_number("七十亿") == 7e9
    assert chinese_to_number("一百二十") == 120
    assert chinese_to_number("两") == 2
    assert chinese_to_number("十三") == 13
    assert chinese_to_number("一万五千") == 15000
    assert chinese_to_number("三点五") == 3.5
    assert chinese_to_number("一千七百二十万") == 17_200_000


def test_words_that_only_contain_numerals_are_not_numbers() -> None:
    # 统一 / 一下 / 万兆 (10 GbE in Chinese) carry no quantity the scorer should see
    assert extract_quantities("统一一下") == []
    assert extract_quantities("万兆网络") == []


def test_negative_size_and_gpu_names_are_not_confused() -> None:
    qs = extract_quantities("训练一个 -3B 的模型，用 A100 和 RTX4090")
    assert [(q.value, q.dim) for q in qs] == [(-3e9, "params")]


def test_counts_in_english() -> None:
    assert dims("two 8-card servers") == [(2, "nodes"), (8, "gpus")]
    assert dims("8 x H100") == [(8, "gpus")]


# ----------------------------------------------------------------------------- matching


def test_gib_answer_matches_gb_expectation_and_unit_is_checked() -> None:
    # 112 GB = 104.31 GiB (112e9 / 2^30)
    assert find_number("约 104.3 GiB", value=112, unit="GB").ok
    # "112 GiB" is 120.26 GB: a unit slip the scorer must catch at 2 %
    assert not find_number("约 112 GiB", value=112, unit="GB").ok
    # a bandwidth with the same digits is a different dimension
    assert not find_number("带宽 112 GB/s", value=112, unit="GB").ok


def test_tolerances() -> None:
    assert find_number("about 9.0 GB", value=9.13, unit="GB", rel_tol=0.02).ok  # 1.4 % off
    assert not find_number("about 8.0 GB", value=9.13, unit="GB", rel_tol=0.02).ok  # 12 % off
    assert find_number("需要 15 张", value=16, unit="gpus", abs_tol=2).ok
    assert not find_number("需要 32 张", value=16, unit="gpus", abs_tol=2).ok


def test_bounds_and_or_values() -> None:
    assert find_number("单卡月租 3,900–4,750 元", minimum=3100, maximum=10000, unit="CNY/month").ok
    assert not find_number("单卡月租 2.18 元/小时", minimum=3100, maximum=10000, unit="CNY/month").ok
    assert find_number("model states 126 GB", value=112, or_values=[126], unit="GB").ok


def test_wan_yuan_converts_to_yuan() -> None:
    # 2.5万元 = 25,000 元
    assert find_number("整机 2.5万元/月", value=25000, unit="CNY/month").ok
    assert find_number("整机 2.5万元/月", value=2.5, unit="万元/月").ok


def test_in_range_mode() -> None:
    assert find_number("需要 56–126 GB", value=112, unit="GB", mode="in_range").ok
    assert not find_number("需要 14–28 GB", value=112, unit="GB", mode="in_range").ok


def test_tb_s_vs_gb_s() -> None:
    # 3.35 TB/s = 3,350 GB/s
    assert find_number("HBM3 3.35 TB/s", value=3350, unit="GB/s").ok


def test_scientific_flops() -> None:
    # 6 × 7e9 × 1e12 = 4.2e22
    assert find_number("≈ 4.2×10^22 FLOPs", value=4.2e22, unit="flop").ok
    assert find_number("≈ 4.2e22 FLOPs", value=4.2e22, unit="flop").ok


# ----------------------------------------------------------------------------- verdict, phrases, language


@pytest.mark.parametrize(
    "answer, verdict",
    [
        ("不能。7B 全量训练的模型状态约 112 GB，远超 24 GB。", "does_not_fit"),
        ("结论：放不下。", "does_not_fit"),
        ("能不能用4090全量训练7B？不行，显存不够。", "does_not_fit"),
        ("可以，QLoRA 下 7B 大约需要 6 GB。", "fits"),
        ("**结论**：放得下（约 18 GB / 24 GB）。", "fits"),
        ("No. A 7B full fine-tune needs about 112 GB of model states.", "does_not_fit"),
        ("It does not fit: 112 GB > 80 GB.", "does_not_fit"),
        ("Yes — it fits with about 5 GB to spare.", "fits"),
    ],
)
def test_verdict_from_text(answer: str, verdict: str) -> None:
    assert verdict_from_text(answer) == verdict


def test_verdict_falls_back_to_tool_result() -> None:
    calls = [{"name": "estimate_memory", "args": {}, "result": {"per_gpu": {"fits": False}}}]
    assert check_verdict("does_not_fit", "显存明细如下。", calls).ok
    assert not check_verdict("fits", "显存明细如下。", calls).ok


def test_phrases_alternatives_and_width() -> None:
    assert contains_phrase("用 ＬｏＲＡ 微调", ["QLoRA", "LoRA"]) == "LoRA"
    assert contains_phrase("no nvlink here", "NVLink") == "NVLink"
    assert contains_phrase("nothing", ["a b c"]) is None


def test_language_of_text() -> None:
    assert text_language("7B 全量训练需要约 112 GB 显存，RTX 4090 只有 24 GB。") == "zh"
    assert text_language("A 7B full fine-tune needs about 112 GB; an RTX 4090 has 24 GB.") == "en"


def test_args_loose_match() -> None:
    ok, _ = args_match({"gpu": "4090", "model|params": 7}, {"gpu_name": "RTX 4090", "params_b": 7.0})
    assert ok
    ok, _ = args_match({"model|params": 7}, {"model": "Qwen2.5-7B"})
    assert ok
    ok, missing = args_match({"gpu": "A100"}, {"gpu": "rtx_4090"})
    assert not ok and "A100" in missing


# ----------------------------------------------------------------------------- a whole case


def _case(**kw) -> Case:
    base = dict(
        id="t",
        category="fit",
        language="zh",
        question="能用4090全量训练7B吗",
        derivation="7e9 × 16 B = 112 GB > 24 GB (ZeRO paper §3)",
    )
    base.update(kw)
    return Case.model_validate(base)


def test_score_case_passes_and_fails_on_each_check() -> None:
    case = _case(
        tool="estimate_memory",
        verdict="does_not_fit",
        grounded=True,
        numbers=[NumberExpect(value=112, or_values=[126], unit="GB", rel_tol=0.05, why="16 B/param")],
        must_include=[["LoRA", "QLoRA"]],
        must_not_include=["可以全量"],
        cites=[["memory-formula", "faq"]],
    )
    good = {
        "answer": "不能。7B 全量训练模型状态约 112 GB（16 字节/参数），4090 只有 24 GB；建议 LoRA 或 QLoRA。",
        "language": "zh",
        "tool_calls": [{"name": "estimate_memory", "args": {"gpu": "rtx_4090"}, "result": {}}],
        "citations": [{"doc_id": "memory-formula", "title": "", "section": ""}],
        "grounded": True,
    }
    checks = score_case(case, [good])
    assert all(c.ok for c in checks), [c for c in checks if not c.ok]

    bad = dict(good, answer="Yes, it fits: about 56 GB.", language="en", tool_calls=[], citations=[], grounded=False)
    failed = {c.name for c in score_case(case, [bad]) if not c.ok}
    assert failed == {"tool", "verdict", "number", "must_include", "cites", "language", "grounded"}


def test_multi_turn_expectations_apply_per_turn() -> None:
    case = Case.model_validate(
        dict(
            id="mt",
            category="multi_turn",
            language="zh",
            derivation="A100 80GB datasheet: 80 GB",
            turns=[
                {"question": "A100 显存多大", "expect": {"numbers": [{"value": 80, "unit": "GB", "why": "datasheet"}]}},
                "那H100呢",
            ],
            numbers=[{"value": 80, "unit": "GB", "why": "H100 SXM datasheet: 80 GB"}],
        )
    )
    r1 = {"answer": "A100 有 80 GB 显存。", "language": "zh"}
    r2 = {"answer": "H100 SXM 也是 80 GB（HBM3）。", "language": "zh"}
    assert all(c.ok for c in score_case(case, [r1, r2]))
    r1_bad = {"answer": "A100 有 40 GB 显存。", "language": "zh"}
    failed = [c.name for c in score_case(case, [r1_bad, r2]) if not c.ok]
    assert failed == ["turn1.number"]


def test_schema_rejects_cases_without_derivation_or_question() -> None:
    with pytest.raises(ValidationError):
        Case.model_validate(dict(id="x", category="fit", language="zh", question="q"))
    with pytest.raises(ValidationError):
        Case.model_validate(dict(id="x", category="fit", language="zh", derivation="datasheet value"))
    with pytest.raises(ValidationError):
        Case.model_validate(dict(id="x", category="nope", language="zh", question="q", derivation="datasheet value"))
    with pytest.raises(ValidationError):
        NumberExpect.model_validate({"value": 1, "unit": "furlongs", "why": "x y z"})


def test_score_expect_default_language_follows_question() -> None:
    checks = score_expect(Expect(), {"answer": "A100 has 80 GB.", "language": "en"}, question="A100显存多大")
    lang = [c for c in checks if c.name == "language"][0]
    assert not lang.ok and lang.expected == "zh"


def test_phrases_start_at_a_word() -> None:
    # "rain" is not in "training", "IB" is not in "distributed", "79" is not in "179"
    assert contains_phrase("distributed training", ["rain", "IB"]) is None
    assert contains_phrase("Xid 179", "79") is None
    assert contains_phrase("Xid 79 fallen", "79") == "79"
    assert contains_phrase("用 IB 网络", "IB") == "IB"
    assert contains_phrase("8 GPUs", "GPU") == "GPU"


def test_near_keeps_a_band_from_matching_an_unrelated_number() -> None:
    answer = "每卡构成：权重 5.2 GB、激活值 3.6 GB、logits 2.6 GB"
    # 3.6 GB is inside [3.3, 5.6] but it is the activation figure, not the base weights
    assert find_number(answer, minimum=3.3, maximum=5.6, unit="GB", near=["权重"]).matched.raw == "5.2 GB"
    assert not find_number("激活值 3.6 GB", minimum=3.3, maximum=5.6, unit="GB", near=["权重"]).ok


def test_infeasible_plan_reads_as_does_not_fit() -> None:
    assert verdict_from_text("在给定的预算/工期下找不到可行的配置。") == "does_not_fit"


def test_capacity_is_not_read_from_a_card_name() -> None:
    before, after = ["显存", "memory"], ["of memory", "GDDR", "HBM"]
    # "RTX 4090 24GB" names the card; it does not state the capacity
    assert not find_number(
        "RTX 4090 24GB 的显存带宽是 1008 GB/s", value=24, unit="GB", near_before=before, near_after=after
    ).ok
    assert find_number(
        "RTX 4090 24GB：显存 24 GB，带宽 1008 GB/s", value=24, unit="GB", near_before=before, near_after=after
    ).ok
    assert find_number("It has 24 GB of memory.", value=24, unit="GB", near_before=before, near_after=after).ok


@pytest.mark.parametrize(
    "answer, verdict",
    [
        ("从性能上看 4090 很强，可惜显存放不下：需要 112 GB。", "does_not_fit"),  # 性能 is not 能
        ("数据并行也不行：每卡仍需 112 GB。", "does_not_fit"),  # 并行 is not 行
        ("Unfortunately, no: it needs 112 GB.", "does_not_fit"),
        ("能，QLoRA 约 6 GB。", "fits"),
        ("Short answer: it fits, with 5 GB to spare.", "fits"),
    ],
)
def test_verdict_is_not_fooled_by_compound_words(answer: str, verdict: str) -> None:
    assert verdict_from_text(answer) == verdict
