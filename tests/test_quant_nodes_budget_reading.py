"""Reading what users write about low-bit GGUF files, servers, foreign budgets and load — and using it.

Each expectation is worked by hand from a published figure named beside it, not from the program's output.
"""

from __future__ import annotations

import pytest

from assistant.offline import answer
from assistant.offline.reading import read_one


def _call(results, name):
    return [r for r in results if r.name == name]


@pytest.mark.parametrize(
    ("question", "quant"),
    [
        ("用2-bit量化跑Llama-2-70B要多少显存", "q2_k"),
        ("llama.cpp 跑 Qwen2.5-32B Q5_K_M，单张4090够吗", "q5_k_m"),
        ("3bit 的 70b 模型两张3090能跑吗", "q3_k_m"),
        ("Q6_K 的 14B 要多少显存", "q6_k"),
    ],
)
def test_low_bit_gguf_words_are_read_from_the_quant_table(question: str, quant: str) -> None:
    assert read_one(question).weight_quant == quant


@pytest.mark.parametrize("question", ["int4 的 32B 要多少显存", "bf16 跑 7B", "用 4bit 量化", "8-bit 推理 13B"])
def test_the_int4_int8_and_16_bit_families_keep_their_own_path(question: str) -> None:
    assert read_one(question).weight_quant is None


def test_a_q5_file_is_sized_at_its_bits_per_weight_not_int4() -> None:
    # bartowski/Qwen2.5-32B-Instruct-GGUF lists Qwen2.5-32B-Instruct-Q5_K_M.gguf at 23.26 GB; the estimate's whole-model
    # weights must be that file (within 3%), not the int4 AWQ size (≈ 32.8e9 × 4.25 / 8 ≈ 17.4 GB)
    a, results = answer("llama.cpp跑Qwen2.5-32B Q5_K_M，单张4090够吗")
    est = _call(results, "estimate_memory")[0]
    assert est.args["gguf_quant"] == "q5_k_m"
    assert est.result["whole_model_weights_gb"] == pytest.approx(23.26, rel=0.03)
    assert "Q5_K_M" in a.text.splitlines()[0]


def test_a_two_bit_request_is_not_answered_in_bf16() -> None:
    # Llama-2-70B: 68.98e9 parameters (config.json); llama.cpp's quantize README gives Q2_K 3.35 bits per weight
    # → 68.98e9 × 3.35 / 8 = 28.9 GB; bf16 would be 138 GB
    a, results = answer("用2-bit量化跑Llama-2-70B要多少显存")
    est = _call(results, "estimate_memory")[0]
    assert est.result["whole_model_weights_gb"] == pytest.approx(68.98 * 3.35 / 8, rel=0.03)
    assert "bf16" not in a.text.splitlines()[0]


@pytest.mark.parametrize(
    ("question", "nodes", "cards"),
    [
        ("我们有96台DGX A100，训练175B模型要多久", 96, 768),  # a DGX A100 carries 8 A100s (NVIDIA DGX A100 datasheet)
        ("我们有96台A100服务器", 96, None),  # servers, cards per server not said: not 96 cards
        ("两台A100服务器训练13B", 2, None),
        ("2台 H100*8", 2, 16),
    ],
)
def test_servers_are_nodes_not_cards(question: str, nodes: int, cards: int | None) -> None:
    f = read_one(question)
    assert (f.nodes, f.gpu_count) == (nodes, cards)


def test_training_time_on_named_servers_assumes_eight_cards_each_and_says_so() -> None:
    # 6 × 13e9 × 100e9 = 7.8e21 FLOPs on 2 × 8 A100 (312 TFLOPS bf16 dense) at 35% MFU: 7.8e21 / (16 × 312e12 × 0.35)
    # = 4.46e6 s ≈ 52 days of compute
    a, results = answer("两台A100服务器训练13B模型100B token要多久")
    est = _call(results, "estimate_training_time")[0]
    assert est.args["n_gpus"] == 16 and est.args["nodes"] == 2
    assert est.result["days"]["mid"] == pytest.approx(7.8e21 / (16 * 312e12 * 0.35) / 86400, rel=0.1)
    assert "每台 8 卡" in a.text.splitlines()[0]


