"""An Apple-silicon Mac as the machine to run on: its unified memory is the "card".

macOS lets the GPU wire only part of the unified memory by default (Metal's recommendedMaxWorkingSetSize): about
75% of the RAM on the larger machines (GPUStack reads it as 75%, github.com/gpustack/gpustack/issues/1375; measured
107.5 GiB of 128 GiB on macOS 26, github.com/antirez/ds4/pull/893), about two thirds on 16 GB ones (10.9 of 16 GB,
abetlen/llama-cpp-python#687). Ollama, llama.cpp and MLC-LLM run 4-bit weights there by default.
"""

from __future__ import annotations

import re

GPU_SHARE = 0.75  # recommendedMaxWorkingSetSize ÷ RAM on 32 GB+ Macs (sources above)

_MAC = re.compile(
    r"mac\s*book(?:\s*(?:pro|air))?|mac\s*studio|mac\s*mini|mac\s*pro|imac|\bmac\b|apple\s+silicon|"
    r"\bm[1-5]\s*(?:pro|max|ultra)\b",
    re.I,
)
_SIZE = r"(?P<gb>\d{1,3})\s*(?:gb|g)(?![a-z0-9/])"


def mac_memory_gb(text: str, host_ram_gb: float | None) -> float | None:
    """The Mac's unified memory in GB when a Mac is named with its size ("96GB RAM Macbook", "M2 Ultra (maybe
    192G)", 「M3 Max 128G」); None when no Mac or no size is said."""
    hits = list(_MAC.finditer(text or ""))
    for m in hits:
        after = re.search(r"^[^.。?？!！;；]{0,24}?" + _SIZE, text[m.end() :], re.I)
        if after:
            return float(after.group("gb"))
        before = re.search(_SIZE + r"[^.。?？!！;；\d]{0,16}$", text[max(0, m.start() - 24) : m.start()], re.I)
        if before:
            return float(before.group("gb"))
    return host_ram_gb if hits else None


_CHIP = re.compile(r"\bm([1-5])\s*(pro|max|ultra)?\b", re.I)


def mac_chip(text: str) -> str | None:
    """The Apple chip named ("M2 Ultra", "m3 max"), as knowledge/cpus.yaml spells it; None for a bare "MacBook"."""
    m = _CHIP.search(text or "")
    if m is None:
        return None
    return f"M{m.group(1)}" + (f" {m.group(2).title()}" if m.group(2) else "")
