"""Several cards: serving one model split over N cards, training sharded per the stated ZeRO stage, and the whole
training state checked against all the cards together. Own phrasings (casual Chinese / English), values by hand.

Card capacities (nvidia-smi memory.total): RTX 3090 24,576 MiB = 25.77 GB; RTX 3070 8,192 MiB = 8.59 GB;
V100 32GB 32,768 MiB = 34.36 GB; A100 80GB 81,920 MiB = 85.90 GB (1 MiB = 2^20 B, GB = 1e9 B).

Model sizes (config.json):
- Qwen-72B https://huggingface.co/Qwen/Qwen-72B/blob/main/config.json: hidden 8192, vocab 152,064 → embedding and
  lm_head 2 × 152,064 × 8,192 = 2.49e9 params kept 16-bit; the model card's 72B (≈72.3e9) in all. int4 AWQ/GPTQ
  g128 = 4 bits + an fp16 scale and zero per 128 weights = 4.25 bits = 0.53125 B/param (arXiv:2306.00978).
  → (72.3e9 − 2.49e9) × 0.53125 + 2.49e9 × 2 ≈ 37.1 + 5.0 = 42.1 GB of weights: more than one 3090 (25.77 GB),
  half of it (21.0 GB) per card when whole layers go to each card.
- Llama-2-70B https://huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json: 68,976,648,192 params, vocab
  32,000 × hidden 8,192 → 2 × 0.262e9 = 0.524e9 embedding params; int4 → 68.45e9 × 0.53125 + 0.524e9 × 2 ≈ 37.4 GB,
  18.7 GB per card over two 24 GB cards.
- Vicuna-13B (Llama-13B shape, https://huggingface.co/lmsys/vicuna-13b-v1.5/blob/main/config.json): 13.0e9 × 2 B =
  26.0 GB in fp16 > 2 × 8.59 GB = 17.2 GB: two 8 GB cards cannot hold it even split.
- Qwen2.5-7B https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json: 7.62e9 params.
- OPT-66B https://huggingface.co/facebook/opt-66b/blob/main/config.json: 64 layers, hidden 9,216, ffn 36,864, vocab
  50,272 → 12 × 64 × 9,216² + 50,272 × 9,216 ≈ 65.2e9 + 0.46e9 ≈ 65.7e9 params.
- Llama-2-7B https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json: 6.74e9 params.
- Llama-3-8B https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json: 8.03e9 params.

Training state (ZeRO paper, arXiv:1910.02054 §5, mixed-precision Adam, K = 12): (2 + 2 + 12) B = 16 B/param;
per GPU DDP 16Ψ, ZeRO-2 2Ψ + 14Ψ/N, ZeRO-3 16Ψ/N.
"""

from __future__ import annotations

import math

import pytest

from assistant.offline import answer
from assistant.offline.reading import read_one

GB = 1e9
MIB = 2**20
RTX3090_GB = 24_576 * MIB / GB  # 25.77
RTX3070_GB = 8_192 * MIB / GB  # 8.59
V100_32_GB = 32_768 * MIB / GB  # 34.36
A100_80_GB = 81_920 * MIB / GB  # 85.90
INT4_B = 0.5 + 16 * 2 / 128 / 8  # 4-bit + fp16 scale and zero per 128 weights = 0.53125 B/param


def _ests(results):  # type: ignore[no-untyped-def]
    return [r for r in results if r.name == "estimate_memory" and not r.error]


def _lead(text: str) -> str:
    return text.split("\n")[0]


# ---- reading: card counts and per-card memory said the casual way -------------------------------------


@pytest.mark.parametrize(
    "q, count, vram",
    [
        ("8卡，每张卡40G能把9b模型全参训起来么", 8, 40.0),
        ("服务器8卡40G，训7b够不够", 8, 40.0),
        ("is it possible with two graphics cards with 24 GB VRAM each to run a 70b gptq", 2, 24.0),
        ("I have three GPUs with 16GB each, can I serve a 13b model?", 3, 16.0),
    ],
)
def test_count_and_per_card_memory_are_read(q: str, count: int, vram: float) -> None:
    f = read_one(q)
    assert f.gpu_count == count
    assert f.vram_gb == vram


def test_a_card_index_is_still_not_a_count() -> None:
    assert read_one("0卡，显存占满了，别的卡空着").gpu_count is None  # 「0卡」 names which card, not how many


# ---- serving on N cards --------------------------------------------------------------------------------


