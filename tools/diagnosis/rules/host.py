"""Host-side evidence: `iostat -x` (disk saturation, iowait) and `dcgmi diag` results."""

from __future__ import annotations

from tools.diagnosis.rules.context import Ctx

# --------------------------------------------------------------------------- iostat / dcgmi


def rules_iostat(c: Ctx) -> None:
    io = c.p.get("iostat")
    if not io:
        return
    samples = io.current()
    busy = [s for s in samples if s.util is not None and s.util >= 90]
    if busy:
        devs = sorted({s.device for s in busy})
        c.add(
            "disk_saturated",
            "warning",
            (f"磁盘 {', '.join(devs)} 的 %util ≥90%", f"Disk {', '.join(devs)} at ≥90% %util"),
            [s.line for s in busy],
            causes=[
                (
                    "数据读取跟不上 GPU（常见经验：GPU 利用率长期低于 50% 多半是 I/O 瓶颈）",
                    "Data loading cannot keep up with the GPUs (a common rule of thumb: GPU utilisation stuck below 50% usually means I/O)",
                ),
                (
                    "注意：NVMe/RAID 能并行处理请求，%util 接近 100% 不一定饱和；同时看 aqu-sz 和 await（iostat 手册）",
                    "Note: NVMe/RAID serve requests in parallel, so ~100% %util is not necessarily saturation; look at aqu-sz and await too (iostat man page)",
                ),
            ],
            actions=[
                (
                    "把数据集拷到本地 NVMe 或内存（/dev/shm），小文件打包成 WebDataset/TFRecord，增大 DataLoader num_workers。",
                    "Copy the dataset to local NVMe or RAM (/dev/shm), pack small files into WebDataset/TFRecord, raise DataLoader num_workers.",
                )
            ],
        )
    if io.iowait and max(io.iowait[1:] or io.iowait) >= 20:
        c.add(
            "high_iowait",
            "warning",
            (
                f"CPU iowait 达到 {max(io.iowait[1:] or io.iowait):.1f}%",
                f"CPU iowait reaches {max(io.iowait[1:] or io.iowait):.1f}%",
            ),
            [],
            causes=[("CPU 在等磁盘/网络存储", "CPUs are waiting on disk / network storage")],
            actions=[
                (
                    "同上：数据放本地盘或内存，增大读取并行度。",
                    "As above: move data to local disk or RAM and read in parallel.",
                )
            ],
        )
    if not busy and samples:
        c.add(
            "disk_not_bottleneck",
            "info",
            (
                "磁盘不忙：如果 GPU 利用率低，瓶颈更可能是 CPU 预处理或 DataLoader 的 num_workers 太少",
                "Disks are not busy: if GPU utilisation is low, the bottleneck is more likely CPU preprocessing or too few DataLoader num_workers",
            ),
            [s.line for s in samples[:3]],
            actions=[
                (
                    "增大 num_workers，把图像解码等预处理移到 GPU（如 DALI）或离线完成。",
                    "Raise num_workers; move decoding/preprocessing to the GPU (e.g. DALI) or do it offline.",
                )
            ],
        )


def rules_dcgmi(c: Ctx) -> None:
    d = c.p.get("dcgmi_diag")
    if not d:
        return
    if d.failed:
        c.add(
            "dcgm_diag_fail",
            "critical",
            (
                "DCGM 诊断未通过：" + "、".join(r.test for r in d.failed),
                "DCGM diagnostics failed: " + ", ".join(r.test for r in d.failed),
            ),
            [r.line for r in d.failed] + d.messages[:4],
            causes=[
                (
                    "对应的硬件/配置检查没通过（见引用行和 Warning）",
                    "The hardware/configuration checks named above failed (see the quoted lines and warnings)",
                )
            ],
            actions=[
                c.ticket(
                    None,
                    None,
                    "dcgmi diag 未通过：" + "、".join(r.test for r in d.failed),
                    "dcgmi diag failed: " + ", ".join(r.test for r in d.failed),
                )
            ],
        )
    if d.warned:
        c.add(
            "dcgm_diag_warn",
            "warning",
            (
                "DCGM 诊断有警告：" + "、".join(r.test for r in d.warned),
                "DCGM diagnostics warned: " + ", ".join(r.test for r in d.warned),
            ),
            [r.line for r in d.warned] + d.messages[:4],
            actions=[
                (
                    "看 Warning 行的具体内容；与性能相关的警告（功率、带宽）值得开工单确认。",
                    "Read the warning text; performance-related ones (power, bandwidth) are worth a ticket.",
                )
            ],
        )
    if not d.failed and not d.warned:
        c.add(
            "dcgm_diag_pass",
            "ok",
            ("DCGM 诊断全部通过", "DCGM diagnostics passed"),
            [r.line for r in d.results[:3]],
            actions=[
                (
                    "级别 1 只是快速部署检查；想查硬件要跑 `dcgmi diag -r 3`（约 15 分钟，数据中心卡才支持）。",
                    "Level 1 is only a quick deployment check; run `dcgmi diag -r 3` (~15 min, datacenter GPUs only) for hardware.",
                )
            ]
            if d.level in (None, 1)
            else [],
        )
