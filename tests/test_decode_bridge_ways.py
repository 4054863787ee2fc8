"""A GeForce NVLink bridge joins a pair of cards (NVIDIA's RTX 3090 bridge is 2-way), so tensor parallel over four
RTX 3090s all-reduces over PCIe, where GeForce drivers disable P2P; two bridged cards keep NVLink, and SXM boards on
NVSwitch join all eight."""

from __future__ import annotations

from tools.memory_decode import DecodeSpeedInput, decode_speed


def _run(gpu: str, gpus: int, bridge: bool = False) -> dict:
    return decode_speed(
        DecodeSpeedInput(model="Qwen2.5-72B", gpu=gpu, precision="int4", gpus=gpus, nvlink_bridge=bridge)
    ).model_dump()


def test_four_bridged_3090s_all_reduce_over_pcie() -> None:
    four = _run("RTX 3090", 4)
    assert four["tp_link"] == "pcie" and four["tp_comm_ms"] > 0
    # 4 × 4090 (1008 GB/s) must not come out slower than 4 × 3090 (936 GB/s): both cross PCIe
    assert _run("RTX 4090", 4)["tokens_per_s_mid"] >= four["tokens_per_s_mid"]


def test_a_bridged_pair_and_an_sxm_board_keep_nvlink() -> None:
    assert _run("RTX 3090", 2, bridge=True)["tp_link"] == "nvlink"
    assert _run("RTX 3090", 4, bridge=True)["tp_link"] == "pcie"  # a bridge joins two cards, not four
    assert _run("A100 80GB SXM", 8)["tp_link"] == "nvlink"


def test_a_pair_of_rented_3090s_is_not_assumed_bridged() -> None:
    # rented 3090 servers rarely carry the 2-way NVLink bridge: without one the pair all-reduces over PCIe, so two
    # 3090s (936 GB/s) come out no faster than two 4090s (1008 GB/s, no NVLink at all)
    pair = _run("RTX 3090", 2)
    assert pair["tp_link"] == "pcie" and pair["tp_comm_ms"] > 0
    assert _run("RTX 4090", 2)["tokens_per_s_mid"] >= pair["tokens_per_s_mid"]