def test_two_3090_hold_a_72b_int4_when_split_by_layers() -> None:
    a, results = answer("两张3090一起跑qwen-72b int4行不行，每张24G")
    ests = _ests(results)
    layer = next(e for e in ests if e.result.get("engine") == "hf")
    tp = next(e for e in ests if e.result.get("engine") != "hf")
    whole = (72.3e9 - 2.49e9) * INT4_B / GB + 2.49e9 * 2 / GB  # 42.1 GB by hand
    assert layer.result["whole_model_weights_gb"] == pytest.approx(whole, rel=0.04)
    assert whole > RTX3090_GB  # one card cannot hold the weights
    assert layer.result["weights_gb"] == pytest.approx(whole / 2, rel=0.04)  # half the layers per card
    assert layer.result["fits"] is True and tp.result["fits"] is False  # vLLM keeps 10% and CUDA-graph room
    lead = _lead(a.text)
    assert lead.startswith("能，但要把模型切到 2 张卡上")
    assert 'device_map="auto"' in a.text and "--tensor-parallel-size 2" in a.text


def test_exllama_gpu_split_is_sized_as_a_layer_split() -> None:
    a, results = answer("2x24G 的卡，用 exllama 的 gpu-split 跑 llama-2-70b gptq 4bit 可以吗")
    est = _ests(results)[0].result
    assert est["engine"] == "hf" and est["gpus"] == 2
    per_card = ((68.98e9 - 0.524e9) * INT4_B + 0.524e9 * 2) / GB / 2  # 18.7 GB
    assert est["weights_gb"] == pytest.approx(per_card, rel=0.04)
    assert est["fits"] is True and per_card < 24
    assert "gpu_split" in a.text and _lead(a.text).startswith("能")


def test_two_8gb_cards_cannot_pool_a_13b_fp16_and_the_answer_says_how_to_split() -> None:
    a, results = answer("vicuna 13b in fp16 on two rtx 3070 8gb, can both cards' memory be combined?")
    fp16 = [e for e in _ests(results) if e.result.get("precision") in ("fp16", "bf16")]
    assert fp16 and all(e.result["fits"] is False for e in fp16)
    assert 13.0e9 * 2 / GB > 2 * RTX3070_GB  # 26.0 GB > 17.2 GB: not even split
    assert _lead(a.text).startswith("No")
    assert 'device_map="auto"' in a.text and "--tensor-parallel-size 2" in a.text


def test_serving_to_users_on_eight_cards_is_tensor_parallel_only() -> None:
    _, results = answer("8张H100 serve deepseek-r1 给公司用，扛得住吗")
    assert all(e.result.get("engine") != "hf" for e in _ests(results))  # an API is vLLM/SGLang, not device_map


# ---- training on N cards ---------------------------------------------------------------------------------


def test_zero2_per_card_formula_is_shown_for_the_stated_stage() -> None:
    a, results = answer("8卡A100 80G，deepspeed zero2 全参微调 qwen2.5-7b，每张卡大概吃多少显存")
    est = _ests(results)[0].result
    psi = 7.62e9
    by_hand = (2 * psi + 14 * psi / 8) / GB  # 15.24 + 13.34 = 28.6 GB
    assert est["zero_stage"] == 2 and est["gpus"] == 8
    assert est["zero_formula"]["per_gpu_gb"] == pytest.approx(by_hand, rel=0.02)
    assert "2Ψ + 14Ψ/N" in a.text


def test_whole_state_over_all_cards_never_fits() -> None:
    a, results = answer("3张A100 80G 用 deepspeed zero3 全量微调 opt-66b 能行吗")
    est = _ests(results)[0].result
    state = 16 * 65.7e9 / GB  # 1,051 GB
    assert est["training_state_gb"] == pytest.approx(state, rel=0.02)
    assert state > 3 * A100_80_GB  # 257.7 GB
    assert est["state_exceeds_all_gpus"] is True and est["fits"] is False
    assert not _lead(a.text).startswith("能。")
    assert "怎么切分都放不下" in a.text
    assert f"{math.ceil(state / A100_80_GB)} 张" in a.text  # 1,051 / 85.9 → at least 13 cards by capacity


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_the_invariant_holds_for_any_card_count(n: int) -> None:
    from tools.memory import EstimateMemoryInput, estimate_memory

    out = estimate_memory(
        EstimateMemoryInput(model="Llama-2-70B", mode="full", gpus=n, zero=3, gpu="A100 80GB")
    ).model_dump()
    state = 16 * 68.98e9 / GB  # 1,104 GB: more than 8 × 85.9 GB = 687 GB
    assert out["training_state_gb"] == pytest.approx(state, rel=0.02)
    assert out["fits"] is False


