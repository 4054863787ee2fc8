"""CPU and CPU+GPU hybrid inference: 「双路 EPYC + 4090 跑满血 R1 每秒几个 token」「纯CPU推理 70B 多快」.

The question is about host memory bandwidth (the platform's channels × MT/s), not GPU bandwidth: the
`cpu_inference` tool gives the band, whether a target speed is reachable and what would reach it. Words
(platform names, engines, 纯CPU/内存带宽, sockets) come from knowledge/cpus.yaml; only number shapes live here.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from assistant.offline.intents import args as A
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall

NAME = "cpu_serving"
TRAINING = "cpu_training"
UNSIZED = "cpu_unsized"

# Platforms asked about when the question names none: desktop, 8-channel DDR4 server, 12-channel DDR5 server.
GENERIC_PLATFORMS = ("desktop_ddr5", "epyc_7003", "epyc_9004")
# Two sockets named but no CPU: the three common two-socket server memory setups (8 × DDR4, 8 × DDR5, 12 × DDR5).
SERVER_PLATFORMS = ("epyc_7003", "xeon_gen4_sapphire", "epyc_9004")

_RATE = r"(?:tokens?|tok|t|个\s*token|字)\s*(?:/|每)\s*(?:s|秒|sec)(?![a-z])|(?:tokens?|tok)\s*(?:per|a)\s*s(?:ec(?:ond)?)?(?![a-z])"
_RATE_RE = re.compile(rf"(?P<n>\d+(?:\.\d+)?)\s*(?P<u>{_RATE}|s\s*/\s*tokens?|tps(?![a-z]))", re.I)
_PER_S_RE = re.compile(r"每秒\s*(?P<n>\d+(?:\.\d+)?)\s*(?:个)?\s*(?:token|字)", re.I)
_TARGET_BEFORE = re.compile(
    r"(?:到|达到|提升|提高|优化|目标|想要|要求|需要|能否|能不能|希望|至少|reach|get to|target|want|achieve|hit|need)[^\d]{0,8}$",
    re.I,
)
_CHANNELS_RE = re.compile(r"(?P<n>\d{1,2})\s*(?:通道|channels?\b|ch\b)", re.I)
_DDR_RE = re.compile(r"ddr(?P<g>[45])[\s-]*(?P<mts>\d{4})", re.I)
_RAM_RE = re.compile(
    r"(?:cpu\s*mem(?:ory)?|内存|ram)\s*[:：]?\s*(?P<n>\d+(?:\.\d+)?)\s*(?P<u>tib|ti|tb|t|gib|gi|gb|g)(?![a-z])", re.I
)


# "64g*8", "64GB x 7", "8 × 64G", "12条": memory modules installed (fewer than the channels leaves bandwidth unused)
_DIMMS_RE = re.compile(
    r"(?<![\d.])(?:(?P<size>\d{2,3})\s*g(?:b)?\s*[*x×]\s*(?P<n>\d{1,2})(?![\d.])|(?P<n2>\d{1,2})\s*[*x×]\s*(?P<size2>\d{2,3})\s*g(?:b)?\b"
    r"|(?P<n3>\d{1,2})\s*条\s*(?:\d{2,3}\s*g)?)",
    re.I,
)


@lru_cache(maxsize=1)
def _words() -> dict[str, re.Pattern[str]]:
    from tools.cpu_inference import words

    w = words()
    out = {k: re.compile(v, re.I) for k, v in w.items() if isinstance(v, str) and k not in ("as_of", "source")}
    out["engines"] = re.compile("|".join(f"(?:{p})" for p in w["engines"].values()), re.I)
    return out


@lru_cache(maxsize=1)
def _engine_names() -> dict[str, re.Pattern[str]]:
    from tools.cpu_inference import words

    return {name: re.compile(p, re.I) for name, p in words()["engines"].items()}


def _text(f: Frame) -> str:
    from tools.cpu_inference import normalise

    return normalise(f.text or "")


def _memory_of(pid: str) -> str:
    from tools.cpu_inference import find_platform

    p = find_platform(pid)
    return p.memory if p else ""


def family_ids(f: Frame) -> list[str]:
    """'EPYC 24核' with no generation: the generations assumed (knowledge/cpus.yaml families)."""
    from tools.cpu_inference import family_platforms

    return [p.id for p in family_platforms(_text(f))]


def platform_id(f: Frame) -> str | None:
    from tools.cpu_inference import find_platform

    p = find_platform(_text(f))
    return p.id if p else None


def memory_setup(f: Frame) -> tuple[int | None, int | None]:
    """(channels, MT/s) the user stated: '8通道 DDR4-3200', '12 channel DDR5 6400'."""
    t = _text(f)
    ch, ddr = _CHANNELS_RE.search(t), _DDR_RE.search(t)
    return (int(ch.group("n")) if ch else None), (int(ddr.group("mts")) if ddr else None)


def speeds(f: Frame) -> tuple[float | None, float | None]:
    """(measured, target) tokens/s. 'eval rate:4.5tokens/s, 想优化到15s/token': 4.5 now, 15 wanted (a unit typed
    backwards after a target word is read as tokens/s, since the same sentence measures in tokens/s)."""
    t = _text(f)
    measured = target = None
    for m in list(_RATE_RE.finditer(t)) + list(_PER_S_RE.finditer(t)):
        value = float(m.group("n"))
        unit = (m.groupdict().get("u") or "").replace(" ", "")
        is_target = bool(_TARGET_BEFORE.search(t[max(0, m.start() - 14) : m.start()]))
        if unit.startswith("s/") and not is_target:
            value = 1 / value if value else value  # "3 s/token" measured = 0.33 tokens/s
        if is_target and target is None:
            target = value
        elif not is_target and measured is None:
            measured = value
    return measured, target


def _cpu_span(f: Frame) -> str:
    """The platform's words and what follows them ('epyc 7c13*2'), where a ×2 means two sockets."""
    from tools.cpu_inference import find_platform

    t = _text(f)
    p = find_platform(t)
    m = re.search(p.match, t, re.I) if p else None
    return t[m.start() : m.end() + 4] if m else ""


