"""Renderer for `largest_model`: line 1 is the size limit per precision with a real model at each; the
assumptions (context, one sequence, generic shape) follow."""

from __future__ import annotations

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import Context, renderer, zh_en

_PREC_ZH = {
    "bf16": "bf16 原版",
    "int8": "int8 量化",
    "int4": "4-bit 量化（AWQ/GPTQ/GGUF Q4）",
    "nf4": "QLoRA（NF4 底座）",
}
_PREC_EN = {"bf16": "bf16 as released", "int8": "int8", "int4": "4-bit (AWQ/GPTQ/GGUF Q4)", "nf4": "QLoRA (NF4 base)"}
_MODE_ZH = {"inference": "推理", "lora": " LoRA 微调", "qlora": " QLoRA 微调", "full": "全量微调"}
_MODE_EN = {
    "inference": "inference",
    "lora": "LoRA fine-tuning",
    "qlora": "QLoRA fine-tuning",
    "full": "full fine-tuning",
}


def _size(b: float | None) -> str:
    return f"{num(b)}B" if b is not None else "-"


@renderer("largest_model", grouped=True)
def largest_model(w: Writer, r: ToolResult, ctx: Context) -> None:
    mine = [x for x in ctx.results if x.name == "largest_model" and not x.error]
    if ctx.intent != "largest_model":
        _smaller_line(w, mine)
        return
    if len({x.result.get("gpu_name") for x in mine}) >= 2:
        _choice(w, mine, ctx)
        return
    for x in mine:
        _one(w, x)
    for a in (mine[0].result.get("assumptions") or []) if mine else []:
        w.add("assumptions", *zh_en(a))
    w.add(
        "next",
        "告诉我具体想跑的模型和上下文长度，我按它自己的配置核一遍（KV 缓存、并发）。",
        "Name the model and context you want and I will check it with its own config (KV cache, concurrency).",
    )


def _smaller_line(w: Writer, mine: list[ToolResult]) -> None:
    """A follow-up to a model that does not fit: the largest of its own line that does, at the smallest precision."""
    for x in mine:
        rows = [row for row in x.result.get("rows") or [] if row.get("examples")]
        if not rows:
            continue
        row = rows[-1]  # the 4-bit row: the biggest model the card holds
        e = row["examples"][0]
        prec = str(row.get("precision"))
        w.add(
            "next",
            f"这张卡放不下整个模型；{_short(str(x.result.get('gpu_name')))} 单卡 {_PREC_ZH.get(prec, prec)}最大约 "
            f"{_size(row.get('max_params_b'))}，同系列里放得下的是 {e['model']}（约 {num(e['total_gb'])} GB）——"
            "它是另一个（更小的）模型，效果不等同于原版。",
            f"The card cannot hold the whole model; one {_short(str(x.result.get('gpu_name')))} holds up to about "
            f"{_size(row.get('max_params_b'))} at {_PREC_EN.get(prec, prec)}, and the one of this line that fits is "
            f"{e['model']} (about {num(e['total_gb'])} GB) — a different, smaller model, not the original's quality.",
        )
        return


def _short(name: str) -> str:
    """'NVIDIA GeForce RTX 4070 12GB' → 'RTX 4070 12GB' (the maker's words add nothing in a sentence)."""
    return name.replace("NVIDIA ", "").replace("GeForce ", "").strip()


def _int4(res: dict) -> float:
    row = next((x for x in res.get("rows") or [] if x.get("precision") == "int4"), None) or {}
    return float(row.get("max_params_b") or 0.0)


