"""Planning, price and training-time questions reach their tools and answer what was asked.

Phrasings are our own (casual Chinese, English, typos); expected values are hand arithmetic from the
public figures named beside each test, never pasted tool output.
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.intents import analyse
from assistant.offline.reading.load import read_load
from assistant.offline.reading.money import read_money_quote
from tools.quote_cost import QuoteCostInput, quote_cost
from tools.reference_models import find_reference
from tools.serving import ServingInput, plan_serving
from tools.train_scaling import RescaleInput, rescale_training_time


def _names(results) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.name for r in results]


def _gb_numbers(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"(\d[\d,]*(?:\.\d+)?)\s*GB", text)]


# ---------------------------------------------------------------- tools -------------------------
def test_quote_cost_monthly_cloud_quote_scaled_to_the_hours_used() -> None:
    # $220/month assumes 730 h (8,760 h / 12): 220 / 730 = 0.30137 $/h; 30 h → $9.04
    out = quote_cost(QuoteCostInput(amount=220, currency="USD", per="month", hours=30))
    assert out.hours_per_month == 730
    assert out.total == pytest.approx(220 / 730 * 30, rel=1e-3)
    assert out.currency == "USD"


def test_quote_cost_hourly_quote_times_cards_stays_in_its_currency() -> None:
    out = quote_cost(QuoteCostInput(amount=2.5, currency="EUR", per="hour", hours=10, count=2))
    assert out.total == 50.0 and out.currency == "EUR"  # 2.5 × 10 × 2


def test_quote_cost_cny_month_is_720_hours() -> None:
    out = quote_cost(QuoteCostInput(amount=1440, currency="CNY", per="month", hours=100))
    assert out.hourly_rate == 2.0  # 1440 / 720


def test_rescale_uses_dense_peaks_and_flags_the_sparse_figure() -> None:
    # A100 dense BF16 312, H100 SXM dense 989.4 (NVIDIA datasheets): 8 × 312 × 30 / (4 × 989.4) = 18.92 h
    out = rescale_training_time(
        RescaleInput(ref_gpu="A100 80GB", ref_gpus=8, ref_hours=30, gpu="H100", n_gpus=4, quoted_tflops=[1979])
    )
    assert out.hours == pytest.approx(8 * 312 * 30 / (4 * 989.4), rel=0.01)
    assert [q.kind for q in out.quoted] == ["sparse"]


def test_rescale_efficiency_ratio_from_the_users_own_hours() -> None:
    # 4 × H800 for 10 h → 2 × A800: 4 × 989.4 × 10 / (2 × 312) = 63.4 h; done in 40 h → 1.59× as efficient
    out = rescale_training_time(
        RescaleInput(ref_gpu="H800", ref_gpus=4, ref_hours=10, gpu="A800", n_gpus=2, actual_hours=40)
    )
    assert out.hours == pytest.approx(63.4, rel=0.01)
    assert out.efficiency_ratio == pytest.approx(63.4 / 40, rel=0.01)


def test_plan_serving_weights_total_for_a_sharded_model() -> None:
    # Qwen2.5-72B: 72.7e9 params × 2 B = 145.4 GB bf16 (HF model card); on 2 × 80 GB no KV fits a 32k context
    out = plan_serving(ServingInput(model="Qwen2.5-72B", gpu="A100 80GB", gpus=2, context=32768))
    assert out.weights_gb_total == pytest.approx(145.4, rel=0.02)
    assert not out.fits and out.usable_gb_per_gpu == pytest.approx(72.0, rel=0.01)  # 80 × 0.9


def test_plan_serving_rate_asks_for_rps_times_output_tokens() -> None:
    out = plan_serving(
        ServingInput(model="Qwen2.5-7B", gpu="A100 80GB", requests_per_s=2, input_tokens=1024, output_tokens=256)
    )
    assert out.required_output_tokens_per_s == 512  # 2 requests/s × 256 tokens
    assert out.replicas_needed and out.gpus_needed == out.replicas_needed * out.tensor_parallel


def test_plan_serving_kv_per_sequence_of_qwen25_14b() -> None:
    # Qwen2.5-14B config: 48 layers, 8 KV heads, head_dim 128 → 2 × 48 × 8 × 128 × 2 B = 196,608 B/token;
    # a 4,096-token sequence = 0.8053 GB
    out = plan_serving(ServingInput(model="Qwen2.5-14B", gpu="RTX 4090", precision="int4", context=4096))
    assert out.kv_gb_per_sequence_per_gpu == pytest.approx(4096 * 196_608 / 1e9, rel=0.01)


def test_reference_models_agree_with_the_catalog_where_both_have_a_model() -> None:
    """One source of truth: a reference row kept for its training tokens must not drift from the catalog."""
    from tools.models import find_entry
    from tools.reference_models import reference_models

    for ref in reference_models():
        entry = find_entry(ref.id)
        if entry is not None:
            published = float(str(entry.params_published).rstrip("Bb"))
            assert ref.params_b == pytest.approx(published, rel=0.02), ref.id


def test_reference_models_match_whole_names_only() -> None:
    assert find_reference("训练一个GPT-3规模的模型").id == "GPT-3"  # type: ignore[union-attr]
    assert find_reference("bloom 176b 怎么跑").id == "BLOOM-176B"  # type: ignore[union-attr]
    assert find_reference("grok1 怎么跑") is None  # the catalog carries Grok-1 (knowledge/models/grok.yaml)
    assert find_reference("GPT-3.5 的 API") is None
    assert find_reference("mossy rocks") is None


# ---------------------------------------------------------------- reading -----------------------
@pytest.mark.parametrize(
    "text, concurrency, rps, heads",
    [
        ("日活300左右，高峰每秒15个请求", None, 15.0, 300),
        ("峰值并发 60 路，要几张卡", 60, None, None),
        ("客服机器人 QPS 5", None, 5.0, None),
        ("serve 40 concurrent users", 40, None, None),
    ],
)
def test_read_load(text: str, concurrency: int | None, rps: float | None, heads: int | None) -> None:
    load = read_load(text)
    assert (load.concurrency, load.requests_per_s, load.heads) == (concurrency, rps, heads)


def test_read_load_daily_volume_is_a_rate() -> None:
    load = read_load("每天大概 3万次调用")
    assert load.per_day == 30_000 and load.requests_per_s == pytest.approx(30_000 / 86_400, rel=1e-3)
    assert read_load("8000 requests per day").requests_per_s == pytest.approx(8000 / 86_400, rel=1e-3)


def test_read_money_quote() -> None:
    q = read_money_quote("Lambda charges $1.29/hr, I need it for three days")
    assert q is not None and (q.amount, q.currency, q.per, q.hours) == (1.29, "USD", "hour", 72)
    q = read_money_quote("€0.9 per hour for 20 hours")
    assert q is not None and (q.currency, q.hours) == ("EUR", 20)
    assert read_money_quote("A100 一个月多少钱") is None


# ---------------------------------------------------------------- questions ---------------------
def test_team_without_a_model_is_sized_with_a_named_assumption() -> None:
    a, results = answer("我们部门50个人想搭个内部问答助手，高峰大概同时20个人在问，用啥显卡合适")
    serving = [r for r in results if r.name == "plan_serving"]
    assert serving and serving[0].args["concurrency"] == 20
    assert "estimate_memory" in _names(results)
    assert "Qwen2.5-14B" in a.text and "KV" in a.text and "张" in a.text.splitlines()[0]


def test_english_team_question_points_at_batching_engines() -> None:
    a, results = answer(
        "We need to serve about 40 concurrent users for our company chatbot, what GPU server do we need?"
    )
    assert next(r for r in results if r.name == "plan_serving").args["concurrency"] == 40
    assert "vLLM" in a.text and "continuous batching" in a.text


def test_rate_is_sized_as_requests_per_second() -> None:
    _, results = answer("企业知识库 QPS 5 左右，部署要什么配置")
    assert next(r for r in results if r.name == "plan_serving").args["requests_per_s"] == 5


def test_default_vllm_deploy_concurrency_states_the_weights_total() -> None:
    a, results = answer("vllm 默认参数 两张A100 80G 跑 Qwen2.5-72B 能开多少并发")
    serving = next(r for r in results if r.name == "plan_serving")
    assert serving.args["context"] == 32768  # Qwen2.5 native window (config.json), vLLM's default max_model_len
    assert any(144 <= x <= 147 for x in _gb_numbers(a.text.splitlines()[0]))  # 72.7e9 × 2 B
    assert "KV" in a.text.splitlines()[0]


@pytest.mark.parametrize(
    "q, words",
    [
        ("自己买两张4090攒机器和租云服务器比，哪个划算", ("利用率", "按量")),
        ("Should I buy a GPU or rent cloud GPUs for my side project?", ("utilisation", "by the hour")),
    ],
)
def test_buy_vs_rent_is_keyed_to_utilisation(q: str, words: tuple[str, str]) -> None:
    a, results = answer(q)
    assert "gpu_price" in _names(results)
    assert all(w in a.text for w in words)


def test_local_vs_api_names_data_and_cost_structure() -> None:
    a, results = answer("私有化部署大模型跟直接调api，区别在哪")
    assert "plan_serving" in _names(results)
    assert "数据不出域" in a.text and "按 token" in a.text


def test_cheapest_way_to_run_a_reference_model() -> None:
    a, results = answer("cheapest way to run grok-1?")
    mins = [r for r in results if r.name == "find_min_gpus"]
    assert {r.args["precision"] for r in mins} == {"int4", "int8"}  # Grok-1 ships int8 (xai-org/grok-1)
    assert any(300 <= x <= 330 for x in _gb_numbers(a.text))  # 314e9 × ~1 B/param
    assert "by the hour" in a.text


def test_cheapest_server_for_moss_counts_4090s() -> None:
    _, results = answer("一台服务器跑 MOSS 大概要多少钱")
    mins = {r.args["precision"]: r.result["min_gpus"] for r in results if r.name == "find_min_gpus"}
    # 16e9 × 2 B = 32 GB bf16 > one 24 GB card → 2; INT4 ≈ 9 GB → 1 (MOSS README: INT4 on one 3090)
    assert mins == {"int4": 1, "bf16": 2}


def test_users_monthly_quote_is_scaled_to_their_hours() -> None:
    a, results = answer("GCP quotes $220/month for the VM but I only need it for 30 hours, what would I pay?")
    assert "quote_cost" in _names(results)
    assert "$9.04" in a.text  # 220 / 730 × 30
    assert "¥" not in a.text.splitlines()[0]  # no invented exchange rate


def test_training_time_without_data_gives_formula_and_example() -> None:
    a, results = answer("lora微调一般要训多久啊")
    est = next(r for r in results if r.name == "estimate_training_time")
    assert est.args["samples"] == 10_000 and not est.error
    lines = a.text.splitlines()
    assert "没说训练的是什么模型" in lines[0]  # no model named: the assumed size is said first
    assert "token 数" in lines[1]  # then what the time rests on, with the formula


def test_gpt3_from_scratch_uses_published_tokens() -> None:
    _, results = answer("从头训练一个 GPT-3 要花多少钱")
    est = next(r for r in results if r.name == "estimate_training_time")
    assert est.args["tokens"] == 300e9 and est.args["params_b"] == 175  # Brown et al. 2020
    # 6 × 175e9 × 300e9 = 3.15e23 FLOP / (312e12 × MFU 0.25–0.6) / 3600 = 467k–1.12M A100-hours
    assert 467_000 <= est.result["gpu_hours"]["mid"] <= 1_122_000


def test_users_arithmetic_with_sparse_tflops_is_redone() -> None:
    a, results = answer("8卡A100训了30小时，换成4张H100要多久？我按H100 1979 TFLOPS算的")
    r = next(r for r in results if r.name == "rescale_training_time")
    assert r.result["hours"] == pytest.approx(18.9, abs=0.2)  # 8 × 312 × 30 / (4 × 989.4)
    assert "稀疏" in a.text


def test_measured_time_is_compared_with_the_estimate() -> None:
    a, results = answer("two 4090s, lora llama-7b with num_epochs=8, took 40 hours, is that normal?")
    assert "estimate_training_time" in _names(results)
    assert "epoch" in a.text and "40" in a.text


def test_named_model_with_concurrency_stays_a_plan() -> None:
    intents, _, _ = analyse("I need to serve Llama-3-70B in bf16 to 30 concurrent users, how many GPUs?")
    assert intents[0] != "team_serving"


def test_slow_multi_node_is_not_a_duration_estimate() -> None:
    intents, _, _ = analyse("多机训练比单机慢5倍，每个iter耗时60s，没有IB")
    assert "train_time_completed" not in intents


def test_long_prompt_ttft_is_the_prefill_compute_floor() -> None:
    a, results = answer("首token要等快20秒，qwen2.5-32b awq，单张L40，提示大概 8k token，怎么调参数能快点")
    serving = next(r for r in results if r.name == "plan_serving")
    assert serving.args["input_tokens"] == 8192 and serving.args["concurrency"] == 1
    assert "gpu_specs" in _names(results)
    # 2 × 32.8e9 × 8192 / 181 TFLOPS (L40 dense FP16) = 2.97 s at 100%; ≥ that floor at real efficiency
    ttft = serving.result["ttft_s"]["mid"]
    assert ttft >= 2 * 32.8e9 * 8192 / 181e12
    assert "预填充" in a.text.splitlines()[0]


def test_two_cards_one_slower_compares_compute_and_bandwidth() -> None:
    a, results = answer("Qwen2.5-14B-Instruct-AWQ on vLLM: my L20 is slower than the 4090, is that expected?")
    assert "gpu_specs" in _names(results)
    assert len([r for r in results if r.name == "plan_serving"]) == 2
    assert "bound" in a.text


def test_what_to_rent_for_a_published_model_is_priced() -> None:
    a, results = answer("想租云服务器跑 grok-1 推理，有啥推荐配置吗")
    assert {r.args["precision"] for r in results if r.name == "find_min_gpus"} == {"int4", "int8"}
    assert "中国大陆租卡行情" in a.text


def test_hours_without_a_price_get_the_dated_china_price() -> None:
    a, results = answer("How much would 40 hours on one A100 cost?")
    price = next(r for r in results if r.name == "gpu_price")
    assert price.args["hours"] == 40
    assert "China-market" in a.text


def test_buy_vs_rent_with_hours_a_day_uses_the_usage_plan() -> None:
    a, results = answer("租卡跟自己买卡哪个划算，每天就用10小时")
    price = next(r for r in results if r.name == "gpu_price")
    assert price.args["hours_per_day"] == 10
    assert price.result["usage_plan"]["hours_used"] == 280  # 10 h × 7 d × 4 weeks
    assert "利用率" in a.text


def test_foreign_quote_with_a_named_card_shows_the_china_price_beside_it() -> None:
    a, results = answer("A100 is $1.8/hour on runpod and training takes 200 hours, total cost?")
    assert next(r for r in results if r.name == "quote_cost").result["total"] == 360  # 1.8 × 200
    price = next(r for r in results if r.name == "gpu_price")
    assert price.args["hours"] == 200
    assert "$360" in a.text.splitlines()[0] and "China market" in a.text


@pytest.mark.parametrize(
    "q, lang_word",
    [
        ("ollama 给几个同事同时用，请求总是一个一个排队，咋办", "OLLAMA_NUM_PARALLEL"),
        ("my ollama box answers users one at a time, how do I make it serve several at once?", "OLLAMA_NUM_PARALLEL"),
    ],
)
def test_ollama_several_users_gets_parallel_slots_and_kv(q: str, lang_word: str) -> None:
    a, _ = answer(q)
    first = a.text.splitlines()[0]
    assert lang_word in first and "KV" in first  # each parallel slot holds its own context's KV cache


def test_from_scratch_without_tokens_assumes_chinchilla() -> None:
    a, results = answer("how long would it take to train a 1B model from scratch on 8 H100s?")
    est = next(r for r in results if r.name == "estimate_training_time")
    assert est.args["tokens"] == 20e9  # ~20 tokens/param (Hoffmann et al. 2022)
    # 6 × 1e9 × 20e9 = 1.2e20 FLOP / (8 × 989.4e12 × 0.4) = 37,905 s ≈ 10.5 h at 40% MFU
    assert 7 <= est.result["wall_hours"]["mid"] <= 16
    assert "Chinchilla" in a.text.splitlines()[0]


def test_named_model_for_a_head_count_is_sized_as_a_service() -> None:
    _, results = answer("给 80 人用的 RAG 系统，用 Qwen2.5-72B-Int4，要几张卡")
    serving = next(r for r in results if r.name == "plan_serving")
    assert serving.args["precision"] == "int4" and serving.args["input_tokens"] == 2048  # RAG-length prompts
    assert serving.result["gpus_needed"] >= 1


def test_requirements_question_without_training_words_is_a_serving_plan() -> None:
    _, results = answer("What hardware do I need for Qwen2.5-32B? Which GPU would you suggest?")
    plan = next(r for r in results if r.name == "plan_configurations")
    assert plan.args["mode"] == "inference"


def test_fine_tune_beside_a_deployment_is_training_with_lora_named() -> None:
    a, results = answer("DeepSeek-V3 我们已经离线部署好了，要是再做全参微调，需要什么硬件配置呢？")
    plan = next(r for r in results if r.name == "plan_configurations")
    assert plan.args["mode"] == "full"
    # 671e9 × 16 B = 10.7 TB of model states (ZeRO paper): no 64-card option fits → LoRA/QLoRA named
    assert "LoRA" in a.text and "QLoRA" in a.text


def test_a_single_cny_quote_is_applied_to_the_users_hours() -> None:
    a, results = answer("平台报价 A800 一个月 2.88万，我只用5天，多少钱")
    q = next(r for r in results if r.name == "quote_cost")
    assert q.result["total"] == pytest.approx(28_800 / 720 * 120, rel=1e-3)  # ¥40/h × 120 h = ¥4,800
    assert a.text.splitlines()[0].startswith("按你的报价")


def test_measured_run_to_other_cards_without_a_training_word() -> None:
    _, results = answer("8卡A100跑了48小时，换4张H100要多久")
    r = next(r for r in results if r.name == "rescale_training_time")
    assert r.result["hours"] == pytest.approx(8 * 312 * 48 / (4 * 989.4), rel=0.01)  # 30.3 h


def test_self_host_or_api_cheaper_is_not_the_cheapest_cards_question() -> None:
    intents, _, _ = analyse("自己部署大模型和用deepseek api哪个便宜")
    assert intents[0] in ("host_vs_api", "serving")


def test_zero_hours_on_a_quote_is_refused_not_replaced() -> None:
    a, results = answer("cloud gpu $5/hr for 0 hours, what does it cost?")
    q = next(r for r in results if r.name == "quote_cost")
    assert q.error and q.args["hours"] == 0
    assert "cost about" not in a.text  # no figure computed from a replaced hour count
