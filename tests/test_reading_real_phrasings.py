"""Reading real-world phrasings right: the right card, the right model, each number as the quantity it is.

Own phrasings (casual Chinese, typos, English), each asserting the typed Frame. Expected values are what the
words say, checked by hand against public sources:
- K80: one board = 2 × GK210 with 12 GB each (NVIDIA Tesla K80 datasheet); nvidia-smi lists two GPUs of
  11441 MiB each (rcgsheffield/sheffield_hpc PR #1030), so "24GB K80" is the board, not a modded card.
- RTX 4060 Ti ships as 8 GB and 16 GB (NVIDIA RTX 4060 family page); RTX 4060 = 8 GB, 272 GB/s, PCIe 4.0 x8.
- "160GB/s" is a bandwidth (bytes per second), "200Gb/s" a link's line rate; neither is a card size.
- Qwen2-VL-72B: Qwen2-72B decoder (80 layers, hidden 8192) + ~675M ViT = 73.4B (Qwen2-VL model card);
  Qwen3-Embedding-8B has no LM head: 7.57B = 36 × 4096-wide layers + one 151665 × 4096 embedding (config.json).
- OPT-6.7B (facebook/opt-6.7b config.json: 32 layers, 4096, ffn 16384, vocab 50272) ≈ 6.66B;
  GLM-130B: 70 × (4·12288² + 3·12288·32768) + 150528·12288 ≈ 128.7B (configs/model_glm_130b.sh);
  Grok-1: 64 layers, 8 experts of 3·6144·32768 → ≈ 315.7B total (xai-org/grok-1 README: 314B).
"""

from __future__ import annotations

import pytest

from assistant.offline.reading import read_one
from tools.gpus import resolve_gpu
from tools.models import find_entry, resolve_model


def _card(q: str, i: int = 0):
    return read_one(q).gpu_mentions[i]


# ---------------------------------------------------------------- GPU cards people own in China


@pytest.mark.parametrize(
    ("text", "gpu_id", "memory_gb", "mib"),
    [
        ("4060", "rtx_4060", 8, 8188),
        ("RTX 4060 Ti 16G", "rtx_4060_ti_16gb", 16, 16380),
        ("4060ti 8g", "rtx_4060_ti_8gb", 8, 8188),
        ("3060 12g", "rtx_3060", 12, 12288),
        ("3070", "rtx_3070", 8, 8192),
        ("3080 10G", "rtx_3080", 10, 10240),
        ("3080 12GB", "rtx_3080_12gb", 12, 12288),
        ("4070", "rtx_4070", 12, 12282),
        ("4070s", "rtx_4070_super", 12, 12282),
        ("4070 Ti", "rtx_4070_ti", 12, 12282),
        ("4070 ti super", "rtx_4070_ti_super", 16, 16376),
        ("RTX 5080", "rtx_5080", 16, 16303),
        ("4060 笔记本", "rtx_4060_laptop", 8, 8188),
        ("NVIDIA GeForce RTX 3050 Ti Laptop GPU", "rtx_3050_ti_laptop", 4, 4096),
        ("Tesla K80", "tesla_k80", 12, 11441),
        ("P40", "tesla_p40", 24, 22919),
        ("Tesla P100-PCIE-16GB", "tesla_p100_16gb", 16, 16280),
        ("A10G", "a10g", 24, 23028),
        ("A800 40G", "a800_40gb_pcie", 40, 40960),
    ],
)
def test_new_cards_resolve_with_their_driver_total(text: str, gpu_id: str, memory_gb: int, mib: int) -> None:
    spec = resolve_gpu(text)
    assert (spec.id, spec.memory_gb, spec.nvidia_smi_total_mib) == (gpu_id, memory_gb, mib)


def test_a_plain_4060_ti_is_the_smaller_card_and_says_so() -> None:
    spec = resolve_gpu("4060ti")
    # the 8 GB card, so a fit is never overstated; the note names the 16 GB one
    assert spec.id == "rtx_4060_ti_8gb" and spec.lookup_note and "16GB" in spec.lookup_note


def test_ada_rates_follow_the_ai_tops_figure() -> None:
    # RTX 4060: 242 AI TOPS (NVIDIA) → INT8 sparse 242, BF16 dense (FP32 accumulate) 242 / 8 = 30.25
    g = resolve_gpu("4060")
    assert g.int8_sparse_tops == 242 and g.bf16_dense_tflops == pytest.approx(30.25, abs=0.06)
    assert g.pcie_lanes == 8 and g.pcie_gbs_bidir == 32  # PCIe 4.0 x8: half of x16's 64 GB/s


