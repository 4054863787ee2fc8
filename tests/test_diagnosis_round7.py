"""Round 7: framework/NCCL errors and told symptoms the diagnosis missed (knowledge/diagnosis/error_catalog.yaml,
symptom_catalog.yaml, severity_policy.yaml; tools/diagnosis/rules/catalog.py; knowledge/engines.yaml not_memory).

Every paste and phrasing here is our own (hostnames, addresses, devices and numbers changed), asserting what the
findings say, their severity, and values worked out by hand from the primary source named beside each test.
"""

from __future__ import annotations

from assistant.offline import plan
from tools.diagnosis.findings import DiagnosisReport, Finding
from tools.diagnosis.tool import diagnose_text


def _find(rep: DiagnosisReport, fid: str) -> Finding:
    found = [f for f in rep.findings if f.id == fid]
    assert found, [f.id for f in rep.findings]
    return found[0]


def _text(f: Finding, lang: str = "en") -> str:
    return "\n".join(getattr(p, lang) for p in [f.title, *f.causes, *f.actions])


def _tools(q: str) -> list[str]:
    return [c.name for c in plan(q)]


# ------------------------------------------------------------------ NCCL: IPv6 link-local peer

_IPV6 = """两台机器跑 DDP，启动就报错
gpu-a:1201:1201 [0] NCCL INFO NET/Socket : Using [0]ens5f0:10.8.3.21<0>
gpu-a:1201:1201 [0] NCCL INFO Using network Socket
gpu-a:1201:1330 [0] include/socket.h:403 NCCL WARN Connect to fe80::a1b2:33ff:fe10:7c0d%3<41021> failed : Network is unreachable
"""


def test_link_local_ipv6_peer_names_socket_ifname_with_the_paste_interface() -> None:
    # fe80::/10 is IPv6 link-local (RFC 4291 §2.5.6); NCCL_SOCKET_IFNAME pins the interface (NCCL env docs)
    rep = diagnose_text(_IPV6)
    f = rep.findings[0]
    assert f.id == "nccl_ipv6_link_local_peer"
    assert "NCCL_SOCKET_IFNAME=ens5f0" in f.title.zh and "链路本地" in f.title.zh
    assert f.severity == "warning"  # the renter fixes it: not a hardware fault
    assert not any(x.id in ("nccl_connect_failed", "nccl_error") for x in rep.findings)


def test_ipv4_connect_failure_keeps_the_firewall_finding() -> None:
    paste = _IPV6.replace("fe80::a1b2:33ff:fe10:7c0d%3", "10.8.3.22")
    rep = diagnose_text(paste)
    assert not any(f.id == "nccl_ipv6_link_local_peer" for f in rep.findings)
    assert any(f.id == "nccl_connect_failed" for f in rep.findings)


# ------------------------------------------------------------------ NCCL: HCAs it cannot open


_HCA = """worker-7:501:501 [2] misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed
worker-7:501:501 [2] transport/net_ib.cc:149 NCCL WARN NET/IB : Unable to open device mlx5_7
worker-7:501:501 [2] NCCL INFO NET/IB : Using [0]mlx5_2:1/RoCE [1]mlx5_4:1/RoCE ; OOB eth0:10.0.5.9<0>
worker-7:501:501 [2] NCCL INFO Using network IB
"""


def test_unopenable_hca_with_ib_in_use_is_info_and_lists_the_opened_hcas() -> None:
    # NCCL env docs NCCL_IB_HCA: the HCAs NCCL may use; "Using network IB" = the IB transport is up
    rep = diagnose_text(_HCA)
    f = _find(rep, "nccl_ib_hca_unopenable")
    assert f.severity == "info"  # a benign warning, not critical
    assert rep.verdict == "no_action"
    assert "NCCL_IB_HCA=mlx5_2,mlx5_4" in _text(f)
    assert not any(x.id == "nccl_error" for x in rep.findings)


def test_unopenable_hca_without_ib_in_use_is_not_called_harmless() -> None:
    paste = "\n".join(ln for ln in _HCA.splitlines() if "Using" not in ln)
    rep = diagnose_text(paste)
    assert not any(f.id == "nccl_ib_hca_unopenable" for f in rep.findings)


# ------------------------------------------------------------------ NCCL: shared memory above the device limit


