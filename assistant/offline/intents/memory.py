"""Memory: does the job fit (estimate_memory), the fewest cards (find_min_gpus), the longest context /
largest batch (find_max_fit). Follow-ups after "does not fit": how many cards, LoRA/QLoRA, quantised
weights, the next memory size up for a close call; the links of a 4+ card training rental."""

from __future__ import annotations

import re
from typing import Any

from assistant.offline.intents import args as A
from assistant.offline.intents import trainer_modes
from assistant.offline.intents.args import MAX_FIT, MEMORY, MIN_GPUS
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall, ToolResult

NAME = MEMORY


def applies_trainable(f: Frame) -> bool:
    return "trainable" in f.cues and has_size(f)  # "how many trainable parameters does LoRA add"


def applies_max_fit(f: Frame) -> bool:
    return "max_fit" in f.cues and has_size(f)


def applies_min_gpus(f: Frame) -> bool:
    return "how_many" in f.cues and has_size(f)


def applies_min_gpus_training(f: Frame) -> bool:
    """ "How many A100 40GB to tune 13B (full parameter)": a card count for a training job is find_min_gpus,
    ahead of the rental plan the word "requirements" would start — unless money or a deadline is asked."""
    if not applies_min_gpus(f) or f.budget_cny or f.deadline_hours or f.cues & {"price", "time"}:
        return False
    return f.mode in ("full", "lora", "qlora", "pretrain") or bool(trainer_modes.likely_full(f))


def applies_pipeline(f: Frame) -> bool:
    """FLUX / SDXL / Wan / Whisper named (knowledge/pipelines.yaml): sized by the weights of their networks."""
    return bool(f.pipeline) and not f.decline and not _price_only(f)


def _price_only(f: Frame) -> bool:
    """「租4090跑SD一个月多少钱」: the pipeline names the job, the question is the rent (a part of its own
    when memory is asked too: 「…多少钱，显存够吗」 gets both, in order)."""
    return "price" in f.cues and not f.cues & {"fit", "requirement", "max_fit", "how_many"}


def applies_pipeline_first(f: Frame) -> bool:
    """Ahead of the serving/plan/cause rules, which size decoder LLMs (KV cache, tokens): a pipeline named with a
    question that is not a cause question, or an OOM report (the weights and the offload settings are the answer).
    Two cards named in a cause question stay a spec comparison (「4090 慢，A6000 会快点吗」)."""
    from assistant.offline.intents import ops

    if not applies_pipeline(f) or len(f.gpus) >= 2:
        return False
    return "oom_report" in f.mentions or not ops.applies_cause(f)


def pipeline_calls(f: Frame) -> list[ToolCall]:
    """One estimate_memory per card and job (inference, or full fine-tune and LoRA when training is said)."""
    if f.mode in ("full", "pretrain", "lora", "qlora", "inference"):
        modes = ["full" if f.mode == "pretrain" else f.mode]
    else:
        modes = ["full", "lora"] if (f.training or f.finetune or f.method) else ["inference"]
    if modes == ["inference"] and "training_word" in f.mentions and "trained_model" not in f.mentions:
        # 「推理和训练分别要多少」: serving first, then the training modes said (full FT and LoRA when none was)
        said = [m for m in f.modes if m in ("full", "lora", "qlora")]
        modes = ["inference", *(said or ["full", "lora"])]
    cards: list[str | None] = [A.gpu_arg(f, g) for g in f.gpus[:2]] or [f"{f.vram_gb:g}GB" if f.vram_gb else None]
    if cards == [None] and modes != ["inference"]:
        cards = [A.DEFAULT_GPU]  # training with no card named: sized on the usual rental card, said in the answer
    precision = f.precision if f.precision in ("fp32", "fp16", "fp8", "int8", "int4") else None
    out = []
    names: list[str | None] = list(f.gpus[:2]) or [None]
    if len(names) == 2 and _is_own(f, names[1]) and not _is_own(f, names[0]):
        names, cards = names[::-1], cards[::-1]  # "the authors used 8 A100 … my 4090?": the user's card leads
    for name, gpu in zip(names, cards, strict=False):
        for mode in modes:
            kw = {"model": f.pipeline, "mode": mode, "gpu": gpu, "gpus": _count_of(f, name), "precision": precision}
            out.append(A.call(NAME, "estimate_memory", **{k: v for k, v in kw.items() if v is not None}))
    return out


_OWN_RE = re.compile(r"(?:\bmy|\bour|我的|我们的|我这|自己的)\s*(?:\w+\s+){0,2}$", re.I)


def _is_own(f: Frame, name: str | None) -> bool:
    """The card is the user's own ("my single 4090", 「我的3090」), not a reference run's."""
    g = next((g for g in f.gpu_mentions if g.name == name), None)
    at = (f.text or "").lower().find(g.text.lower()) if g else -1
    return at > 0 and bool(_OWN_RE.search((f.text or "")[max(0, at - 20) : at]))