def test_k80_is_two_gpus_of_12gb() -> None:
    k80 = resolve_gpu("K80")
    assert k80.gpus_per_board == 2 and k80.memory_gb == 12
    assert "two GK210" in (k80.notes or "") and "两颗 GK210" in (k80.caveat or "")
    card = _card("我有一块 24GB 的 K80 能不能训 1b 的模型")
    # stated 24 GB = the board (2 × 12 GB): the table row, not a modded card
    assert (card.gpu_id, card.memory_gb, card.modded) == ("tesla_k80", 24, False)


@pytest.mark.parametrize(
    ("question", "gpu_id"),
    [
        ("vllm跑qwen2.5-7b，rtx4060显存不够", "rtx_4060"),
        ("4060TI占用14.3G显存，4090D只占15G", "rtx_4060_ti_8gb"),
        ("GPU: 3050ti laptop, deepspeed zero-inference oom", "rtx_3050_ti_laptop"),
        ("家里一张p40能跑 14b 吗", "tesla_p40"),
    ],
)
def test_cards_named_in_casual_questions_are_known(question: str, gpu_id: str) -> None:
    ids = [g.gpu_id for g in read_one(question).gpu_mentions]
    assert gpu_id in ids


def test_a_card_not_in_the_table_keeps_the_stated_size_and_is_not_swapped() -> None:
    card = _card("一张24G的A100 lora 7b 会不会爆")  # no 24 GB A100 exists: sized by what the user said
    assert card.memory_gb == 24 and card.modded
    frame = read_one("在一张24G的A100或四张16G的V100上训练")
    v100 = next(g for g in frame.gpu_mentions if g.name == "V100")
    assert (v100.gpu_id, v100.memory_gb, v100.count) == ("v100_16gb_sxm2", 16, 4)


# ---------------------------------------------------------------- numbers read as the right quantity


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a memory size is not a link: only a unit (GbE, Gb/s, Gbps) or a network word makes it one
        ("I have one 48G GPU but ollama only uses 9G of it", dict(network=None, link_gbps=None, vram_gb=48)),
        ("a 24GB K80 with 32GB RAM for 1.0 an hour", dict(network=None, link_gbps=None)),
        ("机器是 64G 内存，一张 24G 显卡", dict(network=None, link_gbps=None)),
        ("两台机器之间只有 10G 网卡", dict(network="10G")),
        ("200Gb/s IB 和 25GbE 哪个够", dict(link_gbps=200)),
        # a rate in bytes per second is never a card's memory size
        ("H800 的 NVLink 带宽论文里写 160GB/s，规格是 400GB/s", dict(card_sizes=[], gpu_memory_gb=None)),
        ("H20 NVLink 900 GB/s，实测 337 GB/s", dict(card_sizes=[], gpu_memory_gb=None)),
        # "multi-process" is not RoCE
        ("ollama multi-process vs multi-threads on one GPU", dict(network=None)),
    ],
)
def test_units_decide_the_quantity(question: str, expected: dict) -> None:
    frame = read_one(question)
    for key, want in expected.items():
        assert getattr(frame, key) == want, (key, getattr(frame, key), want)


@pytest.mark.parametrize(
    ("question", "count"),
    [
        # which card, not how many: the count is what "两张" says, or nothing
        ("两张8g的卡跑推理，0卡的显存占用是2g多，1卡的占用是7.8g", 2),
        ("卡0 显存占满了，卡1 还空着", None),
        ("GPU0 跑满了 cuda:1 没动", None),
        ("第0张卡掉了怎么办", None),
        ("0号卡温度 90 度", None),
        ("用多张3090卡做 merge", None),  # "3090卡" is the card's name, not 3,090 cards
    ],
)
def test_gpu_indices_are_not_counts(question: str, count: int | None) -> None:
    frame = read_one(question)
    assert frame.gpu_count == count
    assert not frame.invalid  # never "'0卡' is not a valid GPU count"


def test_a_real_zero_count_is_still_refused() -> None:
    assert read_one("0张卡能跑 7b 吗").invalid


# ---------------------------------------------------------------- model names as people write them


