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


def rules_narrative_other(c: Ctx) -> None:
    """Two told-not-pasted cases that are expected behaviour, answered so the renter stops looking for a fault.

    - No processes in nvidia-smi inside a container/pod: NVML reports host PIDs, which the container's PID
      namespace cannot map, so the Processes table is empty while memory is in use (NVIDIA container
      toolkit / k8s-device-plugin maintainers; e.g. NVIDIA/nvidia-docker#179, HAMi#235).
    - nccl-tests busbw above the NIC's line rate: busbw = algbw × 2(n−1)/n assumes a ring
      (nccl-tests doc/PERFORMANCE.md); NCCL's tree algorithm and intra-node NVLink traffic move less over
      the network than that, so busbw can exceed the wire (nccl-tests#22; NCCL_ALGO=Ring to compare).
    """
    n = c.p.get("narrative")
    if not n:
        return
    if n.no_procs_line and not c.has("gpu_dropped_reported"):
        c.add(
            "smi_no_processes_in_container",
            "info",
            (
                "容器/Pod 里 nvidia-smi 不显示进程是正常的：进程号在容器的 PID 命名空间里对不上，显存照样在被用",
                "nvidia-smi showing no processes inside a container/pod is normal: the PIDs do not map into the container's PID namespace, while the memory is still in use",
            ),
            [n.no_procs_line],
            actions=[
                (
                    "要看是哪个进程占显存：在宿主机上跑 `nvidia-smi`，或在容器里用 `nvidia-smi --query-compute-apps=pid,used_memory --format=csv`（显示宿主机 PID），Kubernetes 上用 DCGM exporter 的指标。",
                    "To see which process holds memory, run `nvidia-smi` on the host, or `nvidia-smi --query-compute-apps=pid,used_memory --format=csv` in the container (host PIDs); on Kubernetes use DCGM exporter metrics.",
                )
            ],
        )
    if n.shared_oom_line and not c.has("framework_oom") and not any(f.id.startswith("oom") for f in c.findings):
        c.add(
            "oom_shared_cards",
            "warning",
            (
                "共享服务器上显存不够：数据并行时每张卡跑同样的 batch，能开多大由最满的那张卡决定——别人的进程占着其中某张卡的显存",
                "Out of memory on a shared server: with data parallelism every card runs the same batch, so the fullest card sets the limit — someone else's process holds memory on one of them",
            ),
            [n.shared_oom_line],
            causes=[
                (
                    "选的卡里有几张被其他人/其他进程部分占用，空闲显存不均衡",
                    "Some of the chosen cards are partly used by other people/processes, so free memory is uneven",
                ),
                (
                    "每张图/每条样本的输入尺寸（分辨率、序列长度）太大，激活随尺寸增长",
                    "The input size per sample (resolution, sequence length) is large; activations grow with it",
                ),
            ],
            actions=[
                (
                    "先 `nvidia-smi` 看每张卡的已用显存，只选完全空闲的卡（`CUDA_VISIBLE_DEVICES=<空闲卡>` 或框架的 `--gpus`）；再调小输入尺寸（图像分辨率/target_size、max_length），最后再加 batch。",
                    "Run `nvidia-smi` to see memory used on each card and pick only fully free ones (`CUDA_VISIBLE_DEVICES=<free ids>` or the framework's `--gpus`); then lower the input size (image resolution/target_size, max_length) before raising the batch.",
                )
            ],
        )
    if n.busbw_above_line:
        c.add(
            "busbw_above_line_rate",
            "info",
            (
                "busbw 比网卡线速还高不是测错了：busbw 是按 ring 算法折算的「总线带宽」，不是线上实际传输的带宽",
                "busbw above the NIC's line rate is not a measuring error: busbw is a bus bandwidth normalised for the ring algorithm, not the bytes on the wire",
            ),
            [n.busbw_above_line],
            causes=[
                (
                    "nccl-tests 用 busbw = algbw × 2(n−1)/n 折算，假设 ring；NCCL 在 2 个节点上常选 tree 算法，跨节点实际传的数据比这个假设少，而且节点内走 NVLink 的部分不占网卡",
                    "nccl-tests computes busbw = algbw × 2(n−1)/n assuming a ring; on 2 nodes NCCL often picks the tree algorithm, which sends less across the network than that, and intra-node NVLink traffic never touches the NIC",
                )
            ],
            actions=[
                (
                    "要和线速比，就强制 ring：`NCCL_ALGO=Ring`（旧版 NCCL 用 `NCCL_TREE_THRESHOLD=0`）重跑 all_reduce_perf；100 Gb/s 网络（12.5 GB/s）上 ring 的 busbw 一般能到约 90%，即 ~11 GB/s。",
                    "To compare with the line rate, force ring: rerun all_reduce_perf with `NCCL_ALGO=Ring` (`NCCL_TREE_THRESHOLD=0` on old NCCL); on a 100 Gb/s network (12.5 GB/s) ring busbw usually reaches about 90%, ~11 GB/s.",
                )
            ],
        )
