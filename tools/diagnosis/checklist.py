"""The delivery-acceptance script (a common acceptance checklist for rented GPU servers, 防止以次充好).

It runs on the rented server, prints every section under a `===== name =====` marker and
saves everything to one file, which `gpu-advisor diagnose --expect "8x MODEL" FILE` then
verifies. Everything user-supplied is interpolated with shlex.quote — a hostile --model value
cannot break out of its quotes.
"""

from __future__ import annotations

import shlex

from pydantic import BaseModel, Field

from tools.errors import ToolInputError


class DeliveryChecklistOutput(BaseModel):
    script: str = Field(description="bash script to run on the rented server")
    output_file: str
    expect: str | None = Field(description="the --expect value to pass to `gpu-advisor diagnose` with the saved file")
    steps: list[dict[str, str]] = Field(description="what each step checks, zh/en")


STEPS: list[dict[str, str]] = [
    {
        "id": "host",
        "zh": "主机名、内核、时间（开工单时要写节点名）",
        "en": "hostname, kernel, time (name the node in tickets)",
    },
    {
        "id": "nvidia-smi",
        "zh": "GPU 数量、型号、驱动版本、驱动支持的最高 CUDA",
        "en": "GPU count, model, driver version, highest CUDA the driver supports",
    },
    {
        "id": "nvidia-smi -L",
        "zh": "每块卡的 UUID（记下来，以后可以认出同一块坏卡）",
        "en": "each GPU's UUID (record it to recognise a bad GPU later)",
    },
    {
        "id": "nvidia-smi -q",
        "zh": "完整型号（Product Name）、显存总量、ECC、重映射、温度和降频原因、PCIe 链路",
        "en": "full product name, memory total, ECC, row remapping, temperature and throttle reasons, PCIe link",
    },
    {
        "id": "lspci",
        "zh": "PCIe 上的 NVIDIA 设备（rev ff 表示掉卡）",
        "en": "NVIDIA devices on PCIe (rev ff means a lost GPU)",
    },
    {"id": "topo", "zh": "GPU 互联拓扑（NV# 表示 NVLink）", "en": "GPU interconnect topology (NV# = NVLink)"},
    {
        "id": "nvcc",
        "zh": "CUDA Toolkit 版本（只影响编译扩展）",
        "en": "CUDA toolkit version (only matters for compiling extensions)",
    },
    {
        "id": "torch",
        "zh": "PyTorch 版本、wheel 的 CUDA、能否用 GPU",
        "en": "PyTorch version, the wheel's CUDA, whether it sees the GPUs",
    },
    {
        "id": "nccl-tests",
        "zh": "all_reduce_perf 8B–1GB 多卡通信带宽",
        "en": "all_reduce_perf 8 B–1 GB multi-GPU bandwidth",
    },
    {"id": "iostat", "zh": "磁盘 I/O（util、await）", "en": "disk I/O (util, await)"},
    {
        "id": "dmesg",
        "zh": "内核日志里的 Xid / AER / 掉卡记录",
        "en": "Xid / AER / fallen-off-the-bus lines in the kernel log",
    },
]


TORCH_CHECK = (
    "import torch; print('torch_check: version=%s cuda=%s available=%s device_count=%d' % "
    "(torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.cuda.device_count()))"
)