def _count_of(f: Frame, name: str | None) -> int:
    """The count said with this card: 「我的 3090」 beside "the authors' 4 × A800" is one 3090, not four."""
    counts = {g.name: g.count for g in f.gpu_mentions}
    if name is None or not any(counts.values()):
        return f.gpu_count or 1
    return counts.get(name) or 1


def applies(f: Frame) -> bool:
    if applies_pipeline(f):
        return True
    return has_size(f) and ("fit" in f.cues or bool(f.mode) or f.training or f.finetune or bool(f.gpus))


# What makes a requirements question something else: money, time, a card count, a load to serve.
_NOT_REQUIREMENT_CUES = {"price", "time", "how_many", "max_fit", "decode_speed", "billing"}


def applies_requirement(f: Frame) -> bool:
    """「部署 Orion-14B 需要什么配置、多大显存」 / "system requirements of X" / "can I run X on 24gb": a sized
    model and a question about what it needs. The answer is its memory (and the verdict on the card named),
    not a ranked rental plan — the plan words that come with it ("什么配置", "suggest") do not change what
    was asked. Money, time, card counts, users or a deadline keep their own intents."""
    if not has_size(f) or "requirement" not in f.cues or f.is_log:
        return False
    if f.cues & _NOT_REQUIREMENT_CUES or f.budget_cny or f.deadline_hours or f.users or f.concurrency:
        return False
    return not (f.load.concurrency or f.load.requests_per_s or f.load.per_day)


def applies_fallback(f: Frame) -> bool:
    return has_size(f) and "howto" not in f.cues


# "采用transformers推理", "with HF transformers": the library itself, not ktransformers / a serving engine
_HF_TRANSFORMERS_RE = re.compile(r"(?<![a-z-])(?:hf\s+|hugging\s*face\s+)?transformers(?![a-z])", re.I)
_SERVING_ENGINES = {
    "vLLM",
    "SGLang",
    "Ollama",
    "llama.cpp",
    "LMDeploy",
    "TGI",
    "TensorRT-LLM",
    "ExLlamaV2",
    "Xinference",
    "FastChat",
}


def transformers_default_fp32(f: Frame) -> bool:
    """Serving with plain transformers and no dtype said, for a model whose own model-card snippet passes no
    torch_dtype (catalog `example_dtype: fp32`, e.g. Qwen3-Embedding): 4.x from_pretrained then loads fp32
    (transformers docs, PreTrainedModel.from_pretrained torch_dtype) — twice the bf16 memory. A model whose card
    loads it with torch_dtype=torch.bfloat16 (GLM-4V-9B, most chat models) is what a user following the README
    gets, so it stays in its checkpoint dtype; fp32 is assumed otherwise only when the user says it or pastes
    a from_pretrained call without a dtype (memory_kwargs)."""
    if f.precision or "dtype_set" in f.mentions or set(f.engines) & _SERVING_ENGINES:
        return False
    if f.mode not in (None, "inference") or f.training or f.finetune:
        return False
    if not (_HF_TRANSFORMERS_RE.search(f.text) and "ktransformers" not in f.text.lower()):
        return False
    return _example_dtype(f.model) == "fp32"


def _example_dtype(model: str | None) -> str | None:
    """The dtype the model card's transformers example loads in (knowledge/models `example_dtype`)."""
    if not model:
        return None
    from tools.models import find_entry

    try:
        entry = find_entry(str(model))
    except Exception:  # a half-written catalog row: no claim about its example
        return None
    return str(entry.example_dtype) if entry is not None and entry.example_dtype else None


_GGUF_4BIT_RE = re.compile(r"(?<![a-z0-9])q4_(?:k(?:_[msl])?|[01])(?![a-z0-9])|\bgguf\b", re.I)


