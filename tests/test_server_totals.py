"""Compute of several cards added up, and the figure asked for before a support verdict.

NVIDIA datasheets: A100 BF16 312 TFLOPS dense (624 with sparsity); H100 SXM FP8 3,958 TFLOPS with sparsity = 1,979
dense. Hand-worked: 8 × 312 = 2,496 TFLOPS ≈ 2.5 PFLOPS; 8 × 1,979 = 15,832 TFLOPS ≈ 15.8 PFLOPS (the AIInfra claim
of "单卡 FP8 算力达 200 PFlops", https://github.com/Infrasys-AI/AIInfra/issues/386, is ~100× one card).
"""

from __future__ import annotations

from assistant.advisor import ask
from tools.gpus import GpuSpecsInput, gpu_specs


def test_totals_in_pflops() -> None:
    st = gpu_specs(GpuSpecsInput(names=["H100 SXM"], counts=[8])).setups[0]
    assert st.fp8_dense_tflops_total == 15832.0 and st.fp8_dense_pflops_total == 15.8
    assert st.bf16_dense_pflops_total == 7.92


def test_the_total_leads_when_several_cards_are_asked() -> None:
    r = ask("8张A100的BF16算力一共多少", backend="offline")
    assert r.answer.startswith("8 张 A100 80GB SXM4 合计：BF16 稠密 2.5 PFLOPS（2,496 TFLOPS）")
    assert "没用上：8 张卡" not in r.answer


def test_a_figure_question_is_not_answered_with_supported() -> None:
    r = ask("H100 的 FP8 算力多少", backend="offline")
    assert not r.answer.startswith("支持") and "1979 TFLOPS" in r.answer.splitlines()[0]
    assert ask("H100支持FP8吗", backend="offline").answer.startswith("支持。")
