"""Kubernetes: what the NVIDIA device plugin registered vs what the node has.

Sources: k8s-device-plugin README (prerequisites: driver, nvidia-container-toolkit, nvidia runtime
as containerd/docker default or a RuntimeClass; --device-discovery-strategy auto|nvml|tegra;
DP_DISABLE_HEALTHCHECKS) — https://github.com/NVIDIA/k8s-device-plugin#prerequisites ; maintainers in
NVIDIA/k8s-device-plugin#58 ("Capacity: total GPUs, Allocatable: GPUs in a Healthy state") and #234
(a GPU that reported a critical Xid stays unhealthy until the plugin restarts).
"""

from __future__ import annotations

import re

from tools.diagnosis.parsers.kubernetes import Kubernetes
from tools.diagnosis.rules.context import Ctx
from tools.diagnosis.xid import entry

_RUNTIME_FIX = (
    "在节点上装 nvidia-container-toolkit，并把 nvidia 设为容器运行时默认值："
    "`sudo nvidia-ctk runtime configure --runtime=containerd --set-as-default && sudo systemctl restart containerd`"
    "（Docker 用 `--runtime=docker` 并重启 docker）；或者建 RuntimeClass `nvidia`，用 helm 装插件时加 "
    "`--set runtimeClassName=nvidia`。然后重启 device plugin 的 Pod，看 `kubectl logs -n <ns> <plugin-pod>`。",
    "Install nvidia-container-toolkit on the node and make nvidia the container runtime's default: "
    "`sudo nvidia-ctk runtime configure --runtime=containerd --set-as-default && sudo systemctl restart containerd` "
    "(for Docker `--runtime=docker`, then restart docker); or create a RuntimeClass `nvidia` and install the "
    "plugin with `--set runtimeClassName=nvidia`. Then restart the device-plugin pod and read "
    "`kubectl logs -n <ns> <plugin-pod>`.",
)
_GPU_WORD = re.compile(r"(\d+)\s*(?:x\s*)?(?:gpus|gpu|张卡|块卡|张显卡|卡)", re.I)


def _installed(c: Ctx) -> int | None:
    """GPUs the node really has: the nvidia-smi table in the same paste, else the renter's 'node with 4 gpus'."""
    if c.inventory.gpus:
        return len(c.inventory.gpus)
    for line in c.p.lines[:20]:
        if "nvidia.com/gpu" in line:
            continue
        m = _GPU_WORD.search(line)
        if m and 1 < int(m.group(1)) <= 16:
            return int(m.group(1))
    return None


def rules_k8s(c: Ctx) -> None:
    k = c.p.get("kubernetes")
    if not k:
        return
    _unhealthy(c, k)
    _strategy(c, k)
    _not_registered(c, k)


def _unhealthy(c: Ctx, k: Kubernetes) -> None:
    fewer = k.capacity is not None and k.allocatable is not None and k.allocatable < k.capacity
    if not (fewer or "unhealthy" in k.events):
        return
    xid_zh = xid_en = ""
    for code in k.xids:
        e = entry(code) or {}
        name = e.get("name") or {}
        xid_zh += f"；插件日志里有 Xid {code}（{name.get('zh', '见 NVIDIA Xid 目录')}）"
        xid_en += f"; the plugin log shows Xid {code} ({name.get('en', 'see the NVIDIA Xid catalog')})"
    count = f"{k.allocatable}/{k.capacity}" if fewer else ""
    c.add(
        "k8s_gpu_unhealthy",
        "warning",
        (
            f"Kubernetes 只把 {count or '部分'} 张 GPU 当作可分配：其余被 NVIDIA device plugin 标成了不健康（unhealthy）{xid_zh}",
            f"Kubernetes can allocate only {count or 'some'} GPUs: the NVIDIA device plugin marked the rest unhealthy{xid_en}",
        ),
        [k.lines.get("capacity", ""), k.lines.get("allocatable", ""), k.events.get("unhealthy", "")],
        causes=[
            (
                "Capacity 是插件找到的卡数，Allocatable 是健康的卡数；插件收到关键 Xid（经 NVML 事件）就把卡标成不健康，直到插件重启都不会恢复",
                "Capacity is the GPUs the plugin found, Allocatable the healthy ones; a critical Xid (an NVML event) marks a GPU unhealthy and it stays so until the plugin restarts",
            )
        ],
        actions=[
            (
                "看插件日志 `kubectl logs -n <ns> <nvidia-device-plugin-pod>` 里的 `XidCriticalError`/`marked unhealthy`，再看节点上 `dmesg -T | grep -i xid`：硬件类 Xid（48、79、ECC）要重置/换卡；程序类 Xid（13、31、43）重启插件 Pod 就能恢复，反复误报可用 `DP_DISABLE_HEALTHCHECKS=<xid>` 忽略该 Xid。",
                "Read the plugin log `kubectl logs -n <ns> <nvidia-device-plugin-pod>` for `XidCriticalError`/`marked unhealthy`, then `dmesg -T | grep -i xid` on the node: hardware Xids (48, 79, ECC) need a reset/replacement; application Xids (13, 31, 43) clear when the plugin pod restarts, and a recurring false alarm can be ignored with `DP_DISABLE_HEALTHCHECKS=<xid>`.",
            )
        ],
    )


