"""Framework errors and told symptoms added from public reports (each test names its thread). Expected figures are
worked by hand from the paste's own numbers; the negatives check each rule stays quiet where it does not apply."""

from __future__ import annotations

import pytest

from assistant.offline.intents import plan
from tools.diagnosis.report import diagnose_text


def _ids(text: str) -> list[str]:
    return [f.id for f in diagnose_text(text, None, None, None, None).findings]


def _finding(text: str, fid: str):
    return next(f for f in diagnose_text(text, None, None, None, None).findings if f.id == fid)


# https://github.com/NVIDIA/TensorRT-LLM/issues/2688 (trimmed)
TRTLLM_SCRATCH = (
    "trtllm-build llama3.1-8b failed\n"
    "trtllm-build --checkpoint_dir ./tllm_checkpoint_2gpu_tp2 \\\n"
    "            --output_dir ./tmp/llama/7B/trt_engines/fp16/2-gpu/ \\\n"
    "            --gpus_per_node 8 \\\n"
    "[TRT] [E] IBuilder::buildSerializedNetwork: Error Code 4: Internal Error (Internal error: plugin node "
    "LLaMAForCausalLM/transformer/layers/0/attention/PLUGIN_V2_GPTAttention_0 requires 210571452800 bytes of "
    "scratch space, but only 47697362944 is available. Try increasing the workspace size with "
    "IBuilderConfig::setMemoryPoolLimit().\n)\n"
    "I have 8 46GB GPUs, but this error occurs. Is this issue related to increasing the workspace size?"
)


def test_trtllm_scratch_space_quotes_the_bytes_in_gb_and_gib() -> None:
    f = _finding(TRTLLM_SCRATCH, "trtllm_plugin_scratch_space")
    # 210,571,452,800 B ÷ 1e9 = 210.6 GB; ÷ 2^30 = 196.1 GiB; 47,697,362,944 B ÷ 1e9 = 47.7 GB
    assert "210.6 GB" in f.title.en and "196.1 GiB" in f.title.en and "47.7 GB" in f.title.en
    assert "--max_seq_len" in f.title.en
    assert any("131072" in c.en for c in f.causes)


def test_a_card_count_beside_a_paste_does_not_replace_the_paste() -> None:
    """'I have 8 46GB GPUs' once overwrote the message the planner hands to diagnose_logs with '8'."""
    call = next(c for c in plan(TRTLLM_SCRATCH) if c.name == "diagnose_logs")
    assert "scratch space" in call.args["text"]


# https://github.com/chatchat-space/Langchain-Chatchat/issues/3202 (trimmed)
CHATCHAT_TP1 = (
    "[BUG] vllm多卡启动显示成功，但是实际上只有一张显卡被占用\n"
    "{'block_size': 16,\n 'gpu_memory_utilization': 0.9,\n 'gpus': '0,1',\n 'infer_turbo': 'vllm',\n"
    " 'num_gpus': 2,\n 'tensor_parallel_size': 1,\n 'worker_use_ray': False}"
)


def test_tensor_parallel_one_explains_the_single_busy_card() -> None:
    f = _finding(CHATCHAT_TP1, "tp_one_with_several_gpus")
    assert "tensor_parallel_size: 2" in f.title.zh
    assert plan(CHATCHAT_TP1)[0].name == "diagnose_logs"


def test_tensor_parallel_one_on_a_single_gpu_is_not_a_fault() -> None:
    one = "{'gpus': '0', 'num_gpus': 1, 'tensor_parallel_size': 1}\n启动成功\nnvidia-smi 正常"
    assert "tp_one_with_several_gpus" not in _ids(one)


# https://github.com/huggingface/text-generation-inference/issues/832
TGI_BENCH = (
    "I use 4*80G A100 to launcher the llama2-70b, it has the information: Setting max batch total tokens to 406560\n"
    "If the max-total-tokens is 4096, I think the batch size is 406560/4096=99.\n"
    "But when I test it using text-generation-benchmark, I only set batch size=32, and it has cuda out of memoy."
)


