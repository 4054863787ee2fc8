"""Issue 18 item 2 / issue 17 item 4: no filesystem path from the LLM or a page visitor; operator files
read safely; the quotes file read in every encoding Excel writes, with clean errors, parsed once.

Each hostile input here is one the pre-release probe reported (a /dev/zero "config.json", a FIFO, a
directory, a 1 KB YAML alias bomb, a top-level scalar, deep nesting, an invalid date, GBK/UTF-16 CSV).
"""

from __future__ import annotations

import os
import time

import pytest

from tools.errors import ToolInputError
from tools.quotes import clear_cache, load_quotes
from tools.registry import OPERATOR_FIELDS, all_tools, run_tool

CSV_ZH = "gpu,hourly_cny,monthly_cny,provider,date\nA100 80G,6.5,3800,某云（华东）,2026-07-01\n"


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    monkeypatch.delenv("GPU_ADVISOR_QUOTES", raising=False)
    clear_cache()


# ---------------------------------------------------------------- schemas the LLM sees


def test_no_llm_facing_schema_has_an_operator_field():
    from assistant.lc_tools import registry_tools

    for tool in registry_tools():
        schema = str(tool.tool_call_schema if isinstance(tool.tool_call_schema, dict) else tool.args)
        for field in OPERATOR_FIELDS:
            assert f"'{field}'" not in schema, f"{tool.name} shows {field} to the LLM"
    # the models still carry it for the CLI (gpu-advisor price --quotes)
    assert "quotes_file" in all_tools()["gpu_price"].input_model.model_fields


@pytest.mark.parametrize("tool", ["gpu_price", "plan_configurations", "estimate_training_time"])
def test_operator_field_sent_by_the_llm_is_refused(tool, tmp_path):
    secret = tmp_path / "quotes.yaml"
    secret.write_text("- {gpu: A100, hourly_cny: 0.01}\n", encoding="utf-8")
    args = {"gpu_price": {"gpu": "A100"}, "plan_configurations": {"model": "7B", "tokens": "1B"}}.get(
        tool, {"model": "7B", "tokens": "1B", "gpu": "A100"}
    )
    result = run_tool(tool, {**args, "quotes_file": str(secret)})
    assert result["error"]["field"] == "quotes_file"
    assert "运营方" in result["error"]["zh"] and "operator" in result["error"]["en"]


def test_langchain_tool_refuses_quotes_file_too(tmp_path):
    from assistant.lc_tools import registry_tools

    price = next(t for t in registry_tools() if t.name == "gpu_price")
    assert '"field":"quotes_file"' in price.invoke({"gpu": "A100", "quotes_file": "/etc/passwd"})


# ---------------------------------------------------------------- model config.json paths


@pytest.mark.parametrize("path", ["/etc/shadow", "/etc/passwd", "/no/such/file.json", "/dev/zero", "/tmp"])
def test_page_and_llm_cannot_name_a_file_and_learn_nothing_about_it(path):
    errors = [run_tool("estimate_memory", {"model": path}), run_tool("estimate_memory", {"model": path + "x"})]
    for result in errors:
        assert "error" in result
    # the same wording whether the path exists or not: no existence oracle
    texts = [r["error"]["en"].replace(path + "x", "P").replace(path, "P") for r in errors]
    assert texts[0] == texts[1]
    assert "not found" not in texts[0].lower() and "directory" not in texts[0].lower()


def test_operator_cli_reads_a_config_but_never_dev_zero(tmp_path):
    from tools.models import resolve_model

    with pytest.raises(ToolInputError) as info:
        resolve_model("/dev/zero", None)  # exists, os.sep in it → path branch, refused before reading
    assert "not a regular file" in info.value.en
    big = tmp_path / "config.json"
    big.write_bytes(b"{" + b" " * 3_000_000 + b"}")
    with pytest.raises(ToolInputError) as info:
        resolve_model(str(big), None)
    assert "too large" in info.value.en


def test_fifo_is_refused_without_blocking(tmp_path):
    from tools.textcodec import read_regular_file

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    t0 = time.perf_counter()
    with pytest.raises(ToolInputError) as info:
        read_regular_file(fifo, max_bytes=100)
    assert time.perf_counter() - t0 < 2 and "regular file" in info.value.en


# ---------------------------------------------------------------- quotes files


