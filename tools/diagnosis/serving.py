"""Serving arithmetic from a paste: the numbers a vLLM / LMDeploy launch implies, worked out from what was pasted.

Why: "is 4 × 48 GB with --gpu-memory-utilization 0.5 enough?" and "what does max_block_count = 7987 mean?"
are answered by arithmetic on the paste, not by a new estimate. The formulas, each from its engine's docs:

- vLLM budget = cards × memory per card × gpu_memory_utilization, cards = tensor × pipeline parallel size
  (vLLM engine args: the fraction applies to each GPU; https://docs.vllm.ai/en/latest/configuration/engine_args.html)
- vLLM KV tokens = "# GPU blocks" × block size (16 tokens by default on CUDA, `--block-size`), or the V1 line
  "GPU KV cache size: N tokens"; "max seq len (A) ... stored in KV cache (B)" prints B tokens directly
- KV bytes = tokens × KV bytes/token, from the model's config.json: 2 × layers × KV heads × head_dim × bytes
  (vLLM paper, Kwon et al. 2023; tools/memory_kv.py). Summed over the TP ranks, i.e. the whole replica.
- LMDeploy pool: full-length sequences = max_block_count ÷ (session_len ÷ cache_block_seq_len), block 64 tokens
  by default (TurbomindEngineConfig). Every TP rank prints its own BlockManager lines for the same pool (a
  sequence takes one block on each rank, each rank holding its share of the heads), so the count is not
  multiplied by the number of prints. max_batch_size caps the running requests separately.

The card's memory comes from the paste (vLLM's total_gpu_memory line, nvidia-smi) or, failing that, from what
the renter said they rented (`expect`); the model from `model` or the paste's `--model`. Nothing here guesses:
a number that cannot be derived is left out.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, Field

from tools.diagnosis.findings import Text

GIB = 2**30
VLLM_DEFAULT_BLOCK = 16  # vLLM --block-size default on CUDA (engine args)
LMDEPLOY_DEFAULT_BLOCK = 64  # TurbomindEngineConfig.cache_block_seq_len default


class ServingMath(BaseModel):
    """What a serving paste implies, each number with the arithmetic that produced it (`lines`)."""

    engine: str = Field(description="vllm | lmdeploy")
    cards: int | None = Field(None, description="GPUs one replica uses (TP × PP)")
    card_gb: float | None = Field(None, description="memory per card, decimal GB")
    card_source: str | None = Field(None, description="where card_gb came from: paste | expect")
    utilization: float | None = None
    budget_gb: float | None = Field(None, description="cards × card_gb × utilization")
    model: str | None = None
    weights_gb: float | None = Field(None, description="the whole model's weights at the precision it ships in")
    weights_precision: str | None = None
    weights_fit: bool | None = Field(None, description="weights_gb < budget_gb (None when either is unknown)")
    kv_tokens: int | None = None
    kv_bytes_per_token: float | None = None
    kv_gb: float | None = None
    max_model_len: int | None = None
    max_len_kv_gb: float | None = Field(None, description="KV one sequence of max_model_len tokens needs")
    block_tokens: int | None = None
    block_count: int | None = None
    rank_prints: int | None = None
    session_len: int | None = None
    sequences: float | None = Field(None, description="full-length sequences the pool holds at once")
    max_batch_size: int | None = None
    lines: list[Text] = Field(default_factory=list, description="the arithmetic, one step per line")
    headline: Text | None = Field(None, description="the one-line answer the arithmetic gives, for line 1")


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:,.2f}".rstrip("0").rstrip(".")


def _model_numbers(name: str | None, kv_dtype: str | None) -> dict[str, Any]:
    """Weights (GB, at the precision the name ships in) and KV bytes/token from the model catalog; {} if unknown."""
    if not name:
        return {}
    try:
        from tools.memory import EstimateMemoryInput, estimate_memory
        from tools.memory_kv import KV_DTYPE_BYTES, kv_bytes_per_token
        from tools.models import resolve_model

        r = resolve_model(name)
        prec = (r.weights_precision or r.shipped_precision or "bf16").lower()
        kw: dict[str, Any] = {"precision": "bf16"}
        if "int4" in prec:
            kw = {"precision": "int4", "int4_format": "gptq" if "gptq" in prec else "awq"}
        elif "int8" in prec or prec == "fp8":
            kw = {"precision": "int8" if "int8" in prec else "fp8"}
        elif prec in ("fp16", "fp32"):
            kw = {"precision": "fp16"}
        est = estimate_memory(EstimateMemoryInput(model=name, mode="inference", **kw))
        kv_bytes = KV_DTYPE_BYTES.get("fp8" if kv_dtype and kv_dtype.startswith("fp8") else "bf16", 2.0)
        return {
            "model": r.name,
            "weights_gb": est.whole_model_weights_gb,
            "weights_precision": est.whole_model_precision,
            "kv_bytes_per_token": kv_bytes_per_token(r.arch, kv_bytes),
        }
    except Exception:  # noqa: BLE001 — an unknown or half-known model: leave its numbers out
        return {}


def _card_gb(parsed: Any, expect: tuple[int | None, str | None] | None) -> tuple[float | None, str | None]:
    inv = parsed.get("nvidia_smi_table")
    gpus = getattr(inv, "gpus", None) or []
    mib = next((g.memory_total_mib for g in gpus if getattr(g, "memory_total_mib", None)), None)
    if mib:
        return mib * 2**20 / 1e9, "paste"
    if expect and expect[1]:
        try:
            from tools.gpus import resolve_gpu

            return float(resolve_gpu(expect[1]).memory_gb), "expect"
        except Exception:  # noqa: BLE001 — a card the table does not know: no budget
            return None, None
    return None, None


def vllm_math(v: Any, parsed: Any, expect: tuple[int | None, str | None] | None, model: str | None) -> ServingMath:
    m = ServingMath(engine="vllm", utilization=v.utilization, max_model_len=v.max_model_len)
    L = m.lines
    # no TP/PP flag: vLLM runs on one GPU whatever the machine has (tensor_parallel_size defaults to 1)
    m.cards = (v.tp or 1) * (v.pp or 1)
    if v.budget:  # vLLM printed it: total GiB × fraction, per GPU
        total, util, per = v.budget
        m.card_gb, m.card_source, m.utilization = total * GIB / 1e9, "paste", util
        L.append(
            Text(
                zh=f"vLLM 打印的预算：{total:g} GiB × {util:g} = {per:g} GiB（每张卡）",
                en=f"vLLM's own budget line: {total:g} GiB × {util:g} = {per:g} GiB per GPU",
            )
        )
    elif v.card_mib:
        m.card_gb, m.card_source = v.card_mib * 2**20 / 1e9, "paste"
    else:
        m.card_gb, m.card_source = _card_gb(parsed, expect)
    if v.card_mib and v.kv_avail_gib is not None and m.utilization and not v.budget:
        _v1_split(m, v)
        return m
    util = m.utilization if m.utilization is not None else (0.9 if v.launch_line else None)
    if m.card_gb and util is not None and m.cards:
        m.utilization = util
        m.budget_gb = round(m.cards * m.card_gb * util, 2)
        said = "" if v.utilization is not None else "（未设置，默认 0.9）"
        said_en = "" if v.utilization is not None else " (not set: the default 0.9)"
        L.append(
            Text(
                zh=f"vLLM 可用显存预算 = {m.cards} 张 × {_fmt(m.card_gb)} GB × {util:g}{said} = {_fmt(m.budget_gb)} GB",
                en=f"vLLM memory budget = {m.cards} GPU(s) × {_fmt(m.card_gb)} GB × {util:g}{said_en} = "
                f"{_fmt(m.budget_gb)} GB",
            )
        )
    nums = _model_numbers(model or v.model, v.kv_cache_dtype)
    m.model = nums.get("model")
    m.weights_gb, m.weights_precision = nums.get("weights_gb"), nums.get("weights_precision")
    m.kv_bytes_per_token = nums.get("kv_bytes_per_token")
    if m.weights_gb and m.budget_gb:
        m.weights_fit = m.weights_gb < m.budget_gb
        zh = "放得下，剩下的给 KV cache" if m.weights_fit else "装不下：权重都放不进预算，启动会失败或卡住"
        en = (
            "fit; the rest goes to the KV cache"
            if m.weights_fit
            else "do not fit, so the engine fails or hangs at load"
        )
        L.append(
            Text(
                zh=f"{m.model} 的 {m.weights_precision} 权重约 {_fmt(m.weights_gb)} GB，预算 {_fmt(m.budget_gb)} GB：{zh}",
                en=f"{m.model} {m.weights_precision} weights ≈ {_fmt(m.weights_gb)} GB vs the {_fmt(m.budget_gb)} GB "
                f"budget: they {en}",
            )
        )
    block = v.block_size or VLLM_DEFAULT_BLOCK
    if v.max_len:
        m.max_model_len, m.kv_tokens = v.max_len
    elif v.kv_tokens:
        m.kv_tokens = v.kv_tokens
    elif v.gpu_blocks:
        m.kv_tokens, m.block_tokens, m.block_count = v.gpu_blocks * block, block, v.gpu_blocks
        L.append(
            Text(
                zh=f"KV cache 能放 {v.gpu_blocks:,} 块 × 每块 {block} token = {m.kv_tokens:,} token",
                en=f"KV cache holds {v.gpu_blocks:,} blocks × {block} tokens per block = {m.kv_tokens:,} tokens",
            )
        )
    if m.kv_tokens and m.kv_bytes_per_token:
        m.kv_gb = round(m.kv_tokens * m.kv_bytes_per_token / 1e9, 2)
        L.append(
            Text(
                zh=f"{m.kv_tokens:,} token × {m.kv_bytes_per_token:,.0f} B/token（{m.model} 的 config.json）"
                f"= {_fmt(m.kv_gb)} GB 的 KV cache" + (f"（{m.cards} 张卡合计）" if (m.cards or 1) > 1 else ""),
                en=f"{m.kv_tokens:,} tokens × {m.kv_bytes_per_token:,.0f} B/token ({m.model}'s config.json) = "
                f"{_fmt(m.kv_gb)} GB of KV cache"
                + (f", over all {m.cards} cards together" if (m.cards or 1) > 1 else ""),
            )
        )
        if m.max_model_len and m.max_model_len > m.kv_tokens:
            m.max_len_kv_gb = round(m.max_model_len * m.kv_bytes_per_token / 1e9, 2)
            L.append(
                Text(
                    zh=f"一条 {m.max_model_len:,} token 的序列要 {_fmt(m.max_len_kv_gb)} GB，超过了上面的 {_fmt(m.kv_gb)} GB："
                    f"把 --max-model-len 设到 {m.kv_tokens:,} 以下，或调高 --gpu-memory-utilization",
                    en=f"one sequence of {m.max_model_len:,} tokens needs {_fmt(m.max_len_kv_gb)} GB, more than the "
                    f"{_fmt(m.kv_gb)} GB above: set --max-model-len at most {m.kv_tokens:,}, or raise "
                    "--gpu-memory-utilization",
                )
            )
    elif m.kv_tokens and m.max_model_len and m.max_model_len > m.kv_tokens:
        L.append(
            Text(
                zh=f"KV cache 只放得下 {m.kv_tokens:,} token，模型默认长度 {m.max_model_len:,}：--max-model-len 设到 "
                f"{m.kv_tokens:,} 以下",
                en=f"the KV cache holds only {m.kv_tokens:,} tokens against a max length of {m.max_model_len:,}: set "
                f"--max-model-len at most {m.kv_tokens:,}",
            )
        )
    m.headline = _vllm_headline(m)
    return m


def _v1_split(m: ServingMath, v: Any) -> None:
    """V1 logs print GiB: budget = card MiB × utilization, then what took it before the KV cache."""
    card_gib = v.card_mib / 1024
    budget = card_gib * (m.utilization or 0.9)
    m.budget_gb = round(budget * GIB / 1e9, 2)
    L = m.lines
    L.append(
        Text(
            zh=f"vLLM 的预算 = {v.card_mib:,} MiB（= {card_gib:.2f} GiB，不是 {v.card_mib / 1000:.0f}G）× {m.utilization:g} = {budget:.2f} GiB",
            en=f"vLLM's budget = {v.card_mib:,} MiB (= {card_gib:.2f} GiB, not {v.card_mib / 1000:.0f} G) × "
            f"{m.utilization:g} = {budget:.2f} GiB",
        )
    )
    if v.loaded_gib is not None:
        rest = budget - v.loaded_gib - v.kv_avail_gib
        L.append(
            Text(
                zh=f"{budget:.2f} − 权重 {v.loaded_gib:g} − KV cache {v.kv_avail_gib:g} = {rest:.2f} GiB：这部分被预跑（profile run）"
                "测出的激活峰值、CUDA Graph 和 PyTorch 之外的显存占了，vLLM 先扣掉它们才分 KV cache；调小 "
                "--max-num-batched-tokens 或加 --enforce-eager 能把一部分还给 KV cache",
                en=f"{budget:.2f} − weights {v.loaded_gib:g} − KV cache {v.kv_avail_gib:g} = {rest:.2f} GiB went to the "
                "profile run's activation peak, CUDA graphs and memory outside PyTorch, which vLLM subtracts before "
                "the KV cache; a smaller --max-num-batched-tokens or --enforce-eager gives part of it back",
            )
        )
        m.headline = Text(
            zh=f"预算是 {budget:.2f} GiB，不是按 {v.card_mib / 1000:.0f}G 算：{v.card_mib:,} MiB = {card_gib:.2f} GiB，× {m.utilization:g} = "
            f"{budget:.2f} GiB；扣掉权重 {v.loaded_gib:g} GiB 后，还有 {rest:.2f} GiB 不是 KV cache（激活峰值、CUDA Graph 等）",
            en=f"The budget is {budget:.2f} GiB: {v.card_mib:,} MiB = {card_gib:.2f} GiB × {m.utilization:g}; after "
            f"the {v.loaded_gib:g} GiB of weights, {rest:.2f} GiB is not KV cache (activation peak, CUDA graphs, …)",
        )
    if v.kv_tokens:
        m.kv_tokens = v.kv_tokens
        per = v.kv_avail_gib * GIB / v.kv_tokens
        L.append(
            Text(
                zh=f"KV cache {v.kv_avail_gib:g} GiB ÷ {v.kv_tokens:,} 个 token ≈ 每 token {per:,.0f} 字节",
                en=f"KV cache {v.kv_avail_gib:g} GiB ÷ {v.kv_tokens:,} tokens ≈ {per:,.0f} B per token",
            )
        )


def _vllm_headline(m: ServingMath) -> Text | None:
    if m.weights_fit and m.budget_gb and m.weights_gb:
        return Text(
            zh=f"显存预算 {_fmt(m.budget_gb)} GB 放得下 {m.model} 约 {_fmt(m.weights_gb)} GB 的权重，"
            f"剩下约 {_fmt(m.budget_gb - m.weights_gb)} GB 给激活和 KV cache",
            en=f"The {_fmt(m.budget_gb)} GB budget holds {m.model}'s ~{_fmt(m.weights_gb)} GB of weights, leaving "
            f"about {_fmt(m.budget_gb - m.weights_gb)} GB for activations and the KV cache",
        )
    if m.kv_tokens and m.kv_gb and not m.max_len_kv_gb:
        return Text(
            zh=f"KV cache 共 {m.kv_tokens:,} token，约 {_fmt(m.kv_gb)} GB",
            en=f"The KV cache holds {m.kv_tokens:,} tokens, about {_fmt(m.kv_gb)} GB",
        )
    return None


def lmdeploy_math(lm: Any, model: str | None, session_len: int | None) -> ServingMath:
    nums = _model_numbers(model or lm.model, None)
    block, how = lm.block_seq_len, ("", "")
    if block is None and lm.block_mb and nums.get("kv_bytes_per_token"):
        # the printed block size ÷ the model's KV bytes per token (on this rank) gives the tokens per block
        guess = lm.block_mb * 2**20 / (nums["kv_bytes_per_token"] / (lm.tp or 1))
        if any(abs(guess - b) < 0.01 * b for b in (16, 32, 64, 128, 256)):
            block = round(guess)
            how = (
                f"（{lm.block_mb} MB ÷ {nums['model']} 每 token 的 KV）",
                f" ({lm.block_mb} MB ÷ {nums['model']}'s KV per token)",
            )
    if block is None:
        block = LMDEPLOY_DEFAULT_BLOCK
        how = (
            "（cache_block_seq_len 默认值；0.1.x 旧版是 128，以你的配置为准）",
            " (the cache_block_seq_len default; 128 in the old 0.1.x releases — check your config)",
        )
    m = ServingMath(
        engine="lmdeploy",
        block_tokens=block,
        block_count=lm.block_count,
        rank_prints=lm.prints,
        session_len=lm.session_len or session_len or lm.stated_len,
        max_batch_size=lm.max_batch_size,
        cards=lm.tp,
    )
    L = m.lines
    m.kv_tokens = lm.block_count * block
    L.append(
        Text(
            zh=f"KV 池：{lm.block_count:,} 块 × 每块 {block} token{how[0]} = {m.kv_tokens:,} token",
            en=f"KV pool: {lm.block_count:,} blocks × {block} tokens per block{how[1]} = {m.kv_tokens:,} tokens",
        )
    )
    if lm.block_mb:
        per_token = lm.block_mb * 2**20 / block / 1e6
        L.append(
            Text(
                zh=f"每块 {lm.block_mb} MB 存 {block} 个 token 的 K/V，约 {per_token:,.2f} MB/token",
                en=f"each {lm.block_mb} MB block holds the K/V of {block} tokens, about {per_token:,.2f} MB per token",
            )
        )
    if m.session_len:
        per_seq = math.ceil(m.session_len / block)
        m.sequences = lm.block_count / per_seq
        L.append(
            Text(
                zh=f"满长序列并发 = {lm.block_count:,} ÷ ({m.session_len:,} ÷ {block}) = {lm.block_count:,} ÷ {per_seq} ≈ "
                f"{m.sequences:,.1f}，约 {round(m.sequences):,} 条（{m.session_len:,} token 的请求同时跑）",
                en=f"full-length sequences at once = {lm.block_count:,} ÷ ({m.session_len:,} ÷ {block}) = "
                f"{lm.block_count:,} ÷ {per_seq} ≈ {m.sequences:,.1f}, about {round(m.sequences):,} requests of "
                f"{m.session_len:,} tokens",
            )
        )
    n = max(lm.prints, lm.tp or 1)
    total = f"{round(m.sequences):,}" if m.sequences else "池子算出的数"
    total_en = f"{round(m.sequences):,}" if m.sequences else "what the pool gives"
    if n > 1:
        head, head_en = (
            f"这两行打印 {n} 次是 {n} 个张量并行 rank 各打一次",
            f"The lines print {n} times, once per tensor-parallel rank",
        )
    else:
        head, head_en = (
            "多卡张量并行时每个 rank 都会各打印一次这两行",
            "With tensor parallelism every rank prints these lines once",
        )
    L.append(
        Text(
            zh=f"{head}：同一条序列在每张卡上各占一块（每卡存自己那份注意力头），所以总并发就是 {total}，不是再乘以卡数",
            en=f"{head_en}: one sequence takes a block on every rank at once (each holds its share of the heads), "
            f"so the total is {total_en}, not that times the number of cards",
        )
    )
    cap = lm.max_batch_size
    L.append(
        Text(
            zh=(
                f"另外 max_batch_size={cap} 限制同时运行的请求数"
                if cap
                else "另外 max_batch_size 限制同时运行的请求数（0.4–0.5 版默认 128，新版按显卡自动设）"
            )
            + "：要跑满池子就调大 --max-batch-size",
            en=(
                f"Separately, max_batch_size={cap} caps the running requests"
                if cap
                else "Separately, max_batch_size caps the running requests (128 by default in 0.4–0.5; newer releases pick it by GPU)"
            )
            + ": raise --max-batch-size to use the whole pool",
        )
    )
    if m.sequences:
        m.headline = Text(
            zh=f"约 {round(m.sequences):,} 条 {m.session_len:,} token（输入+输出）的请求可以同时放进 KV 池"
            f"（{lm.block_count:,} ÷ ({m.session_len:,} ÷ {block}) ≈ {m.sequences:,.1f}），这是所有卡合计，不是每张卡各这么多",
            en=f"About {round(m.sequences):,} requests of {m.session_len:,} tokens (input + output) fit the KV pool at "
            f"once ({lm.block_count:,} ÷ ({m.session_len:,} ÷ {block}) ≈ {m.sequences:,.1f}) — for all cards together, "
            "not per card",
        )
    if nums.get("kv_bytes_per_token"):
        m.model, m.kv_bytes_per_token = nums["model"], nums["kv_bytes_per_token"]
        m.kv_gb = round(m.kv_tokens * m.kv_bytes_per_token / 1e9, 2)
    return m


def serving_math(
    parsed: Any, expect: tuple[int | None, str | None] | None, model: str | None, session_len: int | None = None
) -> ServingMath | None:
    """The arithmetic for the first serving engine in the paste, or None."""
    lm = parsed.get("lmdeploy")
    if lm is not None:
        return lmdeploy_math(lm, model, session_len)
    v = parsed.get("vllm")
    if v is not None and (v.has_numbers or v.max_len):
        m = vllm_math(v, parsed, expect, model)
        return m if m.lines else None
    return None
