"""Intent → tool calls: which tools answer this question, with which arguments.

`plan()` is the first round (from the question and earlier turns); `next_calls()` is the one
allowed second round (e.g. `find_min_gpus` and a LoRA/QLoRA estimate after a "does not fit").
Arguments are written against the tools' pydantic input models (read from the registry), so a
field the tool does not have is never sent.
"""

from __future__ import annotations

import re
from typing import Any

from assistant.offline.reading.followups import resolve
from assistant.offline.reading.slots import Slots
from assistant.offline.types import ToolCall, ToolResult
from tools.lang import has_cjk

# Intent names (also used by compose to order the answer).
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
CONVERT = "convert"  # "80GB 等于多少 GiB"
BUSBW = "busbw"  # "algbw 120 GB/s on 8 GPUs: what busbw?"
DECODE_SPEED = "decode_speed"  # "how many tokens/s can Llama-3-8B decode on a 4090"
REPORTED_MEMORY = "reported_memory"  # "my 4090 shows only 23GB in nvidia-smi, is it fake?"
IMPLIED_MFU = "implied_mfu"  # "1,720,320 A100 GPU-hours on 2T tokens: what MFU?"


def analyse(question: str, history: list[dict] | None = None) -> tuple[str, Slots, bool]:
    """(intent, slots, carried_from_history) for a question."""
    slots, carried = resolve(question, history)
    return choose_intent(slots), slots, carried


def choose_intent(s: Slots) -> str:
    cues = s.cues
    has_size = bool(s.model or s.params_b)
    if s.is_log:
        return DIAGNOSE
    if s.out_of_scope or not s.in_domain:
        return OUT_OF_SCOPE
    if s.invalid:
        return INVALID  # say what cannot be right instead of computing with it
    if "no_data" in cues:
        return NO_DATA  # electricity bills etc.: no tool has the data (a rental price would mislead)
    if s.reported_memory and s.gpus and not has_size:
        return REPORTED_MEMORY
    if s.convert and not has_size:
        return CONVERT
    if s.algbw_gbs and (s.gpu_count or 0) >= 1:
        return BUSBW
    if s.gpu_hours and s.tokens and has_size and s.gpus and ("mfu" in cues or "time" not in cues):
        return IMPLIED_MFU
    if (
        "decode_speed" in cues
        and has_size
        and not s.training
        and s.mode in (None, "inference")
        and not s.concurrency
        and "plan" not in cues
    ):
        return DECODE_SPEED
    if "delivery" in cues and not has_size:
        return DELIVERY
    if "diagnose" in cues and not has_size and not s.gpus:
        return ADVICE  # a symptom described in words (no log): the guide explains causes and checks
    if "allreduce" in cues and (has_size or s.gpus):
        return INTERCONNECT  # "how long does one all-reduce of 7B gradients take"
    if ("time" in cues or s.tokens) and has_size and ("time" in cues or "price" in cues or s.tokens):
        if not ("plan" in cues and (s.budget_cny or s.deadline_hours)):
            return TRAIN_TIME
    if (
        "plan" in cues
        and (has_size or s.budget_cny or s.deadline_hours)
        or (has_size and (s.budget_cny or s.deadline_hours))
    ):
        return PLAN
    if "price" in cues and s.gpus:
        return PRICE
    if "model_info" in cues and s.model and not s.gpus and not s.mode:
        return MODEL_INFO
    if "trainable" in cues and has_size:
        return MEMORY  # "how many trainable parameters does LoRA add": the estimate counts them
    if "max_fit" in cues and has_size:
        return MAX_FIT
    if "how_many" in cues and has_size:
        return MIN_GPUS
    if has_size and ("fit" in cues or s.mode or s.training or s.finetune or s.gpus):
        return MEMORY
    if s.gpus and (cues & {"compare", "specs"} or len(s.gpus) >= 2):
        return SPECS
    if "interconnect" in cues and not ("howto" in cues and not (s.gpus or s.gpu_count or s.nodes)):
        return INTERCONNECT  # "how do I set up NCCL across nodes" is a how-to: the guide answers it
    if "price" in cues:
        return PRICE if s.gpus else ADVICE
    if s.gpus and not (cues & {"howto"}):
        return SPECS
    if has_size and "howto" not in cues:
        return MEMORY
    return ADVICE


