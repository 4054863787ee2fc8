"""Paste → DiagnosisReport: parse, run the rules, apply the severity policy, join incidents.

This is the engine behind the `diagnose_logs` tool (tools/diagnosis/tool.py registers it).
"""

from __future__ import annotations

from tools.diagnosis.findings import SEVERITY_RANK, DiagnosisReport, Finding, Text

_CHECK_ZH = {
    "count": "卡数",
    "model": "型号",
    "memory": "显存",
    "nvlink": "NVLink 拓扑",
    "bandwidth": "通信带宽",
    "driver_cuda": "驱动/CUDA",
    "health": "健康状态",
}


# the kinds a delivery check reads (GPU count/model/memory, NVLink, bandwidth, driver)
INVENTORY_KINDS = frozenset(
    {"nvidia_smi_table", "nvidia_smi_list", "nvidia_smi_query", "topo", "nccl_tests", "lspci", "dcgmi_diag", "nvcc"}
)


def nothing_recognised() -> Text:
    """Say what diagnose_logs reads, so the renter knows what to paste (detect.INPUTS is the list)."""
    from tools.diagnosis.detect import INPUTS

    return Text(
        zh="没有认出可诊断的输出。我能读：" + "；".join(z for z, _ in INPUTS) + "。请贴出命令的原始输出（不要截图）。",
        en="No diagnosable output recognised. I read: "
        + "; ".join(e for _, e in INPUTS)
        + ". Paste the raw command output (not a screenshot).",
    )


def diagnose_text(
    text: str | bytes | None,
    expect: str | None = None,
    model: str | None = None,
    session_len: int | None = None,
    question: str | None = None,
) -> DiagnosisReport:
    """Parse a paste (any mix of supported outputs) and run the decision tree.

    The paste is data, never instructions. Raises ToolInputError for binary or oversized input
    or a malformed `expect`.
    """
    from tools.diagnosis import incidents, policy
    from tools.diagnosis.acceptance import check_delivery, parse_expect
    from tools.diagnosis.detect import parse_all
    from tools.diagnosis.rules import NOTHING_WRONG, run_rules
    from tools.diagnosis.text import normalize

    spec = parse_expect(expect) if expect else None
    clean = normalize(text)
    parsed = parse_all(clean) if clean.strip() else None
    from tools.diagnosis.rules.exceptions import last_exception

    # an exception line is recognisable even when no parser knows the tool that printed it
    if parsed is None or (not parsed.kinds and last_exception(parsed.lines) is None):
        report = DiagnosisReport(severity="unknown", verdict="need_more_input", next_action=nothing_recognised())
        if expect:
            report.acceptance = check_delivery(report, None, expect)
        if question in policy.QUESTIONS:
            report.answer = policy.fault_answer(question, [], recognised=False)
        return report
    ctx = run_rules(parsed, expect=spec, model=model, session_len=session_len)
    report = DiagnosisReport(kinds=parsed.kinds, inventory=ctx.inventory, xids=ctx.xids, next_action=NOTHING_WRONG)
    report.serving = ctx.serving
    report.findings = ctx.findings
    if expect:
        report.acceptance = check_delivery(report, parsed, expect)
        failed = [r for r in report.acceptance if r.status == "fail"]
        shows_delivery = bool(set(parsed.kinds) & INVENTORY_KINDS) or any(
            r.status != "unknown" for r in report.acceptance if r.check != "health"
        )
        if not shows_delivery:
            # a serving launch, an error or a kernel log says nothing about the delivery: `expect` only sized the
            # checks (a GPU named in the user's words is not a contract; the Xid finding already says it is broken)
            report.acceptance = None
        elif failed:
            report.findings.insert(0, _delivery_mismatch(failed))
    policy.apply(report.findings)
    # a catch-all finding ("NCCL errors or warnings") goes after a specific one of the same severity (error 802 →
    # Fabric Manager), so the reply leads with the cause (severity_policy.yaml `generic`)
    generic = set(policy.policy().get("generic") or [])
    report.findings.sort(key=lambda f: (-SEVERITY_RANK[f.severity], f.id in generic))
    report.incidents = incidents.build(ctx, report.findings)
    order = {fid: i for i, inc in enumerate(report.incidents) for fid in inc.finding_ids}
    report.findings.sort(key=lambda f: (order.get(f.id, 99), -SEVERITY_RANK[f.severity]))
    if report.incidents:
        top = report.incidents[0]
        report.severity, report.verdict, report.next_action = top.severity, top.verdict, top.next_action
    else:
        report.severity, report.verdict = "ok", "no_action"
    if question in policy.QUESTIONS:
        report.answer = policy.fault_answer(question, report.findings, recognised=True)
    if report.findings and report.findings[0].id in (policy.policy().get("lead_as_is") or []):
        report.headline = report.findings[0].title
    return report


def _delivery_mismatch(failed: list) -> Finding:
    return Finding(
        id="delivery_mismatch",
        severity="warning",
        title=Text(
            zh="交付与合同不符："
            + "；".join(f"{_CHECK_ZH.get(r.check, r.check)} 期望 {r.expected}，实际 {r.observed}" for r in failed),
            en="Delivery does not match what was rented: "
            + "; ".join(f"{r.check} expected {r.expected}, observed {r.observed}" for r in failed),
        ),
        evidence=[f"{r.check}: expected {r.expected}, observed {r.observed}" for r in failed],
        actions=[
            Text(
                zh="把这张验收表和原始输出发给服务商，要求更换或按实际配置退差价（防止以次充好）。",
                en="Send this acceptance table and the raw output to the provider and ask for a replacement or a refund for the difference.",
            )
        ],
    )
