"""The one tool registry shared by the agent, the CLI, the page and the evals.

A tool module under `tools/` exposes `TOOLS: list[ToolSpec]`. Discovery is lazy (nothing is
imported until `all_tools()` is called) so the CLI's fast paths stay fast.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Any, Callable

from pydantic import BaseModel, ValidationError

from tools.errors import ToolInputError, from_validation_error


@dataclass(frozen=True)
class ToolSpec:
    """A deterministic tool: `func(input_model) -> BaseModel`.

    `description` is what an LLM reads: say what it computes and the units of the result.
    """

    name: str
    description: str
    input_model: type[BaseModel]
    func: Callable[[Any], BaseModel]

    def run(self, args: dict[str, Any]) -> dict[str, Any]:
        """Validate `args`, run, and return a JSON-ready dict.

        Bad input returns `{"error": {"zh", "en", ...}}` (the model can read and retry);
        any other exception is a bug and propagates.
        """
        try:
            parsed = self.input_model.model_validate(args or {})
            return self.func(parsed).model_dump(mode="json")
        except ValidationError as exc:
            return from_validation_error(exc).to_dict()
        except ToolInputError as exc:
            return exc.to_dict()


def _discover() -> dict[str, ToolSpec]:
    """Every `TOOLS` list in `tools/`, its sub-packages included, keyed by tool name.

    A tool may be a module (`tools/gpus.py`) or live in a package (`tools/diagnosis/__init__.py`
    or any module inside it), so no façade module is needed. Names starting with `_` are
    private and skipped. Only modules whose source defines `TOOLS` at top level are imported:
    walking a package must not drag in its heavy helpers (`tools/retrieval/embedding.py` needs
    numpy and chromadb) just to learn that they define no tools. Two tools with one name are a
    bug and raise.
    """
    import re

    import tools

    defines_tools = re.compile(r"^TOOLS\s*[:=]", re.MULTILINE)

    def _raise(name: str) -> None:
        raise  # re-raise what walk_packages caught: by default it would swallow a broken package

    found: dict[str, ToolSpec] = {}
    for info in pkgutil.walk_packages(tools.__path__, prefix="tools.", onerror=_raise):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        spec = info.module_finder.find_spec(info.name, None)
        origin = spec.origin if spec is not None else None
        if not origin or not origin.endswith(".py"):
            continue
        with open(origin, encoding="utf-8") as handle:
            if not defines_tools.search(handle.read()):
                continue
        module = importlib.import_module(info.name)
        for tool in getattr(module, "TOOLS", []):
            if tool.name in found:
                raise RuntimeError(f"duplicate tool name {tool.name!r}")
            found[tool.name] = tool
    return found


_CACHE: dict[str, ToolSpec] | None = None


def all_tools() -> dict[str, ToolSpec]:
    global _CACHE
    if _CACHE is None:
        _CACHE = _discover()
    return _CACHE


def get_tool(name: str) -> ToolSpec:
    tools = all_tools()
    if name not in tools:
        raise ToolInputError(f"没有名为 {name} 的工具", f"No tool named {name}", suggestions=sorted(tools))
    return tools[name]


def run_tool(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return get_tool(name).run(args)
