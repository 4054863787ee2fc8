"""Round 4 diagnosis classes, in our own phrasings (casual Chinese, typos, English forum style):

A. choosing the GPU on a shared box — the lead line is the exact command for the launcher in the paste
   (CUDA docs: CUDA_VISIBLE_DEVICES/CUDA_DEVICE_ORDER; Bash manual: an assignment on its own line is not exported;
   torchrun sets LOCAL_RANK itself; DeepSpeed docs: `--include localhost:1`);
B. host RAM faults — "Killed" / OOM killer / paging file are RAM, not GPU memory, with the sizes worked out by hand;
C. PCIe faults from IPMI SEL / dmesg — correctable alone = warning, fatal or a lost GPU after bus errors = critical
   (kernel PCIe AER guide; NVIDIA Xid catalog);
D. nccl-tests against the stated NIC speed — line rate = NICs × Gb/s ÷ 8 (hand arithmetic in each case).
"""

from __future__ import annotations

from assistant.offline import answer
from assistant.offline.reading.logs import paste_kinds
from tools.diagnosis.findings import DiagnosisReport
from tools.diagnosis.tool import diagnose_text


def _ids(text: str, question: str | None = None) -> tuple[list[str], DiagnosisReport]:
    rep = diagnose_text(text, None, None, None, question)
    return [f.id for f in rep.findings], rep


# ------------------------------------------------------------------ A. GPU selection


def test_bare_assignment_line_then_python_leads_with_same_line_command() -> None:
    paste = "0号卡被师兄占着\nCUDA_VISIBLE_DEVICES=1\npython train.py --bs 4\n结果还是跑到0号卡上了 咋整"
    ids, rep = _ids(paste)
    assert ids[0] == "gpu_selection_ineffective"
    assert rep.severity == "warning" and rep.verdict == "fix_setup"
    top = rep.findings[0]
    assert "`CUDA_VISIBLE_DEVICES=1 python train.py --bs 4`" in top.title.zh
    assert any("export" in c.zh for c in top.causes)  # why: not exported, the child never saw it


def test_deepspeed_with_the_variable_gets_include_and_loses_num_gpus() -> None:
    paste = "CUDA_VISIBLE_DEVICES=1 deepspeed --num_gpus=1 sft.py --deepspeed ds_z2.json\n还是用的第一张卡啊，求助"
    ids, rep = _ids(paste)
    title = rep.findings[0].title.zh
    assert "`deepspeed --include localhost:1 sft.py --deepspeed ds_z2.json`" in title
    assert "--num_gpus" not in title.split("`")[1]
    assert any("--include localhost:1" in c.zh for c in rep.findings[0].causes)


def test_torchrun_local_rank_is_dropped_and_explained() -> None:
    paste = (
        "想只用第三张卡训练\n"
        "CUDA_VISIBLE_DEVICES=2\n"
        "torchrun --nproc_per_node 1 finetune.py \\\n"
        "    --local-rank=2 \\\n"
        "    --lr 1e-4\n"
    )
    ids, rep = _ids(paste)
    title = rep.findings[0].title.en
    # 「第三张卡」 is index 2 (nvidia-smi counts from 0)
    assert "`CUDA_VISIBLE_DEVICES=2 torchrun --nproc_per_node 1 finetune.py --lr 1e-4`" in title
    assert any("LOCAL_RANK" in c.en for c in rep.findings[0].causes)


def test_os_environ_after_import_torch_in_english() -> None:
    paste = (
        "how do i train only on the second gpu?? tried this at the top of train.py:\n"
        "import torch\n"
        "import os\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = '1'\n"
        "but nvidia-smi still shows my job on gpu 0"
    )
    ids, rep = _ids(paste)
    assert ids[0] == "gpu_selection_ineffective"
    assert "CUDA_VISIBLE_DEVICES=1 python train.py" in rep.findings[0].title.en
    assert any("before import torch" in c.en for c in rep.findings[0].causes)


