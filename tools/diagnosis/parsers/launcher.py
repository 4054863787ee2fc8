"""Distributed-launcher failures before any GPU work: the launcher binary not found, the rendezvous port taken.

Shapes:
  /bin/sh: 1: torchrun: not found            bash: deepspeed: command not found
  RuntimeError: The server socket has failed to listen on any local network address. … port: 29500 … (errno: 98 - Address already in use)
  torch.distributed.DistNetworkError: … EADDRINUSE / Address already in use
Why its own kind: these need a PATH or port fix, not a GPU or NCCL one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NOT_FOUND = re.compile(
    r"\b(torchrun|deepspeed|accelerate|llamafactory-cli|swift|mpirun|colossalai)"
    r"(?::\s*(?:\d+:\s*)?(?:command )?not found| - command not found)"
)
_PORT_IN_USE = re.compile(r"Address already in use|EADDRINUSE|errno: 98\b")
_PORT = re.compile(r"(?:port[:= ]\s*|MASTER_PORT=|--master[_-]port[= ]|\]:|0\.0\.0\.0:)(\d{2,5})\b", re.I)


@dataclass
class Launcher:
    missing: str | None = None  # the command not found
    missing_line: str | None = None
    sudo: bool = False  # the command was run under sudo (secure_path drops the env's bin)
    port_in_use: str | None = None
    port: int | None = None


def parse(lines: list[str]) -> Launcher | None:
    out = Launcher()
    for line in lines:
        m = _NOT_FOUND.search(line)
        if m and out.missing is None:
            out.missing, out.missing_line = m.group(1), line.strip()[:300]
        if _PORT_IN_USE.search(line) and out.port_in_use is None:
            out.port_in_use = line.strip()[:300]
        if re.search(r"(?:^|\s|\$|#)sudo\s", line):
            out.sudo = True
        p = _PORT.search(line)
        if p and out.port is None:
            out.port = int(p.group(1))
    return out if out.missing or out.port_in_use else None
