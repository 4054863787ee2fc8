"""Tool results read through the tools' own output models, so a renamed field fails here (and in
mypy), not as a silently missing line. The output model is the return annotation of the tool's
function in the registry; a result that does not validate (an LLM's hand-made result, an older tool)
gives None and the renderer writes nothing for it.
"""

from __future__ import annotations

import functools
import inspect
import typing
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from assistant.offline.types import ToolResult

M = TypeVar("M", bound=BaseModel)


@functools.lru_cache(maxsize=64)
def output_model(tool: str) -> type[BaseModel] | None:
    """The pydantic model a registered tool returns (its function's return annotation)."""
    from tools.registry import all_tools

    spec = all_tools().get(tool)
    if spec is None:
        return None
    try:
        ret = typing.get_type_hints(spec.func).get("return")
    except Exception:  # an annotation that cannot be resolved: no typed view  # noqa: BLE001
        return None
    return ret if inspect.isclass(ret) and issubclass(ret, BaseModel) else None


def typed(r: ToolResult, model: type[M]) -> M | None:
    """`r.result` validated into `model` (the tool's output model), or None."""
    if r.error:
        return None
    try:
        return model.model_validate(r.result)
    except ValidationError:
        return None