def test_accelerate_on_its_own_line() -> None:
    paste = "$ CUDA_VISIBLE_DEVICES=3\n$ accelerate launch train_lora.py --config cfg.yaml\n"
    _ids_, rep = _ids(paste)
    assert "`CUDA_VISIBLE_DEVICES=3 accelerate launch train_lora.py --config cfg.yaml`" in rep.findings[0].title.zh


def test_correct_same_line_selection_is_not_flagged() -> None:
    paste = (
        "CUDA_VISIBLE_DEVICES=1 python train.py\n"
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total "
        "capacity; 21.10 GiB already allocated; 1.02 GiB free; 21.50 GiB reserved in total by PyTorch)\n"
    )
    ids, _rep = _ids(paste)
    assert "gpu_selection_ineffective" not in ids


def test_planner_leads_with_the_command_for_a_casual_question() -> None:
    q = "服务器有2张卡 想指定第二张卡跑\nCUDA_VISIBLE_DEVICES=1\ntorchrun --standalone --nproc-per-node=1 main.py --local_rank 1\n这样不行 为啥"
    a, results = answer(q)
    assert any(r.name == "diagnose_logs" for r in results)
    first = a.text.splitlines()[0]
    assert "CUDA_VISIBLE_DEVICES=1 torchrun --standalone --nproc-per-node=1 main.py`" in first
    assert "local_rank" in a.text and "export" in a.text


# ------------------------------------------------------------------ B. host RAM


def test_killed_during_shards_is_host_ram_and_answers_the_memory_question() -> None:
    paste = (
        "Loading checkpoint shards:  40%|████      | 2/5 [00:03<00:05,  1.7s/it]Killed\n我是3090 24g 是不是显存不够啊？"
    )
    ids, rep = _ids(paste, "memory")
    assert ids == ["host_ram_oom_killed"] and rep.severity == "warning"
    assert rep.answer is not None
    assert rep.answer.answer == "no" and rep.answer.domain == "host_memory"  # not the GPU's memory
    assert "主机内存" in rep.findings[0].title.zh


def test_told_sizes_give_the_shortfall_and_the_ram_to_rent() -> None:
    # hand arithmetic: 120 GB of weights on 64 GB of RAM is 56 GB short; 120 × 1.1 = 132 GB → the 192 GB tier;
    # swap to reach it: 192 − 64 = 128 GB
    q = "4张4090，内存只有64G，模型权重 120GB，一启动就被系统OOM杀掉了，是不是内存不够？"
    assert "host_memory" in paste_kinds(q)
    ids, rep = _ids(q)
    f = rep.findings[0]
    assert f.id == "host_ram_oom_killed"
    assert "120 GB" in f.title.zh and "64 GB" in f.title.zh and "差 56 GB" in f.title.zh
    assert "192 GB" in f.actions[0].zh and "128 GB swap" in f.actions[0].zh


def test_dmesg_oom_line_gives_resident_size() -> None:
    # anon-rss 31451456 kB (KiB) × 1024 = 32,206,290,944 B = 32.2 GB = 30.0 GiB
    paste = (
        "[2059991.491542] Out of memory: Killed process 25315 (python3) total-vm:53312244kB, "
        "anon-rss:31451456kB, file-rss:74816kB, shmem-rss:12296kB, UID:0 pgtables:69068kB oom_score_adj:0"
    )
    ids, rep = _ids(paste)
    assert ids == ["host_ram_oom_killed"]
    assert "32.2 GB" in rep.findings[0].title.en and "30 GiB" in rep.findings[0].title.en


def test_windows_paging_file_in_english() -> None:
    paste = (
        "OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading "
        '"C:\\Users\\me\\venv\\lib\\site-packages\\torch\\lib\\cufft64_10.dll" or one of its dependencies.'
    )
    ids, rep = _ids(paste, "memory")
    assert ids == ["host_paging_file_small"]
    assert rep.answer is not None and rep.answer.domain == "host_memory"


