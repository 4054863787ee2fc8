"""What a tool's input model allows, read off the model so no surface re-declares it.

A `click.Choice` (or a page dropdown) built from `choices(Model, "field")` cannot drift from the
field's `Literal`; `tests/test_cli_contract.py` checks every CLI command against its tool's input
model. No click or gradio here: every surface can import it.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

from pydantic import BaseModel


def _literal_args(annotation: Any) -> list[str]:
    """The values of a `Literal[...]`, looking through `X | None` and `Optional[X]`."""
    if typing.get_origin(annotation) is Literal:
        return [str(v) for v in typing.get_args(annotation)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        out: list[str] = []
        for arg in typing.get_args(annotation):
            out += [v for v in _literal_args(arg) if v not in out]
        return out
    return []


def choices(model: type[BaseModel], field: str) -> list[str]:
    """The allowed values of `model.field` (a Literal, optionally `| None`), in declaration order."""
    values = _literal_args(model.model_fields[field].annotation)
    if not values:
        raise TypeError(f"{model.__name__}.{field} is not a Literal field")
    return values


def bounds(model: type[BaseModel], field: str) -> dict[str, Any]:
    """The `ge/gt/le/lt` constraints pydantic keeps in the field's metadata (the contract test compares
    them with a `click.IntRange`/`FloatRange`)."""
    out: dict[str, Any] = {}
    for item in model.model_fields[field].metadata:
        for key in ("ge", "gt", "le", "lt"):
            value = getattr(item, key, None)
            if value is not None:
                out[key] = value
    return out
