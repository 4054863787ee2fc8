"""Image / video / speech pipelines (knowledge/pipelines.yaml, tools/pipeline_memory.py) and their chat answers.

Every expected figure is hand-worked below from public counts (model cards, config.json shapes, the SDXL paper's
Table 1, the ZeRO paper's 16 B/param), never pasted from the code's output. GB = 10^9 bytes.
"""

from __future__ import annotations

import pytest

from assistant.grounding import check
from assistant.offline import answer
from tools.pipeline_memory import (
    EstimatePipelineInput,
    PipelineEstimate,
    estimate_pipeline_memory,
    find_pipeline,
    load_pipelines,
    pipeline_in_text,
)
from tools.registry import run_tool

# FLUX.1-dev: 12B per the model card; 11,901,408,320 from the flux-dev shape. T5 v1.1 XXL encoder from its
# config.json: 24 layers × (4·4096² attention + 3·4096·10240 gated FFN + 2·4096 norms) + 32,128 × 4,096 embedding
# + final norm 4,096 + relative-position bias 32 × 64.
T5_XXL_ENC = 24 * (4 * 4096**2 + 3 * 4096 * 10240 + 2 * 4096) + 32128 * 4096 + 4096 + 32 * 64
FLUX_TRANSFORMER = 11_901_408_320
CLIP_L = 123_060_480
VAE = 84_000_000


def _est(**kw) -> PipelineEstimate:
    return estimate_pipeline_memory(EstimatePipelineInput(**kw))


# ---------------------------------------------------------------- the catalog


def test_every_row_has_source_as_of_and_its_trained_component() -> None:
    rows = load_pipelines()
    assert 40 <= len(rows) <= 80  # round 4 added Kolors, CogView4, Wan2.2, StableAvatar, speech rows …
    for e in rows:
        assert e.source.startswith("https://") and e.as_of
        assert e.trained in {c.name for c in e.components}, e.id
        for p in e.published_peaks:
            assert p.source.startswith("https://")


def test_t5_xxl_encoder_count_is_the_published_4_76b() -> None:
    assert T5_XXL_ENC == 4_762_310_656  # the figure people quote for FLUX's text_encoder_2 (4.76B)
    flux = find_pipeline("FLUX.1-dev")
    assert flux is not None
    counts = {c.name: c.params for c in flux[0].components}
    assert counts["text_encoder_2"] == T5_XXL_ENC
    assert abs(counts["transformer"] - 12e9) / 12e9 < 0.01  # model card: "12 billion parameter"


# ---------------------------------------------------------------- the arithmetic


def test_flux_dev_bf16_inference_weights() -> None:
    r = _est(model="flux dev")
    comps = {c.name: c.weights_gb for c in r.components}
    assert comps["transformer"] == pytest.approx(23.8, abs=0.01)  # 11.9e9 × 2 B
    total = (FLUX_TRANSFORMER + T5_XXL_ENC + CLIP_L + VAE) * 2 / 1e9  # = 33.74 GB
    assert r.weights_gb == pytest.approx(total, abs=0.02)


def test_flux_full_finetune_16_bytes_sharded_over_four_80g_cards_fits() -> None:
    r = _est(model="FLUX.1-dev", mode="full", gpu="A100 80G", gpus=4)
    assert r.trained_states_gb == pytest.approx(190.4, abs=0.1)  # 11.9e9 × 16 B
    frozen = (T5_XXL_ENC + CLIP_L + VAE) * 2 / 1e9  # 9.94 GB on every card
    assert r.per_gpu_gb == pytest.approx(190.42 / 4 + frozen, abs=0.05)  # ≈ 57.6 GB
    assert r.usable_gb == pytest.approx(85.9, abs=0.05)  # 81,920 MiB × 2^20 B
    assert r.verdict == "fits"


def test_flux_full_finetune_18_bytes_and_one_card_does_not_fit() -> None:
    r = _est(model="flux", mode="full", gpu="H800", bytes_per_param=18)
    assert r.trained_states_gb == pytest.approx(214.2, abs=0.1)  # 11.9e9 × 18 B (fp32 gradients)
    assert r.verdict == "does_not_fit"
    # (214.2) / (85.9 − 9.94) = 2.82 → 3 cards with ZeRO-3
    assert r.min_gpus_zero3 == 3


def test_sd15_on_a_2gb_card_needs_offload() -> None:
    r = _est(model="stable diffusion", gpu="2GB")
    assert r.model == "Stable-Diffusion-1.5" and r.assumed_from == "stable diffusion"
    assert r.weights_gb == pytest.approx((860e6 + 123.06e6 + 84e6) * 2 / 1e9, abs=0.01)  # 2.13 GB > 2 GB
    assert r.fits is False and r.verdict == "fits_with_changes"
    offload = next(o for o in r.options if o.id == "model_cpu_offload")
    assert offload.peak_gb == pytest.approx(1.72, abs=0.01) and offload.fits  # the UNet alone, 860M × 2 B


