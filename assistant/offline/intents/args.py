"""Arguments for tool calls, built from the Frame and fitted to each tool's pydantic input model.

Shared by every intent: the memory job (`memory_kwargs`), the model (`model_args`: a catalog id, else
the size), the card as the user typed it (`gpu_arg`), the rental period, guide queries. `fit_args` maps
these names onto the tool's own field names and drops what the tool does not take, so a field the
tool lacks is never sent.
"""

from __future__ import annotations

import re
from typing import Any

from assistant.offline.reading.frame import Frame, GpuMention
from assistant.offline.reading.frame import Frame as Slots  # the name older helpers use
from assistant.offline.reading.shapes import OOM_WORDS
from assistant.offline.types import ToolCall
from tools.lang import has_cjk

# Intent names (also the keys of intents.INTENTS).
OUT_OF_SCOPE = "out_of_scope"
DIAGNOSE = "diagnose"
DELIVERY = "delivery"
PRICE = "price"
TRAIN_TIME = "train_time"
PLAN = "plan"
MAX_FIT = "max_fit"
MIN_GPUS = "min_gpus"
SPECS = "specs"
MEMORY = "memory"
INTERCONNECT = "interconnect"
ADVICE = "advice"
MODEL_INFO = "model_info"
NO_DATA = "no_data"
INVALID = "invalid"
CONVERT = "convert"
BUSBW = "busbw"
DECODE_SPEED = "decode_speed"
REPORTED_MEMORY = "reported_memory"
IMPLIED_MFU = "implied_mfu"
DECLINE = "decline"

# A GPU to size against when the question names none (the seed's "标配" for 30B+ training).
DEFAULT_GPU = "A100 80GB"


def restate(s: Slots, question: str) -> str:
    """A follow-up ("那A100呢？") spelled out from its merged slots, for retrieval and log text."""
    zh = has_cjk(question)
    words = []
    if s.gpu_count:
        words.append(f"{s.gpu_count}卡" if zh else f"{s.gpu_count}x")
    words += s.gpus
    if s.model or s.params_b:
        words.append(s.model or f"{s.params_b:g}B")
    modes = {
        "full": ("全量训练", "full fine-tuning"),
        "lora": ("LoRA 微调", "LoRA"),
        "qlora": ("QLoRA 微调", "QLoRA"),
        "inference": ("推理", "inference"),
        "pretrain": ("预训练", "pre-training"),
    }
    if s.mode:
        words.append(modes[s.mode][0 if zh else 1])
    # the engine named earlier ("ktransformers", "vLLM") stays part of the question the follow-up changes
    words += [e for e in s.engines if e.lower() not in question.lower()]
    return " ".join(words) + " " + question.strip()


def shipped_precision(model: Any) -> str | None:
    """The precision the catalog says the official weights ship in (DeepSeek-R1: fp8, Grok-1: int8), else None."""
    if not model:
        return None
    from tools.models import find_entry

    try:
        entry = find_entry(str(model))
    except Exception:  # a half-written catalog row: no claim about its precision
        return None
    return str(entry.shipped_precision) if entry is not None and entry.shipped_precision else None


def native_fp8(model: Any) -> bool:
    """Models whose official checkpoint is FP8 (DeepSeek-V3/R1, Kimi-K2)."""
    return shipped_precision(model) == "fp8"


def period_args(s: Slots) -> dict[str, float]:
    """The rental period in the unit the user said it: hours / days / months (a week = 7 days,
    a year = 12 months, as tools/quantities.py counts them)."""
    if not s.period_unit or not s.period_count:
        return {}
    n = s.period_count
    return {
        "hour": {"hours": n},
        "day": {"days": n},
        "week": {"days": 7 * n},
        "month": {"months": n},
        "year": {"months": 12 * n},
    }[s.period_unit]