def memory_kwargs(f: Frame) -> dict:
    """The shared memory job plus what only the memory tools take: the training method (DPO/GRPO/PPO…)."""
    kw = A.memory_kwargs(f)
    if kw.get("mode") == "inference" and not kw.get("precision") and "Ollama" in f.engines:
        kw["precision"], kw["int4_format"] = "int4", "q4_k_m"  # ollama pulls a 4-bit GGUF (Q4_K_M) by default
    elif kw.get("precision") == "int4" and (_GGUF_4BIT_RE.search(f.text) or {"llama.cpp", "Ollama"} & set(f.engines)):
        kw["int4_format"] = "q4_k_m"  # a 4-bit GGUF named ("Q4_K_M", "q4_0"): ~4.8 bits/weight, not AWQ's
    if "from_pretrained_call" in f.mentions and "dtype_set" not in f.mentions or transformers_default_fp32(f):
        kw["load_fp32"] = True  # transformers 4.x from_pretrained without torch_dtype loads fp32
        if kw.get("mode") == "inference" and not kw.get("precision"):
            kw["precision"], kw["engine"] = "fp32", "hf"  # that code serves with transformers, in fp32
    if f.kv_dtype in ("fp8", "int8", "fp16", "bf16") and kw.get("mode") == "inference":
        kw["kv_dtype"] = f.kv_dtype  # "fp8 kv cache": the cache shrinks, the weights keep their precision
    if trainer_modes.full_only(f):
        kw["mode"] = (
            "full"  # 「用 Megatron 微调 70B」: its fine-tuning trains every parameter (knowledge/trainers.yaml)
        )
    if f.method:
        if kw.get("mode") == "inference":
            kw["mode"] = "full"  # "DPO能跑吗": a method is training, whatever else was read
        kw["method"] = f.method
    if unsloth_qlora(f) and (f.mode == "inference" or f.method):
        # Unsloth's notebooks load the base in 4 bits (load_in_4bit=True): a fine-tune there is QLoRA
        kw["mode"], kw["precision"] = "qlora", "int4"
    if kw.get("mode") == "inference":  # the serving engine the user named sets the memory fraction and prefill
        engine = next((e for name, e in (("SGLang", "sglang"), ("vLLM", "vllm")) if name in f.engines), None)
        if engine and not kw.get("engine"):
            kw["engine"] = engine
        if not kw.get("engine") and (kw.get("gguf_quant") or {"llama.cpp", "Ollama"} & set(f.engines)):
            # a GGUF runtime (llama.cpp, Ollama) keeps no vLLM-style 10% reserve and splits by whole layers: the
            # estimator's no-reserve layer-split (hf) profile, not vLLM's
            kw["engine"] = "hf"
        if (kw.get("gpus") or 1) > 1 and not kw.get("engine") and split_method(f) == "layers":
            # whole layers per card (device_map="auto", llama.cpp -ts, ExLlamaV2 gpu_split): no 10% reserve, no
            # CUDA graphs, each card holds 1/N of the weights — the estimator's layer-split (hf) profile
            kw["engine"] = "hf"
    return kw


# How the user splits one model over several cards for serving (tools/memory_parallel.py SPLIT_FLAGS).
_LAYER_SPLIT_RE = re.compile(
    r"device_map|accelerate|(?<![\w-])-ts\b|--tensor[-_]split|gpu[-_\s]?split|--num[-_]gpus|fastchat|"
    r"auto[-_]devices|--gpu[-_]memory|按层|层切分|分层加载",
    re.I,
)
_TP_SPLIT_RE = re.compile(
    r"tensor[-_\s]?parallel|(?<![\w-])--tp(?:[-_]size)?\b|num[-_]shard|张量并行|\btp\s*=?\s*\d", re.I
)
_LAYER_ENGINES = {"ExLlamaV2", "llama.cpp", "Ollama", "text-generation-webui", "FastChat"}
_TP_ENGINES = {"vLLM", "SGLang", "LMDeploy", "TGI", "TensorRT-LLM", "MindIE", "Xinference"}


def split_method(f: Frame) -> str | None:
    """Serving on N cards: 'layers' (device_map="auto", llama.cpp -ts, ExLlamaV2 gpu_split, FastChat --num-gpus,
    Ollama), 'tp' (vLLM/SGLang/LMDeploy/TGI tensor parallel) or None when the question names no way to split."""
    text = f.text or ""
    if _LAYER_SPLIT_RE.search(text) or set(f.engines) & _LAYER_ENGINES:
        return "layers"
    if _TP_SPLIT_RE.search(text) or set(f.engines) & _TP_ENGINES:
        return "tp"
    if _HF_TRANSFORMERS_RE.search(text) and "ktransformers" not in text.lower():
        return "layers"  # plain transformers on N cards is device_map="auto": whole layers per card, no TP
    return None


def unsloth_qlora(f: Frame) -> bool:
    """A fine-tune with Unsloth named and no mode said: its notebooks default to a 4-bit base (QLoRA)."""
    return "Unsloth" in f.engines and f.mode in (None, "inference") and bool(f.training or f.finetune or f.method)


FP8_DEFAULT_GPU = "H800"  # an 80 GB Hopper card renters in China get: FP8 tensor cores, sized like the H100


def default_gpu(kw: dict) -> str:
    """The card to size against when none was named: the usual A100 80GB, but an FP8 card for serving a model
    released in FP8 (DeepSeek-V3/R1) — on an A100 it would need the bf16 checkpoint, twice the memory."""
    if kw.get("mode") == "inference" and A.native_fp8(kw.get("model")) and kw.get("precision") in (None, "fp8"):
        return FP8_DEFAULT_GPU
    return A.DEFAULT_GPU


def card_has_fp8(gpu: str | None) -> bool | None:
    """FP8 tensor cores on the named card (knowledge/gpus.yaml fp8_supported); None = no card or unknown."""
    if not gpu:
        return None
    try:
        from tools.memory_capacity import resolve_gpu_capacity

        return resolve_gpu_capacity(gpu).fp8_supported
    except Exception:  # an unknown card is reported by the tool itself
        return None


