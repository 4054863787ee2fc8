"""Rules on nvidia-smi output: failure messages, per-GPU rows (ERR!, ECC, utilisation/power/memory patterns,
temperature, MIG, mixed models) and `nvidia-smi -q` (throttle/event reasons, ECC, remapping, PCIe link)."""

from __future__ import annotations

import re

from tools.diagnosis.rules.context import Ctx

# process names of inference servers, which pre-allocate most of the memory and sit at 0% between requests
_INFERENCE_SERVER = re.compile(
    r"vllm|sglang|tritonserver|text-generation|ollama|lmdeploy|\btgi\b|llama[-_.]?server|trtllm", re.I
)

# What an uncorrectable (double-bit) ECC error needs, whoever reports it: the driver retires the page /
# remaps the row, which takes effect only after a GPU reset or reboot; until then allocations on that
# card can fail. Sources: NVIDIA "Dynamic Page Retirement" and "GPU Memory Error Management" (A100+
# row remapping) docs; Xid catalog (48 = DBE, 63/64 = page retirement/row remap events).
ECC_RESET = (
    "不可纠正（双比特）ECC 错误要等 GPU 重置或重启后，退役页/行重映射才生效，在此之前这张卡上的显存分配可能失败："
    "先把节点排空（Kubernetes `kubectl drain` / 停掉任务），用 `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER` "
    "看计数和 Pending，`dmesg -T | grep -i xid` 看 Xid 48/63/64，然后重置（`nvidia-smi -r -i <id>`）或重启；"
    "重启后仍反复出现、或 Remapping Failure = Yes，就要服务商换卡（RMA）。",
    "An uncorrectable (double-bit) ECC error needs a GPU reset or reboot before the page retirement / row "
    "remap takes effect; until then allocations on that card can fail. Drain the node first (Kubernetes "
    "`kubectl drain` / stop the jobs), check `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER` for counts "
    "and Pending, and `dmesg -T | grep -i xid` for Xid 48/63/64, then reset (`nvidia-smi -r -i <id>`) or "
    "reboot; if it recurs after that, or Remapping Failure = Yes, the provider must replace the card (RMA).",
)


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
        c.add(
            "gpu_lost",
            "critical",
            ("nvidia-smi 无法访问某块 GPU（GPU 丢失）", "nvidia-smi cannot reach a GPU (GPU lost)"),
            lines,
            causes=[
                (
                    "GPU 掉卡（通常伴随 Xid 79 或 PCIe AER 报错）",
                    "The GPU fell off the bus (usually with Xid 79 or PCIe AER errors)",
                ),
                ("供电或过热", "Power or overheating"),
                (
                    "卡没插牢、转接线（riser）或 PCIe 插槽接触不良——满载时才掉、温度功耗又正常时最常见",
                    "A card not fully seated, a riser or a PCIe slot with poor contact — most common when it drops "
                    "only under load with normal temperature and power",
                ),
            ],
            actions=[
                c.exclude(c.bus_to_index.get(bus or ""), bus),
                (
                    "自己的机器：关机后重新插牢这张卡和它的供电线（reseat），换一个 PCIe 插槽或去掉转接线，检查电源（PSU）"
                    "功率和线材；用 `sudo nvidia-smi -pl <瓦数>` 限功率对照，再更新主板 BIOS。租的机器交给服务商做这些。",
                    "Your own machine: power off and reseat the card and its power cables, try another PCIe slot or "
                    "drop the riser, check the power supply (PSU) rating and cables; cap power with `sudo nvidia-smi "
                    "-pl <watts>` as a control, and update the system BIOS. On a rented machine the provider does this.",
                ),
                c.ticket(
                    c.bus_to_index.get(bus or ""),
                    bus,
                    "GPU 丢失，nvidia-smi 报 Unable to determine the device handle / GPU is lost，需要重启并检修",
                    "GPU lost (nvidia-smi: Unable to determine the device handle / GPU is lost); needs a reboot and inspection",
                ),
                (
                    "用 `dmesg -T | grep -iE 'xid|fallen|aer'` 找出对应的内核报错一起提交。",
                    "Find the matching kernel errors with `dmesg -T | grep -iE 'xid|fallen|aer'` and include them.",
                ),
            ],
            bus_id=bus,
        )
    if "no_devices" in kinds:
        c.add(
            "no_gpus_visible",
            "critical",
            ("nvidia-smi 没有找到任何 GPU", "nvidia-smi found no GPUs"),
            [kinds["no_devices"]],
            causes=[
                (
                    "容器启动时没有挂载 GPU（缺少 `--gpus all` 或 NVIDIA Container Toolkit）",
                    "The container was started without GPUs (missing `--gpus all` or the NVIDIA Container Toolkit)",
                ),
                ("宿主机驱动未加载或 GPU 掉卡", "The host driver is not loaded or the GPUs fell off the bus"),
            ],
            actions=[
                (
                    "在容器里：用 `docker run --gpus all ...`（或 k8s 的 nvidia.com/gpu 资源）重新启动；在宿主机上运行 nvidia-smi 确认。",
                    "In a container: restart it with `docker run --gpus all ...` (or request nvidia.com/gpu in k8s); run nvidia-smi on the host to confirm.",
                ),
                (
                    "宿主机上也看不到 GPU：开工单，附 `lspci | grep -i nvidia` 和 `dmesg -T | grep -i nvrm`。",
                    "No GPUs on the host either: open a ticket with `lspci | grep -i nvidia` and `dmesg -T | grep -i nvrm`.",
                ),
            ],
        )
    if "driver_not_loaded" in kinds:
        c.add(
            "driver_not_loaded",
            "critical",
            ("NVIDIA 驱动未加载", "The NVIDIA driver is not loaded"),
            [kinds["driver_not_loaded"]],
            causes=[
                (
                    "内核升级后驱动模块没有用 DKMS 重新编译",
                    "The kernel was updated and the driver module was not rebuilt (DKMS)",
                ),
                ("驱动未安装或安装失败", "The driver is not installed or the install failed"),
            ],
            actions=[
                (
                    "云主机/物理机：开工单请服务商重装或重新编译驱动（附 `uname -r` 和 `dkms status`）。",
                    "Open a ticket asking the provider to reinstall/rebuild the driver (include `uname -r` and `dkms status`).",
                ),
                (
                    "在容器里：这是宿主机的问题，容器内装驱动没用。",
                    "Inside a container this is a host problem; installing a driver in the container does not help.",
                ),
            ],
        )
    if "nvml_version_mismatch" in kinds:
        c.add(
            "driver_library_mismatch",
            "critical",
            ("驱动内核模块与用户态库版本不一致", "Driver kernel module and user-space library versions differ"),
            [kinds["nvml_version_mismatch"]],
            causes=[
                (
                    "驱动升级后没有重启，旧内核模块仍在运行",
                    "The driver was upgraded without a reboot; the old kernel module is still loaded",
                )
            ],
            actions=[
                (
                    "重启机器（或请服务商重启）；自己不要在容器里另装驱动。",
                    "Reboot the node (or ask the provider to); do not install another driver inside the container.",
                )
            ],
        )
    if "nvml_unknown_error" in kinds:
        c.add(
            "nvml_unknown_error",
            "critical",
            ("NVML 初始化失败：Unknown Error", "NVML failed to initialise: Unknown Error"),
            [kinds["nvml_unknown_error"]],
            causes=[
                (
                    "容器失去了 GPU 设备访问权限（如 systemd/cgroup 重载后）",
                    "The container lost access to the GPU devices (e.g. after a systemd/cgroup reload)",
                ),
                ("宿主机上 GPU 故障", "A GPU fault on the host"),
            ],
            actions=[
                (
                    "先重启容器；仍然失败就在宿主机上运行 nvidia-smi，宿主机也报错再开工单。",
                    "Restart the container first; if it still fails, run nvidia-smi on the host and open a ticket if the host fails too.",
                )
            ],
        )


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
        if (
            g.util_pct == 0
            and g.memory_used_mib
            and g.memory_total_mib
            and g.memory_used_mib >= 0.9 * g.memory_total_mib
        ):
            idle_full.append(g)
        if g.temp_c is not None and g.temp_c >= 85:
            hot.append(g)
        if g.ecc and g.ecc.isdigit() and int(g.ecc) > 0:
            ecc.append(g)
    idx = lambda gs: ", ".join(str(g.index) for g in gs)  # noqa: E731
    ev = lambda gs: [line for g in gs for line in g.lines]  # noqa: E731
    for g in err_rows:
        c.add(
            "gpu_row_err",
            "critical",
            (f"GPU {g.index} 的整行读数都是 ERR!", f"Every reading of GPU {g.index} is ERR!"),
            g.lines,
            causes=[
                (
                    "驱动已无法读取这块卡，通常是掉卡前后的状态",
                    "The driver can no longer read this GPU, usually around a fall off the bus",
                )
            ],
            actions=[
                c.exclude(g.index, g.bus_id),
                c.ticket(
                    g.index,
                    g.bus_id,
                    "nvidia-smi 显示这块 GPU 全部读数为 ERR!",
                    "nvidia-smi shows ERR! in every field of this GPU",
                ),
            ],
            gpu_index=g.index,
            bus_id=g.bus_id,
        )
    if err_fields:
        c.add(
            "smi_err_field",
            "info",
            (f"GPU {idx(err_fields)} 个别读数为 ERR!", f"Isolated ERR! readings on GPU {idx(err_fields)}"),
            ev(err_fields),
            causes=[
                (
                    "多为一次性的遥测读数故障（Azure azhpc-diagnostics#77 把孤立的 ERR! 功率读数视为暂时现象）",
                    "Usually a one-off telemetry glitch (azhpc-diagnostics#77 treats isolated ERR! power readings as transient)",
                )
            ],
            actions=[
                (
                    "过一会儿再运行 nvidia-smi；反复出现再查 dmesg。",
                    "Run nvidia-smi again in a while; check dmesg if it keeps happening.",
                )
            ],
        )
    if ecc:
        for g in ecc:
            c.add(
                "ecc_uncorrectable",
                "critical",
                (
                    f"GPU {g.index} 有 {g.ecc} 个未纠正的 ECC 错误",
                    f"GPU {g.index} reports {g.ecc} uncorrected ECC errors",
                ),
                g.lines,
                causes=[("显存硬件错误", "Memory hardware errors")],
                actions=[
                    c.exclude(g.index, g.bus_id),
                    c.ticket(g.index, g.bus_id, "Volatile Uncorr. ECC 计数非零", "non-zero Volatile Uncorr. ECC count"),
                    ECC_RESET,
                ],
                gpu_index=g.index,
                bus_id=g.bus_id,
            )
    if hang:
        c.add(
            "gpu_hang_suspected",
            "warning",
            (
                f"GPU {idx(hang)} 利用率 ≥95% 但功耗接近空闲：疑似卡死",
                f"GPU {idx(hang)} at ≥95% utilisation but near-idle power: likely hung",
            ),
            ev(hang),
            causes=[
                (
                    "NCCL 集合通信在等一个已经挂掉或很慢的进程（GPU-Util 只表示有 kernel 在跑，等待也算）",
                    "A NCCL collective is waiting for a dead or slow peer (GPU-Util only means a kernel is resident; waiting counts)",
                ),
                ("死锁或某个 rank 出错退出", "A deadlock, or one rank died"),
            ],
            actions=[
                (
                    "用 `py-spy dump --pid <PID>` 看各进程卡在哪；用 NCCL_DEBUG=INFO 和 TORCH_NCCL_ASYNC_ERROR_HANDLING=1 重跑，设置合理的超时。",
                    "Use `py-spy dump --pid <PID>` to see where each rank is stuck; rerun with NCCL_DEBUG=INFO and TORCH_NCCL_ASYNC_ERROR_HANDLING=1 and a sensible timeout.",
                ),
                (
                    "检查 dmesg 有没有 Xid；没有硬件报错就重启任务。",
                    "Check dmesg for Xids; with no hardware errors, restart the job.",
                ),
            ],
        )
    # memory full at 0% with a compute process of ours listed on the card: a job that holds its
    # memory but runs no kernels is stalled (waiting on a dead rank, a lock, data) — unless the
    # process is an inference server, which pre-allocates memory and idles between requests
    held = {p.gpu for p in table.processes if "C" in p.type and not _INFERENCE_SERVER.search(p.name)}
    stalled = [g for g in idle_full if g.index in held]
    idle_full = [g for g in idle_full if g.index not in held]
    if stalled:
        procs = [p for p in table.processes if p.gpu in {g.index for g in stalled}]
        pids = " ".join(str(p.pid) for p in procs[:8])
        c.add(
            "stalled_job_suspected",
            "warning",
            (
                f"GPU {idx(stalled)} 显存占满、利用率 0%，但进程表里有进程占着：任务疑似卡住",
                f"GPU {idx(stalled)} memory full at 0% utilisation while processes hold it: the job looks stalled",
            ),
            # the memory/util line of each GPU, then the process rows that hold it
            [line for g in stalled for line in g.lines if "MiB" in line][:4] + [p.line for p in procs if p.line],
            causes=[
                (
                    "某个 rank 挂了或很慢，其余进程在等集合通信（NCCL 超时默认 10 分钟后才报错）",
                    "One rank died or is slow and the others wait in a collective (the NCCL watchdog only fires after 10 minutes by default)",
                ),
                (
                    "进程在等数据、等锁或卡在 CPU 上的步骤（保存 checkpoint、评估、预处理）",
                    "The process waits for data or a lock, or is in a CPU-side step (saving a checkpoint, evaluation, preprocessing)",
                ),
                (
                    "训练已结束或出错，但进程没有退出，显存没释放",
                    "Training finished or failed but the process did not exit and still holds the memory",
                ),
            ],
            actions=[
                (
                    f"先隔 10–30 秒再看一次（`nvidia-smi dmon -s u` 或 `watch -n 2 nvidia-smi`），确认一直是 0%；再用 `py-spy dump --pid <PID>` 看进程卡在哪（进程号：{pids}）。"
                    "确认卡住就结束它（`kill <PID>`）并从最近的 checkpoint 重启；同时查 `dmesg -T | grep -i xid` 排除硬件问题。",
                    f"Look again after 10–30 s (`nvidia-smi dmon -s u` or `watch -n 2 nvidia-smi`) to confirm it stays at 0%; then `py-spy dump --pid <PID>` "
                    f"to see where it is stuck (PIDs: {pids}). If it is stuck, kill it (`kill <PID>`) and restart from the latest checkpoint; "
                    "also check `dmesg -T | grep -i xid` to rule out hardware.",
                )
            ],
        )
    if idle_full:
        c.add(
            "memory_full_idle",
            "info",
            (
                f"GPU {idx(idle_full)} 显存几乎占满但利用率为 0%",
                f"GPU {idx(idle_full)} memory nearly full at 0% utilisation",
            ),
            ev(idle_full),
            causes=[
                (
                    "推理服务（如 vLLM）预先占用显存但当前没有请求",
                    "An inference server (e.g. vLLM) pre-allocated memory and is idle",
                ),
                ("训练进程卡住或在等数据/等其他进程", "A stalled job, or one waiting for data or other ranks"),
                ("别人的进程占着卡（共享机器）", "Someone else's process holds the GPU (shared machine)"),
            ],
            actions=[
                (
                    "看进程表确认是谁在占显存；是自己的卡住的任务就结束它并重启（`kill <PID>`）。",
                    "Check the process table for who holds the memory; if it is your stalled job, kill and restart it (`kill <PID>`).",
                )
            ],
        )
    if input_bound:
        c.add(
            "input_bound_suspected",
            "warning",
            (
                f"GPU {idx(input_bound)} 利用率低、功耗中等：疑似数据加载跟不上",
                f"GPU {idx(input_bound)} low utilisation at mid power: likely input-bound",
            ),
            ev(input_bound),
            causes=[
                (
                    "DataLoader 的 num_workers 太少或数据预处理在 CPU 上太慢",
                    "Too few DataLoader num_workers, or CPU-side preprocessing is too slow",
                ),
                ("数据在网络存储上，磁盘 I/O 跟不上", "Data on network storage; disk I/O cannot keep up"),
                ("batch 太小", "The batch is too small"),
            ],
            actions=[
                (
                    "运行 `iostat -x 1 5` 看磁盘 %util 和 await；增大 DataLoader 的 num_workers、开启 pin_memory，把小文件打包（WebDataset）或把数据集拷到本地 NVMe/内存。",
                    "Run `iostat -x 1 5` for disk %util and await; raise DataLoader num_workers, enable pin_memory, pack small files (WebDataset) or copy the dataset to local NVMe / RAM.",
                )
            ],
        )
    if hot:
        c.add(
            "gpu_hot",
            "warning",
            (f"GPU {idx(hot)} 温度 ≥85°C", f"GPU {idx(hot)} at ≥85 °C"),
            ev(hot),
            causes=[
                (
                    "散热不足（机房风道、风扇、被动散热卡的机箱气流）",
                    "Insufficient cooling (airflow, fans, chassis airflow for passive cards)",
                )
            ],
            actions=[
                (
                    "用 `nvidia-smi -q -d TEMPERATURE,PERFORMANCE` 看是否已降频（Slowdown 温度和 Thermal Slowdown）；持续降频就开工单要求检查散热。",
                    "Check `nvidia-smi -q -d TEMPERATURE,PERFORMANCE` for slowdown temperatures and Thermal Slowdown; open a ticket about cooling if it keeps throttling.",
                )
            ],
        )
    if table.mig_devices or any(g.mig == "Enabled" for g in table.gpus):
        c.add(
            "mig_enabled",
            "info",
            ("GPU 开启了 MIG 切分", "MIG partitioning is enabled"),
            [g.lines[0] for g in table.gpus if g.mig == "Enabled"][:4],
            causes=[
                (
                    "服务商把一张卡切成了多个实例；每个实例只有一部分显存和算力",
                    "The provider split the GPU into instances; each has only part of the memory and compute",
                )
            ],
            actions=[
                (
                    "确认租的是整卡还是 MIG 实例；整卡训练需要服务商关闭 MIG。",
                    "Confirm whether you rented a full GPU or a MIG slice; full-GPU training needs MIG disabled by the provider.",
                )
            ],
        )
    names = {g.name for g in table.gpus if g.name and "ERR" not in g.name}
    if len(names) > 1:
        c.add(
            "mixed_gpu_models",
            "warning",
            ("同一台机器上有不同型号的 GPU", "Different GPU models in one node"),
            [g.lines[0] for g in table.gpus][:8],
            causes=[
                (
                    "交付的配置与合同不一致，或本来就是混插",
                    "The delivery differs from the contract, or the node is mixed by design",
                )
            ],
            actions=[
                (
                    "核对合同；分布式训练会被最慢的卡拖慢，用 `CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=…` 只用同型号的卡（编号与 nvidia-smi 一致）。",
                    "Check the contract; distributed training runs at the slowest card's pace, so pick one model with `CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=…` (numbering as in nvidia-smi).",
                )
            ],
        )