# A GPU to size against when the question names none (the seed's "标配" for 30B+ training).
DEFAULT_GPU = "A100 80GB"


# ---------------------------------------------------------------- plan ------------------------
def plan(question: str, history: list[dict] | None = None, language: str = "auto") -> list[ToolCall]:
    intent, slots, carried = analyse(question, history)
    return build_calls(intent, slots, question if not carried else restate(slots, question))


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
    return " ".join(words) + " " + question.strip()


def build_calls(intent: str, s: Slots, question: str) -> list[ToolCall]:
    calls: list[ToolCall] = []
    add = lambda name, **kw: calls.append(ToolCall(name, _fit_args(name, kw)))  # noqa: E731
    mem_kw = _memory_kwargs(s)
    if intent in (OUT_OF_SCOPE, NO_DATA, INVALID):
        return []
    if intent == CONVERT:
        value, src, dst = s.convert  # type: ignore[misc]
        add("convert_units", value=value, from_unit=src, to_unit=dst)
        return calls
    if intent == DECODE_SPEED:
        for gpu in (s.gpus or [DEFAULT_GPU])[:2]:
            add(
                "decode_speed",
                **model_args(s),
                gpu=_gpu_arg(s, gpu) if s.gpus else gpu,
                precision=s.precision if s.precision in ("bf16", "fp16", "fp8", "int8", "int4") else "bf16",
                context=s.context or 4096,
                gpus=s.gpu_count or 1,
            )
        return calls
    if intent == REPORTED_MEMORY:
        value, unit = s.reported_memory  # type: ignore[misc]
        add("check_reported_memory", gpu=_gpu_arg(s), seen_value=value, seen_unit=unit)
        return calls
    if intent == BUSBW:
        add("busbw_from_algbw", algbw_gbs=s.algbw_gbs, n_gpus=s.gpu_count, op=s.collective or "all_reduce")
        add("search_guide", query=_guide_query(question, s, BUSBW), k=2)
        return calls
    if intent == IMPLIED_MFU:
        add(
            "implied_mfu",
            **_train_model_args(s),
            tokens=s.tokens,
            gpu_hours=s.gpu_hours,
            gpu=_gpu_arg(s),
            precision=s.precision if s.precision in ("bf16", "fp16", "fp8", "tf32") else None,
        )
        add("search_guide", query=_guide_query(question, s, IMPLIED_MFU), k=2)
        return calls
    if intent == DIAGNOSE:
        # What was rented, from the user's own words ("合同写的是 8 卡 A100") → an acceptance check.
        expect = (f"{s.gpu_count}x {_gpu_arg(s)}" if s.gpu_count else _gpu_arg(s)) if s.gpus else None
        add("diagnose_logs", text=question, expect=expect)
        add("search_guide", query=_guide_query(question, s, DIAGNOSE), k=3)
    elif intent == DELIVERY:
        add("delivery_checklist", gpus=s.gpu_count, model=_gpu_arg(s))
        add("search_guide", query=_guide_query(question, s, DELIVERY), k=2)
    elif intent == PRICE:
        # Both quotes → the tool's break-even on them; a single quote is compared with the market instead
        # (passing it would replace the market ranges).
        both = bool(s.hourly_quote_cny and s.monthly_quote_cny)
        for gpu in s.gpus[:4]:
            add(
                "gpu_price",
                gpu=_gpu_arg(s, gpu),
                gpu_count=s.gpu_count,
                hourly_quote_cny=s.hourly_quote_cny if both else None,
                monthly_quote_cny=s.monthly_quote_cny if both else None,
                **_period_args(s),
            )
        add("search_guide", query=_guide_query(question, s, PRICE), k=2)
    elif intent == TRAIN_TIME:
        add(
            "estimate_training_time",
            **_train_model_args(s),
            tokens=s.tokens,
            gpu=_gpu_arg(s) or DEFAULT_GPU,
            n_gpus=s.gpu_count,
            nodes=s.nodes,
            mode=_train_mode(s),
            precision=s.precision,
            zero3=True if s.zero_stage == 3 else None,
        )
        add("search_guide", query=_guide_query(question, s, TRAIN_TIME), k=2)
    elif intent == PLAN:
        mode = plan_mode(s)
        add(
            "plan_configurations",
            **_train_model_args(s),
            mode=mode,
            tokens=s.tokens,
            budget=s.budget_cny,
            deadline=s.deadline_hours,
            precision=s.precision,
            max_gpus=s.gpu_count,
            gpus=[_gpu_arg(s, g) for g in s.gpus[:4]] or None,
            **(
                {"context": s.context, "concurrency": s.concurrency}
                if mode == "inference"
                else {"seq_len": s.context, "micro_batch": s.batch}
            ),
        )
        add("search_guide", query=_guide_query(question, s, PLAN), k=2)
    elif intent == MAX_FIT:
        add("find_max_fit", **{**mem_kw, "gpu": mem_kw.get("gpu") or DEFAULT_GPU}, solve_for=_solve_for(s, question))
        add("search_guide", query=_guide_query(question, s, MAX_FIT), k=2)
    elif intent == MIN_GPUS:
        kw = dict(mem_kw)
        kw.pop("gpus", None)
        kw["gpu"] = kw.get("gpu") or DEFAULT_GPU
        if kw.get("mode") == "inference" and not kw.get("precision") and _native_fp8(kw.get("model")):
            # DeepSeek-V3/R1 ship FP8 weights ("满血版" = the released checkpoint): size that first, bf16 beside it
            add("find_min_gpus", **{**kw, "precision": "fp8"})
        add("find_min_gpus", **kw)
        add("search_guide", query=_guide_query(question, s, MIN_GPUS), k=2)
    elif intent == MEMORY:
        cards = [_gpu_arg(s, g) for g in s.gpus[:3]] or [mem_kw.get("gpu")]  # "用A100还是4090": each card
        if s.gpu_alt_memory_gb and len(s.gpus) == 1:  # "A100 40G vs 80G": both sizes of the one card
            cards.append(f"{s.gpu} {s.gpu_alt_memory_gb}GB" + (f" {s.gpu_form}" if s.gpu_form else ""))
        for gpu in cards:
            kw = {**mem_kw, "gpu": gpu}
            if len(s.modes) > 1 and "inference" not in s.modes:  # "QLoRA 要多少？bf16 LoRA 呢？"
                for mode in s.modes[:3]:
                    add("estimate_memory", **{**kw, "mode": "full" if mode == "pretrain" else mode})
            elif s.mode is None and s.finetune:
                # 「能用4090微调7B吗」: say both — full fine-tune and LoRA.
                add("estimate_memory", **{**kw, "mode": "full"})
                add("estimate_memory", **{**kw, "mode": "lora"})
            else:
                add("estimate_memory", **kw)
        if "interconnect" in s.cues and (s.gpu_count or 0) > 1:  # "两张卡…PCIe 版够用吗": the link too
            topology = (
                "pcie"
                if re.search(r"pcie", question, re.I)
                else "nvlink"
                if re.search(r"nvlink|sxm", question, re.I)
                else None
            )
            # gradient-sync time only for full training on a named card (LoRA syncs only the adapters)
            sync = {"params_b": s.params_b} if s.params_b and s.gpus and mem_kw.get("mode") == "full" else {}
            add("interconnect_advice", gpu=_gpu_arg(s), n_gpus=s.gpu_count, topology=topology, **sync)
        add("search_guide", query=_guide_query(question, s, MEMORY), k=2)
    elif intent == SPECS:
        names = [_gpu_arg(s, g) for g in s.gpus[:4]]
        if len(s.gpus) == 1 and re.search(r"pcie", question, re.I) and re.search(r"sxm", question, re.I):
            names = [f"{s.gpus[0]} PCIe", f"{s.gpus[0]} SXM"]  # "A100 PCIe和SXM有什么区别"
        sizes = memory_variants(question)
        if len(s.gpus) == 1 and len(sizes) >= 2:  # "A100 40G 和 80G 选哪个": both variants, side by side
            names = [f"{s.gpus[0]} {size}GB" for size in sizes[:4]]
        if len(s.gpus) == 1 and "suitability" in s.cues and len(names) == 1:
            # "H20 适合训练吗": measured against the usual training card (H100; the A100 for an H100/H200)
            ref = "A100 80GB" if re.match(r"h(100|200|800)", s.gpus[0], re.I) else "H100"
            names = [names[0], ref]
        add("gpu_specs", gpus=names)
        if len(sizes) >= 2 and len(s.gpus) == 1:
            for name in names:
                add("gpu_price", gpu=name, gpu_count=s.gpu_count, **_period_args(s))
        if len(s.gpus) >= 2 and "compare" in s.cues:  # "哪个好" is also a price question
            for gpu in s.gpus[:4]:
                add("gpu_price", gpu=_gpu_arg(s, gpu), gpu_count=s.gpu_count, **_period_args(s))
        add("search_guide", query=_guide_query(question, s, SPECS), k=2)
    elif intent == INTERCONNECT:
        network = _network(question)
        nodes = s.nodes or (2 if re.search(r"多机|跨机|multi[\s-]*node|two nodes|两台|多台", question, re.I) else None)
        gpus = s.gpu_count or ((nodes or 1) * 8 if nodes and nodes > 1 else None)
        size = {"params_b": s.params_b} if s.params_b else {}
        both = re.search(r"pcie", question, re.I) and re.search(r"nvswitch|nvlink|sxm", question, re.I)
        if both and not (nodes and nodes > 1):
            # "on 8× A100 SXM with NVSwitch … and on a PCIe-only box": one call per topology
            for topo in ("nvswitch", "pcie"):  # an 8-GPU server unless a count was given
                add("interconnect_advice", gpu=_gpu_arg(s) or DEFAULT_GPU, n_gpus=gpus or 8, topology=topo, **size)
        elif nodes and nodes > 1 and not network:
            # "需要什么网络": compare the three usual answers side by side.
            for net in ("10G", "RoCE 100G", "IB HDR"):
                add(
                    "interconnect_advice", gpu=_gpu_arg(s) or DEFAULT_GPU, n_gpus=gpus, nodes=nodes, network=net, **size
                )
        else:
            add("interconnect_advice", gpu=_gpu_arg(s), n_gpus=gpus, nodes=nodes, network=network, **size)
        add("search_guide", query=_guide_query(question, s, INTERCONNECT), k=3)
    elif intent == MODEL_INFO:
        add("lookup_model", query=s.model)
        add("search_guide", query=_guide_query(question, s, MODEL_INFO), k=2)
    else:  # ADVICE
        add("search_guide", query=question.strip()[:300], k=3)
    return [c for c in calls if c.args is not None]


