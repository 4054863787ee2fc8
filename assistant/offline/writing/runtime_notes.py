"""What a named local runtime does to memory and speed (llama.cpp -ngl, LMDeploy cache_max_entry_count,
ExLlamaV2 bpw/cache bits/gpu_split, Ollama, text-generation-webui's layer split).

WHY: questions like "11 tokens/s on an A100 with llama.cpp" or "LMDeploy fills the whole card" are answered by
one setting, not by a memory estimate; the note text and its source live in knowledge/engines.yaml
(`local_runtimes`), so this module only picks which notes apply."""

from __future__ import annotations

from functools import lru_cache

from assistant.offline.reading.slots import Slots
from assistant.offline.writing.render import Writer


@lru_cache(maxsize=1)
def _runtimes() -> dict[str, dict]:
    from tools.data import load_yaml

    return dict(load_yaml("engines.yaml").get("local_runtimes") or {})


def runtime_notes(w: Writer, slots: Slots) -> None:
    """One line per runtime the question names (at most two), with the setting the user quoted first."""
    table = _runtimes()
    named = [e for e in slots.engines if e in table][:2]
    settings = slots.runtime_settings
    for engine in named:
        notes = table[engine].get("notes") or {}
        zh, en = str(notes.get("zh") or ""), str(notes.get("en") or "")
        if engine == "llama.cpp" and settings.get("ngl") == "0":
            zh = "你设置的 -ngl 0 表示一层都没放到 GPU，全部在 CPU 上算。" + zh
            en = "Your -ngl 0 puts no layer on the GPU: everything runs on the CPU. " + en
        if engine == "LMDeploy" and settings.get("cache_max_entry_count"):
            v = settings["cache_max_entry_count"]
            zh = f"你设置的 cache_max_entry_count={v}。" + zh
            en = f"Your cache_max_entry_count={v}. " + en
        if zh and en:
            w.add("numbers", zh, en)
            src = str(table[engine].get("source") or "").strip()
            if src:
                w.add("assumptions", f"{engine} 说明出处：{src}", f"{engine} note source: {src}")