def test_qwen_image_lora_on_eight_l20_data_parallel_vs_zero3() -> None:
    r = _est(model="qwen_image", mode="lora", gpu="L20", gpus=8)
    comps = {c.name: c.weights_gb for c in r.components}
    assert comps["transformer"] == pytest.approx(40.9, abs=0.05)  # 20.4e9 × 2 B
    assert comps["text_encoder"] == pytest.approx(16.58, abs=0.01)  # Qwen2.5-VL-7B 8.29e9 × 2 B
    adapters = 20.43e9 * 0.01 * 16 / 1e9  # 3.27 GB
    assert r.per_gpu_gb == pytest.approx(57.7 + adapters, abs=0.1)  # a full copy per card > 48 GB
    assert r.fits is False and r.verdict == "fits_with_changes"
    assert r.zero3_per_gpu_gb == pytest.approx(57.7 / 8 + adapters, abs=0.1)


def test_whisper_large_v3_on_t4_and_hunyuanvideo_on_4090() -> None:
    w = _est(model="Whisper large-v3", gpu="T4")
    assert w.weights_gb == pytest.approx(3.1, abs=0.01)  # 1550M × 2 B
    assert w.verdict == "fits" and not w.options
    h = _est(model="混元视频", gpu="4090")
    # 13e9 + 7.50e9 (Llama-3-8B without its 128,256 × 4,096 head) + CLIP-L, × 2 B = 41.3 GB; largest part 26 GB
    assert h.weights_gb == pytest.approx(41.26, abs=0.02)
    by_id = {o.id: o for o in h.options}
    assert by_id["model_cpu_offload"].fits is False  # 26 GB > 24,564 MiB = 25.76 GB even one component at a time
    assert by_id["fp8_and_text_encoder_offload"].peak_gb == pytest.approx(13.0, abs=0.01)  # 13e9 × 1 B
    assert h.verdict == "fits_with_changes"


def test_bad_input_is_a_bilingual_error() -> None:
    out = run_tool("estimate_pipeline_memory", {"model": "no-such-diffusion-model"})
    assert "zh" in out["error"] and "en" in out["error"]
    out = run_tool("estimate_pipeline_memory", {"model": "sdxl", "precision": "fp7"})
    assert "error" in out


def test_estimate_memory_answers_pipeline_names_and_keeps_its_keys() -> None:
    out = run_tool("estimate_memory", {"model": "sdxl", "mode": "inference", "gpu": "8GB"})
    # SDXL base: 2.6B UNet + 0.817B text encoders + 84M VAE (SDXL paper Table 1), × 2 B = 7.0 GB
    assert out["total_gb"] == pytest.approx(7.0, abs=0.01)
    assert out["model_kind"] == "pipeline" and out["fits"] is True
    for key in ("weights_gb", "gradients_gb", "optimizer_gb", "kv_cache_gb", "verdict", "summary", "sources"):
        assert key in out
    llm = run_tool("estimate_memory", {"model": "qwen2.5 7b", "mode": "inference"})
    assert llm["model_kind"] == "catalog" and llm.get("pipeline") is None


# ---------------------------------------------------------------- reading casual phrasings


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("flux dev 能在24G上跑吗", "FLUX.1-dev"),
        ("FLux1-dev lora训练要多大显存", "FLUX.1-dev"),
        ("catvton-flux 全参要几张卡", "FLUX.1-Fill-dev"),
        ("sd1.5 用 4G 显存卡能出图吗", "Stable-Diffusion-1.5"),
        ("SDXL base on a 3060?", "SDXL-base-1.0"),
        ("qwen_image 的lora 要多少显存", "Qwen-Image"),
        ("Qwen-Image-Edit-2511 OOM", "Qwen-Image-Edit"),
        ("通义万相2.1 1.3b 推理", "Wan2.1-T2V-1.3B"),
        ("wan2.1 14B i2v 显存", "Wan2.1-T2V-14B"),
        ("hunyuan video 720p", "HunyuanVideo"),
        ("whisper-large-v3 transcribe on cpu or gpu", "Whisper-large-v3"),
        ("cogvideox 5b finetune", "CogVideoX-5B"),
        ("SD 4G显存能出图吗", "Stable-Diffusion-1.5"),  # a size after the generic name is a card, not a version
    ],
)
def test_pipeline_names_in_text(text: str, expected: str) -> None:
    hit = pipeline_in_text(text)
    assert hit is not None and hit[0] == expected


@pytest.mark.parametrize(
    "text",
    [
        "WAN 口带宽不够",
        "influxdb 要多少内存",
        "Qwen2.5-7B 推理",
        "wanted to fit llama",
        "FLUX.2-dev 要多大显存",  # another generation (32B), not FLUX.1 under its short name
        "HunyuanVideo 2.0 显存",  # a release the catalog lacks (1.5 is a row since round 4)
        "SD 4 显存",  # "SD" plus a version the catalog lacks (SD 3 Medium is a row since round 4)
        "SD卡 读写慢",  # a memory card
    ],
)
def test_not_a_pipeline(text: str) -> None:
    assert pipeline_in_text(text) is None


# ---------------------------------------------------------------- chat answers lead with verdict + number