def memory_variants(question: str) -> list[int]:
    """'A100 40G 和 80G' → [40, 80]: two or more memory sizes named for one card."""
    sizes = [int(m) for m in re.findall(r"(?<![\d.])(\d{2,3})\s*(?:g|gb|gib)(?![a-z])", question, re.I)]
    return list(dict.fromkeys(sizes)) if len(set(sizes)) >= 2 else []


def _native_fp8(model: Any) -> bool:
    """Models whose official checkpoint is FP8 (DeepSeek-V3/R1 family)."""
    return bool(model) and bool(re.match(r"deepseek-(?:v3|r1)(?:$|-(?!distill))", str(model), re.I))


def _period_args(s: Slots) -> dict[str, float]:
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


def _memory_kwargs(s: Slots) -> dict[str, Any]:
    """Arguments shared by estimate_memory / find_min_gpus / find_max_fit (tools/memory.py)."""
    mode = s.mode or ("full" if s.training and not s.finetune else None) or ("inference" if not s.training else None)
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
        gpu=_gpu_arg(s) if s.gpus else (f"{s.vram_gb:g}GB" if s.vram_gb else None),
    )
    if inference:
        kw.update(context=s.context, concurrency=s.concurrency)
    else:
        kw.update(seq_len=s.context)
        if (s.gpu_count or 1) > 1 and s.zero_stage is None:
            kw["zero"] = 3  # several cards for one training job: shard with ZeRO-3/FSDP (said in the answer)
    if mode == "qlora":
        kw.pop("precision", None)
    return kw


