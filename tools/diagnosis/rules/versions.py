"""Driver ↔ CUDA ↔ PyTorch wheel ↔ nvcc cross-checks and PyTorch runtime errors (OOM, ECC, no kernel image …)."""

from __future__ import annotations

import re
from typing import Any

from tools.diagnosis.rules.context import Ctx
from tools.diagnosis.rules.smi import ECC_RESET

# Minimum Linux driver for each CUDA major (NVIDIA CUDA Compatibility, minor-version section).
MIN_DRIVER_FOR_CUDA_MAJOR = {11: (450, 80, 2), 12: (525, 60, 13), 13: (580, 0, 0)}


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
        c.add(
            "driver_too_old",
            "critical",
            (f"驱动太旧：只支持到 CUDA {cuda_max}", f"Driver too old: supports CUDA up to {cuda_max}"),
            [torch.too_old_line or ""],
            causes=[
                (
                    f"PyTorch 报告的 found version {found} 表示驱动最高支持 CUDA {cuda_max}，而装的 PyTorch wheel 需要更新的 CUDA",
                    f"found version {found} means the driver supports CUDA {cuda_max}; the installed PyTorch wheel needs a newer CUDA",
                )
            ],
            actions=[
                (
                    f"自己能做的：装与驱动匹配的 wheel，例如 CUDA ≤{cuda_max} 的版本（`pip install torch --index-url https://download.pytorch.org/whl/cu1xx`，cu 版本不高于 {cuda_max}）。",
                    f"What you can do: install a wheel built for CUDA ≤{cuda_max} (`pip install torch --index-url https://download.pytorch.org/whl/cu1xx` with cu ≤ {cuda_max}).",
                ),
                (
                    "或者请服务商升级驱动（CUDA 12.x 需要驱动 ≥525，13.x 需要 ≥580）。",
                    "Or ask the provider to upgrade the driver (CUDA 12.x needs ≥525, 13.x needs ≥580).",
                ),
            ],
        )
    if torch and "driver_insufficient" in torch.events and not c.has("driver_too_old"):
        c.add(
            "driver_too_old",
            "critical",
            ("驱动版本不足以运行这个 CUDA 运行时", "The driver is too old for this CUDA runtime"),
            [torch.events["driver_insufficient"]],
            causes=[
                (
                    "程序或 wheel 自带的 CUDA 运行时比驱动支持的最高 CUDA 新",
                    "The program's / wheel's CUDA runtime is newer than the driver supports",
                )
            ],
            actions=[
                (
                    "对照 nvidia-smi 右上角的 CUDA Version（驱动支持的最高版本）换一个不高于它的 wheel；或请服务商升级驱动。",
                    "Compare with the CUDA Version in nvidia-smi's header (the driver's maximum) and install a wheel no newer than that, or ask the provider to upgrade the driver.",
                )
            ],
        )
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
            c.add(
                "torch_cuda_newer_than_driver",
                "critical",
                (
                    f"PyTorch wheel 用的 CUDA {torch.torch_cuda} 超出驱动支持（驱动 {c.inventory.driver_version}，最高 CUDA {c.inventory.cuda_version}）",
                    f"The PyTorch wheel's CUDA {torch.torch_cuda} exceeds what the driver supports (driver {c.inventory.driver_version}, max CUDA {c.inventory.cuda_version})",
                ),
                [torch.available_line or "", _header_line(c)],
                causes=[
                    (
                        "CUDA 次版本兼容要求：12.x 需要驱动 ≥525，11.x ≥450.80.02，13.x ≥580（NVIDIA CUDA Compatibility）",
                        "Minor-version compatibility needs driver ≥525 for 12.x, ≥450.80.02 for 11.x, ≥580 for 13.x (NVIDIA CUDA Compatibility)",
                    )
                ],
                actions=[
                    (
                        f"换一个 CUDA 主版本不高于 {c.inventory.cuda_version} 的 PyTorch wheel；或请服务商升级驱动。",
                        f"Install a PyTorch wheel whose CUDA major is ≤ {c.inventory.cuda_version}, or ask the provider to upgrade the driver.",
                    )
                ],
            )
        elif max_cuda and torch_cuda > max_cuda and not bad:
            c.add(
                "torch_cuda_minor_compat",
                "info",
                (
                    f"wheel 的 CUDA {torch.torch_cuda} 比驱动标称的 {c.inventory.cuda_version} 新，但同一主版本",
                    f"Wheel CUDA {torch.torch_cuda} is newer than the driver's {c.inventory.cuda_version}, same major",
                ),
                [_header_line(c)],
                causes=[
                    (
                        "CUDA 次版本兼容允许这样运行，但 PTX JIT 等少数功能不可用",
                        "Minor-version compatibility allows this; a few features such as PTX JIT are unavailable",
                    )
                ],
                actions=[
                    (
                        "一般能正常训练；遇到 PTX/JIT 相关报错再换低一点的 wheel。",
                        "Training normally works; switch to an older wheel if PTX/JIT errors appear.",
                    )
                ],
            )
    if torch and torch.is_available is False and _names_a_domestic_accelerator(c):
        c.add(
            "torch_cuda_unavailable",
            "critical",
            (
                "torch.cuda.is_available() 为 False：国产加速卡不是 NVIDIA GPU，CUDA 版 PyTorch 本来就看不到它",
                "torch.cuda.is_available() is False: a Chinese accelerator is not an NVIDIA GPU, so a CUDA build of PyTorch never sees it",
            ),
            [torch.available_line or ""],
            causes=[
                (
                    "装的是 pip 默认的 CUDA 版 torch；昇腾要 CANN + torch_npu（设备名 npu），寒武纪要 torch_mlu，摩尔线程要 torch_musa，海光 DCU 要基于 DTK 编译的 PyTorch",
                    "The default CUDA wheel of torch is installed; Ascend needs CANN + torch_npu (device 'npu'), Cambricon torch_mlu, Moore Threads torch_musa, Hygon DCU a PyTorch built against DTK",
                ),
                (
                    "PyTorch 看不到任何加速卡时代码照样能跑（推理、model.generate() 都不报错），但全部在 CPU 上算，慢很多——能跑通不等于用上了卡",
                    "With no accelerator visible, code still runs (inference, model.generate() raise nothing) but everything is computed on the CPU, much slower — running is not proof the card is used",
                ),
            ],
            actions=[
                (
                    "用厂商工具确认驱动能看到卡（npu-smi info / hy-smi / cnmon / mthreads-gmi），再按厂商的版本配套表装对应的 PyTorch 插件，最好直接用厂商发布的容器镜像；昇腾上检查用 torch.npu.is_available()。",
                    "Confirm the driver sees the cards with the vendor tool (npu-smi info / hy-smi / cnmon / mthreads-gmi), then install the matching PyTorch plugin from the vendor's version table, ideally the vendor's container image; on Ascend check torch.npu.is_available().",
                )
            ],
        )
    if torch and torch.is_available is False and not c.has("torch_cuda_unavailable"):
        causes = []
        if torch.torch_version and "+cpu" in torch.torch_version:
            causes.append(
                ("装的是 CPU 版 PyTorch（版本号带 +cpu）", "A CPU-only PyTorch is installed (version ends in +cpu)")
            )
        causes += [
            ("wheel 的 CUDA 比驱动新", "The wheel's CUDA is newer than the driver"),
            (
                "容器没有挂载 GPU（缺少 --gpus all）或 CUDA_VISIBLE_DEVICES 为空",
                "The container has no GPUs (missing --gpus all) or CUDA_VISIBLE_DEVICES is empty",
            ),
            ("驱动未加载", "The driver is not loaded"),
        ]
        c.add(
            "torch_cuda_unavailable",
            "critical",
            (
                "torch.cuda.is_available() 为 False：PyTorch 用不了 GPU",
                "torch.cuda.is_available() is False: PyTorch cannot use the GPU",
            ),
            [torch.available_line or ""],
            causes=causes,
            actions=[
                (
                    "先运行 nvidia-smi：看不到卡是容器/驱动问题；看得到就按 nvidia-smi 右上角 CUDA Version 重装匹配的 wheel（pytorch.org 的安装命令选对 cu 版本）。",
                    "Run nvidia-smi first: no GPUs means a container/driver problem; if GPUs show, reinstall a wheel matching the CUDA Version in nvidia-smi's header (pick the right cu version on pytorch.org).",
                )
            ],
        )
    if torch and "no_driver" in torch.events and not c.has("torch_cuda_unavailable"):
        c.add(
            "torch_cuda_unavailable",
            "critical",
            ("PyTorch 找不到 NVIDIA 驱动", "PyTorch found no NVIDIA driver"),
            [torch.events["no_driver"]],
            causes=[("容器没有挂载 GPU 或驱动未加载", "The container has no GPUs or the driver is not loaded")],
            actions=[
                (
                    "用 `docker run --gpus all` 启动容器；宿主机 nvidia-smi 也失败就开工单。",
                    "Start the container with `docker run --gpus all`; open a ticket if nvidia-smi fails on the host too.",
                )
            ],
        )
    if nvcc and nvcc.release:
        nv = _version_tuple(nvcc.release)
        if max_cuda and nv and nv[0] > max_cuda[0]:
            c.add(
                "nvcc_newer_than_driver",
                "warning",
                (
                    f"nvcc（CUDA {nvcc.release}）比驱动支持的 CUDA {c.inventory.cuda_version} 新",
                    f"nvcc (CUDA {nvcc.release}) is newer than the driver's CUDA {c.inventory.cuda_version}",
                ),
                [nvcc.line, _header_line(c)],
                causes=[
                    (
                        "本地编译的 CUDA 程序/扩展在这个驱动上跑不起来",
                        "Locally compiled CUDA programs/extensions will not run on this driver",
                    )
                ],
                actions=[
                    (
                        "pip/conda 装的 PyTorch 自带运行时，不受 nvcc 影响；只有编译扩展（如 flash-attn）时才需要匹配的 toolkit。",
                        "pip/conda PyTorch bundles its own runtime and ignores nvcc; only compiling extensions (e.g. flash-attn) needs a matching toolkit.",
                    )
                ],
            )
        elif max_cuda and nv and nv[0] == max_cuda[0] and nv > max_cuda:
            c.add(
                "nvcc_newer_minor_than_driver",
                "info",
                (
                    f"nvcc（CUDA Toolkit {nvcc.release}）比驱动支持的最高 CUDA {c.inventory.cuda_version} 新，但主版本相同",
                    f"nvcc (CUDA toolkit {nvcc.release}) is newer than the driver's maximum CUDA {c.inventory.cuda_version}, same major",
                ),
                [nvcc.line, _header_line(c)],
                causes=[
                    (
                        "nvidia-smi 右上角的 CUDA Version 是驱动支持的最高版本，nvcc 是另装的工具包，两者本来就可以不同",
                        "The CUDA Version in nvidia-smi's header is the highest the driver supports; nvcc is a separately installed toolkit, so they may differ",
                    ),
                    (
                        "同一主版本内有次版本兼容：一般能编译运行，少数功能（PTX JIT）不可用（NVIDIA CUDA Compatibility）",
                        "Minor-version compatibility within a major: compiling and running generally work, a few features (PTX JIT) do not (NVIDIA CUDA Compatibility)",
                    ),
                ],
                actions=[
                    (
                        "不是装错了；pip/conda 装的 PyTorch 自带 CUDA 运行时，不受 nvcc 影响。编译扩展出错时再装与驱动匹配的 toolkit。",
                        "Nothing is broken; pip/conda PyTorch bundles its own CUDA runtime. Match the toolkit to the driver only if extension builds fail.",
                    )
                ],
            )
        elif torch_cuda and nv and nv[0] != torch_cuda[0]:
            c.add(
                "nvcc_torch_mismatch",
                "info",
                (
                    f"nvcc CUDA {nvcc.release} 与 PyTorch 的 CUDA {torch.torch_cuda} 主版本不同",
                    f"nvcc CUDA {nvcc.release} and PyTorch's CUDA {torch.torch_cuda} differ in major version",
                ),
                [nvcc.line],
                causes=[("只影响编译 CUDA 扩展", "Matters only when compiling CUDA extensions")],
                actions=[
                    (
                        "编译扩展前装与 torch.version.cuda 相同主版本的 toolkit。",
                        "Install a toolkit with the same major as torch.version.cuda before compiling extensions.",
                    )
                ],
            )
    if nvcc and nvcc.missing:
        c.add(
            "nvcc_missing",
            "info",
            (
                "没有 nvcc（CUDA Toolkit 未安装或不在 PATH）",
                "nvcc not found (CUDA toolkit not installed or not on PATH)",
            ),
            [nvcc.line],
            causes=[
                (
                    "运行 PyTorch 不需要 nvcc；只有编译扩展才需要",
                    "PyTorch does not need nvcc; only compiling extensions does",
                )
            ],
            actions=[
                (
                    "需要编译扩展时再装 CUDA Toolkit 或用 devel 版镜像。",
                    "Install the CUDA toolkit or use a -devel image when you need to compile extensions.",
                )
            ],
        )


