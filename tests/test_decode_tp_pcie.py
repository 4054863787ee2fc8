"""Decode speed with tensor parallel over PCIe pays the per-token all-reduces (tools/memory_decode.py).

Hand-worked from public figures:
- Megatron-LM (Shoeybi et al. 2019, arXiv:1909.08053 §3): 2 all-reduces per transformer layer in the forward pass.
- Ring all-reduce moves 2(n−1)/n × S per rank (NVIDIA nccl-tests doc/PERFORMANCE.md, busbw = algbw × 2(n−1)/n).
- 8-byte all-reduce on 8 × RTX 4090 over PCIe takes 42.6 µs (nccl-tests output in
  https://github.com/NVIDIA/nccl/issues/1530): latency dominates at batch 1; the tool takes 40 µs.
- Qwen2.5-72B: 80 layers, hidden 8192 (https://huggingface.co/Qwen/Qwen2.5-72B/blob/main/config.json).
- RTX 4090: 1,008 GB/s, PCIe 4.0 x16, no NVLink (NVIDIA Ada whitepaper); A100 SXM4 80GB: 2,039 GB/s, NVLink.

Real reports this class is about (each: more cards over PCIe decode no faster, or slower, than expected):
- https://github.com/vllm-project/vllm/issues/732 "tensor_parallel_size 2 ... much slower than a single card"
  (answer there: "NVLink is all you need").
- https://github.com/oobabooga/textgen/issues/6424 "Inference with TP is around 4x slower than without" (3090 + 4060 Ti).
- https://github.com/FreedomIntelligence/HuatuoGPT-II/issues/14 「单机两卡(4090)加载13B模型进行推理很慢」.
"""

from __future__ import annotations

import pytest

from tools.registry import run_tool


def _speed(**args: object) -> dict:
    out = run_tool("decode_speed", args)
    assert "error" not in out, out
    return out


def test_four_4090s_qwen72b_awq_pay_about_6_6_ms_of_all_reduce_per_token() -> None:
    r = _speed(model="Qwen2.5-72B", gpu="RTX 4090", precision="int4", gpus=4)
    # 2 × 80 layers × (40 µs + 2·3/4 × 8192 × 2 B / 25 GB/s) = 160 × (40 + 0.983) µs = 6.557 ms
    assert r["tp_link"] == "pcie"
    assert r["tp_comm_ms"] == pytest.approx(6.557, abs=0.05)
    # mid band: 1000 / (bytes / (0.75 × 1008 GB/s) in ms + 6.557 ms)
    step_ms = r["bytes_per_step_gb"] / (0.75 * 1008) * 1000
    assert r["tokens_per_s_mid"] == pytest.approx(1000 / (step_ms + 6.557), rel=0.02)
    # without the all-reduces the same read would give 1000/step_ms ≈ 69 tok/s: the PCIe cost is a third of it
    assert r["tokens_per_s_mid"] < 0.75 * 1000 / step_ms
    assert any("all-reduce" in a["en"] and "PCIe" in a["en"] for a in r["assumptions"])


def test_two_4090s_pay_the_same_latency_per_layer() -> None:
    # 13B (Llama-2-13B: 40 layers, hidden 5120): 2 × 40 × (40 µs + 2·1/2 × 10240 B / 25 GB/s) = 80 × 40.41 µs
    r = _speed(model="Llama-2-13B", gpu="RTX 4090", precision="bf16", gpus=2)
    assert r["tp_comm_ms"] == pytest.approx(3.23, abs=0.05)


def test_one_card_and_nvlink_cards_add_no_pcie_all_reduce() -> None:
    one = _speed(model="Qwen2.5-7B", gpu="RTX 4090")
    assert one["tp_comm_ms"] == 0 and one["tp_link"] is None
    nv = _speed(model="Llama-3-70B", gpu="A100 80GB SXM", gpus=2)
    assert nv["tp_comm_ms"] == 0 and nv["tp_link"] == "nvlink"


def test_hard_ceiling_is_bandwidth_over_bytes() -> None:
    # Vicuna-7B = Llama-7B: 6.74e9 × 2 B = 13.5 GB of weights; KV at 4,096 tokens = 2 × 32 × 4096 × 2 B × 4096 = 2.15 GB
    r = _speed(model="Vicuna-7B", gpu="A100 80GB SXM")
    assert r["weights_read_gb"] == pytest.approx(13.5, rel=0.02)
    assert r["tokens_per_s_ceiling"] == pytest.approx(2039 / (13.48 + 2.15), rel=0.02)  # ≈ 130 tok/s


def test_the_answer_shows_the_all_reduce_in_the_working() -> None:
    from assistant.advisor import ask

    answer = ask("两张4090跑llama2-13b，每秒多少token", backend="offline").answer
    assert "all-reduce" in answer
    assert "tokens/s" in answer