def dimms(f: Frame) -> int | None:
    """Modules installed, when the question lists them next to a memory word ('ddr4 2933 64g*8')."""
    t = _text(f)
    if not re.search(r"ddr|内存|ram|dimm|memory", t):
        return None
    for m in _DIMMS_RE.finditer(t):
        n = m.group("n") or m.group("n2") or m.group("n3")
        size = m.group("size") or m.group("size2")
        if n and (size is None or int(size) in (16, 32, 48, 64, 96, 128, 256)):
            return int(n)
    return None


def _ram_from_dimms(f: Frame) -> float | None:
    """'64g*8' with no RAM total stated: 8 × 64 GB = 512 GB."""
    t = _text(f)
    if not re.search(r"ddr|内存|ram|dimm|memory", t):
        return None
    m = next((m for m in _DIMMS_RE.finditer(t) if (m.group("size") or m.group("size2"))), None)
    if m is None:
        return None
    return float(int(m.group("size") or m.group("size2")) * int(m.group("n") or m.group("n2")))


_MEMBIND_RE = re.compile(r"numactl\b[^\n]*?(?:\s-m\s*\d|--membind|\s-m\d)", re.I)
_CPU_ONLY_RE = re.compile(
    r"纯\s*cpu|只用\s*cpu|cpu\s*only|cpu-only|only\s+(?:on\s+)?(?:the\s+)?cpu|without\s+(?:a\s+)?gpu|不用\s*(?:gpu|显卡)|没有\s*(?:gpu|显卡)",
    re.I,
)


def membind(f: Frame) -> bool:
    """'numactl -N 1 -m 1 python …': the process may only allocate from one NUMA node's memory."""
    return bool(_MEMBIND_RE.search(f.text or ""))


