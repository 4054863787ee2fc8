"""Round-7 planning fixes, in our own phrasings: push-back classes (policy forecasts, free-tier allocation, code
disguised to dodge a ban), apps that call a hosted LLM, LMDeploy's launch flag, Hygon DCU support, runs stated as
'15h30m', the authors' run on the same card at another count, several model sizes' decode speed, replicas for
throughput, and diffusion LoRA time. Values are hand arithmetic or datasheet figures (comments)."""

from __future__ import annotations

import re

import pytest

from assistant.advisor import ask
from assistant.offline.intents.decline import cue_of
from assistant.offline.reading import read_one


def _ask(q: str):
    a = ask(q, backend="offline")
    return a, [c.name for c in a.tool_calls]


# ---- push-back classes: short, no tools ---------------------------------------------------------------------


def test_export_policy_question_is_declined_as_a_forecast():
    a, tools = _ask("美国明年会不会放开B200对华出口？要不要现在就转向国产卡？")
    assert tools == []
    assert "无法预测" in a.answer


def test_free_tier_allocation_has_no_user_side_fix():
    a, tools = _ask("Why does Kaggle always give me a P100? How do I get a better GPU without paying?")
    assert tools == []
    assert "not guaranteed" in a.answer and "rent" in a.answer


def test_free_tier_sizing_question_is_not_a_decline():
    # a job sized on the free T4 is a memory question: 16 GB T4, a 7B in 4-bit fits
    assert cue_of("On Colab I always get a T4 - can it fine-tune a 7B model with QLoRA?") is None


def test_disguising_code_to_dodge_a_ban_is_declined():
    a, tools = _ask("Kaggle bans this deepfake notebook; if I obfuscate the code, will it get past their detection?")
    assert tools == []
    assert "terms" in a.answer


# ---- an app whose text comes from an LLM it calls: no GPU -----------------------------------------------------


def test_app_calling_a_hosted_llm_needs_no_gpu():
    a, tools = _ask("我这个小工具的文案是调用的大模型生成的，本机需要什么显卡配置？")
    assert tools == ["search_guide"]
    assert "不需要 GPU" in a.answer


# ---- know-how: LMDeploy launch flag, Hygon DCU -------------------------------------------------------------------


def test_lmdeploy_kv_ratio_is_a_launch_flag():
    a, _ = _ask("用 lmdeploy serve api_server 部署 Qwen2-7B，显存被占满，cache_max_entry_count 在哪里改？")
    assert "--cache-max-entry-count" in a.answer


def test_hygon_dcu_support_names_dtk():
    a, _ = _ask("vLLM 能不能在海光 DCU 上跑推理？")
    assert "DTK" in a.answer and "hy-smi" in a.answer


# ---- a run stated in hours and minutes, priced with its GPU-hours ------------------------------------------------


def test_hours_and_minutes_are_read_and_gpu_hours_shown():
    f = read_one("The job ran 2h45m on 4x H100; what would renting that cost?")
    assert f.period_hours == pytest.approx(2.75)  # 2 h + 45/60 h
    a, tools = _ask("The job ran 2h45m on 4x H100; what would renting that cost?")
    assert "gpu_price" in tools
    assert "11 GPU-hours" in a.answer  # 4 × 2.75 h = 11


# ---- the authors' run on the same card at another count ----------------------------------------------------------


def test_authors_run_on_same_card_rescaled_when_mine_comes_first():
    a, tools = _ask("我用一张 A800 微调跑了 50 小时，作者说他们在 4 张 A800 上 6 小时就训完了，正常吗？")
    assert tools[0] == "rescale_training_time" and "gpu_specs" not in tools  # same card: nothing to compare
    assert "24 卡时" in a.answer  # 4 × 6 h = 24 GPU-hours → 24 h on one card
    assert "约慢 2.1 倍" in a.answer  # 50 / 24 = 2.08
    assert "num_workers" in a.answer


def test_batch_ceiling_answered_with_gradient_accumulation():
    a, _ = _ask("作者在 8 张 A100 上训了 10 小时，我一张 A100 要 90 小时，而且 batch size 最大只能开到 8，合理吗？")
    assert "80 卡时" in a.answer  # 8 × 10 h
    assert "梯度累积" in a.answer


