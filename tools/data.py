"""Read the reviewed data files under `knowledge/` (shipped inside the package).

Each data row carries `source` and `as_of`; loaders here only parse, they never invent.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

KNOWLEDGE_DIR = Path(__file__).resolve().parent.parent / "knowledge"


def knowledge_path(*parts: str) -> Path:
    return KNOWLEDGE_DIR.joinpath(*parts)


@lru_cache(maxsize=64)
def load_yaml(*parts: str) -> Any:
    """Parse one YAML file under knowledge/ (cached; callers must not mutate the result)."""
    path = knowledge_path(*parts)
    with path.open(encoding="utf-8") as fh:
        # the C or pure-Python *safe* loader: no arbitrary objects
        return yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506


def load_yaml_dir(*parts: str) -> list[tuple[Path, Any]]:
    """Parse every *.yaml file in a knowledge/ folder, sorted by name."""
    folder = knowledge_path(*parts)
    return [(p, load_yaml(*p.relative_to(KNOWLEDGE_DIR).parts)) for p in sorted(folder.glob("*.yaml"))]