def cpu_only(f: Frame) -> bool:
    """'纯CPU运行' / 'CPU only': the question is about the host alone, whatever GPU a README mentions."""
    return bool(_CPU_ONLY_RE.search(_text(f)))


def gpu_part(f: Frame) -> tuple[str, int] | None:
    """'1. 两张A100能跑吗？2. 纯CPU呢？': (card, count) of the part that asks about the cards, when another part asks
    about the CPU alone; that part is answered first with the cards' memory estimate."""
    from assistant.offline.reading import read_one

    if not (cpu_only(f) and f.gpus and len(f.asks) >= 2):
        return None
    for ask in f.asks:
        if "fit" in ask.cues:
            part = read_one(ask.text)
            if part.gpus and part.gpu_count:
                return part.gpus[0], int(part.gpu_count)
    return None


def _sockets(f: Frame) -> int:
    return 2 if _words()["dual_socket"].search(_text(f)) else 1


def _numa(f: Frame) -> str:
    return "aware" if _words()["numa_aware"].search(_text(f)) else "auto"


def engine(f: Frame) -> str | None:
    t = _text(f)
    for name, rx in _engine_names().items():
        if rx.search(t):
            return name
    return None


def _quant(f: Frame) -> str:
    from tools.cpu_inference import find_quant

    q = find_quant(_text(f))
    if q is not None:
        return q.id
    return {"fp8": "fp8", "int8": "q8_0", "bf16": "bf16", "fp16": "bf16"}.get(f.precision or "", "q4_k_m")


_RAM_AFTER_RE = re.compile(
    r"(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s*(?P<u>tib|ti|tb|t|gib|gi|gb|g)\s*(?:的\s*)?(?:ddr[45]|内存|dram|ram\b|system\s+ram)",
    re.I,
)


def host_ram(f: Frame) -> float | None:
    """Host RAM the user gave: '内存512G', 'RAM: 256GB', or the figure first: '192G DDR5', '512G DRAM', '2T内存'."""
    if f.host_ram_gb:
        return f.host_ram_gb
    m = _RAM_RE.search(_text(f)) or _RAM_AFTER_RE.search(_text(f))
    if not m:
        return None
    n, u = float(m.group("n")), m.group("u").lower()
    if u.startswith("t"):
        return n * (2**40 / 1e9 if "i" in u else 1000)
    return round(n * (2**30 / 1e9), 1) if "i" in u else n


def _weights_fit_vram(f: Frame) -> bool:
    """The model (at the question's quant) fits the named cards: a GPU question, not a host-memory one."""
    if not f.gpus:
        return False
    try:
        from tools.cpu_inference import find_quant
        from tools.gpus import resolve_gpu
        from tools.models import resolve_model

        margs = A.model_args(f)
        m = resolve_model(margs.get("model"), margs.get("params"), allow_unknown=True)
        q = find_quant(_quant(f))
        vram = resolve_gpu(A.gpu_arg(f) or f.gpus[0]).memory_gb * (f.gpu_count or 1)
    except Exception:  # an unknown card or model: let the other intents size it  # noqa: BLE001
        return False
    return q is not None and m.params * q.bits / 8 / 1e9 < 0.9 * vram


def _inference_only_format(f: Frame) -> bool:
    """GGUF / ollama / llama.cpp serve inference only: a '4bit' beside them is a GGUF quant, not QLoRA."""
    return engine(f) in ("Ollama", "llama.cpp", "KTransformers", "LM Studio") and not re.search(
        r"微调|训练|fine-?tun|train|lora", _text(f)
    )


_HOW_RUN_RE = re.compile(
    r"how\s+(?:to|do\s+i|can\s+i)\s+(?:run|deploy|use|load)|can\s+i\s+run|is\s+it\s+possible\s+to\s+run|run\s+\S+\s+on"
    r"|怎么跑|如何跑|怎么部署|如何部署|怎么运行|如何运行|能跑|能不能跑|可以跑|跑得动|跑起来|部署",
    re.I,
)


