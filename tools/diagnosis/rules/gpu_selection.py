"""GPU selection on a shared box: lead with the exact command for the renter's launcher, then why their attempt
did not take (variable on its own line, set inside the code, --local_rank by hand, deepspeed ignoring it).

Texts and launcher rules: knowledge/diagnosis/gpu_selection.yaml (CUDA, Bash, PyTorch, DeepSpeed, accelerate and
xinference docs cited there). The rewritten command is the renter's own, with the selection put where the launcher
reads it and `--local_rank` removed.
"""

from __future__ import annotations

import re

from tools.diagnosis import signals
from tools.diagnosis.rules.context import Ctx

NAME = "gpu_selection"
_MAX_CMD = 160


def _index(s: object) -> str:
    """The card to use: the one named in words, else the one they tried to set, else a placeholder."""
    if getattr(s, "wanted", None) is not None:
        return str(s.wanted)  # type: ignore[attr-defined]
    for v in (getattr(s, "own_value", None), getattr(s, "prefixed_value", None), getattr(s, "in_code_value", None)):
        if v and re.fullmatch(r"\d+(?:,\d+)*", v):
            return v
    return "<N>"


def _short(cmd: str) -> str:
    if len(cmd) <= _MAX_CMD:
        return cmd
    cut = cmd.rfind(" ", 0, _MAX_CMD - 10)
    return cmd[: cut if cut > 40 else _MAX_CMD - 10] + " …"


def rewrite(cmd: str, select: str, idx: str) -> str:
    """The renter's command with the GPU selected the way its launcher reads it."""
    c = re.sub(r"^\s*(?:export\s+)?", "", cmd)
    c = re.sub(r"(?:^|\s)CUDA_VISIBLE_DEVICES\s*=\s*\S+", " ", c)
    c = re.sub(r"(?:^|\s)CUDA_DEVICE_ORDER\s*=\s*\S+", " ", c)
    c = re.sub(r"\s--local[_-]rank(?:\s*=\s*|\s+)\d+", " ", " " + c)
    c = " ".join(c.split())
    if select == "include":
        c = re.sub(r"\s--(?:num_gpus|num-gpus|include|exclude)(?:\s*=\s*|\s+)\S+", " ", " " + c)
        c = " ".join(c.split())
        c = re.sub(r"(^|/|\s)deepspeed(\s)", rf"\1deepspeed --include localhost:{idx}\2", c, count=1)
        return _short(c)
    if select == "gpu_idx":
        c = re.sub(r"\s--gpu[-_]idx(?:\s*=\s*|\s+)\S+", " ", " " + c).strip()
        return _short(f"{c} --gpu-idx {idx}")
    return _short(f"CUDA_VISIBLE_DEVICES={idx} {c}")


def rules_gpu_selection(c: Ctx) -> None:
    s = c.p.get("gpu_selection")
    if not s:
        return
    idx = _index(s)
    launcher = s.launcher or "python"
    if s.command:
        lead = signals.snippet(NAME, f"lead_{s.select}", {"idx": idx, "cmd": rewrite(s.command, s.select, idx)})
    elif s.launcher == "deepspeed":
        lead = signals.snippet(NAME, "lead_deepspeed", {"idx": idx})
    elif s.launcher == "xinference":
        lead = signals.snippet(NAME, "lead_xinference", {"idx": idx})
    else:
        lead = signals.snippet(NAME, "lead_generic", {"idx": idx})
    why: list[tuple[str, str]] = []
    if s.xinf_occupied:
        why.append(signals.snippet(NAME, "xinf_occupied", {"idx": idx}))
    if s.own_line:
        why.append(signals.snippet(NAME, "own_line", {"value": s.own_value, "launcher": launcher}))
    if s.in_code:
        why.append(signals.snippet(NAME, "in_code", {"value": s.in_code_value}))
    if s.ds_ignored or s.ds_flagged:
        why.append(signals.snippet(NAME, "ds_ignored", {"idx": idx}))
    if s.local_rank:
        why.append(signals.snippet(NAME, "local_rank", {"value": s.local_rank}))
    if s.device_assert:
        m = signals.search(NAME, "device_assert", s.device_assert)
        why.append(signals.snippet(NAME, "device_assert", {"value": m.group(0) if m else s.device_assert[:60]}))
    t = signals.finding_text(NAME, "gpu_selection_ineffective", {"lead_zh": lead[0], "lead_en": lead[1], "idx": idx})
    # the command itself is the first thing to do (the incident's next action quotes it)
    actions = [lead] + ([signals.snippet(NAME, "xinf_action")] if s.launcher == "xinference" else t["actions"])
    c.add("gpu_selection_ineffective", "warning", t["title"], s.evidence, why, actions)