@pytest.mark.parametrize(
    ("question", "catalog_id", "precision"),
    [
        ("Qwen2/Qwen2-7B-Instruct 在 V100 上 fp16 出 nan", "Qwen2-7B", "fp16"),  # an HF repo path
        ("vllm serve ./Qwen3-235B-A22B --tp 8", "Qwen3-235B-A22B", None),  # a local path
        ("Qwen1.5-7B-Chat-GPTQ-Int4 单卡推理", "Qwen1.5-7B", "int4"),
        ("qwen2-72b-instruct-awq 部署要几张卡", "Qwen2-72B", "int4"),
        ("4张A800能lora qwen2vl 72b吗", "Qwen2-VL-72B", None),
        ("Qwen2.5-VL-32B-Instruct 推理", "Qwen2.5-VL-32B", None),
        ("用 llama-70b 和 lora 合并", "Llama-2-70B", None),
        ("facebook/opt-6.7b zero-inference", "OPT-6.7B", None),
        ("GLM-130B 要几张4090", "GLM-130B", None),
        ("cheapest way to run grok-1 at home?", "Grok-1", None),
        ("服务器跑MOSS预算多少", "MOSS-moon-003", None),
        ("Qwen3-Embedding-8B 单卡比双卡慢", "Qwen3-Embedding-8B", None),
        ("vllm serve Qwen2.5-Omni-7B 报错", "Qwen2.5-Omni-7B", None),
        ("DS-Coder-V2-Instruct 需要什么配置", "DeepSeek-Coder-V2", None),
        ("llama 65b 推理", "LLaMA-65B", None),
    ],
)
def test_models_reach_their_catalog_row(question: str, catalog_id: str, precision: str | None) -> None:
    frame = read_one(question)
    assert frame.model == catalog_id, [m.text for m in frame.model_mentions]
    if precision:
        assert frame.precision == precision


def test_a_typo_of_a_named_model_is_that_model() -> None:
    frame = read_one("Qwenvl2.5VL-7B要多少显存，lora微调Qwen2.5Vl7B一直OOM")
    assert {m.catalog_id for m in frame.model_mentions} == {"Qwen2.5-VL-7B"}


@pytest.mark.parametrize(
    ("name", "billions", "rel"),
    [
        ("Qwen2-VL-72B", 73.4, 0.005),
        ("Qwen3-Embedding-8B", 7.57, 0.005),
        ("OPT-6.7B", 6.66, 0.005),
        ("GLM-130B", 128.7, 0.005),
        ("Grok-1", 315.7, 0.005),
        ("LLaMA-33B", 32.5, 0.005),
        ("MOSS-moon-003", 16.7, 0.01),
    ],
)
def test_new_catalog_rows_count_the_published_size(name: str, billions: float, rel: float) -> None:
    assert resolve_model(name).params / 1e9 == pytest.approx(billions, rel=rel)


def test_grok_ships_in_8_bit() -> None:
    entry = find_entry("grok-1")
    assert entry is not None and entry.shipped_precision == "int8"
    # 2 of 8 experts per token: 64 × 2 × 3·6144·32768 + attention + embedding ≈ 84B active
    assert resolve_model("grok-1").active_params / 1e9 == pytest.approx(83.8, rel=0.01)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a CPU's model number is not a context length; "53,136 tokens" is 53136, not 136
        ("4090D 机器的 CPU 是 i9-13900K，4060Ti 机器是 i7-10870", dict(context=None)),
        ("KV cache size: 53,136 tokens，为什么这么少", dict(context=None)),
        ("seq 1024, batch 1 on a T4", dict(context=1024, batch=1)),
        # vLLM's memory fraction, as a key or in its log line (8.00 GiB × 0.70 = 5.60 GiB)
        ("total_gpu_memory (8.00GiB) x gpu_memory_utilization (0.70) = 5.60GiB", dict(gpu_memory_utilization=0.7)),
        ("--gpu-memory-utilization 0.95 还是 OOM", dict(gpu_memory_utilization=0.95)),
        # LLaMA-Factory keys the reader takes into the model, mode and precision
        (
            "finetuning_type: lora\nquantization_bit: 4\nquantization_method: bitsandbytes",
            dict(precision="int4", unread=[]),
        ),
        # fine-tuning on a 4-bit base is QLoRA, not "LoRA that cannot use int4 weights"
        ("Is Qwen3-235B fine tunable? 4bit is enough", dict(mode="qlora")),
        ("lora 微调 14b，用 4bit 量化底座", dict(mode="qlora")),
        ("lora 微调完再 int4 部署", dict(mode="lora")),  # the 4-bit model is served, not trained
    ],
)
def test_settings_and_numbers_read_as_what_they_are(question: str, expected: dict) -> None:
    frame = read_one(question)
    for key, want in expected.items():
        got = getattr(frame, key)
        assert got == (pytest.approx(want) if isinstance(want, float) else want), (key, got, want)