def test_an_unsharded_strategy_is_never_assumed_for_a_model_that_cannot_fit_one_card() -> None:
    # 175B × 16 B/param = 2,800 GB of model states per card under DDP ≫ 80 GB: only ZeRO-3 (states / 768 cards) fits
    _, results = answer("我们有96台DGX A100，训练175B模型 300B token要多久")
    est = _call(results, "estimate_training_time")[0]
    assert not any("DDP 估算的时间不可用" in x for x in est.result.get("warnings") or [])
    assert any("ZeRO-3" in x for x in est.result.get("notes") or [])


def test_the_memory_check_beside_an_assumed_count_uses_the_same_cards() -> None:
    # 7B full fine-tune: 16 × 7e9 = 112 GB of states; on the assumed 8 cards with ZeRO-3 that is 14 GB a card, so the
    # answer must not open with "放不下" measured on one card
    a, results = answer("A100训练7B要多少卡、训多久，数据10万条每条1k token")
    mem = _call(results, "estimate_memory")[0]
    assert mem.args["gpus"] == 8 and mem.args["zero"] == 3
    assert "放不下" not in a.text.splitlines()[0]


@pytest.mark.parametrize(
    "question",
    ["I have a budget of $50, fine-tune Mistral 7B with LoRA, cheapest way?", "预算只有50美元，LoRA微调7B用什么卡"],
)
def test_a_foreign_currency_budget_is_named_as_not_used(question: str) -> None:
    a, _ = answer(question)
    assert "50" in a.text and ("Not used: budget 50 USD" in a.text or "没用上：预算 50 USD" in a.text)


def test_a_rate_in_dollars_is_a_quote_not_a_budget() -> None:
    assert read_one("GCP A100 $4/hr, 跑48小时多少钱").budget_foreign is None


def test_a_serving_verdict_says_which_load_it_sized() -> None:
    a, results = answer("Is a single 4090 enough to serve Qwen2.5-14B-Instruct AWQ for 20 concurrent users?")
    assert _call(results, "estimate_memory")[0].args["concurrency"] == 20
    assert "20 concurrent" in a.text.splitlines()[0]


@pytest.mark.parametrize("question", ["nvlink对推理有用吗", "有必要上nvswitch吗"])
def test_whether_a_link_helps_is_answered_from_the_guide(question: str) -> None:
    _, results = answer(question)
    assert results and results[0].name == "search_guide"
    assert not _call(results, "interconnect_advice")


def test_a_max_num_seqs_cap_is_not_a_load_the_kv_cache_must_hold() -> None:
    # Qwen2.5-7B (config.json: 28 layers, 4 KV heads, head_dim 128): 2 × 28 × 4 × 128 × 2 B = 57,344 B per token, so
    # 256 × 32,768 tokens would be 481 GB of KV cache; vLLM only needs one 32,768-token sequence (1.9 GB) at start-up
    # and a 4090 holds that beside 15.2 GB of bf16 weights
    a, results = answer("vllm部署qwen2.5-7b，--max-model-len 32768 --max-num-seqs 256，4090够吗")
    est = _call(results, "estimate_memory")[0]
    assert not est.args.get("concurrency") and est.result["fits"] is True
    first = a.text.splitlines()[0]
    assert first.startswith("能") and "max_num_seqs=256" in a.text
    assert "没用上：并发" not in a.text


def test_a_new_question_opening_with_yong_is_not_a_follow_up() -> None:
    # 「用…跑<model>要多少显存」 names its own model and asks its own question: nothing carries from the turn before
    # (here a LoRA fine-tune on two 3090s, which would turn a 2-bit inference question into QLoRA training)
    from assistant.offline.reading import read

    history = [
        {"role": "user", "content": "两张3090 24G能不能LoRA微调Qwen2-72B"},
        {"role": "assistant", "content": "不能。"},
    ]
    frame, carried = read("用2-bit量化跑Llama-2-70B要多少显存", history)
    assert not carried and frame.mode in (None, "inference") and not frame.gpu_count
    frame, carried = read("用QLoRA呢", history)
    assert carried and frame.mode == "qlora"


