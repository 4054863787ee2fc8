"""CPU / hybrid questions read the user's own platform, RAM and quant (knowledge/cpus.yaml), with hand-worked values.

Bandwidth = channels × MT/s × 8 B (JEDEC 64-bit channel); Intel ARK / AMD product pages give the channels.
GGUF sizes: the sum of the split files on https://huggingface.co/unsloth/DeepSeek-R1-GGUF.
"""

from __future__ import annotations

import pytest

from tools.cpu_inference import CpuInferenceInput, cpu_inference, family_platforms, find_platform, find_quant


@pytest.mark.parametrize(
    ("text", "pid", "gbs"),
    [
        ("CPU志强8454H，内存512G", "xeon_gen4_sapphire", 8 * 4800 * 8 / 1000),  # ARK 8454H: 8 × DDR5-4800
        ("2个Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "xeon_gen3_icelake", 8 * 3200 * 8 / 1000),
        ("我的x99跑到3-5token/s", "xeon_e5_v4", 4 * 2400 * 8 / 1000),  # quad-channel DDR4-2400
        ("Z790-P的主板，一张4090", "desktop_ddr5", 2 * 5600 * 8 / 1000),
    ],
)
def test_platform_named_in_the_question(text: str, pid: str, gbs: float) -> None:
    p = find_platform(text)
    assert p is not None and p.id == pid
    assert p.theoretical_gbs == pytest.approx(gbs, rel=1e-3)


def test_family_without_generation_lists_genoa_then_milan() -> None:
    assert find_platform("EPYC 24核+4090+576 GB") is None
    ids = [p.id for p in family_platforms("EPYC 24核+4090+576 GB")]
    assert ids == ["epyc_9004", "epyc_7003"]  # 12 × DDR5-4800 = 460.8 assumed, 8 × DDR4-3200 = 204.8 beside it


@pytest.mark.parametrize(
    ("text", "qid"),
    [("671b Q8模型", "q8_0"), ("Q4双CPU插槽", "q4_k_m"), ("R1 Q2跑起来", "ud_q2_k_xl"), ("iq1_s版本", "ud_iq1_s")],
)
def test_quant_next_to_chinese(text: str, qid: str) -> None:
    q = find_quant(text.lower())
    assert q is not None and q.id == qid


def test_q8_file_and_two_copies_for_dual_socket_ktransformers() -> None:
    out = cpu_inference(
        CpuInferenceInput(model="DeepSeek-R1", quant="q8_0", cpu="epyc_9004", sockets=2, engine="KTransformers")
    )
    assert out.file_gb == pytest.approx(671.026e9 * 8.5008 / 8 / 1e9, rel=0.01)  # ≈ 713 GB
    assert out.ram_copies == 2 and out.ram_needed_gb == pytest.approx(2 * 713, rel=0.02)


def test_numactl_membind_sees_half_the_ram() -> None:
    out = cpu_inference(
        CpuInferenceInput(
            model="DeepSeek-R1",
            quant="q4_k_m",
            cpu="xeon_gen3_icelake",
            sockets=2,
            host_ram_gb=512,
            gpu="L40S",
            engine="KTransformers",
            membind_one_node=True,
        )
    )
    # 9 files: 48.3 + 49.4 + 49.5 + 48.3 + 49.4 + 48.3 + 49.4 + 46.9 + 14.8 = 404.3 GB
    assert out.file_gb == pytest.approx(404.3, abs=0.05) and out.file_published
    assert out.ram_available_gb == pytest.approx(256)
    assert out.sockets == 1 and out.ram_fits is False


def test_ram_short_pages_from_disk() -> None:
    out = cpu_inference(
        CpuInferenceInput(
            model="DeepSeek-R1", quant="q4_k_m", cpu="epyc_7003", host_ram_gb=256, measured_tokens_per_s=0.5
        )
    )
    assert out.ram_fits is False
    assert out.disk_tokens_per_s is not None
    # ~40% of ~22 GB per token from an SSD at ≤ 7.45 GB/s: about a token per second at best, far below RAM speed
    assert out.disk_tokens_per_s.high < 2.0 < out.tokens_per_s.low


def test_largest_quant_for_4090_and_192g() -> None:
    out = cpu_inference(CpuInferenceInput(model="DeepSeek-R1", cpu="desktop_ddr5", gpu="4090", host_ram_gb=192))
    # room = 192 + (24 - 2) = 214 GB: UD-Q2_K_XL 226.6 GB does not fit, UD-IQ2_XXS 196.2 GB (+8 GB for the OS) does
    fit = next(r for r in out.quant_fits if r["fits"])
    assert fit["quant"] == "ud_iq2_xxs" and fit["size_gb"] == pytest.approx(196.2)


def _ask(q: str) -> str:
    from assistant.advisor import ask

    return ask(q, backend="offline").answer


def test_run_r1_on_one_24g_card_is_the_offload_answer() -> None:
    a = _ask("How can I run deepseek r1 on a single 3090?")
    assert "offload" in a and "llama.cpp" in a and "Distill" in a and "404.3" in a


def test_training_on_cpu_is_orders_of_magnitude_slower() -> None:
    zh = _ask("显卡显存不够，能不能用cpu来微调qwen 7b啊")
    # 4·N·D = 4 × 7e9 × 1e8 = 2.8e18 FLOP: ~16–32 days at 1–2 TFLOPS vs ~6.2 h on an A100 (40% of 312 TFLOPS)
    assert zh.startswith("用 CPU 训练") and "上百倍" in zh and "QLoRA" in zh
    en = _ask("can I finetune a 7b model on the CPU instead, my gpu only has 6GB")
    assert en.startswith("Training or fine-tuning a large model on a CPU") and "hundreds of times" in en


def test_dual_socket_q8_needs_two_copies_in_the_answer() -> None:
    a = _ask("两路至强6338，1T内存，用ktransformers跑r1 Q8 内存够吗，速度多少")
    assert "各放一份" in a and "713" in a


def test_short_ram_running_explains_mmap() -> None:
    a = _ask("128G内存跑deepseek-r1 q4_k_m居然没报错，但只有0.3 tokens/s，内存占用也不高，为啥")
    assert "mmap" in a and ("硬盘" in a or "SSD" in a)


def test_largest_quant_for_a_card_and_ram_leads() -> None:
    a = _ask("一张3090加128G内存，用ktransformers最大能跑deepseek哪个量化版本")
    # room = 128 + (24 - 2) = 150 GB: UD-IQ1_S 140.2 GB (+8 GB OS) fits, UD-IQ1_M 169.7 GB does not
    first = a.splitlines()[0]
    assert "UD-IQ1_S" in first and "140.2" in first


def test_dual_socket_question_without_model_is_in_scope() -> None:
    a = _ask("双路服务器，1T内存，Q8大概速度多少，是不是只能用单路")
    assert "超出了我的范围" not in a and "各放一份" in a and "1.4" in a


def test_amd_vs_intel_is_bandwidth_and_amx_prefill() -> None:
    a = _ask("听说ktransformers要intel的cpu才快，我用amd epyc 9654 + 4090 跑 deepseek-r1 q4 能有多快？")
    # EPYC 9654 = Genoa, 12 × DDR5-4800 = 460.8 GB/s per socket
    assert "460.8" in a and "AMX" in a and "预填充" in a


def test_two_numa_nodes_seven_dimms_and_numa_copies() -> None:
    # after kvcache-ai/ktransformers#219: Skylake-SP (6 × DDR4 per socket), 7 DIMMs over 2 sockets = 3 channels each,
    # 3 × 2400 × 8 / 1000 = 57.6 GB/s; USE_NUMA=1 keeps two copies (2 × ~389 GB) in 448 GB: RAM short
    a = _ask(
        "ktransformers 开了 USE_NUMA=1，Xeon Platinum P-8136 两个 numa 节点，内存 DDR4-2400 64GB x 7 共448GB，"
        "4090，R1 Q4_K_M 只有 0.6 token/s 正常吗"
    )
    lead = a.splitlines()[0]
    assert "各放一份" in lead and "448" in lead and "单路模式" in lead
    assert "57.6" in a and "3 个通道" in a


def test_unquantized_r1_is_fp8_and_tight_in_640g() -> None:
    out = cpu_inference(
        CpuInferenceInput(
            model="DeepSeek-R1", quant=find_quant("非量化版本").id, cpu="epyc_9004", gpu="L40", host_ram_gb=640
        )
    )
    # FP8: 671e9 × 1 B = 671 GB; L40 48 GB − 2 GB reserve holds the dense part and a few experts; ~625 GB in RAM
    assert out.quant == "fp8" and out.file_gb == pytest.approx(671, rel=0.01)
    assert 600 < out.ram_needed_gb < 640
