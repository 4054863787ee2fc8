"""Rank rental configurations (GPU type × count × nodes × interconnect) for one job.

A common rule-of-thumb procedure, made deterministic: memory sets the floor (tools.memory.find_min_gpus, ZeRO‑3/FSDP
sharding for training, tensor parallel for serving), the GPU generation sets the speed
(tools.train_time: 6·N·D over dense peak × MFU band), the interconnect decides whether more cards help
(tools.interconnect: gradient all-reduce per step), and the price decides what is sensible
(tools.prices), and what can actually be rented in the user's market sets the unit (tools.rentability:
export-controlled SXM cards only as whole 8-GPU servers on monthly IDC leases). Options are ranked by an explicit
objective — cheapest meeting deadline and budget, fastest within budget, or lowest risk — with stated penalties
(no BF16 for a BF16-trained model, full training over 4+ PCIe cards, scarce supply), and each "why" names the
deciding factor. Notable infeasible ones are explained (e.g. 8×4090 for a 7B full fine-tune: ZeRO‑3 over PCIe).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tools.errors import ToolInputError
from tools.gpus import GpuSpec, resolve_gpu
from tools.registry import ToolSpec
from tools.train_time import Band3

PlanMode = Literal["full", "lora", "qlora", "inference"]
Market = Literal["any", "rental_platform", "public_cloud", "idc_lease"]
Objective = Literal["cheapest", "fastest", "lowest_risk"]

# Cards teams in China actually rent (one variant per family; non-NVIDIA only on request).
DEFAULT_CANDIDATES = [
    "rtx_3090",
    "rtx_4090",
    "rtx_5090",
    "a10",
    "l20",
    "l40s",
    "rtx_a6000",
    "rtx_6000_ada",
    "rtx_pro_6000_blackwell",
    "a100_40gb_pcie",
    "a100_80gb_pcie",
    "a100_80gb_sxm",
    "a800_80gb_sxm",
    "h20",
    "h800_sxm",
    "h100_sxm_80gb",
    "h200_sxm_141gb",
    "b200_hgx",
    "v100_32gb_sxm2",
    "t4",
]
GPUS_PER_NODE = 8
DEFAULT_TRAIN_TOKENS = None  # the planner needs tokens for time/cost; without them it ranks by memory and price


def rentable_count(n: int) -> int:
    """Counts people actually rent: 1, 2, 4, 8, then whole 8-card servers."""
    for c in (1, 2, 4, 8):
        if n <= c:
            return c
    return int(math.ceil(n / GPUS_PER_NODE) * GPUS_PER_NODE)


def cluster_network(spec: GpuSpec) -> tuple[str, int, str]:
    """(network, NICs per node, label) assumed between servers for multi-node options."""
    if spec.is_sxm and spec.family in ("h100", "h200", "b200", "h800", "h20"):
        return "IB NDR", 8, "8×400G IB NDR / RoCE"
    if spec.is_sxm:
        return "IB HDR", 8, "8×200G IB HDR / RoCE"
    return "RoCE 100G", 1, "1×100G RoCE (RDMA)"


def interconnect_label(spec: GpuSpec, count: int, nodes: int) -> str:
    if count == 1:
        intra = "单卡 / single GPU"
    elif spec.family == "v100":
        intra = f"NVLink 2 hybrid cube-mesh {spec.nvlink_gbs_bidir:g} GB/s (bidir)"
    elif spec.is_sxm and spec.has_nvlink:
        intra = f"NVSwitch/NVLink {spec.nvlink_gbs_bidir:g} GB/s (bidir)"
    elif spec.has_nvlink and count == 2:
        intra = f"PCIe {spec.pcie_gen}.0 (+ optional NVLink bridge {spec.nvlink_gbs_bidir:g} GB/s)"
    else:
        intra = f"PCIe {spec.pcie_gen}.0, no NVLink" + (
            " (P2P off)" if spec.family in ("4090", "4090d", "5090", "5090d") else ""
        )
    if nodes > 1:
        intra += f" + {cluster_network(spec)[2]} between nodes"
    return intra


class PlanInput(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)  # inf/nan are refused with a bilingual error, never computed

    model: str | None = Field(None, description="model name ('qwen2.5-7b', 'llama-3-70b') or a size ('7B', '70亿')")
    params_b: float | None = Field(None, gt=0, description="parameters in billions, instead of a model name")
    mode: PlanMode = Field("full", description="full (full fine-tune / training) | lora | qlora | inference")
    tokens: str | float | None = Field(
        None, description="training tokens: '1B', 2e9, '1万亿' (or samples × seq_len × epochs)"
    )
    samples: float | None = Field(None, gt=0, description="instead of tokens: training samples")
    epochs: float = Field(1.0, gt=0, description="passes over the samples")
    seq_len: int = Field(2048, ge=1, description="training sequence length (memory and tokens per sample)")
    micro_batch: int = Field(1, ge=1, description="micro-batch per GPU for the memory check")
    deadline: str | float | None = Field(None, description="finish within: '7d', '一周', '48h' (number = hours)")
    budget: str | float | None = Field(None, description="budget in CNY: 50000, '5万', '3千元'")
    gpus: list[str] | None = Field(None, description="only consider these GPUs ('4090', 'A100 80G', 'H800', '910B')")
    exclude: list[str] | None = Field(None, description="never consider these GPUs")
    max_gpus: int = Field(64, ge=1, le=4096, description="largest total GPU count to consider")
    concurrency: int = Field(8, ge=1, description="inference: sequences served at once")
    context: int = Field(4096, ge=1, description="inference: tokens per sequence (prompt + output)")
    precision: Literal["bf16", "fp16", "fp8"] = Field("bf16", description="training compute precision")
    quotes_file: str | None = Field(None, description="your own price quotes (YAML/CSV), override the table")
    top: int = Field(8, ge=1, le=40, description="how many ranked options to return")
    market: Market = Field(
        "any",
        description="where you rent: rental_platform (AutoDL/恒源云/矩池云…), public_cloud (阿里云/腾讯云/火山引擎/百度智能云), "
        "idc_lease (whole 8-GPU servers, monthly), or any (per-card platforms first)",
    )
    objective: Objective | None = Field(
        None,
        description="cheapest (meets deadline and budget) | fastest (within budget) | lowest_risk; "
        "default: fastest when only a budget is given, else cheapest",
    )
    input_tokens: int = Field(1024, ge=1, description="serving: prompt tokens per request")
    output_tokens: int = Field(256, ge=1, description="serving: generated tokens per request")

    @field_validator("tokens", "budget", "deadline", mode="before")
    @classmethod
    def _finite(cls, v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError("必须是有限数（不能是 inf/nan）/ must be a finite number (not inf/nan)")
        return v

    @model_validator(mode="after")
    def _need_model(self) -> "PlanInput":
        if self.model is None and self.params_b is None:
            raise ValueError("需要模型名或参数量 / give a model name or params_b")
        return self


class PlanOption(BaseModel):
    rank: int | None = None
    gpu: str
    gpu_name: str
    count: int
    nodes: int
    interconnect: str
    fits: bool = Field(description="the job fits in GPU memory at this count")
    feasible: bool = Field(description="fits and meets deadline and budget (when given)")
    per_gpu_gb: float | None = Field(None, description="estimated memory per GPU, decimal GB")
    gpu_memory_gb: float
    headroom_gb: float | None = None
    days: Band3 | None = Field(None, description="wall-clock days (training); None for serving")
    gpu_hours: Band3 | None = None
    cost_cny: Band3 | None = Field(None, description="training: whole run; inference: per month")
    cost_basis: str | None = None
    billing: str | None = None
    decode_tokens_per_s: Band3 | None = Field(
        None, description="inference: aggregate decode tokens/s at the concurrency"
    )
    comm_share: float | None = Field(
        None, description="communication share of each step (mid, after overlap), training"
    )
    mfu: Band3 | None = Field(None, description="training: effective MFU after communication (low/mid/high)")
    rent_unit: str = Field("card", description="card = rented per card; server_8 = only whole 8-GPU servers")
    availability: str = Field("common", description="common | limited | rare in the chosen market")
    market: str | None = Field(None, description="rental_platform | public_cloud | idc_lease")
    risk: int = Field(0, description="sum of stated risk penalties (0 = none)")
    risk_factors: list[str] = Field(default_factory=list, description="the penalties, bilingual")
    tokens_per_s: Band3 | None = Field(None, description="serving: output tokens/s per user at the concurrency")
    ttft_s: Band3 | None = Field(None, description="serving: time to first token, seconds")
    cost_per_mtok_cny: Band3 | None = Field(
        None, description="serving: CNY per million output tokens at full load (low = cheapest)"
    )
    cost_per_mtok_input_cny: float | None = Field(None, description="serving: CNY per million input tokens (mid)")
    why: str = ""
    notes: list[str] = Field(default_factory=list)


class PlanOutput(BaseModel):
    model: str
    params: float
    active_params: float
    mode: str
    tokens: float | None
    deadline_hours: float | None
    budget_cny: float | None
    options: list[PlanOption]
    infeasible: list[PlanOption]
    summary: dict[str, str]
    assumptions: list[str]
    warning: str
    objective: str = Field("cheapest", description="the ranking objective used")
    objective_reason: str = Field("", description="why this objective (given or inferred), bilingual")
    market: str = "any"


def _price_hint(spec: GpuSpec) -> float | None:
    from tools.prices import row_for

    row, _ = row_for(spec)
    return row.hourly_cny.typical if row else None


class MemFit(BaseModel):
    """Per-GPU memory at one count (decimal GB), from tools.memory.breakdown."""

    n: int
    total_gb: float
    weights_gb: float
    kv_cache_gb: float
    usable_gb: float
    fits: bool

    @property
    def headroom_gb(self) -> float:
        return round(self.usable_gb - self.total_gb, 3)


def _job(inp: PlanInput, model_q: str | None, params: str | None, n: int):
    from tools.memory import MemoryJob

    job = dict(model=model_q, params=params, mode=inp.mode, gpus=n, seq_len=inp.seq_len, batch=inp.micro_batch)
    if inp.mode == "inference":
        # serving holds the weights at the precision asked (an FP8 checkpoint such as DeepSeek-R1 is 1 B/param)
        job.update(concurrency=inp.concurrency, context=inp.context, precision=inp.precision)
    else:
        job.update(zero=3 if n > 1 else 0)  # ZeRO-3/FSDP full sharding across the cards
    return MemoryJob.model_validate(job)


def _memory_at(spec: GpuSpec, inp: PlanInput, model_q: str | None, params: str | None, n: int, model=None) -> MemFit:
    """Per-GPU memory for the job on `n` cards of `spec` (tools.memory.breakdown; decimal GB)."""
    from tools.memory import breakdown

    job = _job(inp, model_q, params, n)
    b = breakdown(job, model)
    usable = (spec.reported_gb or spec.memory_gb) * job.memory_fraction  # driver-reported memory, as tools.memory
    total = b.total / 1e9
    return MemFit(
        n=n,
        total_gb=round(total, 3),
        weights_gb=b.weights / 1e9,
        kv_cache_gb=b.kv_cache / 1e9,
        usable_gb=round(usable, 3),
        fits=total <= usable,
    )


def _min_gpus(spec: GpuSpec, inp: PlanInput, model_q: str | None, params: str | None, model) -> int | None:
    """Fewest cards that fit: bisection over 1..max_gpus for training (per-GPU memory never rises with more
    sharding), powers of two for tensor-parallel serving — the same search as tools.memory.find_min_gpus."""
    if inp.mode == "inference":
        cands = [n for n in (1, 2, 4, 8, 16, 32, 64, 128) if n <= inp.max_gpus]
    else:
        cands = list(range(1, inp.max_gpus + 1))
    if not cands or not _memory_at(spec, inp, model_q, params, cands[-1], model).fits:
        return None
    lo, hi = 0, len(cands) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _memory_at(spec, inp, model_q, params, cands[mid], model).fits:
            hi = mid
        else:
            lo = mid + 1
    return cands[lo]


def _train_option(spec: GpuSpec, n: int, inp: PlanInput, active: float, total: float, tokens: float | None):
    from tools.train_time import estimate_time

    if tokens is None:
        return None
    nodes = max(1, math.ceil(n / GPUS_PER_NODE))
    network, nics, _ = cluster_network(spec) if nodes > 1 else (None, None, "")
    return estimate_time(
        gpu=spec,
        n_gpus=n,
        active_params=active,
        params=total,
        tokens=tokens,
        mode=inp.mode,
        precision=inp.precision,
        fp8_framework=inp.precision == "fp8",
        zero3=(inp.mode == "full" and n > 1),
        nodes=nodes,
        network=network,
        nics_per_node=nics,
        quotes_file=inp.quotes_file,
        micro_batch_tokens=inp.micro_batch * inp.seq_len,
    )


def plan_configurations(inp: PlanInput) -> PlanOutput:
    from tools.models import resolve_model
    from tools.prices import PriceInput, gpu_price, warning_text
    from tools.quantities import parse_duration_hours, parse_money_cny

    params_str = f"{inp.params_b}B" if inp.params_b else None
    model = resolve_model(inp.model, params_str)
    total, active = float(model.params), float(model.active_params)
    tokens: float | None = None
    if inp.mode != "inference":
        if inp.tokens is not None:
            from tools.train_time import resolve_tokens

            tokens = resolve_tokens(inp.tokens, None, None, inp.epochs)
        elif inp.samples:
            tokens = inp.samples * inp.seq_len * inp.epochs
    deadline_h = None
    if inp.deadline is not None:
        deadline_h = parse_duration_hours(inp.deadline, field="deadline", bare_unit_hours=1.0)
    budget = parse_money_cny(inp.budget, field="budget") if inp.budget is not None else None

    ids = [resolve_gpu(g).id for g in inp.gpus] if inp.gpus else list(DEFAULT_CANDIDATES)
    excluded = {resolve_gpu(g).id for g in (inp.exclude or [])}
    ids = [i for i in dict.fromkeys(ids) if i not in excluded]
    if not ids:
        raise ToolInputError("排除后没有可选的 GPU", "No GPUs left to consider after exclusions", field="exclude")

    options: list[PlanOption] = []
    infeasible: list[PlanOption] = []
    assumptions = [
        "训练按 ZeRO-3/FSDP 全分片估算显存；推理按张量并行（1/2/4/8 卡）。 / Training memory assumes ZeRO-3/FSDP full sharding; "
        "serving assumes tensor parallel over 1/2/4/8 GPUs.",
        "卡数取 1/2/4/8 或整台 8 卡机的倍数。 / Counts are 1, 2, 4, 8 or whole 8-GPU servers.",
        "多机：SXM 机型按每台 8 块 IB（HDR/NDR）网卡，PCIe 机型按 1×100G RoCE 估算。 / Multi-node: SXM servers assume 8 IB NICs "
        "(HDR/NDR), PCIe servers 1×100G RoCE.",
        "费用按所在渠道的价格档：租用平台=典型价（低=快跑×典型区间下沿，高=慢跑×上沿），公有云=按量高档，IDC 整机=长租低档且按整月计。"
        " / Cost at the market's price level: rental platform = typical (low = fast run × lower typical, high = slow run × upper), "
        "public cloud = on-demand high, IDC lease = long-lease low in whole months.",
        "只提出在所选渠道租得到的卡；租不到的列在 infeasible 里并说明原因（knowledge/rentability.yaml）。 / Only cards rentable "
        "in the chosen market are proposed; the others are listed under infeasible with the reason (knowledge/rentability.yaml).",
    ]
    if tokens is None and inp.mode != "inference":
        assumptions.append(
            "未给训练 token 数：只比较显存和每小时价格。 / No training tokens given: ranked by memory fit and hourly price only."
        )

    objective, objective_reason = _objective(inp, deadline_h, budget)
    from tools.rentability import absence_reason, best_offer, check_market

    market = check_market(inp.market)
    for gid in ids:
        spec = resolve_gpu(gid)
        offer, rows = best_offer(spec.id, market)
        if offer is None:
            zh, en = absence_reason(rows, market)
            infeasible.append(
                PlanOption(
                    gpu=spec.id,
                    gpu_name=spec.name,
                    count=0,
                    nodes=0,
                    interconnect="-",
                    fits=False,
                    feasible=False,
                    gpu_memory_gb=spec.memory_gb,
                    rent_unit="-",
                    availability="not_offered",
                    market=market,
                    why=f"租不到：{zh}。 / Not rentable: {en}.",
                )
            )
            continue
        min_gpus = _min_gpus(spec, inp, inp.model, params_str, model)
        if min_gpus is None:
            infeasible.append(
                PlanOption(
                    gpu=spec.id,
                    gpu_name=spec.name,
                    count=inp.max_gpus,
                    nodes=math.ceil(inp.max_gpus / GPUS_PER_NODE),
                    interconnect=interconnect_label(spec, inp.max_gpus, math.ceil(inp.max_gpus / GPUS_PER_NODE)),
                    fits=False,
                    feasible=False,
                    gpu_memory_gb=spec.memory_gb,
                    rent_unit=offer.unit,
                    availability=offer.availability,
                    market=offer.market,
                    why=(
                        f"最多 {inp.max_gpus} 张也放不下（{spec.memory_gb:g} GB/卡）。 / Does not fit even on {inp.max_gpus} cards "
                        f"({spec.memory_gb:g} GB each)."
                    ),
                )
            )
            continue
        unit = _unit_rounder(offer.unit)
        n = unit(min_gpus)
        if n > inp.max_gpus and offer.unit == "card":
            n = min_gpus
        notes: list[str] = []
        if offer.unit == "server_8" and n > min_gpus:
            notes.append(
                f"只能整台 8 卡服务器租（{offer.market_zh.split('（')[0]}），{min_gpus} 卡够用也按 {n} 卡计费。 / Rented only as whole "
                f"8-GPU servers ({offer.market_en.split(' (')[0]}): {min_gpus} cards would fit, {n} are paid for."
            )
        est = _train_option(spec, n, inp, active, total, tokens) if inp.mode != "inference" else None
        # scale up to meet the deadline (time ∝ 1/n, re-checked with the interconnect term)
        if est is not None and deadline_h is not None and est.wall_hours.mid > deadline_h:
            for _ in range(4):
                want = unit(math.ceil(n * est.wall_hours.mid / deadline_h))
                if want <= n or want > inp.max_gpus:
                    break
                n = want
                est = _train_option(spec, n, inp, active, total, tokens)
                if est.wall_hours.mid <= deadline_h:
                    notes.append(f"为赶截止时间增加到 {n} 卡。 / Scaled to {n} GPUs to meet the deadline.")
                    break
        nodes = max(1, math.ceil(n / GPUS_PER_NODE))
        at = _memory_at(spec, inp, inp.model, params_str, n, model)
        opt = PlanOption(
            gpu=spec.id,
            gpu_name=spec.name,
            count=n,
            nodes=nodes,
            interconnect=interconnect_label(spec, n, nodes),
            fits=bool(at.fits),
            feasible=bool(at.fits),
            per_gpu_gb=at.total_gb,
            gpu_memory_gb=spec.memory_gb,
            headroom_gb=at.headroom_gb,
            notes=notes,
            rent_unit=offer.unit,
            availability=offer.availability,
            market=offer.market,
        )
        if not spec.is_nvidia:
            opt.notes.append(
                "非 NVIDIA：需 CANN/torch_npu，算力数据可信度低。 / Not NVIDIA: needs CANN/torch_npu; low-confidence figures."
            )
        if spec.family in ("v100", "t4"):
            opt.notes.append("不支持 BF16，需 FP16 + GradScaler。 / No BF16: use FP16 with GradScaler.")
        _explain_interconnect(opt, spec, inp)
        if est is not None:
            opt.days, opt.gpu_hours = est.days, est.gpu_hours
            opt.cost_cny = _market_cost(spec, n, est.wall_hours, offer, inp.quotes_file) or est.cost_cny
            opt.cost_basis = f"whole run, {offer.market} price / 整个训练，按{offer.market_zh.split('（')[0]}价"
            if offer.min_term_months:
                opt.cost_basis += " (monthly minimum / 按月起租)"
            opt.comm_share = est.comm.comm_share_mid if est.comm else None
            opt.mfu = getattr(est, "mfu_effective", None) or est.mfu
            opt.notes.extend(w for w in est.warnings if w not in opt.notes)
            try:
                p = gpu_price(
                    PriceInput(gpu=spec.id, count=n, hours=max(est.wall_hours.mid, 0.01), quotes_file=inp.quotes_file)
                )
                opt.billing = p.advice[0] if p.advice else None
            except ToolInputError:
                pass
            if offer.min_term_months:
                opt.billing = (
                    f"IDC 整机按月起租：{nodes} 台 × 至少 {offer.min_term_months:g} 个月。 / IDC whole-server lease: "
                    f"{nodes} server(s) × at least {offer.min_term_months:g} month(s)."
                )
        elif inp.mode == "inference":
            _serving(opt, spec, at, inp, offer)
        else:
            h = _price_hint(spec)
            if h is not None:
                opt.cost_cny = Band3(low=round(h * n, 2), mid=round(h * n, 2), high=round(h * n, 2))
                opt.cost_basis = "per hour for the whole configuration / 整套每小时"
        _check_limits(opt, deadline_h, budget)
        _risk(opt, spec, inp, offer)
        if opt.feasible:
            options.append(opt)
        else:
            infeasible.append(opt)

    def key(o: PlanOption) -> tuple:
        cost = o.cost_cny.mid if o.cost_cny else float("inf")
        days = o.days.mid if o.days else 0.0
        speed = -(o.decode_tokens_per_s.mid if o.decode_tokens_per_s else 0.0)
        # serving: one server before several (cross-node serving is slower and harder to run, see _serving);
        # full training: options that break the common NVLink rule of thumb come after those that keep it, whatever
        # their modelled cost — the time model cannot see PCIe contention, P2P-off copies or flaky multi-node
        # consumer rigs, which is why the rule exists. Cards without BF16 come after those with it for a
        # BF16-trained model (FP16 + loss scaling risks overflow on BF16 checkpoints).
        # an option that fits with under 5% of the card to spare (the estimate's own close-call band) comes after
        # those with room: the estimate is good to ±10–20%, so 50.9 GB on a 51.5 GB card is not a plan to lead with
        tiers = (
            inp.mode == "inference" and o.nodes > 1,
            _breaks_nvlink_rule(o, inp),
            _no_bf16(o, inp),
            _tight(o),
        )
        if objective == "fastest":
            return (*tiers, days if inp.mode != "inference" else speed, cost)
        if objective == "lowest_risk":
            return (o.risk, *tiers, cost, days)
        return (*tiers, cost, days)

    options.sort(key=key)
    _rank_reasons(options, objective)
    for o in options:
        if _breaks_nvlink_rule(o, inp):
            o.why = (o.why or "") + (
                " 排在 NVLink 机型之后：4 卡及以上的全量训练按经验应选 SXM/NVLink。"
                " / Ranked after NVLink options: full training on 4+ cards wants SXM/NVLink."
            )
        if _tight(o):
            o.why = (o.why or "") + (
                " 排在余量更足的方案之后：显存余量不到 5%，估算误差（±10–20%）之内就可能 OOM。"
                " / Ranked after options with more room: under 5% memory headroom, within the estimate's ±10–20% error."
            )
        if _no_bf16(o, inp):
            o.why = (o.why or "") + (
                " 排在支持 BF16 的卡之后：模型按 BF16 训练，这张卡只能 FP16 + 损失缩放。"
                " / Ranked after BF16-capable cards: the model is BF16-trained and this card only does FP16 with loss scaling."
            )
    infeasible.sort(key=lambda o: (not o.fits, *key(o)))
    summary = _summary(model.name, inp, options, infeasible)
    return PlanOutput(
        model=model.name,
        params=total,
        active_params=active,
        mode=inp.mode,
        tokens=tokens,
        deadline_hours=deadline_h,
        budget_cny=budget,
        options=options[: inp.top],
        infeasible=_notable(infeasible),
        summary=summary,
        assumptions=assumptions,
        warning=warning_text(),
        objective=objective,
        objective_reason=objective_reason,
        market=inp.market,
    )


def _objective(inp: PlanInput, deadline_h: float | None, budget: float | None) -> tuple[str, str]:
    """The ranking objective and why: the user's choice, else fastest when only a budget is given (spend it on
    speed), else cheapest that meets the deadline (and budget)."""
    if inp.objective:
        return inp.objective, f"按你的选择：{_OBJ_ZH[inp.objective]}。 / As chosen: {inp.objective}."
    if budget is not None and deadline_h is None and inp.mode != "inference":
        return (
            "fastest",
            "只给了预算、没给截止时间：在预算内选最快的。 / Budget but no deadline: fastest within budget.",
        )
    return "cheapest", "默认：满足截止时间和预算的最便宜方案。 / Default: cheapest that meets the deadline and budget."


_OBJ_ZH = {"cheapest": "最省钱", "fastest": "最快", "lowest_risk": "风险最低"}


def _unit_rounder(unit: str):
    """Counts people actually rent: per card 1/2/4/8 then whole servers; per server only multiples of 8."""
    if unit == "server_8":
        return lambda n: int(math.ceil(max(n, 1) / GPUS_PER_NODE) * GPUS_PER_NODE)
    return rentable_count


def _market_cost(spec: GpuSpec, n: int, wall_h: Band3, offer, quotes_file: str | None) -> Band3 | None:
    """Whole-run CNY in the chosen market: the market's price level of knowledge/prices.yaml × card-hours, and for
    IDC leases whole server-months (a 2-day job on a monthly lease still pays a month)."""
    from tools.prices import HOURS_PER_MONTH, PriceInput, gpu_price

    try:
        p = gpu_price(PriceInput(gpu=spec.id, quotes_file=quotes_file))
    except ToolInputError:
        return None
    h, m = p.hourly_cny, p.monthly_cny
    if offer.price_level == "low":  # IDC: per card-month at the lease floor, whole months
        months = [
            max(offer.min_term_months, math.ceil(x / HOURS_PER_MONTH)) for x in (wall_h.low, wall_h.mid, wall_h.high)
        ]
        return Band3(
            low=round(n * m.low * months[0]), mid=round(n * m.low * months[1]), high=round(n * m.low * months[2])
        )
    if offer.price_level == "high":
        return Band3(
            low=round(n * wall_h.low * h.high), mid=round(n * wall_h.mid * h.high), high=round(n * wall_h.high * h.high)
        )
    lo, hi = h.typical_range or [h.typical, h.typical]
    return Band3(
        low=round(n * wall_h.low * lo), mid=round(n * wall_h.mid * h.typical), high=round(n * wall_h.high * hi)
    )


def _no_bf16(opt: PlanOption, inp: PlanInput) -> bool:
    """Training a BF16 model on a card without BF16 (V100, T4): FP16 + loss scaling, a stated penalty."""
    if inp.mode == "inference" or inp.precision != "bf16":
        return False
    return not resolve_gpu(opt.gpu).bf16_dense_tflops


def _risk(opt: PlanOption, spec: GpuSpec, inp: PlanInput, offer) -> None:
    """Stated penalties, each +1 or +2, summed into `risk` (used by objective=lowest_risk, shown for all)."""
    f: list[tuple[int, str]] = []
    if offer.risk:
        f.append(
            (
                offer.risk,
                f"货源{offer.availability_zh}（{offer.market_zh.split('（')[0]}） / supply is {offer.availability}",
            )
        )
    if _no_bf16(opt, inp) or (inp.mode == "inference" and not spec.bf16_dense_tflops):
        f.append((2, "不支持 BF16：FP16 可能溢出 / no BF16: FP16 may overflow"))
    if _breaks_nvlink_rule(opt, inp):
        f.append((2, "全量训练跨 4 张以上 PCIe 卡 / full training across 4+ PCIe cards"))
    if opt.nodes > 1:
        f.append((1, f"跨 {opt.nodes} 台机器 / spans {opt.nodes} servers"))
    if not spec.is_nvidia:
        f.append((2, "非 NVIDIA 软件栈 / non-NVIDIA software stack"))
    if opt.headroom_gb is not None and opt.gpu_memory_gb and opt.headroom_gb < 0.1 * opt.gpu_memory_gb:
        f.append((1, "显存余量不足 10% / under 10% memory headroom"))
    if any("slow end" in x or "expensive end" in x for x in opt.notes):
        f.append((1, "区间上沿会超期或超预算 / the slow or expensive end misses a limit"))
    opt.risk = sum(w for w, _ in f)
    opt.risk_factors = [t for _, t in f]


def _tight(opt: PlanOption) -> bool:
    """Fits with under 5% of the card's memory left (the close-call band of estimate_memory's `borderline`)."""
    return opt.headroom_gb is not None and bool(opt.gpu_memory_gb) and opt.headroom_gb < 0.05 * opt.gpu_memory_gb


def _breaks_nvlink_rule(opt: PlanOption, inp: PlanInput) -> bool:
    """The common rule of thumb, checked: full training with 4 or more cards in a server wants SXM/NVLink
    (PCIe all-reduce is ~10–25 GB/s against 200+ GB/s on NVSwitch; see knowledge/interconnect.yaml)."""
    if inp.mode != "full" or min(opt.count, GPUS_PER_NODE) < 4:
        return False
    return not resolve_gpu(opt.gpu).is_sxm


def _explain_interconnect(opt: PlanOption, spec: GpuSpec, inp: PlanInput) -> None:
    per_node = min(opt.count, GPUS_PER_NODE)
    if inp.mode == "full" and per_node >= 4 and not spec.is_sxm:
        geforce = spec.family in ("4090", "4090d", "5090", "5090d", "3090")
        opt.notes.append(
            f"{opt.count}×{spec.name.replace('NVIDIA ', '').replace('GeForce ', '')}：无 NVLink"
            f"{'、P2P 关闭' if geforce else ''}，全量训练要靠 ZeRO-3 跨 PCIe 分片，通信慢。 / "
            f"{opt.count}× {spec.name}: no NVLink{', P2P off' if geforce else ''}; the full fine-tune needs ZeRO-3 sharding over PCIe — slow."
        )
    if opt.nodes > 1:
        opt.notes.append(
            "多机：要求 ≥100G IB 或 RoCE（RDMA），并让服务商出具 RDMA 测试报告。 / Multi-node: require ≥100G IB or RoCE "
            "with RDMA and ask for an RDMA test report."
        )


def _serving(opt: PlanOption, spec: GpuSpec, at: MemFit, inp: PlanInput, offer=None) -> None:
    """Decode speed ≈ η·BW / bytes read per step (weights + KV) — memory-bound decoding
    (achieved bandwidth η_bw 0.6–0.9 of the datasheet figure); cost per month for the configuration."""
    from tools.prices import PriceInput, gpu_price

    if spec.mem_bw_gbs:
        per_gpu_bytes = (at.weights_gb + at.kv_cache_gb) * 1e9
        if per_gpu_bytes > 0:
            step_fast = per_gpu_bytes / (0.9 * spec.mem_bw_gbs * 1e9)
            step_slow = per_gpu_bytes / (0.6 * spec.mem_bw_gbs * 1e9)
            conc = inp.concurrency
            # across servers, tensor parallelism stays inside a node and the nodes form a pipeline: a token
            # passes every stage in turn, so without micro-batch overlap each step takes `nodes` times longer
            stages = max(1, opt.nodes)
            opt.decode_tokens_per_s = Band3(
                low=round(conc / (step_slow * stages), 1),
                mid=round(conc / ((step_fast + step_slow) / 2 * stages), 1),
                high=round(conc / (step_fast * stages), 1),
            )
    if opt.nodes > 1:
        opt.notes.append(
            f"跨 {opt.nodes} 台机器部署：张量并行只能留在机内，机间走流水线并行，吞吐按不重叠保守估算（÷{opt.nodes}），首字延迟更高，"
            "运维也更复杂；通常更划算的是用 int8/int4（AWQ/GPTQ）量化把模型放进一台机器。 / Serving across "
            f"{opt.nodes} servers: tensor parallelism stays inside a node and the nodes form a pipeline; throughput is "
            f"estimated without overlap (÷{opt.nodes}), latency is higher and operations harder — int8/int4 (AWQ/GPTQ) "
            "quantisation to fit one server is usually the better deal."
        )
    _serving_speed(opt, spec, inp)
    try:
        p = gpu_price(PriceInput(gpu=spec.id, count=opt.count, months=1, quotes_file=inp.quotes_file))
        t = p.total_cny
        level = offer.price_level if offer is not None else "typical"
        if t is not None and level != "typical":
            x = getattr(t, level)
            opt.cost_cny = Band3(low=x, mid=x, high=x)
        elif t is not None:
            opt.cost_cny = Band3(low=t.low, mid=t.typical, high=t.high)
        if t is not None:
            opt.cost_basis = "per month, whole configuration / 整套每月"
            opt.billing = "长期服务建议包月/包年。 / For a standing service, rent monthly or yearly."
    except ToolInputError:
        opt.notes.append("无价格数据。 / No price data.")


def _serving_speed(opt: PlanOption, spec: GpuSpec, inp: PlanInput) -> None:
    """Per-user tokens/s, TTFT and CNY per million tokens from tools.serving (one tensor-parallel replica)."""
    from tools.serving import ServingInput, plan_serving

    if opt.nodes > 1 or inp.input_tokens + inp.output_tokens > inp.context:
        return
    try:
        s = plan_serving(
            ServingInput(
                model=inp.model,
                params=f"{inp.params_b}B" if inp.params_b else None,
                gpu=spec.id,
                gpus=opt.count,
                context=inp.context,
                input_tokens=inp.input_tokens,
                output_tokens=inp.output_tokens,
                concurrency=inp.concurrency,
                market=opt.market or "any",
                quotes_file=inp.quotes_file,
            )
        )
    except (ToolInputError, ValueError):
        return
    opt.tokens_per_s = Band3(**s.tokens_per_s.model_dump())
    opt.ttft_s = Band3(**s.ttft_s.model_dump())
    if s.cost_per_mtok_cny:
        opt.cost_per_mtok_cny = Band3(**s.cost_per_mtok_cny.model_dump())
        opt.cost_per_mtok_input_cny = s.cost_per_mtok_input_cny
    opt.notes.extend(w for w in s.warnings if w not in opt.notes)


def _check_limits(opt: PlanOption, deadline_h: float | None, budget: float | None) -> None:
    if not opt.fits:
        opt.feasible = False
        opt.why = f"显存不够：每卡约需 {opt.per_gpu_gb} GB。 / Does not fit: ~{opt.per_gpu_gb} GB per GPU needed."
        return
    if deadline_h is not None and opt.days is not None:
        if opt.days.mid * 24 > deadline_h:
            opt.feasible = False
            opt.why = (
                f"赶不上截止时间：中值约 {opt.days.mid:.1f} 天 > {deadline_h / 24:.1f} 天。 / Misses the deadline: "
                f"~{opt.days.mid:.1f} days (mid) > {deadline_h / 24:.1f} days."
            )
            return
        if opt.days.high * 24 > deadline_h:
            opt.notes.append("慢的情况下会超期。 / At the slow end it would miss the deadline.")
    if budget is not None and opt.cost_cny is not None and opt.cost_basis and "whole run" in opt.cost_basis:
        if opt.cost_cny.mid > budget:
            opt.feasible = False
            monthly = "monthly minimum" in opt.cost_basis  # an IDC whole-server lease: the minimum term is the cost
            opt.why = (
                (
                    f"超预算：这个渠道只能整台按月起租（{opt.nodes} 台 × 8 卡），最少约 ¥{opt.cost_cny.mid:,.0f} > "
                    f"¥{budget:,.0f}。 / Over budget: this channel leases whole servers by the month ({opt.nodes} × 8 "
                    f"GPUs), at least ~¥{opt.cost_cny.mid:,.0f} > ¥{budget:,.0f}."
                )
                if monthly
                else (
                    f"超预算：中值约 ¥{opt.cost_cny.mid:,.0f} > ¥{budget:,.0f}。 / Over budget: "
                    f"~¥{opt.cost_cny.mid:,.0f} (mid) > ¥{budget:,.0f}."
                )
            )
            return
        if opt.cost_cny.high > budget:
            opt.notes.append("贵的情况下会超预算。 / At the expensive end it would exceed the budget.")
    elif budget is not None and opt.cost_cny is not None and opt.cost_basis and "per month" in opt.cost_basis:
        # serving is billed by the month: a budget smaller than one month of the set cannot pay for it
        if opt.cost_cny.mid > budget:
            opt.feasible = False
            opt.why = (
                f"超预算：一个月约 ¥{opt.cost_cny.mid:,.0f} > ¥{budget:,.0f}。 / Over budget: one month costs "
                f"~¥{opt.cost_cny.mid:,.0f} > ¥{budget:,.0f}."
            )


def _rank_reasons(options: list[PlanOption], objective: str = "cheapest") -> None:
    """Rank numbers and a 'why' that names the deciding factor against option #1 (cost, speed or risk)."""
    if not options:
        return
    best = options[0]
    for i, o in enumerate(options, start=1):
        o.rank = i
        if i == 1:
            o.why = _first_why(o, objective)
            continue
        parts_zh, parts_en = [], []
        if objective == "lowest_risk" and o.risk > best.risk:
            parts_zh.append(f"风险更高（{'、'.join(x.split(' / ')[0] for x in o.risk_factors)}）")
            parts_en.append(f"riskier ({'; '.join(x.split(' / ')[-1] for x in o.risk_factors)})")
        if o.cost_cny and best.cost_cny and best.cost_cny.mid:
            r = o.cost_cny.mid / best.cost_cny.mid
            parts_zh.append(f"费用约为第 1 名的 {r:.1f} 倍")
            parts_en.append(f"costs {r:.1f}× option #1")
        if o.days and best.days and o.days.mid:
            s = best.days.mid / o.days.mid
            if s > 1.05:
                parts_zh.append(f"但快 {s:.1f} 倍")
                parts_en.append(f"but is {s:.1f}× faster")
            elif s < 0.95:
                parts_zh.append(f"且慢 {1 / s:.1f} 倍")
                parts_en.append(f"and is {1 / s:.1f}× slower")
        if o.decode_tokens_per_s and best.decode_tokens_per_s and best.decode_tokens_per_s.mid:
            t = o.decode_tokens_per_s.mid / best.decode_tokens_per_s.mid
            if t > 1.05 or t < 0.95:  # "吞吐低 1.1 倍" is not how a reduction is said in Chinese: give the ratio
                parts_zh.append(f"{'但' if t > 1 else '且'}吞吐约为第 1 名的 {t:.1f} 倍")
                parts_en.append(f"{'but' if t > 1 else 'and'} decodes at {t:.1f}× option #1's rate")
        if o.decode_tokens_per_s is not None and o.nodes > 1:
            parts_zh.append(f"要跨 {o.nodes} 台机器部署")
            parts_en.append(f"needs {o.nodes} servers")
        if objective != "lowest_risk" and o.risk > best.risk and o.risk_factors:
            parts_zh.append(f"风险：{'、'.join(x.split(' / ')[0] for x in o.risk_factors)}")
            parts_en.append(f"risk: {'; '.join(x.split(' / ')[-1] for x in o.risk_factors)}")
        o.why = (
            ("，".join(parts_zh) + "。 / " + ", ".join(parts_en) + ".")
            if parts_zh
            else "同等条件下排在后面。 / Ranked lower on the same terms."
        )


