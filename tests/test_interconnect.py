"""Interconnect: link table, nccl-tests busbw arithmetic, expected busbw by topology, and the seed's rules.

Sources: NVIDIA/nccl-tests doc/PERFORMANCE.md (busbw = algbw · 2(n−1)/n), PCI-SIG rates, NVIDIA NVLink page,
measured busbw from nccl-tests/nccl issues (NVIDIA/nccl-tests #149, #178, #212; NVIDIA/nccl #1374, #1161, #1639).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tools.errors import ToolInputError
from tools.interconnect import (
    InterconnectInput,
    algbw_to_busbw,
    allreduce_time_s,
    busbw_factor,
    expected_busbw,
    interconnect_advice,
    links,
    resolve_link,
)


@given(st.integers(min_value=1, max_value=4096))
def test_allreduce_busbw_factor_is_2_n_minus_1_over_n(n: int) -> None:
    assert busbw_factor("all_reduce", n) == pytest.approx(2 * (n - 1) / n)
    assert busbw_factor("all_gather", n) == pytest.approx((n - 1) / n)
    assert busbw_factor("broadcast", n) == 1.0


def test_algbw_to_busbw_on_8_ranks() -> None:
    assert algbw_to_busbw(100, 8) == pytest.approx(175.0)  # 100 × 2·7/8


def test_ring_allreduce_time_reference_examples() -> None:
    # §2.2: 14 GB of bf16 gradients (7B), 8 GPUs: NVSwitch busbw 230 → ≈0.11 s; PCIe 20–25 → ≈1.0–1.2 s
    assert allreduce_time_s(14e9, 8, 230) == pytest.approx(1.75 * 14 / 230, rel=1e-9)
    assert 0.10 < allreduce_time_s(14e9, 8, 230) < 0.12
    assert 0.95 < allreduce_time_s(14e9, 8, 25) < 1.0 and 1.2 < allreduce_time_s(14e9, 8, 20) < 1.25
    assert allreduce_time_s(14e9, 1, 20) == 0


def test_link_table_states_both_directions_consistently() -> None:
    for link in links():
        if link.per_direction_gbs is not None:
            assert link.bidirectional_gbs == pytest.approx(2 * link.per_direction_gbs), link.id
        if link.gbit:
            assert link.per_direction_gbs == pytest.approx(link.gbit / 8), link.id  # Gb/s → GB/s
    by_id = {lk.id: lk for lk in links()}
    assert by_id["pcie4_x16"].per_direction_gbs == 31.5  # PCIe 4.0 x16: 16 GT/s × 16 × 128/130 / 8
    assert by_id["nvlink3"].bidirectional_gbs == 600 and by_id["nvlink3"].per_direction_gbs == 300
    assert by_id["nvlink4"].bidirectional_gbs == 900
    assert by_id["ib_hdr"].per_direction_gbs == 25  # 200 Gb/s
    ids = set(by_id)
    assert {
        "pcie3_x16",
        "pcie5_x16",
        "nvlink2",
        "nvlink5",
        "nvswitch",
        "ib_edr",
        "ib_ndr",
        "roce_100g",
        "eth_10g",
        "eth_25g",
        "eth_100g",
    } <= ids


@pytest.mark.parametrize(
    "text, link_id",
    [
        ("PCIe 4.0", "pcie4_x16"),
        ("pcie gen5", "pcie5_x16"),
        ("NVLink 3", "nvlink3"),
        ("100G IB", "ib_edr"),
        ("IB HDR", "ib_hdr"),
        ("RoCE 200G", "roce_200g"),
        ("万兆", "eth_10g"),
        ("千兆", "eth_1g"),
        ("25GbE", "eth_25g"),
    ],
)
def test_resolve_link(text: str, link_id: str) -> None:
    assert resolve_link(text).id == link_id


@pytest.mark.parametrize(
    "gpu, n, topo, measured",
    [
        ("A100 80G", 8, None, 208),  # nccl-tests #178: 208 GB/s on 8×A100 SXM
        ("A100-SXM4-80GB", 8, "NV12", 230),  # ml-engineering well-tuned figure
        ("H100", 8, None, 370),  # nccl-tests #212: ring ≈ 370
        ("H100", 8, "nvswitch", 480),  # NVLS ≈ 480
        ("H800", 8, None, 215),  # nccl #1374
        ("H100 PCIe", 2, "NV12", 116),  # nccl #1161: 2 bridged H100 PCIe
        ("5090", 8, None, 28),  # nccl #1639: 8×5090 on PCIe 5.0
        ("A100 PCIe", 8, "SYS", 20),  # nccl-tests #178: ring over PCIe/CPU ≈ 20
    ],
)
def test_expected_busbw_brackets_published_measurements(gpu: str, n: int, topo: str | None, measured: float) -> None:
    r = expected_busbw(gpu, n, topo)
    assert r.low_gbs <= measured <= r.high_gbs
    assert r.flag_below_gbs == pytest.approx(r.low_gbs / 2)


def test_nvlink_beats_pcie_by_an_order_of_magnitude() -> None:
    assert expected_busbw("A100 80G", 8).low_gbs > 5 * expected_busbw("4090", 8).high_gbs


def test_impossible_topologies_and_non_nvidia_are_errors() -> None:
    with pytest.raises(ToolInputError):
        expected_busbw("4090", 8, "nvswitch")
    with pytest.raises(ToolInputError):
        expected_busbw("910B", 8)
    assert expected_busbw("4090", 1).high_gbs == 0


def test_multi_node_is_capped_by_the_nics() -> None:
    # 2 nodes × 8 H100, one 400G NDR NIC per node: ≤ 50 GB/s × 0.95 per direction
    one = expected_busbw("H100", 16, nodes=2, network="IB NDR", nics_per_node=1)
    eight = expected_busbw("H100", 16, nodes=2, network="IB NDR", nics_per_node=8)
    assert one.high_gbs <= 50 * 0.95 + 1e-9
    assert eight.high_gbs > one.high_gbs
    assert eight.high_gbs <= expected_busbw("H100", 8).high_gbs


def _statuses(**kw) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {r.id: r.status for r in interconnect_advice(InterconnectInput(**kw)).rules}


def test_seed_rules_as_checkable_advice() -> None:
    assert _statuses(gpu="A100 PCIe", n_gpus=2)["two_cards_pcie_ok"] == "ok"
    assert _statuses(gpu="4090", n_gpus=8)["four_plus_want_nvlink"] == "warn"
    assert _statuses(gpu="L40S", n_gpus=4, parallelism="tp")["four_plus_want_nvlink"] == "fail"
    assert "four_plus_want_nvlink" not in _statuses(gpu="A100 80G", n_gpus=8)
    assert _statuses(gpu="A100 80G", n_gpus=16, nodes=2, network="10G")["ten_g_single_node_only"] == "fail"
    assert _statuses(gpu="A100 80G", n_gpus=16, nodes=2, network="千兆")["one_g_management_only"] == "fail"
    assert _statuses(gpu="A100 80G", n_gpus=16, nodes=2, network="100G")["multi_node_needs_rdma"] == "warn"
    assert _statuses(gpu="A100 80G", n_gpus=16, nodes=2, network="IB HDR")["multi_node_ok"] == "ok"
    assert _statuses(gpu="H100", n_gpus=16, nodes=2, network="RoCE 100G")["multi_node_ok"] == "ok"
    assert _statuses(gpu="4090", n_gpus=2, network="10G")["ten_g_single_node_only"] == "info"  # single node: fine


def test_gradient_sync_time_for_7b_on_8_a100() -> None:
    out = interconnect_advice(InterconnectInput(gpu="A100 80G", n_gpus=8, params_b=7))
    s = out.gradient_sync
    assert s.gb == 14.0  # 7e9 × 2 bytes (bf16)
    assert s.seconds_low == pytest.approx(1.75 * 14 / 240, abs=1e-3)
    assert s.seconds_high == pytest.approx(1.75 * 14 / 200, abs=1e-3)
    z3 = interconnect_advice(InterconnectInput(gpu="A100 80G", n_gpus=8, params_b=7, parallelism="zero3")).gradient_sync
    assert z3.seconds_high == pytest.approx(1.5 * s.seconds_high, rel=1e-3)  # ZeRO paper: 1.5× DP traffic


def test_gradient_sync_over_a_named_link() -> None:
    out = interconnect_advice(InterconnectInput(n_gpus=2, params_b=7, link="PCIe 4.0"))
    # 2 GPUs: factor 1.0; 14 GB / (31.5 GB/s × efficiency 0.3–0.7)
    assert out.gradient_sync.seconds_low == pytest.approx(14 / (31.5 * 0.7), rel=1e-3)


def test_ascend_uses_hccs_not_the_pcie_rule() -> None:
    out = interconnect_advice(InterconnectInput(gpu="910B", n_gpus=8, params_b=7))
    assert out.topology == "hccs" and out.expected_busbw is None
    assert "four_plus_want_nvlink" not in {r.id for r in out.rules}


def test_multi_node_without_network_asks_for_it() -> None:
    out = interconnect_advice(InterconnectInput(gpu="A100 80G", n_gpus=16, nodes=2, params_b=7))
    assert {r.id: r.status for r in out.rules}["multi_node_network_unknown"] == "warn"
    assert out.gradient_sync is None  # not guessed without the network
    assert out.expected_busbw.low_gbs == 200  # one HGX A100 server


def test_zero3_sync_note_says_it_repeats_every_micro_step_and_dp_that_cannot_fit_is_flagged() -> None:
    from tools.interconnect import InterconnectInput, interconnect_advice

    z3 = interconnect_advice(InterconnectInput(gpu="4090", n_gpus=8, params_b=7, parallelism="zero3"))
    assert "EVERY micro-step" in z3.gradient_sync.note
    dp = interconnect_advice(InterconnectInput(gpu="4090", n_gpus=8, params_b=7, parallelism="dp"))
    # 7e9 × 16 B = 112 GB per GPU > 24 GB (ZeRO paper, mixed-precision AdamW)
    assert any("112 GB" in n and "ZeRO-3/FSDP" in n for n in dp.notes)
    small = interconnect_advice(InterconnectInput(gpu="A100 80G", n_gpus=8, params_b=1, parallelism="dp"))
    assert not any("cannot hold" in n for n in small.notes)  # 16 GB fits in 80 GB
