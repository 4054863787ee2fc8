"""Out-of-memory from PaddlePaddle and TensorFlow: read the byte counts, say what they mean.

Sources: Paddle's memory flags (FLAGS_fraction_of_gpu_memory_to_use: the share of the card the
allocator grabs up front; batch_size in Paddle's launchers is per card) —
https://www.paddlepaddle.org.cn/documentation/docs/en/guides/flags/memory_en.html ; TensorFlow GPU guide
(the BFC allocator grabs nearly all memory unless memory growth is set) —
https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth
"""

from __future__ import annotations

from tools.diagnosis.parsers.framework_alloc import FrameworkAlloc
from tools.diagnosis.rules.context import Ctx


def _gb(x: float) -> str:
    return f"{x:.2f}" if x < 1 else f"{x:.1f}"


def rules_framework_alloc(c: Ctx) -> None:
    a = c.p.get("framework_alloc")
    if not a:
        return
    if a.framework == "host":
        _host_ram(c, a)
        return
    req = f"{_gb(a.requested_gb)} GB" if a.requested_gb is not None else None
    free = f"{_gb(a.free_gb)} GB" if a.free_gb is not None else None
    name = "PaddlePaddle" if a.framework == "paddle" else "TensorFlow"
    if req and free:
        title = (
            f"{name} 显存不足：这次要申请 {req}，这张卡上只剩 {free} 空闲",
            f"{name} out of GPU memory: it asked for {req} while only {free} was free on the card",
        )
    elif req:
        title = (f"{name} 显存不足：申请 {req} 失败", f"{name} out of GPU memory: allocating {req} failed")
    else:
        title = (f"{name} 显存不足", f"{name} out of GPU memory")
    causes = [
        (
            "一次要的比卡上空闲的多：batch_size（Paddle/TF 多卡训练里是每张卡的 batch）或输入尺寸太大",
            "The job asks for more than is free: batch_size (per card in Paddle/TF multi-GPU training) or the input size is too large",
        ),
        (
            "空闲远小于卡的容量：别的进程（别人的任务、残留进程）占着显存，或选错了卡",
            "Free memory far below the card's size: another process (someone else's job, a leftover) holds it, or the wrong card was picked",
        ),
    ]
    actions = [
        (
            "先 `nvidia-smi` 看这张卡上有没有别的进程占显存，用 `CUDA_VISIBLE_DEVICES=<空闲的卡>` 选完全空闲的卡；再把 batch_size（每卡）减半或缩小输入尺寸，直到能跑。多加卡不会减小每张卡的 batch。",
            "Run `nvidia-smi` to see whether another process holds memory on that card and pick fully free cards with `CUDA_VISIBLE_DEVICES=<free ids>`; then halve the (per-card) batch_size or shrink the input until it runs. Adding cards does not shrink the per-card batch.",
        )
    ]
    if a.fraction is not None:
        causes.insert(
            0,
            (
                f"Paddle 启动时按 FLAGS_fraction_of_gpu_memory_to_use = {a.fraction} 一次性预留「比例 × 单卡显存」的显存池（这里 {req or '这一块'}）；预留失败说明单卡上空闲不够这么多",
                f"Paddle reserves a pool of FLAGS_fraction_of_gpu_memory_to_use = {a.fraction} × the card's memory up front (here {req or 'this chunk'}); the malloc failing means that much was not free on the card",
            ),
        )
        actions.insert(
            0,
            (
                "调小 FLAGS_fraction_of_gpu_memory_to_use 只会让池子更小、更早不够用；先确认卡上没有别的进程，再用默认比例（约 0.92）或 `FLAGS_allocator_strategy=auto_growth` 按需分配，并减小每卡 batch_size。",
                "Lowering FLAGS_fraction_of_gpu_memory_to_use only makes the pool smaller; make sure no other process is on the card, then use the default fraction (≈0.92) or `FLAGS_allocator_strategy=auto_growth`, and reduce the per-card batch_size.",
            ),
        )
    if a.framework == "tensorflow":
        actions.append(
            (
                "TensorFlow 默认一启动就占满显存：同一张卡上跑多个进程时用 `tf.config.experimental.set_memory_growth(gpu, True)` 或 `TF_FORCE_GPU_ALLOW_GROWTH=true`。",
                "TensorFlow grabs nearly all memory at start: with several processes on one card set `tf.config.experimental.set_memory_growth(gpu, True)` or `TF_FORCE_GPU_ALLOW_GROWTH=true`.",
            )
        )
    c.add("framework_oom", "warning", title, [a.line], causes=causes, actions=actions, gpu_index=a.gpu)


def _host_ram(c: Ctx, a: FrameworkAlloc) -> None:
    """CPU RAM, not VRAM: the bytes are shown in GiB (what `free -h` prints) and GB."""
    gb = a.requested_gb or 0.0
    gib = gb * 1e9 / 2**30
    c.add(
        "host_ram_alloc_failed",
        "warning",
        (
            f"这是内存（主机 RAM）不够，不是显存：一次要 {gib:.1f} GiB（{gb:.1f} GB）失败",
            f"This is host RAM, not GPU memory: allocating {gib:.1f} GiB ({gb:.1f} GB) in CPU memory failed",
        ),
        [a.line],
        causes=[
            (
                "加载检查点时整个文件被映射/读进内存（safetensors、torch.load），或 CPU/磁盘 offload 的缓冲区比空闲内存大",
                "Loading maps or reads the whole checkpoint file into RAM (safetensors, torch.load), or CPU/disk-offload buffers exceed free RAM",
            )
        ],
        actions=[
            (
                "`free -h` 看可用内存（单位 GiB）；加 swap、换分片更小的检查点、用 `low_cpu_mem_usage=True`/`device_map` 直接加载到 GPU，或调小 batch/offload 缓冲；租机器时内存至少要比最大的单个权重文件大。",
                "Check available RAM with `free -h` (GiB); add swap, use a checkpoint with smaller shards, load straight to the GPU with `low_cpu_mem_usage=True`/`device_map`, or shrink the batch/offload buffers; when renting, host RAM must exceed the largest single weight file.",
            )
        ],
    )
