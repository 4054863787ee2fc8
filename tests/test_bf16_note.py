"""bf16 on a card without it: the estimate says to run fp16 (same 2 bytes, same memory).

Known values: T4 (Turing) and V100 (Volta) have no bf16 tensor math (NVIDIA Turing whitepaper App. A; Volta V100
datasheet lists FP16 only); vLLM refuses bfloat16 below compute capability 8.0 ("Bfloat16 is only supported on GPUs
with compute capability of at least 8.0 … use float16 instead by explicitly setting the `dtype` flag", vLLM's
_check_if_gpu_supports_dtype in vllm/worker/worker.py). A100 (Ampere) has bf16.
"""

from __future__ import annotations

from tools.memory import EstimateMemoryInput, estimate_memory


def test_t4_inference_gets_the_fp16_note() -> None:
    est = estimate_memory(EstimateMemoryInput(params="7B", mode="inference", gpu="T4"))
    assert est.bf16_note is not None and "--dtype float16" in est.bf16_note["zh"]


def test_v100_training_gets_fp16_mixed_precision() -> None:
    est = estimate_memory(EstimateMemoryInput(params="1.5B", mode="full", gpu="V100 32GB"))
    assert est.bf16_note is not None and "--fp16" in est.bf16_note["zh"]


def test_ampere_and_fp16_need_no_note() -> None:
    assert estimate_memory(EstimateMemoryInput(params="7B", mode="inference", gpu="A100 80GB")).bf16_note is None
    assert (
        estimate_memory(EstimateMemoryInput(params="7B", mode="inference", gpu="T4", precision="fp16")).bf16_note
        is None
    )


def test_other_vendors_rows_without_a_bf16_figure_get_no_note() -> None:
    # Ascend 910B has bf16 (Huawei CANN docs); knowledge/gpus.yaml simply has no bf16 TFLOPS figure for it
    est = estimate_memory(EstimateMemoryInput(params="35B", mode="inference", gpu="910B", gpus=2))
    assert est.bf16_note is None