def rules_smi_query(c: Ctx) -> None:
    q = c.p.get("nvidia_smi_query")
    if not q:
        return
    for i, g in enumerate(q.gpus):
        index = c.bus_to_index.get(g.bus_id or "", i) if g.bus_id else (i if len(q.gpus) > 1 else None)
        label_zh, label_en = c.gpu_label(index, g.bus_id)
        hw = [r for r in g.throttle_active if r.startswith("HW")]
        if hw:
            c.add(
                "clocks_hw_slowdown",
                "warning",
                (f"{label_zh} 硬件降频：{', '.join(hw)}", f"{label_en} hardware slowdown: {', '.join(hw)}"),
                [g.lines.get(f"throttle:{r}", r) for r in hw],
                causes=[
                    ("温度过高", "Temperature too high"),
                    ("电源触发外部功率刹车（Power Brake）", "The PSU asserted the external power brake"),
                    (
                        "瞬时功耗过高触发保护（HW Slowdown 会把频率砍到一半以下，NVML/DCGM 文档）",
                        "Power draw too high, fast-trigger protection engaged (HW Slowdown cuts clocks by 2x or more; NVML/DCGM docs)",
                    ),
                ],
                actions=[
                    (
                        "先用 `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -l 5` 观察几分钟：温度接近 Slowdown 温度是散热问题，温度正常但 HW Power Brake 激活是供电问题；两种都要机房处理，训练会明显变慢。",
                        "Watch `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -l 5` for a few minutes: near the slowdown temperature means cooling, normal temperature with HW Power Brake means power delivery; both need the data centre, and training slows down markedly.",
                    ),
                    c.ticket(
                        index,
                        g.bus_id,
                        f"GPU 持续硬件降频（{', '.join(hw)}）",
                        f"persistent hardware slowdown ({', '.join(hw)})",
                    ),
                ],
                gpu_index=index,
                bus_id=g.bus_id,
            )
        if "SW Thermal Slowdown" in g.throttle_active:
            c.add(
                "clocks_sw_thermal",
                "warning",
                (f"{label_zh} 软件温控降频", f"{label_en} software thermal slowdown"),
                [g.lines.get("throttle:SW Thermal Slowdown", ""), g.lines.get("temp", "")],
                causes=[("GPU 温度超过了驱动的目标温度", "The GPU is above the driver's target temperature")],
                actions=[
                    (
                        "检查散热；训练速度会下降，持续出现就开工单。",
                        "Check cooling; training slows down; open a ticket if it persists.",
                    )
                ],
                gpu_index=index,
                bus_id=g.bus_id,
            )
        if "SW Power Cap" in g.throttle_active:
            c.add(
                "clocks_power_cap",
                "info",
                (f"{label_zh} 达到功耗上限（SW Power Cap）", f"{label_en} at its power cap (SW Power Cap)"),
                [g.lines.get("throttle:SW Power Cap", "")],
                causes=[
                    (
                        "满载训练时常见；若功耗上限被调低会变慢（azurehpc NHC 不把它当告警）",
                        "Normal under full load; slower if the limit was lowered (azurehpc NHC does not alert on it)",
                    )
                ],
                actions=[
                    (
                        "用 `nvidia-smi -q -d POWER` 对比 Current/Default/Max Power Limit，是否被服务商调低。",
                        "Compare Current/Default/Max Power Limit in `nvidia-smi -q -d POWER` to see if the provider lowered it.",
                    )
                ],
                gpu_index=index,
                bus_id=g.bus_id,
            )
        if g.temp_c is not None and g.temp_slowdown_c and g.temp_c >= g.temp_slowdown_c - 5:
            c.add(
                "gpu_near_slowdown_temp",
                "warning",
                (
                    f"{label_zh} 温度 {g.temp_c:.0f}°C，接近降频温度 {g.temp_slowdown_c:.0f}°C",
                    f"{label_en} at {g.temp_c:.0f} °C, near its {g.temp_slowdown_c:.0f} °C slowdown",
                ),
                [g.lines.get("temp", "")],
                causes=[("散热不足", "Insufficient cooling")],
                actions=[
                    (
                        "开工单请机房检查散热；高温会降频甚至关机保护。",
                        "Ask the provider to check cooling; heat causes slowdown or protective shutdown.",
                    )
                ],
                gpu_index=index,
                bus_id=g.bus_id,
            )
        if g.ecc_volatile_uncorrectable > 0:
            c.add(
                "ecc_uncorrectable",
                "critical",
                (f"{label_zh} 本次开机后出现不可纠正 ECC 错误", f"{label_en} has uncorrectable ECC errors since boot"),
                [g.lines.get("ecc", "")],
                causes=[("显存硬件错误", "Memory hardware error")],
                actions=[
                    c.exclude(index, g.bus_id),
                    c.ticket(index, g.bus_id, "出现不可纠正 ECC 错误", "uncorrectable ECC errors"),
                    ECC_RESET,
                ],
                gpu_index=index,
                bus_id=g.bus_id,
            )
        elif g.ecc_aggregate_uncorrectable > 0 and not c.has("ecc_uncorrectable"):
            c.add(
                "ecc_uncorrectable_history",
                "warning",
                (f"{label_zh} 历史上有过不可纠正 ECC 错误", f"{label_en} has had uncorrectable ECC errors in the past"),
                [g.lines.get("ecc", "")],
                causes=[
                    (
                        "显存曾经出错；看重映射是否成功",
                        "Memory errors happened before; check whether remapping succeeded",
                    )
                ],
                actions=[
                    (
                        "看 Remapped Rows 的 Pending/Failure；失败或反复出现要求换卡。",
                        "Check Remapped Rows Pending/Failure; ask for a replacement if it failed or keeps happening.",
                    )
                ],
                gpu_index=index,
                bus_id=g.bus_id,
            )
        if (g.remap_failure or "").lower().startswith("yes"):
            c.add(
                "row_remap_failure",
                "critical",
                (f"{label_zh} 显存行重映射失败", f"{label_en} row remapping failed"),
                [g.lines.get("remap_failure", "")],
                causes=[("备用行用完或重映射出错（对应 Xid 64）", "Spare rows exhausted or the remap failed (Xid 64)")],
                actions=[
                    c.exclude(index, g.bus_id),
                    c.ticket(
                        index,
                        g.bus_id,
                        "Remapping Failure Occurred: Yes，需要换卡",
                        "Remapping Failure Occurred: Yes; the GPU needs replacement",
                    ),
                ],
                gpu_index=index,
                bus_id=g.bus_id,
            )
        elif (g.remap_pending or "").lower().startswith("yes") or (g.retired_pending or "").lower().startswith("yes"):
            c.add(
                "memory_repair_pending",
                "warning",
                (f"{label_zh} 有待生效的显存重映射/页退役", f"{label_en} has a pending row remap / page retirement"),
                [g.lines.get("remap_pending", ""), g.lines.get("retired_pending", "")],
                causes=[
                    (
                        "显存错误已记录，需要重置 GPU 才能生效（NVIDIA GPU Memory Error Management）",
                        "A memory error was recorded; a GPU reset activates the repair (NVIDIA GPU Memory Error Management)",
                    )
                ],
                actions=[
                    (
                        "请服务商在方便时重置这块 GPU（nvidia-smi -r）或重启。",
                        "Ask the provider to reset this GPU (nvidia-smi -r) or reboot at a convenient time.",
                    )
                ],
                gpu_index=index,
                bus_id=g.bus_id,
            )
        if g.pcie_width_current and g.pcie_width_max and g.pcie_width_current < g.pcie_width_max:
            c.add(
                "pcie_link_degraded",
                "warning",
                (
                    f"{label_zh} PCIe 链路宽度降级：x{g.pcie_width_current} / 最大 x{g.pcie_width_max}",
                    f"{label_en} PCIe link width degraded: x{g.pcie_width_current} of x{g.pcie_width_max}",
                ),
                [g.lines.get("pcie_width", "")],
                causes=[("插槽、转接卡或线缆接触不良", "Slot, riser or cable problem")],
                actions=[
                    c.ticket(
                        index,
                        g.bus_id,
                        f"PCIe 链路只训练到 x{g.pcie_width_current}",
                        f"PCIe link trained at x{g.pcie_width_current} only",
                    )
                ],
                gpu_index=index,
                bus_id=g.bus_id,
            )
