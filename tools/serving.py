"""Serving planner for continuous-batching engines (vLLM, SGLang): speed, concurrency and RMB per million tokens.

Per GPU under tensor parallelism t (roofline; Kwon et al. 2023 "vLLM", §2; Pope et al. 2022 "Efficiently Scaling
Transformer Inference", §2 — decode is memory-bound at small batch, prefill compute-bound):
    prefill(I)  = 2 · N_active · I / (t · peak · η_prefill)                     seconds for one I-token prompt
    decode step = max( (W + B · kv(c̄)) / (η_bw · BW),  2 · N_active · B / (t · peak · η_dec) )
                  W = weight bytes per GPU, kv(c̄) = KV bytes per sequence at the mean context I + O/2
    cycle       = B · prefill(I) + O · step(B)      (B requests of I in / O out finish per cycle)
    server output tokens/s = B·O / cycle;  per-user tokens/s = O / cycle;  TTFT ≈ prefill(I) + one step
Concurrency that fits = (usable memory − weights − activations/overhead) ÷ KV per sequence at the full context
(tools.memory.breakdown; vLLM reserves gpu_memory_utilization = 0.9). η_bw 0.6–0.9 (achieved vs datasheet
bandwidth), η_prefill 0.35–0.65, η_dec 0.25–0.5 (judgement bands, checked against the published benchmarks in
tests/test_serving.py). Cost: the configuration's monthly rent (market price level, whole servers where that is the
unit) ÷ tokens per month at full load, split between input and output by GPU time. Break-even against an API price
(knowledge/api_prices.yaml): monthly rent ÷ API cost per request.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.data import load_yaml
from tools.errors import ToolInputError
from tools.gpus import GpuSpec, resolve_gpu
from tools.registry import ToolSpec

ETA_BW = (0.6, 0.75, 0.9)
ETA_PREFILL = (0.35, 0.5, 0.65)
ETA_DECODE = (0.25, 0.35, 0.5)
SECONDS_PER_MONTH = 720 * 3600  # the 720-hour month of knowledge/prices.yaml


@lru_cache(maxsize=1)
def api_prices() -> dict[str, Any]:
    return load_yaml("api_prices.yaml")


class B3(BaseModel):
    low: float
    mid: float
    high: float


class ApiComparison(BaseModel):
    api: str
    provider: str
    input_cny_per_m: float
    output_cny_per_m: float
    api_cost_per_month_at_capacity_cny: float = Field(
        description="what the API would charge for this server's full-load volume"
    )
    break_even_output_mtok_per_month: float | None = Field(
        None, description="output tokens per month (millions, with the input mix) above which renting is cheaper"
    )
    break_even_share_of_capacity: float | None = Field(None, description="break-even volume ÷ the server's capacity")
    same_model: bool = Field(
        False, description="the API serves the same open-weight model family (a like-for-like price)"
    )
    verdict_zh: str
    verdict_en: str
    as_of: str
    source: str


class ServingInput(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    model: str | None = Field(None, description="model name ('qwen2.5-7b', 'llama-3-70b') or size ('7B')")
    params: str | float | None = Field(None, description="parameter count instead of a model name ('7B')")
    gpu: str = Field(..., description="GPU name: '4090', 'A100 80G', 'H20', 'L20'")
    gpus: int | None = Field(None, ge=1, le=64, description="tensor-parallel GPUs; default: fewest of 1/2/4/8 that fit")
    precision: Literal["bf16", "fp16", "fp8", "int8", "int4"] = Field("bf16", description="weight dtype")
    context: int = Field(4096, ge=16, le=1_000_000, description="max tokens per sequence (prompt + output)")
    input_tokens: int = Field(1024, ge=1, le=1_000_000, description="mean prompt tokens per request")
    output_tokens: int = Field(256, ge=1, le=1_000_000, description="mean generated tokens per request")
    concurrency: int | None = Field(None, ge=1, le=100_000, description="sequences at once; default: the most that fit")
    market: Literal["any", "rental_platform", "public_cloud", "idc_lease"] = Field("any", description="where you rent")
    monthly_output_mtok: float | None = Field(
        None, gt=0, description="your expected output volume, millions of tokens per month (for the verdict)"
    )
    requests_per_s: float | None = Field(
        None, gt=0, le=100_000, description="peak requests per second to serve (sizes the number of servers)"
    )
    api: str | None = Field(None, description="API to compare with (id in knowledge/api_prices.yaml); default: all")
    api_cache_hit_rate: float = Field(
        0.0,
        ge=0,
        le=1,
        description="share of API input tokens billed at the provider's cache-hit price (repeated prefixes)",
    )
    quotes_file: str | None = Field(None, description="your own GPU price quotes (YAML/CSV)")


class ServingOutput(BaseModel):
    model: str
    gpu: str
    gpu_name: str
    tensor_parallel: int
    servers: int
    rent_unit: str
    fits: bool
    max_concurrency: int = Field(description="requests of input+output tokens the KV pool holds at once (paged)")
    max_concurrency_full_context: int = Field(0, description="sequences that fit if every one filled `context`")
    concurrency: int
    weights_gb_per_gpu: float
    weights_gb_total: float = Field(0.0, description="the whole model's weights across its tensor-parallel GPUs")
    usable_gb_per_gpu: float = Field(0.0, description="memory the engine plans with per GPU (gpu_memory_utilization)")
    kv_gb_per_sequence_per_gpu: float
    ttft_s: B3 = Field(description="time to first token at that concurrency, no queueing (low = fastest)")
    tokens_per_s: B3 = Field(description="output tokens/s per user")
    server_output_tokens_per_s: B3
    server_input_tokens_per_s: B3
    decode_bound: str = Field(description="memory | compute at the mid estimate")
    monthly_cost_cny: float | None
    cost_per_mtok_cny: B3 | None = Field(None, description="CNY per million OUTPUT tokens at full load (low = fastest)")
    cost_per_mtok_input_cny: float | None = Field(None, description="CNY per million input tokens (mid)")
    apis: list[ApiComparison] = Field(default_factory=list)
    required_output_tokens_per_s: float | None = Field(
        None, description="requests_per_s × output_tokens: the output rate the peak asks for"
    )
    replicas_needed: int | None = Field(
        None, description="model copies (each `tensor_parallel` GPUs) for requests_per_s at the mid estimate"
    )
    gpus_needed: int | None = Field(None, description="replicas_needed × tensor_parallel")
    capacity_output_mtok_per_month: float | None = Field(
        None, description="million output tokens a month at full load, around the clock (mid estimate)"
    )
    engine: str = "vLLM/SGLang-class continuous batching (model, not a measurement)"
    assumptions: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def _fit(spec: GpuSpec, inp: ServingInput, t: int, model: Any) -> tuple[float, float, float, float]:
    """(weights GB/GPU, KV GB per sequence/GPU at full context, usable GB, fixed GB) from tools.memory."""
    from tools.memory import MemoryJob, breakdown

    job = MemoryJob.model_validate(
        dict(
            model=inp.model,
            params=inp.params,
            mode="inference",
            gpus=t,
            precision=inp.precision,
            context=inp.context,
            concurrency=1,
        )
    )
    b = breakdown(job, model)
    usable = spec.memory_gb * job.gpu_memory_utilization
    fixed = (b.total - b.kv_cache) / 1e9
    return b.weights / 1e9, b.kv_cache / 1e9, usable, fixed


def plan_serving(inp: ServingInput) -> ServingOutput:
    from tools.models import resolve_model
    from tools.rentability import best_offer, check_market

    if inp.input_tokens + inp.output_tokens > inp.context:
        raise ToolInputError(
            f"输入 + 输出（{inp.input_tokens + inp.output_tokens}）超过上下文 {inp.context}",
            f"input + output ({inp.input_tokens + inp.output_tokens}) exceeds the context {inp.context}",
            field="context",
        )
    spec = resolve_gpu(inp.gpu)
    model = resolve_model(inp.model, str(inp.params) if inp.params is not None else None)
    active = float(model.active_params)
    peak = spec.dense_tflops(
        "fp8" if inp.precision == "fp8" and spec.fp8_dense_tflops else "bf16"
    ) or spec.dense_tflops("fp16")
    if not peak or not spec.mem_bw_gbs:
        raise ToolInputError(
            f"{spec.name} 缺少算力或带宽数据", f"No TFLOPS/bandwidth figure for {spec.name}", field="gpu"
        )
    sizes = [inp.gpus] if inp.gpus else [1, 2, 4, 8]
    t, fit = sizes[-1], None
    for n in sizes:
        w, kv, usable, fixed = _fit(spec, inp, n, model)
        if fixed + kv <= usable:
            t, fit = n, (w, kv, usable, fixed)
            break
    if fit is None:
        w, kv, usable, fixed = _fit(spec, inp, t, model)
        fit = (w, kv, usable, fixed)
    w, kv, usable, fixed = fit
    # PagedAttention allocates KV blocks as tokens arrive (Kwon et al. 2023, §4): the pool holds
    # (usable − fixed) / (KV per token × tokens per request) requests; one full-context sequence must still fit.
    kv_req = kv * (inp.input_tokens + inp.output_tokens) / inp.context
    full_ctx = max(0, int((usable - fixed) // kv)) if kv > 0 else 0
    max_conc = max(0, int((usable - fixed) // kv_req)) if kv_req > 0 else 0
    fits = full_ctx >= 1
    conc = min(inp.concurrency or max(max_conc, 1), max(max_conc, 1)) if fits else 1
    warnings: list[str] = []
    if not fits:
        warnings.append(
            f"{t} 张 {spec.name} 放不下这个模型和一条 {inp.context} token 的序列。 / {t}× {spec.name} cannot hold the model "
            f"plus one {inp.context}-token sequence."
        )
    if inp.concurrency and inp.concurrency > max_conc and fits:
        warnings.append(
            f"并发 {inp.concurrency} 超过显存可容纳的 {max_conc}，按 {max_conc} 计（其余排队）。 / Concurrency "
            f"{inp.concurrency} exceeds the {max_conc} that fit; computed at {max_conc} (the rest queue)."
        )
    if t > 1 and not spec.is_sxm:
        warnings.append(
            f"{t} 卡张量并行走 PCIe{'（GeForce 无 P2P）' if spec.family in ('3090', '4090', '4090d', '5090', '5090d') else ''}："
            "每层两次 all-reduce 的延迟未计入，实测 4×3090 TP=4 约为本模型的 0.9 倍（club-3090#446）；能放进一张卡时多开副本更好。"
            f" / Tensor parallel over PCIe on {t} cards: the two all-reduces per layer add latency the model leaves out "
            "(4×3090 TP=4 measured ≈0.9× the model, club-3090#446); if the model fits one card, run replicas instead."
        )
    mean_ctx = inp.input_tokens + inp.output_tokens / 2
    kv_mean = kv * mean_ctx / inp.context
    bw = spec.mem_bw_gbs * 1e9
    flops_gpu = peak * 1e12
    res: dict[str, dict[str, float]] = {}
    bound = "memory"
    for i, lvl in enumerate(("low", "mid", "high")):  # low = slowest end
        mem_t = (w + conc * kv_mean) * 1e9 / (ETA_BW[i] * bw)
        cmp_t = 2 * active * conc / (t * flops_gpu * ETA_DECODE[i])
        step = max(mem_t, cmp_t)
        if lvl == "mid" and cmp_t > mem_t:
            bound = "compute"
        prefill = 2 * active * inp.input_tokens / (t * flops_gpu * ETA_PREFILL[i])
        cycle = conc * prefill + inp.output_tokens * step
        res[lvl] = dict(
            step=step,
            prefill=prefill,
            cycle=cycle,
            out=conc * inp.output_tokens / cycle,
            inp=conc * inp.input_tokens / cycle,
            user=inp.output_tokens / cycle,
            ttft=prefill + step,
            prefill_share=conc * prefill / cycle,
        )
    servers = max(1, math.ceil(t / 8))
    offer, _ = best_offer(spec.id, check_market(inp.market))
    unit = offer.unit if offer else "card"
    paid = t if unit == "card" else servers * 8
    monthly = _monthly(spec, paid, offer, inp.quotes_file)
    if offer is None:
        warnings.append(f"{spec.name} 在所选市场租不到。 / {spec.name} is not rentable in that market.")
    elif unit == "server_8" and paid > t:
        warnings.append(
            f"只能整台 8 卡服务器租：{t} 卡够用，按 {paid} 卡计费（可在同一台上多开几个实例）。 / Rented only as whole 8-GPU "
            f"servers: {t} cards suffice, {paid} are paid for (run several replicas on the server)."
        )
    replicas = paid // t if t else 1
    cost = cost_in = None
    if monthly is not None and fits:
        per = {}
        for lvl in ("low", "mid", "high"):
            out_m = res[lvl]["out"] * replicas * SECONDS_PER_MONTH / 1e6
            per[lvl] = monthly * (1 - res[lvl]["prefill_share"]) / out_m
        cost = B3(low=round(per["high"], 3), mid=round(per["mid"], 3), high=round(per["low"], 3))
        in_m = res["mid"]["inp"] * replicas * SECONDS_PER_MONTH / 1e6
        cost_in = round(monthly * res["mid"]["prefill_share"] / in_m, 3)
    out = ServingOutput(
        model=model.name,
        gpu=spec.id,
        gpu_name=spec.name,
        tensor_parallel=t,
        servers=servers,
        rent_unit=unit,
        fits=fits,
        max_concurrency=max_conc,
        max_concurrency_full_context=full_ctx,
        concurrency=conc,
        weights_gb_per_gpu=round(w, 2),
        weights_gb_total=round(w * t, 1),
        usable_gb_per_gpu=round(usable, 1),
        kv_gb_per_sequence_per_gpu=round(kv, 4),
        ttft_s=_b(res, "ttft", invert=True),
        tokens_per_s=_b(res, "user"),
        server_output_tokens_per_s=_b(res, "out", scale=replicas),
        server_input_tokens_per_s=_b(res, "inp", scale=replicas),
        decode_bound=bound,
        monthly_cost_cny=round(monthly) if monthly is not None else None,
        cost_per_mtok_cny=cost,
        cost_per_mtok_input_cny=cost_in,
        warnings=warnings,
        assumptions=[
            f"每请求输入 {inp.input_tokens}、输出 {inp.output_tokens} token，并发 {conc}，满载 720 小时/月。 / {inp.input_tokens} "
            f"in, {inp.output_tokens} out per request, concurrency {conc}, full load 720 h/month.",
            "η_bw 0.6–0.9、η_prefill 0.35–0.65、η_decode 0.25–0.5（判断区间，已对照公开基准）。 / η_bw 0.6–0.9, "
            "η_prefill 0.35–0.65, η_decode 0.25–0.5 (judgement bands, checked against published benchmarks).",
            "TTFT 不含排队；满载时新请求要等空位。 / TTFT excludes queueing; at full load new requests wait for a slot.",
        ],
    )
    if fits and (inp.requests_per_s or (inp.concurrency and inp.concurrency > max_conc)):
        # Copies of the model the load needs: a stated concurrency above what one copy's KV pool holds
        # → ceil(concurrency / max); a rate → the output rate it asks for, rps × output tokens, over one
        # copy's output rate (mid) at its concurrency (Little's law on tokens).
        copies = math.ceil(inp.concurrency / max_conc) if inp.concurrency and max_conc else 1
        if inp.requests_per_s:
            need = inp.requests_per_s * inp.output_tokens
            per_copy = res["mid"]["out"]
            out.required_output_tokens_per_s = round(need, 1)
            if per_copy > 0:
                copies = max(copies, math.ceil(need / per_copy))
        out.replicas_needed = max(1, copies)
        out.gpus_needed = out.replicas_needed * t
    if fits:
        out.capacity_output_mtok_per_month = round(res["mid"]["out"] * replicas * SECONDS_PER_MONTH / 1e6, 1)
    if monthly is not None and fits:
        out.apis = _compare(inp, out, monthly, replicas, res["mid"])
    return out


def _b(res: dict[str, dict[str, float]], key: str, *, scale: float = 1, invert: bool = False) -> B3:
    lo, mid, hi = (res[x][key] * scale for x in ("low", "mid", "high"))
    if invert:  # times: the fast end (high efficiencies) is the low figure
        lo, hi = hi, lo
    return B3(low=round(lo, 3), mid=round(mid, 3), high=round(hi, 3))


def _monthly(spec: GpuSpec, paid: int, offer: Any, quotes_file: str | None) -> float | None:
    from tools.prices import PriceInput, gpu_price

    try:
        p = gpu_price(PriceInput(gpu=spec.id, count=paid, months=1, quotes_file=quotes_file))
    except ToolInputError:
        return None
    if p.total_cny is None:
        return None
    level = offer.price_level if offer is not None else "typical"
    return float(getattr(p.total_cny, level))


def _compare(
    inp: ServingInput, out: ServingOutput, monthly: float, replicas: int, mid: dict[str, float]
) -> list[ApiComparison]:
    rows = api_prices()["apis"]
    if inp.api:
        rows = [r for r in rows if r["id"] == inp.api]
        if not rows:
            raise ToolInputError(
                f"没有名为 {inp.api} 的 API 价格",
                f"No API price named {inp.api}",
                field="api",
                suggestions=[r["id"] for r in api_prices()["apis"]],
            )
    name = out.model.lower().replace(" ", "")
    family = name.split("-")[0].rstrip("0123456789.")  # "qwen2.5-7b" → "qwen", "deepseek-v3" → "deepseek"

    def size_b(text: str) -> float | None:
        from tools.models import size_in_name

        size = size_in_name(text)  # one reader of "…-7b" / "…-30b-a3b" sizes, the catalog's
        return size / 1e9 if size else None

    own_size = size_b(name)

    def same(r: dict[str, Any]) -> bool:
        """The same open model, or one of its family of about the same size (a 7B is not priced like a 72B)."""
        om = str(r.get("open_model") or "").lower()
        if not om:
            return False
        if om in name or name.startswith(om):
            return True
        if om.split("-")[0].rstrip("0123456789.") != family:
            return False
        theirs = size_b(om)
        return own_size is None or theirs is None or max(own_size, theirs) / min(own_size, theirs) <= 2

    def size_gap(r: dict[str, Any]) -> float:
        theirs = size_b(str(r.get("open_model") or r.get("model") or "").lower())
        return abs(math.log(theirs / own_size)) if theirs and own_size else 99.0

    def exact(r: dict[str, Any]) -> bool:
        om = str(r.get("open_model") or "").lower()
        return bool(om) and om in name

    # the same model, then its family, then the nearest in size
    rows = sorted(rows, key=lambda r: (not exact(r), not same(r), size_gap(r)))
    cap_out_m = mid["out"] * replicas * SECONDS_PER_MONTH / 1e6
    ratio_in = inp.input_tokens / inp.output_tokens
    result = []
    for r in rows:
        h = inp.api_cache_hit_rate if r.get("cache_hit") is not None else 0.0
        price_in = (1 - h) * r["input"] + h * float(r.get("cache_hit") or 0.0)
        per_m_out = price_in * ratio_in + r["output"]  # API CNY per million output tokens with the input mix
        api_at_cap = per_m_out * cap_out_m
        be = monthly / per_m_out
        share = be / cap_out_m if cap_out_m else None
        vol = inp.monthly_output_mtok
        if share is not None and share > 1:
            vz = "这台配置满载也不如调 API 便宜。"
            ve = "even at full load this configuration costs more than the API."
        elif vol is not None and vol < be:
            vz = f"你的用量 {vol:g}M 低于盈亏平衡点 {be:,.1f}M 输出 token/月：调 API 更省。"
            ve = f"your {vol:g}M is below the break-even {be:,.1f}M output tokens/month: the API is cheaper."
        elif vol is not None:
            vz = f"你的用量 {vol:g}M 高于盈亏平衡点 {be:,.1f}M：自建更省（前提是能持续跑满）。"
            ve = f"your {vol:g}M is above the break-even {be:,.1f}M: self-hosting is cheaper (if kept busy)."
        else:
            vz = f"每月输出超过约 {be:,.1f}M token（满载能力的 {share:.0%}）时自建更省。"
            ve = f"self-hosting is cheaper above ~{be:,.1f}M output tokens per month ({share:.0%} of capacity)."
        result.append(
            ApiComparison(
                api=r["model"],
                provider=r["provider"],
                input_cny_per_m=r["input"],
                output_cny_per_m=r["output"],
                api_cost_per_month_at_capacity_cny=round(api_at_cap),
                break_even_output_mtok_per_month=round(be, 2),
                break_even_share_of_capacity=round(share, 3) if share is not None else None,
                same_model=same(r),
                verdict_zh=vz if same(r) else vz + "（注意：不是同一个模型，质量不同。）",
                verdict_en=ve if same(r) else ve + " (Note: a different model — quality differs.)",
                as_of=str(r["as_of"]),
                source=r["source"],
            )
        )
    return result


TOOLS = [
    ToolSpec(
        name="plan_serving",
        description=(
            "Self-host vs API for serving a model with vLLM/SGLang continuous batching: concurrency that fits the KV cache "
            "at a context, TTFT (s) and output tokens/s per user at that concurrency, server throughput, monthly rent "
            "(whole 8-GPU servers where that is the rent unit), CNY per million output and input tokens, and a comparison "
            "with dated official API prices (DeepSeek, Qwen/GLM on 百炼, Kimi, Doubao) with the break-even monthly volume. "
            "Use it for 「自建还是调API」, 'how many users can one 4090 serve', 'cost per million tokens'."
        ),
        input_model=ServingInput,
        func=plan_serving,
    ),
]
