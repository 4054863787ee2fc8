"""DCGM health watches (`dcgmi health -c`) and `nvidia-smi dmon` samples.

DCGM health systems say which subsystem is unhealthy; a thermal/power watch means clocks were
throttled (cooling is the provider's). dmon joins temperature, power and SM utilisation per GPU:
a hot GPU running at low SM is one story (throttled), not two findings.
"""

from __future__ import annotations

from tools.diagnosis.rules.context import Ctx

HOT_C = 85  # °C: NVIDIA data-centre GPUs start slowing down around 85–90 °C (nvidia-smi -q "GPU Slowdown Temp")
LOW_SM = 30  # % average SM utilisation that counts as "low" while the job is meant to be running


def rules_dcgm_health(c: Ctx) -> None:
    h = c.p.get("dcgmi_health")
    if not h:
        return
    if not h.incidents and h.overall in ("warning", "failure"):
        fail = h.overall == "failure"
        c.add(
            "dcgm_health_fail" if fail else "dcgm_health_warn",
            "critical" if fail else "warning",
            (
                f"DCGM 健康检查总体结果：{'失败' if fail else '告警'}",
                f"DCGM health overall: {'failure' if fail else 'warning'}",
            ),
            [h.overall_line or ""],
            actions=[
                (
                    "贴出完整的 `dcgmi health -c` 输出（各子系统那几行）；把它和 `nvidia-bug-report.sh` 发给服务商。",
                    "Paste the full `dcgmi health -c` output (the per-system rows) and send it with `nvidia-bug-report.sh` to the provider.",
                )
            ],
        )
    for inc in h.incidents[:1]:
        sysname = inc.system.lower()
        gi = inc.gpu
        if sysname in ("thermal", "power"):
            c.add(
                "dcgm_health_thermal",
                "warning",
                (
                    f"DCGM 健康检查：{inc.system} 告警"
                    + (f"（GPU {gi}）" if gi is not None else "")
                    + "，GPU 因过热/功耗被降频",
                    f"DCGM health: {inc.system} warning"
                    + (f" (GPU {gi})" if gi is not None else "")
                    + "; the GPU was throttled for heat/power",
                ),
                [inc.line],
                causes=[
                    (
                        "散热不良（风扇、风道、导热材料）或供电限制",
                        "Poor cooling (fans, airflow, thermal material) or a power limit",
                    )
                ],
                actions=[
                    (
                        "请服务商检查这台机器的散热（风扇、风道、导热材料）；同时用 `nvidia-smi -q -d PERFORMANCE` 看 Thermal Slowdown 是否 Active。",
                        "Ask the provider to check this machine's cooling (fans, airflow, thermal material); meanwhile check Thermal Slowdown in `nvidia-smi -q -d PERFORMANCE`.",
                    )
                ],
                gpu_index=gi,
            )
        else:
            hard = inc.level == "failure" or sysname in ("memory", "inforom", "sm", "pmu", "mcu")
            c.add(
                "dcgm_health_fail" if hard else "dcgm_health_warn",
                "critical" if hard else "warning",
                (
                    f"DCGM 健康检查：{inc.system} {'失败' if hard else '告警'}",
                    f"DCGM health: {inc.system} {'failure' if hard else 'warning'}",
                ),
                [inc.line],
                actions=[
                    (
                        "把这段输出和 `nvidia-bug-report.sh` 发给服务商；硬件类失败请换机器。",
                        "Send this output and `nvidia-bug-report.sh` to the provider; for hardware failures move to another machine.",
                    )
                ],
                gpu_index=gi,
            )


def rules_dmon(c: Ctx) -> None:
    d = c.p.get("nvidia_smi_dmon")
    if not d:
        return
    for g in d.gpus.values():
        temp, sm = g.peak("gtemp"), g.avg("sm")
        if temp is not None and temp >= HOT_C:
            low = sm is not None and sm < LOW_SM
            c.add(
                "gpu_hot",
                "warning",
                (
                    f"GPU {g.index} 温度 {temp:.0f}°C"
                    + (f"，SM 利用率平均只有 {sm:.0f}%：过热降频拖慢了任务" if low else "：接近降频温度"),
                    f"GPU {g.index} at {temp:.0f}°C"
                    + (
                        f" with SM utilisation averaging {sm:.0f}%: thermal throttling is slowing the job"
                        if low
                        else ": close to the slowdown temperature"
                    ),
                ),
                [d.header_line]
                + [
                    f"gpu {g.index}: gtemp {temp:.0f} C, sm {sm:.0f} %"
                    if sm is not None
                    else f"gpu {g.index}: gtemp {temp:.0f} C"
                ],
                actions=[
                    (
                        "请服务商检查散热（风扇/风道）；用 `nvidia-smi -q -d PERFORMANCE` 确认 Thermal Slowdown。",
                        "Ask the provider to check cooling (fans/airflow); confirm Thermal Slowdown with `nvidia-smi -q -d PERFORMANCE`.",
                    )
                ],
                gpu_index=g.index,
            )
    idle = [
        g
        for g in d.gpus.values()
        if (g.avg("sm") or 0) < LOW_SM and (g.peak("gtemp") or 0) < HOT_C and g.avg("sm") is not None
    ]
    if idle and len(idle) == len(d.gpus):
        c.add(
            "input_bound_suspected",
            "info",
            ("dmon 显示所有 GPU 的 SM 利用率都很低", "dmon shows low SM utilisation on every GPU"),
            [d.header_line],
            causes=[
                ("数据加载/CPU 跟不上，或任务还没开始", "Data loading/CPU cannot keep up, or the job has not started")
            ],
            actions=[
                (
                    "训练时再采一次；持续偏低就加 DataLoader num_workers、pin_memory，或检查磁盘（iostat -x）。",
                    "Sample again during training; if it stays low, raise DataLoader num_workers / pin_memory, or check the disk (iostat -x).",
                )
            ],
        )
