"""GPU table: datasheet values, forgiving lookup, dense vs sparse, and the seed's corrections.

Expected numbers are copied from the datasheets named beside each assertion, not from the code.
"""

from __future__ import annotations

import re

import pytest

from tools.errors import ToolInputError
from tools.gpus import GpuSpecsInput, all_gpus, compare_gpus, gpu_specs, resolve_gpu
from tools.registry import run_tool

CONFIDENCE = {"official", "partner", "3rd-party", "derived", "estimate"}


def test_table_has_at_least_28_gpus_each_with_source_as_of_confidence() -> None:
    gpus = all_gpus()
    assert len(gpus) >= 28
    for g in gpus:
        assert g.source.strip(), g.id
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", g.as_of), g.id
        assert g.confidence in CONFIDENCE, g.id
        assert g.memory_gb > 0


@pytest.mark.parametrize(
    "name",
    [
        # the cards the issue lists as what teams in China rent
        "A100 40G",
        "A100 80G",
        "A100 PCIe",
        "A100 SXM",
        "A800 PCIe",
        "A800 SXM",
        "H100 SXM",
        "H100 PCIe",
        "H100 NVL",
        "H800",
        "H20",
        "H200",
        "B200",
        "L40S",
        "L40",
        "L20",
        "L4",
        "A10",
        "A40",
        "RTX A6000",
        "RTX 6000 Ada",
        "V100",
        "T4",
        "RTX 3090",
        "4090",
        "4090D",
        "5090",
        "5090D",
        "910B",
    ],
)
def test_every_card_the_issue_names_resolves(name: str) -> None:
    assert resolve_gpu(name).name


@pytest.mark.parametrize(
    "name, gpu_id, memory_gb, bw_gbs",
    [
        # NVIDIA A100 datasheet (JUN21): SXM4 80GB 2,039 GB/s; PCIe 80GB 1,935 GB/s; 40GB HBM2 1,555 GB/s
        ("NVIDIA A100-SXM4-80GB", "a100_80gb_sxm", 80, 2039),
        ("NVIDIA A100 80GB PCIe", "a100_80gb_pcie", 80, 1935),
        ("A100-PCIE-40GB", "a100_40gb_pcie", 40, 1555),
        # H100 page / H100 PCIe product brief PB-11133-001: SXM 3.35 TB/s, PCIe 2.0 TB/s, NVL 94GB 3.9 TB/s
        ("NVIDIA H100 80GB HBM3", "h100_sxm_80gb", 80, 3350),
        ("H100 PCIe", "h100_pcie_80gb", 80, 2000),
        ("H100 NVL", "h100_nvl_94gb", 94, 3900),
        ("H200", "h200_sxm_141gb", 141, 4800),
        ("H20", "h20", 96, 4000),
        # Ada whitepaper App. A: RTX 4090 24 GB GDDR6X 1,008 GB/s
        ("NVIDIA GeForce RTX 4090", "rtx_4090", 24, 1008),
        ("L40S", "l40s", 48, 864),
        ("Tesla T4", "t4", 16, 320),
    ],
)
def test_memory_and_bandwidth_match_datasheets(name: str, gpu_id: str, memory_gb: float, bw_gbs: float) -> None:
    g = resolve_gpu(name)
    assert (g.id, g.memory_gb, g.mem_bw_gbs) == (gpu_id, memory_gb, bw_gbs)


def test_h100_pcie_is_hbm2e_not_hbm3_and_not_3_35_tbs() -> None:
    g = resolve_gpu("H100 PCIe")
    assert g.memory_type == "HBM2e" and g.mem_bw_gbs != 3350 and g.tdp_w == 350


@pytest.mark.parametrize(
    "name, bf16_dense, bf16_sparse",
    [
        ("A100 80G", 312, 624),  # A100 datasheet: BF16 312 | 624*
        ("H100 SXM", 989.4, 1979),  # H100 page prints 1,979* (with sparsity) → 989.4 dense
        ("4090", 165.2, 330.4),  # Ada whitepaper: FP16/BF16 with FP32 accumulate 165.2 | 330.4
        ("L40S", 362.05, 733),  # L40S datasheet prints 362.05 | 733* (NVIDIA's own rounding)
        ("B200", 2250, 4500),  # HGX B200: FP16/BF16 4.5 PF* per GPU → 2.25 PF dense
    ],
)
def test_bf16_dense_is_about_half_of_the_sparse_headline(name: str, bf16_dense: float, bf16_sparse: float) -> None:
    g = resolve_gpu(name)
    assert g.bf16_dense_tflops == pytest.approx(bf16_dense)
    assert g.bf16_fp16_sparse_tflops == pytest.approx(bf16_sparse)