def memory_kwargs(s: Slots) -> dict[str, Any]:
    """Arguments shared by estimate_memory / find_min_gpus / find_max_fit (tools/memory.py)."""
    mode = s.mode or ("full" if s.training and not s.finetune else None) or ("inference" if not s.training else None)
    if mode == "inference" and trains_by_framework(s) and not _SERVING_WORDS.search(s.text or ""):
        mode = "full"  # 「run_gemini.sh 跑 opt-66b」: Colossal-AI Gemini / ZeRO / FSDP only train
    if mode == "pretrain":
        mode = "full"
    inference = mode == "inference"
    kw: dict[str, Any] = dict(
        model_args(s),
        mode=mode,
        precision=s.precision,
        optimizer=s.optimizer,
        gpus=s.gpu_count,
        zero=s.zero_stage,
        batch=s.batch,
        checkpointing=s.checkpointing,
        offload=s.offload,
        lora_rank=s.lora_rank,
        lora_targets=s.lora_targets,
        gpu=gpu_arg(s) if s.gpus else (f"{s.vram_gb:g}GB" if s.vram_gb else None),
    )
    if inference:
        capped = "max_num_seqs_cap" in s.mentions and not s.users and "concurrency_word" not in s.mentions
        # a --max-num-seqs cap alone: size one sequence of max_model_len (vLLM's start-up check); the estimate's
        # max_concurrency_fit then says how many run at once, below the cap
        kw.update(context=s.context, concurrency=None if capped else s.concurrency)
        if s.tp_size and s.gpu_count and (s.is_log or _OOM_SEEN.search(s.text or "")):
            # 「8 张 T4，--tp 1，报 OOM」: the failing copy of the model spans the tensor-parallel cards, not all of them
            kw["gpus"] = s.tp_size
            if s.gpu_count and s.gpu_count > s.tp_size:
                kw["gpus_owned"] = s.gpu_count
        if s.weight_quant:  # 「2-bit」「Q3_K_M」「Q5」: that GGUF's bits per weight (knowledge/cpus.yaml), not int4's
            kw["gguf_quant"] = s.weight_quant
        if s.gpu_memory_utilization:  # "--gpu-memory-utilization 0.5": the engine may use only that share
            kw["gpu_memory_utilization"] = s.gpu_memory_utilization
    else:
        kw.update(seq_len=s.context)
        if (s.gpu_count or 1) > 1 and s.zero_stage is None:
            kw["zero"] = 3  # several cards for one training job: shard with ZeRO-3/FSDP (said in the answer)
            if _ran_unsharded(s):
                # "3 张 V100 LoRA 还是 OOM": nothing says ZeRO/FSDP, so the run was the launchers' default data
                # parallel (a full copy of the model on every card); size that, and ZeRO-3 comes as the change
                kw["zero"] = 0
    if mode == "qlora" or (mode != "inference" and "precision_from_stated_size" in s.mentions):
        # a precision guessed from a size the user quoted ("加到80gb") is about weights on disk, not how a
        # training job holds them: training keeps its 16-bit default
        kw.pop("precision", None)
    return kw


_OOM_SEEN = re.compile(OOM_WORDS, re.I)  # 「总是会报超过显存的问题」, "insufficient memory": an OOM in other words
# device_map = None (the Qwen / PEFT scripts under torchrun) loads a whole copy per process: not sharding
_SHARDED = re.compile(
    r"zero|deepspeed|fsdp|gemini|colossal|megatron|device_map(?!\s*[=:]\s*['\"]?(?:none|null)\b)|accelerate config",
    re.I,
)


# Frameworks and settings that only exist for training (sharded optimizer states): naming one makes a job
# without a mode word training. DeepSpeed alone is not enough (DeepSpeed-Inference / MII serve models).
_TRAINING_ONLY = re.compile(
    r"run_gemini|colossal[-\s]?ai|\bgemini\s*(?:plugin|策略)|zero[-_\s]?(?:stage\s*)?[123]\b|\bzero\s*stage|\bfsdp\b|"
    r"ds_z[123]|ds_config_zero",
    re.I,
)


_SERVING_WORDS = re.compile(
    r"推理|部署|serv(?:e|ing)|inference|vllm|sglang|ollama|deepspeed[-_\s]?(?:inference|mii)", re.I
)


def trains_by_framework(s: Slots) -> bool:
    """The question names a training-only sharding setup (Colossal-AI Gemini, ZeRO-1/2/3, FSDP)."""
    return bool(_TRAINING_ONLY.search(s.text or ""))


