"""Decode speed of a model run from host RAM (pure CPU, or CPU + GPU hybrid as ktransformers / llama.cpp do).

At batch 1 decoding is memory-bandwidth bound: every token reads the weights it uses once, so
    time per token = bytes read from DRAM / (η · host bandwidth) + bytes read from VRAM / (η_gpu · GPU bandwidth)
(roofline, Williams et al., CACM 2009). Host bandwidth = channels × MT/s × 8 B per socket (knowledge/cpus.yaml).
For a MoE model only the ACTIVE experts are read; in hybrid mode the GPU holds attention, dense layers, shared
experts and the LM head (the ktransformers layout), so only the routed experts come from DRAM. A second socket
helps only with a NUMA-aware engine, and then by the measured ×1.4 of ktransformers V0.2, not ×2.
η bounds: STREAM-like sustained reads (~0.75 of theoretical) above, shipped engines' measured ~0.35 below.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

from tools.data import load_yaml
from tools.errors import ToolInputError
from tools.registry import ToolSpec

GB = 1e9
GPU_ETA_LOW, GPU_ETA_HIGH = 0.6, 0.9  # the same η band tools/memory_decode.py uses for GPU memory
GPU_RESERVED_GB = 2.0  # CUDA context + activations + workspace per GPU (vLLM logs ~1.5-3.5 GiB of non-weight memory)
KV_BYTES = 2.0  # bf16 KV cache
# The quantisation steps people move between for big MoE models on CPU (8-bit → 4-bit → unsloth 2.5 / 1.6-bit).
_QUANT_STEPS = ("q8_0", "q4_k_m", "ud_q2_k_xl", "ud_iq1_s")
_DENSE_STEPS = ("q8_0", "q4_k_m", "q3_k_m")  # dense models lose quality fast below ~3 bits


class Platform(BaseModel):
    id: str
    name: str
    zh_name: str
    match: str
    memory: str
    channels: int | None = None
    mt_s: int | None = None
    theoretical_gbs: float
    fast_mt_s: int | None = None
    fast_theoretical_gbs: float | None = None
    max_sockets: int = 1
    avx512: bool = False
    amx: bool = False
    source: str
    as_of: str


class Quant(BaseModel):
    id: str
    label: str
    match: str
    bits: float
    source: str
    as_of: str


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return load_yaml("cpus.yaml")


@lru_cache(maxsize=1)
def platforms() -> tuple[Platform, ...]:
    return tuple(Platform.model_validate(p) for p in _data()["platforms"])


@lru_cache(maxsize=1)
def quants() -> tuple[Quant, ...]:
    return tuple(Quant.model_validate(q) for q in _data()["quants"])


def efficiency() -> dict[str, Any]:
    return dict(_data()["efficiency"])


def words() -> dict[str, Any]:
    return dict(_data()["words"])


def measured_rows() -> list[dict[str, Any]]:
    return list(_data().get("measured") or [])


def normalise(text: str) -> str:
    """Lower case without ®/™/(r)/(tm), so 'Intel(R) Xeon(R) Gold 6133' reads as 'intel xeon gold 6133'."""
    return re.sub(r"\((?:r|tm)\)|[®™]", " ", text.lower())


_Row = TypeVar("_Row", Platform, Quant)


def _first_named(rows: Sequence[_Row], text: str) -> _Row | None:
    """The row whose id is the whole text, else the one whose `match` pattern occurs first in it."""
    t = text.strip()
    for row in rows:
        if t == row.id:
            return row
    best: tuple[int, _Row] | None = None
    for row in rows:
        m = re.search(row.match, text, re.I)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), row)
    return best[1] if best else None


def find_platform(text: str) -> Platform | None:
    """The platform named first in `text` (a row id, a family word or a model number), else None."""
    return _first_named(platforms(), normalise(text))


def in_domain(text: str) -> bool:
    """Host-RAM inference vocabulary (engines, sockets, NUMA, DDR, CPU inference): a question in scope even with
    no GPU or model named ('双CPU、2T内存、Q8大概速度多少')."""
    w = words()
    t = normalise(text)
    pats = [w["cpu_inference"], w["dual_socket"], w["single_socket"], *w["engines"].values()]
    return any(re.search(p, t, re.I) for p in pats)


def family_platforms(text: str) -> list[Platform]:
    """A family word with no generation ('EPYC 24核'): the generations it likely means, the assumed one first."""
    t = normalise(text)
    by_id = {p.id: p for p in platforms()}
    for fam in _data().get("families") or []:
        if re.search(fam["match"], t, re.I):
            return [by_id[i] for i in fam["platforms"] if i in by_id]
    return []


def gguf_file(model_name: str, params_b: float, quant_id: str) -> dict[str, Any] | None:
    """The published GGUF size of this model at this quant (knowledge/cpus.yaml gguf_files), else None."""
    g = _data().get("gguf_files") or {}
    fam = g.get("family") or {}
    if not fam or not re.search(fam["match"], model_name or "", re.I) or abs(params_b - fam["params_b"]) > 5:
        return None
    return next((dict(f) for f in g.get("files") or [] if f["quant"] == quant_id), None)


def find_quant(text: str) -> Quant | None:
    """The quantisation named first in `text` (an id such as 'q4_k_m', or a mention in a question)."""
    return _first_named(quants(), text.lower())


# ---------------------------------------------------------------- models of the tool


class CpuInferenceInput(BaseModel):
    model: str | None = Field(None, description="model name ('DeepSeek-R1', 'qwen2.5 72b') or a size ('70B')")
    params: str | float | None = Field(None, description="parameter count, e.g. '70B'; overrides the catalog size")
    cpu: str | None = Field(
        None, description="CPU or platform: 'EPYC 9654', 'EPYC 9005', 'Xeon Gold 6133', 'Xeon 6980P', 'M2 Ultra'"
    )
    channels: int | None = Field(None, ge=1, le=24, description="memory channels per socket (overrides the platform)")
    mt_s: int | None = Field(None, ge=800, le=12000, description="memory speed in MT/s, e.g. 4800 for DDR5-4800")
    sockets: int = Field(1, ge=1, le=2, description="CPU sockets in the server (1 or 2)")
    dimms: int | None = Field(
        None,
        ge=1,
        le=64,
        description="memory modules installed in the whole server (fewer than the channels = fewer used)",
    )
    numa: Literal["auto", "aware", "unaware"] = Field(
        "auto", description="whether the engine is NUMA-aware across two sockets (ktransformers USE_NUMA=1)"
    )
    quant: str = Field("q4_k_m", description="weights quantisation: q4_k_m, q8_0, fp8, bf16, ud_q2_k_xl, ud_iq1_s …")
    gpu: str | None = Field(None, description="GPU that holds the attention / dense part, if any: '4090', 'A100 80G'")
    gpus: int = Field(1, ge=1, le=16, description="number of such GPUs")
    engine: str | None = Field(None, description="ktransformers / llama.cpp / ollama / fastllm (only named in notes)")
    host_ram_gb: float | None = Field(None, gt=0, le=100000, description="host RAM, decimal GB")
    target_tokens_per_s: float | None = Field(None, gt=0, le=10000, description="the decode speed wanted")
    measured_tokens_per_s: float | None = Field(None, gt=0, le=10000, description="the decode speed seen now")
    context: int = Field(4096, ge=1, le=1_000_000, description="tokens in the sequence whose KV cache each step reads")
    membind_one_node: bool = Field(
        False,
        description="the process is bound to one NUMA node's memory (numactl -m N / --membind): on a two-socket "
        "server it sees only that socket's share of the RAM and one socket's bandwidth",
    )


class Band(BaseModel):
    low: float
    high: float
    ceiling: float = Field(description="η = 1: the theoretical bound")


class CpuOption(BaseModel):
    id: str
    zh: str
    en: str
    tokens_per_s: Band
    reaches_target: bool | None = None
    ram_needed_gb: float | None = None


class CpuInferenceOutput(BaseModel):
    model: str
    params_b: float
    active_params_b: float
    moe: bool
    platform_id: str | None
    platform: str
    platform_zh: str
    memory: str
    channels: int | None
    mt_s: int | None
    socket_bw_gbs: float = Field(description="theoretical host bandwidth of one socket, GB/s")
    platform_channels: int | None = Field(None, description="channels the platform has per socket")
    full_socket_bw_gbs: float | None = Field(None, description="one socket's bandwidth with every channel populated")
    dimms: int | None = None
    dimms_for_all_channels: int | None = Field(None, description="modules needed for one per channel on every socket")
    sockets: int
    numa: str
    total_bw_gbs: float = Field(description="theoretical bandwidth of all sockets, GB/s")
    avx512: bool
    amx: bool
    quant: str
    quant_label: str
    bits_per_weight: float
    bytes_per_param: float
    cpu_read_gb: float = Field(description="bytes read from host RAM per token, decimal GB")
    gpu_read_gb: float = Field(description="bytes read from VRAM per token, decimal GB")
    gpu: str | None
    gpus: int
    gpu_bw_gbs: float | None
    vram_total_gb: float | None
    gpu_resident_gb: float = Field(description="weights + KV the GPU(s) hold, decimal GB")
    experts_on_gpu_pct: float = Field(description="share of the routed experts (or of the layers) held in VRAM, %")
    eta_low: float
    eta_high: float
    socket_gain_low: float
    socket_gain_high: float
    effective_bw_low_gbs: float
    effective_bw_high_gbs: float
    tokens_per_s: Band
    ms_per_token_low: float = Field(description="time per token at the high end of the band, ms")
    ms_per_token_high: float = Field(description="time per token at the low end of the band, ms")
    cpu_only_ceiling_tokens_per_s: float = Field(description="all active weights from host RAM at η = 1")
    cpu_time_pct: float = Field(description="share of each token's time spent reading host RAM (band's high end), %")
    ram_needed_gb: float
    ram_copies: int
    host_ram_gb: float | None
    ram_fits: bool | None
    target_tokens_per_s: float | None
    target: Literal["reachable", "optimistic", "not_reachable"] | None = None
    bw_needed_gbs: float | None = Field(None, description="theoretical host bandwidth the target needs at η_high")
    bw_needed_low_eta_gbs: float | None = Field(None, description="the same at the engines' measured η_low")
    measured_tokens_per_s: float | None
    measured_pct_of_ceiling: float | None
    file_gb: float = Field(description="the whole model file at this quant (published GGUF size where known), GB")
    file_source: str = Field(description="where file_gb comes from: the published file, or params × bits / 8")
    file_published: bool = Field(False, description="file_gb is a published GGUF size, not params × bits / 8")
    ram_available_gb: float | None = Field(None, description="host RAM the process can use (one node when bound)")
    ram_short_gb: float | None = Field(None, description="ram_needed_gb - ram_available_gb when positive, GB")
    ram_plus_vram_gb: float | None = Field(None, description="host RAM available + total VRAM, GB")
    membind_one_node: bool = False
    machine_sockets: int = Field(1, description="sockets in the server (sockets is what the engine uses)")
    resident_pct: float | None = Field(None, description="share of the host-resident weights that RAM can cache, %")
    disk_tokens_per_s: Band | None = Field(
        None, description="when RAM is short: tokens/s with the missing share paged from an NVMe SSD via mmap"
    )
    quant_fits: list[dict[str, Any]] = Field(
        default_factory=list, description="each quant's file size and whether it fits RAM + VRAM"
    )
    options: list[CpuOption] = Field(default_factory=list)
    references: list[dict[str, Any]] = Field(default_factory=list)
    assumptions: list[dict[str, str]] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


def _a(zh: str, en: str) -> dict[str, str]:
    return {"zh": zh, "en": en}


# ---------------------------------------------------------------- arithmetic


class _Split(BaseModel):
    """What one token reads, and from where."""

    cpu_gb: float
    gpu_gb: float
    gpu_resident_gb: float
    on_gpu_share: float
    cpu_resident_gb: float


def _counts(model: Any) -> tuple[float, float, float, float, float]:
    """(total, read per token, routed active, routed total, input embedding) parameters.

    Read per token = active minus the input embedding table (one row is looked up, not streamed) unless it is
    tied to the LM head, which is read in full."""
    from tools.models import count_params

    a = model.arch
    pc = count_params(a)
    scale = model.params / pc.total if pc.total else 1.0  # a size override scales the shape
    embed = 0.0 if a.tie_word_embeddings else a.vocab_size * a.hidden_size * scale
    routed_active = routed_total = 0.0
    if a.is_moe:
        fe = a.moe_intermediate_size or a.intermediate_size
        expert = (3 if a.mlp_gated else 2) * a.hidden_size * fe
        n_moe = a.num_layers - a.first_k_dense_layers
        routed_active = n_moe * a.experts_per_token * expert * scale
        routed_total = n_moe * a.num_experts * expert * scale
    read = max(model.active_params - embed, 1.0)
    return float(model.params), read, routed_active, routed_total, embed


def _split(model: Any, bpp: float, kv_gb: float, vram_usable_gb: float | None) -> _Split:
    total, read, r_act, r_tot, _ = _counts(model)
    weights_gb = total * bpp / GB
    read_gb = read * bpp / GB
    if not vram_usable_gb:
        return _Split(
            cpu_gb=read_gb + kv_gb, gpu_gb=0.0, gpu_resident_gb=0.0, on_gpu_share=0.0, cpu_resident_gb=weights_gb
        )
    if r_tot:
        dense_gb = (total - r_tot) * bpp / GB  # attention, dense layers, shared experts, router, embeddings, LM head
        if dense_gb + kv_gb <= vram_usable_gb:
            share = min(1.0, (vram_usable_gb - dense_gb - kv_gb) / (r_tot * bpp / GB))
            cpu = r_act * bpp / GB * (1 - share)
            return _Split(
                cpu_gb=cpu,
                gpu_gb=read_gb - cpu + kv_gb,
                gpu_resident_gb=dense_gb + kv_gb + share * r_tot * bpp / GB,
                on_gpu_share=share,
                cpu_resident_gb=(1 - share) * r_tot * bpp / GB,
            )
    # a dense model (or a MoE whose dense part does not fit): whole layers on the GPU, the rest on the CPU
    share = max(0.0, min(1.0, (vram_usable_gb - kv_gb) / weights_gb))
    return _Split(
        cpu_gb=read_gb * (1 - share) + (0.0 if share > 0 else kv_gb),
        gpu_gb=read_gb * share + (kv_gb if share > 0 else 0.0),
        gpu_resident_gb=weights_gb * share + (kv_gb if share > 0 else 0.0),
        on_gpu_share=share,
        cpu_resident_gb=weights_gb * (1 - share),
    )


def _tps(cpu_gb: float, gpu_gb: float, cpu_bw: float, gpu_bw: float | None) -> float:
    t = cpu_gb / cpu_bw + (gpu_gb / gpu_bw if gpu_gb and gpu_bw else 0.0)
    return 1.0 / t if t > 0 else math.inf


def _cpu_share(sp: _Split, cpu_bw: float, gpu_bw: float | None) -> float:
    cpu_t = sp.cpu_gb / cpu_bw
    gpu_t = sp.gpu_gb / (gpu_bw * GPU_ETA_HIGH) if sp.gpu_gb and gpu_bw else 0.0
    return cpu_t / (cpu_t + gpu_t) if cpu_t + gpu_t > 0 else 0.0


def _gains(sockets: int, numa: str) -> tuple[float, float, float]:
    """(low, high, ceiling) multipliers of one socket's bandwidth."""
    if sockets < 2:
        return 1.0, 1.0, 1.0
    g = float(efficiency()["dual_socket_gain"])
    return {"aware": (g, g, 2.0), "unaware": (1.0, 1.0, 1.0)}.get(numa, (1.0, g, 2.0))