def _header_line(c: Ctx) -> str:
    t = c.p.get("nvidia_smi_table")
    return (t.header_line or "") if t else ""


# PyTorch's OOM taxonomy, read from its own message (PyTorch docs, "CUDA semantics → memory management"):
# - memory outside this process ≥ 1 GiB and ≥ 20 % of the card → another process holds it
# - reserved-but-unallocated ≥ the request and ≥ 3 % of the card → fragmentation (expandable_segments)
# - otherwise the work does not fit the card → shrink it
OTHER_MIN_GIB, OTHER_MIN_SHARE, FRAG_MIN_SHARE = 1.0, 0.20, 0.03


def classify_oom(o: Any) -> tuple[str, float]:
    """(finding id, GiB held outside this process) for one parsed OOM message."""
    total = o.total_gib
    others = 0.0
    if o.other_processes:
        own = o.this_process_gib
        if own is None and o.allocated_gib is not None:
            # In a container PyTorch lists this very process as "Process N has M" (its PID namespace differs).
            est = o.allocated_gib + (o.reserved_unallocated_gib or 0.0)
            others = sum(g for _, g in o.other_processes if abs(g - est) > max(1.5, 0.1 * est))
        else:
            others = sum(g for _, g in o.other_processes if own is None or abs(g - own) > 0.01)
    elif o.format == "legacy" and total and o.free_gib is not None and o.allocated_gib is not None:
        others = max(total - o.allocated_gib - (o.reserved_unallocated_gib or 0.0) - o.free_gib, 0.0)
    if total and others >= OTHER_MIN_GIB and others >= OTHER_MIN_SHARE * total:
        return "oom_other_process", others
    r, req = o.reserved_unallocated_gib, o.requested_gib
    if r is not None and req is not None and total and r >= req and r >= FRAG_MIN_SHARE * total:
        return "oom_fragmentation", others
    return "oom_exceeds_capacity", others


