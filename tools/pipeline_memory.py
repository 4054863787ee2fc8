"""GPU memory of pipeline models (image / video / speech): the weights of every network the pipeline keeps resident.

Why a separate estimator: a diffusion or speech pipeline is several networks (denoiser + text encoders + VAE, or one
encoder-decoder), not one decoder LLM — no KV cache, and the question is which of them sit on the GPU at once.
The catalog is knowledge/pipelines.yaml (components with parameter counts, shipped dtype, the trained component, a
source per row); the settings that change residency (diffusers offload, WebUI --medvram/--lowvram, FP8) are data
there too and are quoted in answers.

Formulas (decimal GB, 10^9 bytes):
    inference = Σ component params × bytes/param at the dtype (2 for bf16/fp16, 4 fp32, 1 fp8/int8, 0.5 4-bit);
                activations (they grow with resolution, frames and batch) and the CUDA context are NOT included.
    full fine-tune = trained params × 16 B (mixed-precision AdamW: 2 weights + 2 grads + 12 fp32 master/m/v;
                ZeRO paper, Rajbhandari et al. 2020, arXiv:1910.02054 §3.1; DeepSpeed's accounting with fp32
                gradients is 18 B) / N cards with ZeRO-3/FSDP, + the frozen components' 16-bit weights per card.
    LoRA = all weights frozen at the dtype + adapter states (assumed 1% of the trained component × 16 B).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field

from tools.errors import ToolInputError

GB = 10**9
ADAM_MIXED_BYTES = 16.0  # ZeRO paper §3.1: 2Ψ + 2Ψ + KΨ with K = 12
LORA_FRACTION = 0.01  # adapters at rank ≤ 64 are well under 1% of a multi-billion denoiser; stated as an assumption
ZERO_PAPER = "https://arxiv.org/abs/1910.02054"
# Below this share of the card left over, the weights fit but activations (a 1024² VAE decode, many frames) and the
# CUDA context decide: the answer says so and leads with the offload setting. A judgement threshold, stated as such.
TIGHT_SHARE = 0.15

_TRAINING_PEAK = re.compile(r"fine-tun|lora|sft|训练|微调", re.I)  # a measured peak of a training run
_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5, "nf4": 0.5}
Role = Literal[
    "denoiser", "text_encoder", "vae", "encoder_decoder", "generator", "image_encoder", "audio_encoder", "vocoder"
]
# the networks that run at the requested precision (the rest load at 16 bits); "generator" = an autoregressive or
# flow-matching speech/music model (MusicGen's LM, F5-TTS's DiT) that plays the denoiser's part
MAIN_ROLES = ("denoiser", "encoder_decoder", "generator")
Kind = Literal["image", "video", "tts", "asr", "audio", "avatar"]
PipelineMode = Literal["inference", "full", "lora", "qlora"]
PipelineVerdict = Literal["fits", "fits_with_changes", "does_not_fit"]


class PipelineComponent(BaseModel):
    name: str
    role: Role
    params: int = Field(gt=0)
    label: str | None = Field(None, description="what the network is, as people name it ('ChatGLM3-6B', 'T5-XXL')")
    note: str | None = None


class LowVramMode(BaseModel):
    """A project's own low-memory switch, by its real flag name, with the peak its maintainers measured (if they
    published one). Quoted before the generic diffusers settings: people search for the flag they can type."""

    flag: str
    peak_gb: float | None = Field(None, gt=0, description="measured peak with this mode; None = not published")
    setting: str | None = Field(None, description="what the peak was measured at (resolution, frames, card)")
    zh: str
    en: str
    source: str


class Advice(BaseModel):
    """A fact about running this model that changes the memory answer (a runtime's dtype, a quantised build)."""

    zh: str
    en: str
    source: str


class PublishedPeak(BaseModel):
    """A peak memory the publisher (or the runtime's README) measured, quoted beside the weights-only figure."""

    setting: str
    peak_gb: float = Field(gt=0)
    source: str


class PipelineRelease(BaseModel):
    name: str
    precision: str
    file_gb: float | None = None
    source: str


class PipelineEntry(BaseModel):
    """One row of knowledge/pipelines.yaml."""

    id: str
    kind: Kind
    family: str
    hf_repo: str
    aliases: list[str] = []
    assumed_aliases: list[str] = Field(
        default_factory=list, description="generic names sized as this row (said in the answer)"
    )
    shipped_precision: str
    run_precision: str | None = Field(None, description="dtype the usual runtimes load (A1111 loads fp32 SD in fp16)")
    trained: str = Field(description="the component a fine-tune trains")
    components: list[PipelineComponent]
    components_note: dict[str, str] | None = Field(None, description="what the components leave out (zh/en)")
    published_peaks: list[PublishedPeak] = []
    low_vram: list[LowVramMode] = Field(default_factory=list, description="the project's own low-memory modes")
    requires_bf16: bool = Field(False, description="the publisher runs it in bf16 only (fp16 overflows)")
    bf16_source: str | None = None
    advice: list[Advice] = []
    releases: list[PipelineRelease] = []
    notes: str | None = None
    source: str
    as_of: str

    @property
    def precision(self) -> str:
        return self.run_precision or self.shipped_precision


class ResidencyOption(BaseModel):
    id: str
    peak: Literal[
        "largest_component",
        "streamed",
        "denoiser_and_vae",
        "denoiser_fp8",
        "denoiser_fp8_no_text",
        "largest_component_fp8",
    ]
    zh: str
    en: str
    source: str


@lru_cache(maxsize=1)
def _doc() -> dict:
    from tools.data import load_yaml

    return load_yaml("pipelines.yaml")


@lru_cache(maxsize=1)
def load_pipelines() -> tuple[PipelineEntry, ...]:
    """Every pipeline row, validated once."""
    doc = _doc()
    return tuple(PipelineEntry.model_validate({"as_of": doc.get("as_of"), **row}) for row in doc["pipelines"])


@lru_cache(maxsize=1)
def residency_options() -> tuple[ResidencyOption, ...]:
    return tuple(ResidencyOption.model_validate(r) for r in _doc().get("residency_options", []))


def _key(text: str) -> str:
    return re.sub(r"[\s\-_]+", " ", str(text).strip().lower().split("/")[-1]).strip()


@lru_cache(maxsize=1)
def _names() -> dict[str, tuple[str, bool]]:
    """Normalised name → (pipeline id, assumed). Ids and repos first, then aliases, then assumed generic names."""
    out: dict[str, tuple[str, bool]] = {}
    rows = load_pipelines()
    for e in rows:
        for n in (e.id, e.hf_repo):
            out.setdefault(_key(n), (e.id, False))
    for e in rows:
        for n in e.aliases:
            out.setdefault(_key(n), (e.id, False))
    for e in rows:
        for n in e.assumed_aliases:
            out.setdefault(_key(n), (e.id, True))
    return out


def find_pipeline(name: str | None) -> tuple[PipelineEntry, bool] | None:
    """(row, assumed) for a pipeline name as people write it ('flux dev', 'qwen_image', 'SDXL'); None if unknown."""
    if not name:
        return None
    hit = _names().get(_key(name)) or _names().get(_key(re.sub(r"\.", " ", name)))
    if hit is None:
        return None
    entry = next(e for e in load_pipelines() if e.id == hit[0])
    return entry, hit[1]


@lru_cache(maxsize=1)
def _text_pattern() -> tuple[re.Pattern[str], list[tuple[str, bool]]]:
    """One alternation over every name, longest first (so at one position the longest name wins), each in its own
    group: one regex pass per question instead of one per name (the planner's latency budget is ~20 ms)."""
    keys = sorted(_names().items(), key=lambda kv: -len(kv[0]))
    alts = []
    for n, (key, _hit) in enumerate(keys):
        body = r"[\s\-_]*".join(re.escape(p) for p in key.split(" "))
        alts.append(f"(?P<n{n}>{body})")
    # "flux.2" / "flux-2" is another generation, not FLUX.1 under its short name
    # a one-character class first: most positions fail there, before the long alternation is tried
    first = "".join(sorted({re.escape(k[0]) for k, _hit in keys}))
    rx = re.compile(r"(?=[" + first + r"])(?<![a-z0-9])(?:" + "|".join(alts) + r")(?![a-z0-9])(?![.\-]\d)", re.I)
    return rx, [hit for _key, hit in keys]


# a version is one or two digits ("SD 3", "whisper v3", "musicgen 2.0"); "whisper 3090" / "SD 4090" is a card
_VERSION_AFTER = re.compile(r"[\s\-_.]*v?\d{1,2}(?:\.\d+)?(?!\d)")
_SIZE_AFTER = re.compile(r"[\s\-_.]*\d+(?:\.\d+)?\s*(?:gib|gb|g|张|块|卡|x|×)", re.I)
# "HunyuanVideo 1.5", "SDXL 2.0": a dotted version after a specific name is a later release, not this row
_DOTTED_AFTER = re.compile(r"[\s\-_]*v?\d+\.\d+(?![\d.]*\s*(?:b|m|g|亿|张|块|卡|x|×))", re.I)


def pipeline_in_text(text: str) -> tuple[str, bool] | None:
    """The longest pipeline name in free text → (id, assumed); the reading layer's vocabulary. A generic name
    ("stable diffusion", "SD", "whisper") followed by a version ("SD 3", "stable diffusion 2") is another model the
    catalog may not have, so it is not taken; followed by a size ("SD 4G显存") it still is."""
    low = text.lower()
    rx, hits = _text_pattern()
    fallback: tuple[str, bool] | None = None
    for m in rx.finditer(low):
        pid, assumed = hits[int(str(m.lastgroup)[1:])]
        rest = low[m.end() : m.end() + 12]
        if assumed and (rest.startswith("卡") or (_VERSION_AFTER.match(rest) and not _SIZE_AFTER.match(rest))):
            continue  # 「SD卡」 is a memory card; "SD 3" another model
        if _DOTTED_AFTER.match(rest):
            continue
        if not assumed:
            return pid, False  # a specific name beats a generic one anywhere in the text
        fallback = fallback or (pid, True)
    return fallback


# ---------------------------------------------------------------- the estimate


class EstimatePipelineInput(BaseModel):
    model: str = Field(description="pipeline model name ('FLUX.1-dev', 'sdxl', 'qwen-image', 'Wan2.1 14B', 'whisper')")
    mode: PipelineMode = Field("inference", description="inference | full (fine-tune the trained component) | lora")
    precision: str | None = Field(
        None, description="denoiser weight dtype: bf16/fp16/fp32/fp8/int8/int4/nf4; default the usual runtime dtype"
    )
    gpu: str | None = Field(None, description="GPU name or size ('4090', 'A100 80G', '24GB') for a verdict")
    gpus: int = Field(1, ge=1, le=4096, description="cards; training shards the trained states with ZeRO-3/FSDP")
    zero3: bool = Field(False, description="LoRA over several cards with ZeRO-3/FSDP (frozen weights sharded too)")
    bytes_per_param: float = Field(
        ADAM_MIXED_BYTES,
        ge=12,
        le=20,
        description="full fine-tune bytes per trained parameter (16; 18 with fp32 grads)",
    )


class ComponentMemory(BaseModel):
    name: str
    role: Role
    params: int
    precision: str
    bytes_per_param: float
    params_b: float = Field(description="parameters in billions (display)")
    weights_gb: float
    trained: bool
    label: str | None = None
    note: str | None = None


class LowVramFit(BaseModel):
    flag: str
    peak_gb: float | None = None
    setting: str | None = None
    fits: bool | None = Field(None, description="the measured peak is within the card's usable memory")
    zh: str
    en: str
    source: str


class OptionFit(BaseModel):
    id: str
    peak_gb: float | None = Field(None, description="per-GPU weights with this setting; None = streamed (a few GB)")
    fits: bool | None = None
    zh: str
    en: str
    source: str


class PipelineEstimate(BaseModel):
    model: str
    kind: Kind
    family: str
    assumed_from: str | None = Field(
        None, description="the generic name this row was assumed from ('stable diffusion')"
    )
    mode: PipelineMode
    precision: str
    gpus: int
    components: list[ComponentMemory]
    weights_gb: float = Field(description="all components' weights at their dtype, one copy")
    total_params_b: float = Field(description="all components' parameters, billions")
    trained_params: int
    trained_component: str
    bytes_per_param: float = Field(description="full fine-tune bytes per trained parameter")
    lora_fraction_pct: float = Field(LORA_FRACTION * 100, description="adapter size assumed, % of the trained part")
    frozen_gb: float = Field(0.0, description="full FT: the frozen components' weights on each card")
    text_encoders_gb: float = Field(0.0, description="the text encoders' weights (what precomputing prompts saves)")
    without_text_encoders_gb: float | None = Field(
        None, description="per-GPU figure with the text encoders off the GPU"
    )
    zero3_per_gpu_gb: float | None = Field(
        None, description="LoRA over N cards: per card if ZeRO-3/FSDP shards the weights"
    )
    fp8_base_per_gpu_gb: float | None = Field(
        None, description="LoRA with the frozen denoiser in FP8/8-bit (1 B/param), per card"
    )
    fp8_base_no_text_gb: float | None = Field(None, description="the same with the text encoders off the GPU")
    min_gpus_zero3: int | None = Field(
        None, description="full FT: fewest cards of this kind that hold the states (ZeRO-3)"
    )
    trained_states_gb: float = Field(0.0, description="full FT: trained params × bytes/param, all cards together")
    adapter_gb: float = Field(0.0, description="LoRA adapter states (assumed 1% of the trained component × 16 B)")
    per_gpu_gb: float = Field(description="what one card holds: the figure the verdict uses (activations excluded)")
    sharded: bool = False
    gpu: str | None = None
    nominal_gb: float | None = Field(None, description="the card's datasheet memory, decimal GB")
    usable_gb: float | None = Field(None, description="what the driver reports (PyTorch can use all of it), decimal GB")
    verdict: PipelineVerdict | None = None
    fits: bool | None = None
    headroom_gb: float | None = None
    tight: bool | None = Field(
        None, description="fits, but under 15% of the card is left for activations and the CUDA context"
    )
    options: list[OptionFit] = []
    published_peaks: list[PublishedPeak] = []
    published_over: PublishedPeak | None = Field(
        None, description="a measured peak for this job (no offload) above the card: at those settings it does not fit"
    )
    low_vram: list[LowVramFit] = Field(default_factory=list, description="the project's own low-memory modes")
    requires_bf16: bool = False
    bf16_native: bool | None = Field(
        None, description="the named card has bf16 tensor cores (False: Volta/Turing and older); None = not known"
    )
    fp32_weights_gb: float | None = Field(
        None, description="a bf16-only model on a card without bf16: its weights in fp32, the dtype left"
    )
    advice: list[Advice] = []
    gpu_mem_bw_gbs: float | None = Field(None, description="the named card's memory bandwidth (knowledge/gpus.yaml)")
    reference_cards: list[dict[str, float | str]] = Field(
        default_factory=list,
        description="speech models: two common cards' bandwidth beside the named one (decoding is bandwidth-bound)",
    )
    assumptions: list[dict[str, str]] = []
    sources: list[str] = []


def _bytes(precision: str) -> float:
    p = precision.lower().replace("float", "fp").replace("bfloat16", "bf16")
    if p not in _BYTES:
        raise ToolInputError(
            f"不认识的精度「{precision}」，可用：{', '.join(_BYTES)}",
            f"Unknown precision {precision!r}; use one of {', '.join(_BYTES)}",
            field="precision",
        )
    return _BYTES[p]


def _gb(x: float) -> float:
    return round(x / GB, 2)


def _components(e: PipelineEntry, mode: str, precision: str) -> list[ComponentMemory]:
    """Each network at its dtype: the denoiser at the requested precision, the others at 16 bits (4 for fp32)."""
    out = []
    for c in e.components:
        trained = c.name == e.trained
        p = precision if (c.role in MAIN_ROLES or precision == "fp32") else "bf16"
        if mode == "qlora" and trained:
            p = "nf4"
        out.append(
            ComponentMemory(
                name=c.name,
                role=c.role,
                params=c.params,
                precision=p,
                bytes_per_param=_bytes(p),
                params_b=round(c.params / 1e9, 3),
                weights_gb=_gb(c.params * _bytes(p)),
                trained=trained,
                label=c.label,
                note=c.note,
            )
        )
    return out


def _a(zh: str, en: str) -> dict[str, str]:
    return {"zh": zh, "en": en}


def _options(e: PipelineEntry, comps: list[ComponentMemory], usable: float | None) -> list[OptionFit]:
    denoiser = [c for c in comps if c.role in MAIN_ROLES]
    text = [c for c in comps if c.role == "text_encoder"]
    out = []
    for o in residency_options():
        if e.kind in ("asr", "tts"):
            continue  # speech models are not diffusers pipelines; their runtimes' own switches are in low_vram
        if o.id == "webui_lowvram" and e.family != "Stable Diffusion":
            continue
        if not any(c.role == "denoiser" for c in comps):
            continue  # MusicGen / TTS language models are not diffusers pipelines: their switches are in low_vram
        peak: float | None
        if o.peak == "largest_component":
            peak = max(c.weights_gb for c in comps)
        elif o.peak == "largest_component_fp8":
            if any(c.precision in ("fp8", "int8", "int4", "nf4") for c in denoiser):
                continue  # the denoiser is already 8-bit or smaller: model offload above says the same
            peak = max([_gb(c.params * 1.0) for c in denoiser] + [c.weights_gb for c in comps if c not in denoiser])
        elif o.peak == "denoiser_and_vae":
            if not text:
                continue
            peak = sum(c.weights_gb for c in comps if c.role != "text_encoder")
        elif o.peak in ("denoiser_fp8", "denoiser_fp8_no_text"):
            if any(c.precision in ("fp8", "int8", "int4", "nf4") for c in denoiser) or (
                o.peak == "denoiser_fp8_no_text" and not text
            ):
                continue
            others = [c for c in comps if c not in denoiser and (o.peak == "denoiser_fp8" or c.role != "text_encoder")]
            peak = sum(c.weights_gb for c in others) + sum(_gb(c.params * 1.0) for c in denoiser)
        else:
            peak = None
        fits = (peak <= usable) if (peak is not None and usable is not None) else None
        out.append(
            OptionFit(
                id=o.id,
                peak_gb=round(peak, 2) if peak is not None else None,
                fits=fits,
                zh=o.zh,
                en=o.en,
                source=o.source,
            )
        )
    return out


_REFERENCE_CARDS = ("RTX 4090", "A100 80GB")  # the two cards rented most for speech serving in China


def _bandwidths(gpu: str | None, kind: str) -> tuple[float | None, list[dict[str, float | str]]]:
    """The named card's memory bandwidth and, for speech models (token-by-token decoding reads every weight per
    step, so bandwidth sets the pace), two reference cards' — all from knowledge/gpus.yaml."""
    from tools.gpus import resolve_gpu

    if not gpu:
        return None, []
    try:
        spec = resolve_gpu(gpu)
    except Exception:  # noqa: BLE001 — a bare size has no bandwidth
        return None, []
    refs: list[dict[str, float | str]] = []
    if kind in ("asr", "tts"):
        for name in _REFERENCE_CARDS:
            ref = resolve_gpu(name)
            if ref.id != spec.id and ref.mem_bw_gbs:
                refs.append({"name": ref.name, "mem_bw_gbs": ref.mem_bw_gbs})
    return spec.mem_bw_gbs, refs


def bf16_note_needed(gpu: str | None) -> bool:
    """The general bf16 requirement is said unless a named card settles it (then the card-specific line is)."""
    return not gpu or _bf16_native(gpu) is None


def _bf16_native(gpu: str) -> bool | None:
    """Whether the named card has bf16 tensor cores, from knowledge/gpus.yaml (an NVIDIA row whose bf16 rate is
    empty is Volta/Turing or older); None for a bare size or a card not in the table."""
    from tools.gpus import resolve_gpu

    try:
        spec = resolve_gpu(gpu)
    except Exception:  # noqa: BLE001 — a bare "16GB" or an unknown name: no claim either way
        return None
    if not getattr(spec, "is_nvidia", False):
        return None
    return spec.bf16_dense_tflops is not None


def estimate_pipeline_memory(inp: EstimatePipelineInput) -> PipelineEstimate:
    """Weights-only memory of a pipeline model and, with a card, the verdict (module docstring: formulas, sources)."""
    found = find_pipeline(inp.model)
    if found is None:
        names = ", ".join(e.id for e in load_pipelines())
        raise ToolInputError(
            f"流水线模型表里没有「{inp.model}」。已收录：{names}",
            f"{inp.model!r} is not in the pipeline catalog. Known: {names}",
            field="model",
        )
    e, assumed = found
    precision = (inp.precision or e.precision).lower()
    _bytes(precision)
    mode = inp.mode
    comps = _components(
        e, mode, precision if mode == "inference" else (precision if precision in ("fp32",) else "bf16")
    )
    weights = sum(c.weights_gb for c in comps)
    trained = next((c for c in comps if c.trained), comps[0])
    n = inp.gpus
    assumptions: list[dict[str, str]] = []
    sources = [e.source, *(p.source for p in e.published_peaks)]
    states = adapter = 0.0
    sharded = False
    if mode == "inference":
        per_gpu = weights
        grows_zh, grows_en = (
            ("音频长度和批大小", "audio length and batch")
            if e.kind in ("asr", "tts", "audio")
            else (
                "分辨率、帧数和批大小",
                "resolution, frame count and batch",
            )
        )
        assumptions.append(
            _a(
                f"只算权重：激活值随{grows_zh}而增长，另算；CUDA 上下文另占几百 MB。",
                f"Weights only: activations grow with {grows_en} and are not in the figure; "
                "the CUDA context takes a few hundred MB more.",
            )
        )
        if n > 1:
            assumptions.append(
                _a(
                    "diffusers 默认不做张量并行：多张卡时每张卡各放一整份（xDiT 等序列并行另算）。",
                    "diffusers does not split one pipeline across cards by default: each card holds a full copy "
                    "(sequence-parallel runtimes such as xDiT are not counted).",
                )
            )
    elif mode == "full":
        states = trained.params * inp.bytes_per_param / GB
        frozen = sum(c.weights_gb for c in comps if not c.trained)
        sharded = n > 1
        per_gpu = states / n + frozen
        sources.append(ZERO_PAPER)
        assumptions.append(
            _a(
                f"全参微调只训练 {trained.name}：{inp.bytes_per_param:g} 字节/参数（混合精度 AdamW：bf16 权重 2 + 梯度 2 + "
                f"fp32 主权重与两个动量 12，ZeRO 论文）"
                + (f"，{n} 张卡按 ZeRO-3/FSDP 切分" if n > 1 else "")
                + "；冻结的文本编码器和 VAE 每张卡各放一份 16 位权重；激活值另算。",
                f"A full fine-tune trains only the {trained.name}: {inp.bytes_per_param:g} B/param (mixed-precision "
                "AdamW: 2 bf16 weights + 2 grads + 12 fp32 master and moments, ZeRO paper)"
                + (f", sharded over {n} cards with ZeRO-3/FSDP" if n > 1 else "")
                + "; the frozen text encoders and VAE sit in 16-bit on every card; activations are extra.",
            )
        )
    else:
        adapter = trained.params * LORA_FRACTION * ADAM_MIXED_BYTES / GB
        sharded = n > 1 and inp.zero3
        per_gpu = (weights / n if sharded else weights) + adapter
        assumptions.append(
            _a(
                f"LoRA：整条流水线的权重冻结常驻（{'NF4 4 位底座' if mode == 'qlora' else '16 位'}），适配器按 {trained.name} 参数的 1%、"
                "每参数 16 字节估算；"
                + ("多卡按 ZeRO-3/FSDP 切分冻结权重。" if sharded else "多卡数据并行（DDP）时每张卡各放一整份。")
                + "激活值另算。",
                f"LoRA: the whole pipeline's weights stay resident, frozen ({'NF4 4-bit base' if mode == 'qlora' else '16-bit'}); "
                f"adapters assumed at 1% of the {trained.name}'s parameters × 16 B; "
                + (
                    "frozen weights sharded with ZeRO-3/FSDP."
                    if sharded
                    else "with data parallelism (DDP) every card holds a full copy."
                )
                + " Activations are extra.",
            )
        )
    if assumed:
        assumptions.insert(
            0,
            _a(
                f"没说具体版本，按 {e.id} 计算（{e.notes or '最常见的默认版本'}）。",
                f"No version named: sized as {e.id} ({e.notes or 'the usual default'}).",
            ),
        )
    if e.requires_bf16 and bf16_note_needed(inp.gpu):
        assumptions.append(
            _a(
                f"{e.id} 只支持 bf16（{e.bf16_source or e.source}）：要用有 bf16 张量核的卡（Ampere 及更新：A10、A100、"
                "RTX 3090/4090、L40 等）；V100、T4、RTX 20 系、P40 没有 bf16。",
                f"{e.id} runs in bf16 only ({e.bf16_source or e.source}): use a card with bf16 tensor cores (Ampere or "
                "newer: A10, A100, RTX 3090/4090, L40 …); V100, T4, the RTX 20 series and P40 have none.",
            )
        )
    if e.components_note:
        assumptions.append(_a(f"未计入：{e.components_note['zh']}。", f"Not counted: {e.components_note['en']}."))
    usable = verdict = fits = headroom = nominal = None
    gpu_name = None
    if inp.gpu:
        from tools.memory_capacity import resolve_gpu_capacity

        cap = resolve_gpu_capacity(inp.gpu)
        usable, gpu_name, nominal = round(cap.reported_gb, 2), cap.name, cap.memory_gb
        fits = per_gpu <= usable
        headroom = round(usable - per_gpu, 2)
        if cap.source:
            sources.append(f"GPU memory: {cap.source}")
    bw, refs = _bandwidths(inp.gpu, e.kind)
    text_gb = round(sum(c.weights_gb for c in comps if c.role == "text_encoder"), 2)
    frozen_gb = round(sum(c.weights_gb for c in comps if not c.trained), 2) if mode == "full" else 0.0
    zero3 = round(weights / n + adapter, 2) if mode in ("lora", "qlora") and n > 1 and not sharded else None
    fp8 = fp8_no_text = None
    if mode == "lora" and precision not in ("fp8", "int8", "int4", "nf4"):
        den = [c for c in comps if c.role in MAIN_ROLES]
        saved = sum(c.weights_gb - _gb(c.params * 1.0) for c in den)
        fp8 = round(per_gpu - saved, 2)
        fp8_no_text = round(fp8 - text_gb, 2) if text_gb else None
    min_gpus = None
    if mode == "full" and usable is not None and not fits and usable > frozen_gb:
        min_gpus = max(2, -(-int(states * 1000) // int((usable - frozen_gb) * 1000)))
    options = _options(e, comps, usable) if mode == "inference" else []
    over = None
    # published peaks were measured at the row's usual dtype: a question that names another one (faster-whisper
    # int8, an FP8 checkpoint) is not judged by them
    if usable is not None and _bytes(precision) == _bytes(e.precision):
        training = mode != "inference"
        over = next(
            (
                pk
                for pk in e.published_peaks
                if bool(_TRAINING_PEAK.search(pk.setting)) == training
                and "offload" not in pk.setting.lower()
                and pk.peak_gb > usable
            ),
            None,
        )
    low = [
        LowVramFit(
            flag=m.flag,
            peak_gb=m.peak_gb,
            setting=m.setting,
            fits=(m.peak_gb <= usable) if (m.peak_gb is not None and usable is not None) else None,
            zh=m.zh,
            en=m.en,
            source=m.source,
        )
        for m in e.low_vram
    ]
    sources += [m.source for m in e.low_vram] + [a.source for a in e.advice]
    bf16_native = _bf16_native(inp.gpu) if (e.requires_bf16 and inp.gpu) else None
    fp32_gb = None
    if bf16_native is False and mode == "inference":
        fp32_gb = round(sum(c.params for c in comps) * 4 / GB, 2)
        assumptions.append(
            _a(
                f"{e.id} 官方只支持 bf16（fp16 会数值溢出），这张卡没有 bf16 张量核：只能用 fp32，权重翻倍到 "
                f"{fp32_gb:.2f} GB，再开卸载/低显存模式也要换算成 fp32。",
                f"{e.id} is published for bf16 only (fp16 overflows) and this card has no bf16 tensor cores: it can only "
                f"run in fp32, which doubles the weights to {fp32_gb:.2f} GB; offload and low-memory peaks double too.",
            )
        )
        if e.bf16_source:
            sources.append(e.bf16_source)
    if usable is not None:
        if bf16_native is False and fp32_gb is not None:
            # the bf16 figures do not apply; what is left is fp32 (twice the bytes, activations too) or a newer
            # card: fp32 counts as an option only with the usual headroom left and no bf16 run measured above it
            measured = max((pk.peak_gb for pk in e.published_peaks if not _TRAINING_PEAK.search(pk.setting)), default=0)
            room = fp32_gb <= (1 - TIGHT_SHARE) * usable and measured <= usable
            verdict = "fits_with_changes" if room else "does_not_fit"
        elif fits and over is not None:
            verdict = "fits_with_changes"  # the weights fit; the publisher's own run at those settings did not
        elif fits:
            verdict = "fits"
        elif any(o.fits for o in options) or any(m.fits for m in low) or (zero3 is not None and zero3 <= usable):
            verdict = "fits_with_changes"
        else:
            verdict = "does_not_fit"
    return PipelineEstimate(
        model=e.id,
        kind=e.kind,
        family=e.family,
        assumed_from=inp.model if assumed else None,
        mode=mode,
        precision=trained.precision,
        gpus=n,
        components=comps,
        weights_gb=round(weights, 2),
        total_params_b=round(sum(c.params for c in comps) / 1e9, 2),
        trained_params=trained.params,
        trained_component=trained.name,
        bytes_per_param=inp.bytes_per_param,
        frozen_gb=frozen_gb,
        text_encoders_gb=text_gb,
        without_text_encoders_gb=round(per_gpu - text_gb, 2) if text_gb else None,
        zero3_per_gpu_gb=zero3,
        min_gpus_zero3=min_gpus,
        fp8_base_per_gpu_gb=fp8,
        fp8_base_no_text_gb=fp8_no_text,
        trained_states_gb=round(states, 2),
        adapter_gb=round(adapter, 2),
        per_gpu_gb=round(per_gpu, 2),
        sharded=sharded,
        gpu=gpu_name,
        nominal_gb=nominal,
        usable_gb=usable,
        verdict=verdict,
        fits=fits,
        headroom_gb=headroom,
        tight=bool(fits and usable and headroom is not None and headroom < TIGHT_SHARE * usable) if fits else None,
        options=options,
        published_peaks=e.published_peaks,
        published_over=over,
        low_vram=low if mode == "inference" else [],
        requires_bf16=e.requires_bf16,
        bf16_native=bf16_native,
        fp32_weights_gb=fp32_gb,
        advice=e.advice,
        gpu_mem_bw_gbs=bw,
        reference_cards=refs,
        assumptions=assumptions,
        sources=list(dict.fromkeys(sources)),
    )


def _tools():
    from tools.registry import ToolSpec

    return [
        ToolSpec(
            name="estimate_pipeline_memory",
            description=(
                "GPU memory of an image/video/speech/music/talking-head pipeline model (FLUX.1, SD 1.5/SDXL/SD3/"
                "SD3.5, Kolors, CogView4, Hunyuan-DiT, HiDream, Qwen-Image, HunyuanVideo, Wan2.1/2.2, CogVideoX, "
                "Mochi, LTX-Video, SVD, Ruyi, StableAvatar, EchoMimicV3, MuseTalk, Whisper, SenseVoice, CosyVoice2, "
                "F5-TTS, MusicGen …): each component's weights (decimal GB) at its dtype, the project's own "
                "low-VRAM flags with their measured peaks, a bf16-only model on a card without bf16, "
                "full fine-tune states of the trained component (16 B/param, ZeRO-3 over N cards) or LoRA, the "
                "verdict on a card, and residency options (model/sequential CPU offload, text-encoder offload, FP8, "
                "WebUI --medvram/--lowvram) with their peaks. Activations are not included. estimate_memory "
                "answers the same for these names."
            ),
            input_model=EstimatePipelineInput,
            func=estimate_pipeline_memory,
        )
    ]


TOOLS = _tools()


def as_memory_output(job) -> dict | None:
    """estimate_memory's answer for a pipeline name (None when `job.model` is not a pipeline): the same output keys
    as for an LLM, filled from the weights-only estimate, with the full pipeline estimate under `pipeline`.
    Why: the agent, the CLI and the chat planner all reach memory through estimate_memory."""
    if not job.model or job.params is not None or find_pipeline(str(job.model)) is None:
        return None
    precision = None if str(job.precision) == "bf16" else str(job.precision)
    sharded_lora = job.zero == 3 or str(getattr(job, "fsdp", "none")) == "full_shard"
    est = estimate_pipeline_memory(
        EstimatePipelineInput(
            model=str(job.model),
            mode=job.mode,
            precision=precision,
            gpu=getattr(job, "gpu", None),
            gpus=job.gpus,
            zero3=sharded_lora,
            bytes_per_param=18.0 if job.fp32_grads else ADAM_MIXED_BYTES,
        )
    )
    total = est.per_gpu_gb
    grads = optimizer = 0.0
    weights = total
    if est.mode == "full":
        share = est.trained_params / GB / (est.gpus if est.sharded else 1)
        grads = share * 2
        optimizer = share * (est.trained_states_gb * GB / est.trained_params - 4)
        weights = total - grads - optimizer
    elif est.mode in ("lora", "qlora"):
        optimizer, weights = est.adapter_gb, total - est.adapter_gb
    parts = {
        "weights": weights,
        "gradients": grads,
        "optimizer": optimizer,
        "model_states": total,
        "activations": 0.0,
        "logits": 0.0,
        "kv_cache": 0.0,
        "overhead": 0.0,
        "total": total,
    }
    summary = {
        "zh": f"{est.model}：每张卡约 {total:.2f} GB（只含权重与训练状态，不含激活值）",
        "en": f"{est.model}: about {total:.2f} GB per GPU (weights and training states only, activations excluded)",
    }
    return {
        "model": est.model,
        "model_kind": "pipeline",
        "mode": est.mode,
        "precision": est.precision,
        "optimizer": "adamw" if est.mode != "inference" else None,
        "gpus": est.gpus,
        "zero_stage": 3 if est.sharded else 0,
        "params": sum(c.params for c in est.components),
        "trainable_params": {"full": est.trained_params, "inference": 0}.get(
            est.mode, int(est.trained_params * LORA_FRACTION)
        ),
        "weights_gb": round(weights, 2),
        "gradients_gb": round(grads, 2),
        "optimizer_gb": round(max(optimizer, 0.0), 2),
        "model_states_gb": round(total, 2),
        "activations_gb": 0.0,
        "logits_gb": 0.0,
        "kv_cache_gb": 0.0,
        "overhead_gb": 0.0,
        "total_gb": round(total, 2),
        "total_gib": round(total * GB / 2**30, 2),
        "gib": {k: round(v * GB / 2**30, 2) for k, v in parts.items()},
        "whole_model_weights_gb": est.weights_gb,
        "whole_model_precision": est.precision,
        "shipped_precision": find_pipeline(est.model)[0].shipped_precision,  # type: ignore[index]
        "gpu": est.gpu,
        "gpu_memory_gb": est.nominal_gb,
        "nominal_gb": est.nominal_gb,
        "reported_gb": est.usable_gb,
        "usable_gb": est.usable_gb,
        "verdict": est.verdict,
        "fits": est.fits,
        "headroom_gb": est.headroom_gb,
        "summary": summary,
        "assumptions": est.assumptions,
        "sources": est.sources,
        "pipeline": est.model_dump(mode="json"),
    }