def test_dense_and_sparse_are_never_mixed_up() -> None:
    # For every card with both figures, sparse is twice dense (NVIDIA's 2:4 structured sparsity); 2% slack for
    # datasheet rounding (L40S prints 362.05 | 733*). A mix-up would be off by 2×.
    for g in all_gpus():
        for dense, sparse in [
            (g.tf32_dense_tflops, g.tf32_sparse_tflops),
            (g.bf16_dense_tflops, g.bf16_fp16_sparse_tflops),
            (g.fp8_dense_tflops, g.fp8_sparse_tflops),
            (g.int8_dense_tops, g.int8_sparse_tops),
        ]:
            if dense and sparse:
                assert sparse == pytest.approx(2 * dense, rel=0.02), g.id


def test_fp8_is_on_hopper_and_ada_but_not_ampere_volta_turing() -> None:
    for name in ("H100", "H800", "H20", "L40S", "L40", "L4", "4090", "RTX 6000 Ada"):
        assert resolve_gpu(name).fp8_dense_tflops, name
    for name in ("A100 80G", "A800", "A10", "A40", "3090", "V100", "T4"):
        assert resolve_gpu(name).fp8_dense_tflops is None, name


def test_china_skus_cap_nvlink() -> None:
    # A800 = A100 with NVLink 600 → 400 GB/s; H800 NVLink 400 vs H100 900 (CTyun; reference §0)
    assert resolve_gpu("A800").nvlink_gbs_bidir == 400 and resolve_gpu("A100 SXM").nvlink_gbs_bidir == 600
    assert resolve_gpu("H800").nvlink_gbs_bidir == 400 and resolve_gpu("H100").nvlink_gbs_bidir == 900
    assert resolve_gpu("A100 SXM").nvlink_gbs_per_direction == 300


def test_geforce_has_no_nvlink_and_4090_is_pcie_gen4() -> None:
    g = resolve_gpu("4090")
    assert not g.has_nvlink and g.pcie_gen == 4


@pytest.mark.parametrize("text", ["910B", "昇腾910B", "Ascend 910B", "华为910B"])
def test_ascend_is_marked_non_nvidia_with_low_confidence(text: str) -> None:
    g = resolve_gpu(text)
    assert g.vendor == "Huawei" and g.is_nvidia is False
    assert g.confidence != "official"


@pytest.mark.parametrize(
    "text, gpu_id",
    [
        ("4090", "rtx_4090"),
        ("a100 80g", "a100_80gb_sxm"),
        ("A100-SXM4-80GB", "a100_80gb_sxm"),
        ("H800", "h800_sxm"),
        ("8x A100 80GB", "a100_80gb_sxm"),
        ("4张4090", "rtx_4090"),
        ("NVIDIA GeForce RTX 4090 D", "rtx_4090d"),
        ("Tesla V100-SXM2-32GB", "v100_32gb_sxm2"),
        ("a800 pcie", "a800_80gb_pcie"),
        ("ＲＴＸ　４０９０", "rtx_4090"),
    ],
)
def test_forgiving_lookup(text: str, gpu_id: str) -> None:
    assert resolve_gpu(text).id == gpu_id


def test_vague_name_says_which_variant_it_picked() -> None:
    g = resolve_gpu("a100")
    assert g.lookup_note and "PCIe" in g.lookup_note
    assert resolve_gpu("NVIDIA A100-SXM4-80GB").lookup_note is None  # exact nvidia-smi name: no guess


def test_aliases_do_not_collide() -> None:
    seen: dict[str, str] = {}
    for g in all_gpus():
        for alias in g.aliases + g.nvidia_smi_names:
            assert resolve_gpu(alias).id == g.id, (alias, g.id, seen.get(alias))
            seen[alias] = g.id


def test_unknown_gpu_is_a_bilingual_error_with_suggestions() -> None:
    with pytest.raises(ToolInputError) as err:
        resolve_gpu("RTX 9090")
    assert err.value.zh and err.value.en and err.value.suggestions
    assert any("4090" in s or "5090" in s for s in err.value.suggestions)


