"""One contract between each tool and its CLI command (issue 17, item 3).

For every `gpu-advisor` command that wraps a tool, the click parameters are checked against the
tool's pydantic input model (found through `tools.registry.all_tools()`): choices, defaults,
numeric bounds, value types, and that every required field can be given from the command line.
The expected values are the model's own declarations — the model is the single source of truth
and these tests fail when a CLI module re-declares a value that has since changed there.

Where a CLI option and a field differ on purpose, the table below says so, one row per real
option, with the reason; `test_table_rows_are_real_options` keeps the table from going stale.
"""

from __future__ import annotations

import ast
import importlib
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import pytest
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from assistant.cli import COMMANDS
from tools.fields import bounds, choices
from tools.registry import all_tools

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Contract:
    tool: str
    # click parameter name -> input-model field name, where the two differ
    rename: dict[str, str] = field(default_factory=dict)
    # click parameters with no input field, and why
    cli_only: dict[str, str] = field(default_factory=dict)
    # boolean flags that set `field = not flag` (`--no-flash-attn` -> flash_attention=False)
    inverted: frozenset[str] = frozenset()
    # extra spellings a Choice accepts beyond the Literal; each must validate to a Literal value
    extra_choices: dict[str, frozenset[str]] = field(default_factory=dict)
    # click parameters whose default or bounds differ from the field on purpose, and why
    differs: dict[str, str] = field(default_factory=dict)
    # a minimal valid input (required fields), for validating the extra spellings
    base: dict[str, Any] = field(default_factory=dict)


JSON = {"as_json": "--json selects the output format; not a tool input"}

CONTRACTS: dict[str, Contract] = {
    "estimate": Contract(
        tool="estimate_memory",
        rename={
            "mem_fraction": "mem_fraction_static",
            "gpu_util": "gpu_memory_utilization",
            "no_flash_attn": "flash_attention",
        },
        inverted=frozenset({"no_flash_attn"}),
        cli_only=JSON,
        # `--offload all|params` predate the model's canonical name; the model's synonyms map both
        extra_choices={"offload": frozenset({"all", "params"})},
        base={"params": "7B"},
    ),
    "plan": Contract(
        tool="plan_configurations",
        cli_only=JSON,
        base={"model": "qwen2.5-7b"},
    ),
    "price": Contract(
        tool="gpu_price",
        rename={
            "hourly_quote": "hourly_quote_cny",
            "monthly_quote": "monthly_quote_cny",
            "disk_price": "disk_cny_per_gb_day",
            "daily_quote": "daily_quote_cny",
            "weekly_quote": "weekly_quote_cny",
        },
        cli_only=JSON,
        base={"gpu": "4090"},
    ),
    "train-time": Contract(
        tool="estimate_training_time",
        cli_only=JSON,
        base={"gpu": "A100 80G", "params_b": 7, "tokens": 1e9},
    ),
    "gpus": Contract(tool="gpu_specs", cli_only=JSON, base={"names": ["4090"]}),
    "models": Contract(
        tool="lookup_model",
        cli_only={**JSON, "family": "filters the catalog listing (no QUERY), which is not a tool call"},
        base={"query": "qwen2.5-7b"},
    ),
    "diagnose": Contract(
        tool="diagnose_logs",
        # the command reads each FILE (or stdin) and passes its decoded contents as `text`
        rename={"files": "text"},
        cli_only=JSON,
        base={"text": "nvidia-smi"},
    ),
    "checklist": Contract(tool="delivery_checklist", cli_only=JSON),
    "search": Contract(
        tool="search_guide",
        cli_only={**JSON, "chroma_url": "operator setting (issue 17 item 4): from a flag or CHROMA_URL, never the LLM"},
        differs={
            "k": "the tool's 1–20 (default 4) keeps an LLM's context small; the command prints for a person and "
            "calls tools.search_guide.search (default k=5) directly, up to 50 passages",
        },
        base={"query": "NCCL timeout"},
    ),
}

