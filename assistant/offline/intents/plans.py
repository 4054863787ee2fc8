"""Plans: configurations ranked for the job under the user's budget, deadline and card limits. When
nothing is feasible the memory estimate shows why; a budget alone becomes hours of the best option."""

from __future__ import annotations

from assistant.offline.intents import args as A
from assistant.offline.intents.args import PLAN
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall, ToolResult

NAME = PLAN


def applies(f: Frame) -> bool:
    return (
        "plan" in f.cues
        and (has_size(f) or bool(f.budget_cny) or bool(f.deadline_hours))
        or (has_size(f) and bool(f.budget_cny or f.deadline_hours))
    )


def calls(f: Frame) -> list[ToolCall]:
    mode = A.plan_mode(f)
    return [
        A.call(
            NAME,
            "plan_configurations",
            **A.train_model_args(f),
            mode=mode,
            tokens=f.tokens,
            budget=f.budget_cny,
            deadline=f.deadline_hours,
            precision=f.precision,
            max_gpus=f.gpu_count,
            gpus=[A.gpu_arg(f, g) for g in f.gpus[:4]] or None,
            **(
                {"context": f.context, "concurrency": f.concurrency}
                if mode == "inference"
                else {"seq_len": f.context, "micro_batch": f.batch}
            ),
        ),
        A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2),
    ]


def follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    out: list[ToolCall] = []
    done = {r.name for r in results}
    for r in results:  # no feasible plan under the user's constraints → show why, with the memory estimate
        if (
            r.name == "plan_configurations"
            and not r.error
            and not any(o.get("feasible", True) for o in r.result.get("options") or [] if isinstance(o, dict))
        ):
            mem = {k: v for k, v in A.memory_kwargs(f).items() if k != "gpu"}
            if f.gpus:
                mem["gpu"] = A.gpu_arg(f)
            elif f.vram_gb:
                mem["gpu"] = f"{f.vram_gb:g}GB"
            mem["mode"] = r.result.get("mode") or mem.get("mode")
            out.append(A.call(NAME, "estimate_memory", **mem))
    for r in results:  # "预算2千块 能微调吗": how many hours the budget rents of the best option (gpu_price checks it)
        if (
            r.name == "plan_configurations"
            and not r.error
            and f.budget_cny
            and not f.tokens
            and not f.deadline_hours
            and "gpu_price" not in done
        ):
            best = next(
                (o for o in r.result.get("options") or [] if isinstance(o, dict) and o.get("feasible", True)), None
            )
            rate = ((best or {}).get("cost_cny") or {}).get("mid")
            if best and isinstance(rate, (int, float)) and rate > 0 and "hour" in str(best.get("cost_basis") or ""):
                hours = int(f.budget_cny // rate)
                if hours >= 1:
                    out.append(
                        A.call(
                            NAME,
                            "gpu_price",
                            gpu=best.get("gpu") or best.get("gpu_name"),
                            gpu_count=best.get("count"),
                            hours=hours,
                        )
                    )
                    done.add("gpu_price")
    return out
