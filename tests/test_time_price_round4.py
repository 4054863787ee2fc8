"""Round 4 classes: training time as users state it, and prices outside China's rental market.

Own phrasings (casual Chinese, typos, 8卡/两张, English); every expected value is worked by hand below from
public figures, never read back from the code:

- C ≈ 6·N·D for full training (Kaplan et al. 2020, arXiv:2001.08361); LoRA skips the weight-gradient matmuls,
  ≈ 4·N·D; full recomputation adds one forward (+2·N·D).
- Dense BF16 peaks: A100/A800 312 TFLOPS (NVIDIA A100 datasheet), H100 SXM 989.4 (H100 datasheet, 1,979 is the
  2:4-sparse figure), RTX 4090 165.2 and RTX 3090 71 with FP32 accumulate (Ada / GA102 whitepapers).
- MFU bands of knowledge/mfu.yaml: full 0.25/0.35/0.45, LoRA 0.15/0.25/0.35, QLoRA 0.08/0.17/0.29, pretrain
  0.35/0.40/0.48 (Llama 2 Table 2 GPU-hours imply 0.38–0.43 on A100).
- Parameters: Qwen2.5-7B 7.62e9, Qwen2.5-14B 14.77e9 (Qwen2.5 model cards), Llama-2-7B 6.74e9 (Llama 2 config).
- Average chat sample: LMSYS-Chat-1M Table 1 (arXiv:2309.11998): 2.0 turns × (69.5 + 214.5) tokens = 568 ≈ 570.
- Characters: 1 Chinese character ≈ 0.6 token (DeepSeek API docs, token_usage); UTF-8 CJK = 3 bytes (RFC 3629).
- Cloud TPU: v3 123 TFLOPS bf16 per chip, 2 TensorCores per chip, v3-N counts TensorCores
  (cloud.google.com/tpu/docs/v3); v4 275 per chip, 2 TensorCores (…/v4); v5e 197 per chip, names count chips (…/v5e).
"""

from __future__ import annotations

import pytest

from assistant.offline import answer
from assistant.offline.reading import read_one
from tools.errors import ToolInputError
from tools.prices import ProviderInput, find_provider, provider_pricing
from tools.train_time import Band3, TrainTimeInput, estimate_training_time, measured_verdict


def _run(q: str):  # type: ignore[no-untyped-def]
    composed, results = answer(q)
    return composed.text, results


def _est(results):  # type: ignore[no-untyped-def]
    return next(r for r in results if r.name == "estimate_training_time").result


# ---------------------------------------------------------------- A. training time as users state it


def test_samples_with_a_range_of_tokens_per_sample_english():
    q = "roughly 2 million chat samples, qwen2.5-7b lora on 4x A100, how long for one epoch? samples are 400-500 tokens"
    f = read_one(q)
    assert f.samples == 2e6 and f.sample_tokens == 450 and f.epochs == 1
    text, results = _run(q)
    est = _est(results)
    # 4 × 7.62e9 × (2e6 × 450) / (4 × 312e12 × 0.25) = 2.743e19 / 3.12e14 = 87,920 s = 24.4 h
    assert est["tokens"] == pytest.approx(9e8)
    assert est["wall_hours"]["mid"] == pytest.approx(24.4, rel=0.03)
    assert "24" in text


def test_samples_without_a_length_use_the_average_chat_sample_and_show_the_padded_bound():
    q = "50万条对话数据，8卡H100全量微调llama3-8b，cutoff_len 4096，大概跑多久"
    text, results = _run(q)
    est = _est(results)
    assert est["tokens"] == pytest.approx(5e5 * 570)  # LMSYS-Chat-1M: 2.0 × (69.5 + 214.5) ≈ 570
    # compute only: 6 × 8.03e9 × 2.85e8 / (8 × 989.4e12 × 0.35) = 4,957 s = 1.38 h; DDP traffic only adds to it
    assert 1.3 <= est["wall_hours"]["mid"] <= 2.1
    assert est["padded_wall_hours"]["mid"] / est["wall_hours"]["mid"] == pytest.approx(4096 / 570, rel=0.02)
    assert "570" in text and "LMSYS" in text and "4096" in text


def test_corpus_in_m_is_data_not_a_model_size_and_the_unit_is_said():
    q = "用300M的语料lora微调一个7B模型，两张A100，大概多久"
    f = read_one(q)
    assert f.params_b == 7 and f.tokens == pytest.approx(3e8) and f.gpu_count == 2
    text, results = _run(q)
    basis = _est(results)["data_basis"]
    assert basis["kind"] == "corpus"
    assert basis["tokens_if_chars"] == pytest.approx(3e8 * 0.6)  # 1 汉字 ≈ 0.6 token (DeepSeek docs)
    assert basis["tokens_if_utf8_bytes"] == pytest.approx(3e8 / 3 * 0.6)  # 3 bytes per CJK character
    assert "按 token 理解" in text and "60%" in text and "20%" in text


