"""Lead with the user's question: what line 1 must say beyond the tool's verdict.

- An unknown model, a variant sized by its base, a modded card sized by its stated capacity: said on
  line 1 (which architecture or capacity was assumed), not only in the details.
- "I get OOM with setup S" (`oom_report`): line 1 says what to change in S, then the deciding number.
- A goal no configuration meets (by a wide margin): line 1 says it is not realistic, with the numbers.
"""

from __future__ import annotations

import re

from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer
from assistant.offline.writing.results import typed


def _catalog_name(text: str) -> bool:
    from tools.models import find_entry

    return find_entry(text) is not None


def _sized_as(f: Frame, size_b: float) -> str | None:
    """The catalog row the frame's model resolved to, when it has the unknown name's size: the reading fell back
    from "chinese_llama_7b" to "llama-7b", which the catalog has, so the tools sized that architecture."""
    from tools.models import find_entry

    if not f.model or not f.params_b or abs(f.params_b - size_b) > 1e-6:
        return None
    entry = find_entry(f.model)
    return entry.id if entry is not None else None


def assumed_note(w: Writer, f: Frame) -> str:
    """One short clause naming what was assumed in place of something the tables do not have."""
    notes: list[str] = []
    seen: set[str] = set()
    for m in f.model_mentions:
        if m.text in seen:
            continue
        seen.add(m.text)
        sized_as = _sized_as(f, m.size_b) if m.catalog_id is None and m.size_b else None
        if sized_as and _catalog_name(m.text):
            continue  # "llama_7b" is the catalog's own name for it: nothing was assumed
        if sized_as:  # "chinese_llama_7b": the tools were given the catalog's LLaMA-7B, so say that one
            notes.append(w.t(f"「{m.text}」按 {sized_as} 的结构计算", f"'{m.text}' sized as {sized_as}"))
        elif m.catalog_id is None and m.size_b:
            notes.append(
                w.t(
                    f"模型目录里没有「{m.text}」，按通用 {m.size_b:g}B 稠密架构估算，给出它的 config.json 能算准",
                    f"'{m.text}' is not in the model catalog; sized as a generic {m.size_b:g}B dense model "
                    "(its config.json would make this exact)",
                )
            )
        elif m.variant and m.catalog_id:
            notes.append(w.t(f"「{m.text}」按 {m.catalog_id} 的结构计算", f"'{m.text}' sized as {m.catalog_id}"))
    from assistant.offline.intents.args import understated_gb

    for g in f.gpu_mentions:
        real = understated_gb(g)
        if real:  # "8 L40 (8*40G)": the card has its datasheet memory, which is what was sized
            notes.append(
                w.t(
                    f"{g.name} 的显存是 {real:g} GB（不是 {g.memory_gb:g} GB），按 {real:g} GB 计算",
                    f"an {g.name} has {real:g} GB (not {g.memory_gb:g} GB); sized at {real:g} GB",
                )
            )
        elif g.modded and g.memory_gb and g.gpu_id is None:
            notes.append(
                w.t(
                    f"规格表里还没有「{g.name}」，按你说的 {g.memory_gb:g} GB 显存计算",
                    f"the spec table has no '{g.name}' yet; sized by the {g.memory_gb:g} GB you gave",
                )
            )
        elif g.modded and g.memory_gb:
            official = _official_gb(g.name)
            if official and official != g.memory_gb:  # 「3080ti 24G」: the card is sold with 12 GB only
                notes.append(
                    w.t(
                        f"{g.name} 官方规格只有 {official:g} GB 显存，没有 {g.memory_gb:g}GB 版（除非是改装卡）；"
                        f"下面按你说的 {g.memory_gb:g} GB 计算，原版卡按 {official:g} GB 算",
                        f"the {g.name} ships with {official:g} GB only; there is no {g.memory_gb:g}GB edition "
                        f"(unless modded); sized by the {g.memory_gb:g} GB you gave — a stock card has {official:g} GB",
                    )
                )
                continue
            notes.append(
                w.t(
                    f"{g.name} {g.memory_gb:g}GB 不在规格表里（改装或特殊版本），按 {g.memory_gb:g} GB 显存计算",
                    f"the {g.name} {g.memory_gb:g}GB is not in the spec table (modded or special edition); "
                    f"sized by its {g.memory_gb:g} GB",
                )
            )
    notes += _family_default_notes(w, f)
    return w.t("；".join(notes), "; ".join(notes))