def test_a_cuda_oom_is_not_called_host_ram() -> None:
    paste = (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total "
        "capacity; 14.90 GiB already allocated; 3.44 MiB free; 15.10 GiB reserved in total by PyTorch)"
    )
    ids, _rep = _ids(paste)
    assert "host_ram_oom_killed" not in ids


def test_planner_says_ram_not_vram_for_killed() -> None:
    q = (
        "单卡4090微调 跑到一半显示已杀死 显存不够吗\n"
        "Loading checkpoint shards:  71%|███████▏  | 5/7 [00:09<00:03,  1.90s/it]已杀死"
    )
    a, results = answer(q)
    assert any(r.name == "diagnose_logs" for r in results)
    assert "主机内存" in a.text.splitlines()[0]
    assert "swap" in a.text


# ------------------------------------------------------------------ C. PCIe / hardware

_SEL_CORR = "  1c | 11/02/2025 | 08:14:07 | Critical Interrupt #0x03 | Bus Correctable error | Asserted"


def test_sel_correctable_alone_is_a_warning_for_the_provider() -> None:
    ids, rep = _ids(_SEL_CORR)
    assert ids == ["sel_bus_correctable"]
    assert rep.severity == "warning" and rep.verdict == "ask_provider"


def test_sel_fatal_is_critical() -> None:
    ids, rep = _ids("  2 | 11/02/2025 | 08:15:00 | Critical Interrupt #0xa1 | Bus Fatal Error | Asserted")
    assert ids == ["sel_bus_uncorrectable"] and rep.severity == "critical"


def test_bus_errors_then_fallen_off_the_bus_is_one_critical_link_story() -> None:
    paste = (
        _SEL_CORR
        + "\n[Mon Nov  3 02:11:09 2025] NVRM: Xid (PCI:0000:41:00): 79, pid=2211, GPU has fallen off the bus.\n"
    )
    _ids_, rep = _ids(paste)
    assert rep.severity == "critical"
    inc = rep.incidents[0]
    assert "sel_bus_correctable" in inc.finding_ids  # joined, not two separate stories
    assert "riser" in rep.next_action.en and "another slot" in rep.next_action.en


def test_aer_corrected_alone_is_never_critical() -> None:
    one = (
        "[  512.1] pcieport 0000:00:03.1: AER: Corrected error received: 0000:00:03.1\n"
        "[  512.1] pcieport 0000:00:03.1: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)\n"
    )
    _ids_, rep = _ids(one)
    assert rep.severity in ("info", "warning") and rep.verdict != "move_machine"


def test_titan_keeps_disappearing_with_rminit_names_the_slot() -> None:
    q = (
        "我们机房一张 A6000 老是掉，重启才回来，驱动重装也没用。BMC 里有这个：\n"
        + _SEL_CORR
        + "\n[Tue Nov  4 09:00:01 2025] NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x25:0x40:1470)\n"
    )
    a, _results = answer(q)
    assert "riser" in a.text and "插槽" in a.text


# ------------------------------------------------------------------ D. nccl-tests vs the NIC


def test_ninety_percent_of_four_hdr_nics_is_fine() -> None:
    # 4 × 200 Gb/s = 800 Gb/s = 100 GB/s; 90 GB/s / 100 GB/s = 90 %
    ids, rep = _ids("两台机器每台 4张200G 的IB网卡，nccl-tests busbw 跑到 90 GB/s 正常吗")
    assert ids == ["busbw_near_line_rate"] and rep.severity == "info"
    assert "100 GB/s" in rep.findings[0].title.zh and "90%" in rep.findings[0].title.zh


