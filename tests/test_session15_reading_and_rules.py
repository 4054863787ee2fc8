"""Real phrasings from public threads that were misread, and the rules they needed. Expected values are worked by hand:

- Qwen-14B config.json: intermediate_size 13696 = 128 × 107 (107 prime); Qwen-7B 11008 = 128 × 86; Qwen-72B
  24576 = 128 × 192. GPTQ/AWQ g128 weights split by tensor parallel need intermediate_size ÷ TP to be a multiple of
  128 (vLLM gptq.py/awq.py create_weights; QwenLM/Qwen3 issue #63): 14B → TP 1, 7B → TP 1/2, 72B → TP 1/2/4/8.
- DeepSpeed's ZeRO-3 estimator with params and optimizer offloaded: 18 B/param × 1.5 buffer on host RAM; LLaMA-7B
  6.738e9 × 27 ≈ 182 GB (DeepSpeed docs memory.rst, estimate_zero3_model_states_mem_needs).
- Each of 8 processes loading a 7B model in bf16 holds 7e9 × 2 B = 14 GB: 112 GB of host RAM (DDP / ZeRO-2 do not
  shard while loading: HF transformers "Instantiate a big model").
- 70B full fine-tuning: 16 B/param = 1,120 GB of model states > 8 × 80 GB; 8 processes × 140 GB unsharded loads =
  1,120 GB > 500 GB of RAM (tigerbot-70b thread, hand arithmetic): both memories are short.
"""

from __future__ import annotations

import pytest

from assistant.advisor import ask
from assistant.offline.intents import analyse
from assistant.offline.reading import read_one
from tools.memory import EstimateMemoryInput, estimate_memory
from tools.memory_parallel import quant_tp_allowed, valid_tp_sizes
from tools.models import resolve_model


def _answer(q: str) -> str:
    return ask(q, backend="offline").answer


# ---------------------------------------------------------------- int4 weights and tensor-parallel sizes
@pytest.mark.parametrize(
    ("model", "sizes"),
    [("Qwen-14B", [1]), ("Qwen-7B", [1, 2]), ("Qwen-72B", [1, 2, 4, 8, 16])],
)
def test_int4_tp_sizes_follow_the_128_channel_groups(model: str, sizes: list[int]) -> None:
    arch = resolve_model(model).arch
    assert valid_tp_sizes(arch, group=128) == sizes
    assert quant_tp_allowed(arch, 2, None)  # bf16 weights: no group rule


def test_int4_estimate_refuses_tp2_for_qwen14b_but_bf16_does_not() -> None:
    q = estimate_memory(EstimateMemoryInput(model="Qwen-14B", mode="inference", precision="int4", gpus=2))
    assert q.tp_valid is False and q.tp_sizes == [1]
    assert "13696" in q.tp_note["zh"] and "128 × 107" in q.tp_note["en"]
    b = estimate_memory(EstimateMemoryInput(model="Qwen-14B", mode="inference", precision="bf16", gpus=2))
    assert b.tp_valid is True and b.quant_tp_note is None


def test_why_14b_int4_will_not_split_is_answered_first() -> None:
    text = _answer("Qwen-14B-Int4 只支持 tensor-parallel=1，7B 和 72B 量化版都能多卡，14B 的为什么不支持多卡并行？")
    first = text.splitlines()[0]
    assert "13696" in first and "128 × 107" in first


# ---------------------------------------------------------------- reading
def test_checkpoint_activations_flag_is_not_a_question_about_activations() -> None:
    f = read_one("deepspeed pretrain.py --deepspeed_checkpoint_activations --batch_size 24 7B 要多少内存")
    assert "asked_activations" not in f.mentions
    assert "asked_activations" in read_one("7B 全量训练激活值占多少显存").mentions


def test_deepspeed_stage_2_in_a_name_is_zero_2() -> None:
    assert read_one("deepspeed策略是deepspeed_stage_2，微调 3b").zero_stage == 2


def test_a_flag_does_not_join_a_model_name() -> None:
    f = read_one("pretrain.py --pretrained_model_path x/chinese_llama_7b.bin --config_path models/llama/7b_config.json")
    assert all("--" not in m.text for m in f.model_mentions)


def test_chinese_before_a_slash_is_not_an_org_prefix() -> None:
    f = read_one("Qwen2-VL-72B-Instruct在docker镜像qwenllm/qwenvl不支持pipeline parallelism")
    assert f.model == "Qwen2-VL-72B"