def _official_gb(name: str) -> float | None:
    """The datasheet memory of a card the table knows by this name when it has one capacity only, else None."""
    from tools.errors import ToolInputError
    from tools.gpus import resolve_gpu

    try:
        spec = resolve_gpu(name)
    except (ToolInputError, ValueError, KeyError):
        return None
    if getattr(spec, "lookup_note", None):
        return None  # several capacities (A100 40/80 GB): the note names them, no single official figure
    return float(spec.memory_gb) if spec.memory_gb else None


def _family_default_notes(w: Writer, f: Frame) -> list[str]:
    """A bare family name of a Chinese accelerator (「MLU370」: X4 24 GB or X8 48 GB) resolved to its default row: the
    table's own variant note, so line 1 says which capacity was used and names the other."""
    from assistant.offline.intents.stack import domestic_cards
    from tools.errors import ToolInputError
    from tools.gpus import resolve_gpu

    ids = {gpu_id for _, gpu_id in domestic_cards(f) if gpu_id}
    out: list[str] = []
    for g in f.gpu_mentions:
        if g.gpu_id not in ids or g.memory_gb is not None:
            continue
        try:
            note = resolve_gpu(g.text).lookup_note
        except ToolInputError:
            continue
        if note and " / " in note:
            zh, en = note.split(" / ", 1)
            out.append(w.t(zh.rstrip("。"), en))
    return out


def unrealistic(w: Writer, f: Frame, results: list[ToolResult]) -> str | None:
    """A goal no configuration meets: say so with the number that shows why (the fastest option's days
    against the deadline, or the cheapest option's cost against the budget)."""
    from tools.planner import PlanOutput

    for r in results:
        plan = typed(r, PlanOutput) if r.name == "plan_configurations" else None
        if plan is None or plan.options or not plan.infeasible:
            continue
        if plan.deadline_hours:
            days = [o.days.mid for o in plan.infeasible if o.fits and o.days and o.days.mid]
            if days and min(days) > 3 * plan.deadline_hours / 24:
                fastest = min(days)
                return w.t(
                    f"这个目标不现实：最快的方案也要约 {fastest:,.1f} 天，期限只有 {plan.deadline_hours / 24:g} 天。",
                    f"That goal is not realistic: the fastest option takes about {fastest:,.1f} days against "
                    f"a deadline of {plan.deadline_hours / 24:g} days.",
                )
        if plan.budget_cny:
            costs = [o.cost_cny.mid for o in plan.infeasible if o.fits and o.cost_cny and o.cost_cny.mid]
            if costs and min(costs) > 3 * plan.budget_cny:
                cheapest = min(costs)
                return w.t(
                    f"这个目标不现实：最便宜的方案也要约 ¥{cheapest:,.0f}，预算只有 ¥{plan.budget_cny:,.0f}。",
                    f"That goal is not realistic: the cheapest option costs about ¥{cheapest:,.0f} against "
                    f"a budget of ¥{plan.budget_cny:,.0f}.",
                )
    return None


_CHANGE = re.compile(
    r"降|减|缩短|改|换|开|关|调小|量化|LoRA|QLoRA|batch|卸载|offload|reduce|lower|shorter|switch|enable|quantis", re.I
)


def oom_lead(w: Writer, f: Frame, results: list[ToolResult]) -> None:
    """「我OOM了」with a setup: line 1 says what to change in it. If the estimate says the job should fit,
    say so with the figure and name the settings that usually cause it instead."""
    from assistant.offline.writing.render_tools import gb
    from tools.memory import EstimateMemoryOutput

    est = next((e for r in results if r.name == "estimate_memory" if (e := typed(r, EstimateMemoryOutput))), None)
    verdict = w.parts["verdict"]
    if est is not None and "oom_at_load" in f.mentions:
        from assistant.offline.writing.render_memory import oom_load_lead

        at_load = oom_load_lead(w, est.model_dump())
        if at_load:
            verdict.insert(0, w.t(*at_load))
            return
    if est is not None and est.fits:
        from assistant.offline.writing.render_memory import oom_fits_lead

        verdict.insert(0, w.t(*oom_fits_lead(w, est.model_dump(), results)))  # what in S to change, specifically
        return
    if est is not None and est.verdict == "fits_with_changes":
        from assistant.offline.writing.render_memory import changes_text

        named = changes_text(w, est.model_dump())  # the estimator's own changes, each with its total
        if named:
            verdict.insert(0, w.t(f"要改的是：{named[0]}。", f"What to change: {named[1]}."))
            return
    if est is not None and est.nearest_option is not None:
        opt = est.nearest_option
        verdict.insert(
            0,
            w.t(
                f"要改的是：{opt.label['zh']}（每卡约 {gb(opt.total_gb)} GB）。",
                f"What to change: {opt.label['en']} (about {gb(opt.total_gb)} GB per GPU).",
            ),
        )
        return
    change = next((ln for ln in w.parts["next"] if _CHANGE.search(ln)), None)
    if change is not None:
        w.parts["next"].remove(change)
        verdict.insert(0, w.t(f"要改的是：{change}", f"What to change: {change}"))


