"""The renter's own words: 「掉卡了 / nvidia-smi 少了一张卡」 with no log line to quote.

A GPU vanishing from nvidia-smi is the symptom NVIDIA's Xid 79 ("GPU has fallen off the bus") and
nvidia-smi's "GPU is lost" describe: unusable until reboot, and it recurs on faulty hardware.
When the paste also has the kernel/nvidia-smi evidence, that evidence is the finding instead.
"""

from __future__ import annotations

from tools.diagnosis.rules.context import Ctx

CONCRETE = ("xid_79", "gpu_lost", "gpu_fallen_off_bus", "pci_rev_ff", "gpu_count_mismatch")


def rules_narrative(c: Ctx) -> None:
    n = c.p.get("narrative")
    if not n or not n.dropped_line or any(c.has(fid) for fid in CONCRETE):
        return
    c.add(
        "gpu_dropped_reported",
        "critical",
        (
            "你描述的是掉卡：GPU 从 nvidia-smi 里消失，多半是 GPU 从 PCIe 总线掉线（Xid 79）",
            "What you describe is a GPU dropping out: it vanished from nvidia-smi, usually a GPU that fell off the PCIe bus (Xid 79)",
        ),
        [n.dropped_line],
        causes=[
            ("PCIe 链路/插槽/转接卡接触不良，或供电、过热", "A PCIe link/slot/riser fault, power, or overheating"),
            ("GPU 硬件故障（反复出现时）", "A failing GPU (when it recurs)"),
        ],
        actions=[
            (
                "这块卡在重启前不能用，反复掉卡就是硬件问题。给服务商开工单，附上 `dmesg -T | grep -iE 'xid|nvrm|aer|fallen'`、`nvidia-smi -L`、`lspci | grep -i nvidia` 的输出和 `sudo nvidia-bug-report.sh` 生成的文件。把这些输出贴给我，我可以确认是哪块卡。",
                "The GPU is unusable until a reboot, and repeated drops mean hardware. Open a ticket with the provider with the output of `dmesg -T | grep -iE 'xid|nvrm|aer|fallen'`, `nvidia-smi -L`, `lspci | grep -i nvidia` and the file from `sudo nvidia-bug-report.sh`. Paste those outputs here and I can tell which GPU it is.",
            )
        ],
    )
