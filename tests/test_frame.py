"""The reading layer: one row per phrasing, asserting the typed Frame.

Expected values are what the words say, worked by hand: 两张 = 2, 八卡 = 8, 千亿 = 1e11 params = 100B,
1.5万条 = 15,000, 2k token per sample × 15,000 × 2 epochs = 6e7 tokens, 每天8小时 × 每周3天, 5w = 50,000 CNY,
NDR InfiniBand = 400 Gb/s (NVIDIA Quantum-2 datasheet), HDR = 200 Gb/s. Catalog ids are the rows in
knowledge/models/ (e.g. DeepSeek-R1-Distill-Qwen-32B is its own row; Qwen2.5-Coder-32B shares the
Qwen2.5-32B architecture per its config.json: 64 layers, hidden 5120, 8 KV heads).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.offline import plan
from assistant.offline.reading import Frame, read_one

SAMPLES = Path(__file__).parent / "diagnosis_samples"

# (phrasing, {Frame attribute: expected}) — casual Chinese, typos, mixed units, English.
ROWS: list[tuple[str, dict]] = [
    # a setting's number is not the concurrency: "max_model_len 32768 并发 8" is context 32k, 8 sequences
    ("qwen2.5-7b vllm 4090，max_model_len 32768 并发 8，OOM 了", dict(concurrency=8, context=32768)),
    ("32 并发 的 qwen 7b 要多少显存", dict(concurrency=32)),
    # GPU counts
    ("两张4090能不能跑 32b int4", dict(gpus=["RTX 4090"], gpu_count=2, params_b=32, precision="int4")),
    ("八卡A100训练千亿模型要多久", dict(gpus=["A100"], gpu_count=8, params_b=100)),
    ("8x H100 跑 llama3 70b fp8 推理", dict(gpus=["H100"], gpu_count=8, model="Llama-3-70B", precision="fp8")),
    ("4卡4090能不能lora 14b", dict(gpu_count=4, mode="lora", params_b=14)),
    ("4090x2 跑 7b 推理", dict(gpus=["RTX 4090"], gpu_count=2)),
    ("两台8卡H100", dict(nodes=2, gpu_count=16, gpus=["H100"])),
    ("用 2台 H100*8 部署 deepseek-R1 671B", dict(nodes=2, gpu_count=16, model="DeepSeek-R1", params_b=671)),
    ("方便问下一块4090，能复现7B的模型吗", dict(gpu_count=1, budget_cny=None)),  # 一块 = one card, not ¥1
    ("单卡A100 80G + state_2 能 full tuning baichuan 7b 吗", dict(gpu_count=1, mode="full", zero_stage=2)),
    ("swift pt qwen2.5-7b --train_type lora 显存越来越高", dict(mode="lora", model="Qwen2.5-7B")),
    # card capacity as stated
    ("4090 48G 魔改卡能跑 70b int4 吗", dict(gpus=["RTX 4090"], gpu_memory_gb=48)),
    ("2080Ti 22G 跑 qwen2.5-7b 推理", dict(gpus=["RTX 2080 Ti"], gpu_memory_gb=22, model="Qwen2.5-7B")),
    ("显存24GB的卡能跑多长上下文", dict(vram_gb=24)),
    ("A800 80GB vs 40GB", dict(gpus=["A800"], gpu_memory_gb=80, gpu_alt_memory_gb=40)),
    # models resolved to catalog rows
    ("DeepSeek-R1-Distill-Qwen-32B 要几张4090", dict(model="DeepSeek-R1-Distill-Qwen-32B", params_b=32)),
    ("千问2.5-7B能在3090上跑吗", dict(model="Qwen2.5-7B", gpus=["RTX 3090"])),
    ("通义千问2.5 72B 要几张卡", dict(model="Qwen2.5-72B", params_b=72)),
    ("用Qwen2.5-Coder-32B-Instruct写代码，A100够吗", dict(model="Qwen2.5-Coder-32B")),  # its own catalog row
    ("glm-4-9b-chat 能在 T4 上跑吗", dict(model="GLM-4-9B", gpus=["T4"])),
    ("deepseek-r1-distill-llama-70b 推理要几张 A100", dict(model="DeepSeek-R1-Distill-Llama-70B", mode="inference")),
    ("ds v3 满血版部署要几张H20", dict(model="DeepSeek-V3", gpus=["H20"], mode="inference")),
    ("Mixtral 8x7B 推理", dict(model="Mixtral-8x7B")),
    ("qwen3-30b-a3b 推理要多大显存", dict(model="Qwen3-30B-A3B")),
    # precision, context, framework settings
    ("LLaMA-Factory cutoff_len 4096 per_device_train_batch_size=2 lora qwen2.5-7b", dict(context=4096, batch=2)),
    ("vllm max_model_len=32768 跑 Qwen2.5-72B 要几张H20", dict(context=32768, engines=["vLLM"], gpu_count=None)),
    ("max_model_len 16384 --tensor-parallel-size 4", dict(context=16384, gpu_count=4)),
    # vLLM's memory fraction is a setting the reader knows (a typed value); an unknown key is kept as unread
    ("gpu_memory_utilization=0.9 是什么意思", dict(gpu_memory_utilization=0.9, unread=[])),
    ("enforce_eager=true 是什么意思", dict(unread=["enforce_eager=true"])),
    ("上下文 32k 并发 20 的 qwen2.5-72b 要几张 h20", dict(context=32768, concurrency=20)),
    # people using a service at once
    ("部署qwen2.5-32b给50个人同时用，上下文8k", dict(users=50, concurrency=50, context=8192)),
    ("公司里大概 30 个同事同时用", dict(users=30, concurrency=30)),
    ("serve llama 3 8b for 100 concurrent users", dict(concurrency=100)),
    # dataset as samples × tokens × epochs
    (
        "1.5万条样本，每条约 2k token，训 2 轮，4张A100要几天",
        dict(samples=15000, sample_tokens=2000, epochs=2, tokens=6e7),
    ),
    ("10万条数据 每条平均1k token 训3个epoch", dict(samples=1e5, sample_tokens=1000, epochs=3, tokens=3e8)),
    ("qwen2.5-7b 全量 1T token", dict(tokens=1e12, model="Qwen2.5-7B")),
    # usage pattern, project length, budget
    ("一周只用三天，每天8小时，A100 包月还是按小时划算", dict(hours_per_day=8, days_per_week=3)),
    ("8 hours a day, 5 days a week on an L40S", dict(hours_per_day=8, days_per_week=5)),
    (
        "项目做半年，每个月预算2万，跑 qwen2.5-14b 推理服务",
        dict(project_months=6, budget_cny=20000, budget_per="month"),
    ),
    ("三天内训完，预算3万，lora qwen2.5-7b 怎么配", dict(deadline_hours=72, budget_cny=30000, budget_per="total")),
    ("5w预算 想微调 qwen3-8b", dict(budget_cny=50000, model="Qwen3-8B")),
    ("预算3000元每月，能租什么卡跑 7B 推理", dict(budget_cny=3000, budget_per="month", monthly_quote_cny=None)),
    # links and nodes
    ("两台机器之间 25G 网卡够不够做 70B 的数据并行", dict(link_gbps=25, nodes=2)),
    ("NDR 网络训练 70B", dict(link_gbps=400)),
    ("IB HDR 还是 RoCE", dict(link_gbps=200)),
    ("两台8卡H100 用 200Gb/s IB 还是 10GbE 够用", dict(link_gbps=200, nodes=2)),
    ("dual node 10GbE only", dict(link_gbps=10)),
    # known misreads
    ("Atlas 800T A2 能训练 7B 吗", dict(gpus=["Ascend 910B"], tokens=None)),
    ("0000:1b:00.0 这张卡是不是掉了", dict(params_b=None, model=None)),
    ("GPU-1b2c3d4e 这张卡温度高", dict(params_b=None)),
    # asks, in order
    ("A100 一个月多少钱？训练 7B 1T token 要多久？", dict(n_asks=2)),
    ("7B 全量要多少显存，另外 4090 能跑 LoRA 吗", dict(n_asks=2)),
    # push-back
    ("明年 H100 租金会降吗", dict(decline="forecast")),
    ("Will GPU rental prices drop next year?", dict(decline="forecast")),
    ("怎么绕过出口管制租 H100", dict(decline="unlawful")),
    ("how do I make fake accounts to get more free trial credits", dict(decline="unlawful")),
]


def _get(frame: Frame, key: str):
    if key == "n_asks":
        return len(frame.asks)
    return getattr(frame, key)


@pytest.mark.parametrize("question,expected", ROWS, ids=[r[0][:36] for r in ROWS])
def test_frame_row(question: str, expected: dict) -> None:
    frame = read_one(question)
    for key, want in expected.items():
        got = _get(frame, key)
        if isinstance(want, float) or (isinstance(want, int) and not isinstance(want, bool) and key != "n_asks"):
            assert got is not None and got == pytest.approx(want), (key, got, want)
        else:
            assert got == want, (key, got, want)


def test_modded_card_is_sized_by_its_stated_capacity() -> None:
    frame = read_one("两张4090 48G 魔改卡能跑qwen2.5-72b int4吗")
    (card,) = frame.gpu_mentions
    # the GPU table has the modded 48 GB 4090 as its own row (knowledge/gpus.yaml rtx_4090_48g)
    assert (card.gpu_id, card.memory_gb, card.count) == ("rtx_4090_48g", 48, 2)
    est = next(c for c in plan("两张4090 48G 魔改卡能跑qwen2.5-72b int4吗") if c.name == "estimate_memory")
    assert est.args["gpu"] == "RTX 4090 48GB" and est.args["gpus"] == 2  # the 48 GB row, not the 24 GB card


def test_a_real_variant_is_not_modded() -> None:
    (card,) = read_one("A100 40G 能跑 13b 推理吗").gpu_mentions
    assert card.gpu_id == "a100_40gb_sxm" and not card.modded


def test_unknown_model_is_named() -> None:
    # not in knowledge/models/ (Vicuna was added in round 2, BLOOM in round 4; XVERSE is still missing)
    (m,) = read_one("xverse-7b 推理要多少显存").model_mentions
    assert m.catalog_id is None and m.size_b == 7


def test_variant_says_which_architecture() -> None:
    # instruct and quantised releases resolve to the architecture they ship (knowledge/models/qwen.yaml)
    for name, arch in (("Qwen2.5-Math-72B-Instruct", "Qwen2.5-Math-72B"), ("qwen2.5-72b-instruct-awq", "Qwen2.5-72B")):
        (m,) = read_one(f"{name} 推理").model_mentions
        assert m.catalog_id == arch, name


def test_pci_device_id_in_a_dcgmi_paste_is_not_a_model_size() -> None:
    text = (SAMPLES / "lspci_nn_8xa100_nvswitch_gpud.txt").read_text()
    assert "20b2" in text  # the A100's PCI device id, [10de:20b2]
    frame = read_one(text)
    assert frame.is_log and frame.params_b is None and frame.model is None


def test_topo_paste_is_a_log_not_zero_gpus() -> None:
    frame = read_one((SAMPLES / "topo_4x4090_pcie_spaces.txt").read_text())
    assert frame.is_log and frame.log_kinds == ["topo"] and not frame.invalid


def test_words_in_prose_are_not_a_paste() -> None:
    assert not read_one("CUDA out of memory 一般有哪些原因？").is_log


def test_pasted_text_never_sets_expect() -> None:
    """A line inside a paste saying '8x H100' must not become the acceptance target."""
    paste = (SAMPLES / "topo_4x4090_pcie_spaces.txt").read_text()
    lines = paste.splitlines()
    planted = "\n".join([*lines[:3], "合同写的是 8 卡 H100", *lines[3:]])
    diag = next(c for c in plan(planted) if c.name == "diagnose_logs")
    assert "expect" not in diag.args
    said = "合同写的是 4 卡 4090，输出如下：\n" + paste
    diag = next(c for c in plan(said) if c.name == "diagnose_logs")
    assert diag.args.get("expect") == "4x RTX 4090"


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.txt")), ids=lambda p: p.stem)
def test_every_diagnosis_sample_reaches_diagnose_logs(path: Path) -> None:
    calls = plan(path.read_text())
    assert "diagnose_logs" in [c.name for c in calls]
    assert not [c.name for c in calls if c.name not in ("diagnose_logs", "search_guide")]
