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
    import tools

    found: dict[str, ToolSpec] = {}
    for info in sorted(pkgutil.iter_modules(tools.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.ispkg:
            continue
        module = importlib.import_module(f"tools.{info.name}")
        for spec in getattr(module, "TOOLS", []):
            if spec.name in found:
                raise RuntimeError(f"duplicate tool name {spec.name!r}")
            found[spec.name] = spec
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