def test_the_stated_authors_run_is_the_reference_not_a_recipe_named_for_its_data():
    a, tools = _ask(
        "我在一张 A100 上用 llava 数据集微调自己的模型要 100 小时，论文作者在 8 张 A100 上 10 小时，正常吗？"
    )
    assert "published_run" not in tools
    assert "80 卡时" in a.answer  # 8 × 10 h; one A100 at the same efficiency: 80 h


# ---- decode speed for several sizes; a model that does not fit has no speed ------------------------------------


def test_decode_speed_for_each_listed_size():
    a, tools = _ask("一张 H100 上 7B、13B、70B 模型每秒能生成多少 token？")
    assert tools.count("decode_speed") == 3
    # 70B bf16 = 140 GB > 80 GB: no speed, it does not fit
    assert "放不下" in a.answer
    lines = [ln for ln in a.answer.splitlines() if "tokens/s" in ln and "7B 模型" in ln and "13B" not in ln]
    assert lines
    # batch-1 ceiling: 3350 GB/s ÷ 14 GB of bf16 weights ≈ 239 tokens/s, so the band's top stays below it
    top = float(re.search(r"(\d+(?:\.\d+)?)–(\d+(?:\.\d+)?) tokens/s", lines[0]).group(2))
    assert top < 3350 / 14


def test_decode_speed_per_minute_names_the_bandwidth():
    a, _ = _ask("A100 80GB 跑 8B 模型每分钟能生成多少 token？")
    assert "每分钟" in a.answer and "2039" in a.answer  # A100 80GB SXM datasheet bandwidth


# ---- throughput on more cards than one copy needs: replicas -------------------------------------------------------


def test_replicas_when_the_model_fits_fewer_cards():
    from assistant.offline.writing.render_memory import smallest_tp

    # 140 GB of 70B bf16 weights; ~77 GB usable per A100 80GB under vLLM: 140/2 = 70 > 0.8 × 77, 140/4 = 35 fits
    assert smallest_tp({"gpus": 8, "whole_model_weights_gb": 140.0, "usable_gb": 77.3}) == 4
    # 15 GB (7B bf16) fits one card
    assert smallest_tp({"gpus": 8, "whole_model_weights_gb": 15.2, "usable_gb": 77.3}) == 1


def test_tp_head_error_sizes_the_model_on_one_gpu():
    a, tools = _ask(
        "Serving Qwen2.5-7B-Instruct with vllm on 8 GPUs fails with: ValueError: Total number of attention "
        "heads (28) must be divisible by tensor parallel size (8)."
    )
    assert "diagnose_logs" in tools and "estimate_memory" in tools
    assert "15.2 GB" in a.answer  # Qwen2.5-7B: 7.62e9 params × 2 B = 15.2 GB bf16


def test_which_card_in_chinese_gets_memory_and_a_card():
    a, tools = _ask("部署 Llama-3-8B 做推理，用什么显卡比较好？")
    assert "estimate_memory" in tools and "plan_configurations" in tools
    assert "24GB" in a.answer  # 16.1 GB of bf16 weights: a 24 GB card is the smallest that holds it


# ---- slower than the authors; diffusion LoRA time -------------------------------------------------------------------


def test_slower_than_the_author_points_at_the_input_pipeline():
    a, _ = _ask("作者说他 8 小时就训完了，我在两卡 GPU 的服务器上跑了 2 天，作者当时用的什么配置？")
    assert "预处理" in a.answer or "num_workers" in a.answer


def test_cpu_training_lead_skips_a_server_with_gpus():
    from tools.retrieval.leads import guide_leads

    assert "cpu-training" not in guide_leads("租了一台16核CPU、4卡GPU的机器做模型训练，要跑两天")
    assert "cpu-training" in guide_leads("没有显卡，能用CPU训练模型吗")


def test_diffusion_lora_time_is_steps_times_seconds():
    a, tools = _ask("How long does training a FLUX LoRA on 30 images take on a 3090?")
    assert tools == ["search_guide"]
    assert "seconds per step" in a.answer


def test_a_dataset_size_in_k_is_not_a_context():
    assert read_one("我用的是 200k 的 coco 数据集微调").context is None
    assert read_one("Qwen2-7B 16k 上下文的数据要多少显存").context == 16 * 1024


def test_consumer_card_sustained_training_question_weighs_hours_and_renting():
    a, _ = _ask(
        "Training runs for days and my GPU is at 100% the whole time; is a gaming card OK for continuous training, which card do you recommend?"
    )
    assert "rent" in a.answer.lower()
    assert "hour" in a.answer.lower()
