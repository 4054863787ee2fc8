"""Speed and performance comparisons lead with the axis asked, as a ratio (own phrasings; values worked by hand).

Datasheet figures (dense, no sparsity), as tabled in knowledge/gpus.yaml with each row's source:
- NVIDIA H20: 4,000 GB/s, BF16 148 TFLOPS (NVIDIA H20 product brief); A100 80GB SXM: 2,039 GB/s, BF16 312 TFLOPS,
  NVLink 600 GB/s = 12 links × 50 GB/s (A100 datasheet, Ampere GA100 whitepaper).
- A800 80GB SXM: NVLink capped at 400 GB/s = 8 links; compute and HBM as the A100 (A800 datasheet).
- RTX 2080 Ti: 352-bit × 14 Gbps = 616 GB/s, FP16 tensor with FP32 accumulate 53.8 TFLOPS, no BF16 (Turing whitepaper
  App. A); FlashAttention-2 needs Ampere or newer (Dao-AILab/flash-attention README).
- RTX A4000: 16 GB, 448 GB/s, 140 W (https://www.nvidia.com/content/dam/en-zz/Solutions/gtcs21/rtx-a4000/
  nvidia-rtx-a4000-datasheet.pdf).
- RTX 5090: 32 GB, 1,792 GB/s; the 24 GB China card is the RTX 5090 D V2: 384-bit × 28 Gbps = 1,344 GB/s
  (Tom's Hardware 2025-08-12).
- RTX 3080 Laptop GPU: 6,144 CUDA cores at up to 1.71 GHz, 16 GB, 256-bit × 14 Gbps = 448 GB/s, 80–150+ W
  (NVIDIA RTX 30 laptops page); the desktop RTX 3080 is a 320 W card. RTX 3090: 936 GB/s, 71 TFLOPS BF16 (GA102 whitepaper).
- RTX 4090: 1,008 GB/s.

Real questions of this class seen on public trackers (not dev cases): GPT-SoVITS #1126 「l20快还是4090快」,
Baichuan2 #339 「A10的推理速度比3090慢一倍」, FastChat #1873 "V100 vs A100 speed", ollama #4403 「4090 比 V100 快5倍」.
"""

from __future__ import annotations

import pytest

from assistant.offline import answer
from tools.errors import ToolInputError
from tools.gpus import GpuSpecsInput, gpu_specs, resolve_gpu


def _text(q: str, history: list[dict] | None = None) -> str:
    a, _ = answer(q, history)
    return a.text


def _lead(q: str) -> str:
    return _text(q).split("\n\n")[0]


def test_training_ratio_leads_for_h20_vs_a100() -> None:
    lead = _lead("8卡H20做训练，比A100慢多少啊")
    # 148 / 312 = 0.474; 312 / 148 = 2.108 → "2.1 倍时间"
    assert lead.startswith("训练速度看稠密算力")
    assert "148" in lead and "312" in lead and "0.47" in lead and "2.1 倍时间" in lead
    # decode runs the other way: 4000 / 2039 = 1.96
    assert "1.96" in lead


def test_two_part_question_gives_decode_speed_and_training_ratio() -> None:
    a, results = answer("DeepSeek-V3 在8张H20上每秒能出多少token？训练的话跟A100比差很多吗")
    names = [r.name for r in results]
    assert "decode_speed" in names and "gpu_specs" in names
    first = a.text.split("\n")[0]
    assert "tokens/s" in first  # the part asked first is answered first
    assert "0.47" in a.text and "TFLOPS" in a.text


def test_listed_memories_belong_to_the_cards_in_order() -> None:
    text = _text("我有一张2080ti一张a4000，哪张推理更快？一个11g一个16g")
    assert "没读懂" not in text and "16GB" not in text.split("2080 Ti")[1][:6]
    lead = text.split("\n")[0]
    # bandwidth leads, the faster card first: 616 / 448 = 1.375
    assert "带宽" in lead and "616" in lead and "448" in lead and "1.38" in lead
    assert "16 GB" in text and "11 GB" in text  # the capacity line follows the speed line


def test_a800_vs_a100_names_the_links() -> None:
    text = _text("Is 8x A800 much slower than A100 for ring attention across NVLink?")
    lead = text.split("\n")[0]
    assert "8 links" in lead and "12 links" in lead and "400" in lead and "600" in lead
    assert "0.67" in lead  # 400 / 600


def test_modded_2080ti_is_its_stock_chip() -> None:
    text = _text("2080ti魔改22g跑大模型效果咋样")
    assert "616" in text and "53.8" in text  # same bandwidth and compute as the 11 GB board
    assert "FlashAttention-2" in text and "BF16" in text
    # decode ceiling with 90% of 22 GB as weights: 616 / 19.8 = 31.1 tokens/s
    assert "19.8" in text and "31.1" in text