def model_args(s: Slots) -> dict[str, Any]:
    """`model` when the catalog knows the name, else `params` from the size the user gave."""
    size = f"{s.params_b:g}B" if s.params_b else None
    if s.model and not re.fullmatch(r"[\d.]+[bm]", s.model):
        if _catalog_has(s.model) or size is None:
            return {"model": s.model}
        family = re.sub(r"-[\dx.]+[bm]$", "", s.model)  # "deepseek-r1-671b" → "deepseek-r1" (MoE in the catalog)
        if family != s.model and _catalog_has(family):
            return {"model": family}
    return {"params": size} if size else {}


def _catalog_has(name: str) -> bool:
    try:
        from tools.models import find_entry

        return find_entry(name) is not None
    except Exception:  # catalog not there yet / half-written: fall back to the size
        return False


def _solve_for(s: Slots, question: str) -> str:
    q = question.lower()
    inference = (s.mode or ("inference" if not s.training else "full")) == "inference"
    if re.search(r"并发|concurren|同时", q):
        return "concurrency" if inference else "batch"
    if re.search(r"batch|批", q):
        return "concurrency" if inference else "batch"
    if re.search(r"上下文|context|长度|序列|seq|多长|longest", q):
        return "context" if inference else "seq_len"
    return "context" if inference else "batch"