def names_sharding(s: Slots) -> bool:
    """The question says how training is sharded (ZeRO/DeepSpeed/FSDP/Gemini/Megatron/device_map)."""
    return bool(_SHARDED.search(s.text or "")) or s.zero_stage is not None


_EXPECTS_FIT = re.compile(
    r"理论上|按理|按道理|应该(?:是)?(?:够|可以|能|带得动|带的动|跑得)|should\s+(?:be\s+able\s+to|fit|work|be\s+enough)|"
    r"in\s+theory|theoretically",
    re.I,
)


def expects_fit(s: Slots) -> bool:
    """The user believes the job should fit (「理论上应该带的动吧」, "should be enough"): the answer says whether
    it can, and how, before what went wrong."""
    return bool(_EXPECTS_FIT.search(s.text or ""))


def reports_oom(s: Slots) -> bool:
    """The user says they already hit an out-of-memory error (「全量会OOM」, "got OOM", 「显存不够」)."""
    return bool(_OOM_SEEN.search(s.text or ""))


def _ran_unsharded(s: Slots) -> bool:
    """An OOM the user already hit on several cards with no ZeRO/FSDP/DeepSpeed named: plain data parallel."""
    if "how_many" in s.cues:  # "OOM on 8 cards, how many do I need": the count assumes sharding
        return False
    # a pasted PyTorch OOM traceback says nothing of sharding; another log (a launcher's, DeepSpeed's) might
    other_log = s.is_log and not set(s.log_kinds) <= {"torch_errors"}
    return reports_oom(s) and not _SHARDED.search(s.text or "") and not other_log


def model_args(s: Slots) -> dict[str, Any]:
    """`model` when the catalog knows the name, else `params` from the size the user gave."""
    size = f"{s.params_b:g}B" if s.params_b else None
    if s.model and not re.fullmatch(r"[\d.]+[bm]", s.model):
        if catalog_has(s.model) or size is None:
            return {"model": s.model}
        family = re.sub(r"-[\dx.]+[bm]$", "", s.model)  # "deepseek-r1-671b" → "deepseek-r1" (MoE in the catalog)
        if family != s.model and catalog_has(family):
            return {"model": family}
    return {"params": size} if size else {}


def catalog_has(name: str) -> bool:
    try:
        from tools.models import find_entry

        return find_entry(name) is not None
    except Exception:  # catalog not there yet / half-written: fall back to the size
        return False


def solve_for(s: Slots) -> str:
    """What a "largest that fits" question solves for: concurrency, batch, context or sequence length."""
    inference = (s.mode or ("inference" if not s.training else "full")) == "inference"
    if "concurrency_word" in s.mentions or "batch_word" in s.mentions:
        return "concurrency" if inference else "batch"
    if "context_word" in s.mentions:
        return "context" if inference else "seq_len"
    return "context" if inference else "batch"


def train_model_args(s: Slots) -> dict[str, Any]:
    """estimate_training_time / plan_configurations take `model` or `params_b` (a float)."""
    args = model_args(s)
    if "params" in args:
        return {"params_b": s.params_b}
    return args


def plan_mode(s: Slots) -> str:
    """A plan's job: what was said; "微调" alone → LoRA (what a budget fine-tune usually is, and the
    answer says so); "训练"/pre-training → full; nothing about training → LoRA as well."""
    if s.mode == "pretrain":
        return "full"
    if s.mode:
        return s.mode
    if s.finetune:
        return "lora"
    return "full" if s.training else "lora"


def train_mode(s: Slots, default: str = "full") -> str:
    if s.mode and s.mode != "inference":
        return s.mode
    return default if not s.finetune else "lora" if default == "lora" else "full"


