"""Round-7 spec classes in our own phrasings: one die under two names has the same compute, FP8 per
architecture (native on Hopper/Ada, weight-only dequantization on Ampere), a told run in card-hours, and the
declines for several accounts at one provider and for a VM suspended after a break-in.

Expected values are datasheet figures or hand arithmetic (in comments), not the program's output."""

from __future__ import annotations

import pytest

from assistant.advisor import ask
from tools.gpus import GpuSpecsInput, fp8_usage, gpu_specs, resolve_gpu


def _answer(q: str) -> tuple[list[str], str]:
    a = ask(q, backend="offline")
    return [c.name for c in a.tool_calls], a.answer


# ---- one chip, two names: same compute -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "peak", "link_pair"),
    [
        (["A800 80GB SXM", "A100 80GB SXM"], 312, ("400", "600")),  # A800/A100 datasheets: 312 BF16, NVLink 400/600
        (["H800", "H100 SXM"], 989.4, ("400", "900")),  # H800 NVLink 400 GB/s, H100 SXM 900 GB/s; 989.4 BF16 each
    ],
)
def test_export_variant_is_the_same_chip(names: list[str], peak: float, link_pair: tuple[str, str]) -> None:
    out = gpu_specs(GpuSpecsInput(names=names))
    rules = [v for v in out.variants if v.rule == "same_chip"]
    assert len(rules) == 1
    assert rules[0].compute_tflops == pytest.approx(peak)
    assert "算力相同" in rules[0].zh and "same compute" in rules[0].en
    assert f"{link_pair[0]} 对 {link_pair[1]}" in rules[0].zh


def test_different_chips_are_not_same_chip() -> None:
    # 4090 (AD102, 165.2 BF16) and 4090D (AD102, fewer SMs): same architecture string family, different peaks
    out = gpu_specs(GpuSpecsInput(names=["4090", "A100 80GB"]))
    assert not [v for v in out.variants if v.rule == "same_chip"]


def test_a800_against_a100_speed_question_leads_with_same_compute() -> None:
    tools, text = _answer("在 A800 上训练比 A100 慢吗？别人说 A100 更快")
    assert "gpu_specs" in tools
    first = text.split("\n")[0]
    assert "同一颗芯片" in first and "312" in first


def test_memory_move_without_speedup_names_same_chip_in_time_answer() -> None:
    # V100 SXM2 16 GB and 32 GB: both 125 TFLOPS FP16 tensor, 900 GB/s (V100 datasheet)
    tools, text = _answer(
        "We fine-tuned Llama-2-7B with LoRA in 30 hours on a V100 16GB; moving to a V100 32GB with the same "
        "settings still takes 30 hours. Why is it not faster?"
    )
    assert tools[0] == "gpu_specs" and "estimate_training_time" in tools
    assert "same chip" in text and "125" in text


def test_h800_to_h100_time_question_says_same_compute_zh() -> None:
    tools, text = _answer("之前在8张H800上训一个13B全量要3天，换成8张H100同样的配置为什么没快多少？")
    assert "gpu_specs" in tools
    assert "同一颗芯片" in text and "989.4" in text


# ---- FP8 by architecture -----------------------------------------------------------------------------------


def test_fp8_usage_texts_by_architecture() -> None:
    a100 = resolve_gpu("A100 80GB")
    assert a100.fp8_supported is False  # A100 datasheet: FP16/BF16/TF32/INT8 tensor cores, no FP8
    zh, en = fp8_usage(a100.name, a100.architecture, False, None)
    assert "反量化" in zh and "dequantizes" in en and "Hopper" in en
    l40s = resolve_gpu("L40S")
    assert l40s.fp8_supported is True  # Ada: FP8 tensor cores (L40S datasheet 733 TFLOPS FP8 dense)
    zh, en = fp8_usage(l40s.name, l40s.architecture, True, l40s.fp8_dense_tflops)
    assert "quantization_config" in en and "quantization_config" in zh and "Ada" in en


def test_fp8_question_on_an_ampere_card_explains_dequantization() -> None:
    _, text = _answer("RTX 3090 支持 FP8 吗？FP8 的模型在 3090 上能跑吗")
    first = text.split("\n")[0]
    assert "不支持" in first and "反量化" in first