def _train_model_args(s: Slots) -> dict[str, Any]:
    """estimate_training_time / plan_configurations take `model` or `params_b` (a float)."""
    args = model_args(s)
    if "params" in args:
        return {"params_b": s.params_b}
    return args


def _network(question: str) -> str | None:
    """'10G以太网' → '10G', 'IB HDR' → 'IB HDR', '100G RoCE' → '100G RoCE' (only when a network is named)."""
    m = re.search(r"(\d+)\s*g(?:be|b|bps)?\s*(ib|roce|infiniband)?(?![a-z0-9])", question, re.I)
    if m and re.search(r"网|ethernet|network|ib|roce|infiniband|nic|\d\s*gbe\b", question, re.I):
        return f"{m.group(1)}G" + (f" {m.group(2).upper().replace('INFINIBAND', 'IB')}" if m.group(2) else "")
    m = re.search(r"(ib|infiniband)\s*(ndr|hdr|edr)|roce", question, re.I)
    if m:
        return m.group(0).upper().replace("INFINIBAND", "IB")
    return None


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


def _train_mode(s: Slots, default: str = "full") -> str:
    if s.mode and s.mode != "inference":
        return s.mode
    return default if not s.finetune else "lora" if default == "lora" else "full"


def _gpu_arg(s: Slots, gpu: str | None = None) -> str | None:
    """GPU name with the memory/form variant the user typed ("A100 80GB SXM")."""
    name = gpu or s.gpu
    if name is None:
        return None
    if name == s.gpu:
        if s.gpu_memory_gb:
            name += f" {s.gpu_memory_gb}GB"
        if s.gpu_form:
            name += f" {s.gpu_form}"
    return name


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


def _guide_query(question: str, s: Slots, intent: str) -> str:
    """The question itself plus topic words, so retrieval finds the section that backs the numbers."""
    zh, en = _GUIDE_TOPICS.get(intent, ("", ""))
    extra = []
    if intent in (MEMORY, MIN_GPUS) and s.mode in ("lora", "qlora"):
        extra.append("LoRA QLoRA")
    if intent in (MEMORY, MIN_GPUS, MAX_FIT) and s.mode == "inference":
        extra.append("推理 KV cache inference")
    topic = zh if has_cjk(question) else en
    q = question.strip()
    if intent == DIAGNOSE or s.is_log:
        # A pasted log: the user's own words (if any) plus the topics the log shows, not the raw table.
        from assistant.offline.reading.slots import user_words  # the user's framing, not lines inside the paste

        words = [ln.strip() for ln in user_words(q).splitlines() if has_cjk(ln) and len(ln) < 120][:2]
        topics = [t for rx, t in _LOG_TOPICS if rx.search(q)]
        zh_q = bool(words) or topic == zh
        q = " ".join(words + [t[0] if zh_q else t[1] for t in topics[:3]]) or q[:120]
        return q
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


