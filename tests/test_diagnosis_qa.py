"""New-user QA findings on `diagnose` (2026-11-30): each test states the value a person expects.

5. inventory parts the paste did not show are hidden, not printed as "0 × ?" / "≤ ?";
6. evidence quotes only the log part of a line the user started with a sentence;
7. Chinese typography: no space next to full-width punctuation in any zh text;
8. a GPU count servers do not ship with, or nvidia-smi views that disagree → warning;
9. memory full at 0% with processes listed → stalled job; all_reduce_perf without #wrong.
"""

from __future__ import annotations

import glob
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tools.diagnosis.tool import diagnose_text

SAMPLES = Path(__file__).parent / "diagnosis_samples"
CLI = [sys.executable, "-m", "assistant.cli"]


def ids(report) -> list[str]:  # noqa: ANN001
    return [f.id for f in report.findings]


# ------------------------------------------------------------------ 5. inventory line


def test_cli_hides_inventory_parts_not_detected() -> None:
    out = subprocess.run([*CLI, "diagnose", str(SAMPLES / "dcgmi_r2_pass.txt")], capture_output=True, timeout=60)
    text = out.stdout.decode()
    assert out.returncode == 0, out.stderr.decode()
    # the dcgmi paste names the driver (535.129.03) but lists no GPU table and no CUDA version
    assert "535.129.03" in text
    assert "?" not in text.splitlines()[1] and "GPU: 0" not in text and "CUDA ≤" not in text


def test_inventory_line_shows_what_was_detected() -> None:
    from assistant.commands.diagnose import _inventory_line
    from tools.diagnosis.findings import GpuInfo, Inventory

    assert _inventory_line(Inventory()) == ""
    assert _inventory_line(Inventory(driver_version="535.129.03")) == "驱动 / driver 535.129.03"
    two = Inventory(gpus=[GpuInfo(index=0), GpuInfo(index=1)], cuda_version="12.2")
    assert _inventory_line(two) == "GPU: 2   CUDA ≤ 12.2"  # no names known: no "× ?"


# ------------------------------------------------------------------ 6. evidence without the user's sentence

XID79 = "[Tue Nov 25 10:02:11 2025] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus."


def test_evidence_drops_the_sentence_in_front_of_the_log() -> None:
    report = diagnose_text(f"帮我看看这个报错 {XID79}\n")
    finding = next(f for f in report.findings if f.id == "xid_79")
    assert finding.evidence == [XID79]
    assert report.xids[0].text == XID79


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "还有这个：[  123.456789] NVRM: Xid (PCI:0000:5e:00): 13, pid=99, Graphics SM Warp Exception",
            "[  123.456789] NVRM: Xid (PCI:0000:5e:00): 13, pid=99, Graphics SM Warp Exception",
        ),
        (
            "训练报错 RuntimeError: CUDA error: an illegal memory access was encountered",
            "RuntimeError: CUDA error: an illegal memory access was encountered",
        ),
        (
            "日志：Nov 30 10:00:01 node1 kernel: NVRM: Xid (PCI:0000:5e:00): 13, pid=99",
            "Nov 30 10:00:01 node1 kernel: NVRM: Xid (PCI:0000:5e:00): 13, pid=99",
        ),
        # a journalctl line in a zh_CN locale is all log: its Chinese month stays
        (
            "11月 30 10:00:01 node1 kernel: NVRM: Xid (PCI:0000:5e:00): 13, pid=99",
            "11月 30 10:00:01 node1 kernel: NVRM: Xid (PCI:0000:5e:00): 13, pid=99",
        ),
        # no Chinese before the log: quoted whole
        ("node1 kernel: NVRM: Xid (PCI:0000:5e:00): 13", "node1 kernel: NVRM: Xid (PCI:0000:5e:00): 13"),
    ],
)
def test_log_part(line: str, expected: str) -> None:
    from tools.diagnosis.text import log_part

    assert log_part(line) == expected


# ------------------------------------------------------------------ 7. Chinese typography

_BAD_SPACE = re.compile(r"[ \t][（）【】「」《》，。；：！？、]|[（）【】「」《》，。；：！？、][ \t]")


def _zh_texts(report) -> list[str]:  # noqa: ANN001
    texts = [report.next_action.zh]
    for f in report.findings:
        texts += [f.title.zh, *(c.zh for c in f.causes), *(a.zh for a in f.actions)]
    texts += [x.name.zh for x in report.xids if x.name]
    texts += [r.note.zh for r in report.acceptance or [] if r.note]
    return texts


