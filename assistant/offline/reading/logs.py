"""Is there a pasted log, and which kinds: `tools.diagnosis.detect` decides (one source of truth).

A kind counts only if its parser found something. Some kinds can be triggered by words a person
types in prose ("CUDA out of memory 一般有哪些原因？", "NCCL 超时怎么办", "掉卡了怎么办"): those are
`tools.diagnosis.detect.PROSE_PRONE` plus the renter's own narrative, and for them the text must also
look pasted (several lines, a shell prompt, an `XxxError:` line); every other kind is a paste.
"""

from __future__ import annotations

import re

from tools.lang import has_cjk

_PASTED_SHAPE = re.compile(
    r"^\s*(?:\$|#|root@|\w+@[\w.-]+[:~]|>>>|\[\s*\d+\.\d+\]|[\w.]*(?:Error|Exception|Warning)\b\s*:|Traceback)",
    re.M,
)


def paste_kinds(text: str) -> list[str]:
    """The log kinds in `text` (report order), or [] when it is not a paste."""
    if not text or not text.strip():
        return []
    from tools.diagnosis.detect import PROSE_PRONE, detect_kinds

    try:
        kinds = detect_kinds(text)
    except Exception:  # a parser bug must not stop the question being answered  # noqa: BLE001
        return []
    if not kinds:
        return []
    if set(kinds) - PROSE_PRONE - {"narrative"}:  # a one-line question about 掉卡 is a question
        return kinds
    if "narrative" in kinds and _told_symptoms(text):  # 「跑着跑着掉卡了，nvidia-smi 看不到一张卡，重启后又回来了」
        return kinds
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return kinds if len(lines) >= 3 or _PASTED_SHAPE.search(text) else []


def _told_symptoms(text: str) -> bool:
    """A renter describing what happened (several clauses in Chinese), not a one-line how-to question."""
    clauses = [c for c in re.split(r"[，,；;。！!？?\n]", text) if c.strip()]
    return has_cjk(text) and len(clauses) >= 3


_MACHINE = re.compile(
    r"^\s*(?:\$|#|root@|\w+@[\w.-]+[:~]|>>>|[|+=\-]{1,}|\[\s*[\d.]+\]|GPU\d|[0-9a-f]{2,8}:[0-9a-f]{2}:)|"
    r"\t|\s{3,}\S+\s{3,}|[\[\]{}|=]{2,}|^\s*[\w.]*(?:Error|Exception|Warning)\b\s*:|"
    r"^\s*(?:NVRM|NCCL|nvcc|Cuda compilation|Legend|Diagnostic|Deployment|Successfully ran)\b",
    re.I,
)


def is_machine_line(line: str) -> bool:
    """A line a program printed (table rows, prompts, key: value dumps), not a person's sentence."""
    if not line.strip():
        return False
    if _MACHINE.search(line):
        return True
    tokens = line.split()
    digitish = sum(1 for t in tokens if re.search(r"\d", t))
    return len(tokens) >= 3 and digitish / len(tokens) > 0.5 and not has_cjk(line)


def is_person_line(line: str) -> bool:
    """A sentence the user wrote around the paste ("合同写的是 8 卡 A100，输出如下" / "is this normal?")."""
    if is_machine_line(line):
        return False
    if has_cjk(line):
        return True
    return bool(re.search(r"\?\s*$", line)) or len(line.split()) >= 4