def build_checklist(
    gpus: int = 8, model: str | None = None, output_file: str = "gpu_acceptance.txt"
) -> DeliveryChecklistOutput:
    if not isinstance(gpus, int) or gpus < 1 or gpus > 64:
        raise ToolInputError("GPU 数量应在 1 到 64 之间", "The GPU count must be between 1 and 64", field="gpus")
    if not output_file or "\n" in output_file or "\x00" in output_file or len(output_file) > 200:
        raise ToolInputError("输出文件名无效", "Invalid output file name", field="output_file")
    model = (model or "").strip() or None
    if model and len(model) > 200:
        raise ToolInputError(
            "型号文字太长（上限 200 字符）", "The model text is too long (200 characters max)", field="model"
        )
    expect = f"{gpus}x {model}" if model else f"{gpus}x"
    q = shlex.quote
    script = f"""#!/usr/bin/env bash
# GPU Advisor · 算力顾问 — delivery acceptance script / 交付验收脚本 (generated)
# Run on the rented server:   bash gpu_acceptance.sh
# Then on any machine:        gpu-advisor diagnose --expect "$EXPECT" "$OUT"
# Nothing here changes the server; the nccl-tests step may clone and build NVIDIA/nccl-tests under $NCCL_TESTS_DIR.
set -u
OUT={q(output_file)}
EXPECT_GPUS={int(gpus)}
EXPECT_MODEL={q(model or "")}
EXPECT={q(expect)}
NCCL_TESTS_DIR="${{NCCL_TESTS_DIR:-$HOME/nccl-tests}}"

section() {{ printf '\\n===== %s =====\\n' "$1"; }}
have() {{ command -v "$1" >/dev/null 2>&1; }}

{{
  section "host"
  echo "hostname: $(hostname)"
  echo "kernel: $(uname -r)"
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "expect: $EXPECT"

  section "nvidia-smi"
  nvidia-smi

  section "nvidia-smi -L"
  nvidia-smi -L

  section "nvidia-smi -q"
  # common checks: nvidia-smi -q | grep -i "product name"; nvidia-smi -q -d MEMORY | grep -i total
  nvidia-smi -q

  section "lspci"
  if have lspci; then lspci | grep -i nvidia; else echo "lspci: not installed (apt install pciutils)"; fi

  section "nvidia-smi topo -m"
  nvidia-smi topo -m
  nvidia-smi nvlink -s 2>/dev/null | head -n 80

  section "nvcc -V"
  if have nvcc; then nvcc -V; elif [ -x /usr/local/cuda/bin/nvcc ]; then /usr/local/cuda/bin/nvcc -V; else echo "nvcc: command not found"; fi

  section "torch"
  if have python3; then python3 -c {q(TORCH_CHECK)} 2>&1 | tail -n 5; else echo "python3: not found"; fi

  section "nccl-tests all_reduce_perf"
  if [ ! -x "$NCCL_TESTS_DIR/build/all_reduce_perf" ] && have git && have make; then
    git clone --depth 1 https://github.com/NVIDIA/nccl-tests.git "$NCCL_TESTS_DIR" >/dev/null 2>&1 || true
    make -C "$NCCL_TESTS_DIR" -j >/dev/null 2>&1 || echo "nccl-tests build failed (needs CUDA toolkit and NCCL headers)"
  fi
  if [ -x "$NCCL_TESTS_DIR/build/all_reduce_perf" ]; then
    "$NCCL_TESTS_DIR/build/all_reduce_perf" -b 8 -e 1G -f 2 -g "$EXPECT_GPUS"
  else
    echo "all_reduce_perf not available; build it: git clone https://github.com/NVIDIA/nccl-tests && make -C nccl-tests"
  fi

  section "iostat -x"
  if have iostat; then iostat -x 1 3; else echo "iostat: not installed (apt install sysstat)"; fi

  section "dmesg"
  (dmesg -T 2>/dev/null || sudo -n dmesg -T 2>/dev/null || journalctl -k --no-pager 2>/dev/null) \\
    | grep -iE 'nvrm|xid|aer|fallen off' | tail -n 200
  echo "(end of acceptance output)"
}} 2>&1 | tee "$OUT"

echo
echo "Saved to / 已保存到: $OUT"
echo "Check it with / 用下面的命令验收: gpu-advisor diagnose --expect \\"$EXPECT\\" \\"$OUT\\""
"""
    return DeliveryChecklistOutput(
        script=script, output_file=output_file, expect=expect if model else None, steps=STEPS
    )
