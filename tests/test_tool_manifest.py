"""The tool manifest (tools/registry.py): a cold process that finds a current manifest lists every
tool without importing the tool modules, offers the same descriptions and schemas, and imports a
tool's module only when that tool runs; a stale or broken manifest means a full discovery."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PROBE = """
import json, sys
import tools.registry as r
names = list(r.all_tools())
cards = {c.name: [c.description, c.llm_schema()] for c in r.tool_cards()}
listed = sorted(m for m in sys.modules if m.startswith('tools.') and m not in ('tools.registry', 'tools.errors'))
out = r.all_tools()['convert_units'].run({'value': 24, 'from_unit': 'GiB', 'to_unit': 'GB'})
after = sorted(m for m in sys.modules if m.startswith('tools.'))
print(json.dumps({'names': names, 'cards': cards, 'listed': listed, 'after': after, 'out': out}))
"""


def _probe(home: Path) -> dict:
    env = {**os.environ, "GPU_ADVISOR_HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_current_manifest_lists_every_tool_without_importing_them(tmp_path):
    first = _probe(tmp_path)  # no manifest yet: full discovery, manifest written
    assert (tmp_path / "cache" / "tool_manifest.json").is_file()
    assert "tools.diagnosis.tool" in first["listed"]  # a full discovery imports every tool module
    second = _probe(tmp_path)
    assert second["names"] == first["names"]
    assert second["cards"] == first["cards"]  # same descriptions and LLM schemas as the specs give
    # only the retrieval paths helper (for the state folder) — no tool module — before a tool runs
    assert [m for m in second["listed"] if m not in ("tools.retrieval", "tools.retrieval.paths")] == []
    assert "tools.conversions" in second["after"]  # the tool that ran was imported …
    assert "tools.diagnosis.tool" not in second["after"]  # … and not the others
    # 24 GiB = 24 × 2^30 bytes = 25.769803776 × 10^9 bytes (hand arithmetic), both ways alike
    assert second["out"] == first["out"]
    assert abs(second["out"]["result"] - 25.769803776) < 1e-6


def test_a_stale_or_broken_manifest_means_a_full_discovery(tmp_path):
    _probe(tmp_path)
    manifest = tmp_path / "cache" / "tool_manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["key"] = "0" * 64  # as if a tool file had changed since it was written
    data["tools"] = data["tools"][:1]
    manifest.write_text(json.dumps(data), encoding="utf-8")
    stale = _probe(tmp_path)
    assert "tools.diagnosis.tool" in stale["listed"] and len(stale["names"]) > 1
    manifest.write_text("{not json", encoding="utf-8")
    broken = _probe(tmp_path)
    assert "tools.diagnosis.tool" in broken["listed"] and broken["names"] == stale["names"]
