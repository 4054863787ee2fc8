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


@renderer("largest_model")
def largest_model(w: Writer, r: ToolResult, ctx: Context) -> None:
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
        "verdict",
        f"{setup_zh}（每卡可用约 {num(usable)} GB）做{_MODE_ZH.get(mode, mode)}：" + "；".join(parts_zh) + "。",
        f"{setup_en} (about {num(usable)} GB usable per GPU), {_MODE_EN.get(mode, mode)}: " + "; ".join(parts_en) + ".",
    )
    for row in res.get("rows") or []:
        for e in (row.get("examples") or [])[1:]:
            w.add(
                "numbers",
                f"{_PREC_ZH.get(str(row.get('precision')), '')}：{e['model']}（{num(e['params_b'])}B）约 {num(e['total_gb'])} GB/卡",
                f"{_PREC_EN.get(str(row.get('precision')), '')}: {e['model']} ({num(e['params_b'])}B) about "
                f"{num(e['total_gb'])} GB per GPU",
            )
    for a in res.get("assumptions") or []:
        w.add("assumptions", *zh_en(a))
    w.add(
        "next",
        "告诉我具体想跑的模型和上下文长度，我按它自己的配置核一遍（KV 缓存、并发）。",
        "Name the model and context you want and I will check it with its own config (KV cache, concurrency).",
    )