# ---------------------------------------------------------------- second round -------------------
def next_calls(question: str, history: list[dict] | None, language: str, results: list[ToolResult]) -> list[ToolCall]:
    """At most one extra round: alternatives after "does not fit"."""
    done = {r.name for r in results}
    intent, s, _ = analyse(question, history)
    calls: list[ToolCall] = []
    if intent == ADVICE:
        return _within_best_document(results)
    if intent == TRAIN_TIME and s.gpus and (s.model or s.params_b) and "estimate_memory" not in done:
        # "8张4090训练13B要多久": the time is moot if the job does not fit the named cards
        mode = _train_mode(s)
        kw = dict(_memory_kwargs(s), mode="full" if mode == "pretrain" else mode)
        return [ToolCall("estimate_memory", _fit_args("estimate_memory", kw))]
    for r in results:
        if r.name != "estimate_memory" or r.error:
            continue
        total = r.result.get("total_gb")
        if _fits(r.result) is None and isinstance(total, (int, float)) and total > 80 and "find_min_gpus" not in done:
            # No card named and too big for any single 80 GB card: how many of the usual one?
            kw = {k: v for k, v in r.args.items() if k not in ("gpus", "zero")}
            calls.append(ToolCall("find_min_gpus", _fit_args("find_min_gpus", {**kw, "gpu": DEFAULT_GPU})))
            done.add("find_min_gpus")
            break
        if _fits(r.result) is False and r.result.get("borderline"):
            # A close call: the same job on the next memory sizes up (32 GB, 48 GB cards) shows the way out.
            cap = r.result.get("gpu_memory_gb") or 0
            for size in (32, 48):
                if size > cap and not any(str(x.args.get("gpu")) == f"{size}GB" for x in results):
                    calls.append(
                        ToolCall("estimate_memory", _fit_args("estimate_memory", {**r.args, "gpu": f"{size}GB"}))
                    )
        if _fits(r.result) is False:
            args = dict(r.args)
            if "find_min_gpus" not in done:
                kw = {k: v for k, v in args.items() if k not in ("gpus", "zero")}
                if s.gpu:
                    calls.append(ToolCall("find_min_gpus", _fit_args("find_min_gpus", kw)))
                done.add("find_min_gpus")
            mode = str(args.get("mode") or "")
            if s.mode == "pretrain" and mode == "full":
                # from scratch there is no base model for LoRA to adapt: the memory levers are the
                # optimizer (8-bit AdamW states) and sharding (find_min_gpus above)
                if args.get("optimizer") != "adamw_8bit" and not any(
                    x.name == "estimate_memory" and x.args.get("optimizer") == "adamw_8bit" for x in results
                ):
                    calls.append(
                        ToolCall("estimate_memory", _fit_args("estimate_memory", {**args, "optimizer": "adamw_8bit"}))
                    )
            elif mode in ("full", "pretrain") and not any(
                x.name == "estimate_memory" and str(x.args.get("mode")) in ("lora", "qlora") for x in results
            ):
                for alt in ("lora", "qlora"):
                    calls.append(ToolCall("estimate_memory", _fit_args("estimate_memory", {**args, "mode": alt})))
            elif mode == "lora" and not any(
                x.name == "estimate_memory" and str(x.args.get("mode")) == "qlora" for x in results
            ):
                calls.append(ToolCall("estimate_memory", _fit_args("estimate_memory", {**args, "mode": "qlora"})))
            elif mode == "inference" and args.get("precision") not in ("int8", "int4"):
                for alt in ("int8", "int4"):  # quantised weights are the usual way to serve on a smaller card
                    calls.append(ToolCall("estimate_memory", _fit_args("estimate_memory", {**args, "precision": alt})))
            break
    if intent == MEMORY and len(s.gpus) > 1:  # "H100 vs H200 for serving": quantised weights on every card
        for r in results:
            if (
                r.name == "estimate_memory"
                and not r.error
                and _fits(r.result) is False
                and r.args.get("mode") == "inference"
                and r.args.get("precision") not in ("int8", "int4")
                and not any(c.name == "estimate_memory" and c.args.get("gpu") == r.args.get("gpu") for c in calls)
            ):
                for alt in ("int8", "int4"):
                    calls.append(
                        ToolCall("estimate_memory", _fit_args("estimate_memory", {**r.args, "precision": alt}))
                    )
    for r in results:  # no feasible plan under the user's constraints → show why, with the memory estimate
        if (
            r.name == "plan_configurations"
            and not r.error
            and not any(o.get("feasible", True) for o in r.result.get("options") or [] if isinstance(o, dict))
        ):
            mem = {k: v for k, v in _memory_kwargs(s).items() if k != "gpu"}
            if s.gpus:
                mem["gpu"] = _gpu_arg(s)
            elif s.vram_gb:
                mem["gpu"] = f"{s.vram_gb:g}GB"
            mem["mode"] = r.result.get("mode") or mem.get("mode")
            calls.append(ToolCall("estimate_memory", _fit_args("estimate_memory", mem)))
    for r in results:  # "预算2千块 能微调吗": how many hours the budget rents of the best option (gpu_price checks it)
        if (
            r.name == "plan_configurations"
            and not r.error
            and s.budget_cny
            and not s.tokens
            and not s.deadline_hours
            and "gpu_price" not in done
        ):
            best = next(
                (o for o in r.result.get("options") or [] if isinstance(o, dict) and o.get("feasible", True)), None
            )
            rate = ((best or {}).get("cost_cny") or {}).get("mid")
            if best and isinstance(rate, (int, float)) and rate > 0 and "hour" in str(best.get("cost_basis") or ""):
                hours = int(s.budget_cny // rate)
                if hours >= 1:
                    calls.append(
                        ToolCall(
                            "gpu_price",
                            _fit_args(
                                "gpu_price",
                                {
                                    "gpu": best.get("gpu") or best.get("gpu_name"),
                                    "gpu_count": best.get("count"),
                                    "hours": hours,
                                },
                            ),
                        )
                    )
                    done.add("gpu_price")
    for r in results:  # "要几张卡" for training: the links of the count actually rented (4+ cards want NVLink)
        if (
            intent == MIN_GPUS
            and r.name == "find_min_gpus"
            and not r.error
            and "interconnect_advice" not in done
            and str(r.args.get("mode")) != "inference"
            and (r.result.get("rent_gpus") or 0) >= 4
        ):
            rent = int(r.result["rent_gpus"])
            nodes = -(-rent // 8)
            calls.append(
                ToolCall(
                    "interconnect_advice",
                    _fit_args(
                        "interconnect_advice",
                        {"gpu": r.args.get("gpu"), "n_gpus": rent, "nodes": nodes if nodes > 1 else None},
                    ),
                )
            )
            done.add("interconnect_advice")
    for r in results:  # "最长上下文" on one card that cannot even hold the weights → how many cards
        if r.name == "find_max_fit" and not r.error and not r.result.get("max_value") and "find_min_gpus" not in done:
            kw = {k: v for k, v in r.args.items() if k not in ("solve_for", "gpus")}
            calls.append(ToolCall("find_min_gpus", _fit_args("find_min_gpus", kw)))
            done.add("find_min_gpus")
    return [c for c in calls if c.args is not None]


def _within_best_document(results: list[ToolResult]) -> list[ToolCall]:
    """A how-to question: retrieval shows at most two sections per document, so look inside the best
    document once more — the section that answers may be its third (passages.rank picks)."""
    for r in results:
        if r.name != "search_guide" or r.error or r.args.get("doc_id"):
            continue
        from assistant.offline.writing.passages import rank

        hits = [h for h in r.result.get("hits") or [] if isinstance(h, dict) and not h.get("low_relevance")]
        best = rank(hits, str(r.args.get("query") or ""))[:1]
        if best and best[0].get("kind", "guide") == "guide" and best[0].get("doc_id"):
            args = _fit_args("search_guide", {"query": r.args.get("query"), "k": 6, "doc_id": best[0]["doc_id"]})
            if "doc_id" in args:
                return [ToolCall("search_guide", args)]
        break
    return []


def _fits(result: dict) -> bool | None:
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


def _input_fields(name: str) -> dict[str, Any] | None:
    """The tool's pydantic fields, or None when the tool is not registered (yet)."""
    try:
        from tools.registry import all_tools

        spec = all_tools().get(name)
    except Exception:  # a half-written tool module must not break planning
        return None
    return None if spec is None else spec.input_model.model_fields


def _fit_args(name: str, wanted: dict[str, Any]) -> dict[str, Any]:
    """Map my slot names onto the tool's fields; drop Nones and fields the tool lacks."""
    wanted = {k: v for k, v in wanted.items() if v is not None and v != []}
    fields = _input_fields(name)
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