def test_compare_three_cards_side_by_side() -> None:
    comp = compare_gpus(["4090", "A100 80G", "H100"])
    bw = next(r for r in comp.rows if r.field == "mem_bw_gbs")
    assert bw.values == [1008, 2039, 3350] and bw.best_index == 2
    # 989.4 / 312 = 3.171 (datasheet arithmetic)
    assert comp.ratios["h100_sxm_80gb/rtx_4090:bf16_dense_tflops"] == pytest.approx(989.4 / 165.2, rel=1e-3)
    with pytest.raises(ToolInputError):
        compare_gpus(["4090", "3090", "A10", "A40", "L4"])


def test_tool_adds_seed_corrections_for_the_cards_asked() -> None:
    out = gpu_specs(GpuSpecsInput(names=["H100 PCIe", "A100 PCIe"]))
    ids = {n.id for n in out.seed_notes}
    assert {"h100_pcie_not_3_35", "a100_form_factor_bandwidth", "pcie_vs_nvlink_bidirectional"} <= ids
    note = next(n for n in out.seed_notes if n.id == "h100_pcie_not_3_35")
    assert "2.0 TB/s" in note.en and "2.0 TB/s" in note.zh
    bidir = next(n for n in out.seed_notes if n.id == "pcie_vs_nvlink_bidirectional")
    assert "31.5" in bidir.en and "300" in bidir.en  # per-direction figures beside the bidirectional ones


def test_registry_runs_gpu_specs_and_returns_errors_as_data() -> None:
    ok = run_tool("gpu_specs", {"names": ["4090"]})
    assert ok["gpus"][0]["memory_gb"] == 24
    bad = run_tool("gpu_specs", {"names": ["not-a-gpu-xyz"]})
    assert "error" in bad and bad["error"]["zh"] and bad["error"]["en"]
    too_many = run_tool("gpu_specs", {"names": ["a", "b", "c", "d", "e"]})
    assert "error" in too_many


def test_known_family_at_an_unknown_memory_size_says_what_exists() -> None:
    # The table has the 24 GB datasheet 4090 and the modded 48 GB board; a 96 GB 4090 does not exist.
    with pytest.raises(ToolInputError) as err:
        resolve_gpu("4090 96G")
    assert "24GB" in err.value.en and "48GB" in err.value.zh


@pytest.mark.parametrize(
    ("name", "gpu_id", "gb", "mib"),
    [
        # modded boards resolve by name + stated capacity; totals from public nvidia-smi output:
        # tinygrad/open-gpu-kernel-modules#36 "NVIDIA GeForce RTX 4090 … / 49140MiB"; 2080 Ti 22G "… / 22528MiB"
        ("4090 48G", "rtx_4090_48g", 48, 49140),
        ("4090魔改48G", "rtx_4090_48g", 48, 49140),
        ("RTX 4090 48GB", "rtx_4090_48g", 48, 49140),
        ("2080ti 22g", "rtx_2080_ti_22g", 22, 22528),
        ("2080 Ti 22G", "rtx_2080_ti_22g", 22, 22528),
        ("2080 Ti", "rtx_2080_ti", 11, 11264),  # 11 GiB = 11 × 1024 MiB
        ("4080 super", "rtx_4080_super", 16, 16376),
        ("4080", "rtx_4080", 16, 16376),
        ("3090 Ti", "rtx_3090_ti", 24, 24564),
        ("A30", "a30", 24, 24258),
        # nvidia-smi "Tesla V100-SXM2-16GB … 5MiB / 16384MiB", driver 570.211.01 (1CatAI/1Cat-vLLM#85)
        ("V100 16G", "v100_16gb_sxm2", 16, 16384),
        ("L40", "l40", 48, 46068),
        ("T4", "t4", 16, 15360),
        ("A10", "a10", 24, 23028),
    ],
)
def test_cards_chinese_renters_get(name: str, gpu_id: str, gb: int, mib: int) -> None:
    spec = resolve_gpu(name)
    assert (spec.id, spec.memory_gb, spec.nvidia_smi_total_mib) == (gpu_id, gb, mib)
    assert spec.reported_gb == pytest.approx(mib * 2**20 / 1e9, abs=1e-3)