_COUNT_RE = re.compile(r"几张|多少张|多少块|多少个|几块|几台|多少台|how\s+many|多节点|多机|集群|cluster", re.I)


def offload_question(f: Frame) -> bool:
    """'How to run r1 on a 4090?': a MoE model whose 4-bit file is many times the card's memory. Only the hybrid
    route (experts in system RAM: ktransformers / llama.cpp) or a smaller distilled model runs it there."""
    t = _text(f)
    if not f.gpus or f.training or not _HOW_RUN_RE.search(t) or _COUNT_RE.search(t) or any(speeds(f)):
        return False  # 'how many A100s for R1' is a card-count question, not an offload one
    try:
        from tools.gpus import resolve_gpu
        from tools.models import resolve_model

        margs = _model_args(f)
        m = resolve_model(margs.get("model"), margs.get("params"), allow_unknown=True)
        vram = resolve_gpu(A.gpu_arg(f) or f.gpus[0]).memory_gb * (f.gpu_count or 1)
    except Exception:  # an unknown card or model: the memory intent sizes it  # noqa: BLE001
        return False
    one_card = resolve_gpu(A.gpu_arg(f) or f.gpus[0]).memory_gb
    return bool(m.arch.is_moe) and one_card <= 48 and m.params * 4.9 / 8 / 1e9 > 4 * vram


_LARGEST_RE = re.compile(r"最大|多大的?模型|哪个版本|哪个量化|largest|biggest|which\s+(?:model|quant|version)", re.I)
# What ktransformers is built to run from host RAM (its README and DeepSeek-R1/V3 tutorial): the model assumed when
# '4090 + 192G, 用 KTransformers 最大能部署哪个版本' names none.
HYBRID_DEFAULT_MODEL = "DeepSeek-R1"


def largest_hybrid(f: Frame) -> bool:
    """'4090+192G DDR5 用 KTransformers 最大能部署哪个版本': no model, a hybrid engine, the host RAM and a card."""
    return (
        not has_size(f)
        and engine(f) == "KTransformers"
        and bool(host_ram(f))
        and bool(_LARGEST_RE.search(_text(f)))
        and not f.training
    )


def applies(f: Frame) -> bool:
    """A decode-speed (or platform) question about running from host RAM: a strong word (纯CPU, CPU推理,
    内存带宽, ktransformers/fastllm) or a CPU platform named with a model that does not fit the named VRAM."""
    if largest_hybrid(f):
        return True
    if not has_size(f):
        return False
    if (f.training or f.mode not in (None, "inference")) and not _inference_only_format(f):
        return False
    t = _text(f)
    w = _words()
    strong = bool(w["strong"].search(t))
    hybrid_engine = engine(f) in ("KTransformers", "fastllm")
    named = platform_id(f) is not None or all(memory_setup(f)) or bool(family_ids(f))
    cpu_words = bool(w["cpu_inference"].search(t))
    asks_speed = bool(w["speed"].search(t)) or any(speeds(f))
    if strong or offload_question(f):
        return True
    gguf_quant = bool(re.search(r"(?<![a-z0-9])(?:q[2-8]_(?:k|0)\w*|iq[1-4]_\w+)|gguf", t))
    if gguf_quant and host_ram(f) and (asks_speed or any(speeds(f))) and not _weights_fit_vram(f):
        return True  # '128G内存跑 r1 q4_k_m 只有0.3 tokens/s': a GGUF run from host RAM
    if hybrid_engine:
        return asks_speed or named or bool(host_ram(f))
    return (named or cpu_words) and asks_speed and not _weights_fit_vram(f)