def _first_why(o: PlanOption, objective: str) -> str:
    limits_zh = "、截止时间和预算" if o.days else ""
    limits_en = " and meets the deadline and budget" if o.days else ""
    if objective == "fastest":
        what = "最快" if o.days else "吞吐最高"
        return f"满足显存和预算的选项里{what}。 / Fastest option that fits and stays within budget." + _risk_suffix(o)
    if objective == "lowest_risk":
        risks = "、".join(x.split(" / ")[0] for x in o.risk_factors) or "无"
        return (
            f"满足显存{limits_zh}的选项里风险最低（风险项：{risks}）。 / Lowest-risk option that fits{limits_en} "
            f"(risk factors: {'; '.join(x.split(' / ')[-1] for x in o.risk_factors) or 'none'})."
        )
    return f"满足显存{limits_zh}的选项里费用最低。 / Cheapest option that fits{limits_en}." + _risk_suffix(o)


def _risk_suffix(o: PlanOption) -> str:
    if not o.risk_factors:
        return ""
    zh = "、".join(x.split(" / ")[0] for x in o.risk_factors)
    en = "; ".join(x.split(" / ")[-1] for x in o.risk_factors)
    return f" 风险：{zh}。 / Risk: {en}."


def _notable(infeasible: list[PlanOption], limit: int = 8) -> list[PlanOption]:
    """Keep the infeasible options worth explaining: ones that fit memory but miss a limit, and the big
    'does not fit' cards first."""
    fit_first = [o for o in infeasible if o.fits]
    no_fit = sorted([o for o in infeasible if not o.fits], key=lambda o: -o.gpu_memory_gb)
    return (fit_first + no_fit)[:limit]


