"""The line that says what "a 72 GB card" means when the machine is a Mac (assistant/offline/reading/unified.py)."""

from __future__ import annotations

from assistant.offline.reading.frame import Frame
from assistant.offline.writing.render import Writer


def mac_note(w: Writer, f: Frame) -> str | None:
    """Unified memory: the GPU's default share of it, the figure sized against, and how to raise it."""
    from assistant.offline.reading.unified import GPU_SHARE, mac_memory_gb

    if f.training or f.mode not in (None, "inference"):
        return None
    ram = mac_memory_gb(f.text, f.host_ram_gb)
    if not ram:
        return None
    share = ram * GPU_SHARE
    return w.t(
        f"Mac 的统一内存由 CPU 和 GPU 共用：macOS 默认只让 GPU 用约 75%（Metal 的 recommendedMaxWorkingSetSize），"
        f"{ram:g} GB × 0.75 ≈ {share:g} GB，上面按这么大的「卡」算（可用 sudo sysctl iogpu.wired_limit_mb 调高）；"
        "生成速度受内存带宽限制（每个 token 读一遍权重）。",
        f"A Mac's unified memory is shared by CPU and GPU: macOS lets the GPU use about 75% by default (Metal's "
        f"recommendedMaxWorkingSetSize), {ram:g} GB × 0.75 ≈ {share:g} GB, the 'card' sized above (sudo sysctl "
        "iogpu.wired_limit_mb raises it); decoding is bound by memory bandwidth (each token reads the weights once).",
    )
