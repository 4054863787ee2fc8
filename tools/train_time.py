"""Training time and cost: FLOPs → GPU-hours → wall time → CNY, always as a low/mid/high band.

    FLOPs   = k · N_active · D      k = 6 (Kaplan et al. 2020), 8 with full recomputation;
                                    LoRA/QLoRA k = 4 (+2 with checkpointing) — knowledge/mfu.yaml `flops_per_token`
    time    = FLOPs / (GPUs × dense peak at the precision × MFU)   (dense: never the 2:4-sparse figure)
    cost    = GPU-hours × CNY per GPU-hour (knowledge/prices.yaml, or the user's quote)

MFU bands come from published runs (Llama 2's GPU-hours imply ≈0.38–0.43 on A100) — knowledge/mfu.yaml.
TF32 counts only when enabled (PyTorch matmuls default to FP32 since 1.12); FP8 only where the card has it
and the framework (e.g. Transformer Engine) is used. On several GPUs the band is the compute-only efficiency:
each step's communication for the chosen strategy (DDP, ZeRO-1/2/3, FSDP — parameters gathered every
micro-step) over the real link is added after the stated overlap (tools.comm_time), and the effective MFU
follows from it rather than being fixed.

Other modules call `estimate_time(...)` (the planner) or the tool `estimate_training_time`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tools.data import load_yaml
from tools.errors import ToolInputError
from tools.gpus import GpuSpec, resolve_gpu
from tools.memory_zero import paper_model_states_bytes
from tools.registry import ToolSpec

Mode = Literal["pretrain", "full", "lora", "qlora"]
Recompute = Literal["none", "selective", "full"]


@lru_cache(maxsize=1)
def mfu_data() -> dict[str, Any]:
    return load_yaml("mfu.yaml")


class Band3(BaseModel):
    low: float
    mid: float
    high: float


def training_flops(
    active_params: float, tokens: float, *, mode: str = "full", recompute: str = "none"
) -> tuple[float, int, str]:
    """(FLOPs, k, source) with FLOPs = k · N_active · D. GPT-3 check: 6 × 175e9 × 300e9 = 3.15e23 (paper: 3.14e23)."""
    if active_params <= 0 or tokens <= 0:
        raise ToolInputError("参数量和 token 数必须为正", "Parameters and tokens must be positive", field="tokens")
    table = mfu_data()["flops_per_token"]
    row = table["full" if mode in ("full", "pretrain") else mode]
    key = {"none": "no_recompute", "selective": "selective", "full": "full_recompute"}[recompute]
    k = int(row[key])
    return k * active_params * tokens, k, str(row["source"])


def mfu_band(mode: str, precision: str) -> tuple[Band3, str]:
    data = mfu_data()
    b = data["bands"]["pretrain" if mode == "pretrain" else mode]
    band = Band3(low=b["low"], mid=b["mid"], high=b["high"])
    src = b["source"]
    if precision == "fp8":
        s = data["fp8"]["mfu_scale"]
        band = Band3(low=band.low * s[0], mid=band.mid * s[1], high=band.high * s[2])
        src += "; FP8 scale " + data["fp8"]["source"]
    return band, src


def pick_peak(gpu: GpuSpec, precision: str, *, tf32_enabled: bool, fp8_framework: bool) -> tuple[float, str, list[str]]:
    """Dense peak TFLOPS actually usable, the precision really used, and warnings about fallbacks."""
    warnings: list[str] = []
    p = precision
    if p == "fp8":
        if not gpu.fp8_dense_tflops:
            warnings.append(
                f"{gpu.name} 没有 FP8（或无稠密 FP8 数据），按 BF16 估算。 / {gpu.name} has no FP8 (or no dense FP8 figure); "
                "estimated at BF16."
            )
            p = "bf16"
        elif not fp8_framework:
            warnings.append(
                "FP8 需要框架支持（如 Transformer Engine），未声明支持，按 BF16 估算。 / FP8 needs framework support "
                "(e.g. Transformer Engine); not declared, so estimated at BF16."
            )
            p = "bf16"
    if p == "tf32":
        if not gpu.tf32_dense_tflops:
            warnings.append(f"{gpu.name} 没有 TF32，按 FP32 估算。 / {gpu.name} has no TF32; estimated at FP32.")
            p = "fp32"
        else:
            tf32_enabled = True
    if p == "fp32" and tf32_enabled and gpu.tf32_dense_tflops:
        p = "tf32"
    elif p == "fp32" and gpu.tf32_dense_tflops:
        warnings.append(
            f'FP32 未开启 TF32：按 {gpu.fp32_tflops} TFLOPS 计；开启 torch.set_float32_matmul_precision("high") 可用 TF32 '
            f"{gpu.tf32_dense_tflops} TFLOPS。 / FP32 without TF32 runs at {gpu.fp32_tflops} TFLOPS; enabling TF32 "
            f"gives {gpu.tf32_dense_tflops}."
        )
    if p == "bf16" and not gpu.bf16_dense_tflops:
        if gpu.fp16_dense_tflops:
            if gpu.is_nvidia:
                warnings.append(
                    f"{gpu.name} 不支持 BF16，按 FP16 混合精度（需 GradScaler）估算。 / {gpu.name} has no BF16; "
                    "estimated at FP16 mixed precision (needs GradScaler)."
                )
            else:
                warnings.append(
                    f"表中没有 {gpu.name} 的 BF16 数据，按 FP16 估算。 / No BF16 figure for {gpu.name} in the table; "
                    "estimated at FP16."
                )
            p = "fp16"
    peak = gpu.dense_tflops(p, tf32_enabled=(p == "tf32"))
    if not peak:
        raise ToolInputError(
            f"{gpu.name} 没有 {precision} 的算力数据",
            f"No {precision} figure for {gpu.name}",
            field="precision",
            suggestions=["bf16", "fp16", "fp32"],
        )
    if not gpu.is_nvidia:
        warnings.append(
            f"{gpu.name} 的算力数据可信度低，MFU 区间来自 NVIDIA GPU 的公开训练记录。 / {gpu.name} figures are low-confidence "
            "and the MFU band comes from NVIDIA GPU runs."
        )
    return float(peak), p, warnings


class CommEstimate(BaseModel):
    tokens_per_step: int
    steps: float
    compute_s_per_step: Band3 = Field(description="seconds of compute per optimizer step (low = fastest)")
    sync_s_per_step: Band3 = Field(
        description="seconds of data-parallel traffic per step before overlap (low = fastest)"
    )
    busbw_gbs: list[float]
    comm_share_mid: float = Field(description="exposed communication ÷ step time at the mid estimate (after overlap)")
    note: str
    strategy: str = Field("ddp", description="ddp | zero1 | zero2 | zero3 | fsdp")
    micro_steps: int = Field(1, description="micro-batches per optimizer step per data-parallel rank")
    exposed_s_per_step: Band3 | None = Field(None, description="communication left after overlap (low = fastest)")
    overlap: str = ""


class TimeEstimate(BaseModel):
    gpu: str
    gpu_name: str
    n_gpus: int
    params: float
    active_params: float
    tokens: float
    flops: float
    flops_formula: str
    precision_used: str
    peak_tflops_per_gpu: float = Field(description="dense peak per GPU at precision_used")
    mfu: Band3
    mfu_source: str
    gpu_hours: Band3 = Field(description="low = at high MFU and fast sync")
    wall_hours: Band3
    days: Band3
    wall_minutes: Band3 | None = Field(
        None, description="wall time in minutes when the run is under two hours (a 3-minute job is never shown as 0 h)"
    )
    comm: CommEstimate | None = None
    mfu_effective: Band3 | None = Field(
        None, description="MFU after communication (multi-GPU): compute efficiency × compute share of the step"
    )
    price_per_gpu_hour_cny: Band3 | None = None
    cost_cny: Band3 | None = Field(
        None, description="GPU-hours × rental-platform price (low = fast run at the cheaper typical price)"
    )
    cost_cny_by_market: dict[str, float] = Field(
        default_factory=dict, description="mid GPU-hours × each market's price"
    )
    price_as_of: str | None = None
    price_source: str | None = None
    warnings: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    measured_hours: float | None = Field(None, description="the run's own wall-clock hours, as given")
    tokens_in_measured_hours: Band3 | None = Field(
        None,
        description="tokens this setup trains in measured_hours (tokens × measured / wall_hours; low = at the "
        "slow end): is a measured time normal for the user's data?",
    )
    measured_verdict: Literal["normal", "slightly_fast", "slow", "fast"] | None = Field(
        None,
        description="measured_hours against wall_hours: normal (low ≤ m ≤ 1.2 × high), slightly_fast (low/1.5 ≤ m < "
        "low), slow (m > 1.2 × high), fast (m < low/1.5: check data size/epochs/packing)",
    )
    measured_vs_high: float | None = Field(None, description="measured_hours ÷ wall_hours.high")
    measured_gpu_hours: float | None = Field(None, description="measured_hours × n_gpus: the run in card-hours")
    measured_hours_per_epoch: float | None = Field(
        None, description="measured_hours ÷ epochs (「3个epoch要80h」: 26.7 h each), when epochs > 1"
    )
    measured_tokens_per_s: float | None = Field(None, description="the user's own measured throughput, as given")
    hours_at_measured_rate: float | None = Field(
        None, description="tokens ÷ the measured throughput ÷ 3600: this run's hours at the speed already measured"
    )
    days_at_measured_rate: float | None = None
    measured_mfu: float | None = Field(
        None, description="FLOPs per token × measured tokens/s ÷ (n_gpus × dense peak): the MFU the measurement implies"
    )
    claimed_hours: float | None = Field(None, description="a time someone says the run takes (a paper, a README)")
    tokens_per_s_for_claimed: float | None = Field(None, description="throughput claimed_hours would need")
    claimed_speedup: float | None = Field(None, description="tokens_per_s_for_claimed ÷ measured_tokens_per_s")
    epochs: float | None = Field(None, description="passes over the samples (when samples were given)")
    seq_len: int | None = Field(None, description="tokens per sample used (when samples were given)")
    padded_wall_hours: Band3 | None = Field(
        None, description="wall hours if every sample were padded to max_seq_len (no packing): the upper bound"
    )
    lora_wall_hours_same_mfu: float | None = Field(
        None,
        description="full/pretrain only: mid wall hours for LoRA (4·N·D, 6·N·D with recomputation) at the same MFU",
    )
    data_basis: dict[str, Any] | None = Field(
        None, description="what the token count rests on when it was not said in tokens (figures and source)"
    )


def estimate_time(
    *,
    gpu: str | GpuSpec,
    n_gpus: int,
    active_params: float,
    tokens: float,
    params: float | None = None,
    mode: str = "full",
    precision: str = "bf16",
    recompute: str = "none",
    tf32_enabled: bool = False,
    fp8_framework: bool = False,
    mfu: float | None = None,
    tokens_per_step: int | None = None,
    topology: str | None = None,
    nodes: int = 1,
    network: str | None = None,
    nics_per_node: int | None = None,
    zero3: bool = False,
    hourly_price_cny: float | None = None,
    quotes_file: str | None = None,
    with_cost: bool = True,
    strategy: str | None = None,
    micro_batch_tokens: int = 2048,
) -> TimeEstimate:
    """Core arithmetic (no model lookup). `mfu` overrides the band with one figure."""
    spec = gpu if isinstance(gpu, GpuSpec) else resolve_gpu(gpu)
    if n_gpus < 1:
        raise ToolInputError("GPU 数至少为 1", "n_gpus must be at least 1", field="n_gpus")
    flops, k, flops_src = training_flops(active_params, tokens, mode=mode, recompute=recompute)
    peak, used, warnings = pick_peak(spec, precision, tf32_enabled=tf32_enabled, fp8_framework=fp8_framework)
    if mfu is not None:
        if not 0 < mfu <= 1:
            raise ToolInputError("MFU 应在 0 到 1 之间", "MFU must be between 0 and 1", field="mfu")
        band, mfu_src = Band3(low=mfu, mid=mfu, high=mfu), "given by the user"
    else:
        band, mfu_src = mfu_band(mode, used)
    per_gpu_flops = {lvl: peak * 1e12 * getattr(band, lvl) for lvl in ("low", "mid", "high")}
    # compute-only seconds on all GPUs: slowest at low MFU
    compute_s = Band3(
        low=flops / (n_gpus * per_gpu_flops["high"]),
        mid=flops / (n_gpus * per_gpu_flops["mid"]),
        high=flops / (n_gpus * per_gpu_flops["low"]),
    )
    wall_s = compute_s.model_copy()
    comm = None
    mfu_effective: Band3 | None = None
    notes: list[str] = []
    psi = params or active_params
    cap = spec.memory_gb * 1e9
    ddp_states = paper_model_states_bytes(psi, n_gpus, 0)
    if strategy is None and not zero3 and mode in ("full", "pretrain") and n_gpus > 1 and ddp_states > cap:
        # no strategy named and a full copy of the model states (16 B/param, ZeRO paper §3) cannot sit on one card:
        # such a run is sharded — ZeRO-2 (2Ψ + 14Ψ/N per GPU, the same all-reduce volume as DDP) where that fits,
        # else ZeRO-3 (parameters gathered every micro-step); said so
        strategy = "zero2" if paper_model_states_bytes(psi, n_gpus, 2) <= 0.8 * cap else "zero3"
        zero3 = strategy == "zero3"
        notes.append(
            f"没说并行方式：DDP 每卡要放全部模型状态约 {ddp_states / 1e9:.0f} GB（16 B/参数）> {spec.memory_gb:g} GB，"
            f"按 {strategy.upper().replace('ZERO', 'ZeRO-')} 分片估算。 / No strategy given: DDP would hold all model "
            f"states on every GPU, about {ddp_states / 1e9:.0f} GB (16 B/param) > {spec.memory_gb:g} GB, so "
            f"{strategy.upper().replace('ZERO', 'ZeRO-')} sharding is assumed."
        )
    if n_gpus > 8 and nodes == 1:  # HGX/PCIe servers hold at most 8 GPUs
        nodes = -(-n_gpus // 8)
        notes.append(f"{n_gpus} 卡按 {nodes} 台 8 卡服务器计。 / {n_gpus} GPUs counted as {nodes} 8-GPU servers.")
    if nodes > 1 and network is None and mode != "pretrain":
        notes.append(
            "多机未给出机间网络，未计入跨机通信时间。 / Multi-node without a network given: inter-node "
            "communication is not included."
        )
    if mode == "pretrain" and n_gpus > 1 and not spec.is_sxm:
        warnings.append(
            "预训练 MFU 区间来自 NVSwitch + IB 集群；PCIe 机型实际会更慢。 / The pretraining MFU band comes from "
            "NVSwitch + IB clusters; PCIe-only servers will be slower."
        )
    if n_gpus > 1 and spec.is_nvidia and mode != "pretrain":
        comm = _comm(
            spec,
            n_gpus,
            active_params if mode in ("full", "pretrain") else 0.0,
            tokens,
            compute_s,
            tokens_per_step=tokens_per_step,
            topology=topology,
            nodes=nodes,
            network=network,
            nics_per_node=nics_per_node,
            zero3=zero3,
            mode=mode,
            params=params or active_params,
            strategy=strategy or ("zero3" if zero3 else "ddp"),
            micro_batch_tokens=micro_batch_tokens,
            band=band,
        )
        if comm is not None and comm.exposed_s_per_step is not None:
            steps = comm.steps
            ex = comm.exposed_s_per_step
            wall_s = Band3(
                low=compute_s.low + steps * ex.low,
                mid=compute_s.mid + steps * ex.mid,
                high=compute_s.high + steps * ex.high,
            )
            eff_mfu = Band3(
                low=band.low * compute_s.high / wall_s.high,
                mid=band.mid * compute_s.mid / wall_s.mid,
                high=band.high * compute_s.low / wall_s.low,
            )
            mfu_effective = _r(eff_mfu, 4)
            if comm.comm_share_mid > 0.25:
                zero3_hint = (
                    "ZeRO-3/FSDP 每个 micro-step 都要收集参数：加大 micro-batch（少几个 micro-step）或换 NVLink 机型。"
                    if comm.strategy in ("zero3", "fsdp")
                    else "用梯度累积加大全局 batch，或换更快的互联。"
                )
                zero3_hint_en = (
                    "ZeRO-3/FSDP gathers the parameters every micro-step: larger micro-batches (fewer micro-steps) or an NVLink server help."
                    if comm.strategy in ("zero3", "fsdp")
                    else "a larger global batch (gradient accumulation) or a faster interconnect lowers it."
                )
                warnings.append(
                    f"通信约占每步 {comm.comm_share_mid:.0%}（{comm.strategy}，每步 {comm.micro_steps} 个 micro-batch，已计入重叠），"
                    f"有效 MFU 约 {eff_mfu.mid:.0%}：加卡的收益会打折扣；{zero3_hint} / Communication is "
                    f"~{comm.comm_share_mid:.0%} of each step ({comm.strategy}, {comm.micro_steps} micro-batches per step, after overlap), "
                    f"effective MFU ~{eff_mfu.mid:.0%}: more GPUs help less; {zero3_hint_en}"
                )
    wall_h = Band3(low=wall_s.low / 3600, mid=wall_s.mid / 3600, high=wall_s.high / 3600)
    gpu_h = Band3(low=wall_h.low * n_gpus, mid=wall_h.mid * n_gpus, high=wall_h.high * n_gpus)
    days = Band3(low=wall_h.low / 24, mid=wall_h.mid / 24, high=wall_h.high / 24)
    notes.append(f"FLOPs = {k}·N·D = {k} × {active_params:.3g} × {tokens:.3g} = {flops:.3g}（{flops_src}）")
    notes.append("另留 5–15% 给启动、评估和存 checkpoint。 / Add 5–15% for setup, evaluation and checkpoints.")
    est = TimeEstimate(
        gpu=spec.id,
        gpu_name=spec.name,
        n_gpus=n_gpus,
        params=float(params or active_params),
        active_params=float(active_params),
        tokens=float(tokens),
        flops=flops,
        flops_formula=f"{k}·N·D",
        precision_used=used,
        peak_tflops_per_gpu=peak,
        mfu=Band3(low=round(band.low, 4), mid=round(band.mid, 4), high=round(band.high, 4)),
        mfu_source=mfu_src,
        gpu_hours=_r(gpu_h, 4),
        wall_hours=_r(wall_h, 4),
        days=_r(days, 5),
        wall_minutes=_r(Band3(low=wall_h.low * 60, mid=wall_h.mid * 60, high=wall_h.high * 60), 1)
        if wall_h.high < 2
        else None,
        comm=comm,
        mfu_effective=mfu_effective,
        warnings=warnings,
        notes=notes,
    )
    _fit_warning(est, spec, strategy or ("zero3" if zero3 else "ddp"), mode)
    if with_cost:
        _add_cost(est, spec, hourly_price_cny, quotes_file)
    return est


def _money(x: float) -> float:
    """Whole yuan, but cents under ¥10: a ¥0.33 job is not ¥0."""
    return float(round(x)) if x >= 10 else round(x, 2)


def _r(b: Band3, digits: int = 2) -> Band3:
    return Band3(low=round(b.low, digits), mid=round(b.mid, digits), high=round(b.high, digits))


def _comm(
    spec: GpuSpec,
    n_gpus: int,
    grad_params: float,
    tokens: float,
    compute_s: Band3,
    *,
    tokens_per_step: int | None,
    topology: str | None,
    nodes: int,
    network: str | None,
    nics_per_node: int | None,
    zero3: bool,
    mode: str,
    params: float,
    strategy: str = "ddp",
    micro_batch_tokens: int = 2048,
    band: Band3 | None = None,
) -> CommEstimate | None:
    """Per-step communication for the strategy over the real link (tools.comm_time), scaled to the run."""
    from tools.comm_time import Band as CBand
    from tools.comm_time import step_breakdown

    if mode in ("lora", "qlora") and strategy not in ("zero3", "fsdp"):
        return None  # adapters are tiny (≈0.1–1% of N): plain data-parallel sync is negligible
    # default global batch: 128 × 2,048 tokens, or 16,384 tokens per GPU on bigger jobs (e.g. 4 × 4,096) — people
    # grow the global batch with the GPU count; Llama 2 used 4M tokens per step on 2,048 A100s (Touvron et al. 2023, §2.2)
    tps = tokens_per_step or max(262_144, 16_384 * n_gpus)
    if nodes > 1 and network is None:
        return None
    steps = tokens / tps
    b = band or Band3(low=0.25, mid=0.35, high=0.45)
    try:
        bd = step_breakdown(
            spec,
            n_gpus=n_gpus,
            params=params,
            active_params=params,
            trainable_params=(params * 0.01 if mode in ("lora", "qlora") else None),
            tokens_per_step=int(tps),
            micro_batch_tokens=micro_batch_tokens,
            strategy=strategy,
            # compute is taken from the caller (same FLOPs formula and band); the breakdown supplies the traffic
            efficiency=CBand(low=b.low, mid=b.mid, high=b.high),
            topology=topology,
            nodes=nodes,
            network=network,
            nics_per_node=nics_per_node,
        )
    except ToolInputError:
        return None
    if bd.busbw_gbs[1] <= 0:
        return None
    per_step = Band3(low=compute_s.low / steps, mid=compute_s.mid / steps, high=compute_s.high / steps)
    # overlap inside the strategy's window, against the caller's compute per step
    from tools.comm_time import OVERLAP_WINDOW

    w = OVERLAP_WINDOW.get(strategy, 0.0)
    d = bd.dp_comm_s
    exposed = Band3(
        low=max(0.0, d.low - w * per_step.low),
        mid=(d.mid + max(0.0, d.mid - w * per_step.mid)) / 2,
        high=d.high,
    )
    share = exposed.mid / (per_step.mid + exposed.mid)
    return CommEstimate(
        tokens_per_step=tps,
        steps=round(steps, 1),
        compute_s_per_step=_r(per_step, 3),
        sync_s_per_step=_r(Band3(low=d.low, mid=d.mid, high=d.high), 3),
        busbw_gbs=bd.busbw_gbs,
        comm_share_mid=round(share, 3),
        note=f"{bd.note_zh} / {bd.note_en}",
        strategy=strategy,
        micro_steps=bd.micro_steps,
        exposed_s_per_step=_r(exposed, 3),
        overlap=bd.overlap,
    )


def _fit_warning(est: TimeEstimate, spec: GpuSpec, strategy: str, mode: str) -> None:
    """Say so when a time is given for a full fine-tune whose model states cannot fit without sharding
    (ZeRO paper, Rajbhandari et al. 2020, §5: 16Ψ for DDP, 4Ψ + 12Ψ/N for ZeRO-1, 2Ψ + 14Ψ/N for ZeRO-2)."""
    if mode not in ("full", "pretrain"):
        return
    psi, n = est.params, est.n_gpus
    stage = {"ddp": 0, "zero1": 1, "zero2": 2}.get(strategy)
    if stage is None:
        return
    per_gpu = paper_model_states_bytes(psi, n, stage)
    if per_gpu <= spec.memory_gb * 1e9:
        return
    est.warnings.append(
        f"按 {strategy.upper()} 估算的时间不可用：每卡仅模型状态就要约 {per_gpu / 1e9:.0f} GB > {spec.memory_gb:g} GB，"
        f"需要 ZeRO-3/FSDP 分片（通信更多，时间更长），请用 zero3 重新估算。 / The {strategy.upper()} time is not achievable: "
        f"model states alone need ~{per_gpu / 1e9:.0f} GB per GPU > {spec.memory_gb:g} GB; this needs ZeRO-3/FSDP "
        "sharding (more traffic, longer) — re-estimate with zero3."
    )


def _add_cost(est: TimeEstimate, spec: GpuSpec, hourly_price_cny: float | None, quotes_file: str | None) -> None:
    from tools.prices import PriceInput, gpu_price

    try:
        price = gpu_price(PriceInput(gpu=spec.id, hourly_quote_cny=hourly_price_cny, quotes_file=quotes_file))
    except ToolInputError:
        est.warnings.append(
            f"没有 {spec.name} 的价格数据，未算费用；可以给出每卡每小时报价。 / No price data for {spec.name}; "
            "pass a per-GPU-hour quote to get a cost."
        )
        return
    h = price.hourly_cny
    lo, hi = h.typical_range or [h.typical, h.typical]
    est.price_per_gpu_hour_cny = Band3(low=lo, mid=h.typical, high=hi)
    est.cost_cny = Band3(
        low=_money(est.gpu_hours.low * lo),
        mid=_money(est.gpu_hours.mid * h.typical),
        high=_money(est.gpu_hours.high * hi),
    )
    est.cost_cny_by_market = {m.market: _money(est.gpu_hours.mid * m.hourly_cny) for m in price.by_market}
    est.price_as_of, est.price_source = price.as_of, price.source
    est.notes.append(price.warning)
    if price.proxy:
        est.warnings.append(f"{spec.name} 用相近型号的价格代替。 / {spec.name} is priced from a related card.")


# ---------------------------------------------------------------- the tool


class TrainTimeInput(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)  # inf/nan are refused with a bilingual error, never computed

    model: str | None = Field(
        None, description="model name from the catalog ('qwen2.5-7b', 'llama-3-8b') — or give params_b"
    )
    params_b: float | None = Field(None, gt=0, description="total parameters in billions (e.g. 7)")
    active_params_b: float | None = Field(None, gt=0, description="MoE: parameters active per token, billions")
    tokens: str | float | None = Field(None, description="training tokens: 2e12, '1B', '500B tokens', '1万亿'")
    samples: float | None = Field(None, gt=0, description="instead of tokens: number of samples")
    seq_len: int | None = Field(None, gt=0, description="tokens per sample (with samples)")
    epochs: float = Field(1.0, gt=0, description="passes over the samples")
    gpu: str = Field(..., description="GPU name: 'A100 80G', '4090', 'H100', 'H800'")
    n_gpus: int = Field(1, ge=1, le=65536, description="number of GPUs")
    nodes: int = Field(1, ge=1, description="servers (for the interconnect term)")
    mode: Mode = Field("full", description="pretrain | full (fine-tune) | lora | qlora")
    precision: Literal["bf16", "fp16", "fp8", "tf32", "fp32"] = Field("bf16", description="compute precision")
    measured_hours: float | None = Field(
        None, gt=0, description="a run's measured wall-clock hours: also return the tokens this setup trains in them"
    )
    measured_tokens_per_s: float | None = Field(
        None,
        gt=0,
        le=1e9,
        description="throughput the user measured over all n_gpus (409,600 tokens in 37.8 s → 10,836): the run's hours "
        "at that speed, and the MFU it implies",
    )
    claimed_hours: float | None = Field(
        None,
        gt=0,
        le=1_000_000,
        description="a time someone claims for this run (a paper's 8 hours): the speed it needs",
    )
    tf32_enabled: bool = Field(False, description="with fp32: TF32 matmuls enabled (PyTorch default is off)")
    fp8_framework: bool = Field(False, description="with fp8: the stack really runs FP8 (e.g. Transformer Engine)")
    recompute: Recompute = Field("none", description="activation recomputation: none | selective | full (full → 8·N·D)")
    mfu: float | None = Field(None, gt=0, le=1, description="override the MFU band with one figure")
    tokens_per_step: int | None = Field(
        None, gt=0, description="global batch in tokens (for the gradient-sync term); default 262,144"
    )
    topology: str | None = Field(None, description="intra-node link: auto | nvswitch | nvlink_bridge | pcie")
    network: str | None = Field(None, description="inter-node network when nodes > 1: 'IB HDR', 'RoCE 100G', '10G'")
    nics_per_node: int | None = Field(None, ge=1, description="inter-node NICs per server")
    zero3: bool = Field(False, description="ZeRO-3/FSDP full sharding (parameters gathered every micro-step)")
    strategy: Literal["ddp", "zero1", "zero2", "zero3", "fsdp"] | None = Field(
        None, description="data-parallel strategy for the communication term (default ddp, or zero3 when zero3=true)"
    )
    micro_batch_tokens: int = Field(2048, ge=1, description="tokens per GPU per micro-batch (micro-batch × seq_len)")
    hourly_price_cny: float | None = Field(
        None, gt=0, description="your quote per GPU-hour (CNY); default: price table"
    )
    quotes_file: str | None = Field(None, description="YAML/CSV quotes file (see gpu_price)")
    max_seq_len: int | None = Field(
        None, gt=0, description="with samples: the max length (cutoff_len); adds the padded-to-max upper bound"
    )
    data_basis: Literal["chat_average", "corpus", "chars_zh", "chars_en", "file_zh", "file_en", "steps"] | None = Field(
        None,
        description="how the data size was read: chat_average (samples × the average chat sample), corpus ('200M语料' "
        "read as tokens), chars_zh/chars_en (characters × tokens per character), steps (steps × sequences per step × "
        "sequence length: samples = steps × global batch); figures from knowledge/mfu.yaml",
    )
    steps: int | None = Field(
        None, gt=0, le=100_000_000, description="with data_basis 'steps': the optimizer steps the samples came from"
    )

    @field_validator("tokens", mode="before")
    @classmethod
    def _finite(cls, v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError("必须是有限数（不能是 inf/nan）/ must be a finite number (not inf/nan)")
        return v

    @model_validator(mode="after")
    def _need_size_and_tokens(self) -> "TrainTimeInput":
        if self.model is None and self.params_b is None:
            raise ValueError("需要模型名或参数量 params_b / give a model name or params_b")
        if self.tokens is None and not (self.samples and self.seq_len):
            raise ValueError("需要 token 数，或 samples × seq_len / give tokens, or samples × seq_len")
        return self


def resolve_sizes(model: str | None, params_b: float | None, active_params_b: float | None) -> tuple[float, float, str]:
    """(total params, active params, label) from the model catalog (tools.models) or plain numbers."""
    if model:
        from tools.models import resolve_model

        res = resolve_model(model, params=f"{params_b}B" if params_b else None)
        active = active_params_b * 1e9 if active_params_b else float(res.active_params)
        return float(res.params), active, res.name
    total = float(params_b) * 1e9  # type: ignore[arg-type]
    active = active_params_b * 1e9 if active_params_b else total
    return total, active, f"{params_b:g}B"


def resolve_tokens(tokens: str | float | None, samples: float | None, seq_len: int | None, epochs: float) -> float:
    if tokens is not None:
        if isinstance(tokens, (int, float)):
            if not math.isfinite(tokens) or tokens <= 0:
                raise ToolInputError("token 数必须为正", "tokens must be positive", field="tokens")
            return float(tokens) * epochs
        from tools.quantities import parse_token_count

        n = float(parse_token_count(tokens)) * epochs
    else:
        n = float(samples) * float(seq_len) * epochs  # type: ignore[arg-type]
    if not math.isfinite(n) or n <= 0:
        raise ToolInputError("token 数必须是正的有限数", "tokens must be a positive finite number", field="tokens")
    return n


def estimate_training_time(inp: TrainTimeInput) -> TimeEstimate:
    total, active, label = resolve_sizes(inp.model, inp.params_b, inp.active_params_b)
    tokens = resolve_tokens(inp.tokens, inp.samples, inp.seq_len, inp.epochs)
    est = estimate_time(
        gpu=inp.gpu,
        n_gpus=inp.n_gpus,
        active_params=active,
        params=total,
        tokens=tokens,
        mode=inp.mode,
        precision=inp.precision,
        recompute=inp.recompute,
        tf32_enabled=inp.tf32_enabled,
        fp8_framework=inp.fp8_framework,
        mfu=inp.mfu,
        tokens_per_step=inp.tokens_per_step,
        topology=inp.topology,
        nodes=inp.nodes,
        network=inp.network,
        nics_per_node=inp.nics_per_node,
        zero3=inp.zero3,
        hourly_price_cny=inp.hourly_price_cny,
        quotes_file=inp.quotes_file,
        strategy=inp.strategy,
        micro_batch_tokens=inp.micro_batch_tokens,
    )
    if active < total:
        est.notes.append(
            f"MoE：按激活参数 {active / 1e9:.3g}B 计算 FLOPs（总参数 {total / 1e9:.3g}B 决定显存）。 / MoE: FLOPs use "
            f"the {active / 1e9:.3g}B active parameters (the {total / 1e9:.3g}B total sets memory)."
        )
    est.notes.insert(0, f"模型 / model: {label}")
    _extras(est, inp)
    if inp.measured_hours and est.wall_hours.mid > 0:
        per = tokens * inp.measured_hours
        est.measured_hours = inp.measured_hours
        est.tokens_in_measured_hours = Band3(
            low=float(f"{per / est.wall_hours.high:.3g}"),
            mid=float(f"{per / est.wall_hours.mid:.3g}"),
            high=float(f"{per / est.wall_hours.low:.3g}"),
        )
        est.measured_verdict, est.measured_vs_high = measured_verdict(inp.measured_hours, est.wall_hours)  # type: ignore[assignment]
        est.measured_gpu_hours = float(f"{inp.measured_hours * inp.n_gpus:.4g}")
        if inp.epochs > 1:
            est.measured_hours_per_epoch = float(f"{inp.measured_hours / inp.epochs:.3g}")
    if inp.measured_tokens_per_s:
        _at_measured_rate(est, tokens, inp.measured_tokens_per_s, inp.n_gpus, inp.claimed_hours)
    return est


def _at_measured_rate(est: TimeEstimate, tokens: float, rate: float, n_gpus: int, claimed: float | None) -> None:
    """The run's hours at the user's own measured throughput (no MFU assumed: the measurement is the rate), the MFU
    that throughput implies (FLOPs per token × tokens/s over the cards' dense peak), and — when someone claims a time
    for it — the throughput that time would need and how many times faster that is."""
    hours = tokens / rate / 3600
    est.measured_tokens_per_s = rate
    est.hours_at_measured_rate = float(f"{hours:.3g}")
    est.days_at_measured_rate = float(f"{hours / 24:.3g}")
    if est.peak_tflops_per_gpu > 0 and tokens > 0:
        est.measured_mfu = round(est.flops / tokens * rate / (n_gpus * est.peak_tflops_per_gpu * 1e12), 3)
    if claimed:
        need = tokens / (claimed * 3600)
        est.claimed_hours = claimed
        est.tokens_per_s_for_claimed = float(f"{need:.4g}")
        est.claimed_speedup = float(f"{need / rate:.3g}")


def measured_verdict(measured: float, wall: Band3) -> tuple[str, float]:
    """(verdict, measured ÷ high) for a run's own hours against the estimate band: within [low, 1.2 × high] is
    normal (the 20% covers start-up, evaluation and checkpoints); under low/1.5 the data is probably smaller than
    assumed; above 1.2 × high the run is slow and a cause is worth looking for."""
    ratio = measured / wall.high if wall.high > 0 else 0.0
    if measured > wall.high * 1.2:
        return "slow", round(ratio, 1)
    if measured < wall.low / 1.5:
        return "fast", round(ratio, 2)
    if measured < wall.low:
        return "slightly_fast", round(ratio, 2)
    return "normal", round(ratio, 2)


def _data_basis(kind: str, tokens: float) -> dict[str, Any]:
    """The figures behind a data size read from samples, a corpus or characters (knowledge/mfu.yaml data_units)."""
    units = mfu_data()["data_units"]
    if kind == "chat_average":
        row = units["chat_tokens_per_sample"]
        return {
            "kind": kind,
            "tokens_per_sample": row["value"],
            "turns": row["turns"],
            "prompt_tokens": row["prompt_tokens"],
            "response_tokens": row["response_tokens"],
            "exact": round(float(row["turns"]) * (float(row["prompt_tokens"]) + float(row["response_tokens"]))),
            "source": row["source"],
        }
    rate = units["tokens_per_char"]
    if kind == "corpus":
        b = float(units["utf8_bytes_per_chinese_char"]["value"])
        zh = float(rate["zh"])
        return {
            "kind": kind,
            "tokens": tokens,
            "tokens_if_chars": tokens * zh,
            "tokens_if_utf8_bytes": tokens / b * zh,
            "share_if_chars": zh,
            "share_if_utf8_bytes": round(zh / b, 3),
            "tokens_per_char_zh": zh,
            "bytes_per_char": b,
            "source": f"{rate['source']}; {units['utf8_bytes_per_chinese_char']['source']}",
        }
    lang = "zh" if kind in ("chars_zh", "file_zh") else "en"
    out = {"kind": kind, "tokens": tokens, "tokens_per_char": float(rate[lang]), "source": rate["source"]}
    if kind.startswith("file_"):
        b = float(units["utf8_bytes_per_chinese_char"]["value"]) if lang == "zh" else 1.0
        out |= {"bytes_per_char": b, "file_bytes": tokens / float(rate[lang]) * b}
        out["source"] = f"{rate['source']}; {units['utf8_bytes_per_chinese_char']['source']}"
    return out


def _extras(est: TimeEstimate, inp: "TrainTimeInput") -> None:
    """Figures the answer states beside the estimate, computed here so every number has a tool source."""
    if inp.samples and inp.seq_len:
        est.epochs, est.seq_len = inp.epochs, inp.seq_len
        if inp.max_seq_len and inp.max_seq_len > inp.seq_len:
            k = inp.max_seq_len / inp.seq_len
            w = est.wall_hours
            est.padded_wall_hours = _r(Band3(low=w.low * k, mid=w.mid * k, high=w.high * k), 1)
    if inp.mode in ("full", "pretrain"):
        table = mfu_data()["flops_per_token"]
        key = {"none": "no_recompute", "selective": "selective", "full": "full_recompute"}[inp.recompute]
        share = float(table["lora"][key]) / float(table["full"][key])
        est.lora_wall_hours_same_mfu = round(est.wall_hours.mid * share, 1)
    if inp.data_basis == "steps" and inp.steps and inp.samples and inp.seq_len:
        # 「batch_size=1024 … 1K步 … block_size 512」: steps × sequences per step × length, shown as the user wrote it
        est.data_basis = {
            "kind": "steps",
            "steps": inp.steps,
            "sequences_per_step": round(inp.samples / inp.steps),
            "seq_len": inp.seq_len,
            "tokens": est.tokens,
        }
    elif inp.data_basis and inp.data_basis != "steps":
        est.data_basis = _data_basis(inp.data_basis, est.tokens)


TOOLS = [
    ToolSpec(
        name="estimate_training_time",
        description=(
            "Training compute, time and cost: FLOPs = 6·N·D (8·N·D with full recomputation; LoRA 4·N·D; MoE uses "
            "active params), wall time = FLOPs / (GPUs × dense peak TFLOPS × MFU) with a cited MFU band "
            "(low/mid/high), plus each step's communication for the strategy (ddp/zero1/zero2/zero3/fsdp) over the real link after "
            "stated overlap, giving an effective MFU. Returns FLOPs, GPU-hours, wall hours and days {low, mid, high}, "
            "mfu_effective, the comm breakdown, warnings (e.g. DDP time for a model that only fits sharded), and cost in CNY "
            "from the price table (or the user's quote)."
        ),
        input_model=TrainTimeInput,
        func=estimate_training_time,
    ),
]
