"""Delivery acceptance: the checklist output verified against what was rented (防止以次充好)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.diagnosis.acceptance import parse_expect
from tools.diagnosis.tool import diagnose_text
from tools.errors import ToolInputError

SAMPLES = Path(__file__).parent / "diagnosis_samples"


def status(report) -> dict[str, str]:
    return {r.check: r.status for r in report.acceptance}


@pytest.mark.parametrize(
    "spec,count,model",
    [
        ("8x A100-SXM4-80GB", 8, "A100-SXM4-80GB"),
        ("8 x H100 80GB", 8, "H100 80GB"),
        ("4×4090", 4, "4090"),
        ("8卡A100", 8, "A100"),
        ("4090", None, "4090"),
        ("H100", None, "H100"),
    ],
)
def test_parse_expect(spec: str, count: int | None, model: str) -> None:
    assert parse_expect(spec) == (count, model)


@pytest.mark.parametrize("spec", ["", "   ", "0x A100", "99x A100", "x" * 300])
def test_parse_expect_rejects(spec: str) -> None:
    with pytest.raises(ToolInputError):
        parse_expect(spec)


def test_full_checklist_output_passes() -> None:
    r = diagnose_text((SAMPLES / "checklist_output_8xa100_pass.txt").read_text(encoding="utf-8"), "8x A100-SXM4-80GB")
    assert set(status(r).values()) == {"pass"}
    assert not any(f.id == "delivery_mismatch" for f in r.findings)


def test_a800_delivered_for_a100_fails_count_model_and_torch() -> None:
    r = diagnose_text(
        (SAMPLES / "checklist_output_a800_instead_of_a100.txt").read_text(encoding="utf-8"), "8x A100-SXM4-80GB"
    )
    s = status(r)
    assert (s["count"], s["model"], s["driver_cuda"]) == ("fail", "fail", "fail")  # 7 GPUs, A800, torch sees 7
    # severity policy: a mismatch is the provider's to fix, not a hardware fault
    assert r.severity == "warning" and r.findings[0].id == "delivery_mismatch" and r.verdict == "ask_provider"
    assert "以次充好" in r.next_action.zh


def test_40gb_card_fails_an_80gb_contract() -> None:
    # A100 40GB shows 40960 MiB = 42.9 GB; an 80 GB contract needs ≥ 0.95 × 80 GB = 76 GB
    text = (
        "| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |\n"
        "|   0  NVIDIA A100-SXM4-40GB          On  | 00000000:07:00.0 Off |                    0 |\n"
        "| N/A   33C    P0              61W / 400W |      4MiB / 40960MiB |      0%      Default |\n"
    )
    r = diagnose_text(text, "1x A100 80GB SXM")
    s = status(r)
    assert s["memory"] == "fail" and s["model"] == "fail" and s["count"] == "pass"


def test_pcie_topology_fails_an_sxm_contract_and_unknowns_stay_unknown() -> None:
    topo = (SAMPLES / "topo_4x4090_pcie_spaces.txt").read_text(encoding="utf-8").replace("GPU", "GPU")
    r = diagnose_text(topo, "4x A100-SXM4-80GB")
    s = status(r)
    assert s["nvlink"] == "fail"
    assert s["count"] == "unknown" and s["bandwidth"] == "unknown" and s["driver_cuda"] == "unknown"


def test_low_bandwidth_fails() -> None:
    r = diagnose_text(
        (SAMPLES / "nccl_tests_8xa100_nvlink_not_used.txt").read_text(encoding="utf-8"), "8x A100-SXM4-80GB"
    )
    assert status(r)["bandwidth"] == "fail"  # 19.6 GB/s vs ≥100 (half of the 200 GB/s low end)