def test_thousands_of_data_are_samples_not_a_corpus():
    f = read_one("训练一个7b的模型 大概60k的数据 全量要多大显存")  # 60k 条, not 60k tokens
    assert f.tokens is None and "data_unit:corpus" not in f.mentions


def test_dataset_file_size_in_mb_becomes_tokens_and_the_hours_are_compared():
    q = "两张4090 lora微调一个7b模型，数据集80MB，为何要跑6个小时那么久？"
    f = read_one(q)
    assert f.period_hours == 6 and f.gpu_count == 2
    # 80e6 bytes ÷ 3 bytes per CJK character (RFC 3629) × 0.6 token per character (DeepSeek docs) = 1.6e7 tokens
    assert f.tokens == pytest.approx(1.6e7)
    text, results = _run(q)
    est = _est(results)
    # 4 × 7e9 × 1.6e7 / (2 × 165.2e12 × 0.15) = 9,040 s = 2.5 h at the slow end; 6 h > 1.2 × 2.5
    assert est["wall_hours"]["high"] == pytest.approx(2.51, rel=0.03)
    assert est["measured_verdict"] == "slow" and text.startswith("偏慢")
    assert "字节" in text


def test_tqdm_bar_within_the_band_is_normal():
    q = "4090 qlora 训 qwen2.5-14b，5万条，每条大约800 token，进度条 350/6250 [1:10:00<19:40:00, 11.5s/it] 这正常吗"
    f = read_one(q)
    assert f.period_hours == pytest.approx(1 + 10 / 60 + 19 + 40 / 60, abs=0.01)  # elapsed + remaining = 20.83 h
    text, results = _run(q)
    est = _est(results)
    # 4 × 14.77e9 × (5e4 × 800) / (165.2e12 × 0.17) = 84,150 s = 23.4 h; at MFU 0.29 → 13.7 h, at 0.08 → 49.7 h
    assert est["wall_hours"]["mid"] == pytest.approx(23.4, rel=0.03)
    assert est["measured_verdict"] == "normal"
    assert text.startswith("正常")


def test_far_slower_than_the_band_leads_with_slow_and_the_offload_cause():
    q = "8卡A800 全量微调 qwen2.5-7b，10万条数据 每条2k token，3个epoch，开了offload，跑了120小时还没完，正常吗？"
    text, results = _run(q)
    est = _est(results)
    # 6 × 7.62e9 × (1e5 × 2000 × 3) / (8 × 312e12 × 0.25) = 2.743e19 / 6.24e14 = 43,960 s = 12.2 h at the slow end
    assert est["tokens"] == pytest.approx(6e8)
    assert est["wall_hours"]["high"] < 120 / 1.2
    assert est["measured_verdict"] == "slow"
    assert text.startswith("偏慢") and "offload" in text


def test_english_progress_bar_far_over_the_estimate_is_slow():
    q = (
        "training llama-2-7b lora on a single 3090, 20k samples ~1k tokens each, progress bar says "
        "100/2500 [00:50:00<20:50:00, 30.0s/it], is this normal?"
    )
    text, results = _run(q)
    est = _est(results)
    # 4 × 6.74e9 × 2e7 / (71e12 × 0.15) = 50,630 s = 14.1 h at the slow end; 21.7 h > 1.2 × 14.1
    assert est["wall_hours"]["high"] == pytest.approx(14.1, rel=0.03)
    assert text.startswith("Slower than expected")


def test_pretraining_goal_on_one_consumer_card_in_days():
    q = "想在一张4090上从零预训练一个0.5B的小模型，数据11B token，大概几天"
    text, results = _run(q)
    est = _est(results)
    # 6 × 0.5e9 × 11e9 / (165.2e12 × 0.40) = 499,400 s = 5.78 days
    assert est["days"]["mid"] == pytest.approx(5.78, rel=0.02)
    assert "天" in text


def test_lora_at_the_same_mfu_is_two_thirds_of_full():
    est = estimate_training_time(TrainTimeInput(params_b=13, tokens=5.5e8, gpu="H100", mode="full"))
    # 6 × 13e9 × 5.5e8 / (989.4e12 × 0.35) = 123,900 s = 34.4 h; LoRA 4·N·D at the same MFU → 22.9 h
    assert est.wall_hours.mid == pytest.approx(34.4, rel=0.02)
    assert est.lora_wall_hours_same_mfu == pytest.approx(34.4 * 4 / 6, rel=0.02)


def test_checkpointing_flag_counts_the_extra_forward():
    q = "两张A100 lora 微调 14B，2亿token，--gradient_checkpointing，要多久"
    _, results = _run(q)
    est = _est(results)
    assert est["flops"] == pytest.approx(6 * 14e9 * 2e8, rel=0.01)  # LoRA 4·N·D + one more forward 2·N·D


@pytest.mark.parametrize(
    ("measured", "verdict"),
    [(10.0, "normal"), (24.0, "normal"), (25.0, "slow"), (7.0, "slightly_fast"), (6.0, "fast")],
)
def test_measured_verdict_thresholds(measured, verdict):
    band = Band3(low=10.0, mid=14.0, high=20.0)  # normal: 10 ≤ m ≤ 24 (1.2 × 20); fast: m < 10/1.5 = 6.67
    assert measured_verdict(measured, band)[0] == verdict


