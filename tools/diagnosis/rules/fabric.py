"""InfiniBand/RoCE port state and measured RDMA bandwidth (ibstat, ibstatus, ibv_devinfo, ibdev2netdev, ib_write_bw).

ibstat(8): a usable port is State: Active + Physical state: LinkUp. ibdev2netdev's (Up)/(Down) is the
netdev (IPoIB/Ethernet) state and says nothing about RDMA on an InfiniBand port (imbue-ai
cluster-health#4), so it is inventory only. perftest reports MB/sec as 10^6 bytes/s.
"""

from __future__ import annotations

from tools.diagnosis.rules.context import Ctx

BW_FLAG_SHARE = 0.7  # ib_write_bw average below 70 % of the port's rate is flagged (a clean run reaches ~90 %+)


def rules_infiniband(c: Ctx) -> None:
    ib = c.p.get("infiniband")
    if not ib:
        return
    down = [p for p in ib.ports if not p.usable]
    up = [p for p in ib.ports if p.usable]
    if down:
        names = ", ".join(f"{p.device} port {p.port}" for p in down)
        c.add(
            "ib_port_down",
            "warning",
            (
                f"InfiniBand/RDMA 端口没有链路：{names}（{down[0].state}/{down[0].phys_state}）",
                f"InfiniBand/RDMA port without a link: {names} ({down[0].state}/{down[0].phys_state})",
            ),
            [f"{p.device} port {p.port}: " + " / ".join(p.lines) for p in down][:4],
            causes=[
                (
                    "线缆/光模块没插好或坏了，交换机端口关闭，或端口被禁用（Disabled）",
                    "A loose or faulty cable/transceiver, a switch port that is off, or the port is disabled",
                )
            ],
            actions=[
                (
                    f"请服务商检查 {names} 的线缆和交换机端口（ibstat 应为 Active/LinkUp）；多机训练前用 NCCL_IB_HCA 只列出正常的网卡"
                    + (f"（如 `NCCL_IB_HCA={','.join(sorted({p.device for p in up}))}`）" if up else "")
                    + "。",
                    f"Ask the provider to check the cable and switch port of {names} (ibstat should show Active/LinkUp); until then list only healthy HCAs in NCCL_IB_HCA"
                    + (f" (e.g. `NCCL_IB_HCA={','.join(sorted({p.device for p in up}))}`)" if up else "")
                    + ".",
                )
            ],
        )
    rates = sorted({p.rate_gbps for p in up if p.rate_gbps})
    if len(rates) > 1 and rates[0] < rates[-1] / 2 and all(p.link_layer != "Ethernet" for p in up):
        slow = [p for p in up if p.rate_gbps == rates[0]]
        c.add(
            "ib_rate_degraded",
            "warning",
            (
                f"有 IB 端口速率只有 {rates[0]:g} Gb/s，其他为 {rates[-1]:g} Gb/s",
                f"Some IB ports run at {rates[0]:g} Gb/s while others run at {rates[-1]:g} Gb/s",
            ),
            [f"{p.device} port {p.port}: Rate {p.rate_gbps:g}" for p in slow][:4],
            actions=[
                (
                    "请服务商检查这些端口的线缆/光模块（降速协商）。",
                    "Ask the provider to check those ports' cables/transceivers (the link negotiated down).",
                )
            ],
        )
    for b in ib.bw:
        avg = b.average_gbps
        port = next((p for p in ib.ports if p.device == b.device and p.rate_gbps), None) or (
            up[0] if len(up) == 1 and up[0].rate_gbps else None
        )
        if avg is None or port is None or not port.rate_gbps:
            continue
        if avg < BW_FLAG_SHARE * port.rate_gbps:
            c.add(
                "ib_bandwidth_low",
                "warning",
                (
                    f"ib_write_bw 实测 {avg:.0f} Gb/s，只有端口速率 {port.rate_gbps:g} Gb/s 的 {avg / port.rate_gbps:.0%}",
                    f"ib_write_bw measured {avg:.0f} Gb/s, only {avg / port.rate_gbps:.0%} of the {port.rate_gbps:g} Gb/s port rate",
                ),
                [b.line],
                causes=[
                    (
                        "单 QP/小消息测不满（先用 -q 4 和大消息复测），或网卡不在 GPU 同一 NUMA/PCIe 交换下、链路降级",
                        "One QP / small messages cannot fill the link (retest with -q 4 and large messages), or the NIC is far from the GPU / the link is degraded",
                    )
                ],
                actions=[
                    (
                        "用 `ib_write_bw -d <hca> -q 4 -s 8388608 --report_gbits` 复测；仍低就请服务商查该端口。",
                        "Retest with `ib_write_bw -d <hca> -q 4 -s 8388608 --report_gbits`; if still low, ask the provider to check the port.",
                    )
                ],
            )