def _strategy(c: Ctx, k: Kubernetes) -> None:
    installed = _installed(c)
    if k.strategy == "tegra" and (installed is None or installed > 1 or (k.capacity or 0) <= 1):
        c.add(
            "k8s_discovery_strategy_tegra",
            "warning",
            (
                "device plugin 用的是 tegra 发现方式（Jetson 的集成 GPU），在独立显卡服务器上只会报出一张卡：应该用 nvml",
                "The device plugin discovers devices the tegra way (Jetson's integrated GPU), which reports one GPU on a discrete-GPU server: it should use nvml",
            ),
            [k.strategy_line or ""],
            causes=[
                (
                    "`deviceDiscoveryStrategy` 为 tegra（手动设的，或 auto 时插件容器里看不到 NVML 而退回了 tegra）",
                    "`deviceDiscoveryStrategy` is tegra (set by hand, or auto fell back to it because NVML is not visible inside the plugin container)",
                )
            ],
            actions=[
                (
                    "把插件参数改成 `--device-discovery-strategy=nvml`（helm：`--set deviceDiscoveryStrategy=nvml`）；若是 auto 退回的，先让插件容器能加载 NVML："
                    + _RUNTIME_FIX[0],
                    "Set `--device-discovery-strategy=nvml` (helm: `--set deviceDiscoveryStrategy=nvml`); if auto fell back to it, make NVML visible to the plugin container first: "
                    + _RUNTIME_FIX[1],
                )
            ],
        )
    elif installed and k.capacity is not None and k.capacity < installed and not c.has("k8s_gpu_unhealthy"):
        c.add(
            "k8s_gpu_capacity_short",
            "warning",
            (
                f"节点有 {installed} 张 GPU，device plugin 只注册了 {k.capacity} 张",
                f"The node has {installed} GPUs but the device plugin registered only {k.capacity}",
            ),
            [k.lines.get("capacity", "")],
            causes=[
                (
                    "插件的发现方式（deviceDiscoveryStrategy）或 MIG/共享配置不对",
                    "The plugin's deviceDiscoveryStrategy or MIG/sharing config is wrong",
                ),
                (
                    "部分卡在插件启动时不可见（驱动/运行时）",
                    "Some GPUs were not visible when the plugin started (driver/runtime)",
                ),
            ],
            actions=[
                (
                    "看 `kubectl logs` 里插件打印的 `Running with config`（deviceDiscoveryStrategy 应为 nvml 或 auto）和它列出的设备；在节点上对比 `nvidia-smi -L`。",
                    "Read the plugin's `Running with config` in `kubectl logs` (deviceDiscoveryStrategy should be nvml or auto) and the devices it lists; compare with `nvidia-smi -L` on the node.",
                )
            ],
        )


def _not_registered(c: Ctx, k: Kubernetes) -> None:
    missing = "nvml_missing" in k.events or "strategy_incompatible" in k.events
    absent = bool(k.sections_without_gpu) and k.capacity is None
    if not (missing or absent):
        return
    evidence = [k.events.get("nvml_missing", ""), k.events.get("strategy_incompatible", "")]
    if absent:
        evidence.append(f"{' / '.join(k.sections_without_gpu)}: (no nvidia.com/gpu)")
    c.add(
        "k8s_gpu_not_registered",
        "warning",
        (
            "Kubernetes 里没有 nvidia.com/gpu 资源：NVIDIA device plugin 没在这个节点上注册 GPU（多半是容器运行时没配 NVIDIA）",
            "No nvidia.com/gpu resource in Kubernetes: the NVIDIA device plugin has not registered GPUs on this node (usually the container runtime is not set up for NVIDIA)",
        ),
        evidence,
        causes=[
            (
                "device plugin 的 DaemonSet 没在这个节点上跑（没装、nodeSelector/污点不匹配）",
                "The device-plugin DaemonSet is not running on this node (not installed, nodeSelector/taints)",
            ),
            (
                "插件容器里加载不到 NVML（libnvidia-ml.so.1）：containerd/Docker 的默认运行时不是 nvidia，也没用 RuntimeClass；宿主机 nvidia-smi 正常只说明驱动没问题",
                "The plugin container cannot load NVML (libnvidia-ml.so.1): containerd/Docker's default runtime is not nvidia and no RuntimeClass is used; nvidia-smi working on the host only proves the driver",
            ),
        ],
        actions=[_RUNTIME_FIX],
    )
