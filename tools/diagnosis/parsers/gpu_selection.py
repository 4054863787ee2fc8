"""Choosing the GPU on a shared box, read from what the renter pasted: the launch command, where they set
CUDA_VISIBLE_DEVICES (its own line, inside the code), a `--local_rank` passed by hand, the deepspeed launcher
ignoring the variable, the `device < num_gpus` / `invalid device ordinal` error, xinference refusing an occupied card.

Only a mistake makes this a finding; `CUDA_VISIBLE_DEVICES=1 python train.py` on one line is fine and ignored.
Patterns and launchers: knowledge/diagnosis/gpu_selection.yaml.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.diagnosis import signals

NAME = "gpu_selection"
_PROMPT = re.compile(r"^\s*(?:\([\w.\-]+\)\s*)?[\w.\-]+@[\w.\-]+:[^$#\n]*[$#]\s+|^\s*[$#]\s+")


@dataclass
class GpuSelection:
    launcher: str | None = None  # id in gpu_selection.yaml `launchers`
    select: str = "env"  # env | include | gpu_idx
    command: str | None = None  # the launch command, continuation lines joined, prompt removed
    own_line: str | None = None  # `CUDA_VISIBLE_DEVICES=1` alone on a line
    own_value: str | None = None
    exported: bool = False
    prefixed_value: str | None = None
    in_code: str | None = None  # the os.environ line, when set too late
    in_code_value: str | None = None
    local_rank: str | None = None  # the value passed by hand
    device_assert: str | None = None
    ds_ignored: str | None = None
    xinf_occupied: str | None = None
    wanted: int | None = None  # the card the renter named in words (0-based)
    evidence: list[str] = field(default_factory=list)

    @property
    def mistakes(self) -> bool:
        return bool(
            self.own_line
            or self.in_code
            or self.local_rank
            or self.device_assert
            or self.ds_ignored
            or self.xinf_occupied
            or self.ds_flagged
        )

    @property
    def ds_flagged(self) -> bool:
        """deepspeed given CUDA_VISIBLE_DEVICES together with --num_gpus/--include/…, which make it ignore the
        variable (a bare exported variable is honoured by current DeepSpeed)."""
        if self.launcher != "deepspeed" or not (self.prefixed_value or self.exported or self.own_line):
            return False
        return bool(self.command and signals.search(NAME, "ds_flags", " " + self.command))


def _commands(lines: list[str]) -> list[tuple[str, str]]:
    """(first raw line, joined command) for each logical command line (trailing backslashes joined)."""
    out: list[tuple[str, str]] = []
    buf: list[str] = []
    first = ""
    for raw in lines[:3000]:
        line = raw.rstrip()
        if not buf:
            first = line
        buf.append(line[:-1] if line.endswith("\\") else line)
        if not line.endswith("\\"):
            out.append((first, _PROMPT.sub("", " ".join(x.strip() for x in buf)).strip()))
            buf = []
    if buf:
        out.append((first, _PROMPT.sub("", " ".join(x.strip() for x in buf)).strip()))
    return out


def _wanted(text: str) -> int | None:
    ords = signals.load(NAME).get("ordinals") or {}
    for key in ("ordinal_zh", "ordinal_en"):
        m = signals.search(NAME, key, text)
        if m:
            tok = m.group(1).lower()
            n = int(tok) if tok.isdigit() else ords.get(tok) or ords.get(m.group(1))
            if n:
                return int(n) - 1
    m = signals.search(NAME, "index_words", text)
    if m:
        return int(m.group(1) or m.group(2))  # an index said outright is already 0-based (nvidia-smi's)
    return None


def parse(lines: list[str]) -> GpuSelection | None:
    out = GpuSelection()
    text = "\n".join(lines[:3000])
    launchers = signals.load(NAME).get("launchers") or {}
    cmds = _commands(lines)
    launch_at = None
    for i, (_raw, cmd) in enumerate(cmds):
        for lid, spec in launchers.items():
            if re.search(spec["match"], " " + cmd):
                out.launcher, out.select, out.command, launch_at = lid, spec.get("select", "env"), cmd, i
                break
        if out.launcher:
            break
    for i, (raw, _cmd) in enumerate(cmds):
        m = signals.search(NAME, "own_line", raw)
        if m and (launch_at is None or i < launch_at):
            out.own_line, out.own_value = raw.strip(), m.group(1)
        if signals.search(NAME, "exported", raw):
            out.exported = True
    if out.exported:
        out.own_line = None  # `X=1` then `export X` is fine
    if out.command:
        m = signals.search(NAME, "prefixed", out.command)
        if m:
            out.prefixed_value = m.group(1)
        m = signals.search(NAME, "local_rank_arg", out.command)
        if m:
            out.local_rank = m.group(1)
    code = signals.first_line(NAME, "in_code", lines)
    out.device_assert = (hit := signals.first_line(NAME, "device_assert", lines)) and hit[0][:300] or None
    if out.device_assert and not signals.search(NAME, "selecting", text.replace(out.device_assert, "")):
        out.device_assert = None  # `invalid device ordinal` with no card chosen anywhere: not a selection story
    if code:
        at = next(i for i, ln in enumerate(lines) if ln.strip() == code[0])
        torch_before = any(signals.search(NAME, "import_torch", ln) for ln in lines[:at])
        late = (
            torch_before
            or lines[at][:1] in (" ", "\t")
            or out.device_assert
            or signals.search(NAME, "in_function", text)
        )
        if late:
            out.in_code, out.in_code_value = code[0][:300], code[1].group(1) or code[1].group(2) or ""
    ds = signals.first_line(NAME, "ds_ignored", lines)
    if ds:
        out.ds_ignored, out.prefixed_value = ds[0][:300], out.prefixed_value or ds[1].group(1)
        if not out.launcher:
            out.launcher, out.select = "deepspeed", "include"
    out.xinf_occupied = (hit := signals.first_line(NAME, "xinf_occupied", lines)) and hit[0][:300] or None
    if out.xinf_occupied and not re.search(r"xinference|gpu[-_]idx", text, re.I):
        out.xinf_occupied = None  # 「已被占用」 about something else
    if out.xinf_occupied and not out.launcher:
        out.launcher, out.select = "xinference", "gpu_idx"
    out.wanted = _wanted(text)
    if not out.mistakes:
        return None
    out.evidence = [
        x
        for x in (
            out.own_line,
            out.command if out.local_rank or out.prefixed_value else None,
            out.in_code,
            out.device_assert,
            out.ds_ignored,
            out.xinf_occupied,
        )
        if x
    ]
    return out