def test_tgi_benchmark_bypasses_the_router() -> None:
    f = _finding(TGI_BENCH, "tgi_benchmark_bypasses_router")
    assert "max-batch-prefill-tokens" in f.title.en and "406560" in f.title.en


# https://github.com/vllm-project/vllm/issues/29481 (trimmed)
VLLM_TWO = (
    "vllm==0.8.4\nvllm serve /Qwen3-0.6B --tensor-parallel-size 1 \\\n    --gpu-memory-utilization 0.25 \\\n"
    "    --max-model-len 2048\n"
    "打算在一张4090上部署两个qwen3-0.6b的模型接口，每个接口应该只占6g显存，但是目前只能部起来一个，另一个报错了"
    "ERROR 11-26 14:34:34 [core.py:387] EngineCore hit an exception: Traceback (most recent call last):"
)


def test_second_vllm_instance_budget_counts_the_first() -> None:
    f = _finding(VLLM_TWO, "vllm_util_share_of_whole_card")
    # RTX 4090: nvidia-smi total 24,564 MiB; 0.25 × 24,564 MiB = 6,141 MiB = 6.0 GiB
    assert "24,564 MiB" in f.title.zh and "6.0 GiB" in f.title.zh
    assert "不是显存碎片" in f.title.zh and "0.5" in f.title.zh


def test_one_vllm_instance_with_a_low_fraction_is_not_this_rule() -> None:
    one = "vllm serve Qwen/Qwen3-0.6B --gpu-memory-utilization 0.25\n启动报错 ValueError: No available memory for the cache blocks\n请问怎么办"
    assert "vllm_util_share_of_whole_card" not in _ids(one)
    on_one_gpu = (
        "I run vllm serve Qwen/Qwen2.5-7B on one GPU with --gpu-memory-utilization 0.9\n"
        "and it fails with an error: ValueError: No available memory for the cache blocks"
    )
    assert "vllm_util_share_of_whole_card" not in _ids(on_one_gpu)


# https://github.com/NVIDIA/nccl-tests/issues/182 (trimmed)
NCCL_TWO_TABLES = (
    "Although it is an InfiniBand environment, the average Bandwidth is not as good as expected.\n"
    "   134217728      33554432     float     sum      -1    27691    4.85    4.85      0    27634    4.86    4.86      0\n"
    "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.80135\n#\n"
    "   268435456      67108864     float     sum      -1    59067    4.54    4.54      0    59082    4.54    4.54      0\n"
    "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.65866\n"
    "We configure each virtual machine with 2 A100 HDR InfiniBand 1 EA pass-through."
)


def test_two_result_tables_from_one_launch_point_at_mpi_build() -> None:
    ids = _ids(NCCL_TWO_TABLES)
    assert "nccl_tests_ranks_ran_separately" in ids
    assert "busbw_low" not in ids  # the tables are not one measurement: no NVLink verdict on them
    f = _finding(NCCL_TWO_TABLES, "nccl_tests_ranks_ran_separately")
    assert "MPI=1" in f.title.en
    assert any("25 GB/s" in a.en for a in f.actions)  # HDR: 200 Gb/s ÷ 8 = 25 GB/s


def test_two_runs_set_side_by_side_are_a_comparison() -> None:
    compared = NCCL_TWO_TABLES.replace("We configure", "The second run is after setting NCCL_IB_HCA. We configure")
    assert "nccl_tests_ranks_ran_separately" not in _ids(compared)


@pytest.mark.parametrize(
    ("text", "fid"),
    [
        # https://github.com/QwenLM/Qwen/issues/970
        (
            "各位大佬 GPU功耗很低 但是GPU利用率满载 是什么情况（多卡都是 100% 利用率，功耗很低）发生在微调模型的时候，进度特别慢",
            "util_full_power_low",
        ),
        # https://github.com/xorbitsai/inference/issues/1755
        (
            "deepseek-coder-6.7b-instruct 部署出错（Xinference 0.12.1）\nA800 80G\n内存32G\n"
            "已经部署了一个Qwen-57B-q5的模型用了40G显存，再部署deepseek-coder-6.7b-instruct 就报资源不足",
            "xinference_gpu_slot_taken",
        ),
        # https://github.com/ollama/ollama/issues/5455
        (
            "when I upgrade to ollama:0.1.48, I use the same command, but it only use 1 gpu for inference. Why this happens?",
            "ollama_one_gpu_when_it_fits",
        ),
    ],
)
def test_told_symptoms_are_diagnosed(text: str, fid: str) -> None:
    assert fid in _ids(text)
    assert plan(text)[0].name == "diagnose_logs"


