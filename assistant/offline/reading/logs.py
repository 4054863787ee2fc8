"""Is there a pasted log, and which kinds: `tools.diagnosis.detect` decides (one source of truth). And which
yes/no the user asks about it (「是卡坏了吗」): `fault_question`, vocabulary from knowledge/diagnosis/."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml

from tools.lang import has_cjk


def paste_kinds(text: str) -> list[str]:
    """The log kinds in `text` (report order), or [] when it is not a paste.

    `tools.diagnosis.detect.paste_kinds` decides, with one rule more for chat: the renter's own 掉卡
    narrative counts as a paste only when it tells symptoms (several clauses) or looks pasted, so a
    one-line 「掉卡了怎么办」 or "4090 nvidia-smi only shows 20GB, fake?" is answered as a question.
    """
    from tools.diagnosis.detect import PROSE_PRONE, TOLD, detect_kinds, looks_pasted

    if not text or not text.strip():
        return []
    try:
        kinds = detect_kinds(text)
    except Exception:  # a parser bug must not stop the question being answered  # noqa: BLE001
        return []
    if not kinds or set(kinds) - PROSE_PRONE - TOLD:
        return kinds  # machine output (a table, a kernel line) is a paste whatever surrounds it
    if looks_pasted(text):
        return kinds
    if set(kinds) & TOLD and (_told_symptoms(text) or _told_expected_behaviour(text)):
        return kinds
    return []


def _told_expected_behaviour(text: str) -> bool:
    """ "nvidia-smi shows no processes in my pod" / "busbw 125 Gbps on a 100 Gbps NIC" / "8 × 100 Gbps NICs, nccl-tests
    reaches 600 Gbps" / 「内存128G，权重167GB，被系统OOM杀进程」 / a bare `...]Killed`: one sentence is enough, because
    the answer (expected behaviour, the numbers, why) comes from the diagnosis rules, not from a how-to."""
    from tools.diagnosis.parsers import host_memory, line_rate, narrative, symptom_catalog

    lines = text.split("\n")
    if symptom_catalog.one_line_hits(lines):
        return True  # a symptom the catalog marks as told whole in one sentence (「nvidia-smi 显示 ERR!」)
    n = narrative.parse(lines)
    if n and (n.no_procs_line or n.busbw_above_line):
        return True
    lr = line_rate.parse(lines)
    if lr and lr.measured_gbs is not None:
        return True  # a measurement against the stated NICs; without one it is a sizing question (interconnect)
    h = host_memory.parse(lines)
    return bool(h and (h.killed_line or h.oom_line or h.paging_line or (h.told_line and (h.ram_gb or h.ckpt_gb))))


def _told_symptoms(text: str) -> bool:
    """A renter describing what happened (several clauses, in Chinese or English: "My Titan V keeps disappearing.
    Only reboots help. What is wrong?"), not a one-line how-to question."""
    clauses = [c for c in re.split(r"[，,；;。！!？?\n]|\.\s", text) if c.strip()]
    return len(clauses) >= 3


_MACHINE = re.compile(
    r"^\s*(?:\$|#|root@|\w+@[\w.-]+[:~]|>>>|[|+=\-]{1,}|\[\s*[\d.]+\]|GPU\d|[0-9a-f]{2,8}:[0-9a-f]{2}:)|"
    r"\t|\s{3,}\S+\s{3,}|[\[\]{}|=]{2,}|^\s*[\w.]*(?:Error|Exception|Warning)\b\s*:|"
    r"^\s*(?:NVRM|NCCL|nvcc|Cuda compilation|Legend|Diagnostic|Deployment|Successfully ran)\b",
    re.I,
)


# An issue template's own fields ("Environment: T4 8*16G", "Reproduction: lmdeploy serve … --tp 1", 「环境：」):
# the user describing the setup, however number-dense, not a program's output
_TEMPLATE_FIELD = re.compile(
    r"^\s*(?:[*#>\s]*)(?:environment|env|reproduction|to reproduce|steps to reproduce|hardware|system info|setup|"
    r"command(?: line)?|launch command|环境|运行环境|复现(?:步骤|方式)?|硬件|配置|命令|启动命令|运行命令)\s*(?:\*\*)?\s*[:：]",
    re.I,
)


def is_template_field(line: str) -> bool:
    """A labelled field of a bug-report template, which the user filled in."""
    return bool(_TEMPLATE_FIELD.match(line))


def is_machine_line(line: str) -> bool:
    """A line a program printed (table rows, prompts, key: value dumps), not a person's sentence."""
    if not line.strip() or is_template_field(line):
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
    if has_cjk(line) or is_template_field(line):
        return True
    return bool(re.search(r"\?\s*$", line)) or len(line.split()) >= 4


_QUESTIONS_FILE = Path(__file__).resolve().parents[3] / "knowledge" / "diagnosis" / "fault_questions.yaml"
# a sentence shaped as a question: a question particle or mark, or a yes/no opening
_ASKING = re.compile(
    r"[吗嘛？?]|么\s*$|是不是|是否|有没有|会不会|能不能|还是|"
    r"^\s*(?:is|are|was|could|can|does|do|did|should|am|would|will|or)\b",
    re.I,
)


@lru_cache(maxsize=1)
def _question_kinds() -> dict[str, list[re.Pattern[str]]]:
    data = yaml.safe_load(_QUESTIONS_FILE.read_text(encoding="utf-8")) or {}
    return {kind: [re.compile(rx, re.I) for rx in rxs] for kind, rxs in (data.get("kinds") or {}).items()}


def fault_question(text: str) -> str | None:
    """hardware | driver | memory when the user's own words ask that yes/no about their paste
    (「是卡坏了吗」, "is this a hardware fault?", 「是不是显存不够」); vocabulary in
    knowledge/diagnosis/fault_questions.yaml. The first kind asked, in the order the user asked them."""
    best: tuple[int, str] | None = None
    for sentence in re.split(r"(?<=[。！!？?\n；;，,])", text or ""):
        if not _ASKING.search(sentence):
            continue
        for kind, patterns in _question_kinds().items():
            for rx in patterns:
                m = rx.search(sentence)
                if m and (best is None or m.start() < best[0]):
                    best = (m.start(), kind)
        if best is not None:
            return best[1]
    return None