def gpu_arg(s: Slots, gpu: str | None = None) -> str | None:
    """GPU name with the memory/form variant the user typed ("A100 80GB SXM"). A card whose stated
    capacity is not in the table (a modded 48 GB 4090, a 22 GB 2080 Ti) is sized by that capacity."""
    name = gpu or s.gpu
    if name is None:
        return None
    modded = next((g for g in s.gpu_mentions if g.name == name and g.modded and g.memory_gb), None)
    if modded is not None and understated_gb(modded) is None:
        return f"{modded.memory_gb:g}GB"
    if modded is not None:
        return name  # "8 L40 (8*40G)": memory mods only add capacity; the card has its datasheet memory
    sibling = _sibling_row(s, name)
    if sibling:
        return sibling  # "RTX 2080, 11264MiB" is the 2080 Ti row; "910B 32GB" the 910B4 row (reading/vocab.py)
    if name == s.gpu:
        if s.gpu_memory_gb:
            name += f" {s.gpu_memory_gb}GB"
        if s.gpu_form:
            name += f" {s.gpu_form}"
        return name
    # a second card keeps the size the user gave it too: 「24G的A100或四张16G的V100」 → "V100 16GB"
    other = next((g for g in s.gpu_mentions if g.name == name), None)
    if other is not None and other.memory_gb:
        name += f" {other.memory_gb:g}GB"
    if other is not None and other.form:
        name += f" {other.form}"
    return name


def _sibling_row(s: Slots, name: str) -> str | None:
    """The table row the stated memory picked from a sibling family of the named card, as its id."""
    from tools.errors import ToolInputError
    from tools.gpus import resolve_gpu

    m = next((g for g in s.gpu_mentions if g.name == name and g.gpu_id and not g.modded), None)
    if m is None or m.gpu_id is None:
        return None
    try:
        named, row = resolve_gpu(name), resolve_gpu(m.gpu_id)
    except ToolInputError:
        return None
    if m.memory_gb:
        try:  # "RTX 5090 24GB" resolves by name and size (to the 5090 D V2, with its premise note): keep the name
            resolve_gpu(f"{name} {m.memory_gb:g}GB")
            return None
        except ToolInputError:
            pass
    return row.id if named.family != row.family else None


def understated_gb(g: GpuMention) -> float | None:
    """The datasheet memory of a card the user gave LESS memory than any variant has ("L40 40G": an L40 has
    48 GB). Memory mods only ever add capacity (2080 Ti 22 GB, 4090 48 GB), so a smaller figure is a slip or
    a rounding, not a different card: size the card as the table has it and say so. None otherwise."""
    if not (g.modded and g.gpu_id and g.memory_gb):
        return None
    from tools.gpus import all_gpus, resolve_gpu

    try:
        family = resolve_gpu(g.gpu_id).family
    except Exception:  # a row that no longer resolves: keep the user's figure  # noqa: BLE001
        return None
    sizes = [x.memory_gb for x in all_gpus() if x.family == family]
    if not sizes or g.memory_gb >= min(sizes) - 1:
        return None
    return float(min(sizes))


def card_at_size(s: Slots, gb: float | int) -> str:
    """The one card named, at a memory size (「A100 40G 跟 80G」 → 'A100 80GB'), with its form when said: the name both
    the per-size memory estimates and the card choice pass on."""
    return f"{s.gpu} {gb}GB" + (f" {s.gpu_form}" if s.gpu_form else "")


def card_name(s: Slots, gpu: str | None = None) -> str | None:
    """The card for specs and prices: a modded card is priced and specced as its table row."""
    name = gpu or s.gpu
    modded = next((g for g in s.gpu_mentions if g.name == name and g.modded), None)
    if modded is not None:
        return name if modded.gpu_id else None
    return gpu_arg(s, gpu)


def usage_hours_per_month(s: Slots) -> float | None:
    """'一周只用三天，每天8小时' → 8 × 3 × 30/7 ≈ 103 hours a month (a month = 30 days, as prices count)."""
    if not (s.hours_per_day or s.days_per_week):
        return None
    return round((s.hours_per_day or 24) * (s.days_per_week or 7) * 30 / 7)


