"""Per-step compute vs communication for data/tensor/pipeline parallel training over the actual link.

Bytes each GPU moves per optimizer step, bf16 (2 bytes) parameters and gradients, Ψ = parameters on the GPU's
data-parallel replica, n = data-parallel ranks, g = micro-steps per optimizer step (gradient accumulation):
    DDP     one all-reduce of gradients per step (no_sync while accumulating)         2(n−1)/n · 2Ψ
    ZeRO-1  reduce-scatter grads + all-gather params once per step = DDP volume        2(n−1)/n · 2Ψ
    ZeRO-2  reduce-scatter every micro-step (gradients are partitioned) + one all-gather  (g+1)(n−1)/n · 2Ψ
    ZeRO-3 / FSDP  all-gather params in forward AND backward + reduce-scatter grads, every micro-step
                                                                                       3g(n−1)/n · 2Ψ
    (Rajbhandari et al. 2020, "ZeRO", §7: stage 3 moves 1.5× the data of DP; FSDP paper, Zhao et al. 2023, §3.)
    TP (Megatron): 4 all-reduces of the activations b·s·h per layer per micro-batch (2 forward, 2 backward),
    on the critical path (Shoeybi et al. 2019, §3; Narayanan et al. 2021, §3.2).
    PP (1F1B): pipeline bubble (p−1)/m of the compute, m = micro-batches per step (Narayanan et al. 2021, §2.2).
Time of a collective = bytes-factor × S / busbw (nccl-tests doc/PERFORMANCE.md), busbw from
tools.interconnect.expected_busbw (PCIe without P2P on GeForce cards, NVLink/NVSwitch, IB/RoCE at its speed).

Overlap (stated, not hidden): DDP/ZeRO-1/2 bucket the gradient reduction under the backward pass (≈ 2/3 of the
compute); ZeRO-3/FSDP prefetch the next layer's all-gather under the current layer's compute (up to all of it);
TP all-reduces are not overlapped. Fast end = perfect overlap inside that window, slow end = none, mid = halfway.
The effective MFU follows: compute-only efficiency × compute / (compute + exposed communication).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.errors import ToolInputError
from tools.gpus import GpuSpec, resolve_gpu
from tools.registry import ToolSpec

Strategy = Literal["ddp", "zero1", "zero2", "zero3", "fsdp"]
OVERLAP_WINDOW = {"ddp": 2 / 3, "zero1": 2 / 3, "zero2": 2 / 3, "zero3": 1.0, "fsdp": 1.0}
OVERLAP_SOURCE = (
    "PyTorch DDP gradient bucketing overlaps all-reduce with backward (Li et al. 2020, VLDB, §3.2.3); FSDP/ZeRO-3 "
    "prefetch overlaps the next all-gather with compute (Zhao et al. 2023, arXiv:2304.11277, §3.3)"
)


class Band(BaseModel):
    low: float
    mid: float
    high: float


class StepBreakdown(BaseModel):
    strategy: str
    n_gpus: int
    dp: int
    tp: int
    pp: int
    micro_steps: int = Field(description="micro-batches per optimizer step per data-parallel rank (g)")
    tokens_per_step: int
    compute_s: Band = Field(description="compute per optimizer step (low = fastest), incl. pipeline bubble")
    dp_comm_s: Band = Field(description="data-parallel traffic per step before overlap (low = fastest link)")
    tp_comm_s: Band = Field(description="tensor-parallel all-reduces per step (never overlapped)")
    exposed_comm_s: Band = Field(description="communication left on the critical path after overlap")
    step_s: Band
    comm_share: float = Field(description="exposed communication ÷ step time, mid")
    mfu: Band = Field(description="effective MFU = compute efficiency × compute share (low = slow end)")
    dp_bytes_per_step: float = Field(description="bytes each GPU sends for data parallelism per step")
    busbw_gbs: list[float] = Field(description="[low, high] busbw of the data-parallel group")
    overlap: str
    note_zh: str
    note_en: str


def dp_bytes(strategy: str, params_per_replica: float, n: int, micro_steps: int) -> float:
    """Bus bytes (the S·factor in nccl-tests' t = S·factor/busbw) per optimizer step, bf16 tensors."""
    if n <= 1:
        return 0.0
    s = 2.0 * params_per_replica
    ring = (n - 1) / n
    if strategy in ("ddp", "zero1"):
        return 2 * ring * s
    if strategy == "zero2":
        return (micro_steps + 1) * ring * s
    if strategy in ("zero3", "fsdp"):
        return 3 * micro_steps * ring * s
    raise ToolInputError(
        f"未知并行策略 {strategy}", f"Unknown strategy {strategy}", field="strategy", suggestions=list(OVERLAP_WINDOW)
    )


def step_breakdown(
    gpu: str | GpuSpec,
    *,
    n_gpus: int,
    params: float,
    active_params: float | None = None,
    trainable_params: float | None = None,
    tokens_per_step: int,
    micro_batch_tokens: int = 2048,
    strategy: str = "ddp",
    tp: int = 1,
    pp: int = 1,
    hidden: int | None = None,
    layers: int | None = None,
    flops_per_token_factor: int = 6,
    peak_tflops: float | None = None,
    efficiency: Band | None = None,
    topology: str | None = None,
    nodes: int = 1,
    network: str | None = None,
    nics_per_node: int | None = None,
) -> StepBreakdown:
    """Seconds per optimizer step, split into compute and communication, with overlap stated.

    efficiency = compute-only MFU band (what one GPU reaches without waiting on the network).
    trainable_params: parameters whose gradients are synchronised (LoRA: the adapters); defaults to params.
    """
    from tools.interconnect import expected_busbw

    spec = gpu if isinstance(gpu, GpuSpec) else resolve_gpu(gpu)
    for name, v in (("n_gpus", n_gpus), ("tp", tp), ("pp", pp), ("tokens_per_step", tokens_per_step)):
        if not isinstance(v, int) or v < 1:
            raise ToolInputError(f"{name} 必须是正整数", f"{name} must be a positive integer", field=name)
    for name, x in (("params", params), ("micro_batch_tokens", micro_batch_tokens)):
        if not math.isfinite(x) or x <= 0:
            raise ToolInputError(f"{name} 必须是正的有限数", f"{name} must be a positive finite number", field=name)
    if n_gpus % (tp * pp):
        raise ToolInputError("GPU 数必须是 tp × pp 的整数倍", "n_gpus must be a multiple of tp × pp", field="n_gpus")
    dp = n_gpus // (tp * pp)
    active = active_params or params
    eff = efficiency or Band(low=0.25, mid=0.35, high=0.45)
    peak = peak_tflops or spec.dense_tflops("bf16") or spec.dense_tflops("fp16") or 0.0
    if peak <= 0:
        raise ToolInputError(
            f"{spec.name} 没有 BF16/FP16 算力数据", f"No BF16/FP16 figure for {spec.name}", field="gpu"
        )
    tokens_per_rank = tokens_per_step / dp
    micro = max(1, math.ceil(tokens_per_rank / micro_batch_tokens))
    bubble = (pp - 1) / micro if pp > 1 else 0.0
    flops = flops_per_token_factor * active * tokens_per_step
    compute = {k: flops / (n_gpus * peak * 1e12 * getattr(eff, k)) * (1 + bubble) for k in ("low", "mid", "high")}
    compute_b = Band(low=compute["high"], mid=compute["mid"], high=compute["low"])  # low = fastest

    per_replica = (trainable_params if trainable_params is not None else params) / (tp * pp)
    if strategy in ("zero3", "fsdp") and trainable_params is not None and trainable_params < params:
        per_replica = params / (tp * pp)  # frozen base weights are still gathered every micro-step (FSDP LoRA)
    nbytes = dp_bytes(strategy, per_replica, dp, micro)
    if strategy in ("zero3", "fsdp") and trainable_params is not None and trainable_params < params and dp > 1:
        # frozen base (LoRA under FSDP): gathered in forward and backward, only the adapters are reduce-scattered
        ring = (dp - 1) / dp
        nbytes = 2 * micro * ring * 2 * per_replica + micro * ring * 2 * trainable_params / (tp * pp)
    bus_lo = bus_hi = 0.0
    if dp > 1:
        if nodes > 1:  # the data-parallel ring crosses the network: hierarchical estimate of tools.interconnect
            bus = expected_busbw(
                spec.id, n_gpus, topology, nodes=nodes, network=network or "RoCE 100G", nics_per_node=nics_per_node
            )
        else:
            bus = expected_busbw(spec.id, dp, topology)
        bus_lo, bus_hi = bus.low_gbs, bus.high_gbs
    dp_comm = Band(
        low=nbytes / (bus_hi * 1e9) if bus_hi else 0.0,
        mid=nbytes / ((bus_lo + bus_hi) / 2 * 1e9) if bus_hi else 0.0,
        high=nbytes / (bus_lo * 1e9) if bus_lo else 0.0,
    )
    tp_comm = Band(low=0.0, mid=0.0, high=0.0)
    if tp > 1:
        h = hidden or int(round(math.sqrt(active / (12 * (layers or 32)))))
        lyr = layers or 32
        intra = expected_busbw(spec.id, tp, topology)
        tp_bytes = 4 * (lyr / pp) * 2 * (tp - 1) / tp * micro_batch_tokens * h * 2 * micro
        tp_comm = Band(
            low=tp_bytes / (intra.high_gbs * 1e9),
            mid=tp_bytes / (intra.mid_gbs * 1e9),
            high=tp_bytes / (intra.low_gbs * 1e9),
        )
    window = OVERLAP_WINDOW.get(strategy, 0.0)
    fast = max(0.0, dp_comm.low - window * compute_b.low) + tp_comm.low
    slow = dp_comm.high + tp_comm.high
    mid_full = dp_comm.mid + tp_comm.mid
    mid_hidden = max(0.0, dp_comm.mid - window * compute_b.mid) + tp_comm.mid
    exposed = Band(low=fast, mid=(mid_full + mid_hidden) / 2, high=slow)
    step = Band(low=compute_b.low + exposed.low, mid=compute_b.mid + exposed.mid, high=compute_b.high + exposed.high)
    mfu = Band(
        low=eff.low * compute["low"] / (compute["low"] + exposed.high) / (1 + bubble),
        mid=eff.mid * compute["mid"] / (compute["mid"] + exposed.mid) / (1 + bubble),
        high=eff.high * compute["high"] / (compute["high"] + exposed.low) / (1 + bubble),
    )
    share = exposed.mid / step.mid if step.mid else 0.0
    label = {"ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3", "fsdp": "FSDP"}[strategy]
    note_zh = (
        f"{label}：每步 {micro} 个 micro-batch，数据并行每卡传 {nbytes / 1e9:.1f} GB（busbw {bus_lo:g}–{bus_hi:g} GB/s），"
        f"计算 {compute_b.mid:.2f} s，暴露的通信 {exposed.mid:.2f} s（重叠窗口 {window:.0%} 的计算）。"
    )
    note_en = (
        f"{label}: {micro} micro-batches per step; each GPU moves {nbytes / 1e9:.1f} GB for data parallelism "
        f"(busbw {bus_lo:g}–{bus_hi:g} GB/s); compute {compute_b.mid:.2f} s, exposed communication {exposed.mid:.2f} s "
        f"(overlap window {window:.0%} of compute)."
    )
    r = lambda b: Band(low=round(b.low, 4), mid=round(b.mid, 4), high=round(b.high, 4))  # noqa: E731 - local rounding
    return StepBreakdown(
        strategy=strategy,
        n_gpus=n_gpus,
        dp=dp,
        tp=tp,
        pp=pp,
        micro_steps=micro,
        tokens_per_step=tokens_per_step,
        compute_s=r(compute_b),
        dp_comm_s=r(dp_comm),
        tp_comm_s=r(tp_comm),
        exposed_comm_s=r(exposed),
        step_s=r(step),
        comm_share=round(share, 3),
        mfu=r(mfu),
        dp_bytes_per_step=nbytes,
        busbw_gbs=[bus_lo, bus_hi],
        overlap=f"{label}: window {window:.0%} of compute; {OVERLAP_SOURCE}",
        note_zh=note_zh,
        note_en=note_en,
    )


class StepTimeInput(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    gpu: str = Field(..., description="GPU name: '4090', 'A100 80G', 'H800'")
    n_gpus: int = Field(8, ge=1, le=65536, description="total GPUs")
    model: str | None = Field(None, description="model name from the catalog ('qwen2.5-7b'); or give params_b")
    params_b: float | None = Field(None, gt=0, le=100_000, description="model parameters, billions")
    mode: Literal["full", "lora", "qlora"] = Field(
        "full",
        description="full fine-tune, or LoRA/QLoRA (only adapters are synchronised; FSDP still gathers the base)",
    )
    strategy: Strategy = Field("zero3", description="ddp | zero1 | zero2 | zero3 | fsdp")
    tokens_per_step: int = Field(262_144, ge=1, description="global batch in tokens per optimizer step")
    micro_batch_tokens: int = Field(2048, ge=1, description="tokens per GPU per micro-batch (micro-batch × seq_len)")
    tp: int = Field(1, ge=1, le=64, description="tensor-parallel degree (inside a node)")
    pp: int = Field(1, ge=1, le=512, description="pipeline-parallel degree")
    nodes: int = Field(1, ge=1, description="servers")
    network: str | None = Field(None, description="inter-node network when nodes > 1: 'IB NDR', 'RoCE 100G'")
    nics_per_node: int | None = Field(None, ge=1, description="inter-node NICs per server")
    topology: str | None = Field(None, description="intra-node link: auto | nvswitch | nvlink_bridge | pcie")


def estimate_step_time(inp: StepTimeInput) -> StepBreakdown:
    from tools.train_time import mfu_band, mfu_data, resolve_sizes

    if inp.model is None and inp.params_b is None:
        raise ToolInputError("需要模型名或参数量 params_b", "Give a model name or params_b", field="model")
    total, active, _ = resolve_sizes(inp.model, inp.params_b, None)
    band, _ = mfu_band(inp.mode, "bf16")
    lora = inp.mode in ("lora", "qlora")
    return step_breakdown(
        inp.gpu,
        n_gpus=inp.n_gpus,
        params=total,
        active_params=active,
        trainable_params=total * 0.01 if lora else None,
        flops_per_token_factor=int(mfu_data()["flops_per_token"][inp.mode]["no_recompute"]),  # knowledge/mfu.yaml
        tokens_per_step=inp.tokens_per_step,
        micro_batch_tokens=inp.micro_batch_tokens,
        strategy=inp.strategy,
        tp=inp.tp,
        pp=inp.pp,
        efficiency=Band(low=band.low, mid=band.mid, high=band.high),
        topology=inp.topology,
        nodes=inp.nodes,
        network=inp.network,
        nics_per_node=inp.nics_per_node,
    )


TOOLS = [
    ToolSpec(
        name="estimate_step_time",
        description=(
            "One training step split into compute and communication for DDP, ZeRO-1/2/3, FSDP (parameters all-gathered "
            "every micro-step), tensor and pipeline parallel, over the real link (NVLink/NVSwitch, PCIe with or without P2P "
            "— RTX 4090 has none — IB/RoCE): seconds of compute, of data-parallel traffic, exposed after the stated overlap, "
            "communication share and the effective MFU that follows. Use it for 'why is 8×4090 ZeRO-3 slow', 'will more "
            "cards help', 'DDP or FSDP'."
        ),
        input_model=StepTimeInput,
        func=estimate_step_time,
    ),
]
