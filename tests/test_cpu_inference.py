"""CPU and CPU+GPU hybrid inference (knowledge/cpus.yaml, tools/cpu_inference.py, the cpu_serving intent).

Hand-worked values used below (decimal GB, 1 GB = 1e9 B):
- Host bandwidth = channels × MT/s × 8 B (64-bit channel):
  EPYC 9004: 12 × 4800 × 8 = 460.8 GB/s (amd.com 9004 series: 12 channels DDR5-4800);
  EPYC 9005: 12 × 6000 × 8 = 576 GB/s (6400 → 614.4); Xeon Gold 6133 (Intel ARK): 6 × 2666 × 8 = 127.97 ≈ 128 GB/s;
  Xeon Gold 6454S / Platinum 8480+: 8 × 4800 × 8 = 307.2 GB/s; dual-channel DDR4-3200 desktop: 2 × 3200 × 8 = 51.2 GB/s.
- DeepSeek-R1/V3 config.json (huggingface.co/deepseek-ai/DeepSeek-R1): hidden 7168, moe_intermediate 2048, 61 layers, first 3
  dense, 256 routed experts, 8 per token. One expert = 3 × 7168 × 2048 = 44,040,192 params; routed active per token =
  58 × 8 × 44,040,192 = 20.43e9. Active ≈ 37.55e9 (model card: 37B); input embedding 129,280 × 7168 = 0.927e9 not streamed.
- Q4_K_M = 4.8944 bits/weight (llama.cpp tools/quantize/README.md) = 0.6118 B/param.
  CPU only: (37.55 − 0.927)e9 × 0.6118 = 22.4 GB per token → 460.8 / 22.4 = 20.6 tokens/s at most on one EPYC 9004.
  (The common rule of thumb "37B × 0.61 B ≈ 22.6 GB → ≤ 20 tokens/s" is the same bound.)
  Hybrid (experts on CPU): 20.43e9 × 0.6118 = 12.5 GB per token from RAM; 8.73 tok/s measured by ktransformers on one
  Gold 6454S socket with a 4090D (doc/en/DeepseekR1_V3_tutorial.md) and 14 tok/s on one EPYC 9654 + 4090
  (github.com/kvcache-ai/ktransformers/issues/314); 6-7 tok/s on a Platinum 8352Y (Ice Lake, 8 × DDR4-3200) + 4090
  (issues/319). The tool's band must contain each measured figure.
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from tools.cpu_inference import CpuInferenceInput, cpu_inference, find_platform, platforms, quants
from tools.registry import run_tool


def _run(**kw):
    return cpu_inference(CpuInferenceInput(**kw))


# ---------------------------------------------------------------- knowledge rows


def test_every_platform_row_is_channels_times_speed_times_8_bytes_and_cited() -> None:
    for p in platforms():
        assert p.source and p.as_of, p.id
        if p.channels:
            assert p.theoretical_gbs == pytest.approx(p.channels * p.mt_s * 8 / 1000, rel=0.002), p.id
    by_id = {p.id: p for p in platforms()}
    assert by_id["epyc_9004"].theoretical_gbs == 460.8  # 12 × 4800 × 8
    assert by_id["epyc_9005"].theoretical_gbs == 576.0 and by_id["epyc_9005"].fast_theoretical_gbs == 614.4
    assert by_id["xeon_gen4_sapphire"].amx and not by_id["epyc_9004"].amx  # AMX is Intel Gen 4 and later
    assert by_id["desktop_ddr4"].theoretical_gbs == 51.2


def test_quant_bits_come_from_the_llama_cpp_table() -> None:
    q = {x.id: x for x in quants()}
    assert q["q4_k_m"].bits == 4.8944 and q["q8_0"].bits == 8.5008
    assert all(x.source and x.as_of for x in quants())


@pytest.mark.parametrize(
    ("text", "row"),
    [
        ("Intel(R) Xeon(R) Gold 6133 CPU @ 2.50GHz", "xeon_gen1_skylake"),
        ("至强金牌6248", "xeon_gen2_cascade"),
        ("Platinum 8352Y", "xeon_gen3_icelake"),
        ("双路9654", "epyc_9004"),
        ("EPYC 9575F", "epyc_9005"),
        ("epyc 7c13*2", "epyc_7003"),
        ("E5-2680 v4", "xeon_e5_v4"),
        ("Xeon 6980P", "xeon6_granite_6900p"),
        ("M2 Ultra 192G", "apple_m2_ultra"),
    ],
)
def test_cpu_names_people_type_resolve_to_their_platform(text: str, row: str) -> None:
    p = find_platform(text)
    assert p is not None and p.id == row


# ---------------------------------------------------------------- tool arithmetic


def test_pure_cpu_deepseek_r1_on_one_epyc_9004_is_bounded_near_20_tokens_per_s() -> None:
    out = _run(model="DeepSeek-R1", cpu="EPYC 9654", quant="q4_k_m")
    assert out.socket_bw_gbs == 460.8
    # weights 22.4 GB + the sequence's MLA KV cache: 61 layers × (512 + 64) × 2 B × 4096 tokens = 0.29 GB
    per_token = (37.55e9 - 0.927e9) * 0.6118 / 1e9 + 61 * 576 * 2 * 4096 / 1e9
    assert out.cpu_read_gb == pytest.approx(per_token, rel=0.01)  # 22.7 GB
    assert out.tokens_per_s.ceiling == pytest.approx(460.8 / per_token, rel=0.02)  # ≈ 20.3
    assert out.tokens_per_s.high < out.tokens_per_s.ceiling  # η < 1
    assert out.gpu_read_gb == 0


def test_hybrid_reads_only_the_routed_experts_from_ram() -> None:
    out = _run(model="DeepSeek-V3", cpu="Gold 6454S", gpu="4090D", quant="q4_k_m")
    routed = 58 * 8 * 3 * 7168 * 2048 * 0.6118 / 1e9  # 12.5 GB
    assert out.cpu_read_gb == pytest.approx(routed, rel=0.05)  # a little less: spare VRAM holds a few experts
    assert out.cpu_read_gb <= routed


@pytest.mark.parametrize(
    ("cpu", "gpu", "measured"),
    [
        ("Gold 6454S", "4090D", 8.73),  # ktransformers tutorial, one socket
        ("EPYC 9654", "4090", 14.0),  # ktransformers issue 314
        ("Platinum 8352Y", "4090", 6.5),  # ktransformers issue 319
    ],
)
def test_published_single_socket_measurements_fall_inside_the_band(cpu: str, gpu: str, measured: float) -> None:
    out = _run(model="DeepSeek-R1", cpu=cpu, gpu=gpu, quant="q4_k_m")
    assert out.tokens_per_s.low <= measured <= out.tokens_per_s.high


def test_a_second_socket_is_not_double() -> None:
    one = _run(model="DeepSeek-V3", cpu="Gold 6454S", gpu="4090D")
    two = _run(model="DeepSeek-V3", cpu="Gold 6454S", gpu="4090D", sockets=2, numa="aware", engine="ktransformers")
    # ktransformers measured 8.73 → 12.208 tok/s (×1.40) with the weights copied per NUMA node (1 TB vs 382 GB)
    assert two.tokens_per_s.low <= 12.208 <= two.tokens_per_s.high
    assert two.tokens_per_s.high < 2 * one.tokens_per_s.high
    assert two.ram_copies == 2 and two.ram_needed_gb == pytest.approx(2 * one.ram_needed_gb, rel=0.001)
    unaware = _run(model="DeepSeek-V3", cpu="Gold 6454S", gpu="4090D", sockets=2, numa="unaware")
    assert unaware.tokens_per_s.high == one.tokens_per_s.high  # no NUMA awareness: one socket's bandwidth


def test_target_and_bandwidth_needed_for_15_tokens_on_a_skylake_xeon() -> None:
    out = _run(model="DeepSeek-R1", cpu="Xeon Gold 6133", gpu="4090", target_tokens_per_s=15, measured_tokens_per_s=4.5)
    assert out.socket_bw_gbs == 128.0
    assert out.target == "not_reachable"
    # 15 tok/s leaves 66.7 ms per token minus the GPU's ~11.7 ms → ~12.2 GB in ~55 ms at η 0.75 → ≳ 290 GB/s theoretical
    assert 250 < (out.bw_needed_gbs or 0) < 350
    assert any(o.id == "platform:epyc_9004" and o.reaches_target for o in out.options)
    assert out.tokens_per_s.low <= 4.5 <= out.tokens_per_s.high


def test_half_populated_channels_halve_the_bandwidth() -> None:
    # EPYC 7003: 8 channels DDR4-3200 per socket; 8 DIMMs over 2 sockets = 4 per socket → 4 × 3200 × 8 = 102.4 GB/s
    out = _run(model="DeepSeek-R1", cpu="EPYC 7763", sockets=2, dimms=8, gpu="4090")
    assert out.socket_bw_gbs == 102.4 and out.full_socket_bw_gbs == 204.8
    assert out.options[0].id == "populate_channels" and out.dimms_for_all_channels == 16


def test_more_gpus_help_only_by_taking_weights_off_ram() -> None:
    one = _run(model="Llama-3.3-70B", cpu="desktop_ddr4", gpu="4090", quant="q4_k_m")
    # 70.6e9 × 0.6118 = 43.2 GB: a 24 GB card holds about half, the rest streams at 51.2 GB/s → about 1–2 tok/s
    assert one.tokens_per_s.ceiling < 3
    more = next(o for o in one.options if o.id == "one_more_gpu")
    assert more.tokens_per_s.low > 3 * one.tokens_per_s.high  # two cards hold it all: GPU bandwidth takes over


def test_bad_input_is_a_bilingual_error_not_a_traceback() -> None:
    res = run_tool("cpu_inference", {"model": "DeepSeek-R1", "cpu": "Pentium 4"})
    assert "error" in res and res["error"]["zh"] and res["error"]["en"]
    res = run_tool("cpu_inference", {"model": "DeepSeek-R1", "cpu": "EPYC 9654", "quant": "q9_z"})
    assert "error" in res


# ---------------------------------------------------------------- end to end, own phrasings


def _first(text: str) -> str:
    return text.split("\n\n")[0]


def test_skylake_xeon_asking_for_15_tokens_gets_the_bandwidth_answer() -> None:
    a, results = answer("至强金牌6133 + 一张4090 跑ds r1 q4km 现在3.8 token/s 想搞到15 token/s 有戏吗")
    assert "cpu_inference" in [r.name for r in results]
    lead = _first(a.text)
    assert "128 GB/s" in lead and "达不到" in lead
    assert re.search(r"EPYC 9004.*能到 15", a.text)


def test_dual_epyc_pure_cpu_question() -> None:
    a, _ = answer("双路9654 768G内存 纯cpu跑deepseek r1 q4 大概几个token每秒")
    lead = _first(a.text)
    assert "460.8 GB/s" in lead and "tokens/s" in lead
    assert "NUMA" in lead and "1.4" in lead  # a second socket is not 2×


def test_no_platform_named_gives_three_memory_setups() -> None:
    a, results = answer("纯CPU推理deepseek满血版要啥配置，ddr4和ddr5差别大不大")
    assert sum(r.name == "cpu_inference" for r in results) == 3
    lead = _first(a.text)
    assert "89.6 GB/s" in lead and "204.8 GB/s" in lead and "460.8 GB/s" in lead
    assert "通道" in lead


def test_half_populated_memory_is_called_out() -> None:
    a, _ = answer(
        "CPU: epyc 7c13*2，GPU 4090，内存 ddr4 3200 64g*8，ktransformers 跑 deepseek r1 q4 只有2.3 t/s，是内存没插满吗"
    )
    lead = _first(a.text)
    assert "没插满" in lead and "102.4 GB/s" in lead and "204.8 GB/s" in lead


def test_english_dual_xeon_ollama_question() -> None:
    a, _ = answer(
        "dual xeon 6138 with 768GB ram, cpu only ollama running deepseek-r1 671b at 2 tokens/s, is that normal? will more ram help?"
    )
    lead = _first(a.text)
    assert "128 GB/s" in lead and "NUMA" in lead
    assert "does not make it faster" in lead


def test_a_model_that_fits_the_gpus_is_not_a_cpu_question() -> None:
    _, results = answer("双路至强服务器 8张4090 部署qwen2.5-7b 速度能有多少")
    assert "cpu_inference" not in [r.name for r in results]


def test_dense_405b_reads_what_the_llama_cpp_table_says_the_q4_k_m_file_weighs() -> None:
    # llama.cpp tools/quantize/README.md: Llama 3.1 405B Q4_K_M = 249.1 GB; a dense model reads all of it per token
    out = _run(model="Llama-3.1-405B", cpu="EPYC 9654", sockets=2, numa="aware")
    assert out.cpu_read_gb == pytest.approx(249.1, rel=0.02)
    assert out.tokens_per_s.ceiling == pytest.approx(2 * 460.8 / out.cpu_read_gb, rel=0.02)  # 2 sockets, η = 1


def test_generation_words_and_tps_are_read() -> None:
    a, results = answer("第五代至强 + ktransformers 跑 deepseek r1 q4km 只有 5 tps 正常吗")
    assert "cpu_inference" in [r.name for r in results]
    lead = _first(a.text)
    assert "358.4 GB/s" in lead  # 8 × 5600 × 8 (Emerald Rapids, Intel ARK)
    assert "5 tokens/s" in lead


def test_a_ddr4_desktop_with_a_gpu_too_small_is_told_what_a_second_card_does() -> None:
    a, results = answer("ollama跑llama3.3 70b巨慢 4090 24g + 64g ddr4内存 怎么提速")
    assert "cpu_inference" in [r.name for r in results]
    lead = _first(a.text)
    assert "51.2 GB/s" in lead  # 2 × 3200 × 8
    # two 24 GB cards hold 70.6e9 × 0.612 B = 43.2 GB: the whole model leaves host RAM
    m = re.search(
        r"再加 1 张同型号显卡（按台式机双通道 DDR4-3200算）：约 (\d+(?:\.\d+)?)–\d+(?:\.\d+)? tokens/s", a.text
    )
    assert m and float(m.group(1)) > 5  # 43.2 GB from two 1,008 GB/s cards at η 0.6 ≈ 14 tok/s, not ~1