def test_words_before_an_error_on_the_same_line_are_the_users() -> None:
    q = (
        "qwen1.5-72b全参微调，2台8卡a800 80g爆显存 --finetuning_type full 求助一下怎么才能训练 报错如下 "
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.83 GiB. GPU 0 has a total capacity "
        "of 79.33 GiB of which 10.31 GiB is free"
    )
    intents, f, _ = analyse(q)
    assert f.model == "Qwen1.5-72B" and f.gpu_count == 16 and f.mode == "full"
    assert intents == ["diagnose", "memory"]


def test_a_fallback_to_int4_does_not_make_the_lora_job_qlora() -> None:
    q = (
        "通过t4 *3的服务器进行lora微调qwen-vl-chat，但是遇到显存不够的问题\n"
        "如果实在不行，是不是可以用qwen-vl-chat-int4去微调？"
    )
    assert read_one(q).mode == "lora"
    assert read_one("用 int4 做 lora 微调 7B，4090 够吗").mode == "qlora"


# ---------------------------------------------------------------- host RAM asked
def test_host_ram_for_zero3_offload_leads_with_deepspeeds_figure() -> None:
    q = (
        "How to calculate the cpu memory required for DeepSpeedZeRoOffload initialization? It says there is no "
        "enough CPU memory. deepspeed pretrain.py --pretrained_model_path chinese_llama_7b.bin --world_size 1 "
        '"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}, "offload_optimizer": {"device": "cpu"}}'
    )
    first = _answer(q).splitlines()[0]
    assert "Host RAM" in first and "181.9 GB" in first  # 6.738e9 × 18 B × 1.5


def test_ram_asked_with_no_word_of_vram_leads_with_ram() -> None:
    q = "请问微调7b模型需要多少内存？我128g内存，deepspeed_stage_2，8 卡启动，lora"
    first = _answer(q).splitlines()[0]
    assert first.startswith("主机内存") and "112 GB" in first


def test_vram_or_ram_is_answered_as_which_is_short() -> None:
    q = "tigerbot-70b-base 在8 * A100，内存：500G, deepspeed zero3, 全参微调，无法跑通。是显存不足还是内存不足？"
    assert _answer(q).startswith("显存和内存都不够")


def test_zero_margin_after_sharding_is_not_a_yes() -> None:
    q = "VisualGLM-6B 用 lora 微调，总共4张卡，单卡11G的显存，总是报错CUDA out of memory"
    first = _answer(q).splitlines()[0]
    assert not first.startswith("能") and "很可能仍会 OOM" in first


def test_a_count_before_a_comma_is_a_count_and_a_list_of_cards_is_not() -> None:
    assert read_one("微调7b，8卡，全量").gpu_count == 8
    assert read_one("deepspeed_stage_2，8 卡启动，lora 微调 7b").gpu_count == 8  # "2,8" is no thousands group
    assert read_one("0卡，1卡显存占满了").gpu_count is None


# ---------------------------------------------------------------- an exception no rule knows
def test_an_unknown_exception_is_an_error_not_a_healthy_log() -> None:
    from tools.diagnosis.report import diagnose_text

    paste = (
        "python3 -m vllm.entrypoints.openai.api_server --model /w/Qwen2-VL-72B-Instruct --pipeline-parallel-size 2 "
        "--tensor-parallel-size 4\n"
        "NotImplementedError: Pipeline parallelism is only supported for the following architectures: [...]"
    )
    r = diagnose_text(paste)
    ids = [f.id for f in r.findings]
    assert "unmatched_exception" in ids and r.severity == "warning"
    assert any("NotImplementedError" in e for f in r.findings for e in f.evidence)


def test_a_known_error_is_not_reported_twice() -> None:
    from tools.diagnosis.report import diagnose_text

    paste = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "23.65 GiB of which 1.02 GiB is free."
    )
    assert "unmatched_exception" not in [f.id for f in diagnose_text(paste).findings]


# ---------------------------------------------------------------- counts, subjects, carried methods
def test_machines_times_cards_times_a_name_is_the_total() -> None:
    f = read_one("请问您 在 3 台 8 * L20 机器上部署的是Deepseek R1 671B的fp8精度的模型吗？")
    assert (f.nodes, f.gpu_count) == (3, 24)  # 3 × 8 × 48 GB = 1152 GB for 671 GB of fp8 weights


def test_the_size_that_does_not_work_is_the_subject() -> None:
    q = (
        "on my single 24gb 4090, I can finetune 7b with --cutoff_len 2048, I can finetune 13b with --cutoff_len 2048, "
        "I can finetune 30b but only with --cutoff_len 1024 and I can't finetune 65b. Is that the case with two cards?"
    )
    assert read_one(q).params_b == 65


def test_a_bare_finetune_keeps_the_method_an_earlier_turn_named() -> None:
    history = [{"role": "user", "content": "I want to fine-tune 65b on a 4090, 4-bit LoRA. Would a 2nd 4090 help?"}]
    _, f, _ = analyse("So I still can't finetune 65b even with two cards?", history)
    assert f.mode == "qlora"


