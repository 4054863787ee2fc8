"""Cards: specs and comparisons, interconnect (NVLink/PCIe/network, all-reduce time), a card's
reported memory (nvidia-smi shows less than expected?) and a model's architecture."""

from __future__ import annotations

import re
from functools import lru_cache

from assistant.offline.intents import args as A
from assistant.offline.intents.args import INTERCONNECT, MODEL_INFO, REPORTED_MEMORY, SPECS
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall


def applies_reported_memory(f: Frame) -> bool:
    return bool(f.reported_memory and f.gpus and not has_size(f))


def applies_allreduce(f: Frame) -> bool:
    return "allreduce" in f.cues and (has_size(f) or bool(f.gpus))  # "how long does one all-reduce of 7B take"


def applies_model_info(f: Frame) -> bool:
    return "model_info" in f.cues and bool(f.model) and not f.gpus and not f.mode


def applies_spec_question(f: Frame) -> bool:
    """ "the paper says NVLink 160 GB/s on the H800, the datasheet 400?": a spec question about the card even
    when a model is named, as long as nothing asks about fitting, counts, time, price or a plan."""
    asks_job = f.cues & {"fit", "how_many", "max_fit", "time", "price", "plan", "decode_speed"}
    if f.gpus and "pooled_memory" in f.mentions and not asks_job and not f.model:
        return True  # "will two cards' memory add up over NVLink": the card's own memory answers it
    return bool(f.gpus) and "specs" in f.cues and not asks_job and not f.mode and not f.training


# "why is the 32G no faster than the 16G", "will a 24GB K80 make training faster": a speed question about memory
_SPEED_RE = re.compile(
    r"fast|slow|speed|quick|differen|improv|速度|快|慢|区别|差别|差异|提升|提速|性能",
    re.I,
)


def _board_card(f: Frame) -> bool:
    """A card stated at its whole-board memory (a '24GB K80': two 12 GB GPUs, knowledge/gpus.yaml gpus_per_board)."""
    boards = _boards()
    return any(g.gpu_id in boards and (g.memory_gb or 0) > boards[g.gpu_id] for g in f.gpu_mentions)


@lru_cache(maxsize=1)
def _boards() -> dict[str, float]:
    """Rows of knowledge/gpus.yaml carrying several GPUs per board: id → memory per GPU."""
    from tools.gpus import all_gpus

    return {g.id: g.memory_gb for g in all_gpus() if g.gpus_per_board > 1}


def _priced(name: str) -> bool:
    """The card has a row in knowledge/prices.yaml (a K80 has none: asking would only print an error)."""
    from tools.gpus import resolve_gpu

    try:
        return bool(resolve_gpu(name).price_key)
    except Exception:  # an unknown name: let the price tool report it
        return True


def applies_memory_variant(f: Frame) -> bool:
    """Two memory sizes of one card (or a multi-GPU board's total) and a speed question, no model to size:
    the spec rows answer it (same chip, same compute; the memory only changes capacity)."""
    if has_size(f) or not f.gpus or not _SPEED_RE.search(f.text):
        return False
    return (len(f.gpus) == 1 and len(f.card_sizes) >= 2) or _board_card(f)


# "8*80G 是一个 node 还是多个", "does 32 A100 mean 8 per machine × 4", 「16卡是一台还是两台」: how the cards are housed
NODE_LAYOUT = "node_layout"
_NODE_QUESTION_RE = re.compile(
    r"(?:一个|单个|1个|一台|单台|单机|单节点).{0,8}(?:还是|或者|或).{0,8}(?:多个|多台|多机|两台|几台|多节点|\d+\s*台)|"
    r"(?:单机|一台机器|一台).{0,6}(?:\d+|十六|三十二)\s*卡.{0,6}还是|还是.{0,6}(?:两台|多台|多机|\d+\s*台)|"
    r"(?:one|single|a single) (?:node|machine|server).{0,30}\b(?:or|vs)\b.{0,30}(?:multiple|several|many|\d+) "
    r"(?:nodes|machines|servers)|(?:cards?|gpus?) (?:in|on|per) one (?:machine|node|server)|"
    r"multiple (?:cards|gpus) on one machine or multiple machines|(?:\d+\s*(?:cards?|gpus?) in one (?:machine|node))",
    re.I,
)


def applies_node_layout(f: Frame) -> bool:
    """A question about whether N cards are one server or several: whole 8-GPU servers answer it."""
    return bool(f.gpu_count or f.nodes) and bool(_NODE_QUESTION_RE.search(f.text))


