"""Rules on kernel logs: Xid (catalog, sympathetic 45, 154 recovery action, NVLink5 decode), fallen off the bus,
PCIe AER, NVSwitch SXid, driver init failures."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from tools.diagnosis.findings import SEVERITY_RANK, Text, XidEvent
from tools.diagnosis.rules.context import Ctx
from tools.diagnosis.text import log_part
from tools.diagnosis.xid import APPLICATION_XIDS, entry

T = Text


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
        c.xids.append(
            XidEvent(
                code=code,
                bus_id=bus,
                count=len(items),
                text=log_part(items[0].line),
                gpu_index=c.bus_to_index.get(bus or ""),
                name=name,
            )
        )
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
        c.add(
            "gpu_fallen_off_bus",
            "critical",
            (f"{lz} 从总线上掉线（没有 Xid 记录）", f"{le} has fallen off the bus (no Xid logged)"),
            [line],
            causes=[
                ("PCIe 链路故障（常先有 AER 报错）", "PCIe link failure (often preceded by AER errors)"),
                ("供电或过热", "Power or overheating"),
                ("主板 BIOS 过旧（open-gpu-kernel-modules#507）", "Outdated system BIOS (open-gpu-kernel-modules#507)"),
            ],
            actions=[
                c.exclude(index, bus),
                c.ticket(
                    index,
                    bus,
                    "GPU 掉卡（fallen off the bus），需要重启并检修",
                    "GPU fell off the bus; needs a reboot and inspection",
                ),
            ],
            gpu_index=index,
            bus_id=bus,
        )
    fatal = [a for a in k.aer if a.severity == "fatal"]
    nonfatal = [a for a in k.aer if a.severity == "nonfatal"]
    corrected = [a for a in k.aer if a.severity == "corrected"]
    if fatal:
        a = fatal[0]
        index = c.bus_to_index.get(a.bus_id or "")
        surprise = any("Surprise Down" in b or "SDES" in b for x in fatal for b in x.bits)
        c.add(
            "pcie_aer_fatal",
            "critical",
            (
                "PCIe 不可纠正的致命错误（AER Fatal）" + ("：Surprise Down，设备突然断开" if surprise else ""),
                "PCIe uncorrectable fatal error (AER Fatal)"
                + (": Surprise Down, the device dropped off the link" if surprise else ""),
            ),
            [line for x in fatal for line in x.line.split("\n")],
            causes=[
                (
                    "PCIe 链路断开，通常紧接着 Xid 79 掉卡",
                    "The PCIe link went down; usually followed immediately by Xid 79",
                ),
                ("转接卡、插槽、线缆或供电问题", "Riser, slot, cable or power problem"),
            ],
            actions=[
                c.exclude(index, a.bus_id),
                c.ticket(index, a.bus_id, "PCIe AER 致命错误", "PCIe AER fatal error"),
            ],
            gpu_index=index,
            bus_id=a.bus_id,
        )
    if nonfatal:
        c.add(
            "pcie_aer_nonfatal",
            "warning",
            ("PCIe 不可纠正（非致命）错误", "PCIe uncorrected non-fatal errors"),
            [line for x in nonfatal for line in x.line.split("\n")],
            causes=[("PCIe 链路质量问题", "PCIe link quality problem")],
            actions=[
                (
                    "观察是否伴随 Xid；反复出现就开工单，附这些 AER 行。",
                    "Watch for Xids; if it repeats, open a ticket with these AER lines.",
                )
            ],
        )
    if corrected:
        many = len(corrected) >= 10
        c.add(
            "pcie_aer_corrected",
            "warning" if many else "info",
            (f"PCIe 可纠正错误 {len(corrected)} 次", f"{len(corrected)} corrected PCIe errors"),
            [line for x in corrected for line in x.line.split("\n")],
            causes=[
                (
                    "链路重传（如 Replay Timer Timeout），数据没有损坏；大量出现说明链路信号差",
                    "Link-level retries (e.g. Replay Timer Timeout); data is intact, but bursts mean poor signal integrity",
                )
            ],
            actions=[
                (
                    "少量可以忽略；成批出现并伴随性能下降或 Xid 就开工单。",
                    "A few can be ignored; bursts with slowdowns or Xids warrant a ticket.",
                )
            ],
        )
    for code, bus, line in k.sxids[:1]:
        fatal_sx = "Fatal" in line and "Non-fatal" not in line
        c.add(
            "nvswitch_sxid",
            "critical" if fatal_sx else "warning",
            (f"NVSwitch 报错 SXid {code}", f"NVSwitch error SXid {code}"),
            [s[2] for s in k.sxids],
            causes=[("NVSwitch 或其 NVLink 链路故障", "An NVSwitch or its NVLink links are faulty")],
            actions=[
                (
                    "非致命的 SXid 先观察；致命 SXid 需要服务商重启并检查 Fabric Manager。",
                    "Watch non-fatal SXids; fatal ones need a provider reboot and a Fabric Manager check.",
                ),
                c.ticket(None, bus, f"NVSwitch SXid {code}", f"NVSwitch SXid {code}"),
            ],
        )
    _gsp_and_hung(c, k)
    if k.rm_init_failed and not c.has("gsp_init_failed"):
        c.add(
            "rm_init_adapter_failed",
            "critical",
            (
                "驱动初始化 GPU 失败（RmInitAdapter failed）",
                "The driver failed to initialise a GPU (RmInitAdapter failed)",
            ),
            k.rm_init_failed,
            causes=[
                ("GPU 硬件故障或处于异常状态", "GPU hardware fault or bad state"),
                ("驱动与 GPU 不匹配", "Driver does not support this GPU"),
            ],
            actions=[c.ticket(None, None, "驱动报 RmInitAdapter failed", "the driver logs RmInitAdapter failed")],
        )
    if k.api_mismatch:
        c.add(
            "driver_api_mismatch",
            "critical",
            (
                "内核模块与用户态驱动版本不一致（API mismatch）",
                "Kernel module and user-space driver differ (API mismatch)",
            ),
            k.api_mismatch,
            causes=[("驱动升级后没有重启", "The driver was upgraded without a reboot")],
            actions=[("重启机器（或请服务商重启）。", "Reboot the node (or ask the provider to).")],
        )


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
    where_zh, where_en = (
        c.gpu_label(index, bus)
        if bus
        else ("多块 GPU" if len(buses) > 1 else "未知 GPU", "several GPUs" if len(buses) > 1 else "unknown GPU")
    )
    lines = [x.line for x in items]
    if e is None:
        c.add(
            f"xid_{code}",
            "warning",
            (f"Xid {code}（目录中没有的代码）出现在{where_zh}", f"Xid {code} (not in the catalog) on {where_en}"),
            lines,
            actions=[c.ticket(index, bus, f"出现未知 Xid {code}", f"unknown Xid {code}")],
            gpu_index=index,
            bus_id=bus,
        )
        return
    sev = e["severity"]
    title_zh = f"Xid {code}：{e['name']['zh']}（{where_zh}，{len(items)} 次）"
    title_en = f"Xid {code}: {e['name']['en']} ({where_en}, {len(items)}x)"
    causes: list[tuple[str, str]] = []
    actions: list[tuple[str, str]] = []
    legacy = e.get("legacy_causes") or []
    if legacy:
        names = {
            "hardware": ("硬件", "hardware"),
            "driver": ("驱动", "driver"),
            "user_application": ("用户程序", "user application"),
            "system_memory_corruption": ("系统内存损坏", "system memory corruption"),
            "bus": ("总线", "bus"),
            "thermal": ("温度", "thermal"),
            "framebuffer_corruption": ("显存损坏", "framebuffer corruption"),
        }
        causes.append(
            (
                "旧版 NVIDIA Xid 表列出的可能原因：" + "、".join(names[n][0] for n in legacy),
                "Possible causes in NVIDIA's legacy Xid table: " + ", ".join(names[n][1] for n in legacy),
            )
        )
    for note in e.get("disagreements") or []:
        causes.append((note["zh"], note["en"]))
    if code == 45:
        prev = [x.previous_xid for x in items if x.previous_xid]
        if prev or (codes_seen - {45}):
            sev = "info"
            first = prev[0] if prev else sorted(codes_seen - {45})[0]
            title_zh += f"；由之前的 Xid {first} 引起"
            title_en += f"; caused by the earlier Xid {first}"
            actions.append(
                (f"这是伴随性错误，按 Xid {first} 处理。", f"Sympathetic error: diagnose Xid {first} instead.")
            )
    if code == 154:
        causes.append(
            (
                "Xid 154 本身不是故障：它告诉你前面那个错误之后驱动要求的恢复动作（NVIDIA Xid 目录）",
                "Xid 154 is not a fault by itself: it states the recovery action the driver requires after an earlier error (NVIDIA Xid catalog)",
            )
        )
        targets = [x.recovery_to for x in items if x.recovery_to]
        last = targets[-1] if targets else None
        if last and last.lower() == "none":
            sev = "info"
            actions.append(
                ("恢复动作已变为 None：GPU 已恢复，无需处理。", "Recovery action is now None: the GPU has recovered.")
            )
        elif last:
            sev = "critical"
            title_zh += f"：{last}"
            title_en += f": {last}"
            actions.append(c.ticket(index, bus, f"Xid 154 要求 {last}", f"Xid 154 requests {last}"))
    if 144 <= code <= 150:
        from tools.diagnosis.nvlink5 import decode

        decoded = [decode(code, x.unit, x.text) for x in items]
        levels = []
        for x, row in zip(items, decoded, strict=False):
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
            causes.append(
                (
                    f"NVIDIA “XID 144-150 Decode” 表：{r['unit']} 错误状态 {r['error_status']} → {r['severity']}，"
                    f"立即动作 {r['resolution']}，调查动作 {r['investigatory']}，{r['hw_sw']}；影响：{r['local_remote']}",
                    f'NVIDIA "XID 144-150 Decode": {r["unit"]} status {r["error_status"]} → {r["severity"]}, immediate {r["resolution"]}, '
                    f"investigatory {r['investigatory']}, {r['hw_sw']}; effect: {r['local_remote']}",
                )
            )
        else:
            causes.append(
                (
                    "这条 NVLink5 错误在解码表中没有匹配行，按行中的 Fatal/Nonfatal 判断。",
                    "No row of the NVLink5 decode sheet matched; severity follows the Fatal/Nonfatal word in the line.",
                )
            )
    if code in (13, 31):
        pids = {x.pid for x in items if x.pid and x.pid != "<unknown>"}
        if len(pids) >= 3 and len(buses) == 1:
            sev = "critical"
            causes.insert(
                0,
                (
                    "同一块卡在多个不同进程中反复出现，硬件嫌疑上升",
                    "It repeats on one GPU across several processes, which points to hardware",
                ),
            )
            actions.append(
                c.ticket(
                    index,
                    bus,
                    f"同一块 GPU 在不同任务中反复出现 Xid {code}",
                    f"Xid {code} repeats on the same GPU across jobs",
                )
            )
    renter = e.get("renter_action")
    if renter:
        actions.append((renter["zh"], renter["en"]))
    if SEVERITY_RANK[sev] >= SEVERITY_RANK["critical"]:
        if index is not None or bus:
            actions.insert(0, c.exclude(index, bus))
        if not any(a[0].startswith("给服务商开工单") for a in actions):
            actions.append(c.ticket(index, bus, f"Xid {code}（{e['name']['zh']}）", f"Xid {code} ({e['name']['en']})"))
    actions.append(
        (
            f"NVIDIA 目录：立即动作 {e['immediate_action']['bucket'] or '—'}（{e['immediate_action']['zh']}）；调查动作 {e['investigatory_action']['bucket'] or '—'}。",
            f"NVIDIA catalog: immediate {e['immediate_action']['bucket'] or '—'} ({e['immediate_action']['en']}); investigatory {e['investigatory_action']['bucket'] or '—'}.",
        )
    )
    if code in APPLICATION_XIDS and sev != "critical":
        causes.insert(
            0,
            (
                "多为程序层面的问题（NVIDIA k8s-device-plugin 不因它把 GPU 标为不健康）",
                "Usually application-level (NVIDIA's k8s-device-plugin does not mark the GPU unhealthy for it)",
            ),
        )
    c.add(f"xid_{code}", sev, (title_zh, title_en), lines, causes=causes, actions=actions, gpu_index=index, bus_id=bus)


def _gsp_and_hung(c: Ctx, k: Any) -> None:
    """GSP failures and reset-required states logged without an Xid, and hung tasks in the GPU driver.

    open-gpu-kernel-modules#1230/#446: "the GPU is likely in a bad state and may need to be reset",
    NV_ERR_RESET_REQUIRED — the GPU is unusable until a GPU reset / node reboot. A task stuck in D
    state inside nvidia/nvidia_uvm (or right after Xids) means the driver is wedged: reboot
    (leptonai/gpud#117: nvidia-smi stuck in D state after Xid 45).
    """
    xid_codes = {x.code for x in k.xids}
    if k.gsp_failures and not (xid_codes & {119, 120}):
        boot = [ln for ln in k.gsp_failures if "Boot" in ln or "initialize" in ln or "bad state" in ln]
        fid = "gsp_init_failed" if boot else "gsp_reset_required"
        if k.reset_required and not boot:
            fid = "gsp_reset_required"
        c.add(
            fid,
            "critical",
            (
                "GPU 的 GSP 固件启动失败，GPU 处于异常状态，需要重置"
                if fid == "gsp_init_failed"
                else "GPU 的 GSP 固件无响应，驱动已标记这块 GPU 需要重置",
                "The GPU's GSP firmware failed to boot; the GPU is in a bad state and needs a reset"
                if fid == "gsp_init_failed"
                else "The GPU's GSP firmware stopped responding; the driver marked the GPU for reset",
            ),
            (k.reset_required[:2] + k.gsp_failures[:3] + k.rm_init_failed[:1]),
            causes=[
                (
                    "GPU/GSP 固件卡死（常见于驱动 bug 或硬件问题），重启前这块卡都不能用",
                    "The GPU/GSP firmware is wedged (a driver bug or hardware); the GPU is unusable until reset",
                )
            ],
            actions=[
                c.ticket(
                    None,
                    None,
                    "GSP 固件报错/需要重置 GPU，请重置 GPU 或重启节点",
                    "GSP firmware errors / GPU reset required; please reset the GPU or reboot the node",
                )
            ],
        )
    elif k.reset_required and not c.has("xid_154"):
        c.add(
            "gsp_reset_required",
            "critical",
            (
                "驱动报告这块 GPU 需要重置（NV_ERR_RESET_REQUIRED）",
                "The driver reports the GPU needs a reset (NV_ERR_RESET_REQUIRED)",
            ),
            k.reset_required[:3],
            actions=[
                c.ticket(
                    None,
                    None,
                    "驱动报 NV_ERR_RESET_REQUIRED，请重置 GPU 或重启节点",
                    "the driver reports NV_ERR_RESET_REQUIRED; please reset the GPU or reboot the node",
                )
            ],
        )
    stuck = [h for h in k.hung_tasks if h.in_gpu_driver or k.xids]
    if stuck:
        h = stuck[0]
        c.add(
            "hung_task_gpu_driver",
            "critical",
            (
                f"进程 {h.task} 卡死在 GPU 驱动里（D 状态"
                + (f"超过 {h.seconds} 秒" if h.seconds else "")
                + "）：驱动已挂起，要重启才能恢复",
                f"Task {h.task} is stuck in the GPU driver (state D"
                + (f" for over {h.seconds} s" if h.seconds else "")
                + "): the driver is wedged until a reboot",
            ),
            [h.line] + h.stack[:2] + [x.line for x in k.xids[:1]],
            causes=[
                (
                    "GPU 出错（Xid）后驱动卡死，连 nvidia-smi 都会挂住",
                    "The driver hung after a GPU error (Xid); even nvidia-smi will hang",
                )
            ],
            actions=[
                c.ticket(
                    None,
                    None,
                    "GPU 驱动卡死（hung task / D 状态），需要重启节点",
                    "the GPU driver is hung (hung task / state D); the node needs a reboot",
                )
            ],
        )
    elif k.hung_tasks:
        h = k.hung_tasks[0]
        c.add(
            "hung_task",
            "warning",
            (
                f"进程 {h.task} 卡住超过 {h.seconds or 120} 秒（D 状态，不在 GPU 驱动里）",
                f"Task {h.task} blocked for more than {h.seconds or 120} s (state D, not in the GPU driver)",
            ),
            [h.line],
            causes=[
                (
                    "多半在等磁盘/网络文件系统（NFS、慢盘）",
                    "Usually waiting on disk or a network file system (NFS, a slow disk)",
                )
            ],
            actions=[
                (
                    "看调用栈是哪个子系统；用 `iostat -x 1` 看磁盘是否打满，NFS 挂载是否正常。",
                    "Read the stack for the subsystem; check the disk with `iostat -x 1` and whether NFS mounts respond.",
                )
            ],
        )
