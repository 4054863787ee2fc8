"""Small deterministic conversions users ask about on their own: byte units, bus bandwidth from
nccl-tests' algbw, and the MFU a published GPU-hour figure implies.

Units (tools/units.py, stated everywhere): GB = 10^9 bytes (decimal, as GPU datasheets and disk
vendors use), GiB = 2^30 bytes (binary); nvidia-smi prints "MiB" = 2^20 bytes, PyTorch's allocator
counts binary units too. Bandwidth: GB/s = 10^9 B/s, TB/s = 10^12 B/s (datasheet convention).

The collective factors live in `tools.interconnect` (nccl-tests doc/PERFORMANCE.md) and the 6·N·D
count and GPU peaks in `tools.train_time` / `tools.gpus`; this module only composes them.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from tools.errors import ToolInputError
from tools.registry import ToolSpec
from tools.units import GB, GiB, MiB

# ---------------------------------------------------------------- byte and bandwidth units --------
# bytes per unit; the names are case-insensitive on input ("gib", "GiB", "G", "吉字节" is not accepted).
BYTE_UNITS: dict[str, int] = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": GB,
    "TB": 10**12,
    "PB": 10**15,
    "KiB": 2**10,
    "MiB": MiB,
    "GiB": GiB,
    "TiB": 2**40,
    "PiB": 2**50,
}
# bytes per second per unit (decimal, as datasheets and nccl-tests print them)
RATE_UNITS: dict[str, int] = {"MB/s": 10**6, "GB/s": 10**9, "TB/s": 10**12}
_BITRATE_UNITS = ("Gb/s", "Tb/s")  # bits: a NIC's "100G" is 12.5 GB/s

UNIT_SOURCE = (
    "IEC 80000-13 (KiB/MiB/GiB = 2^10/2^20/2^30 B) and SI prefixes (kB/MB/GB = 10^3/10^6/10^9 B); "
    "nvidia-smi reports memory in MiB (NVIDIA nvidia-smi documentation)"
)


def canonical_unit(unit: str) -> str:
    """'gib' → 'GiB', 'G' → 'GB', 'gb/s' → 'GB/s'. 'Gbps' / 'Gb/s' (bits, as NICs are sold) → 'Gb/s'."""
    raw = (unit or "").strip().replace(" ", "").replace("每秒", "/s")
    if re.fullmatch(r"[GT]b(?:ps|/s)|gbps|tbps", raw):
        return raw[0].upper() + "b/s"
    low = raw.lower().replace("ps", "/s") if raw.lower().endswith("bps") else raw.lower()
    aliases = {"g": "GB", "m": "MB", "t": "TB", "k": "KB", "gi": "GiB", "mi": "MiB", "ti": "TiB", "bytes": "B"}
    if low in aliases:
        return aliases[low]
    for name in [*BYTE_UNITS, *RATE_UNITS]:
        if low == name.lower():
            return name
    raise ToolInputError(
        f"不认识的单位「{unit}」", f"Unknown unit '{unit}'", field="unit", suggestions=[*BYTE_UNITS, *RATE_UNITS]
    )


def _kind(unit: str) -> str:
    return "bytes" if unit in BYTE_UNITS else "rate"


class ConvertUnitsInput(BaseModel):
    value: float = Field(ge=0, description="the quantity to convert, e.g. 80 or 24564")
    from_unit: str = Field(description="its unit: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB, or MB/s, GB/s, TB/s")
    to_unit: str | None = Field(None, description="the unit wanted (same kind as from_unit); omit for all common units")


class ConvertUnitsOutput(BaseModel):
    value: float
    from_unit: str
    to_unit: str | None
    result: float | None = Field(description="value expressed in to_unit (None when to_unit was not given)")
    n_bytes: float | None = Field(description="for sizes: the exact number of bytes")
    bytes_per_s: float | None = Field(description="for bandwidths: bytes per second")
    table: dict[str, float] = Field(description="the same quantity in every common unit of its kind")
    formula: str
    explanation_zh: str
    explanation_en: str
    source: str


def convert_units(inp: ConvertUnitsInput) -> ConvertUnitsOutput:
    """Exact conversion; rounding is left to whoever displays the number."""
    src = canonical_unit(inp.from_unit)
    dst = canonical_unit(inp.to_unit) if inp.to_unit else None
    if src in _BITRATE_UNITS or (dst in _BITRATE_UNITS if dst else False):
        raise ToolInputError(
            "网卡速率用比特（Gb/s），请先除以 8 换成 GB/s 再换算",
            "Link speeds in bits (Gb/s) divide by 8 to get GB/s; give GB/s",
            field="from_unit",
        )
    if dst and _kind(src) != _kind(dst):
        raise ToolInputError(
            f"{src} 和 {dst} 不是同一类单位（容量与带宽不能互换）",
            f"{src} and {dst} measure different things (size vs bandwidth)",
            field="to_unit",
        )
    table_units = BYTE_UNITS if _kind(src) == "bytes" else RATE_UNITS
    base = inp.value * table_units[src]
    table = {u: base / f for u, f in table_units.items() if u not in ("B", "KB", "KiB", "PB", "PiB")}
    result = base / table_units[dst] if dst else None
    if _kind(src) == "bytes":
        formula = f"{inp.value:g} {src} × {table_units[src]:,} B/{src}" + (
            f" ÷ {table_units[dst]:,} B/{dst} = {result:.6g} {dst}" if dst else f" = {base:,.0f} B"
        )
        zh = (
            "GB 是十进制单位，1 GB = 10^9 字节（显卡规格表、硬盘厂商用它）；GiB 是二进制单位，1 GiB = 2^30 = "
            "1,073,741,824 字节。nvidia-smi 显示的 MiB 也是二进制：1 MiB = 2^20 = 1,048,576 字节，"
            "所以 1 GiB ≈ 1.074 GB，同一块显存用 GiB 表示的数字比用 GB 小约 7%。"
        )
        en = (
            "GB is decimal: 1 GB = 10^9 bytes (GPU datasheets and disk vendors use it); GiB is binary: 1 GiB = 2^30 = "
            "1,073,741,824 bytes. nvidia-smi's MiB is binary too: 1 MiB = 2^20 = 1,048,576 bytes, so 1 GiB ≈ 1.074 GB "
            "and the same memory reads about 7% smaller in GiB than in GB."
        )
    else:
        formula = f"{inp.value:g} {src} = {base:.6g} B/s" + (f" = {result:.6g} {dst}" if dst else "")
        zh = "带宽按十进制换算：1 TB/s = 1000 GB/s = 10^12 字节/秒（显卡规格表和 nccl-tests 都这样写）。"
        en = "Bandwidth converts in decimal steps: 1 TB/s = 1000 GB/s = 10^12 bytes/s (datasheets and nccl-tests use this)."
    return ConvertUnitsOutput(
        value=inp.value,
        from_unit=src,
        to_unit=dst,
        result=result,
        n_bytes=base if _kind(src) == "bytes" else None,
        bytes_per_s=base if _kind(src) == "rate" else None,
        table=table,
        formula=formula,
        explanation_zh=zh,
        explanation_en=en,
        source=UNIT_SOURCE,
    )


# ---------------------------------------------------------------- nccl-tests busbw ----------------
Collective = Literal["all_reduce", "reduce_scatter", "all_gather", "alltoall", "broadcast", "reduce"]


class BusbwInput(BaseModel):
    algbw_gbs: float = Field(gt=0, description="algorithm bandwidth nccl-tests printed (algbw), GB/s")
    n_gpus: int = Field(ge=1, le=100000, description="ranks in the test (GPUs across all nodes)")
    op: Collective = Field("all_reduce", description="the collective (all_reduce_perf → all_reduce, …)")


class BusbwOutput(BaseModel):
    algbw_gbs: float
    n_gpus: int
    op: str
    factor: float = Field(description="busbw / algbw for this collective and rank count")
    busbw_gbs: float = Field(description="bus bandwidth, GB/s — comparable to the link's per-direction speed")
    formula: str
    source: str


_FACTOR_TEXT = {
    "all_reduce": "2(n−1)/n",
    "reduce_scatter": "(n−1)/n",
    "all_gather": "(n−1)/n",
    "alltoall": "(n−1)/n",
    "broadcast": "1",
    "reduce": "1",
}


def busbw_from_algbw(inp: BusbwInput) -> BusbwOutput:
    from tools.interconnect import algbw_to_busbw, busbw_factor

    factor = busbw_factor(inp.op, inp.n_gpus)
    busbw = algbw_to_busbw(inp.algbw_gbs, inp.n_gpus, inp.op)
    formula = (
        f"busbw = algbw × {_FACTOR_TEXT[inp.op]} = {inp.algbw_gbs:g} × {factor:.4g} = {busbw:.4g} GB/s "
        f"(n = {inp.n_gpus})"
    )
    return BusbwOutput(
        algbw_gbs=inp.algbw_gbs,
        n_gpus=inp.n_gpus,
        op=inp.op,
        factor=factor,
        busbw_gbs=round(busbw, 6),
        formula=formula,
        source="NVIDIA nccl-tests doc/PERFORMANCE.md (bus bandwidth)",
    )


# ---------------------------------------------------------------- MFU from published GPU-hours -----
class ImpliedMfuInput(BaseModel):
    model: str | None = Field(None, description="model name from the catalog ('llama-2-70b'); or give params_b")
    params_b: float | None = Field(None, gt=0, description="parameters in billions (dense; active for MoE)")
    tokens: float = Field(gt=0, description="training tokens (e.g. 2e12)")
    gpu_hours: float = Field(gt=0, description="GPU-hours the run used (as published)")
    gpu: str = Field(description="the GPU the run used ('A100 80GB')")
    precision: Literal["bf16", "fp16", "fp8", "tf32"] = Field("bf16", description="precision whose dense peak to use")


class ImpliedMfuOutput(BaseModel):
    model: str
    params: float
    tokens: float
    gpu_hours: float
    gpu_name: str
    flops: float = Field(description="training FLOPs = 6·N·D")
    gpu_seconds: float
    achieved_tflops: float = Field(description="useful TFLOPS per GPU = FLOPs / GPU-seconds / 1e12")
    peak_tflops: float = Field(description="dense peak of the GPU at this precision, TFLOPS (datasheet)")
    mfu: float = Field(description="model FLOPs utilisation as a fraction (0–1)")
    mfu_pct: float = Field(description="the same in percent")
    formula: str
    notes: list[str]
    source: str


def implied_mfu(inp: ImpliedMfuInput) -> ImpliedMfuOutput:
    """MFU = 6·N·D / (GPU-hours × 3600 × dense peak) — Chowdhery et al. 2022 (PaLM, MFU definition)."""
    from tools.gpus import resolve_gpu
    from tools.train_time import resolve_sizes, training_flops

    if inp.model is None and inp.params_b is None:
        raise ToolInputError("需要模型名或参数量", "Give a model name or params_b", field="model")
    total, active, label = resolve_sizes(inp.model, inp.params_b, None)
    flops, k, flops_src = training_flops(active, inp.tokens, mode="full")
    gpu = resolve_gpu(inp.gpu)
    peak = gpu.dense_tflops(inp.precision)
    if not peak:
        raise ToolInputError(
            f"{gpu.name} 没有公开的 {inp.precision} 峰值",
            f"{gpu.name} has no published {inp.precision} peak",
            field="precision",
        )
    seconds = inp.gpu_hours * 3600
    achieved = flops / seconds / 1e12
    mfu = achieved / peak
    if mfu > 1:
        raise ToolInputError(
            f"算出的 MFU 为 {mfu:.0%}，超过 100%：GPU 时数、token 数或显卡可能写错了",
            f"That implies an MFU of {mfu:.0%}, above 100%: check the GPU-hours, tokens or GPU",
            field="gpu_hours",
        )
    notes = [
        f"FLOPs = {k}·N·D = {k} × {active:.4g} × {inp.tokens:.4g} = {flops:.4g}（{flops_src}）",
        "不含注意力的 FLOPs 和重计算（MFU 的标准定义） / excludes attention FLOPs and recomputation "
        "(the standard MFU definition)",
    ]
    if gpu.lookup_note:
        notes.append(gpu.lookup_note)
    formula = f"MFU = {flops:.4g} / ({inp.gpu_hours:,.0f} × 3600 × {peak:g}e12) = {mfu:.3f}"
    return ImpliedMfuOutput(
        model=label,
        params=total,
        tokens=inp.tokens,
        gpu_hours=inp.gpu_hours,
        gpu_name=gpu.name,
        flops=flops,
        gpu_seconds=seconds,
        achieved_tflops=round(achieved, 2),
        peak_tflops=peak,
        mfu=round(mfu, 4),
        mfu_pct=round(mfu * 100, 1),
        formula=formula,
        notes=notes,
        source=f"Chowdhery et al. 2022 (PaLM, MFU); {flops_src}; peak: {gpu.source}",
    )


# ---------------------------------------------------------------- global batch in tokens → per-GPU split -----
class BatchSplitInput(BaseModel):
    batch_tokens: float = Field(
        gt=0, description="global batch per optimizer step, in tokens (e.g. 4e6 for '4M tokens')"
    )
    seq_len: int = Field(gt=0, le=10_000_000, description="tokens per sequence (max_seq_length / cutoff_len)")
    n_gpus: int = Field(1, ge=1, le=65536, description="data-parallel GPUs")


class BatchSplitOption(BaseModel):
    micro_batch: int = Field(description="per_device_train_batch_size")
    grad_accum: int = Field(description="gradient_accumulation_steps")
    batch_tokens: float = Field(description="tokens per optimizer step this pair gives")


class BatchSplitOutput(BaseModel):
    sequences_per_step: float = Field(description="global batch ÷ seq_len: sequences per optimizer step")
    per_gpu: float = Field(
        description="sequences per GPU per step = per_device_train_batch_size × gradient_accumulation"
    )
    options: list[BatchSplitOption]
    formula: str
    source: str


def batch_split(inp: BatchSplitInput) -> BatchSplitOutput:
    """per_device_train_batch_size × gradient_accumulation_steps × GPUs × seq_len = tokens per optimizer step
    (the Hugging Face Trainer's effective batch); only the micro-batch changes activation memory."""
    seqs = inp.batch_tokens / inp.seq_len
    per_gpu = seqs / inp.n_gpus
    options = []
    for micro in (1, 2, 4, 8):
        accum = max(1, round(per_gpu / micro))
        if micro > max(per_gpu, 1):
            break
        options.append(
            BatchSplitOption(
                micro_batch=micro, grad_accum=accum, batch_tokens=float(micro * accum * inp.n_gpus * inp.seq_len)
            )
        )
    return BatchSplitOutput(
        sequences_per_step=round(seqs, 1),
        per_gpu=round(per_gpu, 1),
        options=options,
        formula=(
            f"{inp.batch_tokens:.4g} tokens ÷ ({inp.seq_len:,} tokens × {inp.n_gpus} GPUs) = {per_gpu:.1f} "
            "= per_device_train_batch_size × gradient_accumulation_steps"
        ),
        source=(
            "Hugging Face Trainer docs (TrainingArguments: gradient_accumulation_steps; effective batch = "
            "per_device_train_batch_size × gradient_accumulation_steps × number of devices)"
        ),
    )


class WallClockInput(BaseModel):
    gpu_hours: float = Field(gt=0, le=1e12, description="GPU-hours (card-hours) of a run, as published or estimated")
    gpus: list[int] = Field(
        default_factory=lambda: [1, 8, 64],
        min_length=1,
        max_length=6,
        description="GPU counts to spread the run over",
    )


class WallClockRow(BaseModel):
    gpus: int
    hours: float
    days: float


class WallClockOutput(BaseModel):
    gpu_hours: float
    gpu_days: float = Field(description="GPU-hours ÷ 24")
    rows: list[WallClockRow]
    formula: str
    assumption: dict[str, str]


def gpu_hours_wall_clock(inp: WallClockInput) -> WallClockOutput:
    """Wall-clock time of a run given in GPU-hours on N GPUs: hours = GPU-hours ÷ N (a GPU-hour is one GPU busy
    for one hour; a GPU-day is 24 of them). This is the definition, with linear scaling assumed; it is an upper
    bound on speed, since more GPUs spend more of each step communicating."""
    for n in inp.gpus:
        if n < 1 or n > 1_000_000:
            raise ToolInputError(
                zh=f"卡数要在 1 到 1,000,000 之间（收到 {n}）",
                en=f"GPU count must be between 1 and 1,000,000 (got {n})",
                field="gpus",
            )
    rows = [
        WallClockRow(gpus=n, hours=round(inp.gpu_hours / n, 2), days=round(inp.gpu_hours / n / 24, 2))
        for n in sorted(set(inp.gpus))
    ]
    return WallClockOutput(
        gpu_hours=inp.gpu_hours,
        gpu_days=round(inp.gpu_hours / 24, 3),
        rows=rows,
        formula=f"wall-clock hours = {inp.gpu_hours:,.4g} GPU-hours ÷ GPUs; days = hours ÷ 24",
        assumption={
            "zh": "按线性扩展算（卡数翻倍、时间减半）；实际多卡要花时间在通信上，卡越多越达不到这个数。",
            "en": "Linear scaling assumed (twice the GPUs, half the time); real runs lose some of it to communication, "
            "more so the more GPUs.",
        },
    )


TOOLS = [
    ToolSpec(
        "convert_units",
        "Convert a memory size or bandwidth between units: B/KB/MB/GB/TB (decimal, GB = 10^9 bytes) and "
        "KiB/MiB/GiB/TiB (binary, GiB = 2^30 bytes; nvidia-smi prints MiB), or MB/s, GB/s, TB/s. Returns the "
        "exact result in `to_unit`, the byte count and a table in every common unit, with the definitions.",
        ConvertUnitsInput,
        convert_units,
    ),
    ToolSpec(
        "busbw_from_algbw",
        "nccl-tests bus bandwidth from the algorithm bandwidth it printed: busbw = algbw × factor, factor "
        "2(n−1)/n for all_reduce, (n−1)/n for all_gather / reduce_scatter / alltoall, 1 for broadcast / reduce "
        "(nccl-tests doc/PERFORMANCE.md). Input and output in GB/s.",
        BusbwInput,
        busbw_from_algbw,
    ),
    ToolSpec(
        "implied_mfu",
        "Model FLOPs utilisation implied by a published training run: MFU = 6·N·D / (GPU-hours × 3600 × dense "
        "peak FLOP/s). Returns FLOPs, achieved TFLOPS per GPU, the GPU's dense peak TFLOPS and MFU as a "
        "fraction and in percent.",
        ImpliedMfuInput,
        implied_mfu,
    ),
    ToolSpec(
        "batch_split",
        "Split a global batch given in tokens into per_device_train_batch_size × gradient_accumulation_steps: "
        "sequences per step = batch tokens ÷ seq_len, per GPU = that ÷ GPUs, with micro-batch 1/2/4/8 options.",
        BatchSplitInput,
        batch_split,
    ),
    ToolSpec(
        "gpu_hours_wall_clock",
        "Wall-clock time of a run given in GPU-hours (or GPU-days × 24) spread over N GPUs: hours = GPU-hours ÷ N, "
        "days = hours ÷ 24, linear scaling assumed. Returns one row per GPU count.",
        WallClockInput,
        gpu_hours_wall_clock,
    ),
]
