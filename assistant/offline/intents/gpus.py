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


def applies_specs(f: Frame) -> bool:
    return bool(f.gpus) and (bool(f.cues & {"compare", "specs"}) or len(f.gpus) >= 2)


def applies_interconnect(f: Frame) -> bool:
    # "how do I set up NCCL across nodes" is a how-to: the guide answers it
    return "interconnect" in f.cues and not ("howto" in f.cues and not (f.gpus or f.gpu_count or f.nodes))


def applies_specs_fallback(f: Frame) -> bool:
    return bool(f.gpus) and "howto" not in f.cues


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
    out.append(A.call(SPECS, "gpu_specs", gpus=names))
    if applies_memory_variant(f):  # a speed question: the rows and the guide answer it, prices only if asked
        if "price" in f.cues and _priced(names[0]):
            out.append(A.call(SPECS, "gpu_price", gpu=names[0], gpu_count=f.gpu_count, **A.period_args(f)))
        out.append(A.call(SPECS, "search_guide", query=A.guide_query(f, SPECS), k=2))
        return out
    if len(sizes) >= 2 and len(f.gpus) == 1:
        for name in names:
            out.append(A.call(SPECS, "gpu_price", gpu=name, gpu_count=f.gpu_count, **A.period_args(f)))
    if len(f.gpus) >= 2 and "compare" in f.cues:  # "哪个好" is also a price question
        for gpu in f.gpus[:4]:
            out.append(A.call(SPECS, "gpu_price", gpu=A.card_name(f, gpu), gpu_count=f.gpu_count, **A.period_args(f)))
    out.append(A.call(SPECS, "search_guide", query=A.guide_query(f, SPECS), k=2))
    return out


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