def served_precision(kw: dict, gpu: str | None) -> str | None:
    """Models released in FP8 (DeepSeek-V3/R1) are served as released — unless the card has no FP8 tensor cores
    (A100/A800/V100/3090…), where vLLM/SGLang need the bf16 checkpoint (DeepSeek-V3 README: fp8_cast_bf16.py)."""
    if kw.get("mode") != "inference" or kw.get("precision") or not A.native_fp8(kw.get("model")):
        return kw.get("precision")
    return "bf16" if card_has_fp8(gpu) is False else "fp8"


def mac_calls(f: Frame) -> list[ToolCall] | None:
    """Inference on an Apple-silicon Mac with its memory said: the GPU's share of the unified memory is the card,
    at the 4-bit GGUF the Mac runtimes pull by default; the chip named adds its bandwidth-bound decode speed."""
    from assistant.offline.reading.unified import GPU_SHARE, mac_chip, mac_memory_gb

    if f.training or f.mode not in (None, "inference") or not has_size(f):
        return None
    ram = mac_memory_gb(f.text, f.host_ram_gb)
    if not ram:
        return None
    kw = {k: v for k, v in memory_kwargs(f).items() if k not in ("gpu", "gpus", "engine")}
    if not kw.get("precision"):
        kw["precision"], kw["int4_format"] = "int4", "q4_k_m"
    # llama.cpp / MLC allocate what the weights and KV need, no vLLM-style reservation: the "hf" engine's rule
    kw["engine"] = "hf"
    out = [A.call(NAME, "estimate_memory", **{**kw, "mode": "inference", "gpu": f"{ram * GPU_SHARE:g}GB"})]
    chip = mac_chip(f.text)
    if chip:
        model = {"model": f.model} if f.model else {"params": f"{f.params_b:g}B"}
        out.append(A.call(NAME, "cpu_inference", **model, cpu=chip, host_ram_gb=ram))
    return out


def calls(f: Frame) -> list[ToolCall]:
    if applies_pipeline(f):
        return pipeline_calls(f)
    mac = mac_calls(f)
    if mac:
        return mac
    out: list[ToolCall] = []
    mem_kw = memory_kwargs(f)
    if len(f.co_models) >= 2 and mem_kw.get("mode") in (None, "inference"):
        # "A100 80G 同时部署 7B 和 20B": size each model on the same card; the renderer sums the weights
        for model in f.co_models:
            kw = {k: v for k, v in mem_kw.items() if k not in ("model", "params")}
            out.append(A.call(NAME, "estimate_memory", **{**kw, "model": model, "mode": "inference"}))
        out.append(A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2))
        return out
    if served_precision(mem_kw, mem_kw.get("gpu")):
        mem_kw["precision"] = served_precision(mem_kw, mem_kw.get("gpu"))
    sizes = asked_sizes(f)
    if len(sizes) >= 2 and mem_kw.get("mode") == "inference" and len(f.gpus) <= 1:
        # "ollama 跑 14b 和 32b 各要多少": each size asked, at the same precision and on the same card
        kw = {k: v for k, v in mem_kw.items() if k not in ("model", "params")}
        for model in sizes[:4]:  # "7B / 13B / 30B / 65B": LLaMA's four sizes, each asked
            out.append(A.call(NAME, "estimate_memory", **{**kw, "model": model}))
        out.append(A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2))
        return out
    family_sizes = _sizes_of_one_family(f, sizes)
    if len(family_sizes) >= 2 and mem_kw.get("mode") in ("full", "lora", "qlora") and len(f.gpus) == 1:
        # 「复现 llama2 7B/13B 的微调，4 张 A100 40G OOM」: each size on the cards, the largest first — if it fits,
        # the smaller ones do, and it is the one that decides whether the cards are enough
        size = {m.catalog_id: m.size_b or 0 for m in f.model_mentions if m.catalog_id}
        kw = {k: v for k, v in mem_kw.items() if k not in ("model", "params")}
        for model in sorted(family_sizes, key=lambda m: -size.get(m, 0))[:3]:
            out.append(A.call(NAME, "estimate_memory", **{**kw, "model": model}))
        out.append(A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2))
        return out
    # a requirements question ("system requirements of X; my GPU is a T500"): the card is an aside; a plain fit
    # question on an unknown card ("RTX 9090能训练7B吗") keeps the tool's "not in the table" with suggestions
    unknown = unknown_cards(f) if applies_requirement(f) else []
    if unknown and mem_kw.get("gpu") == A.gpu_arg(f):
        mem_kw["gpu"] = None  # a card the table lacks, no size given: size the job, say the card is unknown
    # "用A100还是4090": each card
    cards = [A.gpu_arg(f, g) for g in f.gpus[:3] if g not in unknown] or [mem_kw.get("gpu")]
    if "capacity_followup" in f.mentions and not f.gpus and len(f.card_sizes) >= 2:
        # 「8G？16？」 after a sizing turn: each capacity is a card to check (reading/followups.py)
        cards = [f"{gb:g}GB" for gb in f.card_sizes[:3]]
    counts = _per_card_counts(f, cards)
    if f.gpu_alt_memory_gb and len(f.gpus) == 1:  # "A100 40G vs 80G": both sizes of the one card
        cards.append(A.card_at_size(f, f.gpu_alt_memory_gb))
    low_bit_training = mem_kw.get("mode") != "inference" and mem_kw.get("precision") in ("int4", "int8")
    for gpu in cards:
        kw = {**mem_kw, "gpu": gpu}
        if counts.get(gpu):
            kw["gpus"] = counts[gpu]  # 「8张4090 或者 6张v100」: each card at its own count
        if low_bit_training:  # "4bit is enough" for a fine-tune: a 4-/8-bit frozen base is QLoRA
            out.append(A.call(NAME, "estimate_memory", **{**kw, "mode": "qlora"}))
        elif f.mode == "inference" and "training_word" in f.mentions and "trained_model" not in f.mentions:
            # 「推理和微调要多少」: both parts — serving, then full fine-tuning and LoRA
            for mode in ("inference", "full", "lora"):
                out.append(A.call(NAME, "estimate_memory", **{**kw, "mode": mode}))
        elif len(f.modes) > 1 and "inference" not in f.modes:  # "QLoRA 要多少？bf16 LoRA 呢？"
            for mode in f.modes[:3]:
                out.append(A.call(NAME, "estimate_memory", **{**kw, "mode": "full" if mode == "pretrain" else mode}))
        elif f.mode is None and f.finetune and not trainer_modes.full_only(f):
            # 「能用4090微调7B吗」: say both — full fine-tune and LoRA (QLoRA first when Unsloth is named).
            for mode in ("qlora", "lora") if unsloth_qlora(f) else ("full", "lora"):
                out.append(A.call(NAME, "estimate_memory", **{**kw, "mode": mode}))
        else:
            out.append(A.call(NAME, "estimate_memory", **kw))
    if "interconnect" in f.cues and (f.gpu_count or 0) > 1:  # "两张卡…PCIe 版够用吗": the link too
        topology = "pcie" if "pcie" in f.mentions else "nvlink" if "nvlink_or_sxm" in f.mentions else None
        # gradient-sync time only for full training on a named card (LoRA syncs only the adapters)
        sync: dict[str, Any] = (
            {"params_b": f.params_b} if f.params_b and f.gpus and mem_kw.get("mode") == "full" else {}
        )
        if (f.nodes or 1) > 1:  # 「两台8卡…节点间只有万兆网」: the link between the servers is the stated constraint
            sync |= {"nodes": f.nodes, **({"network": f.network} if f.network else {})}
            if mem_kw.get("mode") == "full" and (f.gpu_count or 0) > 8:
                sync["parallelism"] = (
                    "zero3"  # the estimate shards with ZeRO-3, so its traffic is what crosses the link
                )
        out.append(A.call(NAME, "interconnect_advice", gpu=A.gpu_arg(f), n_gpus=f.gpu_count, topology=topology, **sync))
    out.append(A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2))
    return out