def test_three_hundred_gbps_on_eight_400g_nics_is_low() -> None:
    # 8 × 400 Gb/s = 3200 Gb/s = 400 GB/s; measured 300 Gb/s = 37.5 GB/s → 37.5 / 400 = 9 %
    q = "each box got 8 x 400Gbps nic but all_reduce_perf busbw only 300Gbps, is this normal?"
    assert "line_rate" in paste_kinds(q)
    ids, rep = _ids(q)
    f = rep.findings[0]
    assert f.id == "busbw_below_line_rate" and rep.severity == "warning"
    assert "400 GB/s" in f.title.en and "37.5 GB/s" in f.title.en and "9%" in f.title.en


def test_ten_gig_ceiling_and_separate_jobs_in_a_header_only_paste() -> None:
    # 1 × 10 Gb/s ÷ 8 = 1.25 GB/s; both hosts print Rank 0 → two jobs
    paste = (
        "two servers one 4090 each, every node has a single 10G NIC. ran all_reduce_perf with mpirun:\n"
        "#  Rank  0 Group  0 Pid  4411 on   nodeA device  0 [0x01] NVIDIA GeForce RTX 4090\n"
        "#  Rank  0 Group  0 Pid  5120 on   nodeB device  0 [0x01] NVIDIA GeForce RTX 4090\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
    )
    ids, rep = _ids(paste)
    assert ids[0] == "nccl_tests_separate_jobs" and rep.severity == "warning"
    assert "MPI=1" in rep.next_action.en
    ceiling = next(f for f in rep.findings if f.id == "line_rate_ceiling")
    assert "1.25 GB/s" in ceiling.title.en


def test_a_sizing_question_with_nics_stays_a_question() -> None:
    # no measurement: interconnect_advice answers "what should I expect", not a diagnosis
    assert paste_kinds("每台机器8张400G网卡，nccl-tests 应该跑多少？") == []


def test_planner_reads_600gbps_on_8x100g_as_75_percent() -> None:
    q = "2台H100服务器，每台8张100G的RoCE网卡，nccl-tests 测出来带宽 600Gbps，这个符合预期吗"
    a, results = answer(q)
    assert any(r.name == "diagnose_logs" for r in results)
    first = a.text.splitlines()[0]
    assert "75%" in first and "100 GB/s" in first


def test_exported_variable_with_plain_deepspeed_is_left_alone() -> None:
    # current DeepSpeed honours an exported CUDA_VISIBLE_DEVICES when no --num_gpus/--include is given
    ids, _rep = _ids("export CUDA_VISIBLE_DEVICES=1\ndeepspeed train.py --deepspeed ds.json\n")
    assert "gpu_selection_ineffective" not in ids


def test_invalid_ordinal_without_any_selection_is_not_a_selection_story() -> None:
    ids, _rep = _ids(
        "RuntimeError: CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported"
    )
    assert "gpu_selection_ineffective" not in ids


def test_free_h_gives_the_ram_in_the_title() -> None:
    paste = (
        "Loading checkpoint shards:  20%|██        | 1/5 [00:10<00:40]Killed\n"
        "$ free -h\n"
        "               total        used        free      shared  buff/cache   available\n"
        "Mem:            31Gi       2.1Gi        28Gi       1.0Mi       1.2Gi        28Gi\n"
    )
    _ids_, rep = _ids(paste)
    assert "33.3 GB" in rep.findings[0].title.zh  # 31 GiB × 2^30 = 33,285,996,544 B


def test_dell_lifecycle_bus_fatal_message_is_critical() -> None:
    ids, rep = _ids("PCI1302: A bus fatal error was detected on a component at bus 65 device 0 function 0.")
    assert ids == ["sel_bus_uncorrectable"] and rep.severity == "critical"


def test_single_25g_roce_port_ceiling() -> None:
    # 1 × 25 Gb/s ÷ 8 = 3.125 GB/s; 1.2 / 3.125 = 38 %
    ids, rep = _ids("两台机器各一张 25G RoCE 网卡，nccl-tests busbw 只有 1.2 GB/s，是不是太低了")
    assert ids == ["busbw_below_line_rate"]
    assert "38%" in rep.findings[0].title.zh
