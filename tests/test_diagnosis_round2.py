"""Round-2 classes: Kubernetes GPU pastes, Paddle/TensorFlow allocation errors, launcher failures,
NCCL_P2P_LEVEL/NVLS, told-not-pasted expected behaviour, 显存爆了 ≠ 掉卡, and the new declines.

Phrasings are ours (casual Chinese, typos); log lines follow the formats printed by the named
programs; byte counts are worked by hand in each case (GB = 10^9 B, Paddle's MB = 2^20 B).
Verbatim public pastes live in tests/diagnosis_samples/ (k8s_*, tf_oom_*, launcher_*, prose_*).
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.intents import analyse
from assistant.offline.intents.decline import cue_of
from assistant.offline.reading.logs import paste_kinds
from tools.diagnosis.parsers.narrative import parse as parse_narrative
from tools.diagnosis.tool import diagnose_text


def _ids(text: str) -> list[str]:
    return [f.id for f in diagnose_text(text).findings]


def _titles(text: str) -> str:
    return " ".join(f.title.en + " " + f.title.zh for f in diagnose_text(text).findings)


# ---------------------------------------------------------------- Kubernetes ------------------
def test_allocatable_below_capacity_is_unhealthy_gpus_not_a_dropped_card() -> None:
    # `kubectl describe node` shape; 8 found, 6 healthy
    text = "Capacity:\n  cpu:             96\n  nvidia.com/gpu:  8\nAllocatable:\n  cpu:             96\n  nvidia.com/gpu:  6\n"
    r = diagnose_text(text)
    assert [f.id for f in r.findings] == ["k8s_gpu_unhealthy"]
    assert "6/8" in r.findings[0].title.en
    assert r.severity == "warning"


def test_node_without_gpu_resource_points_at_plugin_and_runtime() -> None:
    text = "我的节点上 nvidia-smi 正常，但是\nCapacity:\n  cpu:     32\n  pods:    110\nAllocatable:\n  cpu:     32\n  pods:    110\n"
    r = diagnose_text(text)
    assert "k8s_gpu_not_registered" in [f.id for f in r.findings]
    action = r.findings[0].actions[0].en
    assert "nvidia-ctk runtime configure" in action and "RuntimeClass" in action


def test_tegra_discovery_on_a_multi_gpu_node() -> None:
    text = 'node has 8 gpus but\nCapacity:\n  nvidia.com/gpu: 1\n  "deviceDiscoveryStrategy": "tegra",\n'
    assert "k8s_discovery_strategy_tegra" in _ids(text)


def test_cpu_only_capacity_without_nvidia_words_is_not_read() -> None:
    assert "kubernetes" not in diagnose_text("Capacity:\n  cpu:   4\n  pods:  110\n").kinds


# ---------------------------------------------------------------- framework OOM ---------------
def test_paddle_byte_counts_are_read_as_gb() -> None:
    # 5 × 2^30 = 5,368,709,120 B = 5.4 GB asked; 2^30 = 1,073,741,824 B = 1.07 GB free
    text = "Expected allocating <= available, but received allocating:5368709120 > available:1073741824.\n"
    t = _titles(text)
    assert "5.4 GB" in t and "1.1 GB" in t


def test_paddle_fraction_flag_is_explained() -> None:
    # 7372.8 MB (Paddle prints size / 2^20) × 1,048,576 = 7,730,941,133 B ≈ 7.7 GB
    text = (
        "W0101 10:00:00.000000   123 system_allocator.cc:125] Cannot malloc 7372.8 MB GPU memory. Please shrink "
        "FLAGS_fraction_of_gpu_memory_to_use or FLAGS_initial_gpu_memory_in_mb environment variable to a lower value. "
        "Current FLAGS_fraction_of_gpu_memory_to_use value is 0.45.\n"
    )
    r = diagnose_text(text)
    f = r.findings[0]
    assert f.id == "framework_oom" and "7.7 GB" in f.title.en
    assert "0.45" in f.causes[0].en and "FLAGS_fraction_of_gpu_memory_to_use" in f.actions[0].en


def test_tensorflow_tensor_shape_is_sized() -> None:
    # shape from IndicoDataSolutions/finetune#339: 16×12×512×512 float32 = 201,326,592 B = 0.20 GB on GPU 2
    text = "ResourceExhaustedError: OOM when allocating tensor with shape[16,12,512,512] and type float on /job:localhost/replica:0/task:0/device:GPU:2 by allocator GPU_2_bfc\n"
    r = diagnose_text(text)
    assert "0.20 GB" in r.findings[0].title.en and r.findings[0].gpu_index == 2


# ---------------------------------------------------------------- launcher / NCCL -------------
def test_torchrun_not_found_under_sudo_names_secure_path() -> None:
    text = "sudo torchrun --nproc_per_node 8 train.py\n/bin/sh: 1: torchrun: not found\n"
    f = diagnose_text(text).findings[0]
    assert f.id == "launcher_not_found" and "secure_path" in f.causes[0].en and "sudo env PATH=$PATH" in f.actions[0].en


def test_command_not_found_without_sudo_does_not_blame_sudo() -> None:
    f = diagnose_text("(base) $ deepspeed train.py\nbash: deepspeed: command not found\n").findings[0]
    assert f.id == "launcher_not_found" and "sudo was used" not in f.causes[0].en


def test_p2p_level_loc_warns_and_zero_nvls_on_a100_is_info() -> None:
    text = (
        "node1:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC\n"
        "node1:1:1 [0] NCCL INFO 16 coll channels, 0 nvls channels, 16 p2p channels, 16 p2p channels per peer\n"
        "GPU 0: NVIDIA A100-SXM4-40GB\n"
    )
    r = diagnose_text(text)
    by_id = {f.id: f for f in r.findings}
    assert by_id["nccl_p2p_level_loc"].severity == "warning"
    assert by_id["nccl_nvls_zero"].severity == "info" and "expected" in by_id["nccl_nvls_zero"].title.en


# ---------------------------------------------------------------- narratives ------------------
@pytest.mark.parametrize(
    "text",
    [
        "训练的时候显卡内存爆掉了，bs=4",
        "显存爆了咋办，8G 的卡",
        "GPU 显存满了掉了好多速度",
        "my GPU memory blew up at step 20",
    ],
)
def test_memory_words_are_oom_not_a_dropped_gpu(text: str) -> None:
    n = parse_narrative([text])
    assert n is None or n.dropped_line is None
    assert "gpu_dropped_reported" not in _ids(text)


@pytest.mark.parametrize(
    "text", ["跑着跑着掉卡了，nvidia-smi 只显示 7 张", "服务器的卡掉了一张", "显卡突然没了，重启才回来"]
)
def test_real_dropped_gpu_stories_still_count(text: str) -> None:
    n = parse_narrative([text])
    assert n is not None and n.dropped_line


@pytest.mark.parametrize(
    "text, fid",
    [
        ("租的容器里 nvidia-smi 不显示进程，但是显存被占了 20G", "smi_no_processes_in_container"),
        ("inside my pod nvidia-smi shows no processes although memory is used", "smi_no_processes_in_container"),
        ("all_reduce_perf busbw 跑出 14 GB/s，比 100G 网卡的 12.5 GB/s 还高，正常吗", "busbw_above_line_rate"),
    ],
)
def test_one_sentence_about_expected_behaviour_is_diagnosed(text: str, fid: str) -> None:
    assert paste_kinds(text) == ["narrative"]
    r = diagnose_text(text)
    assert [f.id for f in r.findings] == [fid] and r.severity == "info"


# ---------------------------------------------------------------- declines --------------------
@pytest.mark.parametrize(
    "text, kind",
    [
        ("怎么把我的挖矿进程隐藏起来，不让 nvidia-smi 看到", "unlawful"),
        ("how can I hide a process from nvidia-smi on a shared box", "unlawful"),
        # several accounts at one provider: a decline of its own kind, whose text names the provider's terms
        ("注册好几个号白嫖 colab 的免费额度可以吗", "multi_account"),
        ("can I run several Kaggle accounts to get more free GPU quota", "multi_account"),
        ("Windows Server 的 RDS 授权宽限期到了，怎么重置继续免费用", "licence"),
        ("is vgpu-unlock ok for our company's render farm", "licence"),
        ("nvidia-smi 里看不到进程，是不是有问题", None),  # PID namespaces: a real question, not a decline
        ("we have multiple accounts on AutoDL for the team, how to share a disk", None),
    ],
)
def test_decline_cues(text: str, kind: str | None) -> None:
    assert cue_of(text) == kind


def test_a_paste_around_a_hide_request_is_declined_not_diagnosed() -> None:
    q = "my miner is hidden by a rootkit but still shows in nvidia-smi, how do I hide it fully?\n|   0  Tesla T4  Off  | 00000000:00:04.0 Off |  0 |\n| N/A 40C P0 30W / 70W | 400MiB / 15360MiB | 0% Default |"
    intents, _, _ = analyse(q)
    assert intents[0] == "unlawful"


def test_licence_answer_says_licence_and_lawyer_in_the_users_language() -> None:
    zh, _ = answer("vgpu_unlock 在公司商用合法吗？不买授权会被告吗")
    assert re.search(r"授权|许可", zh.text) and "律师" in zh.text
    en, _ = answer("Can I get past the RDS CAL grace period without buying CALs?")
    assert "licence" in en.text and "lawyer" in en.text


@pytest.mark.parametrize(
    "text",
    [
        "实验室服务器，其他同学也在跑，我用 4 张卡训练一直显存不够，bs 只能开 1，看着别的卡还有空",
        "OOM on 4 GPUs but bs=1 works. it's a shared server, other users are using some cards",
    ],
)
def test_oom_on_a_shared_server_points_at_the_fullest_card(text: str) -> None:
    r = diagnose_text(text)
    assert [f.id for f in r.findings] == ["oom_shared_cards"]
    assert "nvidia-smi" in r.findings[0].actions[0].en


def test_oom_without_sharing_words_is_not_the_shared_case() -> None:
    assert "oom_shared_cards" not in _ids("显存不够，bs 只能开 1，换了 4 张卡也一样，怎么回事啊")


def test_no_cuda_capable_device_points_at_visible_devices_and_gpus_flag() -> None:
    text = "$ CUDA_VISIBLE_DEVICES=4,5 python train.py\nRuntimeError: CUDA error: no CUDA-capable device is detected\n"
    f = {x.id: x for x in diagnose_text(text).findings}["cuda_no_device"]
    assert "CUDA_VISIBLE_DEVICES" in f.actions[0].en and "--gpus all" in f.actions[0].en


@pytest.mark.parametrize(
    "line, gib, gb",
    [
        # VRT#49: 116,813,856,768 B / 2^30 = 108.8 GiB = 116.8 GB
        (
            "DefaultCPUAllocator: can't allocate memory: you tried to allocate 116813856768 bytes. Error code 12",
            "108.8 GiB",
            "116.8 GB",
        ),
        # MKLpy#27 (Windows wording): 5,077,901,088 B / 2^30 = 4.7 GiB = 5.1 GB
        ("DefaultCPUAllocator: not enough memory: you tried to allocate 5077901088 bytes.", "4.7 GiB", "5.1 GB"),
        # a memory-mapped checkpoint: 33,484,977,464 B = 31.2 GiB = 33.5 GB
        ("RuntimeError: unable to mmap 33484977464 bytes from file <model.safetensors>", "31.2 GiB", "33.5 GB"),
    ],
)
def test_host_ram_failures_are_not_gpu_oom(line: str, gib: str, gb: str) -> None:
    r = diagnose_text(line)
    assert [f.id for f in r.findings] == ["host_ram_alloc_failed"]
    assert gib in r.findings[0].title.en and gb in r.findings[0].title.en


def test_expect_count_reads_the_k8s_capacity_when_there_is_no_nvidia_smi() -> None:
    # rented 8 cards, the device plugin found 4: the delivery check fails on count
    r = diagnose_text("Capacity:\n  cpu:  64\n  nvidia.com/gpu:  4\n", "8x A100-SXM4-80GB")
    row = next(a for a in r.acceptance or [] if a.check == "count")
    assert (row.observed, row.status) == ("4", "fail")


@pytest.mark.parametrize(
    "text",
    [
        "all_reduce_perf busbw is only 20 GB/s on IB, I expected more than 40",
        "nccl-tests busbw 很低，网卡是 200G 的，应该更高才对",
    ],
)
def test_a_low_busbw_complaint_is_not_the_above_line_rate_case(text: str) -> None:
    n = parse_narrative([text])
    assert n is None or n.busbw_above_line is None