# Tools whose CLI has no Choice option (their inputs are free text, counts or files).
NO_CHOICES = {"gpus", "models", "diagnose", "checklist", "search"}

# Commands that wrap no single tool, and why.
NOT_TOOLS = {
    "index": "manages the user's document store (operator settings), not a tool call",
    "ask": "runs the whole advisor loop, which picks the tools",
    "chat": "runs the whole advisor loop, which picks the tools",
    "serve": "starts the web page",
    "eval": "runs the eval suite",
}


def _command(name: str) -> click.Command:
    module, attr = COMMANDS[name].split(":", 1)
    return getattr(importlib.import_module(module), attr)


def _model(name: str) -> type[BaseModel]:
    return all_tools()[CONTRACTS[name].tool].input_model


def _mapped(name: str) -> list[tuple[click.Parameter, str]]:
    """(click parameter, input field) for every parameter that feeds the tool."""
    c = CONTRACTS[name]
    out = []
    for p in _command(name).params:
        assert p.name is not None
        if p.name in c.cli_only:
            continue
        out.append((p, c.rename.get(p.name, p.name)))
    return out


def _field_types(model: type[BaseModel], name: str) -> set[type]:
    ann = model.model_fields[name].annotation
    args = typing.get_args(ann) if typing.get_origin(ann) in (typing.Union, types.UnionType) else (ann,)
    return {typing.get_origin(a) or a for a in args}


def test_every_command_is_classified():
    assert set(CONTRACTS) | set(NOT_TOOLS) == set(COMMANDS)
    assert not set(CONTRACTS) & set(NOT_TOOLS)


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_the_tool_exists(name):
    assert CONTRACTS[name].tool in all_tools(), f"{name}: no tool {CONTRACTS[name].tool!r} in the registry"


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_table_rows_are_real_options(name):
    c = CONTRACTS[name]
    params = {p.name for p in _command(name).params}
    rows = set(c.rename) | set(c.cli_only) | set(c.inverted) | set(c.extra_choices) | set(c.differs)
    assert rows <= params, f"{name}: table rows with no such option: {sorted(rows - params)}"


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_every_option_feeds_a_field(name):
    fields = _model(name).model_fields
    stray = [f"{p.name}->{f}" for p, f in _mapped(name) if f not in fields]
    assert not stray, f"{name}: options with no field in {_model(name).__name__}: {stray}"


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_every_required_field_is_reachable(name):
    model = _model(name)
    reachable = {f for _, f in _mapped(name)}
    required = {n for n, fi in model.model_fields.items() if fi.is_required()}
    assert required <= reachable, f"{name}: required fields no option reaches: {sorted(required - reachable)}"


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_choices_equal_the_literal(name):
    c, model = CONTRACTS[name], _model(name)
    checked = 0
    for p, f in _mapped(name):
        if not isinstance(p.type, click.Choice):
            continue
        checked += 1
        literal = choices(model, f)
        extra = c.extra_choices.get(p.name or "", frozenset())
        assert set(p.type.choices) == set(literal) | extra, f"{name} --{p.name}: {p.type.choices} vs {literal}"
        for spelling in extra:
            parsed = model.model_validate({**c.base, f: spelling})
            assert getattr(parsed, f) in literal, f"{name} --{p.name} {spelling} does not map onto {literal}"
    assert checked or name in NO_CHOICES, f"{name}: expected click.Choice options"


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_defaults_agree(name):
    c, model = CONTRACTS[name], _model(name)
    ctx = click.Context(_command(name))
    for p, f in _mapped(name):
        if p.name in c.differs or not isinstance(p, click.Option):
            continue
        want = model.model_fields[f].get_default(call_default_factory=True)
        got: Any = p.get_default(ctx)
        if p.is_flag and not isinstance(p.type, click.Choice):
            assert got is False, f"{name} --{p.name}: a flag must default to off"
            assert want is (p.name in c.inverted), f"{name} --{p.name}: off must mean {f}={want}"
            continue
        if p.required or p.multiple:
            assert want in (PydanticUndefined, None, []), f"{name} --{p.name}: {f} defaults to {want!r}"
            continue  # required, or repeatable and empty by default: the model's default applies
        if got is None:
            # the CLI passes None through, so the field must take None (and then applies its own default)
            assert type(None) in _field_types(model, f), f"{name} --{p.name} passes None but {f} is not optional"
            continue
        if isinstance(want, float) or isinstance(got, float):
            assert math.isclose(float(got), float(want)), f"{name} --{p.name}: {got} vs {f}={want}"
        else:
            assert got == want, f"{name} --{p.name}: default {got!r}, but {model.__name__}.{f} defaults to {want!r}"


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_bounds_and_types_agree(name):
    c, model = CONTRACTS[name], _model(name)
    for p, f in _mapped(name):
        kinds = _field_types(model, f)
        if isinstance(p.type, click.types.IntParamType):
            assert int in kinds, f"{name} --{p.name} is an int but {f} is {kinds}"
        if isinstance(p.type, click.types.FloatParamType):
            assert float in kinds, f"{name} --{p.name} is a float but {f} is {kinds}"
        if not isinstance(p.type, click.types._NumberRangeBase) or p.name in c.differs:
            continue  # a plain int/float: the model enforces its own bounds, with a bilingual error
        t, b = p.type, bounds(model, f)
        lo = ("gt", t.min) if t.min_open else ("ge", t.min)
        hi = ("lt", t.max) if t.max_open else ("le", t.max)
        assert {k: v for k, v in (lo, hi) if v is not None} == b, f"{name} --{p.name}: {t} vs {f} {b}"


