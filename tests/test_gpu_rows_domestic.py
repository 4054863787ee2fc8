"""Chinese accelerators in the GPU table (Cambricon, Hygon DCU, Moore Threads) and fit answers on them.

Figures are the cited ones in each row's `source`: Cambricon's MLU370-X8 launch (48 GB LPDDR5, 614.4 GB/s,
FP32/FP16/BF16 32/96/96 TFLOPS, INT8 256 TOPS, 250 W); cnmon on an MLU370-X4 (23308 MiB, 150 W cap,
hiyouga/LlamaFactory#6429); rocminfo on a Z100L (33538048 KB pool = 32752 MiB, gpustack#1508); FlagPerf's "K100 64G";
Moore Threads' S4000 launch (48 GB GDDR6, 768 GB/s, 25/50/100 TFLOPS FP32/TF32/BF16, INT8 200 TOPS, PCIe 5) and
S80 launch (16 GB, 448 GB/s, 14.4 TFLOPS FP32, 255 W). Phrasings are our own.
"""

from __future__ import annotations

import pytest

from assistant.advisor import ask
from tools.errors import ToolInputError
from tools.gpus import all_gpus, resolve_gpu

NEW = ("mlu370_x8", "mlu370_x4", "hygon_z100l", "hygon_k100", "mtt_s4000", "mtt_s3000", "mtt_s80")