# ---------------------------------------------------------------- B. prices outside China's rental market


def test_tpu_slice_gets_the_official_page_and_its_gpu_equivalent_priced_in_china():
    q = "谷歌云 TPU v4-32 跑48小时大概多少钱？"
    text, results = _run(q)
    prov = next(r for r in results if r.name == "provider_pricing").result
    # v4-32 = 32 TensorCores = 16 chips × 275 = 4,400 TFLOPS; ÷ 312 (A100) = 14.1 → 15 A100s
    assert prov["tpu"]["chips"] == 16 and prov["tpu"]["gpu_count"] == 15
    price = next(r for r in results if r.name == "gpu_price")
    assert price.args["count"] == 15 and price.args["hours"] == 48
    assert "https://cloud.google.com/tpu/pricing" in text and "没有" in text
    assert "$" not in text  # no invented dollar figure


def test_tpu_equivalent_arithmetic():
    v3 = provider_pricing(ProviderInput(provider="Cloud TPU", accelerator="v3-256")).tpu
    assert v3 is not None and v3.chips == 128 and v3.total_tflops_bf16 == 128 * 123 and v3.gpu_count == 51
    v5e = provider_pricing(ProviderInput(provider="tpu", accelerator="v5e-16", compare_gpu="H100")).tpu
    assert v5e is not None and v5e.chips == 16 and v5e.gpu_count == 4  # 16 × 197 = 3,152 ÷ 989.4 = 3.2 → 4


def test_aws_card_question_says_not_carried_and_gives_the_china_price_with_its_date():
    q = "aws上租8张A100一个月大概多少钱"
    text, results = _run(q)
    names = [r.name for r in results]
    assert "provider_pricing" in names and "gpu_price" in names
    assert "https://aws.amazon.com/ec2/pricing/on-demand/" in text
    assert "AWS" in text and "人民币" in text


def test_runpod_english():
    text, results = _run("how much is an H100 on runpod per hour?")
    assert "don't carry RunPod" in text and "https://www.runpod.io/pricing" in text
    assert any(r.name == "gpu_price" for r in results)


@pytest.mark.parametrize(
    ("q", "word"),
    [
        ("阿里云的机器关机了还收费吗", "释放"),
        ("colab pro 停掉运行时还扣计算单元吗？", "删除"),
        ("vast.ai stopped instance still charging me??", "destroy"),
        ("aws 实例 stop 了还要钱不", "终止"),
    ],
)
def test_billing_stop_versus_release_in_the_providers_words(q, word):
    text, results = _run(q)
    assert any(r.name == "search_guide" and r.args.get("doc_id") == "billing-hourly-monthly" for r in results)
    assert word in text


def test_provider_words_do_not_fire_without_a_price_question():
    from assistant.offline.intents import choose_intents

    assert "price_elsewhere" not in choose_intents(read_one("TPU和GPU训练哪个快"))
    assert find_provider("I wrote a python lambda to sort them") is None


def test_unknown_provider_is_a_bilingual_error():
    with pytest.raises(ToolInputError) as e:
        provider_pricing(ProviderInput(provider="foocloud"))
    assert "foocloud" in e.value.zh and "foocloud" in e.value.en


def test_an_instance_family_prices_its_own_card_in_china():
    # AWS p3 instances carry V100s (EC2 accelerated-computing instance types page)
    text, results = _run("aws 的 p3 实例训练一天大概多少钱")
    price = next(r for r in results if r.name == "gpu_price")
    assert price.args["gpu"] == "V100" and price.args["hours"] == 24
    assert "V100" in text and "https://aws.amazon.com/ec2/pricing/on-demand/" in text


def test_a_users_own_quote_on_a_named_provider_keeps_their_figure_and_points_to_the_page():
    text, results = _run("GCP 上 A100 报价 $4/hr，我要跑 75 个小时，总共多少钱？")
    quote = next(r for r in results if r.name == "quote_cost").result
    assert quote["total"] == pytest.approx(4 * 75)  # their rate × their hours, in their currency
    assert "https://cloud.google.com/compute/gpus-pricing" in text and "报价" in text


def test_a_tpu_slice_without_the_word_tpu_is_still_the_tpu_price_list():
    assert find_provider("v5e-8 一小时多少钱") == "gcp_tpu"
    assert find_provider("yolov3-8 训练多久") is None  # a model name, not a slice


def test_a_model_version_is_not_a_tpu_slice_and_shell_variables_are_not_money():
    assert find_provider("下载的 deepseek-ai/DeepSeek-V3-0324，8*A6000 能跑吗") is None
    from assistant.offline.intents import choose_intents

    q = "torchrun --master-addr $ADDR generate.py --config configs/config_671B.json，8*A6000(48G) 显存能支持吗"
    assert "price_elsewhere" not in choose_intents(read_one(q))