def _band(sp: _Split, socket_bw: float, sockets: int, numa: str, gpu_bw: float | None) -> Band:
    eff = efficiency()
    lo_g, hi_g, ceil_g = _gains(sockets, numa)
    low = _tps(sp.cpu_gb, sp.gpu_gb, float(eff["engine_low"]) * socket_bw * lo_g, (gpu_bw or 0) * GPU_ETA_LOW)
    high = _tps(sp.cpu_gb, sp.gpu_gb, float(eff["stream_high"]) * socket_bw * hi_g, (gpu_bw or 0) * GPU_ETA_HIGH)
    ceiling = _tps(sp.cpu_gb, sp.gpu_gb, socket_bw * ceil_g, gpu_bw)
    return Band(low=round(low, 1), high=round(high, 1), ceiling=round(ceiling, 1))


def _platform(inp: CpuInferenceInput) -> tuple[Platform | None, str, str, str, int | None, int | None, float]:
    p = find_platform(inp.cpu) if inp.cpu else None
    if inp.cpu and p is None and not (inp.channels and inp.mt_s):
        names = [q.name for q in platforms()]
        raise ToolInputError(
            f"平台表里没有「{inp.cpu}」；请给出内存通道数和频率（如 8 通道 DDR4-3200），或换个写法",
            f"No platform {inp.cpu!r} in the table; give the memory channels and speed (e.g. 8 channels DDR4-3200) "
            "or another spelling",
            field="cpu",
            suggestions=names[:6],
        )
    if p is None and not (inp.channels and inp.mt_s):
        raise ToolInputError(
            "请给出 CPU 型号（如 EPYC 9654、Xeon Gold 6248）或内存配置（通道数 × 频率，如 12 通道 DDR5-4800）",
            "Give the CPU (e.g. EPYC 9654, Xeon Gold 6248) or the memory setup (channels × speed, e.g. 12 × DDR5-4800)",
            field="cpu",
        )
    channels = inp.channels or (p.channels if p else None)
    mt_s = inp.mt_s or (p.mt_s if p else None)
    if p is not None and p.channels is None:  # Apple: published bandwidth, no channel arithmetic
        return p, p.name, p.zh_name, p.memory, None, None, p.theoretical_gbs
    assert channels and mt_s  # noqa: S101 - guaranteed by the two checks above
    bw = channels * mt_s * 8 / 1000
    memory = p.memory if p else ("DDR5" if mt_s >= 4000 else "DDR4")
    name = p.name if p else f"{channels} × {memory}-{mt_s}"
    zh = p.zh_name if p else f"{channels} 通道 {memory}-{mt_s}"
    return p, name, zh, memory, channels, mt_s, round(bw, 1)