def test_a_quoted_bandwidth_below_the_peak_is_read_as_measured() -> None:
    from assistant.offline import answer

    # H800 NVLink: 400 GB/s bidirectional = 200 GB/s each way (NVIDIA); the paper's 160 GB/s = 80% of that
    q = "DeepSeek-V3 paper says NVLink bandwidth of 160GB/s, but the H800 spec says 400GB/s. Is that a mistake?"
    frame = read_one(q)
    assert frame.quoted_rates_gbs == [160, 400] and frame.card_sizes == []
    text = answer(q)[0].text
    assert "200 GB/s each way" in text and "80%" in text and "measured" in text
    assert "H800 160" not in text and "160GB" not in text  # never a 160 GB H800


@pytest.mark.parametrize(
    ("question", "name", "gpu_id", "memory_gb", "count"),
    [
        # the size glued before the name, in brackets after it, or after 单卡
        ("我用22GB2080ti跑lora", "RTX 2080 Ti", "rtx_2080_ti_22g", 22, None),
        ("单卡4090(24G)比L20慢", "RTX 4090", "rtx_4090", 24, None),
        ("用A100 单卡40G lora 4B 报 OOM", "A100", "a100_40gb_sxm", 40, None),
        # the size nvidia-smi shows: 46,068 MiB ≈ "46G" on a 48 GB L20 — the same card, not a modded one
        ("单卡L20(46G)上跑TTS", "L20", "l20", 48, None),
        # 96 DGX A100 systems of 8 × 40 GB (NVIDIA DGX A100: 8 GPUs per system) = 768 GPUs
        ("a cluster of 96 NVIDIA DGX-A100 (8X40G)", "A100", "a100_40gb_sxm", 40, 768),
    ],
)
def test_card_size_and_count_wherever_they_are_written(
    question: str, name: str, gpu_id: str, memory_gb: int, count: int | None
) -> None:
    frame = read_one(question)
    card = next(g for g in frame.gpu_mentions if g.name == name)
    assert (card.gpu_id, card.memory_gb, card.modded) == (gpu_id, memory_gb, False)
    assert card.count == count


def test_a_vl_suffix_after_the_size_is_the_vl_model() -> None:
    # Qwen3-VL-8B: Qwen3-8B's decoder (8.19B) + a ~0.58B vision encoder (config.json vision_config: 27 × 1152)
    assert read_one("全量微调qwen3-8b-vl要多少显存").model == "Qwen3-VL-8B"
    assert resolve_model("Qwen3-VL-8B").params / 1e9 == pytest.approx(8.77, rel=0.01)


@pytest.mark.parametrize(
    ("question", "name", "memory_gb"),
    [
        # not in the table: kept as typed, sized by what the user said, never swapped for a bigger card
        ("RTX 5060 Ti 16G 能跑 7b int4 吗", "RTX 5060 Ti", 16),  # not the RTX 5090 (the 3080 Ti has its own row now)
        ("5060ti 跑 qwen2.5-7b", "RTX 5060 Ti", None),
        ("Tesla M40 24G 训练 7b lora", "TESLA M40", 24),
        ("NVIDIA T500 能跑 deepseek coder v2 lite 吗", "NVIDIA T500", None),
        ("MI300X 192G 跑 70b 推理", "MI300X", 192),
    ],
)
def test_an_unknown_card_is_named_and_never_swapped(question: str, name: str, memory_gb: int | None) -> None:
    (card,) = read_one(question).gpu_mentions
    assert card.name == name and card.gpu_id is None and card.memory_gb == memory_gb


def test_a_tier_word_the_family_lacks_is_a_different_card() -> None:
    from tools.errors import ToolInputError

    with pytest.raises(ToolInputError):
        resolve_gpu("RTX 4080 Ti")  # the table has the RTX 4080 and 4080 Super; a 4080 Ti was never sold
    # the RTX 3080 Ti has its own 12 GB row (NVIDIA spec), never the RTX 3080's 10 GB one
    assert resolve_gpu("RTX 3080 Ti").id == "rtx_3080_ti"
    assert resolve_gpu("RTX 3060 Ti").id == "rtx_3060_ti"  # its own 8 GB row, never the 12 GB RTX 3060
    assert resolve_gpu("4080 super").id == "rtx_4080_super"  # a tier the family has still resolves


def test_sizes_listed_after_a_model_are_that_family() -> None:
    # "0.6B, 4B and 8B" after Qwen3-Embedding: three catalog rows (Qwen/Qwen3-Embedding-{0.6B,4B,8B})
    frame = read_one("3090上分别测了Qwen3-Embedding 0.6B,4B以及8B的模型")
    assert [m.catalog_id for m in frame.model_mentions] == [
        "Qwen3-Embedding-0.6B",
        "Qwen3-Embedding-4B",
        "Qwen3-Embedding-8B",
    ]
    assert frame.model == "Qwen3-Embedding-0.6B"  # the first named stays the one sized