def test_oom_on_8_v100_that_should_fit_leads_with_zero3() -> None:
    a, results = answer("8卡V100 32G 全参微调 llama3-8b 报 OOM 了，按理说应该够吧")
    per_card_states = 16 * 8.03e9 / 8 / GB  # ZeRO-3: 16.1 GB of states per card, well under 34.36 GB
    assert per_card_states < V100_32_GB
    first_two = a.text.split("\n")[:2]  # an OOM report leads with what to change, then the verdict
    assert "ZeRO-3" in first_two[0]
    assert any(line.startswith("能，但要用 ZeRO-3") for line in first_two)
    assert any(c.get("kind") == "zero_stage" for e in _ests(results) for c in e.result.get("changes") or [])


def test_zero2_oom_on_four_4090_gets_the_zero3_figure() -> None:
    a, results = answer("4张4090 zero2 全参 qwen2.5-3b，seq 512 batch 1 还是OOM，为啥")
    zero3 = [e for e in _ests(results) if e.result.get("zero_stage") == 3]
    assert zero3, "the next stage is sized"
    states3 = 16 * 3.09e9 / 4 / GB  # Qwen2.5-3B (3.09e9, config.json) over 4: 12.4 GB of states per card
    assert zero3[0].result["model_states_gb"] >= states3 * 0.95
    assert "换成 ZeRO-3" in a.text


def test_min_cards_without_offload_beside_with_it() -> None:
    _, results = answer("用 ds_z3_offload_config 全量微调 llama2-7b，cutoff_len 1024，V100 32G 最少要几张？")
    counts = {str(r.args.get("offload")): r.result.get("min_gpus") for r in results if r.name == "find_min_gpus"}
    assert math.ceil(16 * 6.74e9 / GB / V100_32_GB) == 4  # 107.8 GB / 34.36 GB = 3.1 → 4 by capacity
    assert counts.get("none") == 4  # activations at 1,024 tokens and buffers still fit 4 cards (≈33 GB each)
    floors = [
        r.result.get("floor_gpus") for r in results if r.name == "find_min_gpus" and r.args.get("offload") == "none"
    ]
    assert floors == [4]
    assert counts.get("optimizer") is not None and counts["optimizer"] < 4


def test_colossal_ai_gemini_is_training() -> None:
    _, results = answer("bash run_gemini.sh 跑 opt-66b，4张A100 80G，显存爆了")
    assert _ests(results)[0].result["mode"] == "full"


def test_moe_weights_resident_are_all_experts_not_the_active_ones() -> None:
    # DeepSeek-MoE-16B: 16.4B parameters in all, 2.8B activated per token (model card;
    # https://huggingface.co/deepseek-ai/deepseek-moe-16b-base/blob/main/config.json: 64 routed + 2 shared experts)
    a, results = answer("deepseek-moe-16b 每个token只激活2.8b，一张3090 24G 能跑 bf16 推理吗")
    est = _ests(results)[0].result
    assert est["whole_model_weights_gb"] == pytest.approx(16.4e9 * 2 / GB, rel=0.03)  # 32.8 GB, not 5.6 GB
    assert 16.4e9 * 2 / GB > RTX3090_GB and est["fits"] is False
    assert _lead(a.text).startswith("不能") or "不能" in a.text.split("\n")[1]
    assert "16.4B" in a.text  # all experts resident, said in the answer


def test_the_paper_formula_is_only_quoted_without_offload() -> None:
    from tools.memory import EstimateMemoryInput, estimate_memory

    def formula(**kw):  # type: ignore[no-untyped-def]
        job = EstimateMemoryInput(model="Qwen2.5-7B", mode="full", gpus=4, zero=1, gpu="A100 40GB", **kw)
        return estimate_memory(job).zero_formula

    z1 = formula()
    assert z1 is not None and z1.per_gpu_gb == pytest.approx((4 * 7.62e9 + 12 * 7.62e9 / 4) / GB, rel=0.02)  # 53.3
    assert formula(offload="optimizer") is None  # offloaded states are not on the GPUs the formula counts


def test_a_full_fine_tune_too_big_for_any_card_also_gets_the_lora_route() -> None:
    a, results = answer("Yi-34B 全参 SFT 用 accelerate 多卡训练，要什么卡，配置有参考吗")
    assert any(e.args.get("mode") == "lora" for e in _ests(results))
    assert 16 * 34.4e9 / GB > A100_80_GB  # 550 GB of states: no single card (Yi-34B config.json: 34.4e9 params)
    assert "LoRA" in a.text
