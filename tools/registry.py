"""The one tool registry shared by the agent, the CLI, the page and the evals.

A tool module under `tools/` exposes `TOOLS: list[ToolSpec]`. Discovery is lazy (nothing is
imported until `all_tools()` is called) so the CLI's fast paths stay fast.

Trust boundary (issue 18): `ToolSpec.run` is how the LLM, the offline planner and the page call a
tool, so by default it treats its caller as *untrusted*: operator settings (`OPERATOR_FIELDS`, e.g.
a quotes file) are refused, no filesystem path is opened on the caller's behalf
(`operator_paths_allowed()` is False while the tool runs), and every number is checked to be finite
and in a computable range before the tool sees it. The CLI builds input models itself and runs as
the operator (paths from flags and env are the operator's own).
"""

from __future__ import annotations

import contextvars
import copy
import importlib
import json
import logging
import math
import os
import pkgutil
import re
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ValidationError

from tools.errors import ToolInputError, from_validation_error

log = logging.getLogger(__name__)

# Settings only the operator may give (flags, env, settings) — never the LLM or a page visitor.
OPERATOR_FIELDS: frozenset[str] = frozenset(
    {"quotes_file", "store_path", "store_dir", "chroma_url", "persist_dir", "home", "config_path"}
)

# Numbers outside this range are not a real rental question and overflow later arithmetic
# (1e308 hours × 720 → inf; 1/1e-308 → inf). 1e15 is above any real count here (the largest
# published pre-training runs are ~3.6e13 tokens); 1e-6 is below any real price, share or ratio.
MAX_MAGNITUDE = 1e15
MIN_MAGNITUDE = 1e-6

_OPERATOR: contextvars.ContextVar[bool] = contextvars.ContextVar("gpu_advisor_operator", default=True)
_NUMERIC_LITERAL = re.compile(r"(?i)(?<![\w.])[-+]?(?:\d[\d_,]*\.?\d*|\.\d+)(?:e[-+]?\d+)?|\b(?:nan|inf(?:inity)?)\b")


def operator_paths_allowed() -> bool:
    """True when the code runs for the operator (CLI), False inside a tool call from the LLM or the page.

    Tools that could open a file named in their input (a model's config.json) must check this first."""
    return _OPERATOR.get()


def _out_of_range(field: str, raw: object) -> ToolInputError:
    return ToolInputError(
        f"{field} 的数值 {str(raw)[:40]} 不是有限的正常数值（应在 {MIN_MAGNITUDE:g} 到 {MAX_MAGNITUDE:g} 之间）",
        f"{field}: {str(raw)[:40]} is not a usable finite number (expected between {MIN_MAGNITUDE:g} and "
        f"{MAX_MAGNITUDE:g})",
        field=field,
    )


def check_number(value: float, field: str) -> None:
    """Finite and within [MIN_MAGNITUDE, MAX_MAGNITUDE] in size (0 is left to the field's own bounds)."""
    if isinstance(value, bool):
        return
    if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE or (value != 0 and abs(value) < MIN_MAGNITUDE):
        raise _out_of_range(field, value)


def check_numeric_text(text: str, field: str) -> None:
    """A string argument ("1e400", "inf 小时", "1e308B") whose number literal is unusable."""
    for m in _NUMERIC_LITERAL.finditer(text[:2000]):
        literal = m.group(0).replace("_", "").replace(",", "")
        try:
            value = float(literal)
        except ValueError:
            continue
        check_number(value, field)


def check_values(obj: Any, field: str = "input", *, strings: bool = True) -> None:
    """Walk parsed input: numbers finite and bounded; number-like text too (`strings`)."""
    if isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            check_values(getattr(obj, name), name, strings=strings)
    elif isinstance(obj, bool) or obj is None:
        return
    elif isinstance(obj, (int, float)):
        check_number(float(obj) if not isinstance(obj, int) or abs(obj) < 10**300 else math.inf, field)
    elif isinstance(obj, str):
        if strings:
            check_numeric_text(obj, field)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            check_values(v, f"{field}.{k}", strings=strings)
    elif isinstance(obj, (list, tuple, set)):
        for v in obj:
            check_values(v, field, strings=strings)


