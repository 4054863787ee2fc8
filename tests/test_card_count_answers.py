""" "How many cards / what configuration" answers (issue 12): every card asked gets its count, the capacity floor
beside the search's count, quantised counts when the user's cards are short, a TP × PP layout for multi-node
training, node questions, training days with a stated default count, memory variants of one chip.

Phrasings are our own (casual Chinese, English, typos). Expected values are hand arithmetic from the public figures
named beside each test, never pasted tool output.
"""

from __future__ import annotations

import math
import re

import pytest

from assistant.offline import answer
from assistant.offline.intents import analyse
from assistant.offline.types import ToolResult
from tools.gpus import GpuSpecsInput, all_gpus, gpu_specs, variant_findings
from tools.memory import FindMinGpusInput, find_min_gpus
from tools.memory_parallel import training_layout
from tools.models import resolve_model

# Reported memory (nvidia-smi MiB × 2^20 / 1e9) × vLLM's default gpu_memory_utilization 0.9
# (https://docs.vllm.ai/en/latest/serving/engine_args.html): what tensor-parallel serving fits into.
H100_USABLE = 81_559 * 2**20 / 1e9 * 0.9  # H100 SXM 80GB shows 81,559 MiB → 77.0 GB usable
RTX4090_USABLE = 24_564 * 2**20 / 1e9 * 0.9  # RTX 4090 shows 24,564 MiB → 23.2 GB usable
A100_80 = 81_920 * 2**20 / 1e9  # A100 80GB shows 81,920 MiB = 85.9 GB; training uses all of it


def _min_gpu_results(results: list[ToolResult], gpu_word: str, precision: str | None = None) -> list[ToolResult]:
    return [
        r
        for r in results
        if r.name == "find_min_gpus"
        and gpu_word in str(r.args.get("gpu"))
        and (precision is None or r.args.get("precision") == precision)
    ]


# ---------------------------------------------------------------- A: huge models, each card asked ----------------
def test_deepseek_v3_on_h100_and_4090_each_card_gets_its_count() -> None:
    # DeepSeek-V3: 671B parameters released in FP8 (https://huggingface.co/deepseek-ai/DeepSeek-V3): ≈ 671 GB of
    # weights (1 B/param for the linear layers, embeddings in 16 bits add ~2 GB). 671 / 77.0 = 8.7 → 9 H100 by
    # capacity; vLLM TP sizes are powers of two, so 16 = 2 × 8-GPU servers. On the 4090: 671 / 23.2 = 28.9 → ≥ 29.
    ans, results = answer("deepseek v3 满血版推理要几张h100？换成4090的话又要几张")
    h100 = _min_gpu_results(results, "H100", "fp8")
    r4090 = _min_gpu_results(results, "4090", "fp8")
    assert h100 and r4090, "both cards asked must get a count"
    assert h100[0].result["floor_gpus"] == math.ceil(671 / H100_USABLE) == 9
    assert h100[0].result["rent_gpus"] == 16
    assert 29 <= r4090[0].result["floor_gpus"] <= 31
    assert r4090[0].result["min_gpus"] >= 32
    text = ans.text
    assert "16 张 H100" in text and "≈ 9 张" in text
    assert "不可行" in text or "不推荐" in text  # 4+ servers of PCIe-only consumer cards: say so plainly


def test_english_two_card_question_says_impractical_over_pcie() -> None:
    ans, results = answer("how many 4090s vs how many H100s to run deepseek-v3 inference?")
    assert _min_gpu_results(results, "H100") and _min_gpu_results(results, "4090")
    assert "impractical" in ans.text and "PCIe" in ans.text


def test_glm_130b_on_four_4090s_gets_the_int4_count() -> None:
    # GLM-130B: 130B params. bf16 = 260 GB → 260 / 23.2 = 11.2 → 12 cards by capacity, far more than 4.
    # INT4 = 130e9 × 0.5 B = 65 GB (+ 16-bit embeddings) → 65 / 23.2 = 2.8 → 3–4 cards; the GLM-130B README
    # (https://github.com/THUDM/GLM-130B) lists INT4 inference on 4 × RTX 3090 24G.
    ans, results = answer("glm130b用4090要几张？我手上就四张4090，跑不动")
    bf16 = _min_gpu_results(results, "4090", None)[0]
    assert 11 <= bf16.result["floor_gpus"] <= 12
    int4 = _min_gpu_results(results, "4090", "int4")
    assert int4, "the user's 4 cards are short: the int4 count must follow"
    assert 3 <= int4[0].result["floor_gpus"] <= 4
    assert "int4" in ans.text