_GUIDE_TOPICS = {
    DIAGNOSE: ("诊断 日志", "diagnose log"),
    DELIVERY: ("交付验收 nvidia-smi nccl-tests", "delivery acceptance checks"),
    PRICE: ("租金", "rental price"),
    TRAIN_TIME: ("训练时间 成本 6ND MFU", "training time cost 6ND MFU"),
    PLAN: ("怎么选配置 显存 代际 互联 价格", "choosing a configuration"),
    MAX_FIT: ("上下文 激活 KV cache", "context activations KV cache"),
    MIN_GPUS: ("ZeRO-3 FSDP 多卡 显存", "ZeRO-3 FSDP multi-GPU memory"),
    MEMORY: ("显存 估算 全量 LoRA QLoRA", "training memory full LoRA QLoRA"),
    SPECS: ("A100 H100 4090 对比", "A100 H100 4090 comparison"),
    INTERCONNECT: ("NVLink PCIe 多卡通信 网络", "NVLink PCIe interconnect network"),
    MODEL_INFO: ("模型 参数量 KV cache", "model parameters KV cache"),
    BUSBW: ("all_reduce_perf busbw 期望值", "all_reduce_perf busbw expected values"),
    IMPLIED_MFU: ("MFU 训练时间 6ND", "MFU training time 6ND"),
}


def guide_query(s: Frame, intent: str) -> str:
    """The user's words plus topic words, so retrieval finds the section that backs the numbers."""
    zh, en = _GUIDE_TOPICS.get(intent, ("", ""))
    extra = []
    if intent in (MEMORY, MIN_GPUS) and s.mode in ("lora", "qlora"):
        extra.append("LoRA QLoRA")
    if intent in (MEMORY, MIN_GPUS, MAX_FIT) and s.mode == "inference":
        extra.append("推理 KV cache inference")
    q = s.text.strip()
    topic = zh if has_cjk(q) else en
    from assistant.offline.intents.stack import FIT_INTENTS, with_card_names

    if intent not in FIT_INTENTS:  # 「MLU370-X8 用什么框架」: the table's name (Cambricon …) finds the vendor's section
        q = with_card_names(s, q)
    if intent == DIAGNOSE or s.is_log:
        # A pasted log: the user's own words (if any) plus the topics the log shows, not the raw table.
        paste = s.paste or q
        words = [ln.strip() for ln in q.splitlines() if has_cjk(ln) and len(ln) < 120][:2]
        topics = [t for rx, t in _LOG_TOPICS if rx.search(paste)]
        zh_q = bool(words) or topic == zh
        return " ".join(words + [t[0] if zh_q else t[1] for t in topics[:3]]) or paste[:120]
    return " ".join([q, topic, *extra]).strip()


# What a pasted log is about → words the guide uses for it (zh, en).
_LOG_TOPICS = [
    (re.compile(p, re.I), t)
    for p, t in (
        (
            r"out of memory|outofmemoryerror|tried to allocate",
            ("CUDA OOM 显存不足 怎么办", "CUDA out of memory what to do"),
        ),
        (
            r"xid\D{0,20}79|fallen off the bus|fell off the bus",
            ("掉卡 Xid 79 GPU 从总线掉线", "GPU fell off the bus Xid 79"),
        ),
        (r"\bxid\b", ("Xid 错误 含义", "Xid error meaning")),
        (
            r"watchdog caught|ncclsystemerror|ncclinternalerror|nccl.*timeout",
            ("NCCL 超时 watchdog", "NCCL timeout watchdog"),
        ),
        (
            r"busbw|all_reduce_perf|avg bus bandwidth",
            ("all_reduce_perf busbw 期望值", "all_reduce_perf busbw expected"),
        ),
        (r"%util|iowait|r_await", ("存储 I/O 瓶颈 GPU 利用率低", "storage I/O bottleneck low GPU utilisation")),
        (
            r"nvidia-smi|driver version|cuda version",
            ("交付验收 nvidia-smi 驱动 CUDA 版本", "delivery checks nvidia-smi driver CUDA"),
        ),
        (r"ecc errors?|uncorrectable|remapp|double bit", ("ECC 错误", "ECC errors")),
        (r"throttl|hw slowdown", ("降频 温度", "throttling temperature")),
    )
]


def fits(result: dict) -> bool | None:
    for key in ("fits", "fits_on_gpu", "fit"):
        if isinstance(result.get(key), bool):
            return result[key]
    return None


