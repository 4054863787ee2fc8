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


def test_what_context_can_i_get_is_answered_with_the_longest_context() -> None:
    # Llama-3.1-70B Q4_K_M ≈ 42.7 GB over 2 × 24 GB cards leaves ≈ 2.6 GB per card; KV per token (config.json:
    # 80 layers × 8 KV heads × 128 dims × 2 (K,V) × 2 B) = 327,680 B, so 2 × 2.6e9 / 327,680 ≈ 15.9k tokens before
    # buffers — the estimator's figure must be in the thousands, not absent
    import re

    a = ask("will llama 3.1 70b q4_k_m run on 2x 3090 in llama.cpp, and what context can I get?", backend="offline")
    a = a.answer
    m = re.search(r"(?:Longest context: about \*\*|longest context is about )([\d,]+) tokens", a)
    assert m and 4_000 <= int(m.group(1).replace(",", "")) <= 16_000
    assert "Not used: llama.cpp" not in a  # the no-reserve estimate is how llama.cpp allocates


def test_a_named_vllm_whose_reservation_was_used_is_not_listed_as_unused() -> None:
    a = ask("vllm 上 4090 跑 qwen2.5-7b 32k 上下文够不够", backend="offline").answer
    assert "没用上：vLLM" not in a and "23.2 GB" in a  # 0.9 × 25.76 GB: vLLM's share was used


def test_a_slow_report_that_asks_if_it_is_normal_gets_the_expected_band() -> None:
    # Qwen2.5-32B Q4 ≈ 32.76e9 × ~0.6 B ≈ 19.7 GB read per token; 1008 GB/s × 0.6–0.9 ÷ ~20.8 GB ≈ 29–44 tokens/s on a
    # 4090 (datasheet bandwidth): 8 tokens/s is far below it, 35 inside it
    slow = ask("4090上跑qwen2.5-32b q4，只有8 tokens/s，这正常吗", backend="offline").answer.splitlines()[0]
    assert slow.startswith("偏慢") and "29" in slow
    fine = ask("my 4090 runs qwen2.5-32b q4 at 35 tok/s, is that normal?", backend="offline").answer.splitlines()[0]
    assert fine.startswith("Normal") and "generic-" not in fine


def test_a_speed_in_tokens_per_second_is_not_a_context() -> None:
    from assistant.offline.reading import read_one

    assert read_one("8张H200 跑 deepseek-v3 1000 tokens/s 正常吗").context is None
    assert read_one("上下文 2048 tokens").context == 2048
