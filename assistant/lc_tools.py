"""The tool registry as LangChain tools, so the agent sees exactly what the CLI and the page run.

Each `ToolSpec` becomes a `StructuredTool` whose `args_schema` is the spec's input model as JSON
Schema *minus operator settings* (`ToolSpec.llm_schema()`: no quotes file, no store path — those come
from flags and env only), with the spec's description (which states units). Validation happens once,
in `ToolSpec.run` as an untrusted caller: an operator field the model sends anyway is refused. The tool returns `(json_text, result_dict)`: the model reads
the JSON text, the advisor keeps the dict as the artifact for `tool_calls[].result`.

Bad input from the model (schema violation, `ToolInputError`) comes back as the same bilingual
`{"error": {"zh", "en", "field", "suggestions"}}` the CLI prints, so the model can fix its call.
Any other exception is a bug and propagates (LangGraph's ToolNode re-raises it).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterable

from tools.errors import from_validation_error

if TYPE_CHECKING:  # pragma: no cover
    from langchain_core.tools import StructuredTool

    from tools.registry import ToolSpec


def tool_json(result: dict[str, Any]) -> str:
    """Compact, Chinese-unescaped JSON: what the model reads as the tool message."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"), default=str)


def _validation_error_content(exc: Exception) -> str:
    return tool_json(from_validation_error(exc).to_dict())


def to_langchain_tool(spec: "ToolSpec") -> "StructuredTool":
    """One registry spec → one LangChain `StructuredTool` (content = JSON text, artifact = dict)."""
    from langchain_core.tools import StructuredTool

    def _run(**kwargs: Any) -> tuple[str, dict[str, Any]]:
        # Validate through the spec as an untrusted caller, so the agent and the page share one code
        # path (ToolInputError → bilingual error dict; other exceptions are bugs and raise).
        result = spec.run(kwargs, operator=False)
        return tool_json(result), result

    return StructuredTool.from_function(
        func=_run,
        name=spec.name,
        description=spec.description,
        args_schema=spec.llm_schema(),
        response_format="content_and_artifact",
        handle_validation_error=_validation_error_content,
        infer_schema=False,
    )


def registry_tools(specs: Iterable["ToolSpec"] | None = None) -> list["StructuredTool"]:
    """Every registry tool (or the given specs) as LangChain tools, in name order."""
    if specs is None:
        from tools.registry import all_tools

        specs = all_tools().values()
    return [to_langchain_tool(s) for s in sorted(specs, key=lambda s: s.name)]