def _oom_finding(c: Ctx, o: Any) -> None:
    fid, others = classify_oom(o)
    total = f"{o.total_gib:.2f} GiB" if o.total_gib else "?"
    req = (
        (f"{o.requested_gib * 1024:.0f} MiB" if o.requested_gib < 1 else f"{o.requested_gib:.2f} GiB")
        if o.requested_gib is not None
        else "?"
    )
    r = o.reserved_unallocated_gib
    gpu = o.gpu if o.gpu is not None else "?"
    # only what the message said: "GPU 0 (4.00 GiB)", "GPU 0", "the GPU (4.00 GiB)" — never a "?" placeholder
    name_zh, name_en = (f"GPU {o.gpu}", f"GPU {o.gpu}") if o.gpu is not None else ("这张卡", "the GPU")
    card_zh = name_zh + (f"（{total}）" if o.total_gib else "")
    card_en = name_en + (f" ({total})" if o.total_gib else "")
    req_zh = f" {req} " if o.requested_gib is not None else ""
    req_en = f"{req} " if o.requested_gib is not None else ""
    if fid == "oom_other_process":
        title = (
            f"显存被其他进程占用：GPU {gpu} 上约 {others:.1f} GiB（共 {total}）不属于这个进程",
            f"Another process holds the memory: about {others:.1f} GiB of GPU {gpu} ({total}) is outside this process",
        )
        causes = [
            (
                "同一张卡上还有别的进程（自己遗留的、别人的，或另一个服务）",
                "Another process is on the same GPU (a leftover of yours, someone else's, or another service)",
            )
        ]
        actions = [
            (
                "先用 `nvidia-smi` 看 Processes 一栏是谁占的显存：是自己遗留的就结束它（`kill <PID>`）；不是你的就换一张空闲的卡或找服务商。",
                "Run `nvidia-smi` and read the Processes section: kill your own leftover (`kill <PID>`); if it is not yours, use a free GPU or ask the provider.",
            )
        ]
    elif fid == "oom_fragmentation":
        title = (
            f"显存碎片化：PyTorch 缓存了 {r:.2f} GiB 未用的显存，却放不下这次 {req} 的申请",
            f"Memory fragmentation: PyTorch caches {r:.2f} GiB it is not using, yet cannot place this {req} request",
        )
        causes = [
            (
                "缓存块大小不合适（碎片），PyTorch 报错里自己给出的就是这个建议",
                "The cached blocks are the wrong sizes (fragmentation) — PyTorch's own message suggests exactly this",
            )
        ]
        actions = [
            (
                "设置 `export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` 后重跑；仍不够再减小 batch。",
                "Rerun with `export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`; if it still does not fit, reduce the batch.",
            )
        ]
    else:
        title = (
            f"显存不够：{card_zh}放不下这次{req_zh}的申请，显存已被这个任务自己用满",
            f"Out of memory: {card_en} cannot fit this {req_en}request; the job itself fills the card",
        )
        causes = [
            (
                "模型、batch 或序列长度需要的显存超过这张卡",
                "The model, batch or sequence length needs more memory than this GPU has",
            )
        ]
        actions = [
            (
                "缩小任务：减小 batch / 序列长度、开启梯度检查点（gradient checkpointing）、用 bf16，或量化到 8-bit / 4-bit（bitsandbytes、GPTQ/AWQ，或 llama.cpp 的 GGUF）；一张卡不够就用多卡切分（FSDP/ZeRO、tensor parallel、device_map）。"
                "`gpu-advisor estimate` 可以先算显存。",
                "Shrink the work: smaller batch / sequence length, gradient checkpointing, bf16, or 8-bit / 4-bit quantisation (bitsandbytes, "
                "GPTQ/AWQ, or a GGUF in llama.cpp); if one card is not enough, "
                "shard across GPUs (FSDP/ZeRO, tensor parallel, device_map). `gpu-advisor estimate` computes the memory first.",
            )
        ]
    stated = _stated_card(c)
    if fid == "oom_exceeds_capacity" and stated and o.total_gib and stated[1] > 1.5 * o.total_gib * 2**30 / 1e9:
        # "GPU 0 has a total capacity of 4.00 GiB" while the renter says the card has 11 GB: PyTorch is on another
        # device (CUDA numbers devices fastest-first by default, not as nvidia-smi does; CUDA docs, CUDA_DEVICE_ORDER)
        name, gb = stated
        idx = o.gpu if o.gpu is not None else 0
        title = (
            title[0]
            + f"——但 {name} 有 {gb:g} GB：PyTorch 用的 GPU {idx} 只有 {total}，它跑在另一张卡上（核显或第二张卡）",
            title[1]
            + f" — but a {name} has {gb:g} GB: PyTorch's GPU {idx} has only {total}, so it runs on a different GPU (an integrated or second card)",
        )
        causes.insert(
            0,
            (
                f"CUDA 默认按「最快的在前」给卡编号，和 nvidia-smi 的顺序不一定一样；device {idx} 不是你的 {name}",
                f"CUDA numbers devices fastest-first by default, not in nvidia-smi's order; device {idx} is not your {name}",
            ),
        )
        actions.insert(
            0,
            (
                f"先选对卡：`nvidia-smi -L` 找到 {name} 的编号，再用 `CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=<编号> python ...` 启动；"
                "PyTorch 不能「多要」超过这张卡总量的显存。",
                f"Pick the right GPU first: find the {name} in `nvidia-smi -L` and start with `CUDA_DEVICE_ORDER=PCI_BUS_ID "
                "CUDA_VISIBLE_DEVICES=<index> python ...`; PyTorch cannot be given more memory than the card has.",
            ),
        )
    c.add(
        fid,
        "warning",
        title,
        [o.line],
        causes=causes,
        actions=actions,
        gpu_index=o.gpu if isinstance(o.gpu, int) else None,
    )