def test_full_utilisation_at_normal_power_is_not_the_spin_rule() -> None:
    assert "util_full_power_low" not in _ids("训练时 GPU 利用率 100%，功耗 350W 左右，正常吗")


def test_gpu_lost_says_what_to_check_on_the_box() -> None:
    # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/387 (poster: "Fixed by reseating GPU.")
    text = (
        "Hardware: GPU 0-3: NVIDIA GeForce RTX 2080 Ti\nSometime the GPU 1 falls out of the bus, and nvidia-smi outputs: "
        "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error."
    )
    f = _finding(text, "gpu_lost")
    assert any("reseat" in a.en and "PSU" in a.en for a in f.actions)


def test_quantised_tp_names_the_sizes_that_divide_the_model() -> None:
    # https://github.com/QwenLM/Qwen3/issues/63 — Qwen-14B config: intermediate_size 13696 = 128 × 107 (107 prime)
    text = (
        "Qwen-14B-Chat-Int4 vllm部署报错ValueError: The input size is not aligned with the quantized weight shape. "
        "This can be caused by too large tensor parallel size。（多卡 --tensor-parallel-size 2）"
    )
    f = _finding(text, "quant_tp_not_aligned")
    assert "13696 = 128 × 107" in f.title.zh and "TP 只有 1" in f.title.zh and "TP=2" in f.title.zh


def test_quantised_tp_on_a_model_that_shards_lists_the_larger_sizes() -> None:
    # Qwen-72B config: intermediate_size 24576 = 128 × 192 → TP 1/2/4/8 all align
    text = "Qwen-72B-Chat-Int4: ValueError: The input size is not aligned with the quantized weight shape.\n--tensor-parallel-size 3"
    f = _finding(text, "quant_tp_not_aligned")
    assert "24576 = 128 × 192" in f.title.en and "1/2/4/8" in f.title.en


def test_free_quota_rotation_is_declined_without_the_colab_text() -> None:
    from assistant.advisor import ask

    # https://github.com/lbjlaq/Antigravity-Manager/issues/1150 (free-quota multi-account rotation)
    r = ask("免费账号没得玩了，7个账号被封了6个了，换地区、家庭组都试过了，还有得救吗", backend="offline")
    assert not r.tool_calls
    assert "不能帮助你" in r.answer and "Colab" not in r.answer and "申诉" in r.answer
    colab = ask("注册好几个号白嫖 colab 的免费额度可以吗", backend="offline")
    assert "Colab 的 FAQ" in colab.answer


def test_a_quoted_algbw_on_named_cards_is_set_against_their_range() -> None:
    from assistant.advisor import ask

    r = ask(
        "H100 all reduce performance is poor. We test the all_reduce_perf in H100, the algbw is about 250GB/S. "
        "But NV officials claim that the bandwidth of all reduce can reach 450GB/S. (8 × H100 SXM in one node)",
        backend="offline",
    )
    # busbw = 250 × 2(8−1)/8 = 437.5 GB/s; 8 × H100 SXM measured range 360–480 GB/s (nccl-tests #212)
    assert "437.5 GB/s" in r.answer and "within the expected range" in r.answer and "NVLS" in r.answer


def test_xinference_on_one_card_is_the_generic_oom() -> None:
    one = (
        "Xinference 部署 qwen2-7b 报错\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
        "GPU 0 has a total capacity of 23.50 GiB of which 1.10 GiB is free."
    )
    assert "xinference_model_on_one_gpu" not in _ids(one)
    many = one.replace("报错", "报错（四张卡，其他gpu空着）")  # https://github.com/xorbitsai/inference/issues/2345
    assert "xinference_model_on_one_gpu" in _ids(many)
