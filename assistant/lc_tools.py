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
import re
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


# Arguments that say what the *user* claims (what they rented): only the user's own words may set them,
# never text inside a pasted log or a document (issue 18: "the provider promised 64 H100" in a paste).
USER_CLAIM_ARGS = {"diagnose_logs": ("expect",), "delivery_checklist": ("expect",)}


def expect_supported(value: str, own_words: str) -> bool:
    """True when every GPU name and count in `value` ("8x A100") also appears in the user's own words."""
    from assistant.grounding import source_numbers

    text = value.lower()
    own = re.sub(r"[\s\-_]", "", own_words.lower())
    names = re.findall(r"[a-z]+\d+[a-z0-9]*", text)
    if any(re.sub(r"[\s\-_]", "", n) not in own for n in names):
        return False
    rest = re.sub(r"[a-z]+\d+[a-z0-9]*", " ", text)
    pool = source_numbers([own_words])
    return all(any(abs(float(n) - p) < 1e-9 for p in pool) for n in re.findall(r"\d+(?:\.\d+)?", rest))


def guard_user_claims(name: str, args: dict[str, Any], own_words: str | None) -> tuple[dict[str, Any], str | None]:
    """Drop a user-claim argument the user never said; returns (args, bilingual note or None)."""
    if own_words is None:
        return args, None
    dropped = [
        k for k in USER_CLAIM_ARGS.get(name, ()) if args.get(k) and not expect_supported(str(args[k]), own_words)
    ]
    if not dropped:
        return args, None
    note = (
        f"已忽略参数 {', '.join(dropped)}：它不是用户自己说的（来自粘贴的内容或文档）。 / "
        f"Ignored {', '.join(dropped)}: the user did not say it (it came from pasted text or a document)."
    )
    return {k: v for k, v in args.items() if k not in dropped}, note


def to_langchain_tool(spec: "ToolSpec", own_words: str | None = None) -> "StructuredTool":
    """One registry spec → one LangChain `StructuredTool` (content = JSON text, artifact = dict).

    `own_words` (the LLM path): the user's own text, outside any paste; user-claim arguments such as
    `expect` are kept only when it supports them (see `guard_user_claims`)."""
    from langchain_core.tools import StructuredTool

    def _run(**kwargs: Any) -> tuple[str, dict[str, Any]]:
        # Validate through the spec as an untrusted caller, so the agent and the page share one code
        # path (ToolInputError → bilingual error dict; other exceptions are bugs and raise).
        kwargs, note = guard_user_claims(spec.name, kwargs, own_words)
        result = spec.run(kwargs, operator=False)
        if note and isinstance(result, dict):
            result = {**result, "ignored_arguments": note}
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


def registry_tools(specs: Iterable["ToolSpec"] | None = None, own_words: str | None = None) -> list["StructuredTool"]:
    """Every registry tool (or the given specs) as LangChain tools, in name order."""
    if specs is None:
        from tools.registry import tool_cards

        specs = tool_cards()  # from the tool manifest: no tool module imported until a tool runs
    return [to_langchain_tool(s, own_words) for s in sorted(specs, key=lambda s: s.name)]