def test_nccl_shared_memory_above_device_limit_says_upgrade_with_the_numbers() -> None:
    # NVIDIA/nccl#1637 pattern, our own numbers: 90000 requested > 80000 allowed
    paste = (
        "box:77:77 [0] NCCL INFO NCCL version 2.24.3+cuda12.4\n"
        "box:78:78 [1] NCCL INFO ncclMaxSharedMem 90000 exceeds device/fn maxSharedMem 80000\n"
        "why does NCCL_P2P_DISABLE=1 not help on my two new cards?"
    )
    rep = diagnose_text(paste)
    f = rep.findings[0]
    assert f.id == "nccl_max_shared_mem_exceeds_device"
    assert "90000" in f.title.en and "80000" in f.title.en and "2.24.3" in f.title.en
    assert "upgrade" in f.title.en.lower() and "升级" in f.title.zh


# ------------------------------------------------------------------ CUDA wheel on a Chinese accelerator


def test_libcuda_missing_on_an_ascend_box_says_the_cuda_build_does_not_support_it() -> None:
    q = (
        "昇腾服务器上 pip 装了 vllm，启动就报\n"
        "WARNING 03-01 10:00:00 _custom_ops.py:19] Failed to import from vllm._C with "
        "ImportError('libcuda.so.1: cannot open shared object file: No such file or directory')\n"
        "怎么才能用上 NPU？"
    )
    rep = diagnose_text(q)
    f = _find(rep, "cuda_wheel_on_domestic_accelerator")
    zh = _text(f, "zh")
    assert "不支持" in zh and "vllm-ascend" in zh
    assert "torch_mlu" not in zh  # the Cambricon action is only for Cambricon hosts
    assert "diagnose_logs" in _tools(q)


def test_libcuda_missing_on_an_nvidia_box_is_not_called_a_domestic_card() -> None:
    paste = "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory\nin docker on A100"
    rep = diagnose_text(paste)
    assert not any(f.id == "cuda_wheel_on_domestic_accelerator" for f in rep.findings)


def test_hygon_cuda_wheel_running_says_it_ran_on_the_cpu() -> None:
    paste = (
        "海光 DCU 上装的 torch，能跑但是很慢\n"
        "torch 2.5.1+cu121\n"
        "torch.cuda.is_available() = False\n"
        "torch.cuda.device_count() = 0\n"
    )
    f = _find(diagnose_text(paste), "torch_cuda_unavailable")
    zh = _text(f, "zh")
    assert "CPU" in zh and "DTK" in zh


# ------------------------------------------------------------------ LMDeploy 0.0.x cache entries


def test_turbomind_cache_entries_below_batch_quotes_both_settings_and_the_kv_formula() -> None:
    # lmdeploy#277 maintainer: cache_max_entry_count (sequences kept) must be >= max_batch_size.
    # Per sequence: 2 × 2 B × 32 layers × 32 KV heads × 128 × 2048 = 1,073,741,824 B ≈ 1.07 GB (hand arithmetic)
    paste = (
        "压测并发 6 就挂\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  [TM][ERROR] No enough cache entries. Assertion fail: LlamaCacheManager.cc:62\n"
        "config: max_batch_size = 16, cache_max_entry_count = 4\n"
    )
    rep = diagnose_text(paste)
    f = rep.findings[0]
    assert f.id == "turbomind_cache_entries_below_batch"
    assert "cache_max_entry_count = 4" in f.title.zh and "max_batch_size = 16" in f.title.zh
    zh = _text(f, "zh")
    assert "1.07 GB" in zh and "≥ max_batch_size" in zh and "session_len" in zh


# ------------------------------------------------------------------ tensor parallel splitting heads


def test_not_divisible_with_tp_works_out_the_heads_and_the_sizes_that_divide() -> None:
    # BERT-large-like: hidden 1024, head_dim 64 → 16 heads; TP 6 → 1024/6 is not whole, so use the paste
    # figures: per-rank 160 with TP 6 → hidden 960, 960 / 64 = 15 heads; 6 does not divide 15;
    # divisors of 15 below 6: 3, 5; of those only 3 divides 6 → TP=3
    paste = (
        "tensor parallel size 6 的时候训练报错：\n"
        'File "layers.py", line 10, in divide\n'
        "AssertionError: 160 is not divisible by 64\n"
    )
    rep = diagnose_text(paste)
    f = rep.findings[0]
    assert f.id == "tp_split_not_whole_heads"
    assert "960 ÷ 64 = 15" in f.title.zh
    assert "TP=3" in _text(f, "zh") and "TP=5" not in _text(f, "zh")


def test_not_divisible_outside_parallelism_does_not_fire() -> None:
    rep = diagnose_text("ValueError: batch 50 is not divisible by 8 in my dataloader\nTraceback ...")
    assert not any(f.id == "tp_split_not_whole_heads" for f in rep.findings)