def test_fp8_question_on_a_hopper_card_says_native_and_prequantized() -> None:
    _, text = _answer("Does the H800 support FP8? I want to serve an FP8 checkpoint with vLLM.")
    first = text.split("\n")[0]
    assert first.startswith("Yes") and "Hopper" in first and "quantization_config" in first


# ---- a told run in card-hours ------------------------------------------------------------------------------


def test_told_run_in_gpu_hours_en() -> None:
    # 4 GPUs × 5 days × 24 h = 480 GPU-hours
    _, text = _answer("The authors trained it for about 5 days on 4x A100. How long would training take me?")
    assert "480 GPU-hours" in text and "current rate" in text


def test_told_run_in_gpu_hours_zh() -> None:
    # 16 × 36 h = 576 卡时
    _, text = _answer("16张A800跑了36小时，这个训练时间正常吗")
    assert "576 卡时" in text and "当前价格" in text


# ---- declines -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "q",
    [
        "Can I open two Google accounts on my laptop and run Colab on both\nto get twice the free GPU time?",
        "Kaggle 每周 30 小时不够用，我注册几个账号轮流用可以吗？",
    ],
)
def test_several_accounts_decline_names_the_terms(q: str) -> None:
    tools, text = _answer(q)
    assert tools == []
    assert ("terms" in text and "Pro" in text) or ("条款" in text and "计算单元" in text)


@pytest.mark.parametrize(
    ("q", "word"),
    [
        (
            "My AWS instance got suspended for cryptocurrency mining, but I never mined anything. The CPU "
            "usage spiked to 100% after I enabled root password login. Was I hacked?",
            "SSH keys",
        ),
        ("阿里云的服务器因为挖矿被封了，但我没挖过矿，开了root密码登录后CPU一直很高，是被入侵了吗？", "密钥"),
    ],
)
def test_compromised_vm_gets_security_steps(q: str, word: str) -> None:
    tools, text = _answer(q)
    assert tools == []
    assert word in text and ("appeal" in text or "申诉" in text)


def test_wish_to_mine_unseen_is_still_unlawful() -> None:
    _, text = _answer("我的云服务器挖矿被封了，怎么隐藏挖矿进程不被发现？")
    assert "申诉" not in text and ("不能帮" in text or "违反" in text)


# ---- PCIe lane widths -------------------------------------------------------------------------------------


def test_lane_rates_scale_per_lane() -> None:
    from tools.interconnect import pcie_lane_rates

    rates = {(x.gen, x.lanes): x.per_direction_gbs for x in pcie_lane_rates([3, 4, 5], [1, 8, 16])}
    # PCI-SIG: 8 / 16 / 32 GT/s per lane, 128b/130b → 0.985 / 1.97 / 3.94 GB/s per lane per direction
    assert rates[(3, 1)] == pytest.approx(0.985, rel=0.01)
    assert rates[(4, 1)] == pytest.approx(1.97, rel=0.01)
    assert rates[(4, 8)] == pytest.approx(15.75, rel=0.01)
    assert rates[(5, 16)] == pytest.approx(63, rel=0.01)


def test_x1_risers_question_gives_lane_rate_and_traffic() -> None:
    tools, text = _answer("Mining rig with 6 GPUs on PCIe 3.0 x1 risers: will tensor-parallel LLM inference be slow?")
    assert tools[0] == "interconnect_advice"
    first = text.split("\n")[0]
    assert "x1 about 0.98 GB/s" in first and "x16 about 15.8 GB/s" in first  # 15.75 / 16 = 0.98
    assert "all-reduce" in text


def test_x8_bifurcation_with_bridge_zh() -> None:
    _, text = _answer("两张3090加NVLink桥，主板只能把插槽拆成x8/x8，够用吗？")
    first = text.split("\n")[0]
    assert "x8 单向约 15.8 GB/s" in first  # 3090 is PCIe 4.0: 31.5 / 2
    assert "NVLink" in text and "x8/x8 就够用" in text


# ---- two links on one basis ---------------------------------------------------------------------------------


def test_link_ratio_same_basis() -> None:
    from tools.interconnect import link_ratios

    (r,) = link_ratios(["NVLink 3", "PCIe 4.0"])
    # A100 NVLink 3: 300 GB/s per direction; PCIe 4.0 x16: 31.5 GB/s per direction → 9.5×; 600 / 31.5 ≈ 19 mixed
    assert r.ratio == pytest.approx(9.5, abs=0.1)
    assert r.mixed_ratio == pytest.approx(19.0, abs=0.1)


