"""Fuzz the command line: random option values for estimate, price, gpus, plan, diagnose, search.

Contract (assistant/commands/_common.py `run_cli`): every invocation ends with exit 0, or exit 2
and `错误 / Error: 中文 / English` on stderr — never a traceback, never another exit code.
In-process: `run_cli(cli, argv)` runs inside click's CliRunner isolation (the same code path as
the `gpu-advisor` entry point), so an exception that escapes run_cli fails the example with the
exact argv. A handful of subprocess runs check the real entry point prints no traceback.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

# `GPU_ADVISOR_FUZZ_SCALE=20 pytest tests/test_fuzz_*.py` runs 20× the examples (a nightly / pre-release run).
FUZZ_SCALE = max(1, int(os.environ.get("GPU_ADVISOR_FUZZ_SCALE", "1")))
# the default run is reproducible; a scaled run explores new examples each time
DERANDOMIZE = FUZZ_SCALE == 1

ROOT = Path(__file__).resolve().parent.parent
CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]{3,}")

CLI_FUZZ = settings(
    max_examples=30 * FUZZ_SCALE,
    deadline=timedelta(seconds=20),
    derandomize=DERANDOMIZE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)

# Values people (and typos) produce: numbers in every notation, units, Chinese, flags-as-values, junk.
VALUE_WORDS = [
    "7B",
    "70b",
    "1.5B",
    "70亿",
    "百亿",
    "0",
    "-1",
    "1e308",
    "1e-308",
    "nan",
    "inf",
    "-inf",
    "9" * 40,
    "A100",
    "A100 80G",
    "4090",
    "H800",
    "24GB",
    "80GiB",
    "x",
    "",
    " ",
    "全量",
    "lora",
    "qlora",
    "inference",
    "--json",
    "-",
    "1万亿",
    "5万",
    "7d",
    "一周",
    "48h",
    "¥3k",
    "Ｂ",
    "７",
    "0x10",
    "1,000",
    "1_000",
    "☃",
    "\u200b",
    "中文卡",
    "none",
    "null",
    "'; rm -rf /",
    "$(id)",
    "%s%s%n",
    "../../etc/passwd",
    "a" * 300,
]
values = st.one_of(
    st.sampled_from(VALUE_WORDS),
    st.text(max_size=20).filter(lambda s: "\x00" not in s),
    st.integers(-(10**12), 10**12).map(str),
    st.floats().map(str),
)

ESTIMATE_OPTS = [
    "--model",
    "--params",
    "--mode",
    "--precision",
    "--optimizer",
    "--gpus",
    "--zero",
    "--fsdp",
    "--offload",
    "--seq-len",
    "--batch",
    "--checkpointing",
    "--lora-rank",
    "--lora-targets",
    "--context",
    "--concurrency",
    "--kv-dtype",
    "--int4-format",
    "--gpu-util",
    "--gpu",
]
PRICE_OPTS = ["--hours", "--days", "--months", "--count", "--market", "--hourly", "--monthly"]
PLAN_OPTS = [
    "--model",
    "--params",
    "--mode",
    "--tokens",
    "--samples",
    "--epochs",
    "--seq-len",
    "--deadline",
    "--budget",
    "--gpu",
    "--exclude",
    "--max-gpus",
    "--concurrency",
    "--context",
    "--precision",
    "--top",
]


def invoke(argv: list[str], stdin: bytes | None = None) -> tuple[int, str, str]:
    """Run `gpu-advisor ARGV` in-process exactly as the entry point does; return (code, out, err)."""
    from click.testing import CliRunner

    from assistant.cli import cli
    from assistant.commands._common import run_cli

    runner = CliRunner()
    with runner.isolation(input=stdin) as (out, err, _):
        code = 0
        try:
            run_cli(cli, argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        stdout, stderr = out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")
    return code, stdout, stderr


def check_outcome(argv: list[str], code: int, out: str, err: str) -> None:
    assert "Traceback" not in out + err, f"traceback for {argv!r}:\n{err}"
    assert code in (0, 2), f"exit {code} for {argv!r}:\nstdout={out[-500:]}\nstderr={err[-1000:]}"
    if code == 2:
        assert "错误 / Error" in err, f"no bilingual marker for {argv!r}: {err!r}"
        message = err.split("错误 / Error", 1)[1]
        assert CJK.search(message) and LATIN.search(message), f"message not bilingual for {argv!r}: {err!r}"


@st.composite
def option_args(draw, options: list[str], max_opts: int = 4) -> list[str]:
    chosen = draw(st.lists(st.sampled_from(options), max_size=max_opts, unique=True))
    argv: list[str] = []
    for opt in chosen:
        argv += [opt, draw(values)]
    if draw(st.booleans()):
        argv.append("--json")
    return argv


@pytest.fixture(scope="module", autouse=True)
def _isolated_home(tmp_path_factory):
    """A throw-away GPU_ADVISOR_HOME (the search index is built there once)."""
    old = os.environ.get("GPU_ADVISOR_HOME")
    os.environ["GPU_ADVISOR_HOME"] = str(tmp_path_factory.mktemp("home"))
    os.environ.pop("GPU_ADVISOR_QUOTES", None)
    from tools.search_guide import reset_retrievers

    reset_retrievers()
    yield
    reset_retrievers()
    if old is None:
        os.environ.pop("GPU_ADVISOR_HOME", None)
    else:
        os.environ["GPU_ADVISOR_HOME"] = old


@CLI_FUZZ
@given(option_args(ESTIMATE_OPTS, max_opts=5))
@example(["--params", "7B", "--gpus", "0"])
@example(["--params", "nan"])
@example(["--params", "7B", "--seq-len", "-5", "--batch", "99999999999"])
@example(["--params", "1e308", "--json"])
@example(["--model", "../../etc/passwd"])
@example(["--params", "7B", "--mode", "inference", "--gpu-util", "nan"])
def test_estimate(argv):
    full = ["estimate", *argv]
    check_outcome(full, *invoke(full))


@CLI_FUZZ
@given(values, option_args(PRICE_OPTS))
@example("A100", ["--hours", "nan"])
@example("A100", ["--months", "-1", "--count", "0"])
@example("A100", ["--hourly", "inf"])
@example("", [])
def test_price(gpu, argv):
    full = ["price", gpu, *argv]
    check_outcome(full, *invoke(full))


@CLI_FUZZ
@given(st.lists(values, max_size=6), st.booleans())
@example(["A100"] * 6, False)
@example([""], True)
def test_gpus(names, as_json):
    full = ["gpus", *names, *(["--json"] if as_json else [])]
    check_outcome(full, *invoke(full))


@CLI_FUZZ
@given(option_args(PLAN_OPTS, max_opts=5))
@example(["--model", "7B", "--tokens", "1B", "--budget", "-5"])
@example(["--model", "7B", "--tokens", "1e30"])
@example(["--model", "70B", "--max-gpus", "0"])
@example(["--params", "nan", "--tokens", "1B"])
@example(["--model", "7B", "--deadline", "0h", "--tokens", "1B"])
def test_plan(argv):
    full = ["plan", *argv]
    check_outcome(full, *invoke(full))


@CLI_FUZZ
@given(
    content=st.one_of(
        st.binary(max_size=3000),
        st.text(max_size=2000).map(lambda s: s.encode("utf-8")),
        st.text(max_size=500).map(lambda s: s.encode("gb18030")),
    ),
    expect=st.one_of(st.none(), values),
    use_stdin=st.booleans(),
    as_json=st.booleans(),
)
@example(content=b"", expect=None, use_stdin=True, as_json=False)
@example(content=b"\xff\xfe\x00\x00" * 100, expect="8x A100", use_stdin=False, as_json=True)
def test_diagnose(tmp_path, content, expect, use_stdin, as_json):
    argv = ["diagnose"]
    if as_json:
        argv.append("--json")
    if expect is not None:
        argv += ["--expect", expect]
    if use_stdin:
        argv.append("-")
        check_outcome(argv, *invoke(argv, stdin=content))
    else:
        path = tmp_path / "paste.txt"
        path.write_bytes(content)
        argv.append(str(path))
        check_outcome(argv, *invoke(argv))


def test_diagnose_missing_file_and_directory(tmp_path):
    for target in (str(tmp_path / "nope.txt"), str(tmp_path)):
        argv = ["diagnose", target]
        code, out, err = invoke(argv)
        check_outcome(argv, code, out, err)
        assert code == 2


@settings(
    max_examples=15 * FUZZ_SCALE,
    deadline=timedelta(seconds=30),
    derandomize=DERANDOMIZE,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(values, min_size=0, max_size=4),
    st.sampled_from([[], ["--k", "1"], ["--k", "0"], ["--k", "51"], ["--k", "x"], ["--json"]]),
)
@example(["掉卡"], ["--json"])
@example(["  "], [])
def test_search(words, extra):
    full = ["search", *words, *extra]
    check_outcome(full, *invoke(full))


# ------------------------------------------------------------------ a handful through the real entry point

SUBPROCESS_CASES = [
    ["estimate", "--params", "nan"],
    ["estimate", "--params", "7B", "--gpus", "-3"],
    ["price", "A100", "--hours", "-1"],
    ["plan", "--model", "7B", "--tokens", "1e40", "--json"],
    ["gpus", "NoSuchCard9000"],
    ["search", "--k", "0", "x"],
]


@pytest.mark.parametrize("argv", SUBPROCESS_CASES, ids=lambda a: " ".join(a)[:40])
def test_real_entry_point_never_prints_a_traceback(argv, tmp_path):
    env = {**os.environ, "GPU_ADVISOR_HOME": str(tmp_path), "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [sys.executable, "-m", "assistant.cli", *argv], capture_output=True, text=True, timeout=60, cwd=ROOT, env=env
    )
    check_outcome(argv, proc.returncode, proc.stdout, proc.stderr)


# ------------------------------------------------------------------ issue 18: the 55 tracebacks, reproduced

_BASES = {
    "price": ["A100"],
    "train-time": ["--model", "7B", "--tokens", "1B", "--gpu", "A100"],
    "plan": ["--model", "7B", "--tokens", "1B"],
    "estimate": ["--params", "7B"],
}
_NUMERIC_OPTS = {
    "price": ["--hours", "--days", "--months", "--count", "--hourly", "--monthly"],
    "train-time": ["--tokens", "--epochs", "--mfu", "--hourly", "--gpus", "--nodes", "--samples", "--seq-len"],
    "plan": ["--tokens", "--samples", "--epochs", "--deadline", "--budget", "--max-gpus"],
    "estimate": ["--params", "--gpus", "--seq-len", "--batch", "--gpu-util", "--context"],
}
_HOSTILE_NUMBERS = ["inf", "-inf", "nan", "1e308", "1e400", "1e-308", ""]


def _with(base: list[str], opt: str, value: str) -> list[str]:
    if opt in base:
        out = list(base)
        out[out.index(opt) + 1] = value
        return out
    return [*base, opt, value]


@pytest.mark.parametrize("command", sorted(_BASES))
def test_hostile_numbers_never_crash_or_print_infinity(command):
    """inf / nan / 1e308 / 1e400 / 1e-308 / "" in every numeric option: exit 0 or a bilingual exit 2,
    never a traceback, never `Infinity`/`NaN` in JSON or `¥inf` for people."""
    import click

    from assistant.cli import cli

    known = {o for p in cli.get_command(click.Context(cli), command).params for o in getattr(p, "opts", [])}
    for opt in _NUMERIC_OPTS[command]:
        if opt not in known:
            continue
        for value in _HOSTILE_NUMBERS:
            for as_json in (True, False):
                argv = [command, *_with(_BASES[command], opt, value), *(["--json"] if as_json else [])]
                code, out, err = invoke(argv)
                check_outcome(argv, code, out, err)
                assert "Infinity" not in out and "NaN" not in out, argv
                assert not re.search(r"(?i)¥\s*-?inf|\binf\b|\bnan\b", out), (argv, out[:300])
                if value in ("inf", "-inf", "nan", "1e400", "1e308", ""):
                    assert code == 2, (argv, out[:200])


def test_empty_model_name_is_a_clean_error():
    argv = ["train-time", "--model", "", "--tokens", "1B", "--gpu", "A100"]
    code, out, err = invoke(argv)
    check_outcome(argv, code, out, err)
    assert code == 2 and "--model" in err


def test_tiny_samples_and_budgets_never_divide_by_zero():
    for argv in (
        ["plan", "--model", "7B", "--samples", "1", "--seq-len", "1", "--json"],
        ["plan", "--model", "7B", "--tokens", "1B", "--budget", "0.01", "--json"],
        ["plan", "--model", "7B", "--tokens", "1", "--deadline", "1h", "--json"],
    ):
        check_outcome(argv, *invoke(argv))
