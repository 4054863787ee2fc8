"""Fuzz the text parsers: the log diagnosis, the offline slot extractor and `tools.quantities`.

Contract under test: whatever a user pastes or types, these return a result or raise
`ToolInputError` (a bilingual message) — never another exception, never a hang. No example is
timed against a clock (machines are shared and noisy; absolute figures live in
benchmarks/bench_parsers.py): pathological regex backtracking on crafted long lines is caught by a
scaling ratio inside one run (a 4× longer line must cost ~4×, not ~16×; tests/scaling.py), and a
true hang by pytest-timeout (pyproject.toml, a safety net).

Inputs: arbitrary Unicode, binary-ish bytes, real log fragments from tests/diagnosis_samples
shuffled and spliced with noise, CRLF line ends and ANSI colour codes.
"""

from __future__ import annotations

import importlib
import math
import os
import pkgutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# `GPU_ADVISOR_FUZZ_SCALE=20 pytest tests/test_fuzz_*.py` runs 20× the examples (a nightly / pre-release run).
FUZZ_SCALE = max(1, int(os.environ.get("GPU_ADVISOR_FUZZ_SCALE", "1")))
# the default run is reproducible; a scaled run explores new examples each time
DERANDOMIZE = FUZZ_SCALE == 1

from tests.scaling import assert_scales_linearly  # noqa: E402
from tools.errors import ToolInputError  # noqa: E402 — after the fuzz-scale constants on purpose (module docs)

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "tests" / "diagnosis_samples").glob("*.txt"))
SAMPLE_LINES = sorted(
    {line for p in SAMPLES for line in p.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()}
)

# deadline=None: hypothesis' per-example deadline is a wall-clock limit and flakes on a loaded
# machine; complexity is checked by the ratio tests below, hangs by pytest-timeout.
FUZZ = settings(
    max_examples=60 * FUZZ_SCALE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=DERANDOMIZE,
)

ANSI = ["\x1b[0m", "\x1b[1;31m", "\x1b[32m", "\x1b[2K", "\x1b[?25l", "\x1b]0;title\x07", "\x1b[38;5;196m", "\x1b"]
NOISE = st.sampled_from(
    [
        "\r\n",
        "\r",
        "\n",
        "\t",
        "\x00",
        "\ufeff",
        "｜",
        "|",
        "  ",
        "===",
        "+---+",
        "中文说明：",
        "N/A",
        "ERR!",
        "Xid",
        "NVRM:",
        "NCCL INFO",
        "#",
        "%",
        "GB/s",
        "MiB",
        "-1",
        "1e309",
        "nan",
        *ANSI,
    ]
)


@st.composite
def log_fragments(draw) -> str:
    """Real log lines, shuffled, with noise, CRLF and ANSI codes spliced in."""
    lines = draw(st.lists(st.sampled_from(SAMPLE_LINES), min_size=1, max_size=40))
    out: list[str] = []
    for line in lines:
        if draw(st.booleans()):
            cut = draw(st.integers(0, len(line)))
            line = line[:cut] + draw(NOISE) + line[cut:]
        if draw(st.integers(0, 5)) == 0:
            line = draw(st.text(max_size=30)) + line
        out.append(line)
    sep = draw(st.sampled_from(["\n", "\r\n", "\r", "\n\n"]))
    return sep.join(out)


binaryish = st.binary(max_size=2000).map(lambda b: b.decode("latin-1"))


# ------------------------------------------------------------------ diagnosis


def _diagnose(text):
    from tools.diagnosis.tool import diagnose_text

    try:
        report = diagnose_text(text)
    except ToolInputError as exc:
        assert exc.zh and exc.en
        return None
    assert report.severity in ("unknown", "ok", "info", "warning", "critical")
    return report


@FUZZ
@given(st.text(max_size=3000))
def test_diagnose_arbitrary_text(text):
    _diagnose(text)


@FUZZ
@given(st.one_of(st.binary(max_size=3000), binaryish))
def test_diagnose_binary_ish(data):
    _diagnose(data)


@FUZZ
@given(log_fragments())
def test_diagnose_mixed_log_fragments(text):
    _diagnose(text)


@FUZZ
@given(log_fragments(), st.sampled_from(["8x A100-SXM4-80GB", "4x", "A800", "", "x", "99999x H100", "8x 中文卡"]))
def test_diagnose_with_expect_never_crashes(text, expect):
    from tools.diagnosis.tool import diagnose_text

    try:
        diagnose_text(text, expect or None)
    except ToolInputError as exc:
        assert exc.zh and exc.en