def _summary(name: str, inp: PlanInput, options: list[PlanOption], infeasible: list[PlanOption]) -> dict[str, str]:
    mode_zh = {"full": "全量训练", "lora": "LoRA 微调", "qlora": "QLoRA 微调", "inference": "推理服务"}[inp.mode]
    if not options:
        return {
            "zh": f"{name} {mode_zh}：在给定条件下没有可行配置，见 infeasible 中的原因。",
            "en": f"{name} {inp.mode}: no configuration meets the constraints; see `infeasible` for why.",
        }
    b = options[0]
    zh = f"{name} {mode_zh}：首选 {b.count}×{b.gpu_name}（{b.nodes} 台），每卡约 {b.per_gpu_gb:.1f} GB"
    en = f"{name} {inp.mode}: best is {b.count}× {b.gpu_name} ({b.nodes} node{'s' if b.nodes > 1 else ''}), ~{b.per_gpu_gb:.1f} GB per GPU"
    if b.days and b.days.high * 24 < 0.1:  # a tiny job (one sample): minutes or seconds, never "0.0–0.0 hours"
        lo_s, hi_s = b.days.low * 86400, b.days.high * 86400
        if hi_s < 1:
            zh += "，不到 1 秒"
            en += ", under a second"
        elif hi_s < 60:
            zh += f"，约 {lo_s:.2g}–{hi_s:.2g} 秒"
            en += f", ~{lo_s:.2g}–{hi_s:.2g} seconds"
        else:
            zh += f"，约 {lo_s / 60:.1f}–{hi_s / 60:.1f} 分钟"
            en += f", ~{lo_s / 60:.1f}–{hi_s / 60:.1f} minutes"
    elif b.days and b.days.high < 1:
        zh += f"，约 {b.days.low * 24:.1f}–{b.days.high * 24:.1f} 小时"
        en += f", ~{b.days.low * 24:.1f}–{b.days.high * 24:.1f} hours"
    elif b.days:
        zh += f"，约 {b.days.low:.1f}–{b.days.high:.1f} 天"
        en += f", ~{b.days.low:.1f}–{b.days.high:.1f} days"
    if b.cost_cny:
        per_hour = bool(b.cost_basis and "per hour" in b.cost_basis)
        fmt = (lambda x: f"{x:,.2f}") if per_hour else (lambda x: f"{x:,.0f}")
        if per_hour:
            zh += f"，整套约 ¥{fmt(b.cost_cny.mid)}/小时"
            en += f", ~¥{fmt(b.cost_cny.mid)}/hour for the configuration"
        elif b.cost_cny.high < 1:
            zh += "，费用不到 ¥1"
            en += ", under ¥1"
        else:
            zh += f"，费用约 ¥{fmt(b.cost_cny.low)}–{fmt(b.cost_cny.high)}"
            en += f", ~¥{fmt(b.cost_cny.low)}–{fmt(b.cost_cny.high)}"
            if b.cost_basis and "month" in b.cost_basis:
                zh += "/月"
                en += "/month"
    if b.tokens_per_s and b.cost_per_mtok_cny:
        zh += f"，每用户约 {b.tokens_per_s.mid:.0f} token/s，满载约 ¥{b.cost_per_mtok_cny.mid:.2f}/百万输出 token"
        en += f", ~{b.tokens_per_s.mid:.0f} tokens/s per user, ~¥{b.cost_per_mtok_cny.mid:.2f} per million output tokens at full load"
    return {"zh": zh + "。", "en": en + "."}


TOOLS = [
    ToolSpec(
        name="plan_configurations",
        description=(
            "Rank GPU rental configurations a renter in China can actually get, for a job (model name or size; mode "
            "full/lora/qlora/inference; training tokens; optional deadline, budget in CNY, preferred GPUs; market: "
            "rental_platform | public_cloud | idc_lease | any; objective: cheapest | fastest | lowest_risk, inferred when "
            "absent; for serving: concurrency, context, input_tokens, output_tokens). Each option: GPU × count × nodes × "
            "interconnect, rent_unit (card | server_8 — export-controlled SXM cards only as whole 8-GPU servers on monthly "
            "leases), availability, market, fits, per-GPU memory (decimal GB), wall time in days {low, mid, high} with "
            "communication-aware effective MFU, cost in CNY {low, mid, high} (whole run; per month for serving), risk and "
            "risk_factors, billing advice and a 'why' naming the deciding factor; serving options add tokens_per_s per "
            "user, ttft_s and cost_per_mtok_cny; plus infeasible options with the reason (incl. not rentable)."
        ),
        input_model=PlanInput,
        func=plan_configurations,
    ),
]