@lru_cache(maxsize=64)
def _moe_of_size(params_b: float) -> str | None:
    """A bare '671b' in a host-RAM question: the catalog MoE of exactly that size when only one architecture has it
    (671B is DeepSeek-V3/R1's), so the routed-expert arithmetic applies instead of a dense 671B."""
    from tools.models import count_params, load_catalog

    hits = [
        (e.id, round(count_params(e.arch).total / 1e9))
        for e in load_catalog()
        if e.arch.is_moe and abs(count_params(e.arch).total / 1e9 - params_b) <= 0.005 * params_b
    ]
    shapes = {n for _, n in hits}
    return (
        hits[0][0]
        if hits and len(shapes) == 1 and not re.search(r"qwen|vl", " ".join(i for i, _ in hits), re.I)
        else None
    )


def _model_args(f: Frame) -> dict[str, Any]:
    if largest_hybrid(f):
        return {"model": HYBRID_DEFAULT_MODEL}
    margs = A.model_args(f)
    if "params" in margs and "model" not in margs and f.params_b:
        named = _moe_of_size(float(f.params_b))
        if named:
            return {"model": named}
    return margs


# Quants the memory tool sizes the same way (GGUF Q4_K_M, 8-bit, 16-bit); unsloth's dynamic quants it does not.
_MEMORY_PRECISION = {"q4_k_m": ("int4", "q4_k_m"), "q8_0": ("int8", None), "bf16": ("bf16", None), "fp8": ("fp8", None)}


def _weights_call(base: dict[str, Any]) -> ToolCall | None:
    """The whole model's weights against the card (estimate_memory), when a card or the host RAM is in question:
    why the experts live in RAM at all, from the one memory estimator the product has."""
    prec = _MEMORY_PRECISION.get(str(base.get("quant")))
    if (
        prec is None
        or not (base.get("gpu") or base.get("host_ram_gb"))
        or not (base.get("model") or base.get("params"))
    ):
        return None
    extra: dict[str, Any] = {"int4_format": prec[1]} if prec[1] else {}
    model = {k: base[k] for k in ("model", "params") if base.get(k)}
    card = {"gpu": base["gpu"]} if base.get("gpu") else {}
    return A.call(NAME, "estimate_memory", **model, mode="inference", precision=prec[0], **extra, **card)


def calls(f: Frame) -> list[ToolCall]:
    measured, target = speeds(f)
    channels, mt_s = memory_setup(f)
    pid = platform_id(f)
    base = dict(
        _model_args(f),
        quant=_quant(f),
        sockets=_sockets(f) if not re.search(r"[*x×]\s*2(?![\d.])", _cpu_span(f)) else 2,
        dimms=dimms(f),
        numa=_numa(f),
        engine=engine(f),
        host_ram_gb=host_ram(f) or _ram_from_dimms(f),
        target_tokens_per_s=target,
        measured_tokens_per_s=measured,
        membind_one_node=membind(f),
    )
    if f.gpus and not cpu_only(f) and (not f.gpu_mentions or f.gpu_mentions[0].gpu_id or f.gpu_mentions[0].memory_gb):
        count = f.gpu_count or 1
        if f.gpu_mentions and f.gpu_mentions[0].count is None and re.search(r"[*x×]\s*\d", _cpu_span(f)):
            count = 1  # 'epyc 7c13*2 GPU:4090': the ×2 counts CPU sockets, not cards
        base.update(gpu=A.gpu_arg(f) or f.gpus[0], gpus=count)
    fams = family_ids(f)
    if pid or (channels and mt_s):
        plats = [dict(cpu=pid, channels=channels, mt_s=mt_s)]
    elif fams:
        # 'EPYC' alone: the generations it may be, the assumed one first; a stated DDR4/DDR5 keeps that kind,
        # a stated speed ('DDR4-2400') replaces the platform's
        ddr = re.search(r"ddr([45])", _text(f))
        kept = [p for p in fams if not ddr or _memory_of(p).startswith(f"DDR{ddr.group(1)}")] or fams
        plats = [dict(cpu=p, mt_s=mt_s) for p in kept]
    else:
        # a DDR4 desktop is the first row for someone who has DDR4 (not for 'DDR4 or DDR5?')
        ddr4 = "ddr4" in _text(f) and "ddr5" not in _text(f)
        generic = SERVER_PLATFORMS if base["sockets"] == 2 else GENERIC_PLATFORMS  # two sockets: not a desktop
        plats = [dict(cpu="desktop_ddr4" if ddr4 and p == "desktop_ddr5" else p) for p in generic]
    out = [A.call(NAME, "cpu_inference", **base, **p) for p in plats]
    if offload_question(f) and base.get("gpu"):
        out.append(A.call(NAME, "largest_model", gpu=base["gpu"], mode="inference", like=str(base.get("model") or "")))
    if measured and base.get("gpu"):
        # '[Bug] A100显卡推理速度慢': the card's own bandwidth beside the host's shows which one bounds the speed
        out.append(A.call(NAME, "gpu_specs", names=[base["gpu"]]))
    weights = _weights_call(base)
    if weights:
        out.append(weights)
    cards = gpu_part(f)
    if cards:
        out.insert(0, A.call(NAME, "estimate_memory", **A.model_args(f), mode="inference", gpu=cards[0], gpus=cards[1]))
    out.append(A.call(NAME, "lookup_model", query=str(base.get("model") or f.model or f"{f.params_b or 0:g}B")))
    return out