@pytest.mark.parametrize(
    "gpu_id, field, value",
    [
        ("mlu370_x8", "memory_gb", 48),
        ("mlu370_x8", "mem_bw_gbs", 614.4),
        ("mlu370_x8", "fp32_tflops", 32),
        ("mlu370_x8", "bf16_dense_tflops", 96),
        ("mlu370_x8", "int8_dense_tops", 256),
        ("mlu370_x8", "tdp_w", 250),
        ("mlu370_x4", "nvidia_smi_total_mib", 23308),
        ("mlu370_x4", "tdp_w", 150),
        ("hygon_z100l", "nvidia_smi_total_mib", 33538048 // 1024),  # rocminfo KB → MiB = 32752
        ("hygon_k100", "memory_gb", 64),
        ("mtt_s4000", "memory_gb", 48),
        ("mtt_s4000", "mem_bw_gbs", 768),
        ("mtt_s4000", "tf32_dense_tflops", 50),
        ("mtt_s4000", "bf16_dense_tflops", 100),
        ("mtt_s4000", "int8_dense_tops", 200),
        ("mtt_s4000", "pcie_gen", 5),
        ("mtt_s3000", "fp32_tflops", 15.2),
        ("mtt_s80", "memory_gb", 16),
        ("mtt_s80", "mem_bw_gbs", 448),
        ("mtt_s80", "fp32_tflops", 14.4),
        ("mtt_s80", "tdp_w", 255),
    ],
)
def test_rows_carry_their_cited_figures(gpu_id: str, field: str, value: float) -> None:
    assert getattr(resolve_gpu(gpu_id), field) == value


def test_rows_are_non_nvidia_domestic_with_source_and_unsourced_figures_null() -> None:
    rows = {g.id: g for g in all_gpus()}
    for gid in NEW:
        g = rows[gid]
        assert (
            g.is_nvidia is False and g.china_specific and "not subject to US GPU export rules" in g.china_export_status
        )
        assert g.source and g.as_of == "2026-12-02"
    # no public compute figure for the K100 / Z100L / X4: null, not guessed
    for gid in ("hygon_k100", "hygon_z100l", "mlu370_x4"):
        assert rows[gid].bf16_dense_tflops is None and rows[gid].mem_bw_gbs is None
    # 24 GB-class X4: 23308 MiB × 2^20 B = 24.44 GB
    assert rows["mlu370_x4"].reported_gb == pytest.approx(24.44, abs=0.01)


@pytest.mark.parametrize(
    "name, gpu_id",
    [
        ("寒武纪 MLU370-X8", "mlu370_x8"),
        ("mlu370 x4", "mlu370_x4"),
        ("MLU370 48G", "mlu370_x8"),  # the stated size picks the two-chip card
        ("海光DCU K100", "hygon_k100"),
        ("hygon z100l", "hygon_z100l"),
        ("摩尔线程 S4000", "mtt_s4000"),
        ("MTT S80 16G", "mtt_s80"),
        ("mtt s3000", "mtt_s3000"),
    ],
)
def test_casual_names_resolve(name: str, gpu_id: str) -> None:
    assert resolve_gpu(name).id == gpu_id


def test_bare_mlu370_says_which_capacity_it_used() -> None:
    spec = resolve_gpu("MLU370")
    assert spec.id == "mlu370_x4" and "MLU370-X8" in (spec.lookup_note or "")
    assert resolve_gpu("MLU370-X4").lookup_note is None  # a name that already picks the card is not vague


@pytest.mark.parametrize("name", ["K100-AI", "K100_AI", "Z100", "MTT S800"])
def test_siblings_the_table_lacks_are_unknown_not_swapped(name: str) -> None:
    with pytest.raises(ToolInputError):
        resolve_gpu(name)


def _lead(q: str) -> str:
    return ask(q, backend="offline").answer.split("<details>")[0]


def test_mlu370_runs_qwen25_7b_and_names_torch_mlu_stack() -> None:
    # Qwen2.5-7B bf16 weights: 7.62e9 × 2 B = 15.2 GB (+ KV, activations, runtime ≈ 17 GB) < 24 GB of the X4 default
    lead = _lead("寒武纪MLU370 部署 qwen2.5-7b 推理显存够吗，框架用啥")
    first = lead.splitlines()[0]
    assert first.startswith("能") and "MLU370-X4" in first and "MLU370-X8" in first
    assert "Neuware" in lead and "domestic-accelerators" in lead
    assert "nvidia-smi 显示" not in first  # cnmon, not nvidia-smi, reports a Cambricon card


def test_s4000_cannot_hold_32b_bf16_and_names_musa() -> None:
    # 32B bf16 weights: 32e9 × 2 B = 64 GB > 48 GB on one S4000
    lead = _lead("摩尔线程S4000 单卡 48G 放得下 32B 模型吗")
    assert lead.startswith("不能") and "S4000" in lead.splitlines()[0]
    assert "MUSA" in lead


def test_k100_lora_on_14b_fits_full_does_not_and_names_dtk() -> None:
    # 14B full AdamW: 16 B/param × 14e9 = 224 GB > 64 GB; LoRA keeps the 28 GB bf16 weights + adapters < 64 GB
    lead = _lead("海光 K100 上微调一个 14B 的模型行不行")
    assert "LoRA" in lead.splitlines()[0] and "K100" in lead
    assert "DTK" in lead


def test_english_mlu370_x8_fit_names_the_cambricon_stack() -> None:
    # Qwen2.5-14B bf16: 14.7e9 × 2 B = 29.5 GB < 48 GB
    lead = _lead("Will Qwen2.5-14B inference fit on one Cambricon MLU370-X8?")
    assert lead.startswith("Yes") and "MLU370-X8" in lead
    assert "Software stack: Cambricon" in lead and "e.g. (" not in lead


def test_card_the_table_lacks_is_named_with_the_capacity_used() -> None:
    # K100-AI has no row: the stated 64 GB is what was sized; 32B bf16 = 64 GB weights alone > 64 GB usable
    first = _lead("海光K100-AI 64G 跑 qwen2.5-32b 推理可以吗").splitlines()[0]
    assert first.startswith("不能") and "K100-AI" in first and "64 GB" in first
    assert "改装" not in first  # not a modded board: a card the table does not have yet


def test_nvidia_fit_answer_has_no_stack_line() -> None:
    lead = _lead("4090 能跑 qwen2.5-7b 推理吗")
    assert "软件栈" not in lead and "domestic-accelerators" not in lead


def test_a_software_question_on_a_named_card_is_the_guide_not_the_spec_sheet() -> None:
    a = ask("MLU370-X8 上跑大模型用什么框架", backend="offline")
    assert "gpu_specs" not in [c.name for c in a.tool_calls]
    assert "torch_mlu" in a.answer or "Neuware" in a.answer
