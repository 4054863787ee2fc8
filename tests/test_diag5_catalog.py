"""Errors whose root cause needs framework knowledge (knowledge/diagnosis/error_catalog.yaml, symptom_catalog.yaml),
error messages quoted inside a sentence, and findings that quote the user's own numbers instead of placeholders.

Every paste here is our own phrasing (casual Chinese, typos, forum English); expected values are worked out by hand
in the test from the public source named beside it, never copied from the code's output. Real pastes with their
URLs live in tests/diagnosis_samples/catalog_*.txt (checked by test_diagnosis_rules / test_frame).
"""

from __future__ import annotations

from assistant.offline import answer, plan
from assistant.offline.reading.logs import paste_kinds
from tools.diagnosis.findings import DiagnosisReport, Finding
from tools.diagnosis.tool import diagnose_text


def _find(rep: DiagnosisReport, fid: str) -> Finding:
    found = [f for f in rep.findings if f.id == fid]
    assert found, [f.id for f in rep.findings]
    return found[0]


def _all_text(f: Finding, lang: str = "en") -> str:
    parts = [f.title, *f.causes, *f.actions]
    return "\n".join(getattr(p, lang) for p in parts)


# ------------------------------------------------------------------ routing: an error quoted in a sentence


def test_inline_flash_attention_error_in_casual_chinese_is_diagnosed() -> None:
    q = "T4上跑qwen7b lora 报错 RuntimeError: FlashAttention only supports Ampere GPUs or newer. 咋办啊"
    assert "diagnose_logs" in [c.name for c in plan(q)]
    f = _find(diagnose_text(q), "flash_attn_needs_ampere")
    # FlashAttention README: Ampere/Ada/Hopper only; NVIDIA CUDA GPUs table: T4 = 7.5 < 8.0
    assert "T4" in f.title.zh and "8.0" in f.title.zh
    text = _all_text(f)
    assert 'attn_implementation="sdpa"' in text and "flash_attn: sdpa" in text and "use_flash_attn" in text


def test_inline_nccl_warn_and_vllm_numbers_are_pastes_but_a_bare_question_is_not() -> None:
    assert paste_kinds("两台机器跑训练报 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory 咋回事")
    assert paste_kinds(
        "vllm says max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (52416), help"
    )
    assert not paste_kinds("CUDA out of memory 一般有哪些原因？")
    assert not paste_kinds("NCCL 超时怎么办？")
    # a bare OOM name with no numbers is a sizing question: the job's memory estimate answers it, not the log rules
    assert not paste_kinds("两张24G卡 lora 微调 13B，报 torch.cuda.OutOfMemoryError: CUDA out of memory，咋整")


def test_vllm_kv_finding_quotes_the_users_two_numbers() -> None:
    q = "vllm 起 qwen2.5-7b 报 ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (52416). 咋整"
    f = _find(diagnose_text(q), "vllm_no_kv_cache_memory")
    assert "52,416" in f.title.zh and "131,072" in f.title.zh and "--max-model-len" in f.title.zh
    assert "24320" not in f.title.zh and "24,320" not in f.title.zh  # the guide's example, not this log


# ------------------------------------------------------------------ FlashAttention off → O(L²) memory


