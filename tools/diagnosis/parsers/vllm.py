"""vLLM start-up logs: the KV cache got no (or too little) memory.

INFO ... llm_engine.py:275] # GPU blocks: 0, # CPU blocks: 256
ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` ...
ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be
stored in KV cache (20000). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` ...
Model loading took 14.2487 GB
INFO worker.py:267] the current vLLM instance can use total_gpu_memory (8.00GiB) x gpu_memory_utilization (0.70) = 5.60GiB
INFO worker.py:267] model weights take 5.20GiB; non_torch_memory takes 0.03GiB; PyTorch activation peak memory takes 1.42GiB; the rest of the memory reserved for KV Cache is -1.05GiB.

The memory-profiling lines give the whole budget (total × gpu_memory_utilization) and what took it
before the KV cache: a KV share of zero or less is the same starvation as "No available memory".

The launch command and the pool lines are read too, so the serving arithmetic (tools/diagnosis/serving.py)
can be done from the paste: `--tensor-parallel-size`, `--pipeline-parallel-size`, `--gpu-memory-utilization`,
`--max-model-len`, `--block-size`, `--kv-cache-dtype`, `--model` / `vllm serve MODEL`, "# GPU blocks: N" (V0)
and "GPU KV cache size: N tokens" (V1). Source: vLLM engine arguments
(https://docs.vllm.ai/en/latest/configuration/engine_args.html).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BLOCKS = re.compile(r"# GPU blocks: (\d+)")
_NO_MEM = re.compile(r"No available memory for the cache blocks")
_MAXLEN = re.compile(
    r"max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((\d+)\)"
)
_LOADED = re.compile(r"Model loading took ([0-9.]+) ?GB")
_UTIL = re.compile(r"gpu[-_]memory[-_]utilization[ =:：]+([0-9.]+)")
_LOADED_GIB = re.compile(r"Model loading took ([0-9.]+) ?GiB")
_KV_AVAIL = re.compile(r"Available KV cache memory: ([0-9.]+) ?GiB")
_CARD_MIB = re.compile(r"(?<![\d.])(\d{4,6})\s*MiB")  # "显存大小46068MiB" / "46068MiB" said next to the log
_BUDGET = re.compile(
    r"total_gpu_memory \(([0-9.]+) ?GiB\) x gpu_memory_utilization \(([0-9.]+)\) = ([0-9.]+) ?GiB", re.I
)
_LAUNCH = re.compile(r"vllm(?:\.entrypoints[\w.]*|\s+serve)\b", re.I)
_TP = re.compile(r"(?:--tensor[-_]parallel[-_]size|(?<![\w-])-tp)[ =]+(\d+)")
_PP = re.compile(r"(?:--pipeline[-_]parallel[-_]size|(?<![\w-])-pp)[ =]+(\d+)")
_MAX_MODEL_LEN = re.compile(r"--max[-_]model[-_]len[ =]+(\d+)")
_BLOCK_SIZE = re.compile(r"--block[-_]size[ =]+(\d+)")
_KV_DTYPE = re.compile(r"--kv[-_]cache[-_]dtype[ =]+(\w+)")
_MODEL = re.compile(r"(?:--model[ =]+|vllm\s+serve\s+)([^\s\\'\"]+)")
_V1_TOKENS = re.compile(r"GPU KV cache size: ([\d,]+) tokens")
_PROFILE = re.compile(
    r"model weights take ([0-9.]+) ?GiB; non_torch_memory takes ([0-9.]+) ?GiB; PyTorch activation peak memory "
    r"takes ([0-9.]+) ?GiB; the rest of the memory reserved for KV Cache is (-?[0-9.]+) ?GiB",
    re.I,
)


@dataclass
class VllmLog:
    no_cache_line: str | None = None
    gpu_blocks: int | None = None
    blocks_line: str | None = None
    max_len: tuple[int, int] | None = None  # (model max len, tokens that fit)
    max_len_line: str | None = None
    weights_gb: float | None = None
    utilization: float | None = None
    # memory profiling, GiB: (total, utilization, budget) and (weights, non-torch, activation peak, KV left)
    budget: tuple[float, float, float] | None = None
    profile: tuple[float, float, float, float] | None = None
    profile_line: str | None = None
    # the launch command and the pool, for the serving arithmetic
    launch_line: str | None = None
    tp: int | None = None
    pp: int | None = None
    max_model_len: int | None = None
    block_size: int | None = None
    kv_cache_dtype: str | None = None
    model: str | None = None
    kv_tokens_line: str | None = None
    kv_tokens: int | None = None  # "GPU KV cache size: N tokens" (V1)
    loaded_gib: float | None = None  # "Model loading took X GiB" (V1 prints GiB)
    kv_avail_gib: float | None = None  # "Available KV cache memory: X GiB"
    card_mib: int | None = None  # a card size in MiB said in the paste (not from a "used / total" pair)

    @property
    def has_numbers(self) -> bool:
        """A launch command or a pool line the serving arithmetic can use."""
        return bool(self.launch_line or self.gpu_blocks or self.kv_tokens or self.budget or self.kv_avail_gib)

    @property
    def kv_cache_starved(self) -> bool:
        kv_left = self.profile[3] if self.profile else None
        return (
            bool(self.no_cache_line)
            or self.gpu_blocks == 0
            or self.max_len is not None
            or (kv_left is not None and kv_left <= 0)
        )


def parse(lines: list[str]) -> VllmLog | None:
    out = VllmLog()
    for line in lines:
        if out.no_cache_line is None and _NO_MEM.search(line):
            out.no_cache_line = line.strip()
        m = _BLOCKS.search(line)
        if m and out.gpu_blocks is None:
            out.gpu_blocks, out.blocks_line = int(m.group(1)), line.strip()
        m = _MAXLEN.search(line)
        if m and out.max_len is None:
            out.max_len, out.max_len_line = (int(m.group(1)), int(m.group(2))), line.strip()
        m = _LOADED.search(line)
        if m:
            out.weights_gb = float(m.group(1))
        m = _BUDGET.search(line)
        if m:
            out.budget = (float(m.group(1)), float(m.group(2)), float(m.group(3)))
            out.utilization = out.budget[1]
        m = _PROFILE.search(line)
        if m:
            out.profile = (float(m.group(1)), float(m.group(2)), float(m.group(3)), float(m.group(4)))
            out.profile_line = line.strip()
            continue
        m = _UTIL.search(line)
        if m and out.budget is None:
            try:
                out.utilization = float(m.group(1))
            except ValueError:
                pass
        m = _LOADED_GIB.search(line)
        if m:
            out.loaded_gib = float(m.group(1))
        m = _KV_AVAIL.search(line)
        if m:
            out.kv_avail_gib = float(m.group(1))
        m = _CARD_MIB.search(line)
        if m and out.card_mib is None and int(m.group(1)) >= 4000 and "/" not in line[m.end() : m.end() + 3]:
            out.card_mib = int(m.group(1))
        m = _V1_TOKENS.search(line)
        if m and out.kv_tokens is None:
            out.kv_tokens, out.kv_tokens_line = int(m.group(1).replace(",", "")), line.strip()
        if _LAUNCH.search(line) and out.launch_line is None:
            out.launch_line = line.strip()
            _read_args(out, line)
    return out if out.kv_cache_starved or out.has_numbers else None


def _read_args(out: VllmLog, line: str) -> None:
    """The engine arguments on the launch command (only the ones the arithmetic needs)."""
    for attr, rx in (("tp", _TP), ("pp", _PP), ("max_model_len", _MAX_MODEL_LEN), ("block_size", _BLOCK_SIZE)):
        m = rx.search(line)
        if m:
            setattr(out, attr, int(m.group(1)))
    m = _KV_DTYPE.search(line)
    if m:
        out.kv_cache_dtype = m.group(1).lower()
    m = _MODEL.search(line)
    if m:
        out.model = m.group(1).rstrip("/")