def applies_training(f: Frame) -> bool:
    """'模型训练与精调可以使用CPU来做吗': training on the CPU instead of the GPU. The answer is the compute gap
    (6·N·D FLOP at a CPU's 1–2 TFLOPS against a GPU's 100+), not a GPU memory estimate."""
    t = _text(f)
    return bool(_words()["cpu_training"].search(t)) and not re.search(r"offload|zero", t)


def training_calls(f: Frame) -> list[ToolCall]:
    """The guide's CPU-training document leads (its worked FLOPs example and the QLoRA / rent-by-the-hour routes)."""
    from tools.lang import has_cjk

    query = (
        "CPU 训练 微调 可行吗 速度 慢 数量级 QLoRA 租 GPU"
        if has_cjk(f.text or "")
        else "train fine-tune on CPU possible slower TFLOPS QLoRA rent GPU"
    )  # the passage comes back in the query's language
    out = [A.call(TRAINING, "search_guide", query=query, k=3, doc_id="cpu-training")]
    if has_size(f) and re.search(r"跑通|测试|试一下|流程|dry[\s-]*run|smoke|\btest", f.text or "", re.I):
        # a dry run of the pipeline on the CPU: the RAM it needs (PyTorch's CPU kernels want fp32, 4 B/param);
        # a real training run keeps the guide's FLOPs gap as the answer
        model = {"model": f.model} if f.model else {"params": f"{f.params_b:g}B"}
        mode = f.mode if f.mode in ("full", "lora") else "lora"
        out.insert(0, A.call(TRAINING, "estimate_memory", **model, mode=mode, precision="fp32"))
    return out


def applies_unsized(f: Frame) -> bool:
    """'双CPU、2T内存、Q8大概速度多少' with no model: the rule (bandwidth ÷ bytes per token, a copy per socket) from
    the guide, since no figure can be computed without the model."""
    from tools.cpu_inference import in_domain

    if has_size(f) or f.training or f.is_log:
        return False
    t = _text(f)
    w = _words()
    cpu = bool(w["dual_socket"].search(t) or w["single_socket"].search(t) or w["cpu_inference"].search(t))
    return cpu and in_domain(t) and (bool(w["speed"].search(t)) or bool(host_ram(f)))


def unsized_calls(f: Frame) -> list[ToolCall]:
    from tools.lang import has_cjk

    query = (
        "CPU 推理 速度 内存带宽 单路 双路 NUMA 内存 各放一份"
        if has_cjk(f.text or "")
        else "CPU inference speed memory bandwidth one socket two sockets NUMA copy per socket"
    )
    return [A.call(UNSIZED, "search_guide", query=query, k=3, doc_id="cpu-inference-sockets")]