def finite_output(obj: Any) -> bool:
    """True when a tool result holds no inf/nan (JSON would print `Infinity`, people `¥inf`)."""
    if isinstance(obj, float):
        return math.isfinite(obj)
    if isinstance(obj, dict):
        return all(finite_output(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return all(finite_output(v) for v in obj)
    return True


# Free-text fields (a pasted log, a search query) may hold any digits; they are not quantities.
_FREE_TEXT_FIELDS = frozenset({"text", "query", "question", "names", "expect", "log", "content"})


def _computation_error(name: str) -> ToolInputError:
    return ToolInputError(
        "这些数值超出了可计算的范围，请检查输入（例如时长、价格、token 数）",
        f"{name}: these values are outside the range that can be computed; check the input "
        "(durations, prices, token counts)",
        field="input",
    )


@dataclass(frozen=True)
class ToolSpec:
    """A deterministic tool: `func(input_model) -> BaseModel`.

    `description` is what an LLM reads: say what it computes and the units of the result.
    """

    name: str
    description: str
    input_model: type[BaseModel]
    func: Callable[[Any], BaseModel]

    def operator_fields(self) -> set[str]:
        return set(self.input_model.model_fields) & OPERATOR_FIELDS

    def llm_schema(self) -> dict[str, Any]:
        """The JSON schema the LLM sees: the input model without operator settings."""
        schema = self.input_model.model_json_schema()
        hidden = self.operator_fields()
        props = {k: v for k, v in (schema.get("properties") or {}).items() if k not in hidden}
        schema["properties"] = props
        if "required" in schema:
            schema["required"] = [k for k in schema["required"] if k not in hidden]
        schema.setdefault("title", self.input_model.__name__)
        schema.setdefault("description", self.description)
        return schema

    def _prepare(self, args: dict[str, Any], operator: bool) -> dict[str, Any]:
        if not isinstance(args, dict):
            raise ToolInputError("工具参数必须是一个对象", "Tool arguments must be an object", field="input")
        clean: dict[str, Any] = {}
        fields = self.input_model.model_fields
        for key, value in args.items():
            if key in OPERATOR_FIELDS and not operator:
                if value in (None, ""):
                    continue
                raise ToolInputError(
                    f"{key} 是运营方设置，只能在命令行或环境变量里给出",
                    f"{key} is an operator setting; it can only come from the command line or the environment",
                    field=key,
                )
            if isinstance(value, str) and not value.strip():
                info = fields.get(key)
                if info is not None and not info.is_required():
                    continue  # "" for an optional field means "not given"
                raise ToolInputError(f"{key} 不能为空", f"{key} must not be empty", field=key)
            clean[key] = value
        return clean

    def run(self, args: dict[str, Any], *, operator: bool = False) -> dict[str, Any]:
        """Validate `args`, run, and return a JSON-ready dict.

        Bad input returns `{"error": {"zh", "en", ...}}` (the model can read and retry) — that includes
        numbers that are not finite or outside a computable range, and arithmetic that still overflows.
        Any other exception is a bug and propagates.
        """
        token = _OPERATOR.set(operator)
        try:
            clean = self._prepare(args if args is not None else {}, operator)
            for key, value in clean.items():
                check_values(value, key, strings=key not in _FREE_TEXT_FIELDS)
            parsed = self.input_model.model_validate(clean)
            check_values(parsed, strings=False)
            try:
                result = self.func(parsed).model_dump(mode="json")
            except (ArithmeticError, RecursionError) as exc:  # overflow / division by zero deep in a formula
                log.info("tool %s: %s: %s", self.name, type(exc).__name__, exc)
                raise _computation_error(self.name) from None
            if not finite_output(result):
                raise _computation_error(self.name)
            return result
        except ValidationError as exc:
            return from_validation_error(exc).to_dict()
        except ToolInputError as exc:
            return exc.to_dict()
        finally:
            _OPERATOR.reset(token)


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
            _ORIGINS[tool.name] = info.name
    return found


_ORIGINS: dict[str, str] = {}  # tool name → the module whose TOOLS list holds it (for the manifest)


class ToolCard:
    """What the agent needs to *offer* a tool (name, description, LLM schema) without importing it;
    `run` imports the tool's module on the first call. Built from the tool manifest (below)."""

    def __init__(self, name: str, description: str, schema: dict[str, Any]) -> None:
        self.name, self.description, self._schema = name, description, schema

    def llm_schema(self) -> dict[str, Any]:
        return copy.deepcopy(self._schema)

    def run(self, args: dict[str, Any], *, operator: bool = False) -> dict[str, Any]:
        return get_tool(self.name).run(args, operator=operator)


class _LazyTools(MutableMapping[str, ToolSpec]):
    """The registry as `all_tools()` returns it when the manifest is current: every tool name at once,
    each tool's module imported only when that tool is looked up. WHY: importing all ~20 tool modules
    (diagnosis rules, training-time tables …) cost ~0.1–0.2 s of every cold `gpu-advisor ask`, which
    calls three or four of them (issue 16)."""

    def __init__(self, modules: dict[str, str]) -> None:
        self._modules = modules  # tool name → module that defines it, in discovery order
        self._specs: dict[str, ToolSpec] = {}

    def __getitem__(self, name: str) -> ToolSpec:
        spec = self._specs.get(name)
        if spec is None:
            module = importlib.import_module(self._modules[name])
            for tool in getattr(module, "TOOLS", []):
                if self._modules.get(tool.name) == module.__name__:
                    self._specs.setdefault(tool.name, tool)
            if name not in self._specs:  # the manifest promised a tool the module lacks: look again
                return _full()[name]
            spec = self._specs[name]
        return spec

    def __setitem__(self, name: str, spec: ToolSpec) -> None:
        self._modules.setdefault(name, _ORIGINS.get(name, spec.func.__module__))
        self._specs[name] = spec

    def __delitem__(self, name: str) -> None:
        del self._modules[name]
        self._specs.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._modules))

    def __len__(self) -> int:
        return len(self._modules)


