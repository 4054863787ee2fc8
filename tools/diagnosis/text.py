"""Normalise a pasted log before parsing: it is data, never instructions.

Why: people paste from terminals (ANSI colours, CRLF from Windows clients, NULs from
binary files), wrap logs in Chinese sentences, and sometimes paste far too much. Every
regex downstream assumes plain `\n`-separated text without escape codes.
"""

from __future__ import annotations

import re

from tools.errors import ToolInputError
from tools.textcodec import decode_text

# Stated limits (also in docs/diagnosis.md): 2 MB of text or 20,000 lines per paste;
# a single line longer than 4,000 characters is cut (no real log line is that long).
MAX_CHARS = 2_000_000
MAX_LINES = 20_000
MAX_LINE_CHARS = 4_000

# CSI sequences (colours, cursor moves) and OSC sequences; both patterns are linear.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def looks_binary(text: str) -> bool:
    """A paste whose first 8,000 characters are >10% control characters is not a log."""
    head = text[:8000]
    if not head:
        return False
    bad = len(_CONTROL.findall(head)) + head.count("\ufffd")
    return bad > 0.10 * len(head)


def normalize(text: str | bytes | None) -> str:
    """Return clean `\n`-separated text, or raise ToolInputError for unusable input."""
    if text is None:
        text = ""
    if isinstance(text, bytes):
        text = decode_text(text)
    if len(text) > MAX_CHARS:
        raise ToolInputError(
            f"粘贴内容太大（{len(text):,} 个字符）；上限为 2 MB / 20,000 行。请只贴出错前后的部分，"
            "例如 `dmesg | grep -iE 'nvrm|xid|aer' | tail -n 500`。",
            f"The paste is too large ({len(text):,} characters); the limit is 2 MB / 20,000 lines. "
            "Paste only the part around the error, e.g. `dmesg | grep -iE 'nvrm|xid|aer' | tail -n 500`.",
            field="text",
        )
    if looks_binary(text):
        raise ToolInputError(
            "这看起来是二进制文件，不是文本日志。请贴出命令的文字输出（例如 nvidia-smi、dmesg）；"
            "nvidia-bug-report.log.gz 需要先用 gunzip 解压。",
            "This looks like a binary file, not a text log. Paste the text output of the command "
            "(e.g. nvidia-smi, dmesg); decompress nvidia-bug-report.log.gz with gunzip first.",
            field="text",
        )
    text = strip_ansi(text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "")
    text = text.replace("\x00", "")
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        raise ToolInputError(
            f"粘贴内容行数太多（{len(lines):,} 行）；上限为 20,000 行 / 2 MB。请只贴出错前后的部分。",
            f"The paste has too many lines ({len(lines):,}); the limit is 20,000 lines / 2 MB. "
            "Paste only the part around the error.",
            field="text",
        )
    return "\n".join(line[:MAX_LINE_CHARS].rstrip() for line in lines)


_MPI_PREFIX = re.compile(r"^(?:\[\d+(?:,\d+)?\](?:<std(?:out|err)>)?:?\s?)")


def strip_mpi_prefix(line: str) -> str:
    """mpirun decorates lines with `[1,0]<stdout>:` or `[0] `; parsers want the payload."""
    return _MPI_PREFIX.sub("", line, count=1)


def norm_bus_id(raw: str | None) -> str | None:
    """Canonical PCI id `0000:3b:00` (4-digit domain, lowercase, no function).

    nvidia-smi prints `00000000:3B:00.0`, the kernel log `PCI:0000:3b:00`, lspci `3b:00.0`.
    Keeping only domain:bus:device lets a kernel-log Xid be matched to a GPU index.
    """
    if not raw:
        return None
    s = raw.strip().lower()
    if s.startswith("pci:"):
        s = s[4:]
    s = s.split(".", 1)[0]
    parts = s.split(":")
    if len(parts) == 2:
        parts = ["0000", *parts]
    if len(parts) != 3:
        return None
    dom, bus, dev = parts
    dom = dom[-4:].rjust(4, "0")
    if not all(_is_hex(p) for p in (dom, bus, dev)):
        return None
    return f"{dom}:{bus.rjust(2, '0')}:{dev.rjust(2, '0')}"


def _is_hex(s: str) -> bool:
    return bool(s) and all(c in "0123456789abcdef" for c in s)


def to_float(s: str | None) -> float | None:
    if s is None:
        return None
    try:
        return float(s)
    except ValueError:
        return None


# Where a log line starts when a user typed a sentence in front of it on the same line
# (「帮我看看这个报错 [Tue Nov 25 10:02:11 2025] NVRM: Xid …」). Each alternative is anchored on a
# literal, bounded and free of nested quantifiers.
_LOG_START = re.compile(
    r"\[\s{0,12}\d{1,10}\.\d{1,9}\]"  # dmesg [  123.456789]
    r"|\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} {1,2}\d{1,2} "  # dmesg -T [Tue Nov 25 …
    r"|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}\d{1,2} \d\d:\d\d:\d\d"  # journalctl/syslog
    r"|\d{1,2}月 {1,2}\d{1,2} \d\d:\d\d:\d\d"  # journalctl in a zh_CN locale
    r"|\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d"  # ISO timestamps
    r"|\bNVRM: |\bpcieport \w|\bnvidia \d{4}:|\bkernel: "
    r"|\b(?:RuntimeError|torch\.\w{1,40}Error|[A-Z]\w{0,40}Error|CUDA error|NCCL (?:WARN|INFO|error)|Watchdog caught)\b"
    r"|\b[\w.-]{1,64}:\d{1,9}:\d{1,9} \[\d{1,4}\] NCCL "  # host:pid:tid [rank] NCCL
)
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def log_part(line: str) -> str:
    """The log part of a line that starts with the user's own words; other lines unchanged.

    Only a prefix holding Chinese text (or full-width punctuation) is dropped, so a plain log
    line — even one whose timestamp is not in the list above — is quoted whole.
    """
    m = _LOG_START.search(line)
    if not m or m.start() == 0:
        return line
    prefix = line[: m.start()]
    if not _CJK.search(prefix):
        return line
    return line[m.start() :].strip()
