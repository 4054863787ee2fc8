"""Constraint accounting: every entity and quantity the question gave is either used in a tool call or
named in one short line — 「没用上：…（原因）」 / "Not used: … (why)". Nothing is dropped silently.

"Used" is read off the calls that were made (their arguments), not off what an intent meant to do, so
a value that never reached a tool shows up here. Only the current message counts (values carried
from earlier turns were accounted for when they were said).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolResult

if TYPE_CHECKING:
    from assistant.offline.writing.render import Writer


@dataclass(frozen=True)
class Item:
    """One thing the question said, with its label in both languages."""

    key: str
    zh: str
    en: str


# quantity kind → argument names that carry it
_ARGS: dict[str, tuple[str, ...]] = {
    "gpu_count": ("gpu_count", "n_gpus", "gpus", "max_gpus", "count", "counts", "expect"),
    "params_b": ("params", "params_b", "model"),
    "context": ("context", "seq_len"),
    "batch": ("batch", "micro_batch"),
    "concurrency": ("concurrency",),
    "tokens": ("tokens",),
    "samples": ("tokens", "samples"),
    "sample_tokens": ("tokens", "seq_len", "context"),
    "epochs": ("tokens",),
    "budget_cny": ("budget",),
    "deadline_hours": ("deadline",),
    "link_gbps": ("network",),
    "nodes": ("nodes",),
    "nics_per_node": ("nics_per_node",),
    "period": ("hours", "days", "months", "measured_hours", "claimed_hours"),
    "project_months": ("months", "hours", "days"),
    "hours_per_day": ("hours", "hours_per_day"),
    "days_per_week": ("hours", "days_per_week"),
    "weeks": ("weeks",),
    "monthly_tokens": ("monthly_output_mtok",),
    "daily_tokens": ("monthly_output_mtok",),  # used as the monthly volume (× 30 days)
    "hourly_quote_cny": ("hourly_quote_cny",),
    "monthly_quote_cny": ("monthly_quote_cny",),
    "zero_stage": ("zero", "zero3"),
    "precision": ("precision",),
    "card_memory_gb": ("gpu", "gpus", "names", "expect", "host_ram_gb"),  # a Mac: its memory is the host RAM
    "gpu_memory_utilization": ("gpu_memory_utilization",),
    "budget_foreign": (),  # prices are CNY; no tool converts currency
}
# What a tool consumes without an argument for it: gpu_specs answers the precision asked about
# ("BF16 算力多少"); a memory size written with the card ("A100 80G") picks the table row.
_CONSUMED_BY_TOOL: dict[str, set[str]] = {
    "gpu_specs": {"q:precision", "q:card_memory_gb"},
    "decode_speed": {"q:precision"},
    "lookup_model": {"q:params_b"},
}
# Intents whose tool reads the user's words whole (the guide's query, the paste): everything is used.
# carry_run / compute_budget: reading/run_figures.py and the budget intent read the durations from the text itself;
# pretraining_run: the tokens, GPU-hours and hours in the question are the authors' figures it quotes back
_READS_ALL = {"advice", "diagnose", "delivery", "carry_run", "compute_budget", "pretraining_run", "rule_check"}

_LABELS: dict[str, tuple[str, str]] = {
    "gpu_count": ("{v} 张卡", "{v} GPUs"),
    "params_b": ("{v}B 参数", "{v}B parameters"),
    "context": ("上下文/序列长度 {v}", "context/sequence length {v}"),
    "batch": ("batch {v}", "batch {v}"),
    "concurrency": ("并发 {v}", "concurrency {v}"),
    "tokens": ("{v} token", "{v} tokens"),
    "samples": ("{v} 条样本", "{v} samples"),
    "sample_tokens": ("每条 {v} token", "{v} tokens per sample"),
    "epochs": ("{v} 个 epoch", "{v} epochs"),
    "budget_cny": ("预算 {v} 元", "budget ¥{v}"),
    "deadline_hours": ("期限 {v} 小时", "deadline {v} h"),
    "link_gbps": ("网络 {v} Gb/s", "network {v} Gb/s"),
    "nodes": ("{v} 台机器", "{v} nodes"),
    "nics_per_node": ("每台 {v} 张网卡", "{v} NICs per server"),
    "period": ("租期 {v} 小时", "rental period {v} h"),
    "project_months": ("项目周期 {v} 个月", "project length {v} months"),
    "hours_per_day": ("每天 {v} 小时", "{v} h a day"),
    "days_per_week": ("每周 {v} 天", "{v} days a week"),
    "weeks": ("{v} 周", "{v} weeks"),
    "monthly_tokens": ("每月 {v} token", "{v} tokens a month"),
    "daily_tokens": ("每天 {v} token", "{v} tokens a day"),
    "hourly_quote_cny": ("你的报价 {v} 元/小时", "your quote ¥{v}/h"),
    "monthly_quote_cny": ("你的报价 {v} 元/月", "your quote ¥{v}/month"),
    "zero_stage": ("ZeRO-{v}", "ZeRO-{v}"),
    "precision": ("精度 {u}", "precision {u}"),
    "card_memory_gb": ("{v} GB 显存", "{v} GB of memory"),
    "gpu_memory_utilization": ("gpu_memory_utilization {v}", "gpu_memory_utilization {v}"),
    "budget_foreign": ("预算 {v} {u}", "budget {v} {u}"),
}

# Why a value was not used, per kind (the default says the answer's tools do not take it).
_WHY: dict[str, tuple[str, str]] = {
    "engine": (
        "估算按模型和精度算，与推理/训练框架无关",
        "the estimate depends on the model and precision, not the framework",
    ),
    "unread": ("这个设置我读不懂", "a setting I could not read"),
    "hours_per_day": ("这个回答没有按使用时段计费", "this answer does not bill by usage pattern"),
    "days_per_week": ("这个回答没有按使用时段计费", "this answer does not bill by usage pattern"),
    "link_gbps": ("这个问题的计算用不到网络速率", "no figure here depends on the link speed"),
    "budget_foreign": (
        "价格按人民币计，不做汇率换算；按当天汇率换成人民币再问",
        "prices here are in CNY and no exchange rate is assumed; convert at today's rate and ask again",
    ),
}
_DEFAULT_WHY = ("这个问题用到的工具不需要它", "the tools behind this answer do not take it")


def _big(value: float) -> tuple[str, str]:
    """A large count as people write it: 3000万 / 30M, never '3e+07'."""
    if value < 1e6:
        return f"{value:g}", f"{value:g}"
    zh = f"{value / 1e8:.3g}亿" if value >= 1e8 else f"{value / 1e4:.4g}万"
    en = f"{value / 1e9:.3g}B" if value >= 1e9 else f"{value / 1e6:.3g}M"
    return zh, en


def items(frame: Frame) -> list[Item]:
    """Everything the question said that an answer could use, labelled."""
    out: list[Item] = []
    for g in frame.gpu_mentions:
        out.append(Item(f"gpu:{g.name}", g.name, g.name))
    for m in frame.model_mentions:
        out.append(Item(f"model:{m.text}", m.text, m.text))
    seen_kinds: set[str] = set()
    for q in frame.quantities:
        if q.kind in seen_kinds:
            continue
        seen_kinds.add(q.kind)
        zh, en = _LABELS.get(q.kind, ("{v}", "{v}"))
        vz, ve = _big(q.value)
        out.append(Item(f"q:{q.kind}", zh.format(v=vz, u=q.unit), en.format(v=ve, u=q.unit)))
    for e in frame.engines:
        out.append(Item(f"engine:{e}", e, e))
    for u in frame.unread:
        out.append(Item(f"unread:{u}", u, u))
    return out


def _norm(x: Any) -> str:
    return re.sub(r"[\s_\-]+", "", str(x).lower())


def _arg_values(results: list[ToolResult], keys: tuple[str, ...]) -> list[Any]:
    return [r.args[k] for r in results for k in keys if k in r.args and r.args[k] is not None]


def used(frame: Frame, item: Item, results: list[ToolResult]) -> bool:
    """Did any call carry this item? (read from the calls' arguments)"""
    kind, _, rest = item.key.partition(":")
    if any(item.key in _CONSUMED_BY_TOOL.get(r.name, set()) for r in results):
        return True
    if kind == "gpu":
        name = _norm(rest)
        for v in _arg_values(results, ("gpu", "gpus", "model", "expect", "names", "text")):
            values = v if isinstance(v, list) else [v]
            if any(name in _norm(x) or _norm(x) in name for x in values if isinstance(x, str)):
                return True
        mention = next((g for g in frame.gpu_mentions if g.name == rest), None)
        if mention and mention.memory_gb:  # a modded card is sized by its capacity ("48GB")
            return any(f"{mention.memory_gb:g}gb" in _norm(v) for v in _arg_values(results, ("gpu",)))
        return False
    if kind == "model":
        m = next((x for x in frame.model_mentions if x.text == rest), None)
        want = {_norm(m.catalog_id)} if m and m.catalog_id else set()
        if m and m.size_b:
            want.add(_norm(f"{m.size_b:g}b"))
        got = {_norm(v) for v in _arg_values(results, ("model", "query", "params"))}
        got |= {_norm(f"{v:g}b") for v in _arg_values(results, ("params_b",)) if isinstance(v, (int, float))}
        return bool(want & got) or any(_norm(rest) in g for g in got)
    if kind == "q" and rest == "concurrency" and "max_num_seqs_cap" in frame.mentions:
        # a --max-num-seqs cap is answered by the estimate's max_concurrency_fit (render_memory._seq_cap_line)
        if any(r.name == "estimate_memory" and r.result.get("max_concurrency_fit") for r in results):
            return True
    if (
        kind == "q"
        and rest == "gpu_count"
        and "asked_count" in frame.cues
        and any(r.name == "find_min_gpus" for r in results)
    ):
        return True  # 「要8卡才能跑吗」: the count asked about is set against the least count (render_memory)
    if kind == "q" and rest in ("context", "batch") and _arg_values(results, ("measured_tokens_per_s",)):
        return True  # "每步 16384 tokens × 1.8 it/s" became the measured speed the time is read at
    if kind == "q":
        values = _arg_values(results, _ARGS.get(rest, (rest,)))
        if rest == "params_b" and any(isinstance(v, str) and v for v in _arg_values(results, ("model",))):
            return True  # the model name carries its size
        if rest == "precision" and frame.precision == "int4" and any(r.args.get("mode") == "qlora" for r in results):
            return True  # QLoRA is the 4-bit base
        if rest == "nodes" and frame.nodes == 1:
            return bool(_arg_values(results, _ARGS["gpu_count"]))  # "一台 8 卡": the count carries it
        if rest in ("card_memory_gb",):
            mems = [q.value for q in frame.quantities if q.kind == rest]
            return (
                any(f"{m:g}" in str(v) for m in mems for v in values)
                or _card_named(frame, results)
                or any(m in _sized_cards(results) for m in mems)  # a card picked by its size (decode speed)
            )
        given = next((q.value for q in frame.quantities if q.kind == rest), None)
        if rest in _EXACT and given is not None:
            return any(_same(v, given, rest) for v in values)
        return bool(values)
    if kind == "engine":
        return _engine_used(rest, results)
    if kind == "unread":
        return False
    return True


def _engine_used(engine: str, results: list[ToolResult]) -> bool:
    """vLLM / SGLang named and the estimate ran with that engine's reservation (engine='vllm'); a local runtime
    (knowledge/engines.yaml local_runtimes: llama.cpp, Ollama …) named and an inference estimate ran without a
    reserve (engine='hf'), which is how those runtimes allocate."""
    from tools.data import load_yaml

    want = _norm(engine)
    # an estimate without an engine argument runs the default (hf: nothing pre-reserved)
    engines = {_norm(r.args.get("engine") or "hf") for r in results if r.name == "estimate_memory"}
    if want in engines:
        return True
    if want in ("deepspeed", "fsdp") and any(r.args.get("zero") or r.args.get("parallelism") for r in results):
        return True  # the ZeRO stage / FSDP sharding the estimate ran with is what DeepSpeed / FSDP do
    local = {_norm(k) for k in (load_yaml("engines.yaml") or {}).get("local_runtimes") or {}}
    inference = any(r.name == "estimate_memory" and r.args.get("mode") == "inference" for r in results)
    return want in local and inference and "hf" in engines


# Kinds whose value must reach a tool as given (not merely some value for the same argument).
_EXACT = {"gpu_count", "context", "batch", "concurrency", "tokens", "budget_cny", "deadline_hours", "nodes"}


def _same(v: Any, want: float, kind: str) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return abs(v - want) <= 0.01 * max(abs(want), 1)
    if isinstance(v, str):  # expect="8x A100", params="7B"
        return bool(re.search(rf"(?<![\d.]){want:g}(?![\d.])", v))
    if isinstance(v, list):  # gpus=[1, 8, 64]: the wall-clock rows the user's count is one of
        return any(_same(x, want, kind) for x in v)
    return False


def _sized_cards(results: list[ToolResult]) -> set[float]:
    """Memory sizes (GB) of the table cards the calls ran on: 「24G的卡」 answered on an RTX 3090 used the 24."""
    from tools.gpus import all_gpus

    ids = {str(r.args.get("gpu")) for r in results if r.name == "decode_speed" and r.args.get("gpu")}
    return {float(g.memory_gb) for g in all_gpus() if g.id in ids and g.memory_gb}


def _card_named(frame: Frame, results: list[ToolResult]) -> bool:
    """'A100 80G': the capacity is part of the card's name (the table row it resolved to)."""
    return any(g.gpu_id and g.memory_gb and not g.modded for g in frame.gpu_mentions) and bool(
        _arg_values(results, ("gpu", "gpus", "expect"))
    )


def unused(frame: Frame, results: list[ToolResult], intents: list[str] | None = None) -> list[Item]:
    """What the question said and no call used. Values given to the guide's query or a pasted log's
    parser are used whole (those tools read the user's words)."""
    if not results or (intents and intents[0] in _READS_ALL):
        return []
    return [it for it in items(frame) if not used(frame, it, results)]


def not_used_line(w: Writer, question: str, results: list[ToolResult], intents: list[str]) -> None:
    """「没用上：…（原因）」 for what the question said and no call used."""
    from assistant.offline.reading import read_one

    left = unused(read_one(question), results, intents)
    if not left:
        return
    by_why: dict[tuple[str, str], list[Item]] = {}
    for it in left:
        kind = it.key.partition(":")[0]
        sub = it.key.partition(":")[2]
        why = _WHY.get(kind) or _WHY.get(sub) or _DEFAULT_WHY
        by_why.setdefault(why, []).append(it)
    zh = "；".join("、".join(i.zh for i in its) + f"（{why[0]}）" for why, its in by_why.items())
    en = "; ".join(", ".join(i.en for i in its) + f" ({why[1]})" for why, its in by_why.items())
    w.parts["not_used"].append(w.t(f"没用上：{zh}", f"Not used: {en}"))