# The tool manifest: name, module, description and LLM schema of every tool, written after a full
# discovery to the state folder and trusted only while every file under tools/ and knowledge/ has the
# size and mtime it had then (and the same Python and pydantic). A missing, stale or unreadable
# manifest means a full discovery, exactly as before; it only ever saves time.
_MANIFEST_VERSION = 1


def _manifest_key() -> str:
    import hashlib
    import os
    import sys

    import pydantic

    import tools

    parts: list[str] = [str(_MANIFEST_VERSION), sys.version, pydantic.VERSION]
    roots = [*tools.__path__, str(Path(tools.__file__).resolve().parent.parent / "knowledge")]
    for root in roots:
        parts.append(root)
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".yaml", ".yml")):
                    st = os.stat(os.path.join(folder, name))
                    parts.append(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _manifest_path() -> Path:
    from tools.retrieval.paths import cache_dir

    return cache_dir() / "tool_manifest.json"


def _read_manifest(key: str) -> list[dict[str, Any]] | None:
    try:
        data = json.loads(_manifest_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("tools"), list):
        return None
    return data["tools"]


def _write_manifest(key: str, found: dict[str, ToolSpec]) -> None:
    rows = [
        {
            "name": s.name,
            "module": _ORIGINS.get(s.name, s.func.__module__),
            "description": s.description,
            "schema": s.llm_schema(),
        }
        for s in found.values()
    ]
    try:
        path = _manifest_path()
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": key, "tools": rows}, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)
    except (OSError, TypeError, ValueError) as exc:  # a read-only home only costs speed next time
        log.info("tool manifest not written: %s", exc)


_CACHE: MutableMapping[str, ToolSpec] | None = None
_CARDS: list[ToolCard] | None = None


def _full() -> dict[str, ToolSpec]:
    """Discover every tool now (and refresh the manifest)."""
    global _CACHE, _CARDS
    found = _discover()
    _CACHE, _CARDS = found, None
    _write_manifest(_manifest_key(), found)
    return found


def _load() -> MutableMapping[str, ToolSpec]:
    global _CACHE, _CARDS
    rows = _read_manifest(_manifest_key())
    try:
        modules = {str(r["name"]): str(r["module"]) for r in rows or ()}
        cards = [ToolCard(r["name"], r["description"], dict(r["schema"])) for r in rows or ()]
    except (KeyError, TypeError, ValueError):  # a hand-edited or half-written manifest
        rows = None
    if not rows:
        return _full()
    _CACHE, _CARDS = _LazyTools(modules), cards
    return _CACHE


def all_tools() -> MutableMapping[str, ToolSpec]:
    """Every tool by name. From a current manifest the modules load on first lookup of their tools."""
    return _load() if _CACHE is None else _CACHE


def tool_cards() -> list[Any]:
    """Every tool as the agent offers it (name, description, `llm_schema()`, `run`), importing no
    tool module when the manifest is current; otherwise the specs themselves."""
    tools = all_tools()
    if _CARDS is not None and isinstance(tools, _LazyTools):
        return list(_CARDS)
    return list(tools.values())


def get_tool(name: str) -> ToolSpec:
    tools = all_tools()
    if name not in tools:
        raise ToolInputError(f"没有名为 {name} 的工具", f"No tool named {name}", suggestions=sorted(tools))
    return tools[name]


def run_tool(name: str, args: dict[str, Any], *, operator: bool = False) -> dict[str, Any]:
    """Run a tool for an untrusted caller (LLM, planner, page) unless `operator=True`."""
    return get_tool(name).run(args, operator=operator)