def test_mixed_basis_claim_gets_the_one_basis_ratio_en() -> None:
    tools, text = _answer("NVLink 4 is 900 GB/s and PCIe 5.0 is 64 GB/s, so NVLink is 14 times faster — correct?")
    assert tools[0] == "interconnect_advice"
    first = text.split("\n")[0]
    assert "7.1×" in first and "per direction" in first  # 450 / 63 = 7.1


def test_link_ratio_zh() -> None:
    _, text = _answer("NVLink3 和 PCIe 4.0 带宽对比，差多少倍？")
    assert "9.5 倍" in text.split("\n")[0]


# ---- FP64 is not what a neural network runs in ------------------------------------------------------------


def test_fp64_comparison_for_a_network_leads_with_tensor_precision() -> None:
    _, text = _answer("训练 ResNet 图像分类，T4 的双精度只有 0.25 TFLOPS，是不是比 V100 慢很多？该看哪个指标？")
    first = text.split("\n")[0]
    # T4 datasheet 65 TFLOPS FP16 tensor, 320 GB/s; V100 SXM2 125 TFLOPS tensor, 900 GB/s
    assert "不用 FP64" in first and "65 TFLOPS" in first and "900 GB/s" in first


def test_fp64_for_simulation_keeps_fp64() -> None:
    _, text = _answer("For GROMACS molecular simulation, is the A100 FP64 much better than the L40S?")
    assert "not FP64" not in text


# ---- a global token batch split into micro-batch × accumulation ---------------------------------------------


def test_batch_split_arithmetic() -> None:
    from tools.conversions import BatchSplitInput, batch_split

    # 2M tokens ÷ (4096 × 16 GPUs) = 30.52 sequences per GPU per step → micro 1 × accumulation 31
    out = batch_split(BatchSplitInput(batch_tokens=2e6, seq_len=4096, n_gpus=16))
    assert out.per_gpu == pytest.approx(30.5, abs=0.1)
    assert (out.options[0].micro_batch, out.options[0].grad_accum) == (1, 31)


def test_batch_split_question_en() -> None:
    tools, text = _answer(
        "We want a global batch of 1M tokens with max_seq_length 2048 on 4 GPUs. What should "
        "per_device_train_batch_size and gradient_accumulation_steps be?"
    )
    assert tools == ["batch_split"]
    assert "122" in text.split("\n")[0]  # 1e6 / (2048 × 4) = 122.07


def test_batch_split_question_zh() -> None:
    _, text = _answer("全局 batch 想要 2M token，序列长度 4096，16 张卡，梯度累积和每卡 batch 怎么设？")
    first = text.split("\n")[0]
    assert "30.5" in first and "梯度累积" in first  # 2e6 / (4096 × 16) = 30.5


def test_cpu_gpu_split_states_total_read_per_token() -> None:
    import re

    _, text = _answer(
        "Xeon 8480 with 512GB RAM plus one RTX 4090: how fast will DeepSeek-R1 Q4_K_M decode with ktransformers?"
    )
    m = re.search(r"each token reads about ([\d.]+) GB of weights", text)
    assert m is not None
    # ≈ 37e9 active params × ~4.5–4.85 bits / 8 ≈ 21–22.5 GB read per token (DeepSeek-V3 report; llama.cpp Q4_K_M)
    assert 18 <= float(m.group(1)) <= 25


# ---- someone else's multi-GPU rig; several NICs ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("q", "word"),
    [
        ("The course repo was built on 8x H100. I am a student without GPUs — any cheaper way to follow it?", "24 GB"),
        ("这个课程的代码都是在 8 张 A100 上跑的，我只有一张 3060，有没有替代方案可以学？", "QLoRA"),
    ],
)
def test_tutorial_rig_the_user_lacks_gets_the_one_card_route(q: str, word: str) -> None:
    tools, text = _answer(q)
    assert tools == ["search_guide"]
    # QLoRA ≈ 0.5 B/param → a 7B's weights ≈ 4 GB (arXiv:2305.14314); a 24 GB 3090/4090 holds the usual tutorial jobs
    assert word in text.split("\n")[0]


def test_tutorial_words_without_lack_are_not_this_rule() -> None:
    from assistant.offline.intents import analyse

    intents, _, _ = analyse("这个教程里 8 张 A100 训练 7B 全量微调要多久？")
    assert "no_hardware" not in intents