def _choice(w: Writer, mine: list[ToolResult], ctx: Context) -> None:
    """Which card for running models: the one that holds the larger 4-bit model (capacity decides what runs at all);
    memory bandwidth decides decode speed for a model both hold (each token reads every weight once)."""
    bw: dict[str, float] = {}
    for s in ctx.results:
        if s.name == "gpu_specs" and not s.error:
            for g in s.result.get("gpus") or []:
                if g.get("name") and g.get("mem_bw_gbs"):
                    bw[_short(str(g["name"]))] = float(g["mem_bw_gbs"])
    ranked = sorted(mine, key=lambda x: _int4(x.result), reverse=True)
    best, other = ranked[0].result, ranked[1].result
    b_name, o_name = _short(str(best.get("gpu_name"))), _short(str(other.get("gpu_name")))
    b_bw, o_bw = bw.get(b_name), bw.get(o_name)
    if abs(_int4(best) - _int4(other)) < 0.05 * max(_int4(best), 1):
        faster = b_name if (b_bw or 0) >= (o_bw or 0) else o_name
        zh = f"两张卡能放下的模型差不多大（4-bit 都到约 {num(_int4(best))}B），选带宽更高的 {faster}：出字更快。"
        en = f"Both hold about the same size (about {num(_int4(best))}B at 4-bit); pick {faster}, whose higher memory bandwidth decodes faster."
    else:
        zh = (
            f"跑本地大模型选 {b_name}：4-bit 量化最大约能跑 {num(_int4(best))}B 的模型，{o_name} 只到约 {num(_int4(other))}B"
            "——显存决定能跑多大的模型。"
        )
        en = (
            f"For running LLMs pick {b_name}: it holds up to about {num(_int4(best))}B at 4-bit, {o_name} about "
            f"{num(_int4(other))}B — memory decides which models run at all."
        )
        if b_bw and o_bw and o_bw > b_bw * 1.1:
            zh += f"不过 {o_name} 的显存带宽更高（{num(o_bw)} vs {num(b_bw)} GB/s），两张都放得下的模型上它出字快约 {o_bw / b_bw:.1f} 倍。"
            en += (
                f" {o_name} has more memory bandwidth ({num(o_bw)} vs {num(b_bw)} GB/s), so on a model both hold it "
                f"decodes about {o_bw / b_bw:.1f}× faster."
            )
    w.add("verdict", zh, en)
    for x in mine:
        _one(w, x, section="numbers")
    for a in (mine[0].result.get("assumptions") or [])[:1]:
        w.add("assumptions", *zh_en(a))


def _one(w: Writer, r: ToolResult, section: str = "verdict") -> None:
    res = r.result
    n = int(res.get("gpus") or 1)
    setup_zh = f"{n} 张 {res.get('gpu_name')}" if n > 1 else str(res.get("gpu_name"))
    setup_en = f"{n} × {res.get('gpu_name')}" if n > 1 else str(res.get("gpu_name"))
    usable = res.get("usable_gb")
    parts_zh, parts_en = [], []
    for row in res.get("rows") or []:
        prec = str(row.get("precision"))
        ex = row.get("examples") or []
        if row.get("max_params_b") is None:
            parts_zh.append(f"{_PREC_ZH.get(prec, prec)}放不下 1B 的模型")
            parts_en.append(f"{_PREC_EN.get(prec, prec)}: not even a 1B model")
            continue
        eg_zh = f"（如 {ex[0]['model']}，约 {num(ex[0]['total_gb'])} GB）" if ex else ""
        eg_en = f" (e.g. {ex[0]['model']}, about {num(ex[0]['total_gb'])} GB)" if ex else ""
        parts_zh.append(f"{_PREC_ZH.get(prec, prec)}最大约 {_size(row.get('max_params_b'))}{eg_zh}")
        parts_en.append(f"{_PREC_EN.get(prec, prec)} up to about {_size(row.get('max_params_b'))}{eg_en}")
    mode = str(res.get("mode"))
    w.add(
        section,
        f"{setup_zh}（每卡可用约 {num(usable)} GB）做{_MODE_ZH.get(mode, mode)}：" + "；".join(parts_zh) + "。",
        f"{setup_en} (about {num(usable)} GB usable per GPU), {_MODE_EN.get(mode, mode)}: " + "; ".join(parts_en) + ".",
    )
    total = res.get("all_gpus_usable_gb")
    if n > 1 and mode != "inference" and isinstance(total, (int, float)):
        # tools/largest_model sizes a multi-card training job sharded with ZeRO-3: say so, and what plain DDP gives
        w.add(
            section,
            f"这是按 DeepSpeed ZeRO-3 / FSDP 把权重、梯度和优化器状态切分到 {n} 张卡算的（合计可用约 {num(total)} GB）；"
            "不切分的数据并行（DDP）每张卡各放一份完整模型，上限只有单卡放得下的大小。",
            f"This shards weights, gradients and optimizer states over the {n} GPUs with DeepSpeed ZeRO-3 / FSDP (about "
            f"{num(total)} GB usable in all); plain data parallel (DDP) keeps a full copy per GPU, so its limit is "
            "what one card holds.",
        )
    for row in res.get("rows") or []:
        for e in (row.get("examples") or [])[1:]:
            w.add(
                "numbers",
                f"{_PREC_ZH.get(str(row.get('precision')), '')}：{e['model']}（{num(e['params_b'])}B）约 {num(e['total_gb'])} GB/卡",
                f"{_PREC_EN.get(str(row.get('precision')), '')}: {e['model']} ({num(e['params_b'])}B) about "
                f"{num(e['total_gb'])} GB per GPU",
            )
