"""The decision tree: parsed outputs → findings, inventory, Xid events and one next action.

Rules and thresholds (each named where it comes from; docs/diagnosis.md has the full list):
- Xid severity/actions: NVIDIA Xid catalog (knowledge/xid.yaml) with the renter-side overrides
  noted there; Xid 45 "caused by previous Xid N" is sympathetic (diagnose N); Xid 154 says
  what to do; NVLink5 (144–150) severity follows the Fatal/Nonfatal word in the line.
- Fallen off the bus without an Xid, `rev ff`, AER Uncorrected (Fatal)/Surprise Down → critical.
- Utilisation patterns (ml-engineering debug.md; GPU-Util = share of time any kernel ran):
  ≥95% util at ≤25% of the power cap = hang suspected; ≥90% memory at 0% util = idle server
  or stalled job; 1–60% util at 25–60% of the cap with memory in use = input-bound.
- Driver ↔ CUDA: NVIDIA CUDA minor-version compatibility (12.x needs ≥525, 11.x ≥450.80.02,
  13.x ≥580); the nvidia-smi header's CUDA Version is the driver's maximum.
- nccl-tests: the large-message plateau (≥256 MiB), not "Avg bus bandwidth"; any #wrong > 0
  is a correctness failure; < 50% of the expected busbw is flagged.
"""
from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from tools.diagnosis.detect import Parsed
from tools.diagnosis.findings import (SEVERITY_RANK, Finding, GpuInfo, Inventory, Text, XidEvent, quote,
                                      worst)
from tools.diagnosis.xid import APPLICATION_XIDS, entry

T = Text

# Minimum Linux driver for each CUDA major (NVIDIA CUDA Compatibility, minor-version section).
MIN_DRIVER_FOR_CUDA_MAJOR = {11: (450, 80, 2), 12: (525, 60, 13), 13: (580, 0, 0)}


class Ctx:
    """Collects findings while the rules run."""

    def __init__(self, parsed: Parsed) -> None:
        self.p = parsed
        self.findings: list[Finding] = []
        self.inventory = Inventory()
        self.xids: list[XidEvent] = []
        self.bus_to_index: dict[str, int] = {}
        self.index_to_uuid: dict[int, str] = {}
        self.bus_to_uuid: dict[str, str] = {}
        self.host: str | None = None

    def add(self, fid: str, severity: str, title: tuple[str, str], evidence: list[str] | None = None,
            causes: list[tuple[str, str]] | None = None, actions: list[tuple[str, str]] | None = None,
            gpu_index: int | None = None, bus_id: str | None = None) -> Finding:
        f = Finding(id=fid, severity=severity, title=T(zh=title[0], en=title[1]), evidence=quote(evidence or []),
                    causes=[T(zh=z, en=e) for z, e in causes or []],
                    actions=[T(zh=z, en=e) for z, e in actions or []], gpu_index=gpu_index, bus_id=bus_id)
        self.findings.append(f)
        return f

    def has(self, fid: str) -> bool:
        return any(f.id == fid for f in self.findings)

    def gpu_label(self, index: int | None, bus: str | None) -> tuple[str, str]:
        if index is not None and bus:
            return f"GPU {index}（PCI {bus}）", f"GPU {index} (PCI {bus})"
        if index is not None:
            return f"GPU {index}", f"GPU {index}"
        if bus:
            return f"PCI {bus} 上的 GPU", f"the GPU at PCI {bus}"
        return "这块 GPU", "this GPU"

    def ticket(self, index: int | None, bus: str | None, what_zh: str, what_en: str) -> tuple[str, str]:
        """The provider ticket, with exactly what to include."""
        uuid = (self.index_to_uuid.get(index) if index is not None else None) or (self.bus_to_uuid.get(bus) if bus else None)
        node = self.host or "（主机名 hostname）"
        node_en = self.host or "(hostname)"
        idx_zh = str(index) if index is not None else "（nvidia-smi 左列的编号）"
        idx_en = str(index) if index is not None else "(the number in nvidia-smi's first column)"
        bus_zh = bus or "（nvidia-smi 的 Bus-Id 列）"
        bus_en = bus or "(nvidia-smi's Bus-Id column)"
        ident_zh = f"节点 {node}，GPU 序号 {idx_zh}，UUID {uuid or '（nvidia-smi -L 查看）'}，PCI 总线号 {bus_zh}"
        ident_en = f"node {node_en}, GPU index {idx_en}, UUID {uuid or '(see nvidia-smi -L)'}, PCI bus id {bus_en}"
        return (f"给服务商开工单：{what_zh}。写明{ident_zh}；附上相关 Xid/内核日志原文和 `sudo nvidia-bug-report.sh` 生成的 "
                "nvidia-bug-report.log.gz（没有 root 权限就请服务商在宿主机上运行）。记下 UUID，避免以后又被分到同一块坏卡。",
                f"Open a ticket with the provider: {what_en}. Include {ident_en}; attach the Xid/kernel-log lines and the "
                "nvidia-bug-report.log.gz from `sudo nvidia-bug-report.sh` (ask the provider to run it on the host if you lack root). "
                "Record the UUID so you can tell if you are given the same bad GPU again.")

    def exclude(self, index: int | None) -> tuple[str, str]:
        n = len(self.inventory.gpus)
        if index is None or n < 2:
            return ("先停止在这块卡上跑任务。", "Stop running jobs on this GPU for now.")
        keep = ",".join(str(g.index) for g in self.inventory.gpus if g.index is not None and g.index != index)
        return (f"自己能做的：用 `CUDA_VISIBLE_DEVICES={keep}` 排除 GPU {index}，先用其余的卡继续跑（分布式任务要相应减少进程数）。",
                f"What you can do now: exclude GPU {index} with `CUDA_VISIBLE_DEVICES={keep}` and keep working on the rest "
                "(reduce the number of ranks accordingly).")


# --------------------------------------------------------------------------- inventory

def build_inventory(c: Ctx) -> None:
    table = c.p.get("nvidia_smi_table")
    query = c.p.get("nvidia_smi_query")
    inv = c.inventory
    by_bus: "OrderedDict[str, GpuInfo]" = OrderedDict()
    if table:
        inv.driver_version = table.driver_version
        inv.cuda_version = table.cuda_version
        for g in table.gpus:
            info = GpuInfo(index=g.index, name=g.name, memory_total_mib=g.memory_total_mib, bus_id=g.bus_id)
            by_bus[g.bus_id or f"idx{g.index}"] = info
    if query:
        inv.driver_version = inv.driver_version or query.driver_version
        inv.cuda_version = inv.cuda_version or query.cuda_version
        for i, g in enumerate(query.gpus):
            key = g.bus_id or f"q{i}"
            info = by_bus.get(key)
            if info is None:
                info = GpuInfo(index=i if not table else None, bus_id=g.bus_id)
                by_bus[key] = info
            if g.product_name:
                info.name = g.product_name  # -q has the untruncated name
            if g.fb_total_mib is not None:
                info.memory_total_mib = g.fb_total_mib
            info.uuid = g.uuid or info.uuid
    smi_list = c.p.get("nvidia_smi_list")
    if smi_list:
        if by_bus:
            by_index = {g.index: g for g in by_bus.values() if g.index is not None}
            for idx, name, uuid in smi_list.gpus:
                if idx in by_index:
                    by_index[idx].uuid = by_index[idx].uuid or uuid
        else:
            for idx, name, uuid in smi_list.gpus:
                by_bus[f"L{idx}"] = GpuInfo(index=idx, name=name, uuid=uuid)
    if not by_bus:
        runs = c.p.get("nccl_tests")
        if runs and runs[0].ranks:
            for rank, host, dev, bus, name in runs[0].ranks:
                if len(runs[0].hosts) == 1:
                    by_bus[f"r{rank}"] = GpuInfo(index=dev, name=name)
        elif c.p.get("lspci"):
            for d in c.p.get("lspci").gpus:
                by_bus[d.bus_id or d.line] = GpuInfo(name=d.name, bus_id=d.bus_id)
    inv.gpus = list(by_bus.values())
    for g in inv.gpus:
        if g.bus_id and g.index is not None:
            c.bus_to_index[g.bus_id] = g.index
        if g.uuid and g.index is not None:
            c.index_to_uuid[g.index] = g.uuid
    k = c.p.get("kernel_log")
    if k:
        for bus, uuid in k.uuids.items():
            idx = c.bus_to_index.get(bus)
            if idx is not None:
                c.index_to_uuid.setdefault(idx, uuid)
            c.bus_to_uuid[bus] = uuid
    for g in inv.gpus:
        if g.bus_id:
            c.bus_to_uuid.setdefault(g.bus_id, g.uuid) if g.uuid else None
    if not inv.driver_version:
        dcgm = c.p.get("dcgmi_diag")
        k = c.p.get("kernel_log")
        inv.driver_version = (dcgm.driver_version if dcgm else None) or (k.driver_version if k else None)
    c.host = _find_host(c)


_CONTEXT_GPU = re.compile(r"(?<![A-Za-z0-9])((?:RTX\s?)?(?:A100|A800|H100|H800|H200|H20|B200|L40S|L40|L20|A10|V100|4090D?|3090|5090)"
                          r"(?:[\s-]?(?:SXM\d?|PCIe|NVL|80\s?G(?:B)?|40\s?G(?:B)?))*)(?![A-Za-z0-9])", re.IGNORECASE)


def context_gpu(c: Ctx) -> str | None:
    """A GPU model named in the user's own words around the log ("8 卡 A100 SXM 机器上…").

    Used only as a fallback for reference values (expected busbw, NVLink expectations) when the
    log itself does not name the GPU; it never becomes inventory.
    """
    for line in c.p.lines[:200]:
        if len(line) > 400 or line.lstrip().startswith(("|", "#")) or "NCCL INFO" in line or "NVRM" in line:
            continue
        m = _CONTEXT_GPU.search(line)
        if m:
            return m.group(1).strip()
    return None


