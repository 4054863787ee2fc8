"""Distributed-launcher failures before any GPU work: the launcher binary not found, the rendezvous port taken.

Shapes:
  /bin/sh: 1: torchrun: not found            bash: deepspeed: command not found
  RuntimeError: The server socket has failed to listen on any local network address. … port: 29500 … (errno: 98 - Address already in use)
  torch.distributed.DistNetworkError: … EADDRINUSE / Address already in use
  torchrun --nproc_per_node=4 --nnodes=1 --node_rank=3 --master_addr=192.168.1.1 …   (hangs: no node 0 ever joins)
Why its own kind: these need a PATH, port or launch-flag fix, not a GPU or NCCL one.
A torchrun command counts only when its flags cannot work: --node_rank outside 0..nnodes−1 (the rendezvous
waits forever for the missing ranks; torchrun docs, https://docs.pytorch.org/docs/stable/elastic/run.html).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NOT_FOUND = re.compile(
    r"\b(torchrun|deepspeed|accelerate|llamafactory-cli|swift|mpirun|colossalai)"
    r"(?::\s*(?:\d+:\s*)?(?:command )?not found| - command not found)"
)
_PORT_IN_USE = re.compile(r"Address already in use|EADDRINUSE|errno: 98\b")
_TORCHRUN = re.compile(r"\b(?:torchrun|torch\.distributed\.(?:run|launch))\b")
_FLAG = {
    "nnodes": re.compile(r"--nnodes[= ]+(\d+)(?![\d:])"),
    "node_rank": re.compile(r"--node[_-]rank[= ]+(\d+)"),
    "nproc": re.compile(r"--nproc[_-]per[_-]node[= ]+(\d+)"),
}
_ADDR = re.compile(r"--master[_-]addr[= ]+([\w.:-]+)")
_PORT = re.compile(r"(?:port[:= ]\s*|MASTER_PORT=|--master[_-]port[= ]|\]:|0\.0\.0\.0:)(\d{2,5})\b", re.I)


@dataclass
class Launcher:
    missing: str | None = None  # the command not found
    missing_line: str | None = None
    sudo: bool = False  # the command was run under sudo (secure_path drops the env's bin)
    port_in_use: str | None = None
    port: int | None = None
    # a torchrun command whose flags cannot rendezvous
    launch_line: str | None = None
    nnodes: int | None = None
    node_rank: int | None = None
    nproc: int | None = None
    master_addr: str | None = None

    @property
    def rank_out_of_range(self) -> bool:
        return self.nnodes is not None and self.node_rank is not None and self.node_rank >= self.nnodes


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
        if out.launch_line is None and _TORCHRUN.search(line) and "--node" in line:
            out.launch_line = line.strip()[:300]
            for attr, rx in _FLAG.items():
                m = rx.search(line)
                if m:
                    setattr(out, attr, int(m.group(1)))
            a = _ADDR.search(line)
            out.master_addr = a.group(1) if a else None
    return out if out.missing or out.port_in_use or out.rank_out_of_range else None