# ---------------------------------------------------------------- argument fitting --------------
# My slot name → the field names a tool might use for it, in order of preference.
_ALIASES: dict[str, tuple[str, ...]] = {
    "model": ("model", "model_name", "name"),
    "params_b": ("params_b", "params", "param_count", "parameters", "params_billion", "size"),
    "gpu": ("gpu", "gpu_name", "gpu_type", "card", "name"),
    "gpus": ("gpus", "names", "gpu_names", "gpu"),
    "gpu_count": ("gpu_count", "num_gpus", "n_gpus", "count", "gpus_count", "cards"),
    "n_gpus": ("n_gpus", "gpu_count", "num_gpus"),
    "mode": ("mode", "method", "training_mode", "task", "workload", "kind"),
    "precision": ("precision", "dtype", "weight_precision", "quantization"),
    "optimizer": ("optimizer", "optim"),
    "zero_stage": ("zero_stage", "zero", "sharding"),
    "context": ("context", "seq_len", "sequence_length", "context_length", "seq_length", "max_seq_len"),
    "batch": ("batch", "micro_batch", "batch_size", "micro_batch_size"),
    "concurrency": ("concurrency", "concurrent_requests", "batch"),
    "tokens": ("tokens", "train_tokens", "training_tokens", "num_tokens", "dataset_tokens"),
    "budget": ("budget", "budget_cny"),
    "deadline": ("deadline", "deadline_hours"),
    "hours": ("hours", "duration_hours"),
    "days": ("days",),
    "months": ("months",),
    "text": ("text", "log", "logs", "content", "paste"),
    "query": ("query", "question", "q"),
    "k": ("k", "top_k", "limit", "n"),
    "nodes": ("nodes", "num_nodes", "node_count"),
}


def input_fields(name: str) -> dict[str, Any] | None:
    """The tool's pydantic fields, or None when the tool is not registered (yet)."""
    try:
        from tools.registry import all_tools

        spec = all_tools().get(name)
    except Exception:  # a half-written tool module must not break planning
        return None
    return None if spec is None else spec.input_model.model_fields


def fit_args(name: str, wanted: dict[str, Any]) -> dict[str, Any]:
    """Map my slot names onto the tool's fields; drop Nones and fields the tool lacks."""
    wanted = {k: v for k, v in wanted.items() if v is not None and v != []}
    fields = input_fields(name)
    if fields is None:
        return wanted
    out: dict[str, Any] = {}
    for key, value in wanted.items():
        for candidate in _ALIASES.get(key, (key,)):
            if candidate in fields and candidate not in out:
                coerced = _coerce(fields[candidate], value)
                if coerced is not _REJECT:
                    out[candidate] = coerced
                break
    return out


_REJECT = object()


def _allowed_values(ann: Any) -> list[Any]:
    import typing

    allowed: list[Any] = []
    if typing.get_origin(ann) is typing.Literal:
        return list(typing.get_args(ann))
    for arg in typing.get_args(ann):
        if typing.get_origin(arg) is typing.Literal:
            allowed += list(typing.get_args(arg))
    return allowed


_SYNONYMS = {
    "full": ("full", "full_finetune", "train"),
    "pretrain": ("pretrain", "full"),
    "inference": ("inference", "serving", "serve"),
    "adamw": ("adamw", "adam"),
}


def _coerce(field: Any, value: Any) -> Any:
    """Fit a value to a Literal field ("pretrain" → "full" where the tool has no pretrain);
    a value the field cannot take is dropped (the tool's default applies) rather than sent."""
    allowed = _allowed_values(field.annotation)
    if not allowed or value in allowed:
        return value
    for cand in _SYNONYMS.get(value, ()):
        if cand in allowed:
            return cand
    return _REJECT


def call(intent: str, name: str, **wanted: Any) -> ToolCall:
    """A tool call tagged with the intent that asked for it (the writer groups results by it)."""
    return ToolCall(name, fit_args(name, wanted), id=new_call_id(intent))


def new_call_id(intent: str) -> str:
    from assistant.offline.types import new_call_id as _new

    return _new().replace("call_offline_", f"call_offline_{intent}_")


def intent_of(call_id: str) -> str | None:
    """The intent a call id was tagged with ('call_offline_memory_12' → 'memory')."""
    m = re.match(r"call_offline_([a-z_]+?)_\d+$", call_id or "")
    return m.group(1) if m else None
