"""A published or measured training run carried to the user's card: the band of days leads.

Real questions from public issue trackers (not in evals/real/dev), each with the expected band worked by hand:
  compute end   = ref_cards × ref_hours × ref dense fp16/bf16 TFLOPS / (cards × dense TFLOPS)
  bandwidth end = ref_cards × ref_hours × ref memory GB/s / (cards × memory GB/s)
Card figures (NVIDIA datasheets): V100 125 TFLOPS fp16 tensor, 900 GB/s; A100 80GB 312, 2039 GB/s; A100 40GB
312, 1555 GB/s; RTX 3090 71 (fp16 with fp32 accumulate), 936 GB/s; RTX 4090 165.2, 1008 GB/s; RTX 2080 Ti 53.8,
616 GB/s; H800 SXM 989.4, 3350 GB/s; A800 80GB 312, 2039 GB/s.
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.reading.run_figures import read_run_figures
from tools.errors import ToolInputError
from tools.train_scaling import RescaleInput, rescale_training_time

# (url, question as the thread puts it, low days, high days) — hand-worked in the comment of each row
REAL = [
    # 8 V100 × 31 h → one 3090: 8×31×125/71 = 436.6 h = 18.2 d; 8×31×900/936 = 238.5 h = 9.9 d
    (
        "https://github.com/zju3dv/NeuralRecon/issues/25",
        "We used 8x Tesla V100 for training, and the training converges at 47 epochs, which takes ~31h. "
        "All I have is a single RTX3090 — can I train it, and how long would it take?",
        9.9,
        18.2,
    ),
    # 8 V100 × 96 h → one 4090: 8×96×125/165.2 = 581.1 h = 24.2 d; 8×96×900/1008 = 685.7 h = 28.6 d
    (
        "https://github.com/zsyOAOA/ResShift/issues/68",
        "For the journal version, about 4 days on 8 V100. How long would it take me on one RTX 4090?",
        24.2,
        28.6,
    ),
    # 8 V100 × 72 h → one 3090: 8×72×125/71 = 1014 h = 42.3 d; 8×72×900/936 = 553.8 h = 23.1 d
    (
        "https://github.com/megvii-research/NAFNet/issues/80",
        "作者回复：width64 的模型，在8张V100上训练，大概3天。我只有一张3090，要训练多久？",
        23.1,
        42.3,
    ),
    # 4 A100 (80GB row) × 96 h → one 4090: 4×96×312/165.2 = 725.2 h = 30.2 d; 4×96×2039/1008 = 776.8 h = 32.4 d
    (
        "https://github.com/zhengchen1999/CAT/issues/9",
        "作者说在4卡A100下的训练时间 x2 大约4天，我用一张4090要多久？",
        30.2,
        32.4,
    ),
    # 8 V100 × 72 h → one A100: 8×72×125/312 = 230.8 h = 9.6 d; 8×72×900/2039 = 254.2 h = 10.6 d
    (
        "https://github.com/xmed-lab/NuInstruct/issues/1",
        "It takes around 3 days using 8 V100 GPUs. How long on a single A100?",
        9.6,
        10.6,
    ),
    # same card, fewer of them: 8 × 336 h / 1 = 2688 h = 112 d at both ends
    (
        "https://github.com/ShineChen1024/MiaoBi/issues/4",
        "作者说 8x4090 训练了两周，我只有一张4090，要训多久？",
        112.0,
        112.0,
    ),
    # 8 A100 × 120 h → two 3090: 8×120×312/(2×71) = 2109 h = 87.9 d; 8×120×2039/(2×936) = 1045.6 h = 43.6 d
    (
        "https://github.com/AIRI-Institute/GENA_LM/issues/15",
        "It takes approximately 5 days to train a base-sized model using 8 A100 GPUs. Could I train it on 2 RTX 3090s, "
        "how long?",
        43.6,
        87.9,
    ),
    # 8 V100 × 204 h → one 2080 Ti: 8×204×125/53.8 = 3792 h = 158 d; 8×204×900/616 = 2384 h = 99.4 d
    (
        "https://github.com/NVlabs/eg3d/issues/96",
        "Our total training time on 8 Tesla V100 GPUs is on the order of 8.5 days. How much time will it take to "
        "complete training if merely using a single 2080Ti?",
        99.4,
        158.0,
    ),
]

# my own casual phrasings (zh/en), hand-worked the same way
OWN = [
    # 8 V100 × 72 h → one 4090: 8×72×125/165.2 = 435.8 h = 18.2 d; 8×72×900/1008 = 514.3 h = 21.4 d
    ("论文说8张V100训了3天，我一张4090要多久", 18.2, 21.4),
    # 4 A800 × 168 h → one 3090: 4×168×312/71 = 2953 h = 123 d; 4×168×2039/936 = 1464 h = 61 d
    ("作者：Training from scratch takes about one week on 4 NVIDIA A800 GPUs. 我就一个3090能跑吗", 61.0, 123.0),
    # 4 A100 × 96 h → two 3090: 4×96×312/(2×71) = 843.8 h = 35.2 d; 4×96×2039/(2×936) = 418.3 h = 17.4 d
    ("作者说4卡A100大约4天，我只有两张3090，大概多久", 17.4, 35.2),
    # 8 A100 40GB × 96 h → one V100 16GB: 8×96×312/125 = 1917 h = 79.9 d; 8×96×1555/900 = 1327 h = 55.3 d
    ("README says about 4 days on 8 A100 40GB. I only have one V100 16GB, how long?", 55.3, 79.9),
]


def _days_in(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"(\d+(?:\.\d+)?)\s*(?:天|days?)", text)]


def _band(text: str) -> tuple[float, float]:
    m = re.search(r"(\d+(?:\.\d+)?)[–-](\d+(?:\.\d+)?)\s*(?:天|days)", text.splitlines()[0])
    if m:
        return float(m.group(1)), float(m.group(2))
    m1 = re.search(r"(\d+(?:\.\d+)?)\s*(?:天|days?)", text.splitlines()[0])
    assert m1, text[:300]
    return float(m1.group(1)), float(m1.group(1))


@pytest.mark.parametrize(("url", "q", "lo", "hi"), REAL, ids=[r[0].split("github.com/")[1] for r in REAL])
def test_real_published_runs_carried_to_the_users_card(url: str, q: str, lo: float, hi: float) -> None:
    text, results = _ask(q)
    assert "rescale_training_time" in [r.name for r in results], (url, [r.name for r in results])
    got_lo, got_hi = _band(text)
    assert got_lo == pytest.approx(lo, rel=0.04) and got_hi == pytest.approx(hi, rel=0.04), (url, text[:300])


@pytest.mark.parametrize(("q", "lo", "hi"), OWN)
def test_own_phrasings_lead_with_the_band_of_days(q: str, lo: float, hi: float) -> None:
    text, _ = _ask(q)
    got_lo, got_hi = _band(text)
    assert got_lo == pytest.approx(lo, rel=0.04) and got_hi == pytest.approx(hi, rel=0.04), text[:300]
    assert "TFLOPS" in text and "GB/s" in text  # both assumptions are said, with the figures


def _ask(q: str) -> tuple[str, list]:
    a, results = answer(q)
    return a.text, results


# ---- a measured rate × the run's units comes first ------------------------------------------------------------


def test_measured_rate_on_a_3090_carried_to_a_4090_leads_before_the_readme_figure() -> None:
    # GET3D (github.com/nv-tlabs/GET3D): 230 s/kimg × 20000 kimg = 4.6e6 s = 1277.8 h on one 3090 (53.2 days);
    # → one 4090: 1277.8 × 71/165.2 = 549.2 h = 22.9 d (compute); 1277.8 × 936/1008 = 1186.5 h = 49.4 d (bandwidth).
    # The README's 8 V100 × 48 h → 4090: 8×48×125/165.2 = 290.6 h = 12.1 d; 8×48×900/1008 = 342.9 h = 14.3 d.
    q = (
        "I have only one RTX 4090 — will training work? Someone wrote: I tried to train on a 3090, the speed is "
        "230sec/kimg and the duration is 20000kimg. The README says they used 8 V100 for 2 days."
    )
    text, results = _ask(q)
    first = text.splitlines()[0]
    assert _band(text) == (pytest.approx(22.9, rel=0.03), pytest.approx(49.4, rel=0.03))
    assert "230" in first and "20000" in first
    rescales = [r for r in results if r.name == "rescale_training_time"]
    assert rescales[0].args.get("ref_seconds_per_unit") == 230 and rescales[0].args.get("ref_units") == 20000
    assert rescales[1].result["low_days"] == pytest.approx(12.1, rel=0.03)
    assert rescales[1].result["high_days"] == pytest.approx(14.3, rel=0.03)


def test_rate_on_the_users_own_cards_is_just_rate_times_steps() -> None:
    # SemanticStyleGAN (https://github.com/seasonSH/SemanticStyleGAN/issues/7): 8 × 3090 at 1.77 s/it ×
    # 150,000 steps = 265,500 s = 73.75 h ≈ 3.1 days on those same cards.
    fig = read_run_figures("I'm running on 8 RTX 3090 cards at 1.77 s/it; the paper trains 150,000 steps. How long?")
    assert fig is not None and fig.ref_gpu == fig.gpu == "rtx_3090" and fig.ref_gpus == fig.n_gpus == 8
    out = rescale_training_time(
        RescaleInput(
            ref_gpu=fig.ref_gpu,
            ref_gpus=fig.ref_gpus,
            ref_seconds_per_unit=fig.ref_seconds_per_unit,
            ref_units=fig.ref_units,
            unit=fig.unit,
            gpu=fig.gpu,
            n_gpus=fig.n_gpus,
        )
    )
    assert out.ref_total_hours == pytest.approx(73.75, abs=0.01)
    assert out.hours == pytest.approx(73.8, abs=0.1)


def test_h800_rate_carried_to_a_4090_by_hand() -> None:
    # ZonUI-3B (https://github.com/Han1018/ZonUI-3B/issues/3): 55 s × 122 × 12 = 80,520 s = 22.37 h on one H800.
    # → 4090: 22.37 × 989.4/165.2 = 134.0 h (compute); 22.37 × 3350/1008 = 74.3 h (bandwidth).
    out = rescale_training_time(
        RescaleInput(ref_gpu="H800", ref_gpus=1, ref_seconds_per_unit=55, ref_units=122 * 12, gpu="4090", n_gpus=1)
    )
    assert out.hours == pytest.approx(134.0, rel=0.01)
    assert out.bandwidth_hours == pytest.approx(74.3, rel=0.01)
    assert out.low_days == pytest.approx(3.1, abs=0.1) and out.high_days == pytest.approx(5.6, abs=0.1)


def test_nanogpt_readme_four_days_on_8_a100_40gb_to_one_v100_16gb() -> None:
    # karpathy/nanoGPT README: GPT-2 124M on OpenWebText "on a single 8XA100 40GB node in about 4 days".
    # → one V100 16GB: 8×96×312/125 = 1917 h = 79.9 d; 8×96×1555/900 = 1327 h = 55.3 d.
    text, results = _ask("Is it possible to pre-train GPT-2 124M with nanoGPT from scratch using one V100 16GB?")
    assert _band(text) == (pytest.approx(55.3, rel=0.03), pytest.approx(79.9, rel=0.03))
    assert "published_run" in [r.name for r in results]


def test_missing_duration_is_a_bilingual_error() -> None:
    with pytest.raises(ToolInputError) as e:
        rescale_training_time(RescaleInput(ref_gpu="V100", ref_gpus=8, gpu="4090", n_gpus=1))
    assert "ref_hours" in str(e.value.en) and "时长" in str(e.value.zh)


def test_one_card_and_a_deadline_is_not_a_published_run() -> None:
    assert read_run_figures("Is it possible to train 2B model by 8*A800 within 1 month?") is None
    assert read_run_figures("8张A800做SFT跑了60小时正常吗") is None


def test_same_card_fewer_of_them_is_gpu_hours_over_cards() -> None:
    # DVD (https://github.com/fanjunkai1/DVD/issues/3): two 3090s, "Approximately 58 hours" → one 3090:
    # 2 × 58 = 116 GPU-hours = 116 h ≈ 4.8 days, linear scaling assumed (said in the answer)
    text, _ = _ask("作者说用两张3090一次完整训练大概58小时，我只有一张3090要多久？")
    assert _band(text) == (pytest.approx(4.8, abs=0.05), pytest.approx(4.8, abs=0.05))
    assert "线性" in text


def test_a_short_run_leads_in_hours() -> None:
    # LIC_TCM (https://github.com/jmliu206/LIC_TCM/issues/26): "about 12 hours … with 4 v100 32G" → one 3090:
    # 4×12×125/71 = 84.5 h (compute); 4×12×900/936 = 46.2 h (bandwidth)
    text, _ = _ask(
        "On a training set with 50,000 images, I spent about 12 hours of training time with 4 v100 32G gpu's. "
        "Approximately how long on one RTX3090?"
    )
    m = re.search(r"(\d+(?:\.\d+)?)–(\d+(?:\.\d+)?) hours", text.splitlines()[0])
    # hours of 10 or more are shown whole
    assert m and float(m.group(1)) == pytest.approx(46.2, abs=0.6) and float(m.group(2)) == pytest.approx(84.5, abs=0.6)