def _per_card_counts(f: Frame, cards: list[str | None]) -> dict[str | None, int]:
    """Two or more cards each named with its own count (「8张4090 或者 6张v100」): card arg → that count. One card,
    or counts not said per card, keeps the job's single count."""
    named = [g for g in f.gpu_mentions if g.count] if len(cards) >= 2 else []
    if len(named) < 2 or len({g.count for g in named}) < 2:
        return {}
    out: dict[str | None, int] = {}
    for card in cards:
        hit = next((g for g in named if card and g.name and g.name.lower() in card.lower()), None)
        if hit and hit.count:
            out[card] = hit.count
    return out


# Serving to users (an API, concurrency, throughput) means a serving engine — tensor parallel, not device_map.
_SERVE_RE = re.compile(r"\bserv(?:e|es|ing|er)\b|\bapi\b|并发|吞吐|throughput|concurren|上线|服务", re.I)


def unsplit_serving(f: Frame, kw: dict) -> bool:
    """Running one model on several cards with no split method, engine or serving load named
    (「两张3090能跑72B int4吗」): sized both ways, tensor parallel and whole layers per card."""
    if f.concurrency or f.users or f.load.concurrency or f.load.requests_per_s or _SERVE_RE.search(f.text or ""):
        return False
    return (
        kw.get("mode") == "inference"
        and (kw.get("gpus") or 1) > 1
        and not kw.get("engine")
        and split_method(f) is None
        and len(f.gpus) <= 1
    )


def asked_sizes(f: Frame) -> list[str]:
    """Every catalog model the question asks to size, in order ("qwen2.5 14b和32b" → both); the one the user
    already measured ("7B 刚好够，那 72B 呢") is not asked again."""
    out = [
        m.catalog_id
        for m in f.model_mentions
        if m.catalog_id and m.size_b and m.catalog_id != f.measured_model and not m.variant
    ]
    return list(dict.fromkeys(out))


_SIZE_WORD_RE = re.compile(r"\d+(?:\.\d+)?\s*[bm](?![a-z])", re.I)