def test_a_card_that_fits_gets_no_quantised_detour() -> None:
    # Qwen2.5-7B bf16 ≈ 15.2 GB on one 80 GB card: one card, no int4/int8 follow-up
    _, results = answer("qwen2.5-7b推理要几张A100")
    assert all(r.args.get("precision") not in ("int4", "int8") for r in results if r.name == "find_min_gpus")


def test_llama2_70b_training_count_and_tp_pp_layout() -> None:
    # Llama-2-70B: 68.98e9 params, 80 layers, 64 heads / 8 KV heads (config.json,
    # https://huggingface.co/meta-llama/Llama-2-70b-hf). Mixed-precision AdamW states: 16 B/param (ZeRO paper,
    # arXiv:1910.02054) = 1,104 GB; with ZeRO-3's fp32 gradient partition 18 B = 1,242 GB. A bare "80 GB" card is
    # 80e9 bytes: 1,104 / 80 = 13.8 → 14, 1,242 / 80 = 15.5 → 16 cards by capacity; activations push it past 2 servers. Megatron layout: TP 8 in a server, PP across: the fewest
    # stages ≥ ceil(min / 8) that divide 80 layers.
    ans, results = answer("whats the min # of 80gb cards to full finetune llama-2-70b, and what tp/pp should i use")
    mg = [r for r in results if r.name == "find_min_gpus" and not r.error][0]
    assert 14 <= mg.result["floor_gpus"] <= 16
    assert 14 <= mg.result["min_gpus"] <= 32
    lay = mg.result["layout"]
    assert lay["tp"] == 8 and 80 % lay["pp"] == 0
    assert lay["pp"] >= math.ceil(mg.result["min_gpus"] / 8)
    assert 16 <= lay["tp"] * lay["pp"] <= 32
    assert "PP=" in ans.text and "InfiniBand" in ans.text


def test_training_layout_rule_on_published_architectures() -> None:
    # Falcon-40B: 60 layers, 128 heads, 8 KV heads (https://huggingface.co/tiiuae/falcon-40b/blob/main/config.json).
    # A 10-card ZeRO-3 minimum → ceil(10 / 8) = 2 stages, 60 % 2 == 0 → TP 8 × PP 2 = 16.
    falcon = resolve_model("Falcon-40B", None).arch
    lay = training_layout(falcon, 10, 600)
    assert lay is not None and (lay["tp"], lay["pp"], lay["gpus"]) == (8, 2, 16)
    # one server: no layout; no NVLink: no layout (TP over PCIe is not offered)
    assert training_layout(falcon, 8, 600) is None
    assert training_layout(falcon, 20, 0) is None
    # NVLink 3 (A100) 600 GB/s bidirectional = 300 per direction; IB HDR 200 Gb/s ÷ 8 = 25 GB/s → 1/12
    assert "1/6–1/12" in lay["reason"]["zh"]


def test_pcie_only_note_only_for_multi_server_consumer_cards() -> None:
    big = find_min_gpus(FindMinGpusInput(model="Llama-2-70B", mode="inference", gpu="RTX 4090"))
    assert (big.rent_gpus or 0) <= 8 and not any("PCIe" in n["en"] for n in big.notes)
    huge = find_min_gpus(FindMinGpusInput(model="DeepSeek-V3", mode="inference", precision="fp8", gpu="RTX 4090"))
    assert any("impractical" in n["en"] for n in huge.notes)
    nvlink = find_min_gpus(FindMinGpusInput(model="DeepSeek-V3", mode="inference", precision="fp8", gpu="H100"))
    assert not any("impractical" in n["en"] for n in nvlink.notes)


# ---------------------------------------------------------------- B: node questions -----------------------------
def test_eight_80g_cards_are_one_node() -> None:
    # An HGX/DGX server holds 8 SXM GPUs (https://www.nvidia.com/en-us/data-center/hgx/): 8 × 80 GB = one node.
    intents, frame, _ = analyse("我们这边是8*80G，这种是单机还是要好几台机器？")
    assert intents[0] == "node_layout" and frame.gpu_count == 8 and frame.vram_gb == 80
    ans, _ = answer("我们这边是8*80G，这种是单机还是要好几台机器？")
    assert "单机 8 卡" in ans.text and "NVLink" in ans.text
    assert "2 TB" in ans.text  # DGX A100 640GB: 2 TB system memory (NVIDIA DGX A100 datasheet)