def test_an_ollama_speed_is_a_four_bit_models_speed() -> None:
    # ollama's library tags default to Q4_K_M; QwQ-32B (32.8e9 params) at ~4.25–4.85 bits ≈ 17.4–19.9 GB read per
    # token, and a 4090 reads 1008 GB/s × 0.6–0.9 → roughly 30–52 tokens/s — not bf16's 65.5 GB ("does not fit")
    a, results = answer("ollama跑qwq 32b好慢只有3token/s，4090，正常吗")
    dec = _call(results, "decode_speed")[0]
    assert dec.args["precision"] == "int4"
    assert 25 <= dec.result["tokens_per_s_mid"] <= 50
    assert "放不下" not in a.text.split("<details>")[0]


@pytest.mark.parametrize("question", ["租H100要注意什么", "what should I watch out for when renting A100s?"])
def test_what_to_watch_when_renting_is_answered_from_the_acceptance_checklist(question: str) -> None:
    a, results = answer(question)
    assert any(r.name == "search_guide" and r.args.get("doc_id") == "delivery-acceptance" for r in results)
    assert "nvidia-smi" in a.text.split("<details>")[0]


def test_a_plan_times_the_samples_it_was_given() -> None:
    # 50,000 samples × the average chat sample (LMSYS-Chat-1M: 2.0 turns × (69.5 + 214.5) ≈ 570 tokens,
    # knowledge/mfu.yaml) = 28.5M tokens: the plan is timed and costed on them, not left as "tell me the data size"
    a, results = answer("预算2000块，3天内用5万条数据LoRA微调Qwen2.5-7B，租什么卡")
    plan = _call(results, "plan_configurations")[0]
    assert plan.args["tokens"] == pytest.approx(50_000 * 570)
    assert "没用上：5" not in a.text and "总费用" in a.text.splitlines()[0]


def test_an_hourly_price_question_that_also_asks_monthly_gets_both() -> None:
    # the price table (knowledge/prices.yaml) holds both an hourly and a monthly typical per card: both parts answered
    a, results = answer("4090一小时多少钱，包月呢")
    price = _call(results, "gpu_price")[0].result
    lead = a.text.split("<details>")[0]
    assert f"{price['hourly_cny']['typical']:g}" in lead
    assert f"{price['monthly_cny']['typical']:,.0f}" in lead and "包月" in lead


def test_a_size_in_e_notation_is_read_or_refused_never_ignored() -> None:
    assert read_one("7e9 参数的模型全量训练要多少显存").params_b == pytest.approx(7.0)
    f = read_one("训练1e999B的模型要多少显存")  # 1e999 overflows to infinity: no such model
    assert f.invalid and "1e999b" in f.invalid[0][0].lower()
    a, results = answer("训练1e999B的模型要多少显存")
    assert not results and "无效" in a.text


def test_each_part_keeps_its_own_premise_and_a_period_price_is_a_price() -> None:
    # part 1 memory → its verdict leads; part 2's "you gave N samples but no length" opens part 2, not the answer
    a, _ = answer("llama3 8b lora要多大显存，训练1万条数据要多久，用4090")
    lines = a.text.splitlines()
    assert "LoRA" in lines[0] and "每卡约需" in lines[0]
    assert any(line.startswith("你给了 10,000 条样本") for line in lines[1:])
    # 「租一个月多少钱」 about the card just named is that card's monthly price, not "the cheapest route"
    a, results = answer("Qwen2.5-14B推理要多少显存？一张4090放得下吗？租一个月多少钱？")
    assert any(r.name == "gpu_price" and r.args.get("months") == 1 for r in results)
    assert "最省钱的跑法" not in a.text and "一个月" in a.text.split("<details>")[0]
