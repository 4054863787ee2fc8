"""「H20 和 A800 哪个适合训练 70B」: the choice leads, decided by what limits the job.

Datasheet figures written here (dense, no sparsity):
- NVIDIA H20: 96 GB HBM3, 4.0 TB/s, FP16/BF16 148 TFLOPS (NVIDIA H20 product brief, as tabled in knowledge/gpus.yaml).
- NVIDIA A800 80GB SXM4: 2,039 GB/s, BF16 312 TFLOPS (A100/A800 datasheet: A800 keeps the A100's compute).
- RTX 4090: 1,008 GB/s; RTX 3090: 936 GB/s (NVIDIA Ada / Ampere GeForce specs).
- Qwen2.5-32B: 32.8e9 params → 65.5 GB in bf16 (config.json of Qwen/Qwen2.5-32B-Instruct): more than one 48 GB L20,
  less than two; four 24 GB cards are the least power of two that hold it with KV room.
"""

from __future__ import annotations

import pytest

from assistant.offline import answer
from tools.card_choice import CardRow, ChooseGpuInput, ChooseGpuOutput, choose_gpu


def _rows(out: ChooseGpuOutput) -> dict[str, CardRow]:
    return {r.gpu: r for r in out.rows}


def test_training_is_decided_by_compute() -> None:
    out = choose_gpu(ChooseGpuInput(params="70B", mode="full", cards=["H20", "A800"]))
    rows = _rows(out)
    assert rows["h20"].bf16_dense_tflops == 148 and rows["a800_80gb_sxm"].bf16_dense_tflops == 312
    assert out.choice == "a800_80gb_sxm"
    assert "312 对 148" in out.summary["zh"] and "2.1 倍" in out.summary["zh"]  # 312 / 148 = 2.11
    # 70B full training: 16 B/param × 70e9 = 1,120 GB of states → more than 1,120 / 96 ≈ 11.7 H20s, and
    # more of the 80 GB cards than of the 96 GB ones
    assert rows["h20"].min_gpus is not None and rows["h20"].min_gpus >= 12
    assert rows["a800_80gb_sxm"].min_gpus is not None and rows["a800_80gb_sxm"].min_gpus > rows["h20"].min_gpus


def test_inference_prefers_fewer_cards_then_bandwidth() -> None:
    out = choose_gpu(ChooseGpuInput(model="Qwen2.5-32B", mode="inference", cards=["L20", "RTX 4090"]))
    rows = _rows(out)
    assert rows["l20"].min_gpus == 2 and rows["rtx_4090"].min_gpus == 4
    assert (out.choice, out.basis) == ("l20", "fewest_cards")


def test_equal_counts_are_decided_by_bandwidth_and_the_cheaper_card_is_named() -> None:
    out = choose_gpu(ChooseGpuInput(model="Qwen2.5-7B", mode="inference", cards=["RTX 3090", "RTX 4090"]))
    rows = _rows(out)
    assert (rows["rtx_4090"].mem_bw_gbs, rows["rtx_3090"].mem_bw_gbs) == (1008, 936)
    assert (out.choice, out.basis) == ("rtx_4090", "bandwidth")
    p4, p3 = rows["rtx_4090"].hourly_cny, rows["rtx_3090"].hourly_cny
    assert p4 and p3
    cheaper_per_speed = p3 / 936 < p4 / 1008 * 0.95
    assert ("更划算" in out.summary["zh"]) == cheaper_per_speed


def test_whole_server_cards_are_said() -> None:
    out = choose_gpu(ChooseGpuInput(model="Llama-3-8B", mode="full", cards=["A100", "H100"]))
    assert "只能整台 8 卡" in out.summary["zh"]  # export-controlled SXM cards: whole servers only in China


@pytest.mark.parametrize(
    "question",
    [
        "H20和A800哪个适合训练70B",
        "h20 a800 训70b选哪个好啊",
        "训练13B用A800好还是H800好",
        "L20和4090哪个适合部署qwen2.5-32b",
        "Which is better for fine-tuning Llama 3 70B with LoRA, H100 or A100?",
        "3090 vs 4090 for running qwen2.5 7b inference?",
    ],
)
def test_which_card_questions_lead_with_the_choice(question: str) -> None:
    a, results = answer(question)
    assert "choose_gpu" in [r.name for r in results]
    first = a.text.splitlines()[0]
    assert first.startswith(("选 ", "The ")), first


def test_a_comparison_of_sized_setups_is_not_a_card_choice() -> None:
    _, results = answer("两张4090还是一张A100，跑qwen2.5-32b推理")
    assert "choose_gpu" not in [r.name for r in results]