def cpu_inference(inp: CpuInferenceInput) -> CpuInferenceOutput:
    """tokens/s ≈ 1 / (host bytes / (η·host BW) + VRAM bytes / (η_gpu·GPU BW)), batch 1."""
    from tools.memory_kv import kv_bytes_per_token
    from tools.models import resolve_model

    q = find_quant(inp.quant)
    if q is None:
        raise ToolInputError(
            f"不认识的量化格式「{inp.quant}」",
            f"Unknown quantisation {inp.quant!r}",
            field="quant",
            suggestions=[x.id for x in quants()],
        )
    bpp = q.bits / 8
    model = resolve_model(inp.model, inp.params, allow_unknown=True)
    p, name, zh_name, memory, channels, mt_s, socket_bw = _platform(inp)
    machine_sockets = min(inp.sockets, p.max_sockets if p else 2)
    sockets = 1 if inp.membind_one_node else machine_sockets  # bound to one node: one socket's bandwidth
    full_channels, full_bw = channels, socket_bw
    if inp.dimms and channels and mt_s and inp.dimms // sockets < channels:
        channels = max(1, inp.dimms // sockets)  # an empty channel adds no bandwidth
        socket_bw = round(channels * mt_s * 8 / 1000, 1)
    kv_gb = kv_bytes_per_token(model.arch, KV_BYTES) * inp.context / GB
    gpu_bw = vram = None
    gpu_name = None
    if inp.gpu:
        from tools.gpus import resolve_gpu

        spec = resolve_gpu(inp.gpu)
        gpu_name, gpu_bw = spec.name, spec.mem_bw_gbs
        vram = spec.memory_gb * inp.gpus
    usable = max(0.0, (vram or 0) - GPU_RESERVED_GB * inp.gpus) if vram else None
    sp = _split(model, bpp, kv_gb, usable)
    band = _band(sp, socket_bw, sockets, inp.numa, gpu_bw)
    eff = efficiency()
    lo_g, hi_g, ceil_g = _gains(sockets, inp.numa)
    total, read, r_act, r_tot, embed = _counts(model)
    copies = 2 if sockets == 2 and inp.numa != "unaware" and (inp.engine or "").lower().startswith("ktrans") else 1
    ram_needed = sp.cpu_resident_gb * copies
    cpu_only = _tps(read * bpp / GB + kv_gb, 0.0, socket_bw * ceil_g, None)
    published = gguf_file(model.name, total / 1e9, q.id)
    file_gb = round(float(published["size_gb"]), 1) if published else round(total * bpp / GB, 1)
    file_src = str(published["source"]) if published else f"{total / 1e9:g}B × {q.bits:g} bit / 8"
    ram_avail = inp.host_ram_gb
    if ram_avail is not None and inp.membind_one_node and machine_sockets == 2:
        ram_avail = ram_avail / 2  # numactl -m N: only that node's DIMMs (RAM split evenly over the sockets)

    out = CpuInferenceOutput(
        model=model.name,
        params_b=round(total / 1e9, 1),
        active_params_b=round(model.active_params / 1e9, 1),
        moe=bool(r_tot),
        platform_id=p.id if p else None,
        platform=name,
        platform_zh=zh_name,
        memory=memory,
        channels=channels,
        mt_s=mt_s,
        socket_bw_gbs=socket_bw,
        platform_channels=full_channels,
        full_socket_bw_gbs=full_bw if full_bw != socket_bw else None,
        dimms=inp.dimms,
        dimms_for_all_channels=(full_channels or 0) * sockets if full_bw != socket_bw else None,
        sockets=sockets,
        numa=inp.numa,
        total_bw_gbs=round(socket_bw * sockets, 1),
        avx512=bool(p and p.avx512),
        amx=bool(p and p.amx),
        quant=q.id,
        quant_label=q.label,
        bits_per_weight=q.bits,
        bytes_per_param=round(bpp, 3),
        cpu_read_gb=round(sp.cpu_gb, 2),
        gpu_read_gb=round(sp.gpu_gb, 2),
        gpu=gpu_name,
        gpus=inp.gpus if inp.gpu else 0,
        gpu_bw_gbs=gpu_bw,
        vram_total_gb=round(vram, 1) if vram else None,
        gpu_resident_gb=round(sp.gpu_resident_gb, 1),
        experts_on_gpu_pct=round(sp.on_gpu_share * 100, 1),
        eta_low=float(eff["engine_low"]),
        eta_high=float(eff["stream_high"]),
        socket_gain_low=lo_g,
        socket_gain_high=hi_g,
        effective_bw_low_gbs=round(float(eff["engine_low"]) * socket_bw * lo_g, 1),
        effective_bw_high_gbs=round(float(eff["stream_high"]) * socket_bw * hi_g, 1),
        tokens_per_s=band,
        ms_per_token_low=round(1000 / band.high, 1),
        ms_per_token_high=round(1000 / band.low, 1),
        cpu_only_ceiling_tokens_per_s=round(cpu_only, 1),
        cpu_time_pct=round(100 * _cpu_share(sp, float(eff["stream_high"]) * socket_bw * hi_g, gpu_bw), 1),
        ram_needed_gb=round(ram_needed, 1),
        ram_copies=copies,
        host_ram_gb=inp.host_ram_gb,
        ram_fits=None if ram_avail is None else ram_needed <= ram_avail,
        file_gb=file_gb,
        file_source=file_src,
        file_published=bool(published),
        ram_available_gb=None if ram_avail is None else round(ram_avail, 1),
        ram_short_gb=round(ram_needed - ram_avail, 1) if ram_avail is not None and ram_needed > ram_avail else None,
        ram_plus_vram_gb=None if ram_avail is None else round(ram_avail + (vram or 0), 1),
        membind_one_node=inp.membind_one_node and machine_sockets == 2,
        machine_sockets=machine_sockets,
        target_tokens_per_s=inp.target_tokens_per_s,
        measured_tokens_per_s=inp.measured_tokens_per_s,
        measured_pct_of_ceiling=round(100 * inp.measured_tokens_per_s / band.ceiling, 1)
        if inp.measured_tokens_per_s
        else None,
    )
    if inp.target_tokens_per_s:
        _target(out, inp, sp, gpu_bw)
    if ram_avail is not None:
        _disk(out, sp, ram_avail, gpu_bw)
        out.quant_fits = _quant_fits(model, total, kv_gb, ram_avail + (usable or 0.0))
    out.options = _options(inp, model, p, socket_bw, sockets, kv_gb, usable, gpu_bw, q, full_bw)
    if out.full_socket_bw_gbs:
        full = _band(sp, full_bw, sockets, inp.numa, gpu_bw)
        out.options.insert(
            0,
            CpuOption(
                id="populate_channels",
                zh=f"每个通道插一条内存（共 {out.dimms_for_all_channels} 条，单路 {full_bw:g} GB/s）",
                en=f"one module in every channel ({out.dimms_for_all_channels} in all, {full_bw:g} GB/s per socket)",
                tokens_per_s=full,
                reaches_target=None if not inp.target_tokens_per_s else full.high >= inp.target_tokens_per_s,
                ram_needed_gb=round(ram_needed, 1),
            ),
        )
    same_family = [
        r
        for r in measured_rows()
        if model.arch.is_moe and model.name.split("-")[0] == str(r.get("model", "")).split("-")[0]
    ]
    same_family.sort(key=lambda r: (r.get("platform") != (p.id if p else None), r.get("sockets") != sockets))
    out.references = same_family[:3]
    out.assumptions = _assumptions(out, q, embed)
    out.sources = [
        f"host memory: {p.source}" if p else "host memory: channels × MT/s × 8 B (JEDEC 64-bit channel)",
        f"quantisation: {q.source}",
        f"η high: {eff['stream_source']}",
        f"η low: {eff['engine_source']}",
        f"second socket: {eff['dual_socket_source']}",
        "decode tok/s ≈ η·BW / bytes read per token (memory-bound roofline, Williams et al., CACM 2009)",
    ]
    return out


# NVMe sequential read, the most mmap can page in: PCIe 3.0 x4 (Samsung 970 EVO Plus 3,500 MB/s) to PCIe 4.0 x4
# (Samsung 990 PRO 7,450 MB/s), vendor datasheets https://semiconductor.samsung.com/consumer-storage/internal-ssd/
NVME_GBS = (3.5, 7.45)
RAM_OS_RESERVE_GB = 8.0  # the OS, the engine process and the KV cache also live in RAM


def _disk(out: CpuInferenceOutput, sp: _Split, ram_avail: float, gpu_bw: float | None) -> None:
    """RAM short of the host-resident weights: mmap keeps running (no OOM) but the share RAM cannot cache is
    re-read from disk every token (experts are picked afresh each token), so the SSD, not DRAM, sets the speed."""
    need = out.ram_needed_gb
    if not need or need <= ram_avail:
        return
    cached = max(0.0, min(1.0, (ram_avail - RAM_OS_RESERVE_GB) / need))
    out.resident_pct = round(100 * cached, 1)
    miss_gb = sp.cpu_gb * (1 - cached)
    eff = efficiency()
    bw = out.socket_bw_gbs * float(eff["stream_high"])

    def rate(disk: float) -> float:
        t = (
            miss_gb / disk
            + sp.cpu_gb * cached / bw
            + (sp.gpu_gb / (gpu_bw * GPU_ETA_HIGH) if sp.gpu_gb and gpu_bw else 0)
        )
        return 1 / t if t > 0 else math.inf

    out.disk_tokens_per_s = Band(
        low=round(rate(NVME_GBS[0]), 2), high=round(rate(NVME_GBS[1]), 2), ceiling=round(rate(NVME_GBS[1]), 2)
    )


def _quant_fits(model: Any, total: float, kv_gb: float, room_gb: float) -> list[dict[str, Any]]:
    """Each quant's whole file (published size where known) against RAM + VRAM, largest first."""
    rows: list[dict[str, Any]] = []
    for x in quants():
        if x.id in ("bf16", "fp8"):
            continue
        pub = gguf_file(model.name, total / 1e9, x.id)
        size = float(pub["size_gb"]) if pub else total * x.bits / 8 / GB
        rows.append(
            {
                "quant": x.id,
                "label": x.label,
                "size_gb": round(size, 1),
                "fits": size + kv_gb + RAM_OS_RESERVE_GB <= room_gb,
                "published": bool(pub),
            }
        )
    rows.sort(key=lambda r: -float(r["size_gb"]))
    return rows


def _target(out: CpuInferenceOutput, inp: CpuInferenceInput, sp: _Split, gpu_bw: float | None) -> None:
    tgt = float(inp.target_tokens_per_s or 0)
    band = out.tokens_per_s
    out.target = "reachable" if tgt <= band.low else ("optimistic" if tgt <= band.high else "not_reachable")
    for eta, key, g_eta in (
        (out.eta_high, "bw_needed_gbs", GPU_ETA_HIGH),
        (out.eta_low, "bw_needed_low_eta_gbs", GPU_ETA_LOW),
    ):
        allowed = 1 / tgt - (sp.gpu_gb / (gpu_bw * g_eta) if sp.gpu_gb and gpu_bw else 0.0)
        if allowed > 0 and sp.cpu_gb > 0:
            setattr(out, key, round(sp.cpu_gb / allowed / eta / max(out.socket_gain_high, 1.0), 1))


def _options(
    inp: CpuInferenceInput,
    model: Any,
    p: Platform | None,
    socket_bw: float,
    sockets: int,
    kv_gb: float,
    usable: float | None,
    gpu_bw: float | None,
    q: Quant,
    full_bw: float | None = None,
) -> list[CpuOption]:
    """What would change the speed, each with its own band: a smaller quant, a wider/faster memory platform,
    a NUMA-aware second socket, one more GPU."""
    tgt = inp.target_tokens_per_s
    out: list[CpuOption] = []

    def add(
        oid: str, zh: str, en: str, sp: _Split, bw: float, socks: int, numa: str, gbw: float | None, ram: float
    ) -> None:
        band = _band(sp, bw, socks, numa, gbw)
        out.append(
            CpuOption(
                id=oid,
                zh=zh,
                en=en,
                tokens_per_s=band,
                reaches_target=None if not tgt else band.high >= tgt,
                ram_needed_gb=round(ram, 1),
            )
        )

    ladder = _QUANT_STEPS if model.arch.is_moe else _DENSE_STEPS
    steps = [x for x in quants() if x.id in ladder and x.bits < q.bits - 0.5]
    for step in steps[:2]:
        sp = _split(model, step.bits / 8, kv_gb, usable)
        add(
            f"quant:{step.id}",
            f"换 {step.label} 量化",
            f"a {step.label} quant",
            sp,
            socket_bw,
            sockets,
            inp.numa,
            gpu_bw,
            sp.cpu_resident_gb,
        )
    sp0 = _split(model, q.bits / 8, kv_gb, usable)
    better = sorted(
        (x for x in platforms() if x.channels and x.theoretical_gbs > max(socket_bw, full_bw or 0) * 1.15),
        key=lambda x: x.theoretical_gbs,
    )
    sp_fast = _split(model, q.bits / 8, kv_gb, usable)
    first_enough = next(
        (x for x in better if tgt and _band(sp_fast, x.theoretical_gbs, 1, "auto", gpu_bw).high >= tgt), None
    )
    picked = [x for x in better if x is first_enough or (x.channels or 0) >= 12 or (not tgt and x is better[0])]
    seen: set[float] = set()
    for x in picked:
        if x.theoretical_gbs in seen or len(seen) >= 3:
            continue
        seen.add(x.theoretical_gbs)
        add(
            f"platform:{x.id}",
            f"单路 {x.zh_name}（{x.channels} 通道 {x.memory}-{x.mt_s}，{x.theoretical_gbs:g} GB/s）",
            f"one socket of {x.name} ({x.channels} × {x.memory}-{x.mt_s}, {x.theoretical_gbs:g} GB/s)",
            sp0,
            x.theoretical_gbs,
            1,
            "auto",
            gpu_bw,
            sp0.cpu_resident_gb,
        )
    if sockets == 1 and not inp.membind_one_node and (p is None or p.max_sockets >= 2):
        add(
            "dual_socket",
            "双路并用 NUMA 感知的引擎（内存要按路各放一份）",
            "two sockets with a NUMA-aware engine (a copy of the weights per socket)",
            sp0,
            socket_bw,
            2,
            "aware",
            gpu_bw,
            sp0.cpu_resident_gb * 2,
        )
    if sockets == 2:
        add(
            "single_socket",
            "只用单路",
            "one socket only",
            sp0,
            socket_bw,
            1,
            "auto",
            gpu_bw,
            sp0.cpu_resident_gb,
        )
    if inp.gpu and usable is not None:
        from tools.gpus import resolve_gpu

        one = resolve_gpu(inp.gpu).memory_gb - GPU_RESERVED_GB
        sp = _split(model, q.bits / 8, kv_gb, usable + one)
        add(
            "one_more_gpu",
            "再加 1 张同型号显卡",
            "one more GPU of the same kind",
            sp,
            socket_bw,
            sockets,
            inp.numa,
            gpu_bw,
            sp.cpu_resident_gb,
        )
    return out


def _assumptions(out: CpuInferenceOutput, q: Quant, embed: float) -> list[dict[str, str]]:
    A = [
        _a(
            "批大小 1、纯解码阶段；受内存带宽限制：每生成 1 个 token，用到的权重各读一遍（不含预填充、采样和调度开销）",
            "Batch 1, decode only; memory-bandwidth bound: each token reads the weights it uses once (prefill, "
            "sampling and scheduling not included)",
        ),
        _a(
            f"内存带宽 = 通道数 × MT/s × 8 B：{out.platform_zh} 单路理论 {out.socket_bw_gbs:g} GB/s；实际按 "
            f"{out.eta_low:g}–{out.eta_high:g} 倍计（下限是 ktransformers 公开实测折算的，上限是 STREAM 类连续读能到的）",
            f"Host bandwidth = channels × MT/s × 8 B: {out.platform} gives {out.socket_bw_gbs:g} GB/s per socket in "
            f"theory; {out.eta_low:g}–{out.eta_high:g} of it is used (low: ktransformers' published measurement; high: "
            "what STREAM-like sustained reads reach)",
        ),
        _a(
            f"权重 {q.label}，{q.bits:g} bit/参数 ≈ {out.bytes_per_param:g} B/参数",
            f"Weights {q.label}: {q.bits:g} bits/param ≈ {out.bytes_per_param:g} B/param",
        ),
    ]
    if out.moe:
        A.append(
            _a(
                f"MoE：每个 token 只读激活的参数（{out.active_params_b:g}B / 共 {out.params_b:g}B）；有 GPU 时注意力、"
                "共享专家和稠密层放显存（ktransformers 的放法），内存里只读被路由到的专家",
                f"MoE: each token reads only the active parameters ({out.active_params_b:g}B of {out.params_b:g}B); with "
                "a GPU, attention, shared experts and dense layers sit in VRAM (the ktransformers layout) and only the "
                "routed experts are read from RAM",
            )
        )
    if embed:
        A.append(
            _a(
                "输入词嵌入表每个 token 只查一行，不计入读取量；输出层（LM head）整表计入",
                "The input embedding table is looked up one row per token and not counted; the LM head is read in full",
            )
        )
    if out.sockets == 2:
        A.append(
            _a(
                "双路：只有 NUMA 感知的引擎（ktransformers USE_NUMA=1、llama.cpp --numa）才用得上第二路的内存带宽；"
                f"实测 ktransformers 双路约为单路的 {out.socket_gain_high:g} 倍，而不是理论的 2 倍；不感知 NUMA 时跨路访问"
                "经 UPI/xGMI，往往不比单路快",
                "Two sockets: only a NUMA-aware engine (ktransformers USE_NUMA=1, llama.cpp --numa) uses the second "
                f"socket's bandwidth; ktransformers measured about {out.socket_gain_high:g}× one socket, not the "
                "theoretical 2×; without NUMA awareness cross-socket reads go over UPI/xGMI and are often no faster",
            )
        )
    if out.gpu and out.gpus > 1:
        A.append(
            _a(
                "多张 GPU 按层切分时，每个 token 依次经过各卡，单条序列的速度不因卡多而叠加；多出来的显存只在能把专家"
                "（或层）从内存搬上去时才提速",
                "With several GPUs split by layers, each token passes through them in turn, so one sequence gets no "
                "faster from more cards; extra VRAM helps only by taking experts (or layers) off host RAM",
            )
        )
    return A


TOOLS = [
    ToolSpec(
        name="cpu_inference",
        description=(
            "Decode speed (batch 1) of a model run from host RAM — pure CPU or CPU+GPU hybrid (ktransformers, "
            "llama.cpp, ollama, fastllm): tokens/s band low/high and theoretical ceiling from host memory bandwidth "
            "(channels × MT/s × 8 B per socket, knowledge/cpus.yaml) over bytes read per token (active parameters × "
            "bytes per parameter of the quant; MoE routed experts only when a GPU holds attention/shared experts); "
            "two-socket NUMA gain, RAM needed, whether a target tokens/s is reachable and what would reach it "
            "(smaller quant, 12-channel DDR5 platform, second socket, more GPUs)."
        ),
        input_model=CpuInferenceInput,
        func=cpu_inference,
    ),
]
