"""NCCL logs (transports, sockets, watchdog) and nccl-tests (plateau busbw vs expected, #wrong)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.diagnosis.rules.context import Ctx, context_gpu

# --------------------------------------------------------------------------- NCCL / nccl-tests


def rules_nccl(c: Ctx) -> None:
    n = c.p.get("nccl_log")
    if not n:
        return
    topos = c.p.get("topo") or []
    has_nvlink = any(t.nvlink_counts() for t in topos if not t.is_p2p)
    if not topos:
        names = [g.name for g in c.inventory.gpus if g.name] or [context_gpu(c) or ""]
        has_nvlink = any(re.search(r"sxm|hbm3|h100 80gb|h200|h800|b200|nvl", (nm or "").lower()) for nm in names)
    if n.transports.get("SHM") and not n.transports.get("P2P"):
        sev = "warning" if has_nvlink or n.env.get("NCCL_P2P_DISABLE") == "1" else "info"
        c.add(
            "nccl_p2p_not_used",
            sev,
            (
                "NCCL 在 GPU 之间走 SHM（主机内存），没有用 P2P/NVLink",
                "NCCL uses SHM (host memory) between GPUs, not P2P/NVLink",
            ),
            [n.transport_lines["SHM"]] + [f"{k}={v}" for k, v in n.env.items()],
            causes=[
                (
                    "设置了 NCCL_P2P_DISABLE=1 或 NCCL_P2P_LEVEL 太低",
                    "NCCL_P2P_DISABLE=1 or a low NCCL_P2P_LEVEL is set",
                ),
                (
                    "PCIe ACS/IOMMU 阻止 P2P（NCCL 故障排查文档 ACS 一节）",
                    "PCIe ACS/IOMMU blocks P2P (NCCL troubleshooting guide, ACS section)",
                ),
                (
                    "消费级卡（4090 等）不开放 P2P，这种情况是正常的",
                    "Consumer cards (4090 etc.) have no P2P; expected there",
                ),
            ],
            actions=[
                (
                    "检查环境变量 NCCL_P2P_DISABLE/NCCL_P2P_LEVEL；NVLink 机型上仍走 SHM 就开工单，附 `nvidia-smi topo -m` 和这段日志。",
                    "Check NCCL_P2P_DISABLE/NCCL_P2P_LEVEL; on an NVLink machine that still uses SHM, open a ticket with `nvidia-smi topo -m` and this log.",
                )
            ],
        )
    elif n.env.get("NCCL_P2P_DISABLE") == "1":
        c.add(
            "nccl_p2p_disabled_env",
            "warning",
            ("环境变量 NCCL_P2P_DISABLE=1 关闭了 P2P", "NCCL_P2P_DISABLE=1 turns P2P off"),
            ["NCCL_P2P_DISABLE=1"],
            actions=[
                (
                    "除非为了绕过 P2P 卡死问题，否则去掉这个变量。",
                    "Remove it unless you set it to work around a P2P hang.",
                )
            ],
        )
    if n.transports.get("NET/Socket") or n.network == "Socket":
        c.add(
            "nccl_socket_fallback",
            "warning",
            (
                "NCCL 跨机通信走 TCP Socket，没有用 RDMA（IB/RoCE）",
                "NCCL crosses nodes over TCP sockets, not RDMA (IB/RoCE)",
            ),
            [x for x in (n.ib_not_found, n.transport_lines.get("NET/Socket")) if x]
            + [w for w in n.warns if "ibv" in w][:2],
            causes=[
                (
                    "机器没有 IB/RoCE 网卡，或容器里看不到 /dev/infiniband",
                    "No IB/RoCE NIC, or /dev/infiniband is not visible in the container",
                ),
                ("缺少 libibverbs（rdma-core）", "libibverbs (rdma-core) is missing"),
            ],
            actions=[
                (
                    "确认租的机器带 RDMA 网络（`ibv_devinfo`）；容器加 `--device /dev/infiniband --cap-add IPC_LOCK --network host` 并安装 rdma-core。",
                    "Confirm the machine has RDMA (`ibv_devinfo`); give the container `--device /dev/infiniband --cap-add IPC_LOCK --network host` and install rdma-core.",
                ),
                ("单机多卡可以忽略。", "Single-node jobs can ignore this."),
            ],
        )
    elif n.transports.get("NET/IB") and not n.gdrdma:
        c.add(
            "nccl_ib_without_gdrdma",
            "info",
            ("NCCL 用了 IB，但没有启用 GPUDirect RDMA", "NCCL uses IB without GPUDirect RDMA"),
            [n.transport_lines["NET/IB"]],
            causes=[
                (
                    "nvidia-peermem 模块未加载，或 GPU 与网卡拓扑距离太远（SYS）",
                    "nvidia-peermem is not loaded, or the GPU-NIC path is too far (SYS)",
                )
            ],
            actions=[
                (
                    "请服务商加载 nvidia-peermem；用 `nvidia-smi topo -m` 看 GPU 与 NIC 的距离。",
                    "Ask the provider to load nvidia-peermem; check GPU-NIC distance with `nvidia-smi topo -m`.",
                )
            ],
        )
    if n.watchdogs:
        op, tm, line = n.watchdogs[0]
        c.add(
            "nccl_watchdog_timeout",
            "warning",
            (
                f"NCCL 看门狗超时：{op or '集合通信'} 超过 {tm // 1000 if tm else '?'} 秒没完成",
                f"NCCL watchdog timeout: {op or 'collective'} did not finish within {tm // 1000 if tm else '?'} s",
            ),
            [w[2] for w in n.watchdogs],
            causes=[
                (
                    "某个 rank 挂了、卡住或比别人慢很多（数据加载、checkpoint 保存）",
                    "One rank died, hung, or is much slower (data loading, checkpoint saving)",
                ),
                ("GPU 硬件故障（看各节点 dmesg 的 Xid）", "A GPU hardware fault (check dmesg for Xids on every node)"),
                ("网络问题（跨机）", "Network trouble (multi-node)"),
            ],
            actions=[
                (
                    "先在每个节点查 `dmesg -T | grep -i xid`；有 Xid 按 Xid 处理，没有就用 NCCL_DEBUG=INFO 重跑并找最慢的 rank。",
                    "First check `dmesg -T | grep -i xid` on every node; act on any Xid, otherwise rerun with NCCL_DEBUG=INFO and find the slowest rank.",
                ),
                (
                    "只在确认是合理的长操作时才调大 timeout（init_process_group(timeout=...)）。",
                    "Raise the timeout (init_process_group(timeout=...)) only for known long operations.",
                ),
            ],
        )
    other_warns = [w for w in n.warns if "ibv" not in w and "libibverbs" not in w]
    if n.errors or other_warns:
        c.add(
            "nccl_error",
            "warning",
            ("NCCL 报错或警告", "NCCL errors or warnings"),
            (n.errors + other_warns)[:8],
            causes=[
                (
                    "见引用的日志行；常见是网络、共享内存（/dev/shm 太小）或 P2P 问题",
                    "See the quoted lines; common causes are network, shared memory (/dev/shm too small) or P2P",
                )
            ],
            actions=[
                (
                    "Docker 里加 `--shm-size=16g --ipc=host`；用 NCCL_DEBUG=INFO 重跑并看第一条 WARN。",
                    "In Docker add `--shm-size=16g --ipc=host`; rerun with NCCL_DEBUG=INFO and read the first WARN.",
                )
            ],
        )
    elif [w for w in n.warns if "libibverbs" in w] and not c.has("nccl_socket_fallback"):
        c.add(
            "nccl_no_ibverbs",
            "info",
            ("没有 libibverbs：NCCL 不能用 RDMA", "No libibverbs: NCCL cannot use RDMA"),
            [w for w in n.warns if "libibverbs" in w],
            causes=[("容器里没装 rdma-core", "rdma-core is not installed in the container")],
            actions=[
                (
                    "单机可以忽略；多机训练需安装 rdma-core 并挂载 /dev/infiniband。",
                    "Ignore on a single node; multi-node needs rdma-core and /dev/infiniband.",
                )
            ],
        )


@dataclass
class ExpectedBusbw:
    """Expected AllReduce busbw for a node (GB/s, per direction, large messages)."""

    mid_gbs: float
    low_gbs: float
    high_gbs: float
    flag_below_gbs: float  # below this a measurement points to a fault (half the low end)
    source: str


def expected_busbw(gpu_name: str | None, n_gpus: int, topology: str | None) -> ExpectedBusbw | None:
    """The GPU helper's model (tools.interconnect.expected_busbw) when it knows the GPU, otherwise
    the cited fallback table knowledge/diagnosis/busbw.yaml; None when neither has a reference."""
    if not gpu_name or n_gpus < 2:
        return None
    try:
        from tools.interconnect import expected_busbw as model

        r = model(gpu_name, n_gpus, topology)
        if r.mid_gbs:
            return ExpectedBusbw(
                float(r.mid_gbs), float(r.low_gbs), float(r.high_gbs), float(r.flag_below_gbs), str(r.source)
            )
    except Exception:  # noqa: BLE001 — unknown GPU there (or module mid-edit): fall back to our table
        pass
    from tools.data import load_yaml

    name = gpu_name.lower()
    for row in load_yaml("diagnosis", "busbw.yaml")["rows"]:
        if row["topology"] != (topology or "nvlink") or not row["match"] or not any(m in name for m in row["match"]):
            continue
        low, high = row["range_gbs"]
        return ExpectedBusbw(float(row["expected_gbs"]), float(low), float(high), 0.5 * float(low), row["source"])
    return None


def rules_nccl_tests(c: Ctx) -> None:
    runs = c.p.get("nccl_tests")
    if not runs:
        return
    for run in runs[:3]:
        if run.wrong_total > 0 or (run.oob or 0) > 0:
            bad = [r.line for r in run.rows if r.wrong > 0] + ([run.oob_line] if run.oob else [])
            c.add(
                "nccl_tests_wrong",
                "critical",
                (
                    f"nccl-tests 结果校验失败：#wrong 合计 {run.wrong_total}",
                    f"nccl-tests validation failed: #wrong totals {run.wrong_total}",
                ),
                bad,
                causes=[
                    (
                        "数据在传输中被破坏：GPU、NVLink/NVSwitch 或 PCIe 硬件故障",
                        "Data corrupted in flight: GPU, NVLink/NVSwitch or PCIe hardware fault",
                    )
                ],
                actions=[
                    (
                        "不要在这台机器上训练；逐对 GPU 重跑（-g 2，CUDA_VISIBLE_DEVICES 选两块）找出坏卡。",
                        "Do not train on this node; rerun pairwise (-g 2 with CUDA_VISIBLE_DEVICES) to find the bad GPU.",
                    ),
                    c.ticket(
                        None,
                        None,
                        "nccl-tests 出现 #wrong > 0（数据校验错误）",
                        "nccl-tests shows #wrong > 0 (data corruption)",
                    ),
                ],
            )
        if run.rows and not run.validated and (run.oob or 0) == 0:
            na = any("N/A" in r.line.split() for r in run.rows)
            why_zh = "#wrong 列是 N/A（用了 -c 0）" if na else "输出里没有 #wrong 列"
            why_en = "#wrong is N/A (run with -c 0)" if na else "the output has no #wrong column"
            c.add(
                "nccl_tests_not_validated",
                "info",
                (f"nccl-tests 没有校验数据正确性：{why_zh}", f"nccl-tests did not check data correctness: {why_en}"),
                [r.line for r in run.rows[-2:]],
                causes=[
                    (
                        "带宽数字仍然有效，但看不出传输中有没有数据被破坏",
                        "The bandwidth figures still count, but silent data corruption would go unnoticed",
                    )
                ],
                actions=[
                    (
                        "验收时用官方 nccl-tests 默认校验重跑一次：`./build/all_reduce_perf -b 8 -e 1G -f 2 -g <卡数> -c 1`，确认每行 #wrong 都是 0。",
                        "For acceptance, rerun the official nccl-tests with checking on: `./build/all_reduce_perf -b 8 -e 1G -f 2 -g <GPUs> -c 1` "
                        "and confirm #wrong is 0 on every row.",
                    )
                ],
            )
        plateau, big = run.plateau()
        if plateau is None:
            continue
        n = run.n_ranks or run.ranks_from_bandwidth() or 0
        names = run.gpu_names or [g.name for g in c.inventory.gpus if g.name]
        gpu_name = names[0] if names else context_gpu(c)
        topos = c.p.get("topo") or []
        topo = "nvlink" if any(t.nvlink_counts() for t in topos if not t.is_p2p) else ("pcie" if topos else None)
        if topo is None and gpu_name and re.search(r"sxm|hbm3|h100 80gb|h200|h800", gpu_name.lower()):
            topo = "nvlink"
        avg = (
            f"；“Avg bus bandwidth” 为 {run.avg_busbw:.1f}，它把小消息也平均进去了，不代表硬件能力"
            if run.avg_busbw is not None
            else ""
        )
        avg_en = (
            f'; "Avg bus bandwidth" is {run.avg_busbw:.1f}, which averages tiny messages and does not reflect the hardware'
            if run.avg_busbw is not None
            else ""
        )
        op = run.op or "all_reduce"
        ref = expected_busbw(gpu_name, n, topo) if (op == "all_reduce" and len(run.hosts) <= 1) else None
        exp, src = (ref.mid_gbs, ref.source) if ref else (None, None)
        evidence = [max(big, key=lambda r: r.busbw or 0).line] + ([run.avg_line] if run.avg_line else [])
        if run.max_size < 64 * 2**20:
            c.add(
                "nccl_tests_too_small",
                "info",
                (
                    "nccl-tests 最大消息太小，测不到带宽平台",
                    "nccl-tests max message too small to reach the bandwidth plateau",
                ),
                evidence,
                actions=[("用 `-b 8 -e 1G -f 2` 重跑（seed 文章给出的参数）。", "Rerun with `-b 8 -e 1G -f 2`.")],
            )
        if ref and plateau < ref.flag_below_gbs:
            c.add(
                "busbw_low",
                "warning",
                (
                    f"{op} 大消息 busbw {plateau:.1f} GB/s，远低于预期 {ref.low_gbs:.0f}–{ref.high_gbs:.0f} GB/s（低于 {ref.flag_below_gbs:.0f} 即异常）",
                    f"{op} large-message busbw {plateau:.1f} GB/s is far below the expected {ref.low_gbs:.0f}–{ref.high_gbs:.0f} GB/s (anything under {ref.flag_below_gbs:.0f} points to a fault)",
                ),
                evidence,
                causes=[
                    (
                        "NVLink 没有生效：NCCL 走了 SHM/PCIe（看 NCCL_DEBUG=INFO 的 via P2P 还是 via SHM）",
                        "NVLink not in use: NCCL fell back to SHM/PCIe (check via P2P vs via SHM in NCCL_DEBUG=INFO)",
                    ),
                    (
                        "NVSwitch 机型的 nvidia-fabricmanager 没有运行",
                        "nvidia-fabricmanager is not running on an NVSwitch system",
                    ),
                    ("设置了 NCCL_P2P_DISABLE / NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE / NCCL_P2P_LEVEL is set"),
                    ("NCCL 版本过旧", "An old NCCL version"),
                ],
                actions=[
                    (
                        "查 `nvidia-smi topo -m` 是否为 NV#、`nvidia-smi nvlink -s`、`systemctl status nvidia-fabricmanager`，用 NCCL_DEBUG=INFO 重跑；确认是交付问题就开工单附上这些输出。",
                        "Check `nvidia-smi topo -m` for NV#, `nvidia-smi nvlink -s` and `systemctl status nvidia-fabricmanager`; rerun with NCCL_DEBUG=INFO; if it is the delivery, open a ticket with these outputs.",
                    ),
                    (f"预期值来源：{src}", f"Expected value source: {src}"),
                ],
            )
        else:
            exp_zh = f"，预期 {ref.low_gbs:.0f}–{ref.high_gbs:.0f} GB/s（{src}）" if ref else ""
            exp_en = f", expected {ref.low_gbs:.0f}–{ref.high_gbs:.0f} GB/s ({src})" if ref else ""
            ranks_zh, ranks_en = (f"（{n} 个 rank）", f" ({n} ranks)") if n else ("", "")
            c.add(
                "nccl_tests_plateau",
                "info",
                (
                    f"{op} 大消息 busbw 平台 {plateau:.1f} GB/s{ranks_zh}{exp_zh}{avg}",
                    f"{op} large-message busbw plateau {plateau:.1f} GB/s{ranks_en}{exp_en}{avg_en}",
                ),
                evidence,
                causes=[
                    (
                        "busbw = algbw × 2(n−1)/n（nccl-tests PERFORMANCE.md），反映瓶颈链路的速度",
                        "busbw = algbw × 2(n−1)/n (nccl-tests PERFORMANCE.md) and reflects the bottleneck link",
                    )
                ],
                actions=[
                    (
                        "结果合理，无需处理。"
                        if exp
                        else "没有这台机型的参考值；与同型号机器或服务商给的验收报告对比。",
                        "Plausible; nothing to do."
                        if exp
                        else "No reference for this hardware; compare with a similar node or the provider's acceptance report.",
                    )
                ],
            )