def test_why_a_quoted_requirement_is_answered_with_the_breakdown() -> None:
    text = _answer("麻烦问问，6B微调为啥需要60GB GPU?（Yi-6B 全参微调，README 的硬件要求）")
    first = text.splitlines()[0]
    assert first.startswith("Yi-6B 全量训练")
    assert "优化器状态" in text and "梯度" in text  # 6.06e9 × 16 B ≈ 97 GB of states


def test_an_oom_in_other_words_is_an_oom_report() -> None:
    f = read_one("请问我部署qwen2VL-7b-awq模型，使用VLLM镜像，总是会报超过显存的问题。我使用的是A10的24Gb的卡。")
    assert "oom_report" in f.mentions
    first = _answer("请问我部署qwen2VL-7b-awq模型，使用VLLM镜像，总是会报超过显存的问题。我使用的是A10的24Gb的卡。")
    assert first.startswith("按估算每卡约需")  # the estimate says it fits: the settings are what to look at


# ---------------------------------------------------------------- engine floor and new guide sections
def test_lowering_gpu_memory_utilization_until_it_fails_is_explained() -> None:
    q = (
        "Qwen3 4B AWQ量化模型在vllm下显存占用高达18G：调整gpu_memory_utilizaton参数到低于18G就会报显存不足的错误，"
        "但是读取参数只需要2.5G+。这中间的十几G显存开销是在哪里呢？"
    )
    lines = _answer(q).splitlines()
    assert lines[0].startswith("这是 vLLM 启动时的预分配")
    assert "max_model_len" in lines[1] and "--kv-cache-dtype fp8" in lines[1]


@pytest.mark.parametrize(
    ("query", "doc", "section_word"),
    [
        ("长上下文训练 一条序列一张卡放不下 序列并行", "activations-checkpointing", "长上下文"),
        ("two nodes nccl busbw far below the NIC line rate RoCE", "cluster-networking", "line rate"),
    ],
)
def test_new_guide_sections_are_found(query: str, doc: str, section_word: str) -> None:
    from tools.search_guide import search

    hits = search(query, 3).hits
    assert any(h.doc_id == doc and section_word in h.section for h in hits), [(h.doc_id, h.section) for h in hits]


# ---------------------------------------------------------------- answering the asked thing first
def test_hours_a_year_are_a_usage_pattern() -> None:
    f = read_one("我想买一台4卡4090的机器还是租？一年大概用3000小时")
    assert f.hours_per_day == pytest.approx(3000 / 365, abs=0.01) and f.weeks == pytest.approx(365 / 7, abs=0.01)
    text = _answer("我想买一台4卡4090的机器还是租？一年大概用3000小时")
    assert "3000.1" in text and "按量" in text  # 3000 h × 4 cards × ¥2.1 ≈ ¥25,200 by the hour


def test_the_longest_context_asked_leads_and_says_when_the_model_caps_it() -> None:
    first = _answer("想用两张4090跑qwen2.5 32b的awq，vllm能开多大上下文？").splitlines()[0]
    assert first.startswith("最长上下文") and "32,768" in first  # Qwen2.5-32B max_position_embeddings
    assert "模型本身的上下文上限" in first


def test_a_pipeline_sized_without_a_card_is_not_a_fit_on_an_assumed_one() -> None:
    first = _answer("跑sdxl训练lora要多大显存").splitlines()[0]
    assert "A100" not in first and "放得下" not in first and "7.4 GB" in first


def test_no_card_named_and_none_holds_it_leads_with_the_count() -> None:
    lines = _answer("How much VRAM to serve Llama-3.1-70B at 32k context for 20 concurrent users?").splitlines()
    # 70.6e9 × 2 B = 141 GB of weights + 20 × 32,768 × 320 KiB of KV ≈ 215 GB: several 80 GB cards
    assert lines[1].startswith("No single card holds it") and "8 × A100" in lines[1]


def test_fewer_cuda_devices_than_nvidia_smi_rows_gets_its_own_causes() -> None:
    first = _answer("nvidia-smi 显示有8张卡但是torch.cuda.device_count()只有7").splitlines()[0]
    assert "CUDA_VISIBLE_DEVICES" in first and "MIG" in first


def test_the_batch_size_asked_leads_with_the_largest_micro_batch() -> None:
    first = _answer("单机8卡A100训练13B全参，batch size设多少合适").splitlines()[0]
    assert first.startswith("按显存，每卡微批") and "梯度累积" in first