def test_single_card_vs_two_cards_is_a_setup_comparison() -> None:
    text = _text("一张5090和两张2080ti 22g哪个快")
    lead = text.split("\n")[0]
    assert "44 GB" in lead  # 2 × 22 GB
    assert "32 GB" in lead and "卡间通信" in lead and "张量并行" in lead


def test_english_setup_totals() -> None:
    text = _text("2x 4090 vs 1x A100 which is faster for inference")
    assert "48 GB in all" in text  # 2 × 24 GB
    assert "2.02×" in text  # 2039 / 1008 = 2.023


def test_5090_24g_premise_is_corrected() -> None:
    text = _text("5090 24G和4090哪个推理快")
    first = text.split("\n")[0]
    assert "32 GB" in first and "5090 D V2" in first
    assert "1344" in text and "1.33" in text  # 1344 / 1008 = 1.333


def test_laptop_power_reads_the_laptop_part() -> None:
    text = _text("我的3080最高150w，训练比3090慢多少")
    assert text.startswith("按你说的功耗，这是笔记本版")
    assert "448" in text and "0.59" in text  # 42.0 / 71 = 0.59 (BF16 dense, FP32 accumulate)


def test_performance_word_for_one_card_goes_to_specs() -> None:
    _, results = answer("魔改2080ti 22G 性能怎么样，值得买吗")
    specs = [r for r in results if r.name == "gpu_specs"]
    assert specs and {g["id"] for g in specs[0].result["gpus"]} == {"rtx_2080_ti_22g", "rtx_2080_ti"}


# ---- the tool: ratios and siblings ------------------------------------------------------------------
def test_speed_ratios_from_the_tool() -> None:
    out = gpu_specs(GpuSpecsInput(names=["H20", "A100 80GB SXM"]))
    by = {r.field: r for r in out.speed_ratios}
    assert by["peak_half_tflops"].a_over_b == pytest.approx(148 / 312, abs=1e-3)
    assert by["mem_bw_gbs"].a_over_b == pytest.approx(4000 / 2039, abs=1e-3)
    assert by["nvlink_gbs_bidir"].b_over_a == pytest.approx(600 / 900, abs=1e-3)


def test_setup_totals_from_the_tool() -> None:
    out = gpu_specs(GpuSpecsInput(names=["RTX 5090", "2080ti 22g"], counts=[1, 4]))
    totals = {s.gpu: s for s in out.setups}
    assert totals["rtx_2080_ti_22g"].memory_gb_total == 88  # 4 × 22
    assert totals["rtx_2080_ti_22g"].peak_half_tflops_total == pytest.approx(4 * 53.8, abs=0.1)


def test_sibling_size_is_a_corrected_premise() -> None:
    spec = resolve_gpu("RTX 5090 24GB")
    assert spec.id == "rtx_5090d_v2" and spec.mem_bw_gbs == 1344  # 384 / 8 × 28
    assert spec.corrected_from and "32" in spec.corrected_from
    assert resolve_gpu("3080 16G").id == "rtx_3080_laptop"
    with pytest.raises(ToolInputError):
        resolve_gpu("H20 141G")  # an H200 is not an H20 at another size
    with pytest.raises(ToolInputError):
        resolve_gpu("2080ti 16g")  # no 16 GB 2080 Ti anywhere


def test_new_rows_match_their_datasheets() -> None:
    a4000 = resolve_gpu("A4000")
    assert (a4000.memory_gb, a4000.mem_bw_gbs, a4000.tdp_w, a4000.nvlink_gbs_bidir) == (16, 448, 140, 0)
    assert a4000.bf16_fp16_sparse_tflops == 153.4 and a4000.bf16_dense_tflops == pytest.approx(153.4 / 2)
    laptop = resolve_gpu("rtx 3080 laptop")
    assert laptop.fp32_tflops == pytest.approx(6144 * 2 * 1.71 / 1000, abs=0.05)
    assert laptop.mem_bw_gbs == 256 / 8 * 14
    assert resolve_gpu("A800 80GB SXM").nvlink_links == 8 and resolve_gpu("A100 80GB SXM").nvlink_links == 12


def test_equal_bandwidth_says_decode_is_the_same() -> None:
    # RTX 4090D keeps the 4090's 384-bit 21 Gbps GDDR6X (1,008 GB/s) and cuts compute: 165.2 / 147 = 1.124
    text = _text("4090d和4090推理哪个快")
    first = text.split("\n")[0]
    assert "显存带宽相同" in first and "1008" in first
    assert "1.12" in text


def test_value_word_brings_the_prices_back() -> None:
    _, results = answer("L40S 和 A100 训练哪个快，值不值")
    assert [r.name for r in results].count("gpu_price") == 2
    _, results = answer("L40S 和 A100 训练哪个快")
    assert "gpu_price" not in [r.name for r in results]  # a speed question alone is not a price question
