"""Tool discovery in tools/registry.py.

Why: a tool may live in a package (`tools/diagnosis/`, `tools/memory/`) instead of a top-level
module, so the registry must walk sub-packages; and discovery must stay lazy and light so that
`gpu-advisor estimate` never pays for langchain, gradio, chromadb or numpy.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tools
import tools.registry as registry

ROOT = Path(__file__).resolve().parent.parent

# A tool with a result anyone can check by hand: 21 doubled is 42.
_TOOL_MODULE = """
from pydantic import BaseModel

from tools.registry import ToolSpec


class DoubleIn(BaseModel):
    x: int


class DoubleOut(BaseModel):
    doubled: int


def double(inp: DoubleIn) -> DoubleOut:
    return DoubleOut(doubled=2 * inp.x)


TOOLS: list[ToolSpec] = [ToolSpec("{name}", "Doubles x.", DoubleIn, double)]
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def extra_tools_dir(tmp_path, monkeypatch):
    """A temporary directory appended to `tools.__path__`, with a fresh registry cache."""
    monkeypatch.setattr(tools, "__path__", [*tools.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_CACHE", None)
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("tools.h17fake")]:
        del sys.modules[name]


def test_tool_in_a_sub_package_module_is_found_and_runs(extra_tools_dir):
    pkg = extra_tools_dir / "h17fake_pkg"
    _write(pkg / "__init__.py", '"""A tool package with no TOOLS of its own."""\n')
    _write(pkg / "inner" / "__init__.py", "")
    _write(pkg / "inner" / "double_tool.py", _TOOL_MODULE.format(name="h17_double"))
    found = registry.all_tools()
    assert "h17_double" in found
    assert registry.run_tool("h17_double", {"x": 21}) == {"doubled": 42}
    # The real tools are still there beside it.
    assert {"gpu_specs", "estimate_memory", "diagnose_logs", "delivery_checklist", "search_guide"} <= set(found)


def test_tool_exported_by_a_package_init_is_found(extra_tools_dir):
    _write(extra_tools_dir / "h17fake_init" / "__init__.py", _TOOL_MODULE.format(name="h17_from_init"))
    assert registry.run_tool("h17_from_init", {"x": -4}) == {"doubled": -8}


def test_private_names_and_modules_without_tools_are_not_imported(extra_tools_dir):
    pkg = extra_tools_dir / "h17fake_skip"
    _write(pkg / "__init__.py", "")
    # Importing either of these would fail the test: the registry must not touch them.
    _write(pkg / "heavy_helper.py", 'raise RuntimeError("a module without TOOLS was imported")\n')
    _write(pkg / "_private.py", 'raise RuntimeError("a private module was imported")\n' + _TOOL_MODULE.format(name="x"))
    found = registry.all_tools()
    assert "x" not in found
    assert "tools.h17fake_skip.heavy_helper" not in sys.modules


def test_duplicate_tool_name_in_a_sub_package_is_an_error(extra_tools_dir):
    _write(extra_tools_dir / "h17fake_dup" / "__init__.py", "")
    _write(extra_tools_dir / "h17fake_dup" / "again.py", _TOOL_MODULE.format(name="gpu_specs"))
    with pytest.raises(RuntimeError, match="duplicate tool name 'gpu_specs'"):
        registry.all_tools()


def test_a_broken_tool_package_fails_loudly(extra_tools_dir):
    _write(extra_tools_dir / "h17fake_broken" / "__init__.py", "import h17_no_such_module\n")
    with pytest.raises(ImportError):
        registry.all_tools()


def test_discovery_is_lazy_and_light():
    """Importing the registry imports no tool module; listing the tools imports no heavy library."""
    code = (
        "import json, sys\n"
        "import tools.registry as r\n"
        "before = sorted(m for m in sys.modules if m.startswith('tools.'))\n"
        "names = sorted(r.all_tools())\n"
        "heavy = [m for m in ('langchain', 'langchain_core', 'gradio', 'chromadb', 'numpy', 'torch') if m in sys.modules]\n"
        "print(json.dumps({'before': before, 'names': names, 'heavy': heavy}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out["before"]) <= {"tools.registry", "tools.errors"}, out["before"]
    assert {"diagnose_logs", "search_guide", "estimate_memory"} <= set(out["names"])
    assert out["heavy"] == [], f"heavy modules imported by all_tools(): {out['heavy']}"
