"""The decision tree: parsed outputs → findings, inventory, Xid events and one next action.

Rules and thresholds (each named where it comes from; docs/diagnosis.md has the full list):
- Xid severity/actions: NVIDIA Xid catalog (knowledge/xid.yaml) with the renter-side overrides
  noted there; Xid 45 "caused by previous Xid N" is sympathetic (diagnose N); Xid 154 says
  what to do; NVLink5 (144–150) follows NVIDIA's "XID 144-150 Decode" sheet, else the line's
  Fatal/Nonfatal word.
- Fallen off the bus without an Xid, `rev ff`, AER Uncorrected (Fatal)/Surprise Down → critical.
- GPU count: a count servers do not ship with (3, 5, 6, 7 …; they come with 1/2/4/8, some 10 or
  16) or nvidia-smi views that disagree (`-L` vs table vs `-q`) → warning; more GPUs on PCIe
  than in nvidia-smi → critical (gpu_count_mismatch).
- Utilisation patterns (ml-engineering debug.md; GPU-Util = share of time any kernel ran):
  ≥95% util at ≤25% of the power cap = hang suspected; ≥90% memory at 0% util = idle server
  or stalled job; 1–60% util at 25–60% of the cap with memory in use = input-bound.
- Driver ↔ CUDA: NVIDIA CUDA minor-version compatibility (12.x needs ≥525, 11.x ≥450.80.02,
  13.x ≥580); the nvidia-smi header's CUDA Version is the driver's maximum.
- nccl-tests: the large-message plateau (≥256 MiB), not "Avg bus bandwidth"; any #wrong > 0
  is a correctness failure; below half the low end of the expected busbw is flagged.

One module per evidence family: context (Ctx, inventory), smi, kernel, pci, versions, comms, host.
"""

from __future__ import annotations

from tools.diagnosis.detect import Parsed
from tools.diagnosis.findings import SEVERITY_RANK, Finding, Text, worst
from tools.diagnosis.rules.alloc import rules_framework_alloc
from tools.diagnosis.rules.catalog import rules_error_catalog, rules_symptom_catalog
from tools.diagnosis.rules.comms import ExpectedBusbw, expected_busbw, rules_nccl, rules_nccl_tests
from tools.diagnosis.rules.context import Ctx, build_inventory, context_gpu
from tools.diagnosis.rules.exceptions import rules_unmatched_exception
from tools.diagnosis.rules.fabric import rules_infiniband
from tools.diagnosis.rules.gpu_selection import rules_gpu_selection
from tools.diagnosis.rules.health import rules_dcgm_health, rules_dmon
from tools.diagnosis.rules.host import rules_dcgmi, rules_iostat
from tools.diagnosis.rules.host_memory import rules_host_memory
from tools.diagnosis.rules.k8s import rules_k8s
from tools.diagnosis.rules.kernel import rules_kernel
from tools.diagnosis.rules.launcher import rules_launcher
from tools.diagnosis.rules.line_rate import rules_line_rate, rules_separate_jobs
from tools.diagnosis.rules.narrative import rules_narrative, rules_narrative_other
from tools.diagnosis.rules.pci import rules_gpu_count, rules_lspci, rules_topo
from tools.diagnosis.rules.pcie_faults import rules_ipmi_sel
from tools.diagnosis.rules.runtime import rules_container, rules_cuda_runtime, rules_vllm
from tools.diagnosis.rules.serving import rules_serving
from tools.diagnosis.rules.smi import rules_smi_failures, rules_smi_query, rules_smi_rows
from tools.diagnosis.rules.versions import MIN_DRIVER_FOR_CUDA_MAJOR, rules_torch, rules_versions

T = Text

__all__ = [
    "Ctx",
    "ExpectedBusbw",
    "MIN_DRIVER_FOR_CUDA_MAJOR",
    "NOTHING_RECOGNISED",
    "NOTHING_WRONG",
    "RULES",
    "context_gpu",
    "expected_busbw",
    "next_action",
    "run_rules",
]


RULES = (
    rules_smi_failures,
    rules_smi_rows,
    rules_smi_query,
    rules_kernel,
    rules_ipmi_sel,
    rules_lspci,
    rules_gpu_count,
    rules_topo,
    rules_gpu_selection,
    rules_versions,
    rules_torch,
    rules_framework_alloc,
    rules_host_memory,
    rules_nccl,
    rules_nccl_tests,
    rules_separate_jobs,
    rules_line_rate,
    rules_iostat,
    rules_dcgmi,
    rules_dcgm_health,
    rules_dmon,
    rules_infiniband,
    rules_container,
    rules_k8s,
    rules_launcher,
    rules_cuda_runtime,
    rules_serving,
    rules_vllm,
    rules_error_catalog,  # after the kernel/NCCL/torch rules: it augments or supersedes their findings
    rules_symptom_catalog,
    rules_narrative,
    rules_narrative_other,
    rules_unmatched_exception,  # last: only when no rule explained what stopped the job
)


def run_rules(
    parsed: Parsed,
    expect: tuple[int | None, str | None] | None = None,
    model: str | None = None,
    session_len: int | None = None,
) -> Ctx:
    c = Ctx(parsed)
    c.expect, c.model, c.session_len = expect, model, session_len
    build_inventory(c)
    for rule in RULES:
        rule(c)
    c.findings.sort(key=lambda f: -SEVERITY_RANK[f.severity])
    return c


NOTHING_WRONG = T(
    zh="没有发现问题。训练前建议再跑一次 `gpu-advisor checklist` 生成的验收脚本。",
    en="Nothing wrong found. Before training, consider running the acceptance script from `gpu-advisor checklist`.",
)
NOTHING_RECOGNISED = T(
    zh="没有认出可诊断的输出。请贴出 nvidia-smi、`dmesg -T | grep -iE 'nvrm|xid|aer'`、NCCL 日志、all_reduce_perf、PyTorch/vLLM/Docker 报错、ibstat 或 `lspci -vv` 的原文。",
    en="No diagnosable output recognised. Paste the raw output of nvidia-smi, `dmesg -T | grep -iE 'nvrm|xid|aer'`, NCCL logs, all_reduce_perf, the PyTorch/vLLM/Docker error, ibstat or `lspci -vv`.",
)


def next_action(findings: list[Finding], recognised: bool) -> Text:
    """One next step: the first action of the worst finding (renter-side first)."""
    if not recognised:
        return NOTHING_RECOGNISED
    level = worst([f.severity for f in findings])
    if level in ("ok", "info"):
        return NOTHING_WRONG
    top = next(f for f in findings if f.severity == level)
    if not top.actions:
        return T(zh=f"处理：{top.title.zh}", en=f"Address: {top.title.en}")
    return top.actions[0]
