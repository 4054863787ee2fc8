"""Diagnosis on real public pastes and the issue-14 behaviours (taxonomies, policy, incidents, --expect).

Expected values come from the documents/threads named in each sample's `derivation` and from
arithmetic written out here, never from the code's own output.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from evals.diagnosis_eval import CHECKS, ROOT, load, score
from tools.diagnosis.detect import INPUTS, detect_kinds, is_paste, paste_kinds
from tools.diagnosis.parsers.torch_errors import parse as parse_torch
from tools.diagnosis.rules.versions import classify_oom
from tools.diagnosis.tool import diagnose_text

DEV = load("dev")


# ------------------------------------------------------------------ the sample set itself


def test_real_sample_set_meets_the_issue_bar() -> None:
    rows = [e for sl in ("dev", "blind") for _n, _t, e in load(sl)]
    assert len(rows) >= 80
    assert sum(e["lang"] == "zh" for e in rows) >= 15
    assert sum(e["severity"] == "ok" for e in rows) >= 8
    for e in rows:
        assert e["source"].startswith("https://"), e
        assert e["derivation"] and e["verdict"] and e["root_cause"]


def test_blind_slice_is_the_fixed_sha1_rule_and_at_least_a_fifth() -> None:
    dev = {n for n, _t, _e in load("dev")}
    blind = {n for n, _t, _e in load("blind")}
    assert not dev & blind
    for n in dev | blind:
        in_blind = int(hashlib.sha1(n.encode()).hexdigest(), 16) % 4 == 0  # noqa: S324 — a slice rule, not security
        assert in_blind == (n in blind), n
    assert len(blind) / (len(dev) + len(blind)) >= 0.20
    for d in ("dev", "blind"):
        texts = {p.stem for p in (ROOT / d).glob("*.txt")}
        assert texts == set(yaml.safe_load((ROOT / d / "expectations.yaml").read_text(encoding="utf-8")))


@pytest.mark.parametrize(("name", "text", "exp"), DEV, ids=[n for n, _t, _e in DEV])
def test_dev_sample_kinds_severity_root_cause_and_next_action(name: str, text: str, exp: dict) -> None:
    s = score(name, "dev", text, exp)
    bad = {c: s.why[c] for c in CHECKS if not s.checks[c]}
    assert not bad, bad


# ------------------------------------------------------------------ detect: one public source of "is this a paste"


def test_detect_public_api_separates_questions_from_pastes() -> None:
    assert paste_kinds("CUDA out of memory 一般有哪些原因？") == []  # a question about an error
    assert not is_paste("NCCL 超时怎么办？")
    docker = 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].'
    assert paste_kinds(docker) == ["container_runtime"] and is_paste(docker)
    assert "narrative" in paste_kinds("训练跑着跑着掉卡了，nvidia-smi 看不到一张卡")
    assert detect_kinds("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.") == ["kernel_log"]


def test_unrecognised_paste_is_unknown_and_says_what_it_reads() -> None:
    r = diagnose_text("hello, here is my config file\nfoo = bar\n")
    assert (r.severity, r.verdict, r.kinds) == ("unknown", "need_more_input", [])
    for _zh, en in INPUTS:
        assert en in r.next_action.en


# ------------------------------------------------------------------ OOM taxonomy (PyTorch's own message)


def _oom(line: str):
    t = parse_torch([line])
    assert t is not None and t.ooms
    return t.ooms[0]


def test_oom_other_process_sums_the_listed_processes() -> None:
    # RLinf#255: 0.41 GiB + 14.85 GiB = 15.26 GiB of 23.64 GiB (65 %) belongs to other PIDs
    o = _oom(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 86.00 MiB. GPU 0 has a total capacity of "
        "23.64 GiB of which 264.00 MiB is free. Process 2086283 has 419.48 MiB memory in use. Including non-PyTorch "
        "memory, this process has 8.04 GiB memory in use. Process 2797307 has 14.85 GiB memory in use. Of the "
        "allocated memory 7.63 GiB is allocated by PyTorch, and 40.11 MiB is reserved by PyTorch but unallocated."
    )
    fid, others = classify_oom(o)
    assert fid == "oom_other_process" and abs(others - (419.48 / 1024 + 14.85)) < 0.01


def test_oom_in_a_container_lists_itself_and_is_not_another_process() -> None:
    # Mask2DiT#4: "Process 76883 has 53.16 GiB" ≈ 11.97 allocated + 40.69 cached = 52.66 GiB → this process;
    # 40.69 GiB cached ≥ the 35.60 GiB request → fragmentation
    o = _oom(
        "CUDA out of memory. Tried to allocate 35.60 GiB. GPU 0 has a total capacity of 79.33 GiB of which 26.16 GiB "
        "is free. Process 76883 has 53.16 GiB memory in use. Of the allocated memory 11.97 GiB is allocated by "
        "PyTorch, and 40.69 GiB is reserved by PyTorch but unallocated."
    )
    assert classify_oom(o)[0] == "oom_fragmentation"
    r = diagnose_text(o.line)
    assert r.findings[0].id == "oom_fragmentation" and "expandable_segments:True" in r.next_action.en


def test_oom_legacy_format_uses_total_minus_reserved_minus_free() -> None:
    # yolov3#4 (old "cached" format): 3.95 − (1.62 + 0.009) − 0.022 ≈ 2.30 GiB outside PyTorch ≥ 20 % of 3.95
    o = _oom(
        "RuntimeError: CUDA out of memory. Tried to allocate 338.00 MiB (GPU 0; 3.95 GiB total capacity; "
        "1.62 GiB already allocated; 23.00 MiB free; 9.10 MiB cached)"
    )
    fid, others = classify_oom(o)
    assert fid == "oom_other_process" and abs(others - (3.95 - 1.62 - 9.10 / 1024 - 23 / 1024)) < 0.01
    # UPop#28: 31.75 − 30.27 − 0.11 = 1.37 GiB elsewhere (4 %), cached 0.49 GiB < 3 % of the card → too big
    o = _oom(
        "RuntimeError: CUDA out of memory. Tried to allocate 290.00 MiB (GPU 0; 31.75 GiB total capacity; "
        "29.78 GiB already allocated; 113.50 MiB free; 30.27 GiB reserved in total by PyTorch)"
    )
    assert classify_oom(o)[0] == "oom_exceeds_capacity"


# ------------------------------------------------------------------ NCCL taxonomy


def _nccl(lines: list[str]):
    return diagnose_text("\n".join(lines) + "\n")


def test_nccl_first_collective_vs_later_collective() -> None:
    w = (
        "[rank0]:[E1 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum={n}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600013 "
        "milliseconds before timing out."
    )
    first = _nccl([w.format(n=1)])
    later = _nccl([w.format(n=4821)])
    assert first.findings[0].id == "nccl_timeout_first" and "NCCL_DEBUG=INFO" in first.next_action.en
    assert later.findings[0].id == "nccl_timeout_later" and "py-spy" in later.next_action.en


def test_nccl_docker_bridge_bootstrap_names_the_routable_interface() -> None:
    r = _nccl(
        [
            "node1:11:11 [0] NCCL INFO Bootstrap : Using [0]docker0:172.17.0.1<0> [1]eth0:10.0.0.5<0>",
            "node1:11:20 [0] NCCL INFO Call to connect returned Connection refused, retrying",
        ]
    )
    assert r.findings[0].id == "nccl_bootstrap_iface" and r.verdict == "fix_setup"
    assert "NCCL_SOCKET_IFNAME=eth0" in r.next_action.en


def test_nccl_shm_and_gpu_oom_get_their_own_actions() -> None:
    shm = _nccl(["h:1:2 [0] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device"])
    assert shm.findings[0].id == "nccl_shm_too_small" and "--shm-size" in shm.next_action.en
    oom = _nccl(["h:1:2 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'"])
    assert oom.findings[0].id == "nccl_gpu_oom" and "--shm-size" not in oom.next_action.en


# ------------------------------------------------------------------ severity policy, incidents, verdicts


def test_blocking_software_error_is_warning_not_critical() -> None:
    r = diagnose_text(
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 802: system not yet initialized\n"
    )
    assert (r.severity, r.verdict, r.findings[0].id) == ("warning", "fix_setup", "fabric_manager_not_running")


def test_xid45_burst_then_hung_task_is_one_critical_incident() -> None:
    r = diagnose_text(
        "[Sat Oct 12 18:35:32 2024] NVRM: Xid (PCI:0000:61:00): 45, pid=1496200, name=p, Ch 0000000a\n"
        "[Sat Oct 12 18:38:44 2024] INFO: task cache_mgr_event:620917 blocked for more than 120 seconds.\n"
        "[Sat Oct 12 18:38:44 2024] task:cache_mgr_event state:D stack:    0 pid:620917 ppid:620571\n"
    )
    assert r.severity == "critical" and r.verdict == "ask_provider"
    assert r.incidents[0].id == "hung_task_gpu_driver" and "xid_45" in r.incidents[0].finding_ids
    assert "reboot" in r.next_action.en


def test_aer_on_the_upstream_port_and_xid79_below_it_are_one_incident_with_a_full_ticket() -> None:
    name, text, _e = next(x for x in DEV if x[0] == "xid79_after_surprise_down_gpuburn_1")
    r = diagnose_text(text)
    top = r.incidents[0]
    assert top.id == "xid_79" and "pcie_aer_fatal" in top.finding_ids and len(r.incidents) == 1
    assert top.ticket is not None
    for needle in ("0322716036227", "GPU-660d987e-5b28-3bf6-2a2d-1d5ecae7f6df", "0000:02:00", "nvidia-bug-report.sh"):
        assert needle in top.ticket.en, needle


def test_exclusion_only_with_several_gpus_and_always_in_pci_bus_order() -> None:
    one = diagnose_text("NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n")
    assert "CUDA_VISIBLE_DEVICES" not in one.next_action.en + one.next_action.zh
    table = (Path(__file__).parent / "diagnosis_samples" / "mixed_zh_crlf_ansi_smi_xid79.txt").read_text(
        encoding="utf-8"
    )
    many = diagnose_text(table)
    assert "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=" in many.next_action.en


# ------------------------------------------------------------------ new input families


def test_lspci_width_loss_is_a_warning_but_idle_speed_downshift_is_info() -> None:
    narrow = diagnose_text(
        "3b:00.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 80GB] (rev a1)\n"
        "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\n"
        "\t\tLnkSta:\tSpeed 16GT/s (ok), Width x8 (downgraded)\n"
    )
    assert (narrow.findings[0].id, narrow.severity, narrow.verdict) == (
        "pcie_width_degraded",
        "warning",
        "ask_provider",
    )
    idle = diagnose_text(
        "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1\n\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16 (ok)\n"
    )
    assert (idle.findings[0].id, idle.severity) == ("pcie_speed_idle_downshift", "info")


def test_ib_write_bw_below_the_port_rate_is_flagged() -> None:
    # 96 Gb/s on a 200 Gb/s HDR port is 48 % of line rate (< 70 %)
    r = diagnose_text(
        "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 200\n"
        " Device         : mlx5_0\n"
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
        " 65536      10000            97.10              96.02               0.183\n"
    )
    assert r.findings[0].id == "ib_bandwidth_low" and "48%" in r.findings[0].title.en


def test_dmon_hot_gpu_with_low_sm_is_one_throttling_story() -> None:
    r = diagnose_text(
        "# gpu   pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
        "# Idx     W      C      C      %      %      %      %    MHz    MHz\n"
        "    0   180     89      -     12      5      0      0   1593    900\n"
        "    0   175     90      -     10      4      0      0   1593    885\n"
    )
    assert r.kinds == ["nvidia_smi_dmon"] and r.findings[0].id == "gpu_hot" and len(r.incidents) == 1
    assert "throttling" in r.findings[0].title.en and r.verdict == "ask_provider"


def test_expect_feeds_the_busbw_reference_for_a_headerless_table() -> None:
    # all_reduce_perf rows without a header: 36 GB/s busbw; 8× A100 SXM (NVLink3) is expected near 230 GB/s
    rows = "\n".join(
        f"  {s:>12}  {s // 4:>12}     float     sum      -1   {t:>8}   {s / t / 1e3:6.2f}   36.00      0   {t:>8}   {s / t / 1e3:6.2f}   36.00      0"
        for s, t in ((268435456, 13049.0), (536870912, 26098.0), (1073741824, 52196.0))
    )
    head = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    plain = diagnose_text(head + rows + "\n")
    rented = diagnose_text(head + rows + "\n", "8x A100-SXM4-80GB")
    assert "busbw_low" not in [f.id for f in plain.findings]  # no GPU named: no reference to compare against
    low = next(f for f in rented.findings if f.id == "busbw_low")
    assert "36.0 GB/s" in low.title.en
    bw = next(r for r in rented.acceptance or [] if r.check == "bandwidth")
    assert bw.status == "fail"


def test_throttle_reasons_and_temperature_on_one_gpu_are_one_incident() -> None:
    # HW slowdown + SW thermal + near the slowdown temperature: one heat story, one action (cooling)
    text = (Path(__file__).parent / "diagnosis_samples" / "q_fragment_temperature_throttle.txt").read_text(
        encoding="utf-8"
    )
    r = diagnose_text(text)
    assert len(r.incidents) == 1 and r.verdict == "ask_provider"
    assert {"clocks_hw_slowdown", "clocks_sw_thermal"} <= set(r.incidents[0].finding_ids)


def test_ibv_devinfo_port_down_and_dcgmi_health_table() -> None:
    # ibv_devinfo(1) layout: hca_id / port: N / state: PORT_DOWN (1)
    r = diagnose_text(
        "hca_id:\tmlx5_2\n\ttransport:\t\t\tInfiniBand (0)\n\tphys_port_cnt:\t\t\t1\n"
        "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n\t\t\tlink_layer:\t\tInfiniBand\n"
    )
    assert r.findings[0].id == "ib_port_down" and "mlx5_2" in r.next_action.en
    # dcgmi health -c (DCGM user guide layout): PCIe replay warning is the provider's link problem
    h = diagnose_text(
        "+---------------------------+----------------------------------------------------------+\n"
        "| Health Monitor Report                                                                |\n"
        "+===========================+==========================================================+\n"
        "| Group 1                   | Overall Health: Warning                                  |\n"
        "| -> 0                      | Warning                                                  |\n"
        "|    -> PCIe system         | Warning - Detected more than 8 PCIe replays per minute   |\n"
    )
    assert h.kinds == ["dcgmi_health"] and h.findings[0].id == "dcgm_health_warn"
    assert (h.severity, h.verdict) == ("warning", "ask_provider")
    ok = diagnose_text("| Group 1                   | Overall Health: Healthy                                  |\n")
    assert ok.kinds == ["dcgmi_health"] and ok.severity == "ok"