@pytest.mark.parametrize(
    "encoding,sep", [("gb18030", ","), ("gbk", ","), ("utf-8-sig", ","), ("utf-16", "\t"), ("utf-16", ",")]
)
def test_quotes_csv_in_every_excel_encoding(tmp_path, encoding, sep):
    path = tmp_path / "q.csv"
    path.write_bytes(CSV_ZH.replace(",", sep).encode(encoding))
    quotes = load_quotes(path)
    (q,) = quotes.values()
    assert q.hourly_cny == 6.5 and q.monthly_cny == 3800 and q.provider == "某云（华东）"


def test_a_quote_changes_the_price_the_cli_shows(tmp_path):
    from tools.prices import PriceInput, gpu_price

    path = tmp_path / "q.csv"
    path.write_bytes(CSV_ZH.encode("gb18030"))
    out = gpu_price(PriceInput(gpu="A100 80G", hours=10, quotes_file=str(path)))
    assert out.hourly_cny.typical == 6.5 and out.total_cny.typical == 65.0  # 6.5 ¥/h × 10 h, by hand


BAD_YAML = {
    "alias_bomb": (
        'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n'
        "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
        "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
        "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nquotes: [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n",
        "line 1",
    ),
    "top_level_scalar": ("just a string\n", "list"),
    "deep_nesting": ("quotes: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    "invalid_date": ("- gpu: A100\n  hourly_cny: 6\n  date: 2026-13-45\n", "invalid value"),
    "invalid_date_string": (
        "- gpu: A100\n  hourly_cny: 6\n- gpu: H100\n  hourly_cny: 20\n  date: next week\n",
        "line 3",
    ),
    "bad_syntax": ("- gpu: A100\n  hourly_cny: [6\n", "not valid YAML"),
    "negative_price": ("quotes:\n  - gpu: A100\n    hourly_cny: -3\n", "line 2"),
    "unknown_gpu": ("- gpu: A100\n  hourly_cny: 6\n- gpu: NoSuchCard9000\n  hourly_cny: 6\n", "line 3"),
    "row_not_a_mapping": ("- A100\n", "line 1"),
}


@pytest.mark.parametrize("name", sorted(BAD_YAML))
def test_bad_quotes_yaml_gives_a_clean_error_naming_the_line(tmp_path, name):
    text, expected = BAD_YAML[name]
    path = tmp_path / "q.yaml"
    path.write_text(text, encoding="utf-8")
    t0 = time.perf_counter()
    with pytest.raises(ToolInputError) as info:
        load_quotes(path)
    assert time.perf_counter() - t0 < 2  # the bomb is refused on the token stream, not expanded
    assert expected in info.value.en, info.value.en
    assert info.value.zh and any("\u4e00" <= c <= "\u9fff" for c in info.value.zh)
    assert "hourly_cny: [6" not in info.value.en  # never the file's own lines


def test_quotes_directory_and_special_files(tmp_path):
    for target, expected in ((tmp_path, "directory"), ("/dev/zero", "not a regular file")):
        with pytest.raises(ToolInputError) as info:
            load_quotes(target)
        assert expected in info.value.en


def test_broken_operator_quotes_reach_the_llm_without_path_or_lines(tmp_path, monkeypatch):
    path = tmp_path / "secret-name.yaml"
    path.write_text("- gpu: A100\n  hourly_cny: [oops-secret-line\n", encoding="utf-8")
    monkeypatch.setenv("GPU_ADVISOR_QUOTES", str(path))
    result = run_tool("gpu_price", {"gpu": "A100"})
    text = str(result)
    assert "error" in result and "secret-name" not in text and "oops" not in text and "line" not in text


def test_quotes_are_parsed_once_per_file_version(tmp_path, monkeypatch):
    import tools.quotes as quotes_mod

    rows = ["gpu,hourly_cny"] + [f"A100,{6 + i / 1000:.3f}" for i in range(3000)]
    path = tmp_path / "q.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    calls = []
    real = quotes_mod.parse_quotes
    monkeypatch.setattr(quotes_mod, "parse_quotes", lambda *a, **k: calls.append(1) or real(*a, **k))
    t0 = time.perf_counter()
    from tools.planner import PlanInput, plan_configurations

    plan_configurations(PlanInput(model="7B", tokens="1B", quotes_file=str(path)))
    assert len(calls) == 1, f"parsed {len(calls)} times"
    assert time.perf_counter() - t0 < 20
    path.write_text("gpu,hourly_cny\nA100,7\n", encoding="utf-8")  # a new version is read again
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert next(iter(load_quotes(path).values())).hourly_cny == 7