_STATED_VRAM = re.compile(
    r"(?:VRAM|显存|GPU memory)\s*[:：]?\s*(\d+(?:\.\d+)?)\s*G(?:i?B)?\b|(\d+(?:\.\d+)?)\s*G(?:i?B)?\s*(?:of\s+)?(?:VRAM|显存)",
    re.I,
)
_STATED_NAME = re.compile(r"((?:GeForce\s+)?(?:GTX|RTX)\s*\d{3,4}(?:\s*Ti)?|Tesla\s+[A-Z]\d+\w*)", re.I)


def _stated_card(c: Ctx) -> tuple[str, float] | None:
    """(name, GB) of the card the renter says they have (diagnose_logs `expect`, from their own words)."""
    model = c.expect[1] if c.expect else None
    if not model:
        # the renter's own line inside the paste: "GPU VRAM: 11 GB (Nvidia GeForce GTX 1080 Ti)" / 「显存 24G」
        text = "\n".join(c.p.lines[:400])
        m = _STATED_VRAM.search(text)
        if not m:
            return None
        gb = float(m.group(1) or m.group(2))
        # 「70b全参微调需要1200g显存」: a requirement someone quotes, not the renter's card (no card holds > 300 GB)
        if gb > 300 or re.search(
            r"(?:需要|要求|至少|需|要|needs?|requires?)\s*$", text[max(0, m.start() - 8) : m.start()]
        ):
            return None
        card = _STATED_NAME.search(text)
        return (" ".join(card.group(1).split()) if card else "your card"), gb
    try:
        from tools.gpus import resolve_gpu

        spec = resolve_gpu(model)
    except Exception:  # an unknown name says nothing about memory  # noqa: BLE001
        return None
    return spec.name, float(spec.memory_gb)


