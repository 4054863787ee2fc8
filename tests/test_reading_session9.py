"""Session 9: families named without a size, counts behind a brand word, launcher flags, self-host vs API in
scope, availability with its price, "which is faster" led by speed, and the named model's weights.

Hand-worked values (decimal GB):
- Qwen2.5-72B: 72.71e9 parameters (Qwen/Qwen2.5-72B config.json) × 2 B (bf16) = 145.4 GB.
- Llama-2-13B: 13.02e9 × 2 B = 26.0 GB (meta-llama/Llama-2-13b-hf config.json: 40 layers, hidden 5120, vocab 32000).
- Dense BF16 per card: A100 SXM4 312 TFLOPS (NVIDIA A100 datasheet), RTX 4090 165.2 TFLOPS with FP32 accumulate
  (Ada whitepaper, appendix A): 312 / 165.2 = 1.9.
- Self-host vs API: the break-even is N output tokens a month; at R requests a day a reply must average
  N / (30 × R) tokens for self-hosting to pay.
- H100 SXM rents in China only as a whole 8-GPU server (knowledge/rentability.yaml): its monthly price is 8 cards.
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.intents import analyse
from assistant.offline.reading.slots import extract
from assistant.offline.reading.vocab import find_models
from tools.models import family_default


def _run(question: str) -> tuple[str, list]:
    out = answer(question)
    return out[0].text, out[1]


def _lead(text: str) -> str:
    return text.split("<details>")[0]


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("chatglm", "ChatGLM3-6B"),  # three 6B releases: the newest
        ("codeqwen", "CodeQwen1.5-7B"),  # the only release
        ("mistral", "Mistral-7B-v0.3"),  # not Mistral-Nemo-12B: "nemo" is another word after the family
        ("llama3", "Llama-3-8B"),  # not Llama-3.1: the version "3" is not "3.1"
        ("glm-4", "GLM-4-9B"),  # not GLM-4V (vision) nor GLM-4.5
    ],
)
def test_a_family_without_a_size_is_its_7b_class_member(name: str, model: str) -> None:
    assert family_default(name) == model


@pytest.mark.parametrize("name", ["kimi-k3", "glm-5", "qwen4", "deepseek"])
def test_a_version_the_catalog_lacks_has_no_default(name: str) -> None:
    assert family_default(name) is None


def test_deepseek_coder_is_not_deepseek_r1() -> None:
    hits = find_models("部署deepseek-coder 要多少显存")
    assert hits and hits[0].catalog_id is not None and hits[0].catalog_id.startswith("DeepSeek-Coder")
    text, _ = _run("部署deepseek-coder 要多少显存")
    assert "671" not in _lead(text) and "DeepSeek-Coder" in _lead(text)


def test_a_family_word_inside_an_english_word_is_not_a_model() -> None:
    assert not [h for h in find_models("the philosophy of serving") if h.catalog_id]


@pytest.mark.parametrize(
    ("question", "count"),
    [("I have two tesla t4 16G each", 2), ("I have 2 tesla T4", 2), ("8 geforce rtx 4090", 8)],
)
def test_a_brand_word_between_the_count_and_the_card(question: str, count: int) -> None:
    assert extract(question).gpu_count == count


@pytest.mark.parametrize(
    ("flag", "count"),
    [("--num-gpus 2", 2), ("--n-gpu 4", 4), ("--num_gpus 8", 8)],
)
def test_launcher_flags_are_card_counts(flag: str, count: int) -> None:
    _, f, _ = analyse(f"python -m fastchat.serve.model_worker --model-path /data/Llama-2-13b-chat-hf {flag}")
    assert f.gpu_count == count


def test_ollama_num_gpu_counts_layers_not_cards() -> None:
    _, f, _ = analyse("ollama 的 num_gpu 99 是什么意思，qwen2.5 7b")
    assert f.gpu_count in (None, 1)


def test_xinference_multi_gpu_line_names_its_flag() -> None:
    text, _ = _run(
        "After installing xinference, I am trying to deploy codeqwen. How much GPU memory does this need? "
        "I have two tesla t4 16G each, but the memory is not enough"
    )
    assert "CodeQwen1.5-7B" in text and "--n-gpu 2" in text


def test_self_host_or_api_is_in_scope_and_uses_the_request_count() -> None:
    text, results = _run("自建还是调API划算，每天大概10万次调用")
    assert "超出了我的范围" not in text
    plan = next(r for r in results if r.name == "plan_serving")
    apis = [a for a in plan.result["apis"] if a.get("same_model")] or plan.result["apis"]
    be = apis[0]["break_even_output_mtok_per_month"]
    per_request = round(be * 1e6 / 30 / 100_000)
    assert f"{per_request} 个输出 token" in text and "10 万次" in text


def test_availability_and_monthly_price_are_both_answered() -> None:
    text, results = _run("济南有没有能租H100的地方？一个月大概多少")
    assert {r.name for r in results} >= {"gpu_rentability", "gpu_price"}
    price = next(r for r in results if r.name == "gpu_price")
    assert price.args.get("count") == 8
    assert "8 张" in _lead(text) and "整台 8 卡" in _lead(text)


def test_which_is_faster_is_led_by_the_speed() -> None:
    text, _ = _run("4090和A100训练哪个快，7b lora")
    first = _lead(text).strip().splitlines()[0]
    assert "A100" in first and "312" in first and "165.2" in first and "1.9 倍" in first


@pytest.mark.parametrize(
    ("question", "weights"),
    [
        ("华为Ascend 310P卡是否支持部署qwen2.5-72B ?（lmdeploy）", "145.4 GB"),
        (
            "FastChat 为什么不能使用多卡？\npython -m fastchat.serve.model_worker --model-path /data/root/Llama-2-13b-chat-hf",
            "26.0 GB",
        ),
    ],
)
def test_the_named_model_weights_beside_a_guide_answer(question: str, weights: str) -> None:
    text, _ = _run(question)
    assert weights in _lead(text)
    assert not re.match(r"\s*参考", _lead(text))  # the guide's answer leads, the weights follow it


def test_a_server_launch_is_not_answered_with_the_training_dataparallel_section() -> None:
    text, _ = _run(
        "FastChat 为什么不能使用多卡？\n"
        "python -m fastchat.serve.model_worker --model-path /data/root/Llama-2-13b-chat-hf --num-gpus 2"
    )
    assert "DataParallel" not in _lead(text) and "--num-gpus 2" in _lead(text)


_JSON_CONFIG = (
    "OOM when fine tuning 8b with ~64k cutoff_len\n"
    '"model_name_or_path": "/vol/models/Meta-Llama-3.1-8B-Instruct-bnb-4bit", "quantization_bit": 4, '
    '"stage": "sft", "finetuning_type": "lora", "cutoff_len": 51974, "per_device_train_batch_size": 1\n'
    "Try to fine tune on a 80GB H100"
)


def test_a_json_config_is_read_as_qlora_at_its_cutoff_len() -> None:
    # LLaMA-Factory: finetuning_type lora + quantization_bit 4 (bitsandbytes) = QLoRA on a 4-bit base
    _, f, _ = analyse(_JSON_CONFIG)
    assert (f.mode, f.precision, f.context, f.batch) == ("qlora", "int4", 51974, 1)


def test_a_very_long_training_sequence_gets_sequence_parallelism() -> None:
    text, _ = _run(_JSON_CONFIG)
    assert "sequence parallelism" in text and "sequence_parallel_size" in text
    assert "pure_bf16" not in text  # the full fine-tune note is not about a QLoRA run
    assert "use or" not in text


@pytest.mark.parametrize(
    "question",
    [
        "Google suspended my colab account for password cracking, is there any way to circumvent this ban?",
        "免费账号没得玩了，7个账号被封了6个了，换地区、家庭组都试过了，还有得救吗",
    ],
)
def test_getting_round_a_ban_is_declined(question: str) -> None:
    intents, _, _ = analyse(question)
    assert intents[0] in ("unlawful", "multi_account") or intents == ["unlawful"]
    text, results = _run(question)
    assert not results and ("can't help" in text or "不能帮" in text)


_L40_ROW = (  # one L40 row of an nvidia-smi table (46,068 MiB is what an L40 reports)
    "|   0  NVIDIA L40                     Off | 00000000:28:00.0 Off |                    0 |\n"
    "| N/A   35C    P0              77W / 300W |  41499MiB / 46068MiB |      0%      Default |\n"
)


def test_a_card_named_as_the_setup_is_not_a_delivery_contract() -> None:
    paste = "8卡L40环境下微调 Qwen2-72B-Instruct-GPTQ-Int4 报错，怎么把模型加载到多张卡？\n" + _L40_ROW
    text, results = _run(paste)
    diag = next(r for r in results if r.name == "diagnose_logs")
    assert not diag.args.get("expect") and "交付与合同不符" not in text


def test_a_rented_card_count_is_still_checked_against_the_paste() -> None:
    paste = "租的是 8 卡 L40，nvidia-smi 只看到一张：\n" + _L40_ROW
    _, results = _run(paste)
    diag = next(r for r in results if r.name == "diagnose_logs")
    assert diag.args.get("expect") == "8x L40"


def test_gpu_hours_over_cards_is_a_division() -> None:
    # Llama 2 paper: 184,320 A100 GPU-hours for 7B; on 64 GPUs that is 184320 / 64 = 2,880 h = 120 days
    text, results = _run("184320 A100 GPU hours 用 64 张卡要多少天")
    assert [r.name for r in results] == ["gpu_hours_wall_clock"]
    assert "2,880 小时" in text and "120 天" in text


def test_gpu_days_are_24_gpu_hours_not_a_card_count() -> None:
    # PC-DARTS: 3.8 GPU-days = 91.2 GPU-hours; on 8 GPUs 91.2 / 8 = 11.4 h (the paper's "11.5 hours")
    q = (
        "PC-DARTS achieves 24.2% top-1 error with only 3.8 GPU-days (11.5 hours) on 8 GPUs for search. "
        "If I use a single gpu, it is 3.8GPUS-days; if use 8 gpus, it is 11.5 hours?"
    )
    text, _ = _run(q)
    assert "invalid" not in text and "11.4 hours" in text and "91.2 hours" in text


def test_ten_nodes_of_eight_40g_a100s() -> None:
    # 「结点」 is another way to write 节点 (node); the size before the name in a bracket is the card's
    s = extract("LLaMA-2-70B用zero-3去pretrain，出现OOM问题，10结点，每个节点8卡（40G，A100）")
    assert (s.nodes, s.gpu_count, s.gpu_memory_gb) == (10, 80, 40)


def test_a_close_training_verdict_gets_training_levers_not_kv_cache() -> None:
    text, _ = _run("QLoRA fine-tuning a 70B model on one 48GB card, does it fit?")
    assert "close call" in text and "shorten the sequence" in text  # a borderline verdict (50.5 GB vs 48.3 GB)
    assert "KV cache in fp8" not in text


def test_a_wanted_share_of_memory_becomes_the_engine_fraction() -> None:
    # vLLM's gpu_memory_utilization is a fraction of the card (docs: default 0.9): 50% is 0.5
    text, _ = _run("vLLM 部署时会占用整个显存，这个有办法限制吗？比如限制只占用 50 % 的显存（Qwen 模型）")
    assert "gpu_memory_utilization 设成 0.5" in _lead(text)


def test_full_utilisation_at_low_power_is_read_as_a_hang_not_a_slow_input() -> None:
    # GPU-Util is the share of time any kernel runs (nvidia-smi docs): a card spinning on a stuck peer reads 100%
    text, _ = _run(
        "各位大佬 GPU功耗很低 但是GPU利用率满载 是什么情况，多卡都是 100% 利用率，发生在微调模型的时候，进度特别慢"
    )
    lead = _lead(text)
    assert "GPU-Util" in lead and "DataParallel" not in lead


def test_gpu_hours_after_another_question_are_still_their_own_job() -> None:
    history = [
        {"role": "user", "content": "自建还是调API划算，每天大概10万次调用"},
        {"role": "assistant", "content": "看用量：……"},
    ]
    intents, f, carried = analyse("184320 A100 GPU hours 用 64 张卡要多少天", history)
    assert intents == ["wall_clock"] and not carried and f.gpu_hours == 184320


def test_the_speed_is_not_said_twice_when_the_choice_is_the_faster_card() -> None:
    # decoding: A100 SXM4 2,039 GB/s against the 4090's 1,008 GB/s (datasheets) — the choice line already says it
    text, _ = _run("4090和A100哪个性能好，部署qwen2.5 7b")
    assert _lead(text).count("2039 对 1008") == 1
