"""Memory: does the job fit (estimate_memory), the fewest cards (find_min_gpus), the longest context /
largest batch (find_max_fit). Follow-ups after "does not fit": how many cards, LoRA/QLoRA, quantised
weights, the next memory size up for a close call; the links of a 4+ card training rental."""

from __future__ import annotations

from assistant.offline.intents import args as A
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


def applies(f: Frame) -> bool:
    return has_size(f) and ("fit" in f.cues or bool(f.mode) or f.training or f.finetune or bool(f.gpus))


def applies_fallback(f: Frame) -> bool:
    return has_size(f) and "howto" not in f.cues


def calls(f: Frame) -> list[ToolCall]:
    out: list[ToolCall] = []
    mem_kw = A.memory_kwargs(f)
    if len(f.co_models) >= 2 and mem_kw.get("mode") in (None, "inference"):
        # "A100 80G 同时部署 7B 和 20B": size each model on the same card; the renderer sums the weights
        for model in f.co_models:
            kw = {k: v for k, v in mem_kw.items() if k not in ("model", "params")}
            out.append(A.call(NAME, "estimate_memory", **{**kw, "model": model, "mode": "inference"}))
        out.append(A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2))
        return out
    if mem_kw.get("mode") == "inference" and not mem_kw.get("precision") and A.native_fp8(mem_kw.get("model")):
        mem_kw["precision"] = "fp8"  # DeepSeek-V3/R1 ship FP8 weights: the released checkpoint is what is served
    cards = [A.gpu_arg(f, g) for g in f.gpus[:3]] or [mem_kw.get("gpu")]  # "用A100还是4090": each card
    if f.gpu_alt_memory_gb and len(f.gpus) == 1:  # "A100 40G vs 80G": both sizes of the one card
        cards.append(f"{f.gpu} {f.gpu_alt_memory_gb}GB" + (f" {f.gpu_form}" if f.gpu_form else ""))
    for gpu in cards:
        kw = {**mem_kw, "gpu": gpu}
        if len(f.modes) > 1 and "inference" not in f.modes:  # "QLoRA 要多少？bf16 LoRA 呢？"
            for mode in f.modes[:3]:
                out.append(A.call(NAME, "estimate_memory", **{**kw, "mode": "full" if mode == "pretrain" else mode}))
        elif f.mode is None and f.finetune:
            # 「能用4090微调7B吗」: say both — full fine-tune and LoRA.
            out.append(A.call(NAME, "estimate_memory", **{**kw, "mode": "full"}))
            out.append(A.call(NAME, "estimate_memory", **{**kw, "mode": "lora"}))
        else:
            out.append(A.call(NAME, "estimate_memory", **kw))
    if "interconnect" in f.cues and (f.gpu_count or 0) > 1:  # "两张卡…PCIe 版够用吗": the link too
        topology = "pcie" if "pcie" in f.mentions else "nvlink" if "nvlink_or_sxm" in f.mentions else None
        # gradient-sync time only for full training on a named card (LoRA syncs only the adapters)
        sync = {"params_b": f.params_b} if f.params_b and f.gpus and mem_kw.get("mode") == "full" else {}
        out.append(A.call(NAME, "interconnect_advice", gpu=A.gpu_arg(f), n_gpus=f.gpu_count, topology=topology, **sync))
    out.append(A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2))
    return out


def max_fit_calls(f: Frame) -> list[ToolCall]:
    mem_kw = A.memory_kwargs(f)
    return [
        A.call(
            MAX_FIT, "find_max_fit", **{**mem_kw, "gpu": mem_kw.get("gpu") or A.DEFAULT_GPU}, solve_for=A.solve_for(f)
        ),
        A.call(MAX_FIT, "search_guide", query=A.guide_query(f, MAX_FIT), k=2),
    ]


def min_gpus_calls(f: Frame) -> list[ToolCall]:
    out: list[ToolCall] = []
    kw = dict(A.memory_kwargs(f))
    kw.pop("gpus", None)
    kw["gpu"] = kw.get("gpu") or A.DEFAULT_GPU
    if kw.get("mode") == "inference" and not kw.get("precision") and A.native_fp8(kw.get("model")):
        # DeepSeek-V3/R1 ship FP8 weights ("满血版" = the released checkpoint): size that first, bf16 beside it
        out.append(A.call(MIN_GPUS, "find_min_gpus", **{**kw, "precision": "fp8"}))
    out.append(A.call(MIN_GPUS, "find_min_gpus", **kw))
    out.append(A.call(MIN_GPUS, "search_guide", query=A.guide_query(f, MIN_GPUS), k=2))
    return out


def _call(intent: str, name: str, args: dict) -> ToolCall:
    return A.call(intent, name, **args)


def follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """After estimate_memory: alternatives when the job does not fit."""
    done = {r.name for r in results}
    out: list[ToolCall] = []
    for r in results:
        if r.name != "estimate_memory" or r.error:
            continue
        total = r.result.get("total_gb")
        if A.fits(r.result) is None and isinstance(total, (int, float)) and total > 80 and "find_min_gpus" not in done:
            # No card named and too big for any single 80 GB card: how many of the usual one?
            kw = {k: v for k, v in r.args.items() if k not in ("gpus", "zero")}
            out.append(_call(NAME, "find_min_gpus", {**kw, "gpu": A.DEFAULT_GPU}))
            done.add("find_min_gpus")
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
                x.name == "estimate_memory" and str(x.args.get("mode")) in ("lora", "qlora") for x in results
            ):
                for alt in ("lora", "qlora"):
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
    return out


def min_gpus_follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """ "要几张卡" for training: the links of the count actually rented (4+ cards want NVLink)."""
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
            return [
                A.call(
                    MIN_GPUS,
                    "interconnect_advice",
                    gpu=r.args.get("gpu"),
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