def modes_count_line(w: Writer, results: list[ToolResult]) -> str | None:
    """「全量和 LoRA/QLoRA 各要几张」: one line with each training mode's fewest cards, for the first card sized."""
    from assistant.offline.writing.render_tools import mode_label

    rows = [r for r in results if r.name == "find_min_gpus" and not r.error and isinstance(r.result, dict)]
    if not rows:
        return None
    card = rows[0].args.get("gpu")
    seen: dict[str, tuple[int, str]] = {}
    for r in rows:
        mode, n = str(r.args.get("mode") or ""), r.result.get("min_gpus")
        if r.args.get("gpu") == card and mode in ("full", "lora", "qlora") and isinstance(n, int) and mode not in seen:
            seen[mode] = (n, str(r.result.get("gpu") or card))
    if len(seen) < 2:
        return None
    zh = "；".join(f"{mode_label(w, m)}至少 {n} 张 {g}" for m, (n, g) in seen.items())
    en = "; ".join(f"{mode_label(w, m)}: at least {n} × {g}" for m, (n, g) in seen.items())
    return w.t(f"分别看：{zh}。", f"By method — {en}.")


def lead(w: Writer, f: Frame, intents: list[str], results: list[ToolResult] | None = None) -> None:
    """Adjust line 1 after every part is written."""
    verdict = w.parts["verdict"]
    if not verdict:
        return
    by_mode = modes_count_line(w, results or []) if "min_gpus" in intents else None
    if by_mode and by_mode not in verdict:
        verdict.insert(0, by_mode)
    goal = unrealistic(w, f, results or [])
    if goal:
        verdict.insert(0, goal)
    from assistant.offline.intents.trainer_modes import colocated_rollout
    from assistant.offline.writing.setup_notes import replaces_oom_lead, setup_lead

    est = next((r.result for r in results or [] if r.name == "estimate_memory" and not r.error), None)
    if (
        "oom_report" in f.mentions
        and {"memory", "min_gpus"} & set(intents)
        and not replaces_oom_lead(f.mentions, est)
        and not colocated_rollout(f)  # GRPO/PPO with EasyR1/verl: the rollout engine's share is the cause
    ):  # also after a cause passage
        oom_lead(w, f, results or [])
    named = setup_lead(w, f.mentions, est) if est is not None else None
    if named and named not in verdict:
        if verdict and verdict[0].startswith(("能。", "Yes. ")):  # the estimate's own verdict is about the model alone
            verdict[0] = w.t("模型本身：" + verdict[0].removeprefix("能。"), "The model alone: " + verdict[0][5:])
        verdict.insert(0, named)  # the setup the user runs decides the verdict, not the model's size
    from assistant.offline.writing.unified_note import mac_note

    mac = mac_note(w, f) if any(r.name == "estimate_memory" for r in results or []) else None
    if mac and mac not in verdict:
        verdict.insert(1, mac)  # what "a 72 GB card" is on a Mac, right under the verdict
    note = assumed_note(w, f)
    if note:
        first = verdict[0].rstrip()
        verdict[0] = first + w.t(f"（{note}）", f" ({note})")
    from assistant.offline.intents.stack import FIT_INTENTS, domestic_cards
    from assistant.offline.writing.stack_line import stack_line

    # a fit question on an Ascend / DCU / MLU / MUSA card: the line after the verdict names its stack
    cards = domestic_cards(f) if intents and intents[0] in FIT_INTENTS else []
    stack = stack_line(w, f.text or "", [name for name, _ in cards], results or []) if cards else None
    if stack and stack not in verdict:
        verdict.insert(1, stack)
