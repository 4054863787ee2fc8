"""What a renter says in words when there is no log line to quote (Chinese first).

「训练跑着跑着掉卡了，nvidia-smi 看不到一张卡」 / "2 GPUs disappeared in nvidia-smi" is the symptom of a GPU
that fell off the bus or was lost (NVIDIA Xid 79 / "GPU is lost"); 「训练了一段时间」 / "after 6 hours"
tells a late NCCL timeout from one on the first collective. Only these cues are read; everything else
in prose is left to the assistant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DROPPED_ZH = re.compile(
    r"掉卡|掉了一张|少了(?:一|1|两|2)?张(?:卡|GPU|显卡)?|"
    r"(?:显卡|GPU|卡)(?:(?!内存|显存|存储|memory|爆|满|占)[^，。,.\n]){0,8}(?:突然)?(?:消失|不见了|没了|丢了|丢失|(?<!爆)掉了|识别不到|检测不到|掉线)|"
    r"nvidia-smi[^，。\n]{0,12}(?:看不到|只(?:显示|识别|能看到|有)[^，。\n]{0,10}(?:张|块|个|号)|少了|检测不到|识别不到|消失)|"
    r"(?:只(?:显示|识别)|仅识别)[^，。\n]{0,12}(?:GPU|卡)[^，。\n]{0,12}(?:缺失|少)"
)
_DROPPED_EN = re.compile(
    r"GPUs? (?:\w+ )?(?:disappeared|disappears|vanished|went missing|dropped out|is missing|are missing|is not detected|not detected)|"
    r"(?:lost|losing) (?:a|one|\d) GPUs?|nvidia-smi (?:only shows|shows only|no longer shows|does not show|doesn't show)|"
    r"(?:one|a|\d) GPUs? (?:is|are|went) (?:lost|missing|gone)|\bGPUs? (?:is|are|was|were|got) lost\b|disappear(?:ed|s)? (?:again|in `?nvidia-smi)"
)
# the same symptom in the words of an English forum post: "gpu randomly falls off the bus", "GPU has fallen off of
# the bus" (no Xid line pasted), "my Titan V keeps disappearing, only reboots help"
_DROPPED_EN_WORDS = re.compile(
    r"(?:falls?|fallen|fell|falling) off (?:of )?the (?:pcie? )?bus|"
    r"\b(?:gpu|card|titan\s*\w+|rtx\s*\w+|tesla\s*\w+)s? (?:randomly |keeps? |keep on |sometimes )?"
    r"(?:disappearing|dropping out|dropping off)",
    re.I,
)
_LATE_ZH = re.compile(r"训练了一段时间|跑了一段时间|跑着跑着|训练(?:了)?(?:几|\d+)个?(?:小时|天)|过了一段时间")
_LATE_EN = re.compile(
    r"after (?:\d+(?: to \d+)?|several|a few|many) (?:hours|epochs|days)|hours of training|after a while"
)


# 「容器里 nvidia-smi 看不到进程」 / "nvidia-smi shows no processes" in a pod or container: PID namespaces
# (NVML reports host PIDs the container cannot see) — expected, not a fault.
_NO_PROCS = re.compile(
    r"nvidia-smi[^。\n]{0,20}(?:没有|不|看不到|无法)(?:显示|展示|列出)?[^。\n]{0,8}进程|"
    r"nvidia-smi[^.\n]{0,40}(?:shows?|lists?|displays?) no (?:running )?process|"
    r"nvidia-smi[^.\n]{0,40}(?:does not|doesn't|do not|don't) (?:show|list|display) (?:any |the )?(?:running )?process|"
    r"No running processes found[^\n]{0,80}(?:container|pod|docker|k8s)",
    re.I,
)
# "all_reduce_perf reports 125 Gbps but the network is 100 Gbps" / 「busbw 比网卡带宽还高」: a test word, a network
# word and an above word on one line; "busbw only 20, expected more than 100" (a low-busbw complaint) is not it.
_BUSBW_WORD = re.compile(r"busbw|all_reduce_perf|nccl-tests|nccl tests", re.I)
_NET_WORD = re.compile(
    r"network|\bNIC\b|\bEFA\b|InfiniBand|\bIB\b|RoCE|line rate|wire|link speed|网卡|网络|线速|带宽上限", re.I
)
_ABOVE_WORD = re.compile(
    r"exceed\w*|higher than|more than|above|faster than|surpass\w*|beyond|超过|高于|还高|还大|更高|超出", re.I
)
_EXPECTING = re.compile(r"(?:expect\w*|should(?: be)?|应该|预期|期望)\W{0,3}$", re.I)


def _busbw_above(lines: list[str]) -> str | None:
    for line in lines[:400]:
        if len(line) >= 600 or not (_BUSBW_WORD.search(line) and _NET_WORD.search(line)):
            continue
        for m in _ABOVE_WORD.finditer(line):
            if not _EXPECTING.search(line[max(0, m.start() - 15) : m.start()]):
                return line.strip()
    return None


# 「显存不够……服务器上也有其他人在用」 / "OOM … the server is shared with other users": with data parallelism
# every rank runs the same per-card batch, so the fullest card (someone else's memory on it) sets the limit.
_OOM_WORDS = re.compile(r"显存不够|显存不足|显存溢出|爆显存|显存爆|out of memory|\bOOM\b|CUDA OOM", re.I)
_SHARED = re.compile(
    r"(?:其他人|别人|其他同学|同事|其他用户)[^，。\n]{0,6}(?:也)?在(?:用|跑)|共享的?(?:服务器|显卡|机器)|"
    r"shared (?:server|machine|box|gpus?)|other (?:users|people) (?:are )?(?:using|on)",
    re.I,
)


@dataclass
class Narrative:
    dropped_line: str | None = None
    late_line: str | None = None
    no_procs_line: str | None = None
    busbw_above_line: str | None = None
    shared_oom_line: str | None = None


def _find(pat: re.Pattern[str], lines: list[str]) -> str | None:
    for line in lines[:400]:
        if len(line) < 600 and pat.search(line):
            return line.strip()
    return None


def late_cue(lines: list[str]) -> str | None:
    """The person's sentence saying the failure came late in a run, if any (not a kind on its own)."""
    return _find(_LATE_ZH, lines) or _find(_LATE_EN, lines)


