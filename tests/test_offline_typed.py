"""Renderers read tool results through the tools' output models (writing/results.py).

Independent figures: 80 GB = 80e9 B = 74.51 GiB (80e9 / 2^30); nccl-tests all_reduce busbw = algbw × 2(n−1)/n,
so 120 GB/s on 8 GPUs → 210 GB/s (NCCL tests PERFORMANCE.md).
"""

from __future__ import annotations

from assistant.offline import answer
from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer
from assistant.offline.writing.render_tools import _RENDERERS, Context
from assistant.offline.writing.results import output_model, typed
from tools.conversions import ConvertUnitsOutput


def test_every_rendered_tool_has_an_output_model() -> None:
    missing = [name for name in _RENDERERS if output_model(name) is None]
    assert not missing, missing


def test_convert_units_is_read_through_its_model() -> None:
    a, results = answer("80GB 等于多少 GiB？")
    (r,) = [x for x in results if x.name == "convert_units"]
    res = typed(r, ConvertUnitsOutput)
    assert res is not None and abs(res.result - 74.51) < 0.01  # type: ignore[operator]
    assert a.text.startswith("80 GB = 74.51 GiB")


def test_busbw_from_algbw() -> None:
    a, _ = answer("all_reduce_perf on 8 GPUs reports algbw 120 GB/s — what busbw is that?")
    assert "210 GB/s" in a.text.splitlines()[0]


def test_a_result_that_does_not_validate_writes_nothing() -> None:
    """A hand-made result missing fields (an LLM's own call) gives no line rather than 'None GB'."""
    from assistant.offline.reading import read_one

    w = Writer("en")
    bad = ToolResult("convert_units", {}, {"value": 80, "from_unit": "GB"}, "x")
    _RENDERERS["convert_units"](w, bad, Context("convert", read_one("80GB in GiB?"), [bad], "80GB in GiB?", False))
    assert "None" not in w.text() and not w.parts["verdict"]
