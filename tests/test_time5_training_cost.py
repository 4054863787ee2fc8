"""Training time and cost as users really ask it: small jobs, quantities as written, a stated ETA, the user's own
GPU-hours × rate, per-day deployment ceilings, and published runs of known recipes.

Own phrasings; every expected value is worked by hand here from public figures, never read back from the code:

- C ≈ 6·N·D for full training, ≈ 4·N·D for LoRA (Kaplan et al. 2020, arXiv:2001.08361).
- Dense BF16 peaks: A100 312 TFLOPS (A100 datasheet), H100 SXM 989.4 (H100 datasheet; 1,979 is 2:4-sparse),
  RTX 4090 165.2 with FP32 accumulate (Ada whitepaper; 330.3 is 2:4-sparse).
- MFU bands (knowledge/mfu.yaml): full 0.25/0.35/0.45, LoRA 0.15/0.25/0.35.
- Qwen2.5-7B 7.62e9 params (model card); Llama-2-7B 6.74e9 (config).
- Alpaca: "Fine-tuning a 7B LLaMA model took 3 hours on 8 80GB A100s" (crfm.stanford.edu/2023/03/13/alpaca.html).
- Vicuna: "PyTorch FSDP on 8 A100 GPUs in one day", 13B "from around $1K to $300" with SkyPilot managed spot
  (lmsys.org/blog/2023-03-30-vicuna/).
- LLaVA-v1.5-13B: pretrain ≈ 5.5 h, instruction tuning ≈ 20 h on 8× A100 80G (haotian-liu/LLaVA README, Train).
- Replicate: idle models scale down to the minimum instances, 0 by default (replicate.com/docs/billing).
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.reading import read_one
from assistant.offline.reading.money import read_money_quote
from assistant.offline.writing.render_jobs import hrs
from tools.prices import ProviderInput, provider_pricing
from tools.train_published import PublishedRunInput, find_runs, published_run, runs_data


def _run(q: str):  # type: ignore[no-untyped-def]
    composed, results = answer(q)
    return composed.text, results


def _res(results, name):  # type: ignore[no-untyped-def]
    return next(r for r in results if r.name == name).result


_ZERO = re.compile(r"(?<![\d.,])0 ?(?:小时|卡时|hours?|GPU-hours)|¥0(?![.\d])|区间 0–0|range 0–0")


# ---------------------------------------------------------------- A. small jobs never show a zero
def test_hours_keep_the_digits_that_matter():
    assert hrs(0.0307) == "0.031"  # 2 significant digits under 1
    assert hrs(2.46) == "2.5"
    assert hrs(13.6) == "14"
    assert hrs(13413.51) == "13,414"


@pytest.mark.parametrize(
    "q",
    [
        "用一张4090 lora微调qwen2.5-7b，500条数据，每条大概300 token，要多久？",
        "How long to LoRA-tune Qwen2.5-7B on one RTX 4090 with 500 samples of about 300 tokens each?",
    ],
)
def test_a_three_minute_lora_job_is_said_in_minutes(q):
    text, results = _run(q)
    est = _res(results, "estimate_training_time")
    # 4 × 7.62e9 × (500 × 300) = 4.572e15 FLOPs ÷ (165.2e12 × 0.25) = 110.7 s = 1.85 min (0.35 → 1.32, 0.15 → 3.07)
    assert est["wall_minutes"]["mid"] == pytest.approx(1.85, rel=0.03)
    assert est["wall_minutes"]["low"] == pytest.approx(1.32, rel=0.03)
    assert est["wall_minutes"]["high"] == pytest.approx(3.07, rel=0.03)
    assert ("分钟" in text) or ("minutes" in text)
    assert not _ZERO.search(text), _ZERO.search(text)
    assert est["cost_cny"]["mid"] > 0  # cents, not ¥0


# ---------------------------------------------------------------- B. quantities as people write them
def test_hours_with_plus_or_duo_are_the_number_said():
    assert read_one("全量微调跑了1300多个小时还没完，正常吗").period_hours == 1300
    assert read_one("训练时间显示要 20+小时，是不是哪里不对").period_hours == 20


def test_counts_of_data_are_samples_and_joined_counts_add_up():
    f = read_one("开源数据80多万条再加上自己的数据2W左右，一起做sft")
    assert f.samples == pytest.approx(8.2e5)  # 80万 + 2万
    assert read_one("我有10万数据，lora微调7b要多久").samples == 1e5
    f = read_one("训练1M数据需要多久，用lora")
    assert f.samples == 1e6 and f.tokens is None  # items, with the length assumed in the answer
    f = read_one("50亿数据预训练一个1B模型要多久")
    assert f.tokens == pytest.approx(5e9) and f.samples is None  # pre-training data at 亿 scale stays tokens
    assert read_one("预算100多万，能训什么").samples is None  # money is not data


# ---------------------------------------------------------------- C. a stated ETA against the estimate
def test_an_eta_fifty_times_the_estimate_is_not_reasonable_and_names_the_settings():
    q = "8张A100全量微调qwen2.5-7b，30万条数据，每条1000 token，进度条显示要600小时，合理吗？"
    text, results = _run(q)
    est = _res(results, "estimate_training_time")
    # 6 × 7.62e9 × 3e8 = 1.372e19 ÷ (8 × 312e12 × 0.25) = 21,980 s ≈ 6.1 h at the slow end (before communication)
    assert 5.5 <= est["wall_hours"]["high"] <= 12
    assert est["measured_verdict"] == "slow" and est["measured_vs_high"] > 40
    assert text.startswith("偏慢，不合理") and "max_steps" in text


def test_an_english_eta_far_over_the_band_is_not_reasonable():
    q = "SFT of llama-2-7b on 4x A100 with 200k samples of ~500 tokens: the progress bar says 400 hours. Is this reasonable?"
    text, results = _run(q)
    est = _res(results, "estimate_training_time")
    # 6 × 6.74e9 × 1e8 = 4.04e18 ÷ (4 × 312e12 × 0.25) = 12,960 s ≈ 3.6 h
    assert 3.0 <= est["wall_hours"]["high"] <= 8
    assert "not reasonable" in text.split("\n")[0]


# ---------------------------------------------------------------- D. the user's own GPU-hours × rate
def test_gpu_hours_times_the_users_rate_corrects_the_total():
    text, results = _run(
        "The paper reports 8,000 H100 GPU hours for pretraining. At $2.5 per GPU hour that's about $10k, right?"
    )
    q = _res(results, "quote_cost")
    assert q["total"] == pytest.approx(20_000)  # 8,000 × 2.5
    assert text.startswith("No:") and "$20,000" in text and "$10,000" in text


def test_gpu_hours_in_parts_are_summed_and_a_right_total_is_confirmed():
    text, results = _run(
        "stage 1 took 120 A100 GPU hours and stage 2 took 380 A100 GPU hours; at $1.8/GPU hour is the total about $900?"
    )
    q = _res(results, "quote_cost")
    assert q["gpu_hours_sum"] == "120 + 380 = 500" and q["total"] == pytest.approx(900)  # 500 × 1.8
    assert text.startswith("The arithmetic holds")


def test_a_rate_for_a_whole_node_becomes_per_gpu_hour():
    q = read_money_quote("The market rate for 4xA100 is around $8 per hour")
    assert q is not None and q.rate_gpus == 4 and q.per_gpu_hour == 2.0
    text, results = _run("An 8xA100 node rents for $12 per hour. How much would Alpaca's fine-tune cost me?")
    run = _res(results, "published_run")
    assert run["total_gpu_hours"] == 24  # 8 × 3 h (Alpaca blog)
    assert run["total_cost_at_rate"] == pytest.approx(36)  # 24 × $12 / 8
    assert "$36" in text.split("\n")[0]


def test_a_per_day_deployment_figure_is_a_ceiling_with_its_hourly_rate():
    text, results = _run("My serverless endpoint says max $48/day for one instance. Do I pay that if nobody calls it?")
    assert _res(results, "quote_cost")["hourly_rate"] == pytest.approx(2.0)  # 48 / 24
    first = text.split("\n")[0]
    assert first.startswith("Not necessarily") and "$2/hour" in first
    assert "scales to zero" in text and "min instances" in text


def test_a_provider_named_by_its_id_is_found_not_an_error():
    out = provider_pricing(ProviderInput(provider="vast"))
    assert out.name == "Vast.ai"
    text, _ = _run("On vast.ai a 4090 is $0.4/hour, what do 10 hours cost?")
    assert "Unknown provider" not in text and "$4" in text  # 0.4 × 10


# ---------------------------------------------------------------- E. published runs of known recipes
def test_every_published_row_cites_a_url_and_a_date():
    for row in runs_data()["runs"]:
        assert re.search(r"https?://", row["source"]) and row["as_of"]
        for st in row["stages"]:
            assert st["n_gpus"] >= 1 and st["hours"] > 0


def test_published_gpu_hours_are_cards_times_hours():
    assert published_run(PublishedRunInput(run="alpaca")).total_gpu_hours == 24  # 8 × 3
    v = published_run(PublishedRunInput(run="vicuna"))
    assert v.total_gpu_hours == 192 and v.implied_usd_per_gpu_hour == pytest.approx(300 / 192, abs=0.01)
    assert published_run(PublishedRunInput(run="llava")).total_gpu_hours == 204  # 8 × 5.5 + 8 × 20
    assert find_runs("how long to train LLaVA stage 2") == ["llava-v1.5-13b"]


def test_llava_stages_on_4090s_are_rescaled_by_dense_peaks():
    text, results = _run("LLaVA-1.5 13B 两个阶段在8张4090上大概要训多久？")
    run = _res(results, "published_run")
    hours = [s["your_hours"] for s in run["stages"]]
    assert hours == [pytest.approx(10.4, abs=0.05), pytest.approx(37.8, abs=0.05)]  # 5.5 and 20 h × 312 / 165.2
    assert "第一阶段" in text and "第二阶段" in text and "10.4" in text


def test_vicuna_cost_is_the_gpu_hours_on_spot():
    text, results = _run("Vicuna-13B 训练只要300美元？是怎么算出来的")
    assert _res(results, "published_run")["total_gpu_hours"] == 192
    assert "192" in text and "spot" in text.lower()


def test_another_model_on_a_recipes_data_is_not_the_published_run():
    _, results = _run("Can I train llama 2 70b with LoRA on the LLaVA dataset on a single H100, and how many hours?")
    assert not any(r.name == "published_run" for r in results)


def test_a_speedrun_redone_on_a_4090_uses_dense_peaks_and_minutes():
    q = "For the nanogpt speedrun, 8xH100 takes 3 minutes; H100 is 1979 TFLOPS and 4090 is 330 TFLOPS, so how long on 1x4090?"
    text, results = _run(q)
    r = _res(results, "rescale_training_time")
    assert r["hours"] == pytest.approx(2.4, abs=0.05)  # 8 × 989.4 × (3/60) / 165.2 = 2.396 h
    assert "989.4" in text and "165.2" in text and "sparsity" in text


def test_a_recipe_named_inside_chinese_text_is_found():
    assert find_runs("用8张A100复现alpaca微调") == ["alpaca-7b"]  # CJK letters are not word characters here


@pytest.mark.parametrize(
    ("q", "words"),
    [
        (
            "Fine-tuning LLaMA 7B using the Alpaca dataset on 8 80GB A100 GPUs finished in only 40 minutes. Did I miss something?",
            ("far shorter", "num_train_epochs"),
        ),
        ("用8张A100复现alpaca微调，跑了20个小时，是不是哪里有问题", ("长得多", "FlashAttention")),
    ],
)
def test_the_users_own_run_of_a_recipe_is_compared_with_the_published_3_hours(q, words):
    text, results = _run(q)
    assert _res(results, "published_run")["stages"][0]["hours"] == 3  # Alpaca blog: 3 hours on 8 × A100 80GB
    assert all(w in text for w in words)