# Lowest CUDA toolkit that builds each architecture (CUDA Toolkit release notes / PyTorch get-started):
# sm_80 11.0, sm_86 11.1, sm_89/sm_90 11.8, sm_100/sm_120 12.8.
ARCH_MIN_CUDA = {80: "11.0", 86: "11.1", 89: "11.8", 90: "11.8", 100: "12.8", 101: "12.8", 120: "12.8"}


def _arch_finding(c: Ctx, name: str, sm: int, have: list[int], line: str) -> None:
    need = ARCH_MIN_CUDA.get(sm)
    tag = f"cu{need.replace('.', '')}" if need else None
    if need and sm >= 100:
        how_zh = f"装一个用 CUDA {need}+ 编译的 PyTorch：`pip install torch --index-url https://download.pytorch.org/whl/{tag}`（{tag}），驱动要 ≥ 570。"
        how_en = f"Install a PyTorch wheel built with CUDA {need}+: `pip install torch --index-url https://download.pytorch.org/whl/{tag}` ({tag}); the driver must be ≥ 570."
    elif need:
        how_zh = f"装一个用 CUDA {need} 或更新版本编译的 PyTorch wheel（例如 pip 安装 +cu118 / +cu121 版本）。"
        how_en = f"Install a PyTorch wheel built with CUDA {need} or newer (e.g. pip install a +cu118 / +cu121 build)."
    else:
        how_zh, how_en = (
            "换一个包含该架构的 PyTorch wheel（pytorch.org/get-started）。",
            "Install a PyTorch wheel that includes this architecture (pytorch.org/get-started).",
        )
    c.add(
        "torch_arch_unsupported",
        "warning",
        (
            f"当前 PyTorch 不支持 {name}（sm_{sm}）：这个 wheel 只带 "
            + (" ".join(f"sm_{x}" for x in have) or "旧架构")
            + " 的 kernel",
            f"This PyTorch build does not support {name} (sm_{sm}): the wheel only has kernels for "
            + (" ".join(f"sm_{x}" for x in have) or "older architectures"),
        ),
        [line],
        causes=[
            (
                "PyTorch 版本/构建早于这块卡的架构，与驱动无关",
                "The PyTorch build predates the card's architecture; the driver is not the problem",
            )
        ],
        actions=[(how_zh, how_en)],
    )


