"""Line 1 of a memory answer leads with the three-way verdict and the capacity that decides it.

Expected values are hand-derived from datasheets / nvidia-smi pastes / config.json, not pasted from the code."""

from __future__ import annotations

from assistant.offline import answer


def _line1(q: str) -> str:
    a, _ = answer(q)
    return a.text.split("\n")[0]


def test_serving_fit_states_reported_mib_and_vllm_usable() -> None:
    # Qwen2.5-7B bf16 weights: 7,615,616,512 params (config.json parameter count) × 2 B = 15.2 GB;
    # RTX 4090 prints 24,564 MiB in nvidia-smi (vllm-project/vllm#7553) = 24,564 × 2^20 B = 25.76 GB;
    # vLLM gpu_memory_utilization 0.9 → 23.18 GB usable.
    line = _line1("4090 能跑 Qwen2.5-7B 推理吗")
    assert line.startswith("能")
    assert "24,564 MiB" in line and "25.8 GB" in line
    assert "23.2 GB" in line
    assert "15.2 GB" in line  # the whole model's weights


def test_full_finetune_on_4090_names_offload_and_says_not_as_configured() -> None:
    # 7e9 × 16 B (ZeRO paper §3) = 112 GB ≫ 25.76 GB; ZeRO-Offload moves the 12 B/param optimizer part to host RAM.
    line = _line1("能用4090全量训练7B吗")
    assert line.startswith("不能：")  # offload (several times slower) is a way out, not a yes
    assert "CPU" in line and "放不下" in line


def test_deepseek_r1_fp8_gives_whole_model_671_gb() -> None:
    # DeepSeek-R1: 671e9 params, released in FP8 (1 B/param) → ~671 GB of weights (model card); the checkpoint keeps
    # the embeddings and LM head in bf16 (2 × 129,280 × 7,168 = 1.85e9 params, config.json vocab_size/hidden_size),
    # so the whole model is 669.1 + 3.7 = 672.9 GB — between the bare 671 GB and the 688 GB on disk (incl. MTP).
    import re

    a, _ = answer("Can 8 H100 serve DeepSeek-R1?")
    line = a.text.split("\n\n")[0]
    whole = re.search(r"whole model's fp8 weights are about ([\d,.]+) GB", line)
    assert whole and 671 <= float(whole.group(1).replace(",", "")) <= 690
    assert line.startswith("No")