def _hand_copied_choices(source: str) -> list[int]:
    """Lines where `click.Choice` gets a list of string literals, inline or via a module-level name."""
    tree = ast.parse(source)

    def literal_list(node: ast.AST) -> bool:
        return isinstance(node, ast.List | ast.Tuple) and all(isinstance(e, ast.Constant) for e in node.elts)

    named = {
        t.id
        for stmt in tree.body
        if isinstance(stmt, ast.Assign) and literal_list(stmt.value)
        for t in stmt.targets
        if isinstance(t, ast.Name)
    }
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "Choice"
        and node.args
        and (literal_list(node.args[0]) or (isinstance(node.args[0], ast.Name) and node.args[0].id in named))
    ]


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_no_hand_copied_choices(name):
    """Choices come from the model (`tools.fields.choices`), never a literal list in the command module."""
    module = COMMANDS[name].split(":")[0]
    source = (ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
    assert not _hand_copied_choices(source), f"{module}: hand-copied choices on lines {_hand_copied_choices(source)}"


def test_the_contract_catches_drift():
    """The check itself fails on a re-declared choice list (a test that cannot fail is a defect)."""
    from tools.memory import EstimateMemoryInput

    drifted = click.Choice(["full", "lora", "qlora"])  # 'inference' forgotten
    assert set(drifted.choices) != set(choices(EstimateMemoryInput, "mode"))
    assert _hand_copied_choices('MODES = ["a", "b"]\nx = click.Choice(MODES)\ny = click.Choice(["c"])\n') == [2, 3]
    assert _hand_copied_choices('x = click.Choice(choices(M, "mode"))\n') == []
    assert choices(EstimateMemoryInput, "mode") == ["full", "lora", "qlora", "inference"]
    assert bounds(EstimateMemoryInput, "zero") == {"ge": 0, "le": 3}


@pytest.mark.parametrize("name", ["ask", "chat", "eval"])
def test_backend_choices_are_the_settings_literal(name):
    """The advisor commands wrap no tool, but their --backend comes from one place: assistant.settings."""
    from assistant.settings import BACKENDS, Backend

    assert set(BACKENDS) == set(typing.get_args(Backend))
    opts = [p for p in _command(name).params if p.name == "backend"]
    assert opts, f"{name}: no --backend option"
    for p in opts:
        assert isinstance(p.type, click.Choice)
        assert {c.lower() for c in p.type.choices} == set(typing.get_args(Backend))