def test_32_a100_are_four_nodes_over_infiniband() -> None:
    # 32 / 8 = 4 servers; between them HDR InfiniBand 200 Gb/s ÷ 8 = 25 GB/s per direction vs NVLink 3's 300.
    ans, results = answer("32 A100 means 8 cards in one machine x 4, or 32 cards in one machine?")
    lay = [r for r in results if r.name == "interconnect_advice"][0].result["layout"]
    assert lay["nodes"] == 4 and lay["inter_per_direction_gbs"] == 200 / 8
    assert "4 servers × 8" in ans.text and "InfiniBand" in ans.text and "25 GB/s" in ans.text


def test_sixteen_h800_two_nodes_with_ndr() -> None:
    # H800 NVLink capped at 400 GB/s bidirectional = 200 per direction; DGX H100-class NICs: NDR 400 Gb/s = 50 GB/s.
    ans, _ = answer("文档里写16张H800，是一台机器16卡还是两台各8卡？")
    assert "2 台 × 8 卡" in ans.text and "200 GB/s" in ans.text and "50 GB/s" in ans.text


# ---------------------------------------------------------------- C: training time ------------------------------
def test_continued_pretraining_assumes_eight_a100_and_leads_with_days() -> None:
    # 6·N·D = 6 × 13e9 × 10e9 = 7.8e20 FLOP; 8 × A100 (312 TFLOPS BF16 dense, NVIDIA A100 datasheet) at 40% MFU
    # = 9.98e14 FLOP/s → 781,250 s = 9.0 days; the MFU band of knowledge/mfu.yaml (~35–48%) gives ~7.5–10.5 days.
    q = "想拿13b模型继续预训练，数据10b token左右，大概要几张卡训几天"
    ans, results = answer(q)
    est = [r for r in results if r.name == "estimate_training_time"][0]
    assert est.args["n_gpus"] == 8 and est.args["tokens"] == 10e9 and est.args["params_b"] == 13
    hand_days = 6 * 13e9 * 10e9 / (8 * 312e12 * 0.40) / 86400
    assert est.result["days"]["mid"] == pytest.approx(hand_days, rel=0.15)
    first = ans.text.splitlines()[0]
    assert "8 × A100" in first and "天" in first and "你没说用几张卡" in first


def test_token_count_worded_as_a_question_is_not_the_model_size() -> None:
    _, frame, _ = analyse("10B是指token数吗？我们数据大概10B tokens，继续预训练一个13B的模型要多久")
    assert frame.params_b == 13 and frame.tokens == 10e9


def test_measured_hours_without_model_or_data_become_tokens_and_a_faster_card() -> None:
    # 4 × A100 × 312e12 × MFU 0.35 (knowledge/mfu.yaml full fine-tune mid) × 30 h × 3600 s / (6 × 7e9) = 1.12e9 tokens
    # for an assumed 7B; on 4 × H100 (989.4 TFLOPS BF16 dense, NVIDIA H100 datasheet): 30 × 312 / 989.4 = 9.46 h.
    ans, results = answer("sft on 4x a100 took 30 hrs, is that normal??")
    est = [r for r in results if r.name == "estimate_training_time"][0]
    hand = 4 * 312e12 * 0.35 * 30 * 3600 / (6 * 7e9)
    assert est.result["tokens_in_measured_hours"]["mid"] == pytest.approx(hand, rel=0.03)
    resc = [r for r in results if r.name == "rescale_training_time"][0]
    assert resc.result["hours"] == pytest.approx(30 * 312 / 989.4, abs=0.05)
    assert "H100" in ans.text and "normal range" in ans.text


def test_data_hours_are_not_a_measured_run() -> None:
    # 「10小时的数据」 is audio length, not the run's time: no measured-hours estimate
    _, results = answer("用4090微调了10小时的语音数据，训练很慢，正常吗")
    assert not any(r.args.get("measured_hours") for r in results if r.name == "estimate_training_time")


# ---------------------------------------------------------------- D: memory variants of one chip ----------------
def test_v100_32g_vs_16g_same_compute() -> None:
    # NVIDIA V100 datasheet: V100 SXM2 16 GB and 32 GB both 125 TFLOPS tensor, 900 GB/s.
    ans, results = answer("v100 32g和16g为啥速度没区别，换了32g也没变快")
    assert any(r.name == "gpu_specs" for r in results)
    assert "125 TFLOPS" in ans.text and ("相同" in ans.text or "一样" in ans.text)


