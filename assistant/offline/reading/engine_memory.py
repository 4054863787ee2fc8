"""The two memory questions about several cards and serving engines, read into the Frame (words from
knowledge/engines.yaml `memory_words` and `preallocation`):

- `pool_question` (a mention): "does memory on several cards add up?" — 「两张2080ti共22GB」, "for one card or total";
- `observed_memory` (a mention): the user reports what a running engine holds — 「暴增到74G」, "consuming 20GB";
- each engine's start-up fraction as the user set it (`--gpu-memory-utilization 0.92`,
  `--cache-max-entry-count 0.99`, `kv_cache_free_gpu_memory_fraction=0.5`) into `Frame.runtime_settings`
  under the setting's canonical name.

Why here: intents test Frame fields and mentions only, never the question text (docs/architecture.md).
"""

from __future__ import annotations

import re
from functools import lru_cache

from assistant.offline.reading.frame import Frame


@lru_cache(maxsize=1)
def _words() -> dict[str, list[re.Pattern[str]]]:
    from tools.data import load_yaml

    raw = load_yaml("engines.yaml").get("memory_words", {})
    return {k: [re.compile(p, re.I) for p in v] for k, v in raw.items() if isinstance(v, list)}


@lru_cache(maxsize=1)
def _setting_res() -> list[tuple[str, re.Pattern[str]]]:
    from tools.memory_engines import preallocation_engines, preallocation_profile

    out = []
    for engine in preallocation_engines():
        prof = preallocation_profile(engine)
        spell = "|".join(re.escape(s) for s in sorted(prof.spellings, key=len, reverse=True))
        out.append(
            (
                prof.setting,
                re.compile(
                    rf"(?<![\w])-*(?:{spell})\s*(?:[=:]|分别(?:是|为|设为)?|设为|设成|设置为|为|是)?\s*(\d+(?:\.\d+)?)",
                    re.I,
                ),
            )
        )
    return out


def read_engine_memory(frame: Frame, text: str) -> None:
    """Add the mentions and the engines' start-up settings (in place)."""
    for name, patterns in _words().items():
        if any(p.search(text) for p in patterns):
            frame.mentions.add(name)
    for setting, rx in _setting_res():
        m = rx.search(text)
        if m and setting not in frame.runtime_settings:
            frame.runtime_settings[setting] = m.group(1)
