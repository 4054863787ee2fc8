"""Verify a delivery-checklist output against what was rented (`--expect "8x A100-SXM4-80GB"`).

Checks: GPU count, model, memory per GPU, NVLink topology, plausible all-reduce bandwidth,
driver/CUDA fit, and no critical hardware findings. A check that the paste cannot answer is
`unknown`, never a guess.
"""

from __future__ import annotations

import re
from typing import Any

from tools.diagnosis.findings import AcceptanceRow, DiagnosisReport, Text
from tools.errors import ToolInputError

_SPEC_SEP = re.compile(r"^\s*(\d{1,3})\s*(?:[x×*]|张|卡|块|台)+\s*(.*?)\s*$", re.IGNORECASE)
_SPEC_SPACE = re.compile(r"^\s*(\d{1,3})\s+(\S.*?)\s*$")
# nvidia-smi reports the usable framebuffer in MiB; "80GB" cards show 81920 MiB (A100) or
# 81559 MiB (H100). Accept 0.95–1.15 × the datasheet size (decimal GB) as "the same size".
MEMORY_LOW, MEMORY_HIGH = 0.95, 1.15
HW_FINDINGS_PREFIXES = (
    "xid_",
    "gpu_",
    "ecc_",
    "row_remap",
    "pci_",
    "pcie_aer_fatal",
    "dcgm_diag_fail",
    "nccl_tests_wrong",
    "no_gpus_visible",
    "rm_init",
)


def parse_expect(spec: str) -> tuple[int | None, str | None]:
    """'8x A100-SXM4-80GB' → (8, 'A100-SXM4-80GB'); '8卡A100' → (8, 'A100'); 'H100' → (None, 'H100')."""
    if not spec or not spec.strip() or len(spec) > 200:
        raise ToolInputError(
            "请用 “数量x型号” 写出租的配置，例如 8x A100-SXM4-80GB",
            "Give what was rented as COUNTxMODEL, e.g. 8x A100-SXM4-80GB",
            field="expect",
        )
    m = _SPEC_SEP.match(spec) or _SPEC_SPACE.match(spec)
    if m:
        count = int(m.group(1))
        model = m.group(2).strip() or None
        if count < 1 or count > 64:
            raise ToolInputError("GPU 数量应在 1 到 64 之间", "The GPU count must be between 1 and 64", field="expect")
        return count, model
    return None, spec.strip()


def _resolve(name: str | None) -> Any:
    if not name:
        return None
    try:
        from tools.gpus import resolve_gpu

        return resolve_gpu(name)
    except Exception:  # noqa: BLE001 — unknown model: fall back to text matching
        return None


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower().replace("nvidia", "").replace("tesla", "").replace("geforce", ""))


