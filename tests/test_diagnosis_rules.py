"""The decision tree: every sample's expected findings (hand-written sidecars), the Xid catalog,
version and bandwidth cross-checks, utilisation patterns and renter-side actions."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tools.diagnosis.findings import SEVERITY_RANK
from tools.diagnosis.rules import expected_busbw
from tools.diagnosis.tool import diagnose_text
from tools.diagnosis.xid import catalog, entry

SAMPLES = Path(__file__).parent / "diagnosis_samples"
SIDECARS = sorted(SAMPLES.glob("*.yaml"))


def test_there_are_at_least_forty_samples_with_sources() -> None:
    assert len(SIDECARS) >= 40
    metas = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in SIDECARS]
    assert sum(1 for m in metas if m.get("real")) >= 10  # verbatim public output, not only reconstructed formats
    for path in SIDECARS:
        meta = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert meta.get("source"), f"{path.name} has no source"
        assert path.with_suffix(".txt").exists()


@pytest.mark.parametrize("path", SIDECARS, ids=lambda p: p.stem)
def test_sample_expectations(path: Path) -> None:
    meta = yaml.safe_load(path.read_text(encoding="utf-8"))
    report = diagnose_text(path.with_suffix(".txt").read_bytes(), meta.get("expect"))
    ids = [f.id for f in report.findings]
    for kind in meta.get("kinds", []):
        assert kind in report.kinds
    if "severity" in meta:
        assert report.severity == meta["severity"], ids
    for fid in meta.get("findings", []):
        assert fid in ids
    for fid in meta.get("not_findings", []):
        assert fid not in ids
    assert sorted({x.code for x in report.xids}) == sorted(set(meta.get("xids", [x.code for x in report.xids])))
    for key in ("driver_version", "cuda_version"):
        if key in meta:
            assert getattr(report.inventory, key) == meta[key]
    if "gpus" in meta:
        assert len(report.inventory.gpus) == meta["gpus"]
    if "memory_total_mib" in meta:
        assert {g.memory_total_mib for g in report.inventory.gpus} == {meta["memory_total_mib"]}
    for code, index in (meta.get("xid_gpu_index") or {}).items():
        assert [x.gpu_index for x in report.xids if x.code == code] == [index]
    if "acceptance" in meta:
        got = {row.check: row.status for row in report.acceptance or []}
        for check, status in meta["acceptance"].items():
            assert got.get(check) == status, (check, got)
    # every finding carries bilingual text and quoted evidence or an action
    for f in report.findings:
        assert f.title.zh and f.title.en
        assert f.actions or f.severity in ("ok", "info")
    assert report.next_action.zh and report.next_action.en


# ------------------------------------------------------------------ Xid catalog


def test_catalog_has_every_code_with_source_and_both_languages() -> None:
    cat = catalog()
    assert sorted(cat) == list(range(1, 173))  # NVIDIA's catalog lists codes 1–172 (generated 2025-10-29)
    for _code, row in cat.items():
        assert row["source"] and row["as_of"]
        assert row["name"]["zh"] and row["name"]["en"]
        assert row["immediate_action"]["zh"] and row["investigatory_action"]["en"]
        assert row["severity"] in SEVERITY_RANK and row["category"]


@pytest.mark.parametrize(
    "code,immediate,investigatory",
    [
        # values as published in NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html)
        (13, "RESTART_APP", "WORKFLOW_XID_13"),
        (48, "WORKFLOW_XID_48", "WORKFLOW_XID_48"),
        (63, "IGNORE", "IGNORE"),
        (74, "WORKFLOW_NVLINK_ERR", "CONTACT_SUPPORT"),
        (79, "RESTART_BM", "CONTACT_SUPPORT"),
        (95, "RESET_GPU", "IGNORE (sympathetic)"),
        (119, "RESET_GPU", "INVESTIGATE_SW"),
        (154, "XID_154", "N/A Informational only regarding another Xid"),
    ],
)
def test_catalog_actions_match_nvidia(code: int, immediate: str, investigatory: str) -> None:
    e = entry(code)
    assert e["immediate_action"]["bucket"] == immediate and e["investigatory_action"]["bucket"] == investigatory


def test_catalog_records_disagreements() -> None:
    for code in (1, 13, 45, 61, 63, 94, 109):
        assert entry(code).get("disagreements"), code
    assert "Unused" in entry(61)["name"]["en"] and "gpud" in entry(61)["disagreements"][0]["en"]


def test_critical_hardware_xids_and_app_xids() -> None:
    for code in (48, 64, 74, 79, 95, 119, 120, 140):
        assert entry(code)["severity"] == "critical", code
    for code in (13, 31, 43, 45):
        assert entry(code)["severity"] in ("info", "warning"), code


# ------------------------------------------------------------------ renter actions and tickets


def test_xid79_maps_to_gpu_index_and_ticket_has_everything() -> None:
    text = (SAMPLES / "mixed_zh_crlf_ansi_smi_xid79.txt").read_text(encoding="utf-8")
    r = diagnose_text(text)
    f = next(x for x in r.findings if x.id == "xid_79")
    assert (f.gpu_index, f.bus_id) == (2, "0000:48:00")  # bus 48:00 is row 2 of the pasted table
    first = f.actions[0]
    # four GPUs in the table: the others are 0,1,3, numbered as nvidia-smi numbers them (PCI_BUS_ID)
    assert "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1,3" in first.en
    assert "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1,3" in first.zh
    ticket = next(a for a in f.actions if a.en.startswith("Open a ticket"))
    for needle in ("GPU index 2", "PCI bus id 0000:48:00", "nvidia-bug-report.sh", "UUID"):
        assert needle in ticket.en
    # the next action leads with the verdict and carries the ticket (GPU index, PCI address)
    assert r.verdict == "move_machine" and r.next_action.en.startswith("Move machine")
    assert r.next_action.zh.startswith("换机器")
    assert "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1,3" in r.next_action.en
    assert "GPU index 2" in r.next_action.en and "0000:48:00" in r.next_action.en
    assert r.incidents[0].ticket is not None and "nvidia-bug-report.sh" in r.incidents[0].ticket.en


def test_ticket_uses_uuid_from_kernel_log_and_host_from_journal() -> None:
    r = diagnose_text((SAMPLES / "dmesg_xid79_after_aer_surprise_down.txt").read_text(encoding="utf-8"))
    ticket = next(a for f in r.findings if f.id == "xid_79" for a in f.actions if a.en.startswith("Open a ticket"))
    assert "GPU-26fba6b2-9e52-006e-68db-4ce18382a5ea" in ticket.en
    j = diagnose_text("Mar 04 09:12:02 gpu-jn-03 kernel: NVRM: Xid (PCI:0000:b3:00): 48, pid=9, name=python, DBE\n")
    assert "node gpu-jn-03" in next(a for a in j.findings[0].actions if a.en.startswith("Open a ticket")).en


def test_xid45_alone_is_sympathetic_only_with_a_cause() -> None:
    alone = diagnose_text("NVRM: Xid (PCI:0000:dc:00): 45, pid=1, name=python3, Ch 00000001\n")
    assert alone.findings[0].severity == "info"  # catalog: Preemptive cleanup; IGNORE when not solo
    with_cause = diagnose_text(
        "NVRM: Xid (PCI:0000:dc:00): 31, pid=1, name=python3, MMU Fault\n"
        "NVRM: Xid (PCI:0000:dc:00): 45, pid=1, name=python3, Ch 00000001\n"
    )
    f45 = next(f for f in with_cause.findings if f.id == "xid_45")
    assert "31" in f45.title.en and f45.severity == "info"


def test_xid13_repeating_on_one_gpu_across_jobs_escalates() -> None:
    lines = "".join(
        f"NVRM: Xid (PCI:0000:4c:00): 13, pid={pid}, name=python, Graphics SM Warp Exception\n" for pid in (11, 22, 33)
    )
    assert next(f for f in diagnose_text(lines).findings if f.id == "xid_13").severity == "critical"


def test_nvlink5_severity_follows_the_line() -> None:
    fatal = diagnose_text("NVRM: Xid (PCI:0000:dc:00): 149, pid=1, name=p, NETIR_LINK_EVT Fatal XC0 i0 Link 07 (0x0)\n")
    nonfatal = diagnose_text(
        "NVRM: Xid (PCI:0000:dc:00): 149, pid=1, name=p, NETIR_BER_EVENT Nonfatal XC0 i0 Link 07 (0x0)\n"
    )
    assert fatal.severity == "critical" and nonfatal.severity == "warning"


# ------------------------------------------------------------------ versions

HEADER_535 = "| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |\n"
HEADER_470 = "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"


def _ids(text: str) -> list[str]:
    return [f.id for f in diagnose_text(text).findings]


def test_driver_cuda_fit() -> None:
    # cu121 on a driver whose maximum is 12.2: fine
    assert _ids(HEADER_535 + "torch_check: version=2.3.1+cu121 cuda=12.1 available=True device_count=8") == []
    # cu124 on 12.2 (driver 535 ≥ 525): minor-version compatibility, informational
    assert _ids(HEADER_535 + "torch_check: version=2.4.1+cu124 cuda=12.4 available=True device_count=8") == [
        "torch_cuda_minor_compat"
    ]
    # cu121 on driver 470 (max 11.4): 12.x needs ≥ 525
    assert "torch_cuda_newer_than_driver" in _ids(
        HEADER_470 + "torch_check: version=2.3.1+cu121 cuda=12.1 available=True device_count=1"
    )
    # cu118 on driver 470: fine (11.x needs ≥ 450.80.02)
    assert _ids(HEADER_470 + "torch_check: version=2.1.2+cu118 cuda=11.8 available=True device_count=1") == [
        "torch_cuda_minor_compat"
    ]


def test_found_version_decodes_to_cuda() -> None:
    r = diagnose_text("RuntimeError: The NVIDIA driver on your system is too old (found version 12020).")
    f = next(x for x in r.findings if x.id == "driver_too_old")
    assert "12.2" in f.title.en  # 12020 = 12.2 (CUDA encodes major*1000 + minor*10)


# ------------------------------------------------------------------ bandwidth


def test_expected_busbw_for_a100_is_in_the_published_range() -> None:
    ref = expected_busbw("NVIDIA A100-SXM4-80GB", 8, "nvlink")
    # ml-engineering: 8×A100 SXM all-reduce ≈ 235 GB/s, ~80% of NVLink3's 300 GB/s per direction
    assert ref is not None and 200 <= ref.mid_gbs <= 240 and ref.flag_below_gbs <= 120
    assert expected_busbw("Some Unknown Card", 8, "nvlink") is None


def test_low_busbw_flags_nvlink_not_used() -> None:
    r = diagnose_text((SAMPLES / "nccl_tests_8xa100_nvlink_not_used.txt").read_text(encoding="utf-8"))
    f = next(x for x in r.findings if x.id == "busbw_low")
    assert "19.6" in f.title.en
    assert any("fabricmanager" in a.en for a in f.actions)


def test_plateau_finding_mentions_average_is_misleading() -> None:
    r = diagnose_text((SAMPLES / "nccl_tests_8xa100_good.txt").read_text(encoding="utf-8"))
    f = next(x for x in r.findings if x.id == "nccl_tests_plateau")
    assert "231.4" in f.title.en and "70.7" in f.title.en and "Avg bus bandwidth" in f.title.en


# ------------------------------------------------------------------ utilisation patterns (thresholds by hand)


def _row(util: int, power: int, used: int, total: int = 81920, cap: int = 400) -> str:
    return (
        HEADER_535 + "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |\n"
        f"| N/A   40C    P0           {power:>3}W / {cap}W |  {used:>6}MiB / {total}MiB |   {util:>3}%      Default |\n"
        "|                                         |                      |             Disabled |\n"
    )


@pytest.mark.parametrize(
    "util,power,used,expected",
    [
        (100, 100, 70000, "gpu_hang_suspected"),  # 100 W ≤ 25% of 400 W
        (100, 101, 70000, None),  # just above 25%
        (0, 60, 73800, "memory_full_idle"),  # 73800 ≥ 0.9 × 81920 = 73728
        (0, 60, 73700, None),
        (35, 180, 40000, "input_bound_suspected"),  # 25% < 45% ≤ 60% of the cap, util ≤ 60%
        (35, 260, 40000, None),  # 65% of the cap: not "mid power"
    ],
)
def test_utilisation_patterns(util: int, power: int, used: int, expected: str | None) -> None:
    ids = _ids(_row(util, power, used))
    patterns = {"gpu_hang_suspected", "memory_full_idle", "input_bound_suspected"}
    assert [i for i in ids if i in patterns] == ([expected] if expected else [])


def test_low_util_with_idle_disks_points_at_cpu_side() -> None:
    text = _row(35, 180, 40000) + (SAMPLES / "iostat_new_columns_idle.txt").read_text(encoding="utf-8")
    ids = _ids(text)
    assert "input_bound_suspected" in ids and "disk_not_bottleneck" in ids


def test_severity_is_the_worst_finding_and_ok_when_clean() -> None:
    r = diagnose_text((SAMPLES / "smi_535_8xa100_idle.txt").read_text(encoding="utf-8"))
    assert r.severity == "ok" and r.findings == []
    r = diagnose_text((SAMPLES / "dmesg_xid48_94_95_ecc.txt").read_text(encoding="utf-8"))
    assert r.severity == "critical" and r.findings[0].severity == "critical"


def test_nvlink5_decode_sheet() -> None:
    from tools.diagnosis.nvlink5 import decode

    # 0x0409a0c2: bits 25–20 = 0, low 10 bits = 0b0011000010 → the RLW_RXPIPE pattern; status 0x8 → Non-fatal, IGNORE → CONTACT_SUPPORT
    row = decode(145, "RLW_RXPIPE", "RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000000)")
    assert (row["severity"], row["resolution"], row["investigatory"]) == ("Non-fatal", "IGNORE", "CONTACT_SUPPORT")
    # 0x004505c6: bits 25–20 = 0b000100, low bits 0b0111000110 → NETIR_LINK_EVT, status 0 → Link Fatal, RESET_GPU
    row = decode(149, "NETIR_LINK_EVT", "NETIR_LINK_EVT Fatal XC0 i0 Link 07 (0x004505c6 0x00000000 0x0)")
    assert (row["severity"], row["resolution"]) == ("Link Fatal", "RESET_GPU")
    assert decode(145, "RLW_RXPIPE", "RLW_RXPIPE (0x0409a0c2 0x00000400)") is None  # no such status in the sheet
    r = diagnose_text(
        "NVRM: Xid (PCI:0000:dc:00): 149, pid=1, name=p, NETIR_LINK_EVT Fatal XC0 i0 Link 07 (0x004505c6 0x00000000 0x0)\n"
    )
    assert r.severity == "critical" and any("XID 144-150 Decode" in c.en for c in r.findings[0].causes)


def test_without_a_table_the_next_step_names_the_bus_id_but_never_excludes_blindly() -> None:
    # One kernel line: the paste does not show how many GPUs the box has, so "exclude it with
    # CUDA_VISIBLE_DEVICES" could leave nothing — the next step is move machine + the ticket.
    r = diagnose_text(
        "[ 8123.456789] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    )
    first = r.next_action
    assert "0000:3b:00" in first.en and "0000:3b:00" in first.zh
    assert "CUDA_VISIBLE_DEVICES" not in first.en and "CUDA_VISIBLE_DEVICES" not in first.zh
    assert r.verdict == "move_machine" and "nvidia-bug-report.sh" in first.en
