"""Lead with the user's question: what line 1 must say beyond the tool's verdict.

- An unknown model, a variant sized by its base, a modded card sized by its stated capacity: said on
  line 1 (which architecture or capacity was assumed), not only in the details.
- "I get OOM with setup S" (`oom_report`): line 1 says what to change in S, then the deciding number.
"""

from __future__ import annotations

from assistant.offline.reading.frame import Frame
from assistant.offline.writing.render import Writer


def assumed_note(w: Writer, f: Frame) -> str:
    """One short clause naming what was assumed in place of something the tables do not have."""
    notes: list[str] = []
    for m in f.model_mentions:
        if m.catalog_id is None and m.size_b:
            notes.append(
                w.t(
                    f"模型目录里没有「{m.text}」，按通用 {m.size_b:g}B 稠密架构估算，给出它的 config.json 能算准",
                    f"'{m.text}' is not in the model catalog; sized as a generic {m.size_b:g}B dense model "
                    "(its config.json would make this exact)",
                )
            )
        elif m.variant and m.catalog_id:
            notes.append(w.t(f"「{m.text}」按 {m.catalog_id} 的结构计算", f"'{m.text}' sized as {m.catalog_id}"))
    for g in f.gpu_mentions:
        if g.modded and g.memory_gb:
            notes.append(
                w.t(
                    f"{g.name} {g.memory_gb:g}GB 不在规格表里（改装或特殊版本），按 {g.memory_gb:g} GB 显存计算",
                    f"the {g.name} {g.memory_gb:g}GB is not in the spec table (modded or special edition); "
                    f"sized by its {g.memory_gb:g} GB",
                )
            )
    return w.t("；".join(notes), "; ".join(notes))


def lead(w: Writer, f: Frame, intents: list[str]) -> None:
    """Adjust line 1 after every part is written."""
    verdict = w.parts["verdict"]
    if not verdict:
        return
    if "oom_report" in f.mentions and intents[0] in ("memory", "min_gpus") and w.parts["next"]:
        change = w.parts["next"].pop(0)
        verdict.insert(0, w.t(f"要改的是：{change}", f"What to change: {change}"))
    note = assumed_note(w, f)
    if note:
        first = verdict[0].rstrip()
        verdict[0] = first + w.t(f"（{note}）", f" ({note})")
