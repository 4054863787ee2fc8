"""LMDeploy / TurboMind start-up logs: the KV block pool it pre-allocated.

[TM][INFO] [BlockManager] block_size = 32 MB
[TM][INFO] [BlockManager] max_block_count = 7987
... TurbomindEngineConfig(..., tp=4, session_len=2048, max_batch_size=128, cache_max_entry_count=0.8,
    cache_block_seq_len=64, ...)
lmdeploy serve api_server MODEL --tp 4 --session-len 2048

Each rank's BlockManager prints its own two lines (turbomind/models/llama/BlockManager.cc: block_size is
printed as bytes >> 20, i.e. MiB). The engine config and the CLI flags give the tokens per block
(cache_block_seq_len, default 64) and the session length. Source: LMDeploy TurbomindEngineConfig
(https://github.com/InternLM/lmdeploy/blob/main/lmdeploy/messages.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# on a line that names the BlockManager (a renter may join the two lines: "block_size = 32 MB，max_block_count = 7987")
_BLOCK_MB = re.compile(r"block_size\s*=\s*(\d+)\s*MB", re.I)
_COUNT = re.compile(r"max_block_count\s*=\s*(\d+)", re.I)
_CFG = {
    "tp": re.compile(r"(?:\btp=|--tp[ =]+)(\d+)"),
    "session_len": re.compile(r"(?:\bsession_len=|--session[-_]len[ =]+)(\d+)"),
    "max_batch_size": re.compile(r"(?:\bmax_batch_size=|--max[-_]batch[-_]size[ =]+)(\d+)"),
    "block_seq_len": re.compile(r"(?:\bcache_block_seq_len=|--cache[-_]block[-_]seq[-_]len[ =]+)(\d+)"),
}
_RATIO = re.compile(r"(?:\bcache_max_entry_count=|--cache[-_]max[-_]entry[-_]count[ =]+)([0-9.]+)")
_MODEL = re.compile(r"lmdeploy\s+serve\s+api_server\s+([^\s\\'\"]+)")
# the renter's own words around the paste: "7987/(2048/64)" (their division) or "2048 个 token" / "token数量等于2048"
_DIVISION = re.compile(r"(\d{2,7})\s*[/÷]\s*\(\s*(\d{3,7})\s*[/÷]\s*(\d{2,3})\s*\)")
_TOKENS = re.compile(r"(\d{3,7})\s*(?:个)?\s*tokens?(?![a-z])|tokens?[^\d\n。，,.;；]{0,8}?(\d{3,7})", re.I)


@dataclass
class LmdeployLog:
    block_mb: int | None = None
    block_count: int | None = None
    prints: int = 0  # how many times the max_block_count line appears (one per TP rank)
    count_line: str | None = None
    tp: int | None = None
    session_len: int | None = None
    max_batch_size: int | None = None
    block_seq_len: int | None = None
    cache_ratio: float | None = None
    model: str | None = None
    stated_len: int | None = None  # the request length the renter wrote next to the paste


def _pool(out: LmdeployLog, line: str) -> None:
    for m in _BLOCK_MB.finditer(line):
        out.block_mb = out.block_mb or int(m.group(1))
    for m in _COUNT.finditer(line):
        out.prints += 1
        if out.block_count is None:
            out.block_count, out.count_line = int(m.group(1)), line.strip()


def parse(lines: list[str]) -> LmdeployLog | None:
    out = LmdeployLog()
    for line in lines:
        if "BlockManager" in line:
            _pool(out, line)
        for attr, rx in _CFG.items():
            m = rx.search(line)
            if m and getattr(out, attr) is None:
                setattr(out, attr, int(m.group(1)))
        m = _RATIO.search(line)
        if m and out.cache_ratio is None:
            out.cache_ratio = float(m.group(1))
        m = _MODEL.search(line)
        if m and out.model is None:
            out.model = m.group(1).rstrip("/")
    if out.block_count:
        text = "\n".join(lines)
        d = next((m for m in _DIVISION.finditer(text) if int(m.group(1)) == out.block_count), None)
        if d:
            out.stated_len = int(d.group(2))
            out.block_seq_len = out.block_seq_len or int(d.group(3))
        else:
            t = next((m for m in _TOKENS.finditer(text) if int(m.group(1) or m.group(2)) != out.block_count), None)
            out.stated_len = int(t.group(1) or t.group(2)) if t else None
    return out if out.block_count else None
