"""Renderers for operations: `diagnose_logs` (pasted output) and `delivery_checklist`."""

from __future__ import annotations

from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num
from assistant.offline.writing.render_tools import Context, renderer, zh_en

# ---------------------------------------------------------------- diagnosis ---------------------
_SEVERITY = {
    "critical": ("严重", "critical"),
    "warning": ("警告", "warning"),
    "info": ("提示", "info"),
    "ok": ("正常", "ok"),
}


@renderer("diagnose_logs")
def diagnose_logs(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    findings = [f for f in res.get("findings") or [] if isinstance(f, dict)]
    severity = res.get("severity")
    worst = findings[0] if findings else None
    raw = res.get("serving")
    serving: dict = raw if isinstance(raw, dict) else {}
    answer = res.get("answer") if isinstance(res.get("answer"), dict) else None
    if answer and answer.get("text"):
        w.add("verdict", *zh_en(answer["text"]))  # the user's yes/no leads, with the deciding finding
    headline = res.get("headline") if isinstance(res.get("headline"), dict) else None
    if headline and not (answer and answer.get("text")):
        zh, en = zh_en(headline)  # the finding is the answer: a verdict on a measurement, a command
        w.add("verdict", zh if zh.endswith(("。", "！", "？")) else zh + "。", en if en.endswith(".") else en + ".")
    elif serving.get("headline") and severity not in ("critical", "warning"):
        w.add("verdict", *zh_en(serving["headline"]))  # the arithmetic the paste asks for is the answer
    elif worst and severity in ("critical", "warning"):
        zh, en = zh_en(worst.get("title"))
        lead_zh = "发现严重问题：" if severity == "critical" else "有需要处理的问题："
        lead_en = "Critical problem found: " if severity == "critical" else "Something needs attention: "
        w.add("verdict", lead_zh + zh + "。", lead_en + en + ".")
    elif findings:
        zh, en = zh_en(findings[0].get("title"))
        w.add("verdict", "没有发现严重问题。" + zh + "。", "Nothing critical found. " + en + ".")
    elif res.get("kinds"):
        from tools.diagnosis.detect import KIND_LABELS

        labels = [KIND_LABELS.get(str(k), (str(k), str(k))) for k in res.get("kinds") or []]
        zh_names = "、".join(dict.fromkeys(z for z, _ in labels))
        en_names = ", ".join(dict.fromkeys(e for _, e in labels))
        w.add(
            "verdict", f"我读了{zh_names}，里面没看到异常。", f"I read the {en_names} and found nothing abnormal in it."
        )
    else:  # nothing recognised: say so plainly; the guide passage on the user's words follows
        w.add(
            "verdict",
            "这段内容里没有我能自动诊断的报错格式，下面是指南里的相关说明。",
            "Nothing in this text matches an error or log format I can diagnose automatically; the guide's relevant "
            "passage follows.",
        )
    lead = zh_en(headline) if headline else None
    for f in findings[:5]:
        sev_zh, sev_en = _SEVERITY.get(str(f.get("severity")), ("", ""))
        zh, en = zh_en(f.get("title"))
        ev = next(iter(f.get("evidence") or []), None)
        quote = f"`{' '.join(str(ev).split())[:160]}`" if ev else ""
        if lead and (zh, en) == lead:
            # the title already leads: say why (the renter's attempt, the arithmetic), then the evidence
            for cause in f.get("causes") or []:
                w.add("findings", *zh_en(cause))
            if quote:
                w.add("findings", f"原文 {quote}", f"Evidence {quote}")
            continue
        w.add(
            "findings",
            f"[{sev_zh}] {zh}" + (f"——原文 {quote}" if quote else ""),
            f"[{sev_en}] {en}" + (f" — evidence {quote}" if quote else ""),
        )
    for line in serving.get("lines") or []:
        w.add("numbers", *zh_en(line))
    if any(f.get("id") == "vllm_no_kv_cache_memory" for f in findings):
        from assistant.offline.writing.kv_levers import kv_pool_levers

        kv_pool_levers(w, ctx.slots, serving)  # unused cards, fp8 KV, a length that fits: each with its number
    inv = res.get("inventory") or {}
    gpus = inv.get("gpus") or []
    if gpus or inv.get("driver_version"):
        names = sorted({str(g.get("name")) for g in gpus if isinstance(g, dict)})
        mem = next((g.get("memory_total_mib") for g in gpus if isinstance(g, dict) and g.get("memory_total_mib")), None)
        w.add(
            "numbers",
            f"识别到 {len(gpus)} 块 GPU：{'、'.join(names)}"
            + (f"，每块 {num(mem)} MiB" if mem else "")
            + (
                f"；驱动 {inv.get('driver_version')}，驱动支持的最高 CUDA {inv.get('cuda_version')}"
                if inv.get("driver_version")
                else ""
            ),
            f"{len(gpus)} GPU(s) seen: {', '.join(names)}"
            + (f", {num(mem)} MiB each" if mem else "")
            + (
                f"; driver {inv.get('driver_version')}, max CUDA {inv.get('cuda_version')}"
                if inv.get("driver_version")
                else ""
            ),
        )
    for row in res.get("acceptance") or []:
        if isinstance(row, dict):
            mark = {"pass": "✓", "fail": "✗"}.get(str(row.get("status")), "–")
            w.add(
                "findings",
                f"验收 {mark} {row.get('check')}：期望 {row.get('expected')}，实际 {row.get('observed')}",
                f"acceptance {mark} {row.get('check')}: expected {row.get('expected')}, observed {row.get('observed')}",
            )
    if worst:
        if not lead:
            for cause in (worst.get("causes") or [])[:2]:
                w.add("causes", *zh_en(cause))
        for action in (worst.get("actions") or [])[:3]:
            if lead and zh_en(action) == lead:
                continue  # the command already leads
            w.add("next", *zh_en(action))
    said_lead = bool(lead and res.get("next_action") and zh_en(res["next_action"])[1].endswith(lead[1]))
    # "Fix your setup: <the action just listed>" repeats it: the next action is left out when it ends with one
    said = {zh_en(a)[1] for a in ((worst or {}).get("actions") or [])[:3]}
    said_action = bool(res.get("next_action") and any(zh_en(res["next_action"])[1].endswith(a) for a in said if a))
    if (
        res.get("next_action")
        and not (serving.get("headline") and severity in ("ok", "info"))
        and not said_lead
        and not said_action
    ):
        w.add("next", *zh_en(res["next_action"]))


@renderer("delivery_checklist")
def delivery_checklist(w: Writer, r: ToolResult, ctx: Context) -> None:
    res = r.result
    out = res.get("output_file") or "gpu_acceptance.txt"
    w.add(
        "verdict",
        f"拿到机器先别急着跑训练：在服务器上运行下面的验收脚本，它把所有检查结果存到 {out}，再把这个文件贴给我核对。",
        f"Before training, run the acceptance script below on the server; it saves every check to {out}. Paste that "
        "file back and I will check it.",
    )
    for step in res.get("steps") or []:
        if isinstance(step, dict):
            w.add("checks", f"`{step.get('id')}`：{step.get('zh')}", f"`{step.get('id')}`: {step.get('en')}")
    if res.get("expect"):
        w.add(
            "next",
            f'核对时用：gpu-advisor diagnose --expect "{res["expect"]}" {out}',
            f'To check it: gpu-advisor diagnose --expect "{res["expect"]}" {out}',
        )
    w.add(
        "next",
        "型号、显存、卡数、NVLink 拓扑和 all_reduce 带宽有任何一项对不上，当场找服务商换机。",
        "If the model, memory, GPU count, NVLink topology or all-reduce bandwidth does not match, ask the provider "
        "for another machine right away.",
    )
    script = res.get("script")
    if isinstance(script, str) and script.strip():
        w.parts["script"].append("```bash\n" + script.strip() + "\n```")