def test_k80_24gb_is_two_12gb_gpus() -> None:
    # Tesla K80 board spec: 2 × GK210, 24 GB total = 12 GB per GPU, 4.37 TFLOPS FP32 per GPU at boost (8.73 / 2).
    ans, results = answer("is a 24gb k80 gonna be faster for training than my current card?")
    assert any(r.name == "gpu_specs" for r in results)
    assert "12 GB" in ans.text and "2 GK210" in ans.text


def test_variant_rule_holds_for_every_same_chip_pair_in_the_table() -> None:
    """Any two rows of one family and architecture with different memory and equal peak get the rule; rows of
    different chips never do."""
    gpus = all_gpus()
    pairs = 0
    for i, a in enumerate(gpus):
        for b in gpus[i + 1 :]:
            found = [v for v in variant_findings([a, b]) if v.rule == "memory_variant"]
            same = a.family == b.family and a.architecture == b.architecture and a.memory_gb != b.memory_gb
            peaks_equal = (a.bf16_dense_tflops, a.fp16_dense_tflops, a.fp32_tflops) == (
                b.bf16_dense_tflops,
                b.fp16_dense_tflops,
                b.fp32_tflops,
            )
            if not same:
                assert not found, (a.id, b.id)
            elif peaks_equal:
                assert found and found[0].source, (a.id, b.id)
                pairs += 1
    assert pairs >= 2  # at least V100 16/32 and A100 40/80


def test_a100_40_vs_80_rule_mentions_the_bandwidth_difference() -> None:
    # A100 datasheet: 40 GB HBM2 1,555 GB/s vs 80 GB HBM2e 2,039 GB/s; 312 TFLOPS BF16 dense on both.
    out = gpu_specs(GpuSpecsInput(names=["A100 40GB", "A100 80GB"]))
    v = out.variants[0]
    assert v.compute_tflops == 312 and "1555" in v.en and "2039" in v.en
    assert re.search(r"differs in proportion to bandwidth", v.en)


def test_minimum_hardware_requirements_is_a_count_question() -> None:
    # DeepSeek-V3 FP8 ≈ 671 GB on H200 (141 GB; 143,771 MiB = 150.8 GB × SGLang's ~0.85 static fraction ≈ 128 GB):
    # 671 / 128 = 5.2 → 6 by capacity, TP 8 = one 8-GPU server; one H200 is far short.
    ans, results = answer(
        "what's the minimum hardware requirements to serve deepseek v3 with sglang? i only got one h200"
    )
    h200 = _min_gpu_results(results, "H200", "fp8")
    assert h200 and h200[0].result["min_gpus"] == 8
    assert 5 <= h200[0].result["floor_gpus"] <= 6
    assert "8 × H200" in ans.text


def test_one_card_answer_does_not_claim_tensor_parallelism() -> None:
    # Llama-3-8B bf16: 8.03e9 × 2 B = 16.1 GB — one 80 GB card, nothing to split
    ans, _ = answer("minimum hardware requirements for llama 3 8b inference?")
    first = ans.text.splitlines()[0]
    assert "1 × A100" in first and "tensor parallelism" not in first


def test_a_tried_configuration_that_ooms_gets_the_estimate_on_those_cards() -> None:
    # 13B full fine-tune: 13e9 × 16 B (ZeRO paper) = 208 GB of states. The user names no ZeRO/FSDP, so the OOM run
    # was plain data parallel: 208 GB on every 80 GB card — it cannot fit, which is the OOM they saw. Sharded with
    # ZeRO-3 it is 208 / 8 = 26 GB each + activations: fits, and that is the change to make. The answer sizes the
    # job on the user's own 8 × A800, not a ranked plan.
    intents, _, _ = analyse("13b全量微调需要啥配置啊，我在8张A800 80G上跑也报显存不足")
    assert "plan" not in intents
    ans, results = answer("13b全量微调需要啥配置啊，我在8张A800 80G上跑也报显存不足")
    est = [r for r in results if r.name == "estimate_memory" and r.args.get("gpus") == 8]
    assert est and est[0].result["fits"] is False and est[0].result["total_gb"] > 13e9 * 16 / 1e9
    key = ans.text.split("###")[0]
    assert "ZeRO-3" in key and "不会叠加" in key