def _find_host(c: Ctx) -> str | None:
    runs = c.p.get("nccl_tests")
    if runs and runs[0].hosts and len(runs[0].hosts) == 1:
        return next(iter(runs[0].hosts))
    for line in c.p.lines[:2000]:
        m = re.match(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d (\S+) kernel:", line)
        if m:
            return m.group(1)
        m = re.match(r"^hostname[:=]\s*(\S+)", line)
        if m:
            return m.group(1)
    return None


# --------------------------------------------------------------------------- nvidia-smi

def rules_smi_failures(c: Ctx) -> None:
    table = c.p.get("nvidia_smi_table")
    if not table:
        return
    kinds = {k: line for k, line in reversed(table.failures)}
    lines = [line for _, line in table.failures]
    if "unable_to_determine_handle" in kinds or "gpu_lost" in kinds:
        m = re.search(r"GPU\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})", " ".join(lines))
        from tools.diagnosis.text import norm_bus_id
        bus = norm_bus_id(m.group(1)) if m else None
        c.add("gpu_lost", "critical", ("nvidia-smi 无法访问某块 GPU（GPU 丢失）", "nvidia-smi cannot reach a GPU (GPU lost)"),
              lines, causes=[("GPU 掉卡（通常伴随 Xid 79 或 PCIe AER 报错）", "The GPU fell off the bus (usually with Xid 79 or PCIe AER errors)"),
                             ("供电或过热", "Power or overheating")],
              actions=[c.exclude(c.bus_to_index.get(bus or "")),
                       c.ticket(c.bus_to_index.get(bus or ""), bus, "GPU 丢失，nvidia-smi 报 Unable to determine the device handle / GPU is lost，需要重启并检修",
                                "GPU lost (nvidia-smi: Unable to determine the device handle / GPU is lost); needs a reboot and inspection"),
                       ("用 `dmesg -T | grep -iE 'xid|fallen|aer'` 找出对应的内核报错一起提交。", "Find the matching kernel errors with `dmesg -T | grep -iE 'xid|fallen|aer'` and include them.")],
              bus_id=bus)
    if "no_devices" in kinds:
        c.add("no_gpus_visible", "critical", ("nvidia-smi 没有找到任何 GPU", "nvidia-smi found no GPUs"), [kinds["no_devices"]],
              causes=[("容器启动时没有挂载 GPU（缺少 `--gpus all` 或 NVIDIA Container Toolkit）", "The container was started without GPUs (missing `--gpus all` or the NVIDIA Container Toolkit)"),
                      ("宿主机驱动未加载或 GPU 掉卡", "The host driver is not loaded or the GPUs fell off the bus")],
              actions=[("在容器里：用 `docker run --gpus all ...`（或 k8s 的 nvidia.com/gpu 资源）重新启动；在宿主机上运行 nvidia-smi 确认。", "In a container: restart it with `docker run --gpus all ...` (or request nvidia.com/gpu in k8s); run nvidia-smi on the host to confirm."),
                       ("宿主机上也看不到 GPU：开工单，附 `lspci | grep -i nvidia` 和 `dmesg -T | grep -i nvrm`。", "No GPUs on the host either: open a ticket with `lspci | grep -i nvidia` and `dmesg -T | grep -i nvrm`.")])
    if "driver_not_loaded" in kinds:
        c.add("driver_not_loaded", "critical", ("NVIDIA 驱动未加载", "The NVIDIA driver is not loaded"), [kinds["driver_not_loaded"]],
              causes=[("内核升级后驱动模块没有用 DKMS 重新编译", "The kernel was updated and the driver module was not rebuilt (DKMS)"),
                      ("驱动未安装或安装失败", "The driver is not installed or the install failed")],
              actions=[("云主机/物理机：开工单请服务商重装或重新编译驱动（附 `uname -r` 和 `dkms status`）。", "Open a ticket asking the provider to reinstall/rebuild the driver (include `uname -r` and `dkms status`)."),
                       ("在容器里：这是宿主机的问题，容器内装驱动没用。", "Inside a container this is a host problem; installing a driver in the container does not help.")])
    if "nvml_version_mismatch" in kinds:
        c.add("driver_library_mismatch", "critical", ("驱动内核模块与用户态库版本不一致", "Driver kernel module and user-space library versions differ"),
              [kinds["nvml_version_mismatch"]],
              causes=[("驱动升级后没有重启，旧内核模块仍在运行", "The driver was upgraded without a reboot; the old kernel module is still loaded")],
              actions=[("重启机器（或请服务商重启）；自己不要在容器里另装驱动。", "Reboot the node (or ask the provider to); do not install another driver inside the container.")])
    if "nvml_unknown_error" in kinds:
        c.add("nvml_unknown_error", "critical", ("NVML 初始化失败：Unknown Error", "NVML failed to initialise: Unknown Error"),
              [kinds["nvml_unknown_error"]],
              causes=[("容器失去了 GPU 设备访问权限（如 systemd/cgroup 重载后）", "The container lost access to the GPU devices (e.g. after a systemd/cgroup reload)"),
                      ("宿主机上 GPU 故障", "A GPU fault on the host")],
              actions=[("先重启容器；仍然失败就在宿主机上运行 nvidia-smi，宿主机也报错再开工单。", "Restart the container first; if it still fails, run nvidia-smi on the host and open a ticket if the host fails too.")])


def rules_smi_rows(c: Ctx) -> None:
    table = c.p.get("nvidia_smi_table")
    if not table:
        return
    hang, idle_full, input_bound, hot, err_rows, err_fields, ecc = [], [], [], [], [], [], []
    for g in table.gpus:
        if g.err_fields >= 4:
            err_rows.append(g)
        elif g.err_fields:
            err_fields.append(g)
        cap = g.power_cap_w
        if g.util_pct is not None and g.power_w is not None and cap:
            if g.util_pct >= 95 and g.power_w <= 0.25 * cap:
                hang.append(g)
            elif 1 <= g.util_pct <= 60 and 0.25 * cap < g.power_w <= 0.6 * cap and (g.memory_used_mib or 0) > 1024:
                input_bound.append(g)
        if g.util_pct == 0 and g.memory_used_mib and g.memory_total_mib and g.memory_used_mib >= 0.9 * g.memory_total_mib:
            idle_full.append(g)
        if g.temp_c is not None and g.temp_c >= 85:
            hot.append(g)
        if g.ecc and g.ecc.isdigit() and int(g.ecc) > 0:
            ecc.append(g)
    idx = lambda gs: ", ".join(str(g.index) for g in gs)  # noqa: E731
    ev = lambda gs: [line for g in gs for line in g.lines]  # noqa: E731
    for g in err_rows:
        c.add("gpu_row_err", "critical", (f"GPU {g.index} 的整行读数都是 ERR!", f"Every reading of GPU {g.index} is ERR!"), g.lines,
              causes=[("驱动已无法读取这块卡，通常是掉卡前后的状态", "The driver can no longer read this GPU, usually around a fall off the bus")],
              actions=[c.exclude(g.index), c.ticket(g.index, g.bus_id, "nvidia-smi 显示这块 GPU 全部读数为 ERR!", "nvidia-smi shows ERR! in every field of this GPU")],
              gpu_index=g.index, bus_id=g.bus_id)
    if err_fields:
        c.add("smi_err_field", "info", (f"GPU {idx(err_fields)} 个别读数为 ERR!", f"Isolated ERR! readings on GPU {idx(err_fields)}"), ev(err_fields),
              causes=[("多为一次性的遥测读数故障（Azure azhpc-diagnostics#77 把孤立的 ERR! 功率读数视为暂时现象）", "Usually a one-off telemetry glitch (azhpc-diagnostics#77 treats isolated ERR! power readings as transient)")],
              actions=[("过一会儿再运行 nvidia-smi；反复出现再查 dmesg。", "Run nvidia-smi again in a while; check dmesg if it keeps happening.")])
    if ecc:
        for g in ecc:
            c.add("ecc_uncorrectable", "critical", (f"GPU {g.index} 有 {g.ecc} 个未纠正的 ECC 错误", f"GPU {g.index} reports {g.ecc} uncorrected ECC errors"),
                  g.lines, causes=[("显存硬件错误", "Memory hardware errors")],
                  actions=[c.exclude(g.index), c.ticket(g.index, g.bus_id, "Volatile Uncorr. ECC 计数非零", "non-zero Volatile Uncorr. ECC count"),
                           ("用 `nvidia-smi -q -d ECC,ROW_REMAPPER` 看详细计数和是否需要重置。", "Check `nvidia-smi -q -d ECC,ROW_REMAPPER` for details and whether a reset is pending.")],
                  gpu_index=g.index, bus_id=g.bus_id)
    if hang:
        c.add("gpu_hang_suspected", "warning",
              (f"GPU {idx(hang)} 利用率 ≥95% 但功耗接近空闲：疑似卡死", f"GPU {idx(hang)} at ≥95% utilisation but near-idle power: likely hung"),
              ev(hang),
              causes=[("NCCL 集合通信在等一个已经挂掉或很慢的进程（GPU-Util 只表示有 kernel 在跑，等待也算）", "A NCCL collective is waiting for a dead or slow peer (GPU-Util only means a kernel is resident; waiting counts)"),
                      ("死锁或某个 rank 出错退出", "A deadlock, or one rank died")],
              actions=[("用 `py-spy dump --pid <PID>` 看各进程卡在哪；用 NCCL_DEBUG=INFO 和 TORCH_NCCL_ASYNC_ERROR_HANDLING=1 重跑，设置合理的超时。", "Use `py-spy dump --pid <PID>` to see where each rank is stuck; rerun with NCCL_DEBUG=INFO and TORCH_NCCL_ASYNC_ERROR_HANDLING=1 and a sensible timeout."),
                       ("检查 dmesg 有没有 Xid；没有硬件报错就重启任务。", "Check dmesg for Xids; with no hardware errors, restart the job.")])
    if idle_full:
        c.add("memory_full_idle", "info",
              (f"GPU {idx(idle_full)} 显存几乎占满但利用率为 0%", f"GPU {idx(idle_full)} memory nearly full at 0% utilisation"), ev(idle_full),
              causes=[("推理服务（如 vLLM）预先占用显存但当前没有请求", "An inference server (e.g. vLLM) pre-allocated memory and is idle"),
                      ("训练进程卡住或在等数据/等其他进程", "A stalled job, or one waiting for data or other ranks"),
                      ("别人的进程占着卡（共享机器）", "Someone else's process holds the GPU (shared machine)")],
              actions=[("看进程表确认是谁在占显存；是自己的卡住的任务就结束它并重启（`kill <PID>`）。", "Check the process table for who holds the memory; if it is your stalled job, kill and restart it (`kill <PID>`).")])
    if input_bound:
        c.add("input_bound_suspected", "warning",
              (f"GPU {idx(input_bound)} 利用率低、功耗中等：疑似数据加载跟不上", f"GPU {idx(input_bound)} low utilisation at mid power: likely input-bound"), ev(input_bound),
              causes=[("DataLoader 的 num_workers 太少或数据预处理在 CPU 上太慢", "Too few DataLoader num_workers, or CPU-side preprocessing is too slow"),
                      ("数据在网络存储上，磁盘 I/O 跟不上", "Data on network storage; disk I/O cannot keep up"),
                      ("batch 太小", "The batch is too small")],
              actions=[("运行 `iostat -x 1 5` 看磁盘 %util 和 await；增大 DataLoader 的 num_workers、开启 pin_memory，把小文件打包（WebDataset）或把数据集拷到本地 NVMe/内存。", "Run `iostat -x 1 5` for disk %util and await; raise DataLoader num_workers, enable pin_memory, pack small files (WebDataset) or copy the dataset to local NVMe / RAM.")])
    if hot:
        c.add("gpu_hot", "warning", (f"GPU {idx(hot)} 温度 ≥85°C", f"GPU {idx(hot)} at ≥85 °C"), ev(hot),
              causes=[("散热不足（机房风道、风扇、被动散热卡的机箱气流）", "Insufficient cooling (airflow, fans, chassis airflow for passive cards)")],
              actions=[("用 `nvidia-smi -q -d TEMPERATURE,PERFORMANCE` 看是否已降频（Slowdown 温度和 Thermal Slowdown）；持续降频就开工单要求检查散热。", "Check `nvidia-smi -q -d TEMPERATURE,PERFORMANCE` for slowdown temperatures and Thermal Slowdown; open a ticket about cooling if it keeps throttling.")])
    if table.mig_devices or any(g.mig == "Enabled" for g in table.gpus):
        c.add("mig_enabled", "info", ("GPU 开启了 MIG 切分", "MIG partitioning is enabled"), [g.lines[0] for g in table.gpus if g.mig == "Enabled"][:4],
              causes=[("服务商把一张卡切成了多个实例；每个实例只有一部分显存和算力", "The provider split the GPU into instances; each has only part of the memory and compute")],
              actions=[("确认租的是整卡还是 MIG 实例；整卡训练需要服务商关闭 MIG。", "Confirm whether you rented a full GPU or a MIG slice; full-GPU training needs MIG disabled by the provider.")])
    names = {g.name for g in table.gpus if g.name and "ERR" not in g.name}
    if len(names) > 1:
        c.add("mixed_gpu_models", "warning", ("同一台机器上有不同型号的 GPU", "Different GPU models in one node"), [g.lines[0] for g in table.gpus][:8],
              causes=[("交付的配置与合同不一致，或本来就是混插", "The delivery differs from the contract, or the node is mixed by design")],
              actions=[("核对合同；分布式训练会被最慢的卡拖慢，用 CUDA_VISIBLE_DEVICES 只用同型号的卡。", "Check the contract; distributed training runs at the slowest card's pace, so use CUDA_VISIBLE_DEVICES to pick one model.")])


def rules_smi_query(c: Ctx) -> None:
    q = c.p.get("nvidia_smi_query")
    if not q:
        return
    for i, g in enumerate(q.gpus):
        index = c.bus_to_index.get(g.bus_id or "", i) if g.bus_id else (i if len(q.gpus) > 1 else None)
        label_zh, label_en = c.gpu_label(index, g.bus_id)
        hw = [r for r in g.throttle_active if r.startswith("HW")]
        if hw:
            c.add("clocks_hw_slowdown", "warning", (f"{label_zh} 硬件降频：{', '.join(hw)}", f"{label_en} hardware slowdown: {', '.join(hw)}"),
                  [g.lines.get(f"throttle:{r}", r) for r in hw],
                  causes=[("温度过高", "Temperature too high"), ("电源触发外部功率刹车（Power Brake）", "The PSU asserted the external power brake"),
                          ("瞬时功耗过高触发保护（HW Slowdown 会把频率砍到一半以下，NVML/DCGM 文档）", "Power draw too high, fast-trigger protection engaged (HW Slowdown cuts clocks by 2x or more; NVML/DCGM docs)")],
                  actions=[("先用 `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -l 5` 观察几分钟：温度接近 Slowdown 温度是散热问题，温度正常但 HW Power Brake 激活是供电问题；两种都要机房处理，训练会明显变慢。",
                            "Watch `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -l 5` for a few minutes: near the slowdown temperature means cooling, normal temperature with HW Power Brake means power delivery; both need the data centre, and training slows down markedly."),
                           c.ticket(index, g.bus_id, f"GPU 持续硬件降频（{', '.join(hw)}）", f"persistent hardware slowdown ({', '.join(hw)})")],
                  gpu_index=index, bus_id=g.bus_id)
        if "SW Thermal Slowdown" in g.throttle_active:
            c.add("clocks_sw_thermal", "warning", (f"{label_zh} 软件温控降频", f"{label_en} software thermal slowdown"),
                  [g.lines.get("throttle:SW Thermal Slowdown", ""), g.lines.get("temp", "")],
                  causes=[("GPU 温度超过了驱动的目标温度", "The GPU is above the driver's target temperature")],
                  actions=[("检查散热；训练速度会下降，持续出现就开工单。", "Check cooling; training slows down; open a ticket if it persists.")], gpu_index=index, bus_id=g.bus_id)
        if "SW Power Cap" in g.throttle_active:
            c.add("clocks_power_cap", "info", (f"{label_zh} 达到功耗上限（SW Power Cap）", f"{label_en} at its power cap (SW Power Cap)"),
                  [g.lines.get("throttle:SW Power Cap", "")],
                  causes=[("满载训练时常见；若功耗上限被调低会变慢（azurehpc NHC 不把它当告警）", "Normal under full load; slower if the limit was lowered (azurehpc NHC does not alert on it)")],
                  actions=[("用 `nvidia-smi -q -d POWER` 对比 Current/Default/Max Power Limit，是否被服务商调低。", "Compare Current/Default/Max Power Limit in `nvidia-smi -q -d POWER` to see if the provider lowered it.")],
                  gpu_index=index, bus_id=g.bus_id)
        if g.temp_c is not None and g.temp_slowdown_c and g.temp_c >= g.temp_slowdown_c - 5:
            c.add("gpu_near_slowdown_temp", "warning",
                  (f"{label_zh} 温度 {g.temp_c:.0f}°C，接近降频温度 {g.temp_slowdown_c:.0f}°C", f"{label_en} at {g.temp_c:.0f} °C, near its {g.temp_slowdown_c:.0f} °C slowdown"),
                  [g.lines.get("temp", "")], causes=[("散热不足", "Insufficient cooling")],
                  actions=[("开工单请机房检查散热；高温会降频甚至关机保护。", "Ask the provider to check cooling; heat causes slowdown or protective shutdown.")],
                  gpu_index=index, bus_id=g.bus_id)
        if g.ecc_volatile_uncorrectable > 0:
            c.add("ecc_uncorrectable", "critical", (f"{label_zh} 本次开机后出现不可纠正 ECC 错误", f"{label_en} has uncorrectable ECC errors since boot"),
                  [g.lines.get("ecc", "")], causes=[("显存硬件错误", "Memory hardware error")],
                  actions=[c.exclude(index), c.ticket(index, g.bus_id, "出现不可纠正 ECC 错误", "uncorrectable ECC errors")], gpu_index=index, bus_id=g.bus_id)
        elif g.ecc_aggregate_uncorrectable > 0 and not c.has("ecc_uncorrectable"):
            c.add("ecc_uncorrectable_history", "warning", (f"{label_zh} 历史上有过不可纠正 ECC 错误", f"{label_en} has had uncorrectable ECC errors in the past"),
                  [g.lines.get("ecc", "")], causes=[("显存曾经出错；看重映射是否成功", "Memory errors happened before; check whether remapping succeeded")],
                  actions=[("看 Remapped Rows 的 Pending/Failure；失败或反复出现要求换卡。", "Check Remapped Rows Pending/Failure; ask for a replacement if it failed or keeps happening.")], gpu_index=index, bus_id=g.bus_id)
        if (g.remap_failure or "").lower().startswith("yes"):
            c.add("row_remap_failure", "critical", (f"{label_zh} 显存行重映射失败", f"{label_en} row remapping failed"), [g.lines.get("remap_failure", "")],
                  causes=[("备用行用完或重映射出错（对应 Xid 64）", "Spare rows exhausted or the remap failed (Xid 64)")],
                  actions=[c.exclude(index), c.ticket(index, g.bus_id, "Remapping Failure Occurred: Yes，需要换卡", "Remapping Failure Occurred: Yes; the GPU needs replacement")], gpu_index=index, bus_id=g.bus_id)
        elif (g.remap_pending or "").lower().startswith("yes") or (g.retired_pending or "").lower().startswith("yes"):
            c.add("memory_repair_pending", "warning", (f"{label_zh} 有待生效的显存重映射/页退役", f"{label_en} has a pending row remap / page retirement"),
                  [g.lines.get("remap_pending", ""), g.lines.get("retired_pending", "")],
                  causes=[("显存错误已记录，需要重置 GPU 才能生效（NVIDIA GPU Memory Error Management）", "A memory error was recorded; a GPU reset activates the repair (NVIDIA GPU Memory Error Management)")],
                  actions=[("请服务商在方便时重置这块 GPU（nvidia-smi -r）或重启。", "Ask the provider to reset this GPU (nvidia-smi -r) or reboot at a convenient time.")], gpu_index=index, bus_id=g.bus_id)
        if g.pcie_width_current and g.pcie_width_max and g.pcie_width_current < g.pcie_width_max:
            c.add("pcie_link_degraded", "warning", (f"{label_zh} PCIe 链路宽度降级：x{g.pcie_width_current} / 最大 x{g.pcie_width_max}", f"{label_en} PCIe link width degraded: x{g.pcie_width_current} of x{g.pcie_width_max}"),
                  [g.lines.get("pcie_width", "")], causes=[("插槽、转接卡或线缆接触不良", "Slot, riser or cable problem")],
                  actions=[c.ticket(index, g.bus_id, f"PCIe 链路只训练到 x{g.pcie_width_current}", f"PCIe link trained at x{g.pcie_width_current} only")], gpu_index=index, bus_id=g.bus_id)


# --------------------------------------------------------------------------- kernel log

def rules_kernel(c: Ctx) -> None:
    k = c.p.get("kernel_log")
    if not k:
        return
    groups: "OrderedDict[tuple[int, str | None], list[Any]]" = OrderedDict()
    for x in k.xids:
        groups.setdefault((x.code, x.bus_id), []).append(x)
    for (code, bus), items in groups.items():
        e = entry(code)
        name = T(zh=e["name"]["zh"], en=e["name"]["en"]) if e else None
        c.xids.append(XidEvent(code=code, bus_id=bus, count=len(items), text=items[0].line,
                               gpu_index=c.bus_to_index.get(bus or ""), name=name))
    by_code: "OrderedDict[int, list[Any]]" = OrderedDict()
    for x in k.xids:
        by_code.setdefault(x.code, []).append(x)
    codes_seen = set(by_code)
    for code, items in by_code.items():
        _xid_finding(c, code, items, codes_seen)
    xid79_buses = {x.bus_id for x in k.xids if x.code == 79}
    for bus, line in k.fallen_off:
        if bus in xid79_buses:
            continue
        index = c.bus_to_index.get(bus or "")
        lz, le = c.gpu_label(index, bus)
        c.add("gpu_fallen_off_bus", "critical", (f"{lz} 从总线上掉线（没有 Xid 记录）", f"{le} has fallen off the bus (no Xid logged)"), [line],
              causes=[("PCIe 链路故障（常先有 AER 报错）", "PCIe link failure (often preceded by AER errors)"), ("供电或过热", "Power or overheating"),
                      ("主板 BIOS 过旧（open-gpu-kernel-modules#507）", "Outdated system BIOS (open-gpu-kernel-modules#507)")],
              actions=[c.exclude(index), c.ticket(index, bus, "GPU 掉卡（fallen off the bus），需要重启并检修", "GPU fell off the bus; needs a reboot and inspection")],
              gpu_index=index, bus_id=bus)
    fatal = [a for a in k.aer if a.severity == "fatal"]
    nonfatal = [a for a in k.aer if a.severity == "nonfatal"]
    corrected = [a for a in k.aer if a.severity == "corrected"]
    if fatal:
        a = fatal[0]
        index = c.bus_to_index.get(a.bus_id or "")
        surprise = any("Surprise Down" in b or "SDES" in b for x in fatal for b in x.bits)
        c.add("pcie_aer_fatal", "critical", ("PCIe 不可纠正的致命错误（AER Fatal）" + ("：Surprise Down，设备突然断开" if surprise else ""),
                                             "PCIe uncorrectable fatal error (AER Fatal)" + (": Surprise Down, the device dropped off the link" if surprise else "")),
              [line for x in fatal for line in x.line.split("\n")],
              causes=[("PCIe 链路断开，通常紧接着 Xid 79 掉卡", "The PCIe link went down; usually followed immediately by Xid 79"),
                      ("转接卡、插槽、线缆或供电问题", "Riser, slot, cable or power problem")],
              actions=[c.exclude(index), c.ticket(index, a.bus_id, "PCIe AER 致命错误", "PCIe AER fatal error")], gpu_index=index, bus_id=a.bus_id)
    if nonfatal:
        c.add("pcie_aer_nonfatal", "warning", ("PCIe 不可纠正（非致命）错误", "PCIe uncorrected non-fatal errors"),
              [line for x in nonfatal for line in x.line.split("\n")],
              causes=[("PCIe 链路质量问题", "PCIe link quality problem")],
              actions=[("观察是否伴随 Xid；反复出现就开工单，附这些 AER 行。", "Watch for Xids; if it repeats, open a ticket with these AER lines.")])
    if corrected:
        many = len(corrected) >= 10
        c.add("pcie_aer_corrected", "warning" if many else "info",
              (f"PCIe 可纠正错误 {len(corrected)} 次", f"{len(corrected)} corrected PCIe errors"),
              [line for x in corrected for line in x.line.split("\n")],
              causes=[("链路重传（如 Replay Timer Timeout），数据没有损坏；大量出现说明链路信号差", "Link-level retries (e.g. Replay Timer Timeout); data is intact, but bursts mean poor signal integrity")],
              actions=[("少量可以忽略；成批出现并伴随性能下降或 Xid 就开工单。", "A few can be ignored; bursts with slowdowns or Xids warrant a ticket.")])
    for code, bus, line in k.sxids[:1]:
        fatal_sx = "Fatal" in line and "Non-fatal" not in line
        c.add("nvswitch_sxid", "critical" if fatal_sx else "warning",
              (f"NVSwitch 报错 SXid {code}", f"NVSwitch error SXid {code}"), [s[2] for s in k.sxids],
              causes=[("NVSwitch 或其 NVLink 链路故障", "An NVSwitch or its NVLink links are faulty")],
              actions=[("非致命的 SXid 先观察；致命 SXid 需要服务商重启并检查 Fabric Manager。", "Watch non-fatal SXids; fatal ones need a provider reboot and a Fabric Manager check."),
                       c.ticket(None, bus, f"NVSwitch SXid {code}", f"NVSwitch SXid {code}")])
    if k.rm_init_failed:
        c.add("rm_init_adapter_failed", "critical", ("驱动初始化 GPU 失败（RmInitAdapter failed）", "The driver failed to initialise a GPU (RmInitAdapter failed)"), k.rm_init_failed,
              causes=[("GPU 硬件故障或处于异常状态", "GPU hardware fault or bad state"), ("驱动与 GPU 不匹配", "Driver does not support this GPU")],
              actions=[c.ticket(None, None, "驱动报 RmInitAdapter failed", "the driver logs RmInitAdapter failed")])
    if k.api_mismatch:
        c.add("driver_api_mismatch", "critical", ("内核模块与用户态驱动版本不一致（API mismatch）", "Kernel module and user-space driver differ (API mismatch)"), k.api_mismatch,
              causes=[("驱动升级后没有重启", "The driver was upgraded without a reboot")],
              actions=[("重启机器（或请服务商重启）。", "Reboot the node (or ask the provider to).")])


def _is_fatal(sheet_severity: str) -> bool:
    """'Fatal' and 'Link Fatal' are fatal; 'Non-fatal' is not (NVLink5 decode sheet wording)."""
    s = sheet_severity.lower()
    return "fatal" in s and "non-fatal" not in s and "nonfatal" not in s


def _xid_finding(c: Ctx, code: int, items: list[Any], codes_seen: set[int]) -> None:
    e = entry(code)
    buses = list(OrderedDict.fromkeys(x.bus_id for x in items))
    indexes = [c.bus_to_index.get(b or "") for b in buses]
    bus = buses[0] if len(buses) == 1 else None
    index = indexes[0] if len(buses) == 1 else None
    where_zh, where_en = c.gpu_label(index, bus) if bus else ("多块 GPU" if len(buses) > 1 else "未知 GPU", "several GPUs" if len(buses) > 1 else "unknown GPU")
    lines = [x.line for x in items]
    if e is None:
        c.add(f"xid_{code}", "warning", (f"Xid {code}（目录中没有的代码）出现在{where_zh}", f"Xid {code} (not in the catalog) on {where_en}"), lines,
              actions=[c.ticket(index, bus, f"出现未知 Xid {code}", f"unknown Xid {code}")], gpu_index=index, bus_id=bus)
        return
    sev = e["severity"]
    title_zh = f"Xid {code}：{e['name']['zh']}（{where_zh}，{len(items)} 次）"
    title_en = f"Xid {code}: {e['name']['en']} ({where_en}, {len(items)}x)"
    causes: list[tuple[str, str]] = []
    actions: list[tuple[str, str]] = []
    legacy = e.get("legacy_causes") or []
    if legacy:
        names = {"hardware": ("硬件", "hardware"), "driver": ("驱动", "driver"), "user_application": ("用户程序", "user application"),
                 "system_memory_corruption": ("系统内存损坏", "system memory corruption"), "bus": ("总线", "bus"),
                 "thermal": ("温度", "thermal"), "framebuffer_corruption": ("显存损坏", "framebuffer corruption")}
        causes.append(("旧版 NVIDIA Xid 表列出的可能原因：" + "、".join(names[n][0] for n in legacy),
                       "Possible causes in NVIDIA's legacy Xid table: " + ", ".join(names[n][1] for n in legacy)))
    for note in e.get("disagreements") or []:
        causes.append((note["zh"], note["en"]))
    if code == 45:
        prev = [x.previous_xid for x in items if x.previous_xid]
        if prev or (codes_seen - {45}):
            sev = "info"
            first = prev[0] if prev else sorted(codes_seen - {45})[0]
            title_zh += f"；由之前的 Xid {first} 引起"
            title_en += f"; caused by the earlier Xid {first}"
            actions.append((f"这是伴随性错误，按 Xid {first} 处理。", f"Sympathetic error: diagnose Xid {first} instead."))
    if code == 154:
        targets = [x.recovery_to for x in items if x.recovery_to]
        last = targets[-1] if targets else None
        if last and last.lower() == "none":
            sev = "info"
            actions.append(("恢复动作已变为 None：GPU 已恢复，无需处理。", "Recovery action is now None: the GPU has recovered."))
        elif last:
            sev = "critical"
            title_zh += f"：{last}"
            title_en += f": {last}"
            actions.append(c.ticket(index, bus, f"Xid 154 要求 {last}", f"Xid 154 requests {last}"))
    if 144 <= code <= 150:
        from tools.diagnosis.nvlink5 import decode
        decoded = [decode(code, x.unit, x.text) for x in items]
        levels = []
        for x, row in zip(items, decoded):
            if row is not None:
                fatal = _is_fatal(row["severity"])
                quiet = row["resolution"] == "IGNORE" and row["investigatory"] == "IGNORE"
                levels.append("critical" if fatal else ("info" if quiet else "warning"))
            else:
                levels.append("critical" if x.fatality == "fatal" else "warning")
        sev = max(levels, key=lambda lv: SEVERITY_RANK[lv])
        units = sorted({x.unit for x in items if x.unit})
        links = sorted({x.link for x in items if x.link is not None})
        if units or links:
            title_zh += f"；单元 {','.join(units) or '?'}，链路 {','.join(map(str, links)) or '?'}"
            title_en += f"; unit {','.join(units) or '?'}, link {','.join(map(str, links)) or '?'}"
        rows = [r for r in decoded if r is not None]
        if rows:
            r = max(rows, key=lambda r: _is_fatal(r["severity"]))
            causes.append((f"NVIDIA “XID 144-150 Decode” 表：{r['unit']} 错误状态 {r['error_status']} → {r['severity']}，"
                           f"立即动作 {r['resolution']}，调查动作 {r['investigatory']}，{r['hw_sw']}；影响：{r['local_remote']}",
                           f"NVIDIA \"XID 144-150 Decode\": {r['unit']} status {r['error_status']} → {r['severity']}, immediate {r['resolution']}, "
                           f"investigatory {r['investigatory']}, {r['hw_sw']}; effect: {r['local_remote']}"))
        else:
            causes.append(("这条 NVLink5 错误在解码表中没有匹配行，按行中的 Fatal/Nonfatal 判断。",
                           "No row of the NVLink5 decode sheet matched; severity follows the Fatal/Nonfatal word in the line."))
    if code in (13, 31):
        pids = {x.pid for x in items if x.pid and x.pid != "<unknown>"}
        if len(pids) >= 3 and len(buses) == 1:
            sev = "critical"
            causes.insert(0, ("同一块卡在多个不同进程中反复出现，硬件嫌疑上升", "It repeats on one GPU across several processes, which points to hardware"))
            actions.append(c.ticket(index, bus, f"同一块 GPU 在不同任务中反复出现 Xid {code}", f"Xid {code} repeats on the same GPU across jobs"))
    renter = e.get("renter_action")
    if renter:
        actions.append((renter["zh"], renter["en"]))
    if SEVERITY_RANK[sev] >= SEVERITY_RANK["critical"] and not any(a[0].startswith("给服务商开工单") for a in actions):
        if index is not None:
            actions.insert(0, c.exclude(index))
        actions.append(c.ticket(index, bus, f"Xid {code}（{e['name']['zh']}）", f"Xid {code} ({e['name']['en']})"))
    actions.append((f"NVIDIA 目录：立即动作 {e['immediate_action']['bucket'] or '—'}（{e['immediate_action']['zh']}）；调查动作 {e['investigatory_action']['bucket'] or '—'}。",
                    f"NVIDIA catalog: immediate {e['immediate_action']['bucket'] or '—'} ({e['immediate_action']['en']}); investigatory {e['investigatory_action']['bucket'] or '—'}."))
    if code in APPLICATION_XIDS and sev != "critical":
        causes.insert(0, ("多为程序层面的问题（NVIDIA k8s-device-plugin 不因它把 GPU 标为不健康）", "Usually application-level (NVIDIA's k8s-device-plugin does not mark the GPU unhealthy for it)"))
    c.add(f"xid_{code}", sev, (title_zh, title_en), lines, causes=causes, actions=actions, gpu_index=index, bus_id=bus)


# --------------------------------------------------------------------------- lspci / topo

def rules_lspci(c: Ctx) -> None:
    lp = c.p.get("lspci")
    if not lp:
        return
    for d in lp.devices:
        if d.rev == "ff":
            index = c.bus_to_index.get(d.bus_id or "")
            c.add("pci_rev_ff", "critical", (f"lspci 显示 {d.bus_id} 为 rev ff：设备不再响应", f"lspci shows {d.bus_id} as rev ff: the device no longer responds"), [d.line],
                  causes=[("GPU 掉卡，配置空间读回全 1", "The GPU fell off the bus; config space reads return all ones")],
                  actions=[c.exclude(index), c.ticket(index, d.bus_id, "lspci 显示 rev ff（掉卡）", "lspci shows rev ff (GPU fell off the bus)")],
                  gpu_index=index, bus_id=d.bus_id)
    down = [d for d in lp.devices if d.link_downgraded and d.link_line]
    if down:
        c.add("pcie_link_downgraded", "info", ("lspci 显示 PCIe 链路降速/降宽（downgraded）", "lspci shows a downgraded PCIe link"),
              [f"{d.bus_id}: {d.link_line}" for d in down],
              causes=[("空闲时 GPU 会主动降低 PCIe 速率省电；满载时仍降级才是问题", "Idle GPUs lower the PCIe speed to save power; it matters only if it stays downgraded under load")],
              actions=[("在跑任务时用 `nvidia-smi -q -d PCI` 复查 Link Width/Generation。", "Recheck Link Width/Generation with `nvidia-smi -q -d PCI` while a job runs.")])
    table = c.p.get("nvidia_smi_table")
    if table and table.gpus:
        n_pci = len(lp.gpus)
        if n_pci > len(table.gpus):
            missing = sorted({d.bus_id for d in lp.gpus} - {g.bus_id for g in table.gpus} - {None})
            c.add("gpu_count_mismatch", "critical",
                  (f"PCIe 上有 {n_pci} 块 NVIDIA GPU，但 nvidia-smi 只看到 {len(table.gpus)} 块", f"{n_pci} NVIDIA GPUs on PCIe but nvidia-smi sees {len(table.gpus)}"),
                  [d.line for d in lp.gpus if d.bus_id in missing] or [d.line for d in lp.gpus],
                  causes=[("有卡初始化失败或掉卡", "A GPU failed to initialise or fell off the bus"),
                          ("容器只分配了部分 GPU（这种情况可以忽略）", "The container was given only some GPUs (fine if intended)")],
                  actions=[c.ticket(None, missing[0] if missing else None, "部分 GPU 对驱动不可见", "some GPUs are invisible to the driver")])


def rules_topo(c: Ctx) -> None:
    topos = c.p.get("topo")
    if not topos:
        return
    for t in topos:
        if t.is_p2p:
            ns = [(a, b, v) for (a, b), v in t.matrix.items() if a != b and v != "OK"]
            if ns:
                c.add("p2p_not_supported", "warning", ("部分 GPU 之间不支持 P2P", "P2P is not supported between some GPUs"),
                      t.lines, causes=[("PCIe ACS/IOMMU 或芯片组限制；消费级卡（如 4090）驱动层面不开放 P2P", "PCIe ACS/IOMMU or chipset limits; consumer cards (e.g. 4090) have P2P disabled in the driver")],
                      actions=[("NCCL 会退回 SHM（经主机内存），多卡通信变慢；可以接受就不用管，否则换 NVLink 机型。", "NCCL falls back to SHM (through host memory), so multi-GPU comms are slower; accept it or rent an NVLink machine.")])
            continue
        gpus = t.gpus
        if len(gpus) < 2:
            continue
        links = t.gpu_links()
        nv = t.nvlink_counts()
        if not nv:
            worst_link = "SYS" if "SYS" in links else ("NODE" if "NODE" in links else "PHB/PXB/PIX")
            c.add("no_nvlink", "info", (f"{len(gpus)} 块 GPU 之间没有 NVLink，只走 PCIe（最差 {worst_link}）", f"No NVLink between the {len(gpus)} GPUs; PCIe only (worst path {worst_link})"),
                  t.lines[:3],
                  causes=[("PCIe 版/消费级 GPU 本身没有 NVLink，或 NVLink 未生效", "PCIe/consumer GPUs have no NVLink, or NVLink is not active")],
                  actions=[("如果租的是 SXM（NVLink）机型，这就是交付不符，开工单；PCIe 机型多卡训练请预期更低的通信带宽（all-reduce busbw 约几到 20 GB/s）。", "If you rented an SXM (NVLink) machine this is a wrong delivery: open a ticket. On PCIe machines expect much lower comms bandwidth (all-reduce busbw from a few to ~20 GB/s).")])
        elif len(set(nv)) > 1 or len(nv) < len(links):
            c.add("nvlink_degraded", "warning", ("GPU 之间的 NVLink 数量不一致，可能有链路掉了", "Uneven NVLink counts between GPUs; some links may be down"),
                  t.lines, causes=[("NVLink 链路故障或未训练成功", "An NVLink link failed or did not train")],
                  actions=[("用 `nvidia-smi nvlink -s` 查看每条链路；开工单请服务商检查。", "Check each link with `nvidia-smi nvlink -s`; ask the provider to inspect.")])


# --------------------------------------------------------------------------- versions

def _version_tuple(v: str | None) -> tuple[int, ...] | None:
    if not v:
        return None
    nums = re.findall(r"\d+", v)
    return tuple(int(n) for n in nums[:3]) if nums else None


def rules_versions(c: Ctx) -> None:
    torch = c.p.get("torch_errors")
    nvcc = c.p.get("nvcc")
    driver = _version_tuple(c.inventory.driver_version)
    max_cuda = _version_tuple(c.inventory.cuda_version)
    if torch and torch.too_old_found:
        found = torch.too_old_found
        cuda_max = f"{found // 1000}.{(found % 1000) // 10}"
        c.add("driver_too_old", "critical", (f"驱动太旧：只支持到 CUDA {cuda_max}", f"Driver too old: supports CUDA up to {cuda_max}"), [torch.too_old_line or ""],
              causes=[(f"PyTorch 报告的 found version {found} 表示驱动最高支持 CUDA {cuda_max}，而装的 PyTorch wheel 需要更新的 CUDA", f"found version {found} means the driver supports CUDA {cuda_max}; the installed PyTorch wheel needs a newer CUDA")],
              actions=[(f"自己能做的：装与驱动匹配的 wheel，例如 CUDA ≤{cuda_max} 的版本（`pip install torch --index-url https://download.pytorch.org/whl/cu1xx`，cu 版本不高于 {cuda_max}）。", f"What you can do: install a wheel built for CUDA ≤{cuda_max} (`pip install torch --index-url https://download.pytorch.org/whl/cu1xx` with cu ≤ {cuda_max})."),
                       ("或者请服务商升级驱动（CUDA 12.x 需要驱动 ≥525，13.x 需要 ≥580）。", "Or ask the provider to upgrade the driver (CUDA 12.x needs ≥525, 13.x needs ≥580).")])
    if torch and "driver_insufficient" in torch.events and not c.has("driver_too_old"):
        c.add("driver_too_old", "critical", ("驱动版本不足以运行这个 CUDA 运行时", "The driver is too old for this CUDA runtime"), [torch.events["driver_insufficient"]],
              causes=[("程序或 wheel 自带的 CUDA 运行时比驱动支持的最高 CUDA 新", "The program's / wheel's CUDA runtime is newer than the driver supports")],
              actions=[("对照 nvidia-smi 右上角的 CUDA Version（驱动支持的最高版本）换一个不高于它的 wheel；或请服务商升级驱动。", "Compare with the CUDA Version in nvidia-smi's header (the driver's maximum) and install a wheel no newer than that, or ask the provider to upgrade the driver.")])
    torch_cuda = _version_tuple(torch.torch_cuda) if torch and torch.torch_cuda else None
    if torch_cuda and (max_cuda or driver):
        major = torch_cuda[0]
        need = MIN_DRIVER_FOR_CUDA_MAJOR.get(major)
        bad = False
        if max_cuda and major > max_cuda[0]:
            bad = True
        elif driver and need and driver < need:
            bad = True
        if bad and not c.has("driver_too_old"):
            c.add("torch_cuda_newer_than_driver", "critical",
                  (f"PyTorch wheel 用的 CUDA {torch.torch_cuda} 超出驱动支持（驱动 {c.inventory.driver_version}，最高 CUDA {c.inventory.cuda_version}）",
                   f"The PyTorch wheel's CUDA {torch.torch_cuda} exceeds what the driver supports (driver {c.inventory.driver_version}, max CUDA {c.inventory.cuda_version})"),
                  [torch.available_line or "", _header_line(c)],
                  causes=[("CUDA 次版本兼容要求：12.x 需要驱动 ≥525，11.x ≥450.80.02，13.x ≥580（NVIDIA CUDA Compatibility）", "Minor-version compatibility needs driver ≥525 for 12.x, ≥450.80.02 for 11.x, ≥580 for 13.x (NVIDIA CUDA Compatibility)")],
                  actions=[(f"换一个 CUDA 主版本不高于 {c.inventory.cuda_version} 的 PyTorch wheel；或请服务商升级驱动。", f"Install a PyTorch wheel whose CUDA major is ≤ {c.inventory.cuda_version}, or ask the provider to upgrade the driver.")])
        elif max_cuda and torch_cuda > max_cuda and not bad:
            c.add("torch_cuda_minor_compat", "info",
                  (f"wheel 的 CUDA {torch.torch_cuda} 比驱动标称的 {c.inventory.cuda_version} 新，但同一主版本", f"Wheel CUDA {torch.torch_cuda} is newer than the driver's {c.inventory.cuda_version}, same major"),
                  [_header_line(c)],
                  causes=[("CUDA 次版本兼容允许这样运行，但 PTX JIT 等少数功能不可用", "Minor-version compatibility allows this; a few features such as PTX JIT are unavailable")],
                  actions=[("一般能正常训练；遇到 PTX/JIT 相关报错再换低一点的 wheel。", "Training normally works; switch to an older wheel if PTX/JIT errors appear.")])
    if torch and torch.is_available is False:
        causes = []
        if torch.torch_version and "+cpu" in torch.torch_version:
            causes.append(("装的是 CPU 版 PyTorch（版本号带 +cpu）", "A CPU-only PyTorch is installed (version ends in +cpu)"))
        causes += [("wheel 的 CUDA 比驱动新", "The wheel's CUDA is newer than the driver"),
                   ("容器没有挂载 GPU（缺少 --gpus all）或 CUDA_VISIBLE_DEVICES 为空", "The container has no GPUs (missing --gpus all) or CUDA_VISIBLE_DEVICES is empty"),
                   ("驱动未加载", "The driver is not loaded")]
        c.add("torch_cuda_unavailable", "critical", ("torch.cuda.is_available() 为 False：PyTorch 用不了 GPU", "torch.cuda.is_available() is False: PyTorch cannot use the GPU"),
              [torch.available_line or ""], causes=causes,
              actions=[("先运行 nvidia-smi：看不到卡是容器/驱动问题；看得到就按 nvidia-smi 右上角 CUDA Version 重装匹配的 wheel（pytorch.org 的安装命令选对 cu 版本）。", "Run nvidia-smi first: no GPUs means a container/driver problem; if GPUs show, reinstall a wheel matching the CUDA Version in nvidia-smi's header (pick the right cu version on pytorch.org).")])
    if torch and "no_driver" in torch.events and not c.has("torch_cuda_unavailable"):
        c.add("torch_cuda_unavailable", "critical", ("PyTorch 找不到 NVIDIA 驱动", "PyTorch found no NVIDIA driver"), [torch.events["no_driver"]],
              causes=[("容器没有挂载 GPU 或驱动未加载", "The container has no GPUs or the driver is not loaded")],
              actions=[("用 `docker run --gpus all` 启动容器；宿主机 nvidia-smi 也失败就开工单。", "Start the container with `docker run --gpus all`; open a ticket if nvidia-smi fails on the host too.")])
    if nvcc and nvcc.release:
        nv = _version_tuple(nvcc.release)
        if max_cuda and nv and nv[0] > max_cuda[0]:
            c.add("nvcc_newer_than_driver", "warning", (f"nvcc（CUDA {nvcc.release}）比驱动支持的 CUDA {c.inventory.cuda_version} 新", f"nvcc (CUDA {nvcc.release}) is newer than the driver's CUDA {c.inventory.cuda_version}"),
                  [nvcc.line, _header_line(c)], causes=[("本地编译的 CUDA 程序/扩展在这个驱动上跑不起来", "Locally compiled CUDA programs/extensions will not run on this driver")],
                  actions=[("pip/conda 装的 PyTorch 自带运行时，不受 nvcc 影响；只有编译扩展（如 flash-attn）时才需要匹配的 toolkit。", "pip/conda PyTorch bundles its own runtime and ignores nvcc; only compiling extensions (e.g. flash-attn) needs a matching toolkit.")])
        elif max_cuda and nv and nv[0] == max_cuda[0] and nv > max_cuda:
            c.add("nvcc_newer_minor_than_driver", "info",
                  (f"nvcc（CUDA Toolkit {nvcc.release}）比驱动支持的最高 CUDA {c.inventory.cuda_version} 新，但主版本相同",
                   f"nvcc (CUDA toolkit {nvcc.release}) is newer than the driver's maximum CUDA {c.inventory.cuda_version}, same major"),
                  [nvcc.line, _header_line(c)],
                  causes=[("nvidia-smi 右上角的 CUDA Version 是驱动支持的最高版本，nvcc 是另装的工具包，两者本来就可以不同",
                           "The CUDA Version in nvidia-smi's header is the highest the driver supports; nvcc is a separately installed toolkit, so they may differ"),
                          ("同一主版本内有次版本兼容：一般能编译运行，少数功能（PTX JIT）不可用（NVIDIA CUDA Compatibility）",
                           "Minor-version compatibility within a major: compiling and running generally work, a few features (PTX JIT) do not (NVIDIA CUDA Compatibility)")],
                  actions=[("不是装错了；pip/conda 装的 PyTorch 自带 CUDA 运行时，不受 nvcc 影响。编译扩展出错时再装与驱动匹配的 toolkit。",
                            "Nothing is broken; pip/conda PyTorch bundles its own CUDA runtime. Match the toolkit to the driver only if extension builds fail.")])
        elif torch_cuda and nv and nv[0] != torch_cuda[0]:
            c.add("nvcc_torch_mismatch", "info", (f"nvcc CUDA {nvcc.release} 与 PyTorch 的 CUDA {torch.torch_cuda} 主版本不同", f"nvcc CUDA {nvcc.release} and PyTorch's CUDA {torch.torch_cuda} differ in major version"),
                  [nvcc.line], causes=[("只影响编译 CUDA 扩展", "Matters only when compiling CUDA extensions")],
                  actions=[("编译扩展前装与 torch.version.cuda 相同主版本的 toolkit。", "Install a toolkit with the same major as torch.version.cuda before compiling extensions.")])
    if nvcc and nvcc.missing:
        c.add("nvcc_missing", "info", ("没有 nvcc（CUDA Toolkit 未安装或不在 PATH）", "nvcc not found (CUDA toolkit not installed or not on PATH)"), [nvcc.line],
              causes=[("运行 PyTorch 不需要 nvcc；只有编译扩展才需要", "PyTorch does not need nvcc; only compiling extensions does")],
              actions=[("需要编译扩展时再装 CUDA Toolkit 或用 devel 版镜像。", "Install the CUDA toolkit or use a -devel image when you need to compile extensions.")])


def _header_line(c: Ctx) -> str:
    t = c.p.get("nvidia_smi_table")
    return (t.header_line or "") if t else ""


def rules_torch(c: Ctx) -> None:
    torch = c.p.get("torch_errors")
    if not torch:
        return
    for o in torch.ooms[:1]:
        causes = []
        sev = "warning"
        fid = "cuda_oom"
        if o.other_processes:
            others = [(p, g) for p, g in o.other_processes if o.this_process_gib is None or abs(g - o.this_process_gib) > 0.01]
            if others:
                fid = "oom_other_process"
                causes.append((f"另有进程占着显存：" + "，".join(f"PID {p} 用了 {g:.2f} GiB" for p, g in others),
                               "Other processes hold memory: " + ", ".join(f"PID {p} uses {g:.2f} GiB" for p, g in others)))
        if o.reserved_unallocated_gib is not None and o.requested_gib is not None and \
                o.reserved_unallocated_gib >= max(0.5, o.requested_gib) and fid == "cuda_oom":
            fid = "oom_fragmentation"
            causes.append((f"PyTorch 预留但未分配 {o.reserved_unallocated_gib:.2f} GiB，大于这次申请的 {o.requested_gib:.2f} GiB：显存碎片化",
                           f"{o.reserved_unallocated_gib:.2f} GiB reserved but unallocated exceeds the {o.requested_gib:.2f} GiB request: fragmentation"))
        if not causes:
            causes.append(("模型、batch 或序列长度需要的显存超过这张卡", "The model, batch or sequence length needs more memory than this GPU has"))
        total = f"{o.total_gib:.2f} GiB" if o.total_gib else "?"
        actions = []
        if fid == "oom_other_process":
            actions.append(("用 nvidia-smi 看是谁占的显存，结束自己遗留的进程；共享机器就换一张空卡（CUDA_VISIBLE_DEVICES）。", "Find the holder with nvidia-smi, kill your own leftover process, or pick a free GPU with CUDA_VISIBLE_DEVICES on a shared machine."))
        if fid == "oom_fragmentation":
            actions.append(("设置 `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` 后重跑。", "Rerun with `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`."))
        actions.append(("减小 micro-batch、开启梯度检查点（gradient checkpointing）、用 bf16、或用 ZeRO/FSDP 分摊；可以用 `gpu-advisor estimate` 先算显存。", "Reduce the micro-batch, enable gradient checkpointing, use bf16, or shard with ZeRO/FSDP; `gpu-advisor estimate` computes the memory first."))
        c.add(fid, sev, (f"CUDA 显存不足（GPU {o.gpu if o.gpu is not None else '?'}，总容量 {total}）", f"CUDA out of memory (GPU {o.gpu if o.gpu is not None else '?'}, total {total})"),
              [o.line], causes=causes, actions=actions)
    ev = torch.events
    if "uncorrectable_ecc" in ev:
        c.add("ecc_uncorrectable", "critical", ("CUDA 报告不可纠正的 ECC 错误", "CUDA reported an uncorrectable ECC error"), [ev["uncorrectable_ecc"]],
              causes=[("显存硬件错误（对应 Xid 48/94/95）", "Memory hardware error (Xid 48/94/95)")],
              actions=[("查 dmesg 里的 Xid 确定是哪块卡；用 CUDA_VISIBLE_DEVICES 排除它，并开工单（附 Xid 行和 nvidia-bug-report.sh）。", "Find the GPU from the Xid in dmesg; exclude it with CUDA_VISIBLE_DEVICES and open a ticket (Xid lines + nvidia-bug-report.sh).")])
    if "no_kernel_image" in ev:
        c.add("no_kernel_image", "critical", ("没有适用于这块 GPU 的 kernel（wheel 不支持此架构）", "No kernel image for this GPU (the wheel lacks its architecture)"), [ev["no_kernel_image"]],
              causes=[("PyTorch wheel 编译时没有包含这块卡的计算能力（如 RTX 50 系列需要 CUDA 12.8+ 的 wheel）", "The wheel was not built for this GPU's compute capability (e.g. RTX 50-series needs a CUDA 12.8+ wheel)")],
              actions=[("换更新的 PyTorch wheel（cu128 或更新），并确认驱动支持对应 CUDA。", "Install a newer wheel (cu128 or later) and make sure the driver supports that CUDA.")])
    if "illegal_memory_access" in ev or "launch_failure" in ev:
        line = ev.get("illegal_memory_access") or ev.get("launch_failure") or ""
        c.add("cuda_illegal_memory_access", "warning", ("CUDA 非法访存 / kernel 启动失败", "CUDA illegal memory access / launch failure"), [line],
              causes=[("程序或自定义算子越界（常伴随 Xid 13/31）", "Out-of-bounds access in the program or a custom kernel (often with Xid 13/31)"),
                      ("少数情况下是硬件问题：同一块卡在不同任务中反复出现", "Rarely hardware: suspect it if it repeats on one GPU across different jobs")],
              actions=[("用 `CUDA_LAUNCH_BLOCKING=1` 重跑定位出错的算子，或用 compute-sanitizer；查 dmesg 的 Xid。", "Rerun with `CUDA_LAUNCH_BLOCKING=1` to find the failing op, or use compute-sanitizer; check dmesg for Xids.")])
    if "device_side_assert" in ev:
        c.add("device_side_assert", "warning", ("CUDA device-side assert（设备端断言失败）", "CUDA device-side assert triggered"), [ev["device_side_assert"]],
              causes=[("多为标签/索引越界，例如分类标签 ≥ 类别数、embedding 下标越界", "Usually an out-of-range label/index, e.g. a class label ≥ num_classes or an embedding index out of range")],
              actions=[("在 CPU 上跑一个 batch 或设 `CUDA_LAUNCH_BLOCKING=1` 找到出错的那一行。", "Run one batch on CPU or set `CUDA_LAUNCH_BLOCKING=1` to find the failing line.")])
    if "devices_busy" in ev:
        c.add("cuda_devices_busy", "warning", ("CUDA 设备忙或不可用", "CUDA devices busy or unavailable"), [ev["devices_busy"]],
              causes=[("GPU 处于 Exclusive Process 模式且已有进程占用", "The GPU is in Exclusive Process mode and already in use"),
                      ("GPU 故障或容器无权限", "A GPU fault or no device permission in the container")],
              actions=[("看 nvidia-smi 的 Compute M. 列和进程表；结束占用的进程或换卡。", "Check nvidia-smi's Compute M. column and process table; stop the holder or use another GPU.")])


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
        c.add("nccl_p2p_not_used", sev, ("NCCL 在 GPU 之间走 SHM（主机内存），没有用 P2P/NVLink", "NCCL uses SHM (host memory) between GPUs, not P2P/NVLink"),
              [n.transport_lines["SHM"]] + [f"{k}={v}" for k, v in n.env.items()],
              causes=[("设置了 NCCL_P2P_DISABLE=1 或 NCCL_P2P_LEVEL 太低", "NCCL_P2P_DISABLE=1 or a low NCCL_P2P_LEVEL is set"),
                      ("PCIe ACS/IOMMU 阻止 P2P（NCCL 故障排查文档 ACS 一节）", "PCIe ACS/IOMMU blocks P2P (NCCL troubleshooting guide, ACS section)"),
                      ("消费级卡（4090 等）不开放 P2P，这种情况是正常的", "Consumer cards (4090 etc.) have no P2P; expected there")],
              actions=[("检查环境变量 NCCL_P2P_DISABLE/NCCL_P2P_LEVEL；NVLink 机型上仍走 SHM 就开工单，附 `nvidia-smi topo -m` 和这段日志。", "Check NCCL_P2P_DISABLE/NCCL_P2P_LEVEL; on an NVLink machine that still uses SHM, open a ticket with `nvidia-smi topo -m` and this log.")])
    elif n.env.get("NCCL_P2P_DISABLE") == "1":
        c.add("nccl_p2p_disabled_env", "warning", ("环境变量 NCCL_P2P_DISABLE=1 关闭了 P2P", "NCCL_P2P_DISABLE=1 turns P2P off"), ["NCCL_P2P_DISABLE=1"],
              actions=[("除非为了绕过 P2P 卡死问题，否则去掉这个变量。", "Remove it unless you set it to work around a P2P hang.")])
    if n.transports.get("NET/Socket") or n.network == "Socket":
        c.add("nccl_socket_fallback", "warning", ("NCCL 跨机通信走 TCP Socket，没有用 RDMA（IB/RoCE）", "NCCL crosses nodes over TCP sockets, not RDMA (IB/RoCE)"),
              [x for x in (n.ib_not_found, n.transport_lines.get("NET/Socket")) if x] + [w for w in n.warns if "ibv" in w][:2],
              causes=[("机器没有 IB/RoCE 网卡，或容器里看不到 /dev/infiniband", "No IB/RoCE NIC, or /dev/infiniband is not visible in the container"),
                      ("缺少 libibverbs（rdma-core）", "libibverbs (rdma-core) is missing")],
              actions=[("确认租的机器带 RDMA 网络（`ibv_devinfo`）；容器加 `--device /dev/infiniband --cap-add IPC_LOCK --network host` 并安装 rdma-core。", "Confirm the machine has RDMA (`ibv_devinfo`); give the container `--device /dev/infiniband --cap-add IPC_LOCK --network host` and install rdma-core."),
                       ("单机多卡可以忽略。", "Single-node jobs can ignore this.")])
    elif n.transports.get("NET/IB") and not n.gdrdma:
        c.add("nccl_ib_without_gdrdma", "info", ("NCCL 用了 IB，但没有启用 GPUDirect RDMA", "NCCL uses IB without GPUDirect RDMA"), [n.transport_lines["NET/IB"]],
              causes=[("nvidia-peermem 模块未加载，或 GPU 与网卡拓扑距离太远（SYS）", "nvidia-peermem is not loaded, or the GPU-NIC path is too far (SYS)")],
              actions=[("请服务商加载 nvidia-peermem；用 `nvidia-smi topo -m` 看 GPU 与 NIC 的距离。", "Ask the provider to load nvidia-peermem; check GPU-NIC distance with `nvidia-smi topo -m`.")])
    if n.watchdogs:
        op, tm, line = n.watchdogs[0]
        c.add("nccl_watchdog_timeout", "warning",
              (f"NCCL 看门狗超时：{op or '集合通信'} 超过 {tm // 1000 if tm else '?'} 秒没完成", f"NCCL watchdog timeout: {op or 'collective'} did not finish within {tm // 1000 if tm else '?'} s"),
              [w[2] for w in n.watchdogs],
              causes=[("某个 rank 挂了、卡住或比别人慢很多（数据加载、checkpoint 保存）", "One rank died, hung, or is much slower (data loading, checkpoint saving)"),
                      ("GPU 硬件故障（看各节点 dmesg 的 Xid）", "A GPU hardware fault (check dmesg for Xids on every node)"),
                      ("网络问题（跨机）", "Network trouble (multi-node)")],
              actions=[("先在每个节点查 `dmesg -T | grep -i xid`；有 Xid 按 Xid 处理，没有就用 NCCL_DEBUG=INFO 重跑并找最慢的 rank。", "First check `dmesg -T | grep -i xid` on every node; act on any Xid, otherwise rerun with NCCL_DEBUG=INFO and find the slowest rank."),
                       ("只在确认是合理的长操作时才调大 timeout（init_process_group(timeout=...)）。", "Raise the timeout (init_process_group(timeout=...)) only for known long operations.")])
    other_warns = [w for w in n.warns if "ibv" not in w and "libibverbs" not in w]
    if n.errors or other_warns:
        c.add("nccl_error", "warning", ("NCCL 报错或警告", "NCCL errors or warnings"), (n.errors + other_warns)[:8],
              causes=[("见引用的日志行；常见是网络、共享内存（/dev/shm 太小）或 P2P 问题", "See the quoted lines; common causes are network, shared memory (/dev/shm too small) or P2P")],
              actions=[("Docker 里加 `--shm-size=16g --ipc=host`；用 NCCL_DEBUG=INFO 重跑并看第一条 WARN。", "In Docker add `--shm-size=16g --ipc=host`; rerun with NCCL_DEBUG=INFO and read the first WARN.")])
    elif [w for w in n.warns if "libibverbs" in w] and not c.has("nccl_socket_fallback"):
        c.add("nccl_no_ibverbs", "info", ("没有 libibverbs：NCCL 不能用 RDMA", "No libibverbs: NCCL cannot use RDMA"), [w for w in n.warns if "libibverbs" in w],
              causes=[("容器里没装 rdma-core", "rdma-core is not installed in the container")],
              actions=[("单机可以忽略；多机训练需安装 rdma-core 并挂载 /dev/infiniband。", "Ignore on a single node; multi-node needs rdma-core and /dev/infiniband.")])


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
            return ExpectedBusbw(float(r.mid_gbs), float(r.low_gbs), float(r.high_gbs), float(r.flag_below_gbs), str(r.source))
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
            c.add("nccl_tests_wrong", "critical", (f"nccl-tests 结果校验失败：#wrong 合计 {run.wrong_total}", f"nccl-tests validation failed: #wrong totals {run.wrong_total}"), bad,
                  causes=[("数据在传输中被破坏：GPU、NVLink/NVSwitch 或 PCIe 硬件故障", "Data corrupted in flight: GPU, NVLink/NVSwitch or PCIe hardware fault")],
                  actions=[("不要在这台机器上训练；逐对 GPU 重跑（-g 2，CUDA_VISIBLE_DEVICES 选两块）找出坏卡。", "Do not train on this node; rerun pairwise (-g 2 with CUDA_VISIBLE_DEVICES) to find the bad GPU."),
                           c.ticket(None, None, "nccl-tests 出现 #wrong > 0（数据校验错误）", "nccl-tests shows #wrong > 0 (data corruption)")])
        plateau, big = run.plateau()
        if plateau is None:
            continue
        n = run.n_ranks
        names = run.gpu_names or [g.name for g in c.inventory.gpus if g.name]
        gpu_name = names[0] if names else context_gpu(c)
        topos = c.p.get("topo") or []
        topo = "nvlink" if any(t.nvlink_counts() for t in topos if not t.is_p2p) else ("pcie" if topos else None)
        if topo is None and gpu_name and re.search(r"sxm|hbm3|h100 80gb|h200|h800", gpu_name.lower()):
            topo = "nvlink"
        avg = f"；“Avg bus bandwidth” 为 {run.avg_busbw:.1f}，它把小消息也平均进去了，不代表硬件能力" if run.avg_busbw is not None else ""
        avg_en = f"; \"Avg bus bandwidth\" is {run.avg_busbw:.1f}, which averages tiny messages and does not reflect the hardware" if run.avg_busbw is not None else ""
        op = run.op or "all_reduce"
        ref = expected_busbw(gpu_name, n, topo) if (op == "all_reduce" and len(run.hosts) <= 1) else None
        exp, src = (ref.mid_gbs, ref.source) if ref else (None, None)
        evidence = [max(big, key=lambda r: r.busbw or 0).line] + ([run.avg_line] if run.avg_line else [])
        if run.max_size < 64 * 2**20:
            c.add("nccl_tests_too_small", "info", ("nccl-tests 最大消息太小，测不到带宽平台", "nccl-tests max message too small to reach the bandwidth plateau"), evidence,
                  actions=[("用 `-b 8 -e 1G -f 2` 重跑（seed 文章给出的参数）。", "Rerun with `-b 8 -e 1G -f 2`.")])
        if ref and plateau < ref.flag_below_gbs:
            c.add("busbw_low", "warning",
                  (f"{op} 大消息 busbw {plateau:.1f} GB/s，远低于预期 {ref.low_gbs:.0f}–{ref.high_gbs:.0f} GB/s（低于 {ref.flag_below_gbs:.0f} 即异常）",
                   f"{op} large-message busbw {plateau:.1f} GB/s is far below the expected {ref.low_gbs:.0f}–{ref.high_gbs:.0f} GB/s (anything under {ref.flag_below_gbs:.0f} points to a fault)"),
                  evidence,
                  causes=[("NVLink 没有生效：NCCL 走了 SHM/PCIe（看 NCCL_DEBUG=INFO 的 via P2P 还是 via SHM）", "NVLink not in use: NCCL fell back to SHM/PCIe (check via P2P vs via SHM in NCCL_DEBUG=INFO)"),
                          ("NVSwitch 机型的 nvidia-fabricmanager 没有运行", "nvidia-fabricmanager is not running on an NVSwitch system"),
                          ("设置了 NCCL_P2P_DISABLE / NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE / NCCL_P2P_LEVEL is set"),
                          ("NCCL 版本过旧", "An old NCCL version")],
                  actions=[("查 `nvidia-smi topo -m` 是否为 NV#、`nvidia-smi nvlink -s`、`systemctl status nvidia-fabricmanager`，用 NCCL_DEBUG=INFO 重跑；确认是交付问题就开工单附上这些输出。", "Check `nvidia-smi topo -m` for NV#, `nvidia-smi nvlink -s` and `systemctl status nvidia-fabricmanager`; rerun with NCCL_DEBUG=INFO; if it is the delivery, open a ticket with these outputs."),
                           (f"预期值来源：{src}", f"Expected value source: {src}")])
        else:
            exp_zh = f"，预期 {ref.low_gbs:.0f}–{ref.high_gbs:.0f} GB/s（{src}）" if ref else ""
            exp_en = f", expected {ref.low_gbs:.0f}–{ref.high_gbs:.0f} GB/s ({src})" if ref else ""
            c.add("nccl_tests_plateau", "info", (f"{op} 大消息 busbw 平台 {plateau:.1f} GB/s（{n} 个 rank）{exp_zh}{avg}", f"{op} large-message busbw plateau {plateau:.1f} GB/s ({n} ranks){exp_en}{avg_en}"),
                  evidence, causes=[("busbw = algbw × 2(n−1)/n（nccl-tests PERFORMANCE.md），反映瓶颈链路的速度", "busbw = algbw × 2(n−1)/n (nccl-tests PERFORMANCE.md) and reflects the bottleneck link")],
                  actions=[("结果合理，无需处理。" if exp else "没有这台机型的参考值；与同型号机器或服务商给的验收报告对比。", "Plausible; nothing to do." if exp else "No reference for this hardware; compare with a similar node or the provider's acceptance report.")])


# --------------------------------------------------------------------------- iostat / dcgmi

def rules_iostat(c: Ctx) -> None:
    io = c.p.get("iostat")
    if not io:
        return
    samples = io.current()
    busy = [s for s in samples if s.util is not None and s.util >= 90]
    if busy:
        devs = sorted({s.device for s in busy})
        c.add("disk_saturated", "warning", (f"磁盘 {', '.join(devs)} 的 %util ≥90%", f"Disk {', '.join(devs)} at ≥90% %util"), [s.line for s in busy],
              causes=[("数据读取跟不上 GPU（seed 文章：GPU 利用率长期低于 50% 多半是 I/O 瓶颈）", "Data loading cannot keep up with the GPUs (seed article: GPU utilisation stuck below 50% usually means I/O)"),
                      ("注意：NVMe/RAID 能并行处理请求，%util 接近 100% 不一定饱和；同时看 aqu-sz 和 await（iostat 手册）", "Note: NVMe/RAID serve requests in parallel, so ~100% %util is not necessarily saturation; look at aqu-sz and await too (iostat man page)")],
              actions=[("把数据集拷到本地 NVMe 或内存（/dev/shm），小文件打包成 WebDataset/TFRecord，增大 DataLoader num_workers。", "Copy the dataset to local NVMe or RAM (/dev/shm), pack small files into WebDataset/TFRecord, raise DataLoader num_workers.")])
    if io.iowait and max(io.iowait[1:] or io.iowait) >= 20:
        c.add("high_iowait", "warning", (f"CPU iowait 达到 {max(io.iowait[1:] or io.iowait):.1f}%", f"CPU iowait reaches {max(io.iowait[1:] or io.iowait):.1f}%"), [],
              causes=[("CPU 在等磁盘/网络存储", "CPUs are waiting on disk / network storage")],
              actions=[("同上：数据放本地盘或内存，增大读取并行度。", "As above: move data to local disk or RAM and read in parallel.")])
    if not busy and samples:
        c.add("disk_not_bottleneck", "info", ("磁盘不忙：如果 GPU 利用率低，瓶颈更可能是 CPU 预处理或 DataLoader 的 num_workers 太少",
                                              "Disks are not busy: if GPU utilisation is low, the bottleneck is more likely CPU preprocessing or too few DataLoader num_workers"),
              [s.line for s in samples[:3]], actions=[("增大 num_workers，把图像解码等预处理移到 GPU（如 DALI）或离线完成。", "Raise num_workers; move decoding/preprocessing to the GPU (e.g. DALI) or do it offline.")])


def rules_dcgmi(c: Ctx) -> None:
    d = c.p.get("dcgmi_diag")
    if not d:
        return
    if d.failed:
        c.add("dcgm_diag_fail", "critical", ("DCGM 诊断未通过：" + "、".join(r.test for r in d.failed), "DCGM diagnostics failed: " + ", ".join(r.test for r in d.failed)),
              [r.line for r in d.failed] + d.messages[:4],
              causes=[("对应的硬件/配置检查没通过（见引用行和 Warning）", "The hardware/configuration checks named above failed (see the quoted lines and warnings)")],
              actions=[c.ticket(None, None, "dcgmi diag 未通过：" + "、".join(r.test for r in d.failed), "dcgmi diag failed: " + ", ".join(r.test for r in d.failed))])
    if d.warned:
        c.add("dcgm_diag_warn", "warning", ("DCGM 诊断有警告：" + "、".join(r.test for r in d.warned), "DCGM diagnostics warned: " + ", ".join(r.test for r in d.warned)),
              [r.line for r in d.warned] + d.messages[:4], actions=[("看 Warning 行的具体内容；与性能相关的警告（功率、带宽）值得开工单确认。", "Read the warning text; performance-related ones (power, bandwidth) are worth a ticket.")])
    if not d.failed and not d.warned:
        c.add("dcgm_diag_pass", "ok", ("DCGM 诊断全部通过", "DCGM diagnostics passed"), [r.line for r in d.results[:3]],
              actions=[("级别 1 只是快速部署检查；想查硬件要跑 `dcgmi diag -r 3`（约 15 分钟，数据中心卡才支持）。", "Level 1 is only a quick deployment check; run `dcgmi diag -r 3` (~15 min, datacenter GPUs only) for hardware.")] if d.level in (None, 1) else [])


RULES = (rules_smi_failures, rules_smi_rows, rules_smi_query, rules_kernel, rules_lspci, rules_topo,
         rules_versions, rules_torch, rules_nccl, rules_nccl_tests, rules_iostat, rules_dcgmi)


def run_rules(parsed: Parsed) -> Ctx:
    c = Ctx(parsed)
    build_inventory(c)
    for rule in RULES:
        rule(c)
    c.findings.sort(key=lambda f: -SEVERITY_RANK[f.severity])
    return c


NOTHING_WRONG = T(zh="没有发现问题。训练前建议再跑一次 `gpu-advisor checklist` 生成的验收脚本。",
                  en="Nothing wrong found. Before training, consider running the acceptance script from `gpu-advisor checklist`.")
NOTHING_RECOGNISED = T(zh="没有认出可诊断的输出。请贴出 nvidia-smi、`dmesg -T | grep -iE 'nvrm|xid|aer'`、NCCL 日志、all_reduce_perf 或 PyTorch 报错的原文。",
                       en="No diagnosable output recognised. Paste the raw output of nvidia-smi, `dmesg -T | grep -iE 'nvrm|xid|aer'`, NCCL logs, all_reduce_perf or the PyTorch error.")


def next_action(findings: list[Finding], recognised: bool) -> Text:
    """One next step: the first action of the worst finding (renter-side first)."""
    if not recognised:
        return NOTHING_RECOGNISED
    level = worst([f.severity for f in findings])
    if level in ("ok", "info"):
        return NOTHING_WRONG
    top = next(f for f in findings if f.severity == level)
    if not top.actions:
        return T(zh=f"处理：{top.title.zh}", en=f"Address: {top.title.en}")
    return top.actions[0]