def _ask(q: str) -> tuple[str, list]:
    a, results = answer(q)
    sources = [q] + [r.result for r in results]
    report = check(a.text, sources)
    assert report.grounded, report.ungrounded
    return a.text, results


def test_zh_flux_full_finetune_two_cards_line1() -> None:
    text, results = _ask("flux1 dev 全量微调，两张A100 80G 够不够")
    assert any(r.name == "estimate_memory" and r.args.get("mode") == "full" for r in results)
    line1 = text.split("\n")[0]
    # 190.42 / 2 + 9.94 = 105.2 GB per card > 85.9 GB usable
    assert "放不下" in line1 and "190.4 GB" in line1 and "105.2 GB" in line1


def test_zh_wan_on_4090_fits() -> None:
    text, results = _ask("Wan2.1 1.3B 4090能推理吗")
    line1 = text.split("\n")[0]
    # 1.42e9 × 2 + 5.68e9 × 2 + 0.127e9 × 2 = 14.45 GB vs 25.76 GB
    assert line1.startswith("放得下") and "14.4 GB" in line1
    assert any(r.name == "estimate_memory" for r in results)


def test_en_sd_on_2gb_card_says_does_not_fit_and_names_lowvram() -> None:
    text, _ = _ask("can stable diffusion webui run on my 2gb gtx card without lowvram?")
    line1 = text.split("\n")[0]
    assert line1.startswith("Does not fit") and "2.1 GB" in line1
    assert "--lowvram" in text and "--medvram" in text


def test_zh_typo_qwen_image_lora_eight_cards() -> None:
    text, results = _ask("qwen-imgae 不对，qwen_image lora 8卡L20 跑不了吗")
    call = next(r for r in results if r.name == "estimate_memory")
    assert call.args.get("gpus") == 8 and call.args.get("mode") == "lora"
    line1 = text.split("\n")[0]
    assert "放不下" in line1 and "57.7 GB" in line1 and "ZeRO-3" in line1


def test_en_whisper_vram_no_card_gives_the_number() -> None:
    text, _ = _ask("How much VRAM does Whisper large-v3 need?")
    assert "3.1 GB" in text.split("\n")[0]
    assert "4.7 GB" in text  # whisper.cpp README: large ~4.7 GB in memory


def test_tight_fit_says_so_and_leads_with_offload() -> None:
    # SDXL 7.0 GB of weights on an 8 GB card: 1.0 GB left, under 15% of the card; model offload peak = UNet 2.6e9 × 2
    text, _ = _ask("sdxl 8G显存能出图吗")
    line1 = text.split("\n")[0]
    assert "勉强放得下" in line1 and "7 GB" in line1 and "5.2 GB" in line1


def test_qwen_image_on_4090_fits_only_with_fp8_and_text_encoder_off_the_gpu() -> None:
    r = _est(model="Qwen-Image", gpu="RTX 4090")
    by_id = {o.id: o for o in r.options}
    assert by_id["model_cpu_offload"].fits is False  # the 40.9 GB transformer alone > 25.76 GB
    assert (
        by_id["fp8_denoiser"].peak_gb == pytest.approx(20.43 + 16.58 + 0.25, abs=0.05)
        and not by_id["fp8_denoiser"].fits
    )
    both = by_id["fp8_and_text_encoder_offload"]
    assert both.peak_gb == pytest.approx(20.43 + 0.25, abs=0.05) and both.fits  # 20.4e9 × 1 B + VAE
    assert r.verdict == "fits_with_changes"


def test_zh_oom_on_a_pipeline_leads_with_the_weights_not_an_llm_passage() -> None:
    text, results = _ask("qwen image 在4090上推理 爆显存了 怎么办")
    assert results[0].name == "estimate_memory"
    line1 = text.split("\n")[0]
    assert "放不下" in line1 and "57.7 GB" in line1 and "20.7 GB" in line1
    assert "KV" not in text


def test_published_peak_above_the_card_decides_even_when_the_weights_fit() -> None:
    # HunyuanVideo weights 41.3 GB < A100 40GB's 40,960 MiB = 42.9 GB, but the model card measured a 60 GB peak at
    # 720×1280 × 129 frames: at the publisher's settings it does not fit.
    r = _est(model="HunyuanVideo", gpu="A100 40GB")
    assert r.fits is True and r.published_over is not None and r.published_over.peak_gb == 60
    assert r.verdict == "fits_with_changes"
    text, _ = _ask("hunyuanvideo 720p 用 A100 40G 能跑吗")
    line1 = text.split("\n")[0]
    assert "放不下" in line1 and "60 GB" in line1 and "41.3 GB" in line1


def test_parameter_question_leads_with_the_counts() -> None:
    # FLUX.1-dev: 11.90B + 4.76B + 0.123B + 0.084B = 16.87B parameters; × 2 B = 33.7 GB
    text, _ = _ask("flux dev 有多少参数")
    line1 = text.split("\n")[0]
    assert "16.87B" in line1 and "transformer 11.901B" in line1 and "33.7 GB" in line1
