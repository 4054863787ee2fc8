"""Read the reviewed data files under `knowledge/` (shipped inside the package).

Each data row carries `source` and `as_of`; loaders here only parse, they never invent.
"""

from __future__ import annotations

import logging
import marshal
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

log = logging.getLogger(__name__)

KNOWLEDGE_DIR = Path(__file__).resolve().parent.parent / "knowledge"


def knowledge_path(*parts: str) -> Path:
    return KNOWLEDGE_DIR.joinpath(*parts)


@lru_cache(maxsize=64)
def load_yaml(*parts: str) -> Any:
    """Parse one YAML file under knowledge/ (cached; callers must not mutate the result)."""
    path = knowledge_path(*parts)
    cached = _parsed_copy(path)
    if cached is not None:
        return cached[0]
    with path.open(encoding="utf-8") as fh:
        # the C or pure-Python *safe* loader: no arbitrary objects
        data = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    _save_parsed(path, data)
    return data


# The parsed copy: YAML's constructor runs in Python (~0.12 s for the ~30 files a cold `gpu-advisor ask`
# reads; issue 16), `marshal` reads the same plain data (dicts, lists, str, numbers, bool, None) about
# ten times faster. One file per source file under `$GPU_ADVISOR_HOME/cache/knowledge/`, named by the
# source's size and mtime (and this Python's marshal format), so an edited file is parsed again; kept
# only where the state folder already exists (an `estimate` on a new machine creates nothing).
def _parsed_path(path: Path) -> Path | None:
    from tools.retrieval.paths import home_path

    home = home_path()
    if not home.is_dir():
        return None
    try:
        st = path.stat()
        rel = "__".join(path.relative_to(KNOWLEDGE_DIR).parts)
    except (OSError, ValueError):
        return None
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}m{marshal.version}"
    return home / "cache" / "knowledge" / f"{rel}.{st.st_size}.{st.st_mtime_ns}.{tag}.marshal"


def _parsed_copy(path: Path) -> tuple[Any] | None:
    target = _parsed_path(path)
    if target is None:
        return None
    try:
        # our own plain-data file in the user's state folder, never code that runs
        return (marshal.loads(target.read_bytes()),)  # noqa: S302
    except (OSError, EOFError, ValueError, TypeError):
        return None


def _save_parsed(path: Path, data: Any) -> None:
    target = _parsed_path(path)
    if target is None:
        return
    try:
        blob = marshal.dumps(data)
        target.parent.mkdir(parents=True, exist_ok=True)
        for stale in target.parent.glob(target.name.split(".", 1)[0] + ".*.marshal"):
            stale.unlink(missing_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(blob)
        tmp.replace(target)
    except (OSError, ValueError) as exc:  # unmarshallable data or a read-only home: parse each time
        log.info("no parsed copy of %s: %s", path.name, exc)


def load_yaml_dir(*parts: str) -> list[tuple[Path, Any]]:
    """Parse every *.yaml file in a knowledge/ folder, sorted by name."""
    folder = knowledge_path(*parts)
    return [(p, load_yaml(*p.relative_to(KNOWLEDGE_DIR).parts)) for p in sorted(folder.glob("*.yaml"))]