# ------------------------------------------------------------------ told symptoms


def test_memory_held_after_crash_is_leftover_processes_not_a_broken_card() -> None:
    q = (
        "四卡训练跑着跑着自己停了，nvidia-smi 显示显存还占着，用 fuser -v /dev/nvidia* 查到几个 python 进程，"
        "kill -9 之后才释放。是不是显卡过热坏了？"
    )
    assert "diagnose_logs" in _tools(q)
    rep = diagnose_text(q)
    f = _find(rep, "gpu_memory_held_by_leftover_process")
    zh = _text(f, "zh")
    assert "残留" in zh and "Xid" in zh and "dmesg" in zh
    assert f.severity == "warning" and rep.verdict != "move_machine"  # not a hardware verdict


def test_pid_that_kill_cannot_find_points_at_the_pid_namespace_and_reset() -> None:
    q = (
        "My job died but GPU 2 still holds 30 GB in nvidia-smi. The PID shows in --query-compute-apps, "
        "yet kill -9 says no such process. I am inside a docker container. How do I get the memory back?"
    )
    assert "diagnose_logs" in _tools(q)
    en = _text(_find(diagnose_text(q), "gpu_memory_held_by_leftover_process"))
    assert "namespace" in en and "--gpu-reset" in en


def test_low_utilisation_with_more_workers_slower_is_input_bound_and_info() -> None:
    q = "训练的时候显存占满了，GPU利用率只有20%左右，把 num_workers 加到 32 反而更慢，怎么提高速度？"
    rep = diagnose_text(q)
    f = _find(rep, "gpu_util_low_input_bound")
    assert f.severity == "info"
    zh = _text(f, "zh")
    assert "torch.profiler" in zh and "物理核数" in zh


def test_ray_env_vars_and_vllm_custom_all_reduce() -> None:
    q = (
        "Our verl job on 8 x RTX 4090 fails with a P2P error even though we exported NCCL_P2P_DISABLE=1 before "
        "launching, the Ray workers still try P2P and vLLM rollout crashes."
    )
    rep = diagnose_text(q)
    en = _text(_find(rep, "nccl_env_not_taking_effect"))
    assert "runtime_env" in en and "disable_custom_all_reduce" in en
    assert not any(f.id == "nccl_error" for f in rep.findings)


def test_misspelled_nccl_variables_are_named_with_their_correct_spelling() -> None:
    q = "I set NCCL_P2P_DISABLED=1 and NCCL-IB_DISABLE=1 but it had no effect, training still hangs on two 3090s."
    en = _text(_find(diagnose_text(q), "nccl_env_not_taking_effect"))
    assert "NCCL_P2P_DISABLED" in en and "NCCL_P2P_DISABLE," in en.replace(" NCCL_IB_DISABLE", ",")


def test_correct_nccl_variable_names_are_not_called_typos() -> None:
    q = "I set NCCL_P2P_DISABLE=1 and NCCL_IB_DISABLE=1 but it had no effect, training still hangs with ray workers."
    en = _text(_find(diagnose_text(q), "nccl_env_not_taking_effect"))
    assert "misspelled" not in en.split("\n")[0]


def test_ascend_slow_mindspore_gets_graph_mode_and_torch_npu_gets_fused_attention() -> None:
    ms = "在 Ascend 910B 上用 MindSpore 推理 qwen-7b 只有 2 tokens/s，npu-smi 看 AICore 才 10%，是不是卡不行？"
    zh = _text(_find(diagnose_text(ms), "npu_inference_slow_software_stack"), "zh")
    assert "GRAPH_MODE" in zh and "npu_fusion_attention" not in zh
    pt = "昇腾 910B 用 torch_npu 跑 diffusers 的视频模型，速度只有 A100 的 1/5，profiling 显示注意力最耗时"
    zh = _text(_find(diagnose_text(pt), "npu_inference_slow_software_stack"), "zh")
    assert "npu_fusion_attention" in zh and "GRAPH_MODE" not in zh


def test_ascend_slow_moe_across_two_machines_gets_expert_parallel() -> None:
    q = "Two machines of 8 x Ascend 910B, vllm-ascend serving a DeepSeek MoE gives 2 tokens/s, far slower than expected."
    en = _text(_find(diagnose_text(q), "npu_inference_slow_software_stack"))
    assert "--enable-expert-parallel" in en and "upgrade" in en


def test_slow_on_an_nvidia_card_is_not_the_ascend_rule() -> None:
    rep = diagnose_text("vllm on an A100 gives only 5 tokens/s for a 7B model, why so slow?")
    assert not any(f.id == "npu_inference_slow_software_stack" for f in rep.findings)


