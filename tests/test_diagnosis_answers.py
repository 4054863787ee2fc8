"""Issue 12: a paste with a yes/no (「是卡坏了吗」) gets the yes/no on line 1, decided by the findings' policy
classes; serving pastes get their arithmetic worked out from the paste.

Expected values are hand-worked here from public sources (NVIDIA Xid catalog, vLLM engine args, LMDeploy
TurbomindEngineConfig / BlockManager.cc, model config.json files), never copied from the code's output.
The phrasings are our own (casual Chinese, English), not the dev cases'.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.offline import answer
from assistant.offline.reading.logs import fault_question
from tools.diagnosis.tool import diagnose_text

SAMPLES = Path(__file__).parent / "diagnosis_samples"
# https://github.com/tinygrad/tinygrad/issues/6947 — Xid 31 in the user's own `python` process (RTX 4090);
# resolved in the thread by installing the open kernel module: software, not the card.
XID31 = (SAMPLES / "real_dmesg_xid31_python_tinygrad_6947.txt").read_text(encoding="utf-8")
# https://github.com/NVIDIA/nvidia-docker/issues/1553 — Xid 79, GPU has fallen off the bus: hardware/platform.
XID79 = (SAMPLES / "real_dmesg_xid79_nvidia_docker_1553.txt").read_text(encoding="utf-8")


def _line1(question: str) -> str:
    a, _ = answer(question, [], "auto")
    return a.text.strip().splitlines()[0]


# ------------------------------------------------------------------ which yes/no was asked (knowledge/diagnosis)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("这卡是不是坏了啊", "hardware"),
        ("跑一半就崩，是硬件问题吗？", "hardware"),
        ("要不要换卡？", "hardware"),
        ("Is my card dead?", "hardware"),
        ("could this be a hardware fault?", "hardware"),
        ("是驱动的问题吗", "driver"),
        ("要不要重装驱动？", "driver"),
        ("is it a driver issue or my code?", "driver"),
        ("是不是显存不够了？", "memory"),
        ("是不是爆显存", "memory"),
        ("am i running out of vram?", "memory"),
        # not yes/no questions about the paste
        ("显存不够，怎么改参数", None),
        ("CUDA out of memory 一般有哪些原因？", None),
        ("帮我看下这个报错", None),
        ("卡坏了，帮我写工单", None),
    ],
)
def test_fault_question_kind_from_the_users_words(text: str, kind: str | None) -> None:
    assert fault_question(text) == kind


# ------------------------------------------------------------------ the answer comes from the policy classes


def test_xid31_in_the_users_process_is_probably_not_the_card() -> None:
    # NVIDIA Xid catalog: Xid 31 (MMU fault) → RESTART_APP, an application error (docs.nvidia.com/deploy/xid-errors)
    r = diagnose_text(XID31, question="hardware")
    assert r.answer is not None
    assert r.answer.answer == "probably_not" and r.answer.finding_id == "xid_31" and r.answer.domain == "software"
    assert "dcgmi diag" in r.answer.text.en  # when it would be the card after all
    assert "your own process `python`" in r.answer.text.en  # name=python on the Xid line


def test_xid79_fallen_off_the_bus_is_yes_hardware() -> None:
    r = diagnose_text(XID79, question="hardware")
    assert r.answer is not None and r.answer.answer == "yes" and r.answer.domain == "hardware"
    # asked "is it the driver?" about the same paste: no, and why
    d = diagnose_text(XID79, question="driver")
    assert d.answer is not None and d.answer.answer == "no" and d.answer.domain == "hardware"


def test_driver_and_memory_questions_use_the_policy_topics() -> None:
    # torch built for CUDA 12.4 on a driver that supports only 11.4 (driver 470): the driver is too old
    r = diagnose_text((SAMPLES / "torch_cu124_on_driver_470.txt").read_text(encoding="utf-8"), question="driver")
    assert r.answer is not None and r.answer.answer == "yes" and r.answer.domain == "driver"
    oom = (SAMPLES / "torch_oom_legacy_3090.txt").read_text(encoding="utf-8")
    m = diagnose_text(oom, question="memory")
    assert m.answer is not None and m.answer.answer == "yes" and m.answer.domain == "gpu_memory"
    h = diagnose_text(oom, question="hardware")
    assert h.answer is not None and h.answer.answer == "probably_not"
    host = diagnose_text((SAMPLES / "host_ram_defaultcpuallocator.txt").read_text(encoding="utf-8"), question="memory")
    assert host.answer is not None and host.answer.answer == "no" and host.answer.domain == "host_memory"


def test_nvml_version_mismatch_is_the_driver_not_the_card() -> None:
    # "Failed to initialize NVML: Driver/library version mismatch": the kernel module and the user-space
    # library differ after an upgrade (NVIDIA driver docs) — a reboot fixes it; it is not a broken card
    text = (SAMPLES / "smi_nvml_version_mismatch.txt").read_text(encoding="utf-8")
    h = diagnose_text(text, question="hardware")
    assert h.answer is not None and h.answer.answer == "probably_not" and h.answer.domain == "driver"
    d = diagnose_text(text, question="driver")
    assert d.answer is not None and d.answer.answer == "yes"


def test_nothing_recognised_cannot_tell() -> None:
    r = diagnose_text("机器有点问题 是卡坏了吗", question="hardware")
    assert r.answer is not None and r.answer.answer == "unclear"


def test_line_one_leads_with_the_answer_in_chat() -> None:
    zh = _line1("训练跑着跑着就挂了，dmesg 里是下面这些，这卡是不是坏了？\n" + XID31)
    assert zh.startswith("不像是卡坏了") and "Xid 31" in zh
    en = _line1("Is my GPU broken? dmesg shows:\n" + XID79)
    assert en.startswith("Yes") and "Xid 79" in en


# ------------------------------------------------------------------ serving arithmetic from the paste


def test_vllm_budget_below_the_weights_on_eight_4090s() -> None:
    # 8 × RTX 4090 24 GB (datasheet) × 0.7 = 134.4 GB; Qwen-72B 72.29e9 params × 2 B = 144.58 GB bf16
    # (config.json of Qwen/Qwen-72B) → the weights alone do not fit
    paste = (
        "vllm serve Qwen/Qwen-72B-Chat --tensor-parallel-size 8 --gpu-memory-utilization 0.7 --trust-remote-code\n"
        "然后就一直卡在加载\n八张4090"
    )
    r = diagnose_text(paste, expect="8x RTX 4090", model="Qwen-72B")
    s = r.serving
    assert s is not None and s.cards == 8 and s.card_gb == 24
    assert s.budget_gb == pytest.approx(134.4, abs=0.01)
    assert s.weights_gb == pytest.approx(144.58, rel=0.01) and s.weights_fit is False
    assert r.findings[0].id == "vllm_budget_below_weights" and r.severity == "warning"


def test_vllm_budget_fits_and_defaults_to_0_9() -> None:
    # 2 × A100 80GB × 0.9 (vLLM's default gpu_memory_utilization) = 144 GB > Qwen2.5-7B 7.62e9 × 2 B = 15.2 GB
    r = diagnose_text(
        "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B-Instruct -tp 2", expect="2x A100 80GB"
    )
    s = r.serving
    assert s is not None and s.budget_gb == pytest.approx(144.0) and s.weights_fit is True
    assert r.severity == "ok" and not r.findings


def test_vllm_gpu_blocks_to_kv_tokens_and_gb() -> None:
    # https://github.com/vllm-project/vllm/issues/6623 — Llama 3 8B on vLLM 0.5.2: "# GPU blocks: 13078".
    # 13,078 × 16 tokens (vLLM default block size) = 209,248 tokens; Llama-3-8B KV/token = 2 × 32 layers ×
    # 8 KV heads × 128 × 2 B = 131,072 B (config.json) → 209,248 × 131,072 B = 27.43 GB
    paste = "INFO 07-21 gpu_executor.py:84] # GPU blocks: 13078, # CPU blocks: 2048"
    s = diagnose_text(paste, model="Meta-Llama-3-8B-Instruct").serving
    assert s is not None and s.kv_tokens == 209_248 and s.kv_bytes_per_token == 131_072
    assert s.kv_gb == pytest.approx(27.43, abs=0.01)
    # a non-default --block-size changes the arithmetic: 13,078 × 32 = 418,496 tokens
    s32 = diagnose_text("vllm serve x --block-size 32\n" + paste, model="Meta-Llama-3-8B-Instruct").serving
    assert s32 is not None and s32.kv_tokens == 418_496


def test_vllm_max_len_error_in_gb() -> None:
    # Llama-2-7B (MHA): 2 × 32 × 32 × 128 × 2 B = 524,288 B/token; 16,816 tokens × 524,288 B = 8.82 GB;
    # a 32,768-token sequence needs 32,768 × 524,288 B = 17.18 GB
    paste = (
        "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored "
        "in KV cache (16816). Try increasing `gpu_memory_utilization` or decreasing `max_model_len`"
    )
    r = diagnose_text(paste, model="Llama-2-7B")
    s = r.serving
    assert s is not None and s.kv_tokens == 16_816
    assert s.kv_gb == pytest.approx(8.82, abs=0.01) and s.max_len_kv_gb == pytest.approx(17.18, abs=0.01)
    assert r.findings[0].id == "vllm_no_kv_cache_memory" and "16,816" in r.findings[0].title.en


def test_lmdeploy_pool_concurrency_is_not_multiplied_by_ranks() -> None:
    # BlockManager.cc prints "block_size = N MB" / "max_block_count = N" once per rank; two ranks (tp=2) here.
    # 5000 blocks × 64 tokens (cache_block_seq_len) = 320,000 tokens; session_len 4096 → 4096/64 = 64 blocks
    # per sequence → 5000 / 64 = 78.1 sequences for the whole engine, not 2 × 78
    paste = "\n".join(
        [
            "TurbomindEngineConfig(tp=2, session_len=4096, max_batch_size=64, cache_max_entry_count=0.8, "
            "cache_block_seq_len=64)",
            "[TM][INFO] [BlockManager] block_size = 16 MB",
            "[TM][INFO] [BlockManager] max_block_count = 5000",
            "[TM][INFO] [BlockManager] block_size = 16 MB",
            "[TM][INFO] [BlockManager] max_block_count = 5000",
        ]
    )
    r = diagnose_text(paste)
    s = r.serving
    assert r.kinds == ["lmdeploy"] and s is not None
    assert s.kv_tokens == 320_000 and s.sequences == pytest.approx(78.125) and s.rank_prints == 2
    assert s.max_batch_size == 64 and any("max_batch_size=64" in ln.en for ln in s.lines)
    assert s.headline is not None and "not per card" in s.headline.en


def test_lmdeploy_block_tokens_from_the_models_kv_size() -> None:
    # no config line: a 64 MB block of Llama-2-7B (524,288 B = 0.5 MiB per token) holds 64 MiB / 0.5 MiB = 128
    # tokens (the old 0.1.x default); 159 blocks × 128 = 20,352 tokens; 4096-token requests: 159 / 32 = 4.97
    paste = "[TM][INFO] [BlockManager] block_size = 64 MB\n[TM][INFO] [BlockManager] max_block_count = 159"
    s = diagnose_text(paste, model="Llama-2-7B", session_len=4096).serving
    assert s is not None and s.block_tokens == 128 and s.kv_tokens == 20_352
    assert s.sequences == pytest.approx(159 / 32)


def test_lmdeploy_request_length_from_the_users_words() -> None:
    # 「每个请求 4096 token」 in the user's sentence: 6000 blocks × 64 = 384,000 tokens; 6000 / (4096/64) = 93.75
    s = diagnose_text("[TM][INFO] [BlockManager] max_block_count = 6000，每个请求 4096 个token，能并发几个？").serving
    assert s is not None and s.session_len == 4096 and s.sequences == pytest.approx(93.75)


def test_serving_paste_in_chat_leads_with_the_number() -> None:
    q = (
        "lmdeploy起服务后打印了下面几行，两张卡，每条请求4096个token的话一共能并发多少？\n"
        "[TM][INFO] [BlockManager] block_size = 16 MB\n[TM][INFO] [BlockManager] max_block_count = 5000\n"
        "[TM][INFO] [BlockManager] block_size = 16 MB\n[TM][INFO] [BlockManager] max_block_count = 5000"
    )
    line = _line1(q)
    assert line.startswith("约 78 条") and "不是每张卡" in line


def test_vllm_v1_budget_in_gib_from_the_cards_mib() -> None:
    # our own numbers: an RTX 6000 Ada shows 49,140 MiB in nvidia-smi (48 GB card):
    # 49,140 MiB = 47.99 GiB; × 0.9 = 43.19 GiB; − 15.0 (weights) − 20.0 (KV) = 8.19 GiB for the rest
    paste = (
        "卡是 RTX 6000 Ada，显存 49140MiB，gpu_memory_utilization=0.9，KV cache 怎么这么小？\n"
        "Model loading took 15.0 GiB memory\nAvailable KV cache memory: 20.0 GiB\nGPU KV cache size: 163,840 tokens"
    )
    s = diagnose_text(paste).serving
    assert s is not None and s.kv_tokens == 163_840
    assert s.budget_gb == pytest.approx(49_140 * 2**20 * 0.9 / 1e9, abs=0.01)  # 46.37 GB = 43.19 GiB
    assert any("= 43.19 GiB" in ln.en for ln in s.lines) and any("= 8.19 GiB" in ln.en for ln in s.lines)
    # 20 GiB ÷ 163,840 tokens = 131,072 B per token (an 8-KV-head, 32-layer, 128-dim model in bf16)
    assert any("131,072 B per token" in ln.en for ln in s.lines)


@pytest.mark.parametrize(
    ("cmd", "fix"),
    [
        # one machine, a rank copied from a multi-node recipe (torchrun docs: node_rank in 0..nnodes-1)
        (
            "torchrun --nnodes=1 --node_rank=1 --nproc_per_node=8 --master_addr=10.0.0.5 --master_port=29500 train.py",
            "--standalone",
        ),
        ("python -m torch.distributed.run --nnodes 2 --node-rank 2 --nproc-per-node 8 train.py", "0 to 1"),
    ],
)
def test_torchrun_node_rank_outside_nnodes_hangs(cmd: str, fix: str) -> None:
    r = diagnose_text("就卡在这里不动了，也不报错\n" + cmd)
    assert r.findings and r.findings[0].id == "launcher_node_rank_out_of_range" and r.verdict == "fix_setup"
    assert fix in r.next_action.en or fix in r.findings[0].actions[0].en
    # a valid command is not a finding (and not a paste)
    ok = cmd.replace("--node_rank=1", "--node_rank=0").replace("--node-rank 2", "--node-rank 1")
    assert not any(f.id == "launcher_node_rank_out_of_range" for f in diagnose_text(ok).findings)


def test_single_server_torchrun_question_names_localhost() -> None:
    q = "一台机器4张卡，下面这样启动一直卡住，master_addr 到底填啥？\ntorchrun --nproc_per_node=4 --nnodes=1 --node_rank=2 --master_addr=192.168.0.10 --master_port=23456 main.py"
    a, _ = answer(q, [], "auto")
    assert "--standalone" in a.text and "127.0.0.1" in a.text and "node_rank=0" in a.text