def rules_torch(c: Ctx) -> None:
    torch = c.p.get("torch_errors")
    if not torch:
        return
    for o in torch.ooms[:1]:
        _oom_finding(c, o)
    if torch.arch is not None:
        _arch_finding(c, *torch.arch)
    ev = torch.events
    if "uncorrectable_ecc" in ev:
        c.add(
            "ecc_uncorrectable",
            "critical",
            ("CUDA 报告不可纠正的 ECC 错误", "CUDA reported an uncorrectable ECC error"),
            [ev["uncorrectable_ecc"]],
            causes=[("显存硬件错误（对应 Xid 48/94/95）", "Memory hardware error (Xid 48/94/95)")],
            actions=[
                (
                    "查 dmesg 里的 Xid 确定是哪块卡；多卡机器先用 `CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=<其余卡>` 排除它，并开工单（附 Xid 行和 nvidia-bug-report.sh）。",
                    "Find the GPU from the Xid in dmesg; on a multi-GPU box exclude it with `CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=<the others>` and open a ticket (Xid lines + nvidia-bug-report.sh).",
                ),
                ECC_RESET,
            ],
        )
    if "no_kernel_image" in ev:
        c.add(
            "no_kernel_image",
            "critical",
            (
                "没有适用于这块 GPU 的 kernel（wheel 不支持此架构）",
                "No kernel image for this GPU (the wheel lacks its architecture)",
            ),
            [ev["no_kernel_image"]],
            causes=[
                (
                    "PyTorch wheel 编译时没有包含这块卡的计算能力（如 RTX 50 系列需要 CUDA 12.8+ 的 wheel）",
                    "The wheel was not built for this GPU's compute capability (e.g. RTX 50-series needs a CUDA 12.8+ wheel)",
                )
            ],
            actions=[
                (
                    "换更新的 PyTorch wheel（cu128 或更新），并确认驱动支持对应 CUDA。",
                    "Install a newer wheel (cu128 or later) and make sure the driver supports that CUDA.",
                )
            ],
        )
    if "illegal_memory_access" in ev or "launch_failure" in ev:
        line = ev.get("illegal_memory_access") or ev.get("launch_failure") or ""
        c.add(
            "cuda_illegal_memory_access",
            "warning",
            ("CUDA 非法访存 / kernel 启动失败", "CUDA illegal memory access / launch failure"),
            [line],
            causes=[
                (
                    "程序或自定义算子越界（常伴随 Xid 13/31）",
                    "Out-of-bounds access in the program or a custom kernel (often with Xid 13/31)",
                ),
                (
                    "少数情况下是硬件问题：同一块卡在不同任务中反复出现",
                    "Rarely hardware: suspect it if it repeats on one GPU across different jobs",
                ),
            ],
            actions=[
                (
                    "用 `CUDA_LAUNCH_BLOCKING=1` 重跑定位出错的算子，或用 compute-sanitizer；查 dmesg 的 Xid。",
                    "Rerun with `CUDA_LAUNCH_BLOCKING=1` to find the failing op, or use compute-sanitizer; check dmesg for Xids.",
                )
            ],
        )
    if "device_side_assert" in ev:
        c.add(
            "device_side_assert",
            "warning",
            ("CUDA device-side assert（设备端断言失败）", "CUDA device-side assert triggered"),
            [ev["device_side_assert"]],
            causes=[
                (
                    "多为标签/索引越界，例如分类标签 ≥ 类别数、embedding 下标越界",
                    "Usually an out-of-range label/index, e.g. a class label ≥ num_classes or an embedding index out of range",
                )
            ],
            actions=[
                (
                    "在 CPU 上跑一个 batch 或设 `CUDA_LAUNCH_BLOCKING=1` 找到出错的那一行。",
                    "Run one batch on CPU or set `CUDA_LAUNCH_BLOCKING=1` to find the failing line.",
                )
            ],
        )
    if "devices_busy" in ev:
        c.add(
            "cuda_devices_busy",
            "warning",
            ("CUDA 设备忙或不可用", "CUDA devices busy or unavailable"),
            [ev["devices_busy"]],
            causes=[
                (
                    "GPU 处于 Exclusive Process 模式且已有进程占用",
                    "The GPU is in Exclusive Process mode and already in use",
                ),
                ("GPU 故障或容器无权限", "A GPU fault or no device permission in the container"),
            ],
            actions=[
                (
                    "看 nvidia-smi 的 Compute M. 列和进程表；结束占用的进程或换卡。",
                    "Check nvidia-smi's Compute M. column and process table; stop the holder or use another GPU.",
                )
            ],
        )


def _names_a_domestic_accelerator(c: Ctx) -> bool:
    """Does the paste name Ascend, Hygon DCU, Cambricon or Moore Threads? The vocabulary is the declared subject of
    knowledge/guide/domestic-accelerators.md (one copy), so the nvidia-smi / --gpus advice is not given for them."""
    from tools.retrieval.subjects import guide_subject

    rx = guide_subject("domestic-accelerators")
    return bool(rx and rx.search("\n".join(c.p.lines)))