def test_no_space_next_to_full_width_punctuation_in_any_sample() -> None:
    offenders = []
    for txt in sorted(glob.glob(str(SAMPLES / "*.txt"))):
        meta_path = Path(txt).with_suffix(".yaml")
        meta = yaml.safe_load(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
        report = diagnose_text(Path(txt).read_bytes(), (meta or {}).get("expect"))
        offenders += [(Path(txt).name, t) for t in _zh_texts(report) if _BAD_SPACE.search(t)]
    assert offenders == []


def test_ticket_placeholders_sit_tight_against_the_label() -> None:
    # an AER fatal line names no GPU index, node or UUID: the ticket shows placeholders for them
    report = diagnose_text(
        "[  812.004211] pcieport 0000:00:03.0: AER: Uncorrected (Fatal) error received: 0000:00:03.0\n"
    )
    ticket = next(a.zh for f in report.findings for a in f.actions if a.zh.startswith("给服务商开工单"))
    assert "写明节点（主机名 hostname），GPU 序号（nvidia-smi 左列的编号），UUID（nvidia-smi -L 查看）" in ticket


def test_zh_typography_helper() -> None:
    from tools.diagnosis.findings import Text, zh_typography

    assert zh_typography("节点 （主机名） ，GPU 1 ") == "节点（主机名），GPU 1 "
    assert Text(zh="GPU 1（PCI 0000:c8:00） PCIe 降级", en="x").zh == "GPU 1（PCI 0000:c8:00）PCIe 降级"
    assert zh_typography("A100 80GB 8 卡") == "A100 80GB 8 卡"  # half-width spacing is left alone


# ------------------------------------------------------------------ 8. GPU count


def test_seven_gpus_without_expect_is_a_warning_with_next_action() -> None:
    report = diagnose_text((SAMPLES / "checklist_output_a800_instead_of_a100.txt").read_bytes())
    f = next(f for f in report.findings if f.id == "gpu_count_unusual")
    assert f.severity == "warning" and report.severity == "warning"
    assert f.title.en == "GPU count 7 — servers ship with 1/2/4/8; a card may be missing or dropped"
    assert f.title.zh.startswith("GPU 数量为 7")
    assert "nvidia-smi -L" in report.next_action.en and "lspci" in report.next_action.zh


@pytest.mark.parametrize(
    "sample", ["checklist_output_8xa100_pass.txt", "smi_535_8xa100_idle.txt", "smi_535_memfull_idle.txt"]
)
def test_shipped_counts_raise_nothing(sample: str) -> None:  # 8 and 2 GPUs
    found = ids(diagnose_text((SAMPLES / sample).read_bytes()))
    assert "gpu_count_unusual" not in found and "gpu_count_inconsistent" not in found


def test_smi_list_and_table_disagree() -> None:
    table = (SAMPLES / "smi_535_memfull_idle.txt").read_text(encoding="utf-8")  # 2 GPUs in the table
    listing = "\n".join(
        f"GPU {i}: NVIDIA A100-SXM4-80GB (UUID: GPU-1b2c3d4e-0000-0000-0000-00000000000{i})" for i in range(3)
    )
    report = diagnose_text(listing + "\n" + table)
    f = next(f for f in report.findings if f.id == "gpu_count_inconsistent")
    assert f.severity == "warning" and "nvidia-smi -L: 3 GPUs" in f.evidence and "nvidia-smi: 2 GPUs" in f.evidence


def test_lspci_shows_more_gpus_than_smi_list() -> None:
    lspci = (SAMPLES / "lspci_nn_8xa100_nvswitch_gpud.txt").read_text(encoding="utf-8")  # 8 GPUs, 6 NVSwitch bridges
    listing = "\n".join(
        f"GPU {i}: NVIDIA A100-SXM4-80GB (UUID: GPU-1b2c3d4e-0000-0000-0000-00000000000{i})" for i in range(7)
    )
    report = diagnose_text(listing + "\n" + lspci)
    f = next(f for f in report.findings if f.id == "gpu_count_mismatch")
    assert f.severity == "critical" and f.title.en == "8 NVIDIA GPUs on PCIe but nvidia-smi sees 7"
    assert "gpu_count_unusual" not in ids(report)  # the more specific finding explains it


# ------------------------------------------------------------------ 9. stalled job, nccl-tests without #wrong


def test_processes_holding_full_memory_at_zero_util_is_a_stalled_job() -> None:
    report = diagnose_text((SAMPLES / "smi_535_memfull_idle.txt").read_bytes())
    f = next(f for f in report.findings if f.id == "stalled_job_suspected")
    assert f.severity == "warning" and "stalled" in f.title.en and "GPU 0, 1" in f.title.en
    assert any("48211" in line for line in f.evidence)  # the process row is quoted
    assert "py-spy dump" in f.actions[0].en and "48211 48212" in f.actions[0].en


def test_ranks_from_busbw_over_algbw() -> None:
    from tools.diagnosis.parsers.nccl_tests import NcclTestRun, Row

    # PERFORMANCE.md: busbw = algbw × 2(n−1)/n. 8 ranks → ratio 1.75; 4 ranks → 1.5; 2 ranks → 1.0
    for n, ratio in ((8, 1.75), (4, 1.5), (2, 1.0)):
        run = NcclTestRun(op="all_reduce", rows=[Row(2**30, 100.0 * ratio, None, 0, "", True, 100.0)])
        assert run.ranks_from_bandwidth() == n
    odd = NcclTestRun(op="all_reduce", rows=[Row(2**30, 160.0, None, 0, "", True, 100.0)])  # n = 2/0.4 = 5.0
    assert odd.ranks_from_bandwidth() == 5
    assert (
        NcclTestRun(op="all_gather", rows=[Row(2**30, 175.0, None, 0, "", True, 100.0)]).ranks_from_bandwidth() is None
    )


def test_rows_without_wrong_column_are_read_and_flagged_unchecked() -> None:
    report = diagnose_text((SAMPLES / "nccl_tests_rows_no_wrong_column.txt").read_bytes())
    plateau = next(f for f in report.findings if f.id == "nccl_tests_plateau")
    # plateau = the 1 GiB row: 1073741824 B / 8145.3 µs = 131.82 GB/s algbw × 1.75 = 230.69 GB/s busbw
    assert "230.7 GB/s (8 ranks)" in plateau.title.en
    assert "nccl_tests_not_validated" in ids(report) and "nccl_tests_wrong" not in ids(report)