def test_a_plan_with_under_5_percent_headroom_does_not_lead() -> None:
    from tools.planner import PlanInput, plan_configurations

    # Llama-3-70B QLoRA on one GPU ≈ 50.9 GB: a 48 GB A6000 (49,140 MiB = 51.5 GB) holds it with ~1% to spare
    plan = plan_configurations(PlanInput(model="Llama-3-70B", mode="qlora"))
    best = plan.options[0]
    assert best.headroom_gb is not None and best.headroom_gb >= 0.05 * best.gpu_memory_gb


def test_zero2_or_zero3_which_is_faster_is_answered() -> None:
    first = _answer("deepspeed zero2 和 zero3 哪个快").splitlines()[0]
    assert "ZeRO-2 比 ZeRO-3 快" in first


# ---------------------------------------------------------------- pastes of every shape reach diagnose_logs
@pytest.mark.parametrize(
    "paste",
    [
        "部署报错\nINFO 05-12 10:00:00 llm_engine.py:100] Initializing\nERROR 05-12 10:00:01 worker.py:20] boom",
        'vllm起不来\nTraceback (most recent call last):\n  File "/x/a.py", line 3, in <module>\nKeyError: 3',
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED exitcode : -9",
    ],
)
def test_machine_printed_lines_are_a_paste(paste: str) -> None:
    intents, f, _ = analyse(paste)
    assert f.is_log and intents[0] == "diagnose"


@pytest.mark.parametrize(
    ("paste", "finding"),
    [
        (  # vLLM's dtype check on a V100 (compute capability 7.0; bf16 needs 8.0)
            "ERROR 05-12 10:00:01 worker.py:20] ValueError: Bfloat16 is only supported on GPUs with compute capability "
            "of at least 8.0. Your Tesla V100-SXM2-32GB GPU has compute capability 7.0.",
            "bf16_needs_ampere",
        ),
        (  # flash-attention issue #853: a wheel for another torch / C++ ABI
            "ImportError: /usr/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
            "undefined symbol: _ZN3c104cuda9SetDeviceEi",
            "flash_attn_abi_mismatch",
        ),
        ("AssertionError: Torch not compiled with CUDA enabled", "torch_cpu_build"),
        ("OSError: [Errno 28] No space left on device", "disk_full"),
        (
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
            "tensors_on_two_devices",
        ),
        ("[rank0]: RuntimeError: something no rule knows about", "unmatched_exception"),
        ("OSError: We couldn't connect to 'https://huggingface.co' to load this file", "hf_hub_unreachable"),
        (
            "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory",
            "cuda_library_missing",
        ),
        (
            "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
            "cuda_toolkit_missing",
        ),
    ],
)
def test_common_errors_get_their_own_finding(paste: str, finding: str) -> None:
    from tools.diagnosis.report import diagnose_text

    r = diagnose_text(paste)
    assert r.findings and r.findings[0].id == finding and r.severity == "warning"


# ---------------------------------------------------------------- a price for a bundle of hours
@pytest.mark.parametrize(
    ("q", "expect"),
    [
        ("This plan costs $10 and gives 39 hours of GPU time. How much is that per hour?", ["$0.26 per hour"]),
        # the Alpaca blog's arithmetic: $100 for 8 × A100 over 3 hours = 24 GPU-hours ≈ $4.17 each
        ("We spent $100 on 8 A100s for 3 hours, how many GPU-hours is that?", ["24 GPU-hours", "$4.17 per GPU-hour"]),
        ("花了50美元租了4张4090跑了10小时，每卡时多少钱", ["40 卡时", "$1.25"]),
    ],
)
def test_a_price_for_a_bundle_of_hours_is_divided_out(q: str, expect: list[str]) -> None:
    first = _answer(q).splitlines()[0]
    assert all(e in first for e in expect), first


def test_a_budget_without_hours_is_still_a_budget() -> None:
    from assistant.offline.reading.money import read_foreign_budget, read_money_quote

    assert read_money_quote("My budget is $50, how many hours of A100 can I rent?") is None
    assert read_foreign_budget("My budget is $50, how many hours of A100 can I rent?") == (50.0, "USD")


def test_a_size_far_from_the_keys_model_is_another_model() -> None:
    from tools.models import find_entry

    # the key drops separators, so "qwen25-7b" met Qwen2-57B-A14B's; 7B is neither its 57.4B total nor 14B active
    assert find_entry("qwen25-7b") is None
    assert find_entry("Qwen2-57B-A14B").id == "Qwen2-57B-A14B"
    assert find_entry("Llama-4-Scout-17B-16E-Instruct").id == "Llama-4-Scout"  # named by its 17B active
    assert find_entry("CogVLM2 19B").id == "CogVLM2-19B"  # 8B decoder + 11B vision: the name counts both
