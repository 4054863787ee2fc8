"""Published sizes (and training tokens) of models outside the architecture catalog.

Why: "GPT-3 规模要多少钱", "Grok-1 最便宜怎么跑", "MOSS 一台服务器" name models whose config.json the
catalog does not carry; their published parameter count is enough for weights (params × bytes) and,
with the published token count, for 6·N·D. Data: `knowledge/reference_models.yaml` (source per row).
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel

from tools.data import load_yaml


class ReferenceModel(BaseModel):
    id: str
    aliases: list[str]
    params_b: float
    active_params_b: float | None = None
    training_tokens: float | None = None
    shipped_precision: str = "bf16"
    source: str
    as_of: str


@lru_cache(maxsize=1)
def reference_models() -> list[ReferenceModel]:
    return [ReferenceModel.model_validate(row) for row in load_yaml("reference_models.yaml")["models"]]


def find_reference(text: str) -> ReferenceModel | None:
    """The first reference model whose alias appears as a whole word in `text` (longest alias first)."""
    low = text.lower()
    pairs = sorted(((a.lower(), m) for m in reference_models() for a in m.aliases), key=lambda p: -len(p[0]))
    for alias, model in pairs:
        if re.search(rf"(?<![a-z0-9.-]){re.escape(alias)}(?![a-z0-9-]|\.\d)", low):  # CJK neighbours allowed
            return model
    return None
