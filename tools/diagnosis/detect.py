"""Decide which parsers apply to a paste — the single source of "is this a paste, and which kinds".

One paste may mix several outputs, so every kind whose cheap signature appears is parsed, and a
kind counts as detected only if its parser actually found something (a stray word like "AER" in
prose does not make a kernel log). Public API, for the planner and the tools alike:

- `detect_kinds(text)`  kinds whose parser found something, in report order
- `paste_kinds(text)`   the same, but [] when the text is a question *about* an error rather
                        than a paste of one (prose-prone kinds need a pasted shape)
- `is_paste(text)`      `bool(paste_kinds(text))`
- `INPUTS`              what diagnose_logs reads, bilingual (for "nothing recognised" replies)
- `parse_all(text)`     the parsed results themselves (used by the rules)
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Any

from tools.diagnosis import signals

# kind -> substrings; any one present means "run this parser". Order = report order.
SIGNATURES: dict[str, tuple[str, ...]] = {
    "nvidia_smi_table": (
        "NVIDIA-SMI",
        "Unable to determine the device handle",
        "No devices were found",
        "Failed to initialize NVML",
        "GPU is lost",
        "MiB /",
        "CUDA Version",
    ),
    "nvidia_smi_list": ("(UUID: GPU-",),
    "nvidia_smi_query": (
        "NVSMI LOG",
        "Product Name",
        "FB Memory Usage",
        "Clocks Event Reasons",
        "Clocks Throttle Reasons",
        "Remapped Rows",
        "GPU Current Temp",
        "Retired Pages",
    ),
    "topo": ("GPU0",),
    "kernel_log": ("NVRM", "SXid", "AER", "PCIe Bus Error", "blocked for more than", "state:D"),
    "lspci": ("NVIDIA Corporation", "LnkSta:"),
    "infiniband": ("CA '", "Infiniband device '", "hca_id:", "==>", "BW average", "BW peak", "RDMA_Write"),
    "container_runtime": ("could not select device driver", "nvidia-container-cli", "unknown or invalid runtime name"),
    "kubernetes": (
        "nvidia.com/gpu",
        "apacity:",
        "llocatable:",
        "device-plugin",
        "deviceDiscoveryStrategy",
        "XidCriticalError",
        "could not load NVML",
        "ERROR_LIBRARY_NOT_FOUND",
        "Incompatible strategy",
    ),
    "cuda_runtime": (
        "system not yet initialized",
        "802",
        "peer access is not supported",
        "forward compatibility was attempted",
        "no CUDA-capable device",
    ),
    "vllm": (
        "cache blocks",
        "GPU blocks",
        "KV cache",
        "KV Cache",
        "total_gpu_memory",
        "vllm serve",
        "vllm.entrypoints",
    ),
    "lmdeploy": ("[BlockManager]", "TurbomindEngineConfig"),
    "nvidia_smi_dmon": ("pwr", "gtemp"),
    "nvcc": ("Cuda compilation tools", "nvcc: command not found", "nvcc: not found", "nvcc"),
    # the kinds below keep their words in knowledge/diagnosis/<file>.yaml (tools.diagnosis.signals)
    "ipmi_sel": signals.signatures("pcie_faults"),
    "gpu_selection": signals.signatures("gpu_selection"),
    "host_memory": signals.signatures("host_memory"),
    "torch_errors": (
        "out of memory",
        "Tried to allocate",
        "too old",
        "insufficient for CUDA runtime",
        "uncorrectable ECC",
        "Uncorrectable ECC",
        "is_available",
        "torch_check:",
        "CUDA error",
        "device-side assert",
        "no kernel image",
        "Found no NVIDIA driver",
        "CUDA initialization",
        "is not compatible with the current PyTorch installation",
    ),
    "launcher": ("not found", "Address already in use", "EADDRINUSE", "errno: 98", "--node_rank", "--node-rank"),
    "framework_alloc": (
        "received allocating",
        "Cannot malloc",
        "Cannot allocate",
        "OOM when allocating",
        "DefaultCPUAllocator",
        "unable to mmap",
    ),
    "nccl_log": ("NCCL", "Watchdog caught collective"),
    # framework/NCCL errors and told symptoms kept as data (knowledge/diagnosis/error_catalog.yaml, symptom_catalog.yaml)
    "error_catalog": signals.signatures("error_catalog"),
    "symptom_catalog": signals.signatures("symptom_catalog"),
    "nccl_tests": ("busbw", "nThread", "Avg bus bandwidth", "Out of bounds values", "#wrong", "_perf"),
    "line_rate": signals.signatures("line_rate"),
    "iostat": ("%util",),
    "dcgmi_diag": ("Diagnostic",),
    "dcgmi_health": ("health system", "Overall Health", "Health Monitor"),
    "narrative": (
        "nvidia-smi",
        "GPU",
        "显卡",
        "卡",
        "gpu",
        "busbw",
        "all_reduce_perf",
        "NVIDIA",
        "Nvidia",
        "nvidia",
        "Tesla",
        "Titan",
        "TITAN",
        "RTX",
        "card",
    ),
}

# What each kind is called when a reply names the log it read (「NCCL 日志里没看到异常」), zh and en.
KIND_LABELS: dict[str, tuple[str, str]] = {
    "nvidia_smi_table": ("nvidia-smi", "nvidia-smi"),
    "nvidia_smi_list": ("nvidia-smi -L", "nvidia-smi -L"),
    "nvidia_smi_query": ("nvidia-smi -q", "nvidia-smi -q"),
    "topo": ("nvidia-smi topo -m", "nvidia-smi topo -m"),
    "kernel_log": ("内核日志", "kernel log"),
    "lspci": ("lspci", "lspci"),
    "infiniband": ("IB 网卡输出", "InfiniBand output"),
    "container_runtime": ("容器运行时报错", "container runtime error"),
    "kubernetes": ("Kubernetes 输出", "Kubernetes output"),
    "cuda_runtime": ("CUDA 报错", "CUDA error"),
    "vllm": ("vLLM 日志", "vLLM log"),
    "lmdeploy": ("LMDeploy 日志", "LMDeploy log"),
    "nvidia_smi_dmon": ("nvidia-smi dmon", "nvidia-smi dmon"),
    "nvcc": ("nvcc -V", "nvcc -V"),
    "ipmi_sel": ("IPMI 事件日志", "IPMI event log"),
    "gpu_selection": ("选卡命令", "GPU-selection command"),
    "host_memory": ("内存相关输出", "host-memory output"),
    "torch_errors": ("PyTorch 报错", "PyTorch error"),
    "launcher": ("启动器报错", "launcher error"),
    "framework_alloc": ("框架显存报错", "framework allocation error"),
    "nccl_log": ("NCCL 日志", "NCCL log"),
    "nccl_tests": ("nccl-tests 结果", "nccl-tests output"),
    "line_rate": ("带宽数字", "bandwidth figures"),
    "iostat": ("iostat", "iostat"),
    "dcgmi_diag": ("dcgmi diag", "dcgmi diag"),
    "dcgmi_health": ("dcgmi health", "dcgmi health"),
    "error_catalog": ("报错信息", "error message"),
    "symptom_catalog": ("你的描述", "your description"),
    "narrative": ("你的描述", "your description"),
}

# Kinds whose trigger words also occur in a person's question ("NCCL 超时怎么办？"): they count as a
# paste only when the text also looks pasted (several lines, a prompt, an `XxxError:` line).
PROSE_PRONE = frozenset(
    {"torch_errors", "nccl_log", "kernel_log", "cuda_runtime", "vllm", "gpu_selection", "line_rate"}
)
# Kinds a renter may tell in words rather than paste (「掉卡了」, 「会被系统OOM杀进程，内存128G」, "8 × 100 Gbps NICs,
# nccl-tests reaches 600 Gbps"): assistant/offline/reading/logs.py decides when the telling is enough.
TOLD = frozenset({"narrative", "line_rate", "host_memory", "gpu_selection", "symptom_catalog"})
_PASTED_SHAPE = re.compile(
    r"^\s*(?:\$|#|root@|\w+@[\w.-]+[:~]|>>>|\[\s*\d+\.\d+\]|[\w.]*(?:Error|Exception|Warning)\b\s*:|Traceback)",
    re.M,
)

# What diagnose_logs reads (said back when nothing in a paste was recognised).
INPUTS: tuple[tuple[str, str], ...] = (
    ("nvidia-smi（表格、-L、-q、dmon、topo -m）", "nvidia-smi (table, -L, -q, dmon, topo -m)"),
    (
        "内核日志：`dmesg -T` / `journalctl -k`（Xid、AER、GSP、hung task）",
        "kernel log: `dmesg -T` / `journalctl -k` (Xid, AER, GSP, hung tasks)",
    ),
    ("`lspci -vv`（LnkCap/LnkSta 链路速率与宽度）", "`lspci -vv` (LnkCap/LnkSta link speed and width)"),
    (
        "NCCL_DEBUG=INFO 日志、PyTorch NCCL 看门狗报错、all_reduce_perf 结果",
        "NCCL_DEBUG=INFO logs, PyTorch NCCL watchdog errors, all_reduce_perf output",
    ),
    (
        "PyTorch/CUDA 报错（显存不足、驱动太旧、sm_XX 不兼容、错误 802）",
        "PyTorch/CUDA errors (OOM, driver too old, sm_XX not compatible, error 802)",
    ),
    ("vLLM 启动命令与日志（KV cache / GPU blocks）", "vLLM launch commands and start-up logs (KV cache / GPU blocks)"),
    ("LMDeploy/TurboMind 启动日志（BlockManager）", "LMDeploy/TurboMind start-up logs (BlockManager)"),
    ("Docker / nvidia-container-cli 报错", "Docker / nvidia-container-cli errors"),
    (
        "ibstat、ibstatus、ibv_devinfo、ibdev2netdev、ib_write_bw",
        "ibstat, ibstatus, ibv_devinfo, ibdev2netdev, ib_write_bw",
    ),
    ("dcgmi diag / dcgmi health、nvcc -V、iostat -x", "dcgmi diag / dcgmi health, nvcc -V, iostat -x"),
    (
        "选卡命令与报错（CUDA_VISIBLE_DEVICES、--local_rank、deepspeed --include）、进程被杀（Killed / OOM killer）、IPMI 事件日志",
        "GPU-selection commands and errors (CUDA_VISIBLE_DEVICES, --local_rank, deepspeed --include), killed processes (Killed / OOM killer), IPMI event logs",
    ),
)


@dataclass
class Parsed:
    kinds: list[str] = field(default_factory=list)
    results: dict[str, Any] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    def get(self, kind: str) -> Any:
        return self.results.get(kind)


def parse_all(text: str) -> Parsed:
    lines = text.split("\n")
    out = Parsed(lines=lines)
    for kind, needles in SIGNATURES.items():
        if not any(n in text for n in needles):
            continue
        module = importlib.import_module(f"tools.diagnosis.parsers.{kind}")
        result = module.parse(lines)
        if result:
            out.kinds.append(kind)
            out.results[kind] = result
    return out


def detect_kinds(text: str) -> list[str]:
    """Kinds whose parser found something in `text`, in report order (no prose filtering)."""
    return parse_all(text).kinds


def paste_kinds(text: str) -> list[str]:
    """The kinds in `text`, or [] when it is a question about an error rather than a paste of one.

    Why: "CUDA out of memory 一般有哪些原因？" names an error without pasting one; the planner should
    answer it as a question. Kinds outside PROSE_PRONE are unambiguous machine output.
    """
    if not text or not text.strip():
        return []
    kinds = detect_kinds(text)
    # told symptoms are words too (「NCCL 超时怎么办？」): without a chat around them they need a pasted shape
    if not kinds or set(kinds) - PROSE_PRONE - {"symptom_catalog"}:
        return kinds
    return kinds if looks_pasted(text) else []


# An error message quoted inside a sentence (「训练报错 RuntimeError: FlashAttention only supports Ampere GPUs or newer」,
# "vllm fails with max seq len (32768) is larger than ... KV cache (21104)"): an exception name with a colon and a
# message of several words, an NCCL WARN line, or a message that carries the program's own numbers. A question that
# only names an error ("CUDA out of memory 一般有哪些原因？") has none of these.
_INLINE_ERROR = re.compile(
    r"(?:[A-Za-z_.]*[A-Z]\w*(?:Error|Exception)|CUDA error)\s*:\s*[^\s:]+(?:\s+[^\s]+){2,}"
    r"|NCCL (?:WARN|INFO)\s+\S+"
    r"|Tried to allocate [\d.]+\s*[KMGT]i?B"
    r"|max seq len \(\d+\) is larger than"
)


def looks_pasted(text: str) -> bool:
    """The text has the shape of program output: several lines, a shell prompt, an `XxxError:` line, or an error
    message quoted inline in a sentence."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return len(lines) >= 3 or bool(_PASTED_SHAPE.search(text)) or _quotes_error(text)


def _quotes_error(text: str) -> bool:
    """An error message quoted in a sentence, other than a bare out-of-memory: 「LoRA 微调 14B 报 torch.cuda.
    OutOfMemoryError: CUDA out of memory」 carries no numbers to diagnose; the job's memory estimate answers it."""
    for m in _INLINE_ERROR.finditer(text):
        if "out of memory" in m.group(0).lower() and not _OOM_NUMBERS.search(text):
            continue
        return True
    return False


_OOM_NUMBERS = re.compile(r"Tried to allocate|total capacit|GiB (?:free|already allocated)", re.I)


def is_paste(text: str) -> bool:
    """True when diagnose_logs should handle `text` (it recognises at least one kind in it)."""
    return bool(paste_kinds(text))