def _bare_default_size(f: Frame, text: str) -> bool:
    """A model word without a size ("llama2") in a question that writes a size elsewhere ("13B model")."""
    return not _SIZE_WORD_RE.search(text) and any(_SIZE_WORD_RE.search(m.text) for m in f.model_mentions)


def _sizes_of_one_family(f: Frame, sizes: list[str]) -> list[str]:
    """Sizes of ONE model line the user wrote out ("llama2 7B/13B", "qwen2.5 1.5b和7b"): a bare family word
    ("llama2") resolved to its default size is not a size asked, and two different models keep their own path."""
    written = {m.catalog_id for m in f.model_mentions if m.catalog_id and _SIZE_WORD_RE.search(m.text)}
    out = [c for c in sizes if c in written]
    families = {re.sub(r"-?\d+(?:\.\d+)?[BM](?:-.*)?$", "", c, flags=re.I) for c in out}
    return out if len(families) == 1 else []


def unknown_cards(f: Frame) -> list[str]:
    """Cards named that the GPU table does not have and whose memory was not said ("dedicated GPU NVIDIA
    T500"): nothing can be checked against them, but the job itself can still be sized."""
    return [g.name for g in f.gpu_mentions if g.gpu_id is None and not g.memory_gb]


def max_fit_calls(f: Frame) -> list[ToolCall]:
    mem_kw = memory_kwargs(f)
    return [
        A.call(
            MAX_FIT, "find_max_fit", **{**mem_kw, "gpu": mem_kw.get("gpu") or A.DEFAULT_GPU}, solve_for=A.solve_for(f)
        ),
        A.call(MAX_FIT, "search_guide", query=A.guide_query(f, MAX_FIT), k=2),
    ]


def min_gpus_calls(f: Frame) -> list[ToolCall]:
    out: list[ToolCall] = []
    kw = dict(memory_kwargs(f))
    kw.pop("gpus", None)
    kw["gpu"] = kw.get("gpu") or default_gpu(kw)
    if served_precision(kw, kw["gpu"] if f.gpus else None) == "bf16":
        kw["precision"] = "bf16"  # an FP8 release on a card without FP8: the bf16 checkpoint is what runs
    elif kw.get("mode") == "inference" and not kw.get("precision") and A.native_fp8(kw.get("model")):
        # DeepSeek-V3/R1 ship FP8 weights ("满血版" = the released checkpoint): size that first, bf16 beside it
        out.append(A.call(MIN_GPUS, "find_min_gpus", **{**kw, "precision": "fp8"}))
    if kw.get("offload") and kw.get("offload") != "none" and kw.get("mode") != "inference":
        # 「ds_z3_offload 跑 7B 要几张 V100」: the count without offload first (what the cards must hold), then with it
        out.append(A.call(MIN_GPUS, "find_min_gpus", **{**kw, "offload": "none"}))
    out.append(A.call(MIN_GPUS, "find_min_gpus", **kw))
    asked = f.modes[f.modes.index("full") + 1 :] if kw.get("mode") == "full" and "full" in f.modes else []
    if kw.get("mode") in (None, "full") and f.mode is None and f.finetune and not trainer_modes.likely_full(f):
        asked = ["lora"]  # 「微调 70B 要几张」 says neither: the full count first, the LoRA count beside it
        out[-1].args["mode"] = "full"
    for mode in [m for m in asked if m in ("lora", "qlora")][:2]:
        # "how many A100s for full fine-tuning and for LoRA/QLoRA": each training mode asked gets its own count
        low = {"precision": "int4"} if mode == "qlora" else {}
        out.append(A.call(MIN_GPUS, "find_min_gpus", **{**kw, "mode": mode, **low}))
    for gpu in [A.gpu_arg(f, g) for g in f.gpus[1:3]]:  # "4090 要几张，H100 要几张": each card asked gets its count
        other = {**kw, "gpu": gpu}
        other["precision"] = served_precision({**other, "precision": None}, gpu) or kw.get("precision")
        out.append(A.call(MIN_GPUS, "find_min_gpus", **other))
    others = [
        m.catalog_id
        for m in f.model_mentions
        if m.catalog_id
        and m.catalog_id not in (kw.get("model"), f.measured_model)  # not the one already run
        and not _bare_default_size(f, m.text)  # "llama2" beside "13B": the family word, not a second model
    ]
    for model in list(dict.fromkeys(others))[:2]:  # "Falcon-40B or Llama2-70B": each model named gets its count
        out.append(
            A.call(MIN_GPUS, "find_min_gpus", **{**{k: v for k, v in kw.items() if k != "params"}, "model": model})
        )
    out.append(A.call(MIN_GPUS, "search_guide", query=A.guide_query(f, MIN_GPUS), k=2))
    return out


def _call(intent: str, name: str, args: dict) -> ToolCall:
    return A.call(intent, name, **args)


def follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """After estimate_memory: alternatives when the job does not fit."""
    if applies_pipeline(f):
        return []  # the pipeline estimate already carries its residency options and the per-card figure
    done = {r.name for r in results}
    out: list[ToolCall] = []
    first = next((r for r in results if r.name == "estimate_memory" and not r.error), None)
    if (
        first is not None
        and "oom_report" in f.mentions
        and f.checkpointing is None
        and A.fits(first.result) is True
        and str(first.args.get("mode") or "full") != "inference"
    ):
        # "OOM although it should fit": the estimate assumed gradient checkpointing; the figure without it says
        # whether that setting is the one to change
        out.append(_call(NAME, "estimate_memory", {**first.args, "checkpointing": "none"}))
    layered = layer_split_calls(f, results)
    out += next_stage_calls(f, results) + layered
    if any(
        r.name == "estimate_memory" and not r.error and r.args.get("mode") == "inference" and A.fits(r.result)
        for r in results
    ):
        return out  # one way of splitting already fits (layer split beside tensor parallel): nothing to add
    # several cards sized both ways: the quantised follow-ups split the way that needs less per card (layers)
    ordered = sorted(results, key=lambda x: 0 if x.args.get("engine") == "hf" and (x.args.get("gpus") or 1) > 1 else 1)
    for r in ordered:
        if r.name != "estimate_memory" or r.error:
            continue
        total = r.result.get("total_gb")
        if A.fits(r.result) is None and isinstance(total, (int, float)) and total > 80 and "find_min_gpus" not in done:
            # No card named and too big for any single 80 GB card: how many of the usual one?
            kw = {k: v for k, v in r.args.items() if k not in ("gpus", "zero")}
            out.append(_call(NAME, "find_min_gpus", {**kw, "gpu": default_gpu(kw)}))
            done.add("find_min_gpus")
            if (
                str(r.args.get("mode")) == "full"
                and f.mode != "pretrain"
                and not any(x.name == "estimate_memory" and x.args.get("mode") in ("lora", "qlora") for x in results)
            ):  # 「Yi-34B SFT 要什么配置」: the adapter route beside the card count
                out.append(_call(NAME, "estimate_memory", {**r.args, "mode": "lora"}))
            break
        if A.fits(r.result) is False and r.result.get("borderline"):
            # A close call: the same job on the next memory sizes up (32 GB, 48 GB cards) shows the way out.
            cap = r.result.get("gpu_memory_gb") or 0
            for size in (32, 48):
                if size > cap and not any(str(x.args.get("gpu")) == f"{size}GB" for x in results):
                    out.append(_call(NAME, "estimate_memory", {**r.args, "gpu": f"{size}GB"}))
        if A.fits(r.result) is False:
            args = dict(r.args)
            if "find_min_gpus" not in done:
                kw = {k: v for k, v in args.items() if k not in ("gpus", "zero")}
                if f.gpu:
                    out.append(_call(NAME, "find_min_gpus", kw))
                done.add("find_min_gpus")
            mode = str(args.get("mode") or "")
            if f.mode == "pretrain" and mode == "full":
                # from scratch there is no base model for LoRA to adapt: the memory levers are the
                # optimizer (8-bit AdamW states) and sharding (find_min_gpus above)
                if args.get("optimizer") != "adamw_8bit" and not any(
                    x.name == "estimate_memory" and x.args.get("optimizer") == "adamw_8bit" for x in results
                ):
                    out.append(_call(NAME, "estimate_memory", {**args, "optimizer": "adamw_8bit"}))
            elif mode in ("full", "pretrain") and not any(
                x.name == "estimate_memory" and str(x.args.get("mode")) == "qlora" for x in results
            ):
                tried = {str(x.args.get("mode")) for x in results if x.name == "estimate_memory"}
                lora_fits = any(
                    x.name == "estimate_memory" and str(x.args.get("mode")) == "lora" and A.fits(x.result)
                    for x in results
                )
                for alt in ("lora", "qlora"):  # LoRA tried and too big too: the 4-bit base is the next step
                    if alt not in tried and not (alt == "qlora" and lora_fits):
                        out.append(_call(NAME, "estimate_memory", {**args, "mode": alt}))
            elif mode == "lora" and not any(
                x.name == "estimate_memory" and str(x.args.get("mode")) == "qlora" for x in results
            ):
                out.append(_call(NAME, "estimate_memory", {**args, "mode": "qlora"}))
            elif mode == "inference" and args.get("precision") not in ("int8", "int4"):
                for alt in ("int8", "int4"):  # quantised weights are the usual way to serve on a smaller card
                    out.append(_call(NAME, "estimate_memory", {**args, "precision": alt}))
            break
    if len(f.gpus) > 1:  # "H100 vs H200 for serving": quantised weights on every card
        for r in results:
            if (
                r.name == "estimate_memory"
                and not r.error
                and A.fits(r.result) is False
                and r.args.get("mode") == "inference"
                and r.args.get("precision") not in ("int8", "int4")
                and not any(c.name == "estimate_memory" and c.args.get("gpu") == r.args.get("gpu") for c in out)
            ):
                for alt in ("int8", "int4"):
                    out.append(_call(NAME, "estimate_memory", {**r.args, "precision": alt}))
    if layered:  # the quantised ways out are sized split by layers too (what needs less per card)
        for c in out:
            if c.name == "estimate_memory" and c.args.get("mode") == "inference" and c not in layered:
                c.args = {**c.args, "engine": "hf"}
    from assistant.offline.intents.largest_model import smaller_line_calls

    return out + smaller_line_calls(f, results)  # too big for the card: what of its line does fit