# 「显卡内存爆掉了」「显存爆了」「memory blew up」: a full card (OOM), not a card that fell off — the 掉 in 爆掉
# is "blew up", so a clause whose only subject is memory never reads as a dropped GPU.
_MEMORY_ONLY = re.compile(
    r"(?:内存|显存|存储|memory|VRAM|OOM)[^，。,.\n]{0,6}(?:爆|满|溢出|不够|不足|掉了|blew|full)", re.I
)


def _dropped(lines: list[str]) -> str | None:
    for line in lines[:400]:
        if len(line) >= 600:
            continue
        m = (
            _DROPPED_ZH.search(line)
            or _DROPPED_EN.search(line)
            # a kernel log line says it too ("NVRM: … GPU has fallen off the bus"): that is the kernel_log parser's
            or (None if re.search(r"NVRM|Xid", line) else _DROPPED_EN_WORDS.search(line))
        )
        if m and not _MEMORY_ONLY.search(m.group(0)):
            return line.strip()
    return None


def parse(lines: list[str]) -> Narrative | None:
    dropped = _dropped(lines)
    no_procs, busbw = _find(_NO_PROCS, lines), _busbw_above(lines)
    joined = "\n".join(lines[:400])
    shared = _find(_SHARED, lines) if _OOM_WORDS.search(joined) else None
    if not (dropped or no_procs or busbw or shared):
        return None
    return Narrative(
        dropped_line=dropped,
        late_line=late_cue(lines),
        no_procs_line=no_procs,
        busbw_above_line=busbw,
        shared_oom_line=shared,
    )