def _parser_modules():
    import tools.diagnosis.parsers as pkg

    mods = []
    for info in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        if callable(getattr(mod, "parse", None)):
            mods.append(mod)
    return mods


PARSERS = _parser_modules()


def test_every_parser_was_found():
    assert len(PARSERS) >= 10, [m.__name__ for m in PARSERS]


@pytest.mark.parametrize("mod", PARSERS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
@settings(
    max_examples=25 * FUZZ_SCALE,
    deadline=None,  # no wall-clock limit per example (see FUZZ)
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=DERANDOMIZE,
)
@given(st.one_of(log_fragments(), st.text(max_size=500), binaryish))
def test_each_parser_on_raw_lines(mod, text):
    # The parsers get normalised text in production; fed raw lines (CR, ANSI, NUL) they must still not crash.
    try:
        mod.parse(text.split("\n"))
    except ToolInputError:
        pass


# Crafted lines that make naive regexes backtrack: long runs of the characters log regexes look for,
# each built at a given length n (4,000 = the line cut in tools/diagnosis/text.py).
PATHOLOGICAL = {
    "spaces": lambda n: " " * (n - 1) + "x",
    "pipes": lambda n: "|" * n,
    "ones": lambda n: "1" * n,
    "one-dot": lambda n: "1." * (n // 2),
    "equals": lambda n: "=" * n,
    "dashes-plus": lambda n: "-" * n + "+",
    "xid-zeros": lambda n: "NVRM: Xid (PCI:" + "0" * (n - 20),
    "nccl-a": lambda n: "NCCL INFO " + "a " * (n // 2 - 5),
    "gpu": lambda n: "GPU " * (n // 4),
    "brackets": lambda n: "[" * n,
    "mib": lambda n: "MiB / " * (n // 6),
    "table-ones": lambda n: "| " + "1 " * (n // 2 - 2) + "|",
    "ansi": lambda n: "\x1b[" + "1;" * (n // 2 - 1),
    "hashes": lambda n: "#" * (n - 20) + " size count type",
    "long-a": lambda n: "a" * (n * 25),  # 25,000 vs 100,000: both past the cut, so ~equal cost
}


def pathological_text(name: str, n: int, lines: int = 200) -> str:
    """200 lines (~800 k characters at n=4,000, inside the 2 MB limit): long enough to time reliably."""
    return "\n".join([PATHOLOGICAL[name](n)] * lines)


def _diagnose_quietly(text: str) -> None:
    from tools.diagnosis.tool import diagnose_text

    try:
        diagnose_text(text)
    except ToolInputError:
        pass


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_pathological_lines_are_fast(name):
    # "fast" = linear in the line length: a backtracking regex is quadratic (or worse) in it, so a
    # 4x longer line costs >= 16x. Line count scaling is covered by the 10,000-line test in
    # tests/test_hostile_input.py; the absolute figure is in benchmarks/bench_parsers.py.
    short, full = pathological_text(name, 1_000), pathological_text(name, 4_000)
    _diagnose_quietly(short)  # warm: imports, regex compilation
    assert_scales_linearly(
        lambda: _diagnose_quietly(short), lambda: _diagnose_quietly(full), what=f"pathological line {name!r}"
    )


# ------------------------------------------------------------------ the offline slot extractor

QUESTION_WORDS = st.sampled_from(
    [
        "能用",
        "4090",
        "A100",
        "80G",
        "全量训练",
        "LoRA",
        "QLoRA",
        "7B",
        "70b",
        "1.5B",
        "张",
        "卡",
        "台",
        "8卡",
        "两台",
        "一个月",
        "多少钱",
        "预算",
        "5万",
        "1万亿token",
        "tokens",
        "how many",
        "per hour",
        "for",
        "days",
        "天",
        "周",
        "32k",
        "上下文",
        "batch",
        "微批",
        "Qwen2.5-72B",
        "Llama-3.1-8B",
        "NVLink",
        "PCIe",
        "H800",
        "×",
        "x",
        "*",
        "1e30",
        "-3",
        "0",
        "零",
        "两",
        "十六",
        "万亿",
        "？",
        "?",
        " ",
        "\n",
    ]
)
questions = st.one_of(
    st.text(max_size=300),
    st.lists(QUESTION_WORDS, max_size=25).map("".join),
    st.lists(QUESTION_WORDS, max_size=25).map(" ".join),
    log_fragments(),
)


@FUZZ
@given(questions)
def test_slot_extractor_never_raises_unexpectedly(question):
    from assistant.offline.reading.slots import extract

    try:
        extract(question)
    except ToolInputError as exc:
        assert exc.zh and exc.en


@settings(
    max_examples=40 * FUZZ_SCALE,
    deadline=None,  # no wall-clock limit per example (see FUZZ)
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=DERANDOMIZE,
)
@given(questions)
def test_offline_plan_never_raises_unexpectedly(question):
    # `plan` is the planner's entry: slots → intent → tool calls (no tools are run here).
    from assistant.offline import plan

    try:
        calls = plan(question, None, "auto")
    except ToolInputError as exc:
        assert exc.zh and exc.en
        return
    assert isinstance(calls, list)


def test_slot_extractor_on_a_huge_question_is_bounded():
    # Up to the advisor's MAX_QUESTION_CHARS (200,000). Measured 2026-11-30 before a fix: 50k chars
    # 0.58 s, 200k 3–6 s (~8x: each consumed span re-copied the working string); 2026-12-01: 50k
    # 0.15 s, 200k 0.24 s. A ratio in one run, not a clock: 4x the text must cost < 12x.
    from assistant.offline.reading.slots import _extract_cached, extract

    def uncached(question: str) -> None:  # extract() memoises per question: time the real work
        _extract_cached.cache_clear()
        extract(question)

    text = "能用4090全量训练7B吗 " * 20_000
    quarter, big = text[:50_000], text[:200_000]
    uncached(quarter)  # warm: imports, vocabularies from knowledge/
    assert_scales_linearly(lambda: uncached(quarter), lambda: uncached(big), what="slot extractor")


# ------------------------------------------------------------------ tools.quantities

QUANTITY_PARSERS = [
    "parse_number",
    "parse_param_count",
    "parse_token_count",
    "parse_money_cny",
    "parse_duration_hours",
    "parse_size_gb",
]
quantity_text = st.one_of(
    st.text(max_size=40),
    st.lists(
        st.sampled_from(
            [
                "7",
                "70",
                ".5",
                "1e3",
                "1e400",
                "-",
                "+",
                "B",
                "b",
                "亿",
                "万",
                "千",
                "百",
                "十",
                "两",
                "万亿",
                "个",
                "参数",
                "token",
                "tokens",
                "T",
                "G",
                "GB",
                "GiB",
                "TB",
                "元",
                "¥",
                "k",
                "天",
                "周",
                "月",
                "小时",
                "h",
                "d",
                "w",
                "约",
                "~",
                "≈",
                "，",
                ",",
                "_",
                "７",
                "Ｂ",
                " ",
                "nan",
                "inf",
                "0",
                "零点五",
            ]
        ),
        max_size=8,
    ).map("".join),
)
quantity_values = st.one_of(
    quantity_text,
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
)


@pytest.mark.parametrize("name", QUANTITY_PARSERS)
@settings(max_examples=80 * FUZZ_SCALE, deadline=None, derandomize=DERANDOMIZE)
@given(value=quantity_values)
def test_quantity_parsers_only_raise_tool_input_error(name, value):
    import tools.quantities as q

    try:
        out = getattr(q, name)(value)
    except ToolInputError as exc:
        assert exc.zh and exc.en
        return
    assert isinstance(out, (int, float))
    assert not isinstance(out, bool)
    assert math.isfinite(out), f"{name}({value!r}) returned {out!r}: a non-finite number is not an answer"


@pytest.mark.parametrize("text", ["1e400", "1E400"])
def test_parse_number_rejects_overflowing_scientific_notation(text):
    from tools.quantities import parse_number

    with pytest.raises(ToolInputError):
        parse_number(text)


@settings(max_examples=80 * FUZZ_SCALE, deadline=None, derandomize=DERANDOMIZE)
@given(quantity_text)
def test_chinese_number_only_raises_tool_input_error(text):
    from tools.quantities import parse_chinese_number

    try:
        value = parse_chinese_number(text)
    except ToolInputError as exc:
        assert exc.zh and exc.en
        return
    assert isinstance(value, float)


@settings(max_examples=80 * FUZZ_SCALE, deadline=None, derandomize=DERANDOMIZE)
@given(quantity_text)
def test_split_number_unit_fails_only_in_its_documented_ways(text):
    # A low-level helper (exported in __all__): it signals "no leading number" with ValueError,
    # which every caller in tools.quantities converts to ToolInputError. Anything else is a bug.
    from tools.quantities import split_number_unit

    try:
        number, unit = split_number_unit(text)
    except (ValueError, ToolInputError):
        return
    assert isinstance(number, float) and isinstance(unit, str)