def node_layout_calls(f: Frame) -> list[ToolCall]:
    """The servers N cards take (8 per HGX server) and the links inside and between them; the card named, else the
    usual 80 GB training card for an 80 GB size."""
    n = f.gpu_count or (f.nodes or 1) * 8
    nodes = -(-n // 8)
    gpu = A.gpu_arg(f) or (A.DEFAULT_GPU if not f.vram_gb or f.vram_gb >= 80 else f"{f.vram_gb:g}GB")
    multi = {"nodes": nodes, "network": f.network} if nodes > 1 else {}  # the layout names the usual NICs
    out = [A.call(NODE_LAYOUT, "interconnect_advice", gpu=gpu, n_gpus=n, **multi)]
    if has_size(f):  # 「DeepSeek-V2 SFT 8*80G 够吗，内存要多少」: the job on those cards, host RAM included
        from assistant.offline.intents.memory import memory_kwargs

        kw = {**memory_kwargs(f), "gpu": gpu, "gpus": n}
        out.append(A.call(NODE_LAYOUT, "estimate_memory", **kw))
    out.append(A.call(NODE_LAYOUT, "search_guide", query=A.guide_query(f, INTERCONNECT), k=2))
    return out


# ---- speed and performance: which axis the user asked about leads the comparison -------------------
# "哪个快 / 低很多吗 / 效果怎么样 / is this reasonable": a question about speed, not capacity (「差多少」 alone is any spec)
_PERF_RE = re.compile(
    r"快|慢|速度|性能|效率|效果|低很多|高很多|强|弱|多少倍|几倍|"
    r"fast|slow|quick|speed|perform|throughput|how good|any good|reasonable|how much (?:better|worse)",
    re.I,
)
_TRAIN_RE = re.compile(r"训练|微调|预训练|train|fine[\s-]*tun|pre-?train", re.I)
_DECODE_RE = re.compile(
    r"推理|部署|生成|解码|token|跑模型|跑大模型|大模型|翻译|识别|出图|inference|infer\b|serv|decod|generat|"
    r"vllm|sglang|ollama|llama\.?cpp|tokens?\s*/\s*s",
    re.I,
)
_LINK_RE = re.compile(
    r"nvlink|多卡|卡间|通信|p2p|nccl|all[\s_-]*reduce|ring|zigzag|张量并行|tensor[\s_-]*parallel|"
    r"multi[\s-]*gpu|interconnect|(?<![a-z])tp(?![a-z])",
    re.I,
)
# one card: "2080ti 魔改22G效果怎么样" / "how good is the 3090": its performance, measured against its own family
_QUALITY_RE = re.compile(
    r"效果|性能|怎么样|如何|好不好|值不值|靠谱|好用|how good|any good|worth it|how (?:does|is) (?:it|the)\b.{0,20}perform",
    re.I,
)


def speed_axes(f: Frame) -> set[str]:
    """What a speed question is about: "speed" (asked at all), "train" (dense compute decides), "decode"
    (memory bandwidth decides token-by-token generation), "link" (NVLink/PCIe decides multi-GPU work)."""
    text = f.text or ""
    if not _PERF_RE.search(text) and "decode_speed" not in f.cues:
        return set()
    out = {"speed"}
    if f.training or _TRAIN_RE.search(text):
        out.add("train")
    if "decode_speed" in f.cues or f.mode == "inference" or _DECODE_RE.search(text):
        out.add("decode")
    if _LINK_RE.search(text) or "interconnect" in f.cues:
        out.add("link")
    return out


def applies_performance(f: Frame) -> bool:
    """「2080ti 魔改22G的效果怎么样」: one card's performance, no job to size: its spec row beside its family's."""
    return (
        len(set(f.gpus)) == 1
        and not has_size(f)
        and bool(_QUALITY_RE.search(f.text or ""))
        # 'fit' alone is no job here (「性能怎么样，值得买吗」 reads 能…吗 as a fit cue); without a size nothing is sized
        and not f.cues & {"how_many", "max_fit", "time", "price", "plan", "diagnose"}
    )


# one card measured against another, not "do multiple cards speed things up / work together"
_VERSUS_RE = re.compile(
    r"比|vs\.?|还是|哪个|哪张|哪款|对比|相比|差多少|差距|更快|更慢|更强|更好|than|versus|compared|which|faster|slower",
    re.I,
)


def compares_speed(f: Frame) -> bool:
    """A speed question that sets cards against each other (「哪个快」「比A100慢多少」), not "does it speed up"."""
    return bool(speed_axes(f)) and bool(_VERSUS_RE.search(f.text or ""))


_RUN_TIME_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*(?:h|hrs?|hours?|小时|天|days?)(?![a-z])", re.I)
_CAUSE_RE = re.compile(r"为什么|为啥|怎么回事|原因|正常吗|正不正常|\bwhy\b|normal\?", re.I)


def applies_speed_compare(f: Frame) -> bool:
    """「8卡H20做训练，比A100慢多少」: two cards and a speed word, no model to size: the spec ratio on the asked axis
    answers it (before the step-time and memory rules, which need a model). "Why is X faster" is a cause question."""
    return (
        len(set(f.gpus)) >= 2
        and compares_speed(f)
        and "pooled_memory" not in f.mentions
        and not _RUN_TIME_RE.search(f.text or "")  # "6卡H800 25h, 我2卡A800 126h": the rescale rule answers
        and not has_size(f)
        and not f.paste
        and not _CAUSE_RE.search(f.text or "")
        and not f.cues & {"price", "plan", "how_many", "diagnose"}
    )


def applies_speed_parts(f: Frame) -> bool:
    """「8张H20每秒多少token？训练效率会比A100低很多吗」: a decode speed for the model on the first card and a
    training-speed comparison between cards — both parts, not a memory verdict per card."""
    axes = speed_axes(f)
    return len(set(f.gpus)) >= 2 and "decode_speed" in f.cues and has_size(f) and "train" in axes


def applies_specs(f: Frame) -> bool:
    return bool(f.gpus) and (bool(f.cues & {"compare", "specs"}) or len(f.gpus) >= 2)


def applies_interconnect(f: Frame) -> bool:
    # "how do I set up NCCL across nodes" is a how-to: the guide answers it; "how much bandwidth do I need between
    # my two machines" is a sizing question the tool answers
    sizing = "asked_bandwidth" in f.mentions and "multi_node" in f.mentions
    return "interconnect" in f.cues and not ("howto" in f.cues and not (f.gpus or f.gpu_count or f.nodes or sizing))


def applies_specs_fallback(f: Frame) -> bool:
    # a named card with a symptom (「利用率才40%，是不是卡有问题」) is a diagnosis question, not a spec sheet
    from assistant.offline.intents.stack import asks_about_the_stack

    # nor is a software question about a Chinese accelerator (「S4000 容器里 mthreads-gmi 看不到驱动」): the guide is
    return bool(f.gpus) and not ({"howto", "diagnose"} & f.cues) and not asks_about_the_stack(f)


def reported_memory_calls(f: Frame) -> list[ToolCall]:
    value, unit = f.reported_memory  # type: ignore[misc]
    return [A.call(REPORTED_MEMORY, "check_reported_memory", gpu=A.gpu_arg(f), seen_value=value, seen_unit=unit)]


def model_info_calls(f: Frame) -> list[ToolCall]:
    return [
        A.call(MODEL_INFO, "lookup_model", query=f.model),
        A.call(MODEL_INFO, "search_guide", query=A.guide_query(f, MODEL_INFO), k=2),
    ]


def specs_calls(f: Frame) -> list[ToolCall]:
    out: list[ToolCall] = []
    names = [n for n in (A.card_name(f, g) for g in f.gpus[:6]) if n]
    if len(f.gpus) == 1 and "pcie" in f.mentions and "sxm" in f.mentions:
        names = [f"{f.gpus[0]} PCIe", f"{f.gpus[0]} SXM"]  # "A100 PCIe和SXM有什么区别"
    sizes = f.card_sizes
    if len(f.gpus) == 1 and len(sizes) >= 2:  # "A100 40G 和 80G 选哪个": both variants, side by side
        names = [f"{f.gpus[0]} {size}GB" for size in sizes[:4]]
    if len(f.gpus) == 1 and "suitability" in f.cues and len(names) == 1:
        # "H20 适合训练吗": measured against the usual training card (H100; the A100 for an H100/H200)
        ref = "A100 80GB" if re.match(r"h(100|200|800)", f.gpus[0], re.I) else "H100"
        names = [names[0], ref]
    if applies_speed_parts(f):  # the model's decode speed on the user's card first, then the comparison
        from assistant.offline.intents import serving

        own = {"gpus": f.gpus[:1], "precision": f.precision or A.shipped_precision(f.model)}  # V3 ships in fp8
        out += serving.calls(f.model_copy(update=own))
    elif len(names) == 1 and applies_performance(f):
        names += _family_reference(names[0])
    counts = _setup_counts(f, names)
    out.append(A.call(SPECS, "gpu_specs", gpus=names, **({"counts": counts} if counts else {})))
    if applies_memory_variant(f):  # a speed question: the rows and the guide answer it, prices only if asked
        if "price" in f.cues and _priced(names[0]):
            out.append(A.call(SPECS, "gpu_price", gpu=names[0], gpu_count=f.gpu_count, **A.period_args(f)))
        out.append(A.call(SPECS, "search_guide", query=A.guide_query(f, SPECS), k=2))
        return out
    if len(sizes) >= 2 and len(f.gpus) == 1:
        for name in names:
            out.append(A.call(SPECS, "gpu_price", gpu=name, gpu_count=f.gpu_count, **A.period_args(f)))
    # "哪个快": a speed question, not a price one — unless it asks value too (「值不值」「性价比」)
    speed_only = bool(speed_axes(f)) and "price" not in f.cues and "value_for_money" not in f.mentions
    if len(f.gpus) >= 2 and "compare" in f.cues and not speed_only:  # "哪个好" is also a price question
        for gpu in f.gpus[:4]:
            card = A.card_name(f, gpu)
            if card and _priced(card):  # a card with no price row would only print an error
                out.append(A.call(SPECS, "gpu_price", gpu=card, gpu_count=f.gpu_count, **A.period_args(f)))
    out.append(A.call(SPECS, "search_guide", query=A.guide_query(f, SPECS), k=2))
    return out


_FLOPS_RE = re.compile(r"算力|[tpe]?flops|tops\b", re.I)


def _setup_counts(f: Frame, names: list[str]) -> list[int] | None:
    """「单张 5090 还是两张 2080 Ti 22G」: every card counted and the counts differ → a setup comparison. 「8 张 H100，
    FP8 算力多少」: one card counted several times and compute asked → the server's totals."""
    if len(names) == 1 and len(f.gpus) == 1 and (f.gpu_count or 0) > 1 and _FLOPS_RE.search(f.text or ""):
        return [int(f.gpu_count or 1)]
    if len(names) != len(f.gpus) or len(names) < 2:
        return None
    by_name = {m.name: m.count for m in f.gpu_mentions}
    counts = [by_name.get(g) for g in f.gpus]
    if any(c is None for c in counts) or len(set(counts)) < 2:
        return None
    return [int(c or 1) for c in counts]


def _family_reference(name: str) -> list[str]:
    """The card a modded board is measured against: its family's stock row (a 22 GB 2080 Ti beside the 11 GB one,
    so the answer shows the same chip, bandwidth and compute). A stock card stands alone."""
    from tools.errors import ToolInputError
    from tools.gpus import all_gpus, resolve_gpu

    try:
        row = resolve_gpu(name)
    except ToolInputError:
        return []
    if not row.modded:
        return []
    stock = [g for g in all_gpus() if g.family == row.family and not g.modded]
    return [min(stock, key=lambda g: g.lookup_rank).name] if stock else []


def interconnect_calls(f: Frame) -> list[ToolCall]:
    out: list[ToolCall] = []
    net = f.network or (f.link_name if f.nics_per_node else None)  # 「每台4张200G的IB网卡」
    nodes = f.nodes or (2 if "multi_node" in f.mentions else None)
    gpus = f.gpu_count or ((nodes or 1) * 8 if nodes and nodes > 1 else None)
    size = {"params_b": f.params_b} if f.params_b else {}
    both = "pcie" in f.mentions and "nvswitch_or_nvlink_or_sxm" in f.mentions
    if both and not (nodes and nodes > 1):
        # "on 8× A100 SXM with NVSwitch … and on a PCIe-only box": one call per topology
        for topo in ("nvswitch", "pcie"):  # an 8-GPU server unless a count was given
            out.append(
                A.call(
                    INTERCONNECT,
                    "interconnect_advice",
                    gpu=A.gpu_arg(f) or A.DEFAULT_GPU,
                    n_gpus=gpus or 8,
                    topology=topo,
                    **size,
                )
            )
    elif nodes and nodes > 1 and not net:
        # "需要什么网络": compare the three usual answers side by side.
        for n in ("10G", "RoCE 100G", "IB HDR"):
            out.append(
                A.call(
                    INTERCONNECT,
                    "interconnect_advice",
                    gpu=A.gpu_arg(f) or A.DEFAULT_GPU,
                    n_gpus=gpus,
                    nodes=nodes,
                    network=n,
                    **size,
                )
            )
    else:
        out.append(
            A.call(
                INTERCONNECT,
                "interconnect_advice",
                gpu=A.gpu_arg(f),
                n_gpus=gpus,
                nodes=nodes,
                network=net,
                nics_per_node=f.nics_per_node,
                **size,
            )
        )
    out.append(A.call(INTERCONNECT, "search_guide", query=A.guide_query(f, INTERCONNECT), k=3))
    return out