def test_modded_cards_carry_the_off_warranty_caveat() -> None:
    for name in ("4090 48G", "2080ti 22g"):
        spec = resolve_gpu(name)
        assert spec.modded and "保修" in spec.caveat and "warranty" in spec.caveat
        assert spec.reliability and spec.source and spec.as_of
    # the stock card is never silently swapped for the modded one, nor offered as "the other variant"
    assert resolve_gpu("4090").id == "rtx_4090" and resolve_gpu("4090").lookup_note is None


# ---------------------------------------------------------------- nvidia-smi memory totals -------
# Totals as printed by nvidia-smi on genuine cards, read from public logs (each row's nvidia_smi_total_source):
# RTX 4090 24564 MiB (vllm-project/vllm#7553), RTX 3090 24576 MiB (noonghunna/club-3090#390),
# H100 80GB HBM3 81559 MiB (NVIDIA/nccl#1264), A100 80GB 81920 MiB and A100 40GB 40960 MiB, L40S 46068 MiB
# (modal-labs/modal-client PR #2797), A800-SXM4-80GB 81920 MiB (dexmal/dexbotic#41). H20: none found → null.
@pytest.mark.parametrize(
    ("name", "mib"),
    [
        ("RTX 4090", 24564),
        ("RTX 3090", 24576),
        ("H100 SXM", 81559),
        ("A100 80GB SXM", 81920),
        ("A100 40GB SXM", 40960),
        ("L40S", 46068),
        ("A800 80GB SXM", 81920),
    ],
)
def test_nvidia_smi_totals_are_the_cited_ones(name: str, mib: int) -> None:
    spec = resolve_gpu(name)
    assert spec.nvidia_smi_total_mib == mib
    assert spec.nvidia_smi_total_source and "#" in spec.nvidia_smi_total_source


def test_every_card_has_a_driver_total_with_its_source_and_confidence() -> None:
    for g in all_gpus():
        assert g.nvidia_smi_total_mib and g.nvidia_smi_total_source, g.id
        assert g.nvidia_smi_total_confidence in ("observed", "observed_unlinked", "derived"), g.id
        if g.nvidia_smi_total_confidence == "derived":
            assert g.nvidia_smi_total_source.startswith("derived:"), g.id
        # GiB-sized memory: the driver total never falls far below the decimal nominal (V100 16GB: 16384 MiB = 17.2 GB)
        assert g.reported_gb > 0.95 * g.memory_gb, g.id


def _check(gpu: str, value: float, unit: str = "auto") -> dict:
    return run_tool("check_reported_memory", {"gpu": gpu, "seen_value": value, "seen_unit": unit})


def test_4090_showing_23gb_is_normal() -> None:
    # 24564 MiB / 1024 = 23.988 GiB: truncated it reads "23GB", rounded "24GB" — both a genuine card.
    for value in (23, 24, 23.99):
        out = _check("4090", value)
        assert out["verdict"] == "normal", value
        assert out["expected_mib"] == 24564 and out["expected_gib"] == 23.99
    assert _check("4090", 24564)["verdict"] == "normal"  # the raw MiB figure
    assert _check("4090", 24564, "MiB")["seen_mib_low"] == 24564
    # the datasheet 24 GB in MiB: 24e9 / 2^20 = 22,888.2
    assert _check("4090", 23)["datasheet_mib"] == pytest.approx(22888.2, abs=0.1)


def test_short_or_oversized_memory_is_flagged() -> None:
    assert _check("4090", 20)["verdict"] == "suspicious"  # 20 GiB ≈ 20,480 MiB ≪ 24,564
    assert _check("4090", 16384, "MiB")["verdict"] == "suspicious"
    assert _check("4090", 48)["verdict"] == "more_than_spec"  # memory-modded 48 GB cards
    assert _check("H100", 81559, "MiB")["verdict"] == "normal"
    assert _check("A100 80G", 80, "GB")["verdict"] == "normal"  # 80 GiB read = 81,920 MiB exactly


def test_uncited_card_gets_unknown_not_a_guess() -> None:
    # The H800's total is derived from the H100 SXM board, not read from a public log: good for sizing only.
    out = _check("H800", 79)
    assert out["verdict"] == "unknown" and out["expected_mib"] is None
    assert "81,559" in " ".join(out["notes"])
    assert "gpu-advisor checklist" in out["commands"] and "nvidia-smi -q -d MEMORY" in out["commands"]