def check_delivery(report: DiagnosisReport, parsed: Any, spec: str) -> list[AcceptanceRow]:
    count, model = parse_expect(spec)
    want = _resolve(model)
    rows: list[AcceptanceRow] = []
    gpus = report.inventory.gpus
    observed_n = len(gpus)
    runs = parsed.get("nccl_tests") if parsed else None
    if not observed_n and runs:
        observed_n = runs[0].n_ranks
    k8s = parsed.get("kubernetes") if parsed else None
    if not observed_n and k8s and k8s.capacity:
        observed_n = k8s.capacity  # the GPUs the device plugin found on the node (Capacity)

    # 1. count
    if count is None:
        rows.append(AcceptanceRow(check="count", expected="—", observed=str(observed_n or "—"), status="unknown"))
    elif not observed_n:
        rows.append(
            AcceptanceRow(
                check="count",
                expected=str(count),
                observed="—",
                status="unknown",
                note=Text(zh="输出里没有 nvidia-smi", en="no nvidia-smi in the output"),
            )
        )
    else:
        rows.append(
            AcceptanceRow(
                check="count",
                expected=str(count),
                observed=str(observed_n),
                status="pass" if observed_n == count else "fail",
            )
        )

    # 2. model
    names = [g.name for g in gpus if g.name] or (runs[0].gpu_names if runs else [])
    if not model:
        rows.append(
            AcceptanceRow(check="model", expected="—", observed=", ".join(sorted(set(names))) or "—", status="unknown")
        )
    elif not names:
        rows.append(AcceptanceRow(check="model", expected=model, observed="—", status="unknown"))
    else:
        bad = []
        for n in names:
            got = _resolve(n)
            if want is not None and got is not None:
                ok = got.id == want.id
            else:
                ok = _norm(model) in _norm(n) or _norm(n) in _norm(model)
            if not ok:
                bad.append(n)
        truncated = any(n.endswith("...") for n in names)
        rows.append(
            AcceptanceRow(
                check="model",
                expected=want.name if want is not None else model,
                observed=", ".join(sorted(set(names))),
                status="fail" if bad and not truncated else ("unknown" if bad else "pass"),
                note=Text(
                    zh="旧驱动会截断型号名，请看 nvidia-smi -q 的 Product Name",
                    en="old drivers truncate names; see Product Name in nvidia-smi -q",
                )
                if truncated
                else None,
            )
        )

    # 3. memory per GPU
    mems = [g.memory_total_mib for g in gpus if g.memory_total_mib]
    if want is None or not mems:
        rows.append(
            AcceptanceRow(
                check="memory",
                expected=f"{want.memory_gb:g} GB" if want is not None else "—",
                observed=", ".join(sorted({f"{m} MiB" for m in mems})) or "—",
                status="unknown",
            )
        )
    else:
        lo, hi = MEMORY_LOW * want.memory_gb * 1e9, MEMORY_HIGH * want.memory_gb * 1e9
        ok = all(lo <= m * 2**20 <= hi for m in mems)
        rows.append(
            AcceptanceRow(
                check="memory",
                expected=f"{want.memory_gb:g} GB per GPU (decimal)",
                observed=", ".join(sorted({f"{m} MiB = {m * 2**20 / 1e9:.1f} GB" for m in mems})),
                status="pass" if ok else "fail",
            )
        )

    # 4. NVLink topology
    topos = [t for t in (parsed.get("topo") or []) if not t.is_p2p] if parsed else []
    wants_nvlink = want is not None and want.has_nvlink and want.is_sxm
    if not topos:
        rows.append(
            AcceptanceRow(
                check="nvlink",
                expected="NVLink between all GPUs" if wants_nvlink else "—",
                observed="no topo -m output",
                status="unknown",
            )
        )
    else:
        t = topos[0]
        links = t.gpu_links()
        nv = [v for v in links if v.startswith("NV")]
        observed = ", ".join(sorted(set(links))) or "single GPU"
        if wants_nvlink:
            status = "pass" if links and len(nv) == len(links) else "fail"
            rows.append(
                AcceptanceRow(check="nvlink", expected="NV# between every GPU pair", observed=observed, status=status)
            )
        else:
            rows.append(
                AcceptanceRow(
                    check="nvlink",
                    expected="not required" if want is not None else "—",
                    observed=observed,
                    status="pass" if want is not None else "unknown",
                )
            )

    # 5. bandwidth
    if runs:
        from tools.diagnosis.rules import expected_busbw

        plateau, _ = runs[0].plateau()
        topo_kind = "nvlink" if (topos and topos[0].nvlink_counts()) or wants_nvlink else "pcie"
        n_ranks = (
            runs[0].n_ranks or runs[0].ranks_from_bandwidth() or count or 0
        )  # what was rented when the paste has no header
        ref = expected_busbw(names[0] if names else model, n_ranks, topo_kind)
        if plateau is None:
            rows.append(
                AcceptanceRow(check="bandwidth", expected="—", observed="no large-message rows", status="unknown")
            )
        elif ref is None:
            rows.append(
                AcceptanceRow(
                    check="bandwidth", expected="no reference", observed=f"{plateau:.1f} GB/s busbw", status="unknown"
                )
            )
        else:
            short = ref.source.split(";")[0].strip()[:60]
            rows.append(
                AcceptanceRow(
                    check="bandwidth",
                    expected=f"≥ {ref.flag_below_gbs:.0f} GB/s (typical {ref.low_gbs:.0f}–{ref.high_gbs:.0f}; {short})",
                    observed=f"{plateau:.1f} GB/s busbw (large messages)",
                    status="pass" if plateau >= ref.flag_below_gbs and runs[0].wrong_total == 0 else "fail",
                )
            )
    else:
        rows.append(
            AcceptanceRow(check="bandwidth", expected="all_reduce_perf output", observed="none", status="unknown")
        )

    # 6. driver / CUDA fit
    ids = {f.id for f in report.findings}
    version_bad = ids & {
        "driver_too_old",
        "torch_cuda_newer_than_driver",
        "torch_cuda_unavailable",
        "driver_not_loaded",
        "driver_library_mismatch",
        "no_kernel_image",
    }
    torch = parsed.get("torch_errors") if parsed else None
    drv = report.inventory.driver_version
    observed = f"driver {drv or '—'}, CUDA ≤ {report.inventory.cuda_version or '—'}" + (
        f", torch {torch.torch_version} (cu {torch.torch_cuda}), available={torch.is_available}"
        if torch and torch.torch_version
        else ""
    )
    if version_bad:
        rows.append(
            AcceptanceRow(
                check="driver_cuda", expected="wheel CUDA supported by the driver", observed=observed, status="fail"
            )
        )
    elif torch and torch.is_available:
        ok = torch.device_count is None or count is None or torch.device_count == count
        rows.append(
            AcceptanceRow(
                check="driver_cuda",
                expected="torch sees all GPUs",
                observed=observed + (f", device_count={torch.device_count}" if torch.device_count is not None else ""),
                status="pass" if ok else "fail",
            )
        )
    else:
        rows.append(
            AcceptanceRow(check="driver_cuda", expected="torch check output", observed=observed, status="unknown")
        )

    # 7. health
    hw = [f for f in report.findings if f.severity == "critical" and f.id.startswith(HW_FINDINGS_PREFIXES)]
    rows.append(
        AcceptanceRow(
            check="health",
            expected="no critical hardware findings",
            observed=", ".join(sorted({f.id for f in hw})) or "none",
            status="fail" if hw else ("pass" if report.kinds else "unknown"),
        )
    )
    return rows