def test_flash_fallback_oom_in_a_video_dit_gets_the_hand_worked_sequence_length() -> None:
    paste = (
        "wan2.1 t2v 在 titan rtx 上报 FlashAttention only supports Ampere GPUs or newer，我把 flash 换成 sdpa 后又爆显存：\n"
        "python generate.py --task t2v-1.3B --size 832*480 --frame_num 81\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 47.98 GiB. GPU 0 has a total capacity of 23.65 GiB of which 10.10 GiB is free.\n"
    )
    rep = diagnose_text(paste)
    f = _find(rep, "flash_attn_needs_ampere")
    assert "oom_exceeds_capacity" not in [x.id for x in rep.findings]  # the cause replaces the generic OOM
    # Wan2.1 README: VAE 4× time / 8× space, patch 1×2×2, 12 heads (1.3B); 81 frames → 1 + 80/4 = 21 latent frames
    tokens = 21 * (480 // 8 // 2) * (832 // 8 // 2)
    assert tokens == 32_760
    gib = 12 * tokens**2 * 4 / 2**30  # fp32 score matrix
    assert round(gib, 2) == 47.98
    text = _all_text(f)
    assert "32,760" in text and "47.98 GiB" in f.title.en and "O(L²)" in f.title.en
    assert "xformers" in text and "SageAttention" in text


def test_flash_error_on_text_model_leaves_out_the_video_example() -> None:
    f = _find(
        diagnose_text("V100 上 llama-factory 训练报 RuntimeError: FlashAttention only supports Ampere GPUs or newer."),
        "flash_attn_needs_ampere",
    )
    assert "32,760" not in _all_text(f) and "not a memory problem" in f.title.en


# ------------------------------------------------------------------ nccl-tests: one rank reports busbw 0


def test_single_gpu_all_reduce_reports_zero_busbw_by_definition() -> None:
    paste = (
        "单卡4090 跑 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 1\n"
        "# Out of bounds values : 0 OK\n"
        "# Avg bus bandwidth    : 0 \n"
        "是不是卡有问题"
    )
    n = 1
    assert 2 * (n - 1) / n == 0  # nccl-tests PERFORMANCE.md: all-reduce busbw = algbw × 2(n−1)/n
    rep = diagnose_text(paste)
    f = _find(rep, "nccl_tests_single_rank_zero_busbw")
    assert "nranks = 1" in f.title.en and "-g <GPU count>" in f.actions[0].en
    assert rep.verdict == "no_action"


def test_two_ranks_with_zero_busbw_is_not_explained_away() -> None:
    paste = (
        "# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor)\n"
        "#  Rank  0 Group  0 Pid   5068 on   box device  0 [0x21] NVIDIA GeForce RTX 4090\n"
        "#  Rank  1 Group  0 Pid   5068 on   box device  1 [0x61] NVIDIA GeForce RTX 4090\n"
        "# Avg bus bandwidth    : 0 \n"
    )
    assert "nccl_tests_single_rank_zero_busbw" not in [f.id for f in diagnose_text(paste).findings]


# ------------------------------------------------------------------ NVLS, RDMA registration


def test_nvls_invalid_argument_points_at_fabric_manager_not_shm() -> None:
    paste = "8卡H100 跑 nccl-tests 直接挂\nbox:1:2 [3] transport/nvls.cc:1223 NCCL WARN Cuda failure 1 'invalid argument'\nbox:1:2 [3] NCCL INFO init.cc:1277 -> 1\n"
    rep = diagnose_text(paste)
    f = _find(rep, "nccl_nvls_setup_failed")
    assert "nccl_error" not in [x.id for x in rep.findings]
    text = _all_text(f)
    assert "nvidia-fabricmanager" in text and "NCCL_NVLS_ENABLE=0" in text and "NVLink SHARP" in f.title.en


def test_nvls_failure_told_in_a_sentence_in_another_order() -> None:
    q = "8卡H800 nccl-test 报 NCCL WARN Cuda failure 'invalid argument' in transport/nvls.cc:158，fabricmanager 已经重启过了"
    assert "nccl_nvls_setup_failed" in [f.id for f in diagnose_text(q).findings]


def test_ibv_reg_mr_failure_is_memory_registration() -> None:
    paste = (
        "两台8卡 训练报 RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)\n"
        "node1:77:88 [2] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory\n"
    )
    f = _find(diagnose_text(paste), "nccl_ib_memory_registration")
    text = _all_text(f, "zh")
    assert (
        "ibv_reg_mr" in f.title.zh and "nvidia-peermem" in text and "ulimit -l" in text and "NCCL_NET_GDR_LEVEL" in text
    )


# ------------------------------------------------------------------ accelerate dispatch, ollama memory


def test_quantized_model_dispatched_to_cpu_says_to_set_the_gpu_count() -> None:
    paste = "4张3090 device_map auto 加载 8bit 模型报\nValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model."
    f = _find(diagnose_text(paste), "accelerate_dispatched_to_cpu")
    text = _all_text(f)
    assert "--n-gpu 4" in text and "--tensor-parallel-size" in text and "CUDA_VISIBLE_DEVICES=0,1,2,3" in text


def test_ollama_refusal_states_the_shortfall_from_its_own_numbers() -> None:
    paste = "ollama run qwen2.5:72b\nError: model requires more system memory (41.2 GiB) than is available (15.6 GiB)"
    rep = diagnose_text(paste)
    f = _find(rep, "ollama_system_memory_short")
    assert f.title.en.startswith("Does not fit") and "41.2 GiB" in f.title.en
    assert f"{41.2 - 15.6:.1f} GiB short" in f.title.en  # 25.6
    assert "distilled" in f.actions[0].en


def test_ollama_log_with_system_memory_line_adds_ram_swap_and_vram() -> None:
    paste = (
        'time=2025-03-01T10:00:00 level=INFO source=server.go:100 msg="system memory" total="62.5 GiB" free="50.1 GiB" free_swap="8.0 GiB"\n'
        'time=2025-03-01T10:00:00 level=INFO source=memory.go:356 msg="offload to cuda" memory.available="[22.3 GiB]" memory.weights.total="110.4 GiB"\n'
        "Error: model requires more system memory (120.0 GiB) than is available\n"
    )
    f = _find(diagnose_text(paste), "ollama_system_memory_short")
    have = 50.1 + 8.0 + 22.3  # free RAM + free swap + free VRAM, as the log prints them
    assert f"{120.0 - have:.1f} GiB short" in f.title.en  # 39.6
    assert "110.4 GiB" in f.title.en and "62.5 GiB of RAM" in f.title.en


# ------------------------------------------------------------------ Xid 79 on a consumer card


def test_xid79_on_a_desktop_4090_adds_power_delivery_checks() -> None:
    paste = "台式机 4090 跑着跑着就掉了，没有任何前兆\n[ 812.3] NVRM: Xid (PCI:0000:01:00): 79, pid=2211, GPU has fallen off the bus.\n"
    f = _find(diagnose_text(paste), "xid_79")
    text = _all_text(f, "zh")
    assert "nvidia-smi -pl" in text and "12V-2x6" in text and "-lgc" in text
    assert any("nvidia-smi -pl" in a.zh for a in f.actions[:3])  # shown among the first actions


def test_xid79_on_a_datacenter_node_without_consumer_words_is_unchanged() -> None:
    paste = "[Tue Nov 25 10:02:11 2025] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
    f = _find(diagnose_text(paste), "xid_79")
    assert "12V-2x6" not in _all_text(f)


# ------------------------------------------------------------------ told symptoms


def test_memory_that_rises_then_holds_is_the_cache_with_the_users_series() -> None:
    q = "推理服务显存一直涨，不释放，是不是泄漏了\n第1次 2100MiB\n第2次 6300MiB\n第3次 9800MiB\n第4次 9800MiB\n第5次 9800MiB"
    calls = [c.name for c in plan(q)]
    assert "diagnose_logs" in calls and "estimate_memory" not in calls
    rep = diagnose_text(q)
    f = _find(rep, "gpu_memory_cached_not_leaked")
    assert "2,100 MiB" in f.title.zh and "9,800 MiB" in f.title.zh and "第3次" in f.title.zh
    assert "empty_cache" in _all_text(f) and "memory_reserved" in _all_text(f)
    a, _ = answer(q, [], "auto")
    assert a.text.lstrip().startswith("显存涨到峰值后不降")


def test_memory_still_rising_at_the_end_gets_no_plateau_claim() -> None:
    q = "gpu memory keeps increasing and is never released, is this a leak?\nstep 1: 2000 MiB\nstep 2: 4000 MiB\nstep 3: 6000 MiB"
    f = _find(diagnose_text(q), "gpu_memory_cached_not_leaked")
    assert "your numbers" not in f.title.en


def test_engines_that_preallocate_and_linux_servers_are_left_to_other_rules() -> None:
    # vLLM takes gpu_memory_utilization × memory at start on purpose (vLLM engine args): not the caching allocator
    q = "vllm 部署 qwen 后显存一直占着不释放，90% 都被占了，是不是泄漏，怎么让它释放"
    assert "gpu_memory_cached_not_leaked" not in [f.id for f in diagnose_text(q).findings]
    # the sysmem fallback policy is a Windows driver setting (NVIDIA article 5490); a Linux box is slow for other reasons
    q2 = "ubuntu 上 4090 训 sdxl lora 比 3090 还慢，一个 epoch 要 3 小时，为啥"
    assert "windows_sysmem_fallback" not in [f.id for f in diagnose_text(q2).findings]


def test_new_card_much_slower_on_windows_points_at_sysmem_fallback() -> None:
    q = "win11 上用 4080 训 sdxl lora，比朋友的 3090 慢好多，一个 epoch 要 3 小时，驱动是最新的"
    assert "diagnose_logs" in [c.name for c in plan(q)]
    f = _find(diagnose_text(q), "windows_sysmem_fallback")
    text = _all_text(f, "zh")
    assert "536.40" in f.title.zh and "首选无系统内存回退" in text and "共享 GPU 内存" in text


# ------------------------------------------------------------------ no placeholders


def test_oom_title_never_shows_question_marks_and_spots_the_wrong_gpu() -> None:
    paste = (
        "my card: RTX 3060, VRAM 12 GB\n"
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 2.00 GiB of which 0 bytes is free.\n"
    )
    f = _find(diagnose_text(paste), "oom_exceeds_capacity")
    assert "?" not in f.title.en and "?" not in f.title.zh
    assert "GPU 0 (2.00 GiB)" in f.title.en and "20 MiB" in f.title.en
    # 12 GB stated vs 2.00 GiB = 2.15 GB seen by PyTorch: a different device
    assert 12 > 1.5 * 2.00 * 2**30 / 1e9
    assert "different GPU" in f.title.en and "CUDA_VISIBLE_DEVICES" in f.actions[0].en


def test_unrecognised_paste_says_so_without_placeholders() -> None:
    a, _ = answer("帮我看下这个报错：\nSegmentation fault (core dumped)\n跑到一半就这样了", [], "auto")
    first = a.text.strip().splitlines()[0]
    assert "?" not in first and "（）" not in first


def test_kernel_log_with_a_gpu_named_in_prose_has_no_acceptance_table() -> None:
    rep = diagnose_text("[ 5.1] NVRM: Xid (PCI:0000:06:00): 79, pid=1, GPU has fallen off the bus.\n", "RTX 5080")
    assert rep.acceptance is None and "delivery_mismatch" not in [f.id for f in rep.findings]
