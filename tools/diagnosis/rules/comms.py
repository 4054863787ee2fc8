"""NCCL logs (transports, sockets, watchdog) and nccl-tests (plateau busbw vs expected, #wrong)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from tools.diagnosis.rules.context import Ctx, context_gpu

# --------------------------------------------------------------------------- NCCL / nccl-tests


_BAD_IFACE = re.compile(r"^(?:docker\d*|virbr\d*|veth\w*|br-\w+|cni\d*|flannel\S*|ip6tnl\d*|tunl\d*|lo)$")
FIRST_COLLECTIVES = 10  # watchdog SeqNum ≤ this: the communicator never got going (init/network)


def _bad_ifaces(n: Any) -> list[tuple[str, str, str]]:
    """Interfaces NCCL chose that peers cannot reach: docker/veth/virbr bridges, tunnels, lo, IPv6 link-local."""
    return [(nm, a, ln) for nm, a, ln in n.ifaces if _BAD_IFACE.match(nm) or a.lower().startswith("fe80")]


def _ib_hint(c: Ctx, n: Any) -> str | None:
    """Evidence that the machine has RDMA even though NCCL fell back to sockets."""
    for nm, _a, ln in n.ifaces:
        if nm.startswith("ib"):
            return ln
    if n.ib_used:
        return n.ib_used
    ib = c.p.get("infiniband")
    if ib and any(p.usable for p in ib.ports):
        return (
            next(p.lines[0] for p in ib.ports if p.usable and p.lines)
            if any(p.lines for p in ib.ports)
            else "ibstat: Active"
        )
    return None


def rules_nccl_taxonomy(c: Ctx, n: Any) -> bool:
    """One root cause per NCCL failure, most specific first; True when one was found.

    Order (each cause hides the later, more generic ones): NCCL's own GPU OOM, /dev/shm too small,
    P2P/IPC unsupported, an unreachable bootstrap interface, IB present but unused, connect
    refused/timed out, then watchdog timeouts split into first collective vs later (NCCL
    troubleshooting guide; PyTorch ProcessGroupNCCL watchdog).
    """
    if n.oom_errors:
        c.add(
            "nccl_gpu_oom",
            "warning",
            (
                "NCCL 自己申请 GPU 显存失败（out of memory）：显存被任务占满，没给通信留余量",
                "NCCL could not allocate GPU memory for its buffers: the job filled the card and left no room for communication",
            ),
            n.oom_errors[:4],
            causes=[
                (
                    "模型/batch 把显存用满；NCCL 每个通信器需要几百 MB 缓冲区（NCCL_BUFFSIZE）",
                    "The model/batch fills memory; NCCL needs a few hundred MB of buffers per communicator (NCCL_BUFFSIZE)",
                )
            ],
            actions=[
                (
                    "给 NCCL 留显存：减小 batch，或调低 gpu_memory_utilization（vLLM）/ 显存占比；不是网络问题。",
                    "Leave memory for NCCL: reduce the batch, or lower gpu_memory_utilization (vLLM) / the memory fraction; this is not a network problem.",
                )
            ],
        )
        return True
    if n.shm_errors:
        c.add(
            "nccl_shm_too_small",
            "warning",
            (
                "NCCL 建共享内存段失败：/dev/shm 太小（Docker 默认 64 MB）",
                "NCCL could not create its shared-memory segment: /dev/shm is too small (Docker's default is 64 MB)",
            ),
            n.shm_errors[:4],
            causes=[
                ("容器的 /dev/shm 太小或被残留文件占满", "The container's /dev/shm is too small or full of stale files")
            ],
            actions=[
                (
                    "容器加 `--shm-size=16g`（或 `--ipc=host`）；Kubernetes 在 /dev/shm 挂 `emptyDir: {medium: Memory}`。用 `df -h /dev/shm` 确认。",
                    "Start the container with `--shm-size=16g` (or `--ipc=host`); on Kubernetes mount `emptyDir: {medium: Memory}` at /dev/shm. Check with `df -h /dev/shm`.",
                )
            ],
        )
        return True
    if n.p2p_errors:
        _p2p_unsupported(c, n.p2p_errors[:3])
        return True
    bad = _bad_ifaces(n)
    if bad:
        good = sorted(
            {
                nm
                for nm, a, _ in n.ifaces
                if (nm, a, _) not in bad and not _BAD_IFACE.match(nm) and not a.lower().startswith("fe80")
            }
        )
        pick = good[0] if good else "eth0"
        c.add(
            "nccl_bootstrap_iface",
            "warning",
            (
                f"NCCL 选了对端连不上的网卡：{', '.join(sorted({nm for nm, _a, _l in bad}))}（容器网桥 / IPv6 链路本地地址）",
                f"NCCL picked an interface its peers cannot reach: {', '.join(sorted({nm for nm, _a, _l in bad}))} (container bridge / IPv6 link-local)",
            ),
            [ln for _nm, _a, ln in bad][:2] + n.connect_errors[:2],
            causes=[
                (
                    "NCCL 自动选网卡时选到了 docker/veth 网桥或 fe80:: 链路本地地址，跨机不可达",
                    "NCCL's automatic choice landed on a docker/veth bridge or an fe80:: link-local address, unreachable across nodes",
                )
            ],
            actions=[
                (
                    f"所有节点都设 `export NCCL_SOCKET_IFNAME={pick}`（写真正互通的网卡名，`ip addr` 查看），再用 NCCL_DEBUG=INFO 确认 Bootstrap 用的是它。",
                    f"Set `export NCCL_SOCKET_IFNAME={pick}` on every node (the NIC the nodes actually share; see `ip addr`), then confirm with NCCL_DEBUG=INFO that Bootstrap uses it.",
                )
            ],
        )
        return True
    hint = _ib_hint(c, n)
    if n.ib_not_found and hint:
        c.add(
            "nccl_ib_unused",
            "warning",
            (
                "机器有 InfiniBand/RDMA，但 NCCL 没用上，退回了 TCP Socket",
                "The machine has InfiniBand/RDMA but NCCL did not use it and fell back to TCP sockets",
            ),
            [n.ib_not_found, hint],
            causes=[
                (
                    "容器里看不到 /dev/infiniband 或缺 libibverbs，或 NCCL_IB_DISABLE/NCCL_IB_HCA 设错",
                    "/dev/infiniband or libibverbs is missing in the container, or NCCL_IB_DISABLE/NCCL_IB_HCA is wrong",
                )
            ],
            actions=[
                (
                    "容器加 `--device /dev/infiniband --cap-add IPC_LOCK`、装 rdma-core（libibverbs）；设 `NCCL_IB_HCA=mlx5`，用 NCCL_DEBUG=INFO 确认出现 `NET/IB : Using`。",
                    "Give the container `--device /dev/infiniband --cap-add IPC_LOCK`, install rdma-core (libibverbs), set `NCCL_IB_HCA=mlx5`, and confirm `NET/IB : Using` with NCCL_DEBUG=INFO.",
                )
            ],
        )
        return True
    if n.connect_errors and not n.watchdogs:
        c.add(
            "nccl_connect_failed",
            "warning",
            (
                "NCCL 连不上其他节点（连接被拒绝/超时）",
                "NCCL cannot connect to the other nodes (connection refused / timed out)",
            ),
            n.connect_errors[:4],
            causes=[
                ("节点间端口被防火墙/安全组挡住", "A firewall or security group blocks the ports between nodes"),
                ("对端进程已经退出（先看对端日志）", "The peer process already exited (read its log first)"),
            ],
            actions=[
                (
                    "放通节点间的端口（防火墙/安全组，NCCL 用随机高位端口，最好同一内网全放通）；先确认对端 rank 没有先报错退出。",
                    "Open the ports between the nodes (firewall / security group; NCCL uses random high ports, so allow the private subnet); check that the peer rank did not fail first.",
                )
            ],
        )
        return True
    if n.watchdogs:
        from tools.diagnosis.parsers.narrative import late_cue

        late = late_cue(c.p.lines)
        first = bool(n.seqnums) and min(n.seqnums) <= FIRST_COLLECTIVES and not late
        tms = [w[1] for w in n.watchdogs if w[1]]
        secs_zh = f"，超时 {tms[0] // 1000} 秒" if tms else ""
        secs_en = f", timeout {tms[0] // 1000} s" if tms else ""
        if first:
            c.add(
                "nccl_timeout_first",
                "warning",
                (
                    f"NCCL 在最开始的集合通信（SeqNum={min(n.seqnums)}{secs_zh}）就超时：通信器根本没建起来",
                    f"NCCL timed out on one of the first collectives (SeqNum={min(n.seqnums)}{secs_en}): the communicator never worked",
                ),
                [w[2] for w in n.watchdogs][:3],
                causes=[
                    (
                        "初始化/网络问题：网卡选错、端口不通、IB 不可用",
                        "Initialisation/network: wrong interface, blocked ports, unusable IB",
                    )
                ],
                actions=[
                    (
                        "用 `NCCL_DEBUG=INFO` 重跑，看 Bootstrap/NET 选了哪张网卡；跨机时设 `NCCL_SOCKET_IFNAME` 为节点互通的网卡并放通端口。",
                        "Rerun with `NCCL_DEBUG=INFO` and read which interface Bootstrap/NET picked; across nodes set `NCCL_SOCKET_IFNAME` to the shared NIC and open the ports.",
                    )
                ],
            )
            return True
        if n.seqnums or late:
            seq = f"SeqNum={min(n.seqnums)}" if n.seqnums else ""
            c.add(
                "nccl_timeout_later",
                "warning",
                (
                    f"训练进行中 NCCL 超时（{seq or '跑了一段时间后'}{secs_zh}）：通信本身是通的，是某个 rank 没跟上或卡住了",
                    f"NCCL timed out mid-training ({seq or 'after running for a while'}{secs_en}): communication worked, one rank stopped arriving or hung",
                ),
                [w[2] for w in n.watchdogs][:3] + ([late] if late else []),
                causes=[
                    (
                        "某个 rank 慢或卡住：数据加载、保存 checkpoint、不均衡的样本",
                        "One rank is slow or stuck: data loading, checkpoint saving, uneven samples",
                    ),
                    (
                        "那个 rank 所在的 GPU 出了硬件问题（看 dmesg 的 Xid）",
                        "A hardware fault on that rank's GPU (check dmesg for Xids)",
                    ),
                ],
                actions=[
                    (
                        "找出没到达的 rank：超时前用 `py-spy dump --pid <PID>` 看各 rank 卡在哪，并在每个节点查 `dmesg -T | grep -i xid`；不要先改网络配置。",
                        "Find the rank that did not arrive: `py-spy dump --pid <PID>` on each rank before the timeout, and `dmesg -T | grep -i xid` on every node; do not start with the network config.",
                    )
                ],
            )
            return True
    return False


def _p2p_unsupported(c: Ctx, lines: list[str]) -> None:
    c.add(
        "nccl_p2p_unsupported",
        "warning",
        (
            "GPU 之间不支持 P2P 直连（peer access is not supported）",
            "The GPUs cannot do peer-to-peer (peer access is not supported)",
        ),
        lines,
        causes=[
            ("消费级卡（3090/4090 等）不开放 P2P", "Consumer cards (3090/4090 …) have no P2P"),
            (
                "PCIe ACS/IOMMU 或虚拟化挡住了 P2P（NCCL 故障排查文档 ACS 一节）",
                "PCIe ACS/IOMMU or virtualisation blocks P2P (NCCL troubleshooting guide, ACS)",
            ),
        ],
        actions=[
            (
                "关掉 P2P 让 NCCL 走共享内存：`export NCCL_P2P_DISABLE=1`；vLLM 再加 `--disable-custom-all-reduce`。",
                "Turn P2P off so NCCL uses shared memory: `export NCCL_P2P_DISABLE=1`; for vLLM also pass `--disable-custom-all-reduce`.",
            )
        ],
    )


def _nvls_and_p2p_level(c: Ctx, n: Any, has_nvlink: bool) -> None:
    """NCCL_P2P_LEVEL=LOC forbids P2P (NCCL env docs: LOC = never use P2P, even on NVLink), so GPUs talk
    through host memory; "0 nvls channels" is expected off Hopper/Blackwell: NVLink SHARP (NVLS) needs
    third-generation NVSwitch (NCCL 2.17 release notes; H100 whitepaper)."""
    level = (n.env.get("NCCL_P2P_LEVEL") or "").upper()
    if level in ("LOC", "0") and not c.has("nccl_p2p_not_used"):
        c.add(
            "nccl_p2p_level_loc",
            "warning",
            (
                f"NCCL_P2P_LEVEL={level} 禁止了 GPU 之间的 P2P：即使有 NVLink，NCCL 也只能绕主机内存（SHM）传数据，带宽会低很多",
                f"NCCL_P2P_LEVEL={level} forbids P2P between GPUs: even over NVLink NCCL must go through host memory (SHM), at a fraction of the bandwidth",
            ),
            [f"NCCL_P2P_LEVEL={n.env.get('NCCL_P2P_LEVEL')}"],
            causes=[
                (
                    "环境变量（镜像、脚本或 ~/.bashrc 里）把 P2P 关了",
                    "An environment variable (image, script or ~/.bashrc) turned P2P off",
                )
            ],
            actions=[
                (
                    "`unset NCCL_P2P_LEVEL`（或设为 NVL/SYS）后重跑 all_reduce_perf，对比 busbw；A100 SXM 8 卡 NVSwitch 上 all_reduce 一般能到 ~230 GB/s。",
                    "`unset NCCL_P2P_LEVEL` (or set NVL/SYS) and rerun all_reduce_perf to compare busbw; 8× A100 SXM over NVSwitch usually reaches ~230 GB/s all-reduce busbw.",
                )
            ],
        )
    if n.nvls_channels == 0:
        names = (
            " ".join(g.name or "" for g in c.inventory.gpus)
            + " "
            + (context_gpu(c) or "")
            + " "
            + "\n".join(c.p.lines[:80])
        )
        hopper = bool(re.search(r"\b(?:H100|H200|H800|H20|GH200|B200|B100|GB200)\b", names))
        c.add(
            "nccl_nvls_zero",
            "info",
            (
                "「0 nvls channels」不是错误：NVLS（NVLink SHARP）只在 Hopper/Blackwell（H100/H200/B200）配第三代 NVSwitch 时才有"
                + (
                    "；这台是 Hopper，NVLS 为 0 多半是 fabric manager/驱动或 NCCL_NVLS_ENABLE=0"
                    if hopper
                    else "，A100 等上面为 0 是正常的"
                ),
                "'0 nvls channels' is not an error: NVLS (NVLink SHARP) exists only on Hopper/Blackwell (H100/H200/B200) with third-generation NVSwitch"
                + (
                    "; this is Hopper, so 0 usually means fabric manager/driver or NCCL_NVLS_ENABLE=0"
                    if hopper
                    else ", so 0 on A100 and older is expected"
                ),
            ),
            [n.nvls_line or ""],
        )


def rules_nccl(c: Ctx) -> None:
    n = c.p.get("nccl_log")
    if not n:
        return
    specific = rules_nccl_taxonomy(c, n)
    topos = c.p.get("topo") or []
    has_nvlink = any(t.nvlink_counts() for t in topos if not t.is_p2p)
    if not topos:
        names = [g.name for g in c.inventory.gpus if g.name] or [context_gpu(c) or ""]
        has_nvlink = any(re.search(r"sxm|hbm3|h100 80gb|h200|h800|b200|nvl", (nm or "").lower()) for nm in names)
    _nvls_and_p2p_level(c, n, has_nvlink)
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
    socket_used = n.transports.get("NET/Socket") or n.network == "Socket" or (n.ib_not_found and n.ifaces)
    if socket_used and not c.has("nccl_ib_unused") and not specific:
        ibv = any("libibverbs" in w or "ibv" in w for w in n.warns)
        c.add(
            "nccl_socket_fallback",
            "warning" if ibv else "info",
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
    if n.watchdogs and not specific:
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
    if (n.errors or other_warns) and not specific:
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
    except Exception:  # noqa: BLE001, S110 — unknown GPU there (or module mid-edit): fall back to our table
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
                        "不要在这台机器上训练；逐对 GPU 重跑（-g 2，`CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1` 这样选两块）找出坏卡。",
                        "Do not train on this node; rerun pairwise (-g 2 with e.g. `CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1`) to find the bad GPU.",
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
        n = run.n_ranks or run.ranks_from_bandwidth() or (c.expect[0] if c.expect and c.expect[0] else 0)
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
                actions=[
                    (
                        "用 `-b 8 -e 1G -f 2` 重跑（常见的验收参数：8 B 到 1 GB，每次翻倍）。",
                        "Rerun with `-b 8 -e 1G -f 2` (the usual acceptance sweep: 8 B to 1 GB, doubling).",
                    )
                ],
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
