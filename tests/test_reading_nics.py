"""NICs per server, their line rate and a measured bandwidth in bits per second, read the way people write them.
Hand arithmetic: 600 Gb/s ÷ 8 = 75 GB/s; 4 × 200 Gb/s HDR = 800 Gb/s = 100 GB/s per server."""

from __future__ import annotations

import pytest

from assistant.offline import answer
from assistant.offline.reading import read_one


@pytest.mark.parametrize(
    ("question", "nics", "gbps"),
    [
        ("two H800 machines, each machine has 8 *400 Gbps nic, nccl-tests looks slow", 8, 400),
        ("两台机器，每台4张200G的IB网卡，nccl all_reduce busbw 只有40GB/s", 4, 200),
        ("each node has one NIC with 10Gbps speed, all_reduce_perf across 2 nodes", 1, 10),
        ("每台机器8张400G网卡", 8, 400),
    ],
)
def test_nics_per_server_and_their_rate(question: str, nics: int, gbps: float) -> None:
    f = read_one(question)
    assert (f.nics_per_node, f.link_gbps) == (nics, gbps)


def test_a_card_name_is_not_a_node_count() -> None:
    f = read_one("nccl-tests on two A100 machines, each machine has 8 *100 Gbps network nic")
    assert f.nodes == 2  # "A100 machines" is not 100 machines


def test_measured_bandwidth_in_bits_in_an_nccl_context() -> None:
    f = read_one("nccl-tests on two A100 machines, 8 *100 Gbps nic each. Bandwidth can reach 600Gbps. Normal?")
    assert f.measured_busbw_gbs == pytest.approx(75.0)
    assert read_one("我家宽带 600Gbps 吗").measured_busbw_gbs is None  # no nccl-tests, no measurement


def test_the_stated_ib_nics_set_the_expected_busbw() -> None:
    a, results = answer("两台机器各8卡A100，每台4张200G的IB网卡，nccl all_reduce busbw只有40GB/s正常吗")
    ic = next(r for r in results if r.name == "interconnect_advice")
    assert ic.args.get("nics_per_node") == 4 and "200" in str(ic.args.get("network"))
    assert a.text.splitlines()[0].startswith("偏低")  # 40 GB/s against ≈100 GB/s of HDR line rate per server