def test_process_column_below_card_total_is_context_accounting_info() -> None:
    q = "nvidia-smi 里我的进程占 1200MiB，整卡已用 1650MiB，卡上只有这一个进程，多出来的 450MiB 是被谁用了？"
    f = _find(diagnose_text(q), "smi_process_memory_below_card_used")
    assert f.severity == "info"
    zh = _text(f, "zh")
    assert "CUDA 上下文" in zh and "口径" in zh


# ------------------------------------------------------------------ LMDeploy: a request limit is not a memory knob


def test_lmdeploy_max_concurrent_requests_is_said_not_to_change_memory() -> None:
    from assistant.advisor import ask

    q = (
        "lmdeploy serve api_server 部署 Qwen2-7B，单张 A10 24G，--cache-max-entry-count 0.9 --max-concurrent-requests 8，"
        "启动后显存就占了 21000MiB，把 max-concurrent-requests 调小也没变化，为什么？"
    )
    a = ask(q, backend="offline")
    assert "engine_reservation" in [c.name for c in a.tool_calls]
    assert "max-concurrent-requests 只限制同时处理的请求数" in a.answer and "不影响显存" in a.answer
    # 0.9 × (24 − 15.2) GB free after the bf16 weights = 7.9 GB of KV pool (lmdeploy docs: fraction of free memory)
    assert "15.2 + 7.9" in a.answer


def test_a_request_limit_not_named_gets_no_request_limit_line() -> None:
    from assistant.advisor import ask

    q = "lmdeploy 部署 Qwen2-7B，单张 A10 24G，--cache-max-entry-count 0.9，启动后显存就占了 21000MiB，为什么？"
    assert "不影响显存" not in ask(q, backend="offline").answer


# ------------------------------------------------------------------ memory linear in a count: not a leak


def test_memory_linear_in_worker_count_is_per_copy_cost_not_a_leak() -> None:
    # points (1, 6.0), (3, 9.0), (5, 12.0) GB lie on 6.0 + 1.5 × (n − 1): slope 1.5 GB, intercept 4.5 GB (by hand)
    q = "起服务时 1个worker 占 6.0G，3个worker 占 9.0G，5个worker 占 12.0G，是不是有内存泄漏？"
    f = _find(diagnose_text(q), "memory_linear_in_instances")
    assert f.severity == "info"
    assert "1.50 GB" in f.title.zh and "4.5 GB" in f.title.zh and "不是泄漏" in f.title.zh


def test_memory_points_that_are_not_a_line_say_nothing() -> None:
    # (1, 6), (3, 6.2), (5, 20): R² ≈ 0.79 < 0.95 → no straight-line claim
    q = "1个worker 占 6G，3个worker 占 6.2G，5个worker 占 20G，是不是有内存泄漏？"
    assert not any(f.id == "memory_linear_in_instances" for f in diagnose_text(q).findings)


# ------------------------------------------------------------------ routing: sizing the link between two machines


def test_bandwidth_between_two_machines_without_a_model_goes_to_the_interconnect_tool() -> None:
    from assistant.advisor import ask

    q = "My two machines are linked by a plain gigabit switch. How much network bandwidth do I need for data-parallel training?"
    a = ask(q, backend="offline")
    assert "interconnect_advice" in [c.name for c in a.tool_calls]
    assert "2 × the gradient bytes" in a.answer and "parameter count" in a.answer


def test_a_max_num_seqs_cap_is_answered_with_how_many_run_at_once() -> None:
    import re

    from assistant.advisor import ask

    # vLLM checks at start-up only that ONE max_model_len sequence fits the KV cache; --max-num-seqs caps scheduling.
    # Llama-3-70B KV: 80 layers × 8 KV heads × 128 × 2 (K,V) × 2 B = 320 KiB/token, 80 KiB per card at TP 4.
    # Per card: 81,920 MiB × 0.9 = 77.3 GB usable − 70.6e9 × 2 / 4 = 35.3 GB weights − ~3 GB runtime ≈ 39 GB of KV
    # → 39e9 / 81,920 B ≈ 476k tokens ≈ 58 full 8,192-token sequences at once (fewer than the 256 cap)
    q = "vllm serve Llama-3-70B --tensor-parallel-size 4 --max-model-len 8192 --max-num-seqs 256 在 4 张 A100 80G 上能放下吗？"
    a = ask(q, backend="offline")
    assert a.answer.startswith("能")
    m = re.search(r"同时约 \*\*(\d+) 条\*\*", a.answer)
    assert m and 45 <= int(m.group(1)) <= 65