def layer_split_calls(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """Serving on N cards with no way to split named, and tensor parallel does not fit (or barely): the same job
    with whole layers per card (device_map="auto", llama.cpp -ts, ExLlamaV2 gpu_split), which keeps no 10%
    reserve and no CUDA-graph room — often the difference on two 24 GB cards."""
    r = next((x for x in results if x.name == "estimate_memory" and not x.error), None)
    if r is None or any(x.name == "estimate_memory" and x.args.get("engine") == "hf" for x in results):
        return []
    if not unsplit_serving(f, r.args) or A.fits(r.result) is None:
        return []
    room, cap = r.result.get("headroom_gb"), r.result.get("usable_gb") or 0
    if A.fits(r.result) and isinstance(room, (int, float)) and room >= 0.1 * cap:
        return []
    return [_call(NAME, "estimate_memory", {**r.args, "engine": "hf"})]


def next_stage_calls(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """Training on N cards with ZeRO-0/1/2 (or DDP) that OOMs, does not fit, or fits with under 10% to spare: the
    same job with ZeRO-3 (weights sharded too), so the answer can lead with the next stage and its number. The
    estimator's own `changes` already carry ZeRO-3 when it alone makes the job fit."""
    r = next((x for x in results if x.name == "estimate_memory" and not x.error), None)
    if r is None or str(r.args.get("mode") or "full") == "inference" or (r.result.get("gpus") or 1) <= 1:
        return []
    if (r.result.get("zero_stage") or 0) >= 3 or any(
        c.get("kind") == "zero_stage" for c in r.result.get("changes") or []
    ):
        return []
    if any(x.name == "estimate_memory" and x.args.get("zero") == 3 for x in results):
        return []
    room, cap = r.result.get("headroom_gb"), r.result.get("usable_gb") or r.result.get("gpu_memory_gb")
    tight = isinstance(room, (int, float)) and isinstance(cap, (int, float)) and room < 0.1 * cap
    if not (A.fits(r.result) is False or tight or "oom_report" in f.mentions or A.reports_oom(f)):
        return []
    return [_call(NAME, "estimate_memory", {**r.args, "zero": 3})]


def min_gpus_follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """ "要几张卡" for training: the links of the count actually rented (4+ cards want NVLink). Serving that needs
    more cards than the user has (「4张4090跑不起来」) or more than one server of cards: the quantised counts."""
    from assistant.offline.intents.plans import quantised_counts

    quantised = quantised_counts(f, results)
    if quantised:
        return quantised
    for r in results:
        if (
            r.name == "find_min_gpus"
            and not r.error
            and str(r.args.get("mode")) != "inference"
            and (r.result.get("rent_gpus") or 0) >= 4
            and not any(x.name == "interconnect_advice" for x in results)
        ):
            rent = int(r.result["rent_gpus"])
            nodes = -(-rent // 8)
            gpu = str(r.args.get("gpu") or "")
            return [
                A.call(
                    MIN_GPUS,
                    "interconnect_advice",
                    # a bare size ("80GB") has no links in the table: the usual 80 GB training card's
                    gpu=A.DEFAULT_GPU if re.fullmatch(r"\d+(?:\.\d+)?\s*g(?:b|ib)?", gpu, re.I) else gpu,
                    n_gpus=rent,
                    nodes=nodes if nodes > 1 else None,
                )
            ]
    return []


def max_fit_follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """ "最长上下文" on one card that cannot even hold the weights → how many cards."""
    for r in results:
        if r.name == "find_max_fit" and not r.error and not r.result.get("max_value"):
            if any(x.name == "find_min_gpus" for x in results):
                return []
            kw = {k: v for k, v in r.args.items() if k not in ("solve_for", "gpus")}
            return [A.call(MAX_FIT, "find_min_gpus", **kw)]
    return []


UNSIZED = "unsized_model"


def applies_unsized(f: Frame) -> bool:
    """「部署CosyVoice2要多大显存」: a model nobody here knows, named without its size, and the question asks
    what hardware it needs. Nothing can be sized, so the answer says so instead of quoting another model."""
    # "How much VRAM does Kimi-K3 need?" / 「要几张卡」: a requirement or card-count question asks for hardware too
    # ("fit" alone does not: 「24G 下能用的方法（LucidFlux）」 asks for a how-to, and the guide can answer that)
    sizing = bool(f.cues & {"requirement", "how_many"})
    asks_hardware = ("asked_hardware" in f.mentions or sizing) and "a_kind_of" not in f.mentions
    return bool(f.unknown_model) and not f.model and not has_size(f) and not f.is_log and asks_hardware
