"""assistant/coldstart.py: what a one-shot `gpu-advisor ask` keeps between processes must not change
what it computes (issue 16).

- The regex cache: a pattern served from the file is *equal* to the one `re` compiles itself —
  CPython's Pattern `==` compares the flags, the pattern text and the compiled code word by word —
  and matches the same text; a file for another interpreter build, or a damaged entry, is ignored.
- langsmith's run models: defined, not built until first used, then validating as before.
- The deferred package: its submodules import, its `__init__` has not run, and the first read of
  a name on the package runs it (so `langsmith.types.Run` still resolves).
- End to end: a cold `gpu-advisor ask` served from the file answers exactly as one without
  assistant/coldstart.py, and every pattern stored equals `re`'s own compile of it.
"""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from assistant import coldstart
from assistant.coldstart import RegexCache, defer_package_init

ROOT = Path(__file__).resolve().parent.parent

# Written for this test: named and numbered groups, look-around, flags, bytes, Chinese classes,
# a back-reference, possessive-free repeats, a verbose pattern with comments.
PATTERNS: list[tuple[str | bytes, int]] = [
    (r"(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>[kmgt]i?b?)\b", re.I),
    (r"(?<![\w.])(\d+)\s*(?:张|块|卡|x|×)\s*(?=[a-z]*\d{3,4})", 0),
    (r"^(?:能不能|可以|能否)用?(.+?)(?:训练|微调|推理)", re.M),
    (r"([\u4e00-\u9fff]{2,})\1", 0),
    (rb"\x00+(?P<tail>[^\x00]*)$", re.S),
    (
        r"""(?x)  # a verbose pattern
            (?P<gpu> rtx\s?\d{4} | a100 | h\d{3} )   # a card
            \s* (?: (\d+) \s* g(?:b|ib)? )?           # its memory
        """,
        0,
    ),
    (r"[^\s，。；、]+", re.U),
]

SAMPLES = [
    "两张 4090 24G 能不能训练 qwen2.5-7b",
    "8x A100 80GiB, 3.5 TB disk; rtx 4090",
    "可以用H100推理吗\n能否微调",
    "显存显存不够",
]


def _plain(p: str | bytes, flags: int) -> re.Pattern:
    from re import _compiler  # type: ignore[attr-defined]

    return _compiler.compile(p, flags)


def _first_then_cached(tmp_path: Path) -> tuple[RegexCache, RegexCache]:
    tag = coldstart._build_tag()
    assert tag is not None, "the project pins CPython 3.11, where the cache is on"
    path = tmp_path / "regex.marshal"
    first = RegexCache(path, tag)
    for p, flags in PATTERNS:
        first.compile(p, flags)
    assert first.misses == len(PATTERNS)
    first.save()
    second = RegexCache(path, tag)
    second.load()
    return first, second


def test_a_pattern_from_the_file_is_the_pattern_re_compiles(tmp_path):
    first, second = _first_then_cached(tmp_path)
    assert len(second.known) == len(PATTERNS)
    for p, flags in PATTERNS:
        mine, theirs = second.compile(p, flags), _plain(p, flags)
        assert mine == theirs  # same flags, text and compiled code
        assert (mine.groups, mine.groupindex, mine.flags) == (theirs.groups, theirs.groupindex, theirs.flags)
        for text in SAMPLES:
            subject = text.encode() if isinstance(p, bytes) else text
            assert [m.group(0) for m in mine.finditer(subject)] == [m.group(0) for m in theirs.finditer(subject)]
    assert second.misses == 0  # all served from the file, none compiled again
    assert first.compile(*PATTERNS[0]) == _plain(*PATTERNS[0])


def test_every_pattern_of_the_reading_rules_round_trips(tmp_path):
    """The project's own patterns (module-level compiled patterns of the reader, the vocabularies,
    the intents), stored and read back: each equals `re`'s compile of it."""
    import importlib

    names = [
        "assistant.offline.reading.slots",
        "assistant.offline.reading.quantities",
        "assistant.offline.reading.shapes",
        "assistant.offline.reading.load",
        "assistant.offline.intents.serving",
        "assistant.offline.intents.decline",
        "tools.models",
    ]
    found = []
    for name in names:
        module = importlib.import_module(name)
        found += [(v.pattern, v.flags) for v in vars(module).values() if isinstance(v, re.Pattern)]
    assert len(found) > 40
    tag = coldstart._build_tag()
    assert tag is not None
    writer = RegexCache(tmp_path / "r.marshal", tag)
    for p, flags in found:
        writer.compile(p, flags)
    writer.save()
    reader = RegexCache(tmp_path / "r.marshal", tag)
    reader.load()
    assert all(reader.compile(p, flags) == _plain(p, flags) for p, flags in found)
    assert reader.misses == 0


def test_another_interpreter_build_or_a_damaged_entry_is_compiled_afresh(tmp_path):
    _first, _second = _first_then_cached(tmp_path)
    path = tmp_path / "regex.marshal"
    other = RegexCache(path, "another python")
    other.load()
    assert other.known == {}

    tag = coldstart._build_tag()
    assert tag is not None
    data = marshal.loads(path.read_bytes())  # noqa: S302 — the file this test just wrote
    p, flags = PATTERNS[0]
    final_flags, code, *rest = data["entries"][(p, flags)]
    data["entries"][(p, flags)] = (final_flags, [999_999, *code[1:]], *rest)  # not valid SRE code
    path.write_bytes(marshal.dumps(data))
    damaged = RegexCache(path, tag)
    damaged.load()
    assert damaged.compile(p, flags) == _plain(p, flags)
    assert damaged.misses == 1  # recompiled, and the next save replaces the entry

    path.write_bytes(b"not marshal at all")
    junk = RegexCache(path, tag)
    junk.load()
    assert junk.known == {} and junk.compile(p, flags) == _plain(p, flags)


def test_the_file_stays_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(coldstart, "MAX_ENTRIES", 3)
    tag = coldstart._build_tag()
    assert tag is not None
    path = tmp_path / "regex.marshal"
    run1 = RegexCache(path, tag)
    for i in range(3):
        run1.compile(rf"first{i}\d+", 0)
    run1.save()
    run2 = RegexCache(path, tag)
    run2.load()
    run2.compile(r"first0\d+", 0)
    run2.compile(r"second\w+", 0)  # 4 distinct patterns > 3: only this run's two are kept
    run2.save()
    run3 = RegexCache(path, tag)
    run3.load()
    assert set(run3.known) == {(r"first0\d+", 0), (r"second\w+", 0)}


def test_nothing_is_written_without_a_state_folder_or_a_new_pattern(tmp_path):
    tag = coldstart._build_tag()
    assert tag is not None
    missing_home = tmp_path / "no-home"
    cache = RegexCache(missing_home / "cache" / "regex.marshal", tag, missing_home)
    cache.compile(r"x+y", 0)
    cache.save()
    assert not missing_home.exists()

    path = tmp_path / "r.marshal"
    quiet = RegexCache(path, tag)
    quiet.save()  # nothing compiled: nothing to write
    assert not path.exists()


def _make_package(root: Path) -> None:
    pkg = root / "coldpkg_demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        textwrap.dedent(
            """
            import coldpkg_demo.counter as _c
            _c.RUNS += 1
            from .models import Model
            ANSWER = 42
            """
        ),
        encoding="utf-8",
    )
    (pkg / "counter.py").write_text("RUNS = 0\n", encoding="utf-8")
    (pkg / "models.py").write_text("class Model:\n    pass\n", encoding="utf-8")
    (pkg / "alias.py").write_text("NAMES = ('a', 'b')\n", encoding="utf-8")


def test_a_deferred_package_runs_its_init_on_first_use_only(tmp_path, monkeypatch):
    _make_package(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("coldpkg_demo")]:
        monkeypatch.delitem(sys.modules, name)
    try:
        assert defer_package_init("coldpkg_demo") is True
        assert coldstart.is_deferred("coldpkg_demo")
        import coldpkg_demo.alias  # a submodule: imported without the package's __init__
        import coldpkg_demo.counter

        assert coldpkg_demo.alias.NAMES == ("a", "b")
        assert coldpkg_demo.counter.RUNS == 0
        from coldpkg_demo import Model  # the first name read on the package runs its __init__, once

        assert Model.__name__ == "Model" and coldpkg_demo.ANSWER == 42
        assert coldpkg_demo.counter.RUNS == 1 and not coldstart.is_deferred("coldpkg_demo")
        with pytest.raises(AttributeError):
            _ = coldpkg_demo.nothing_here
        assert coldpkg_demo.counter.RUNS == 1
        assert defer_package_init("coldpkg_demo") is False  # already imported
        assert defer_package_init("no_such_package_anywhere") is False
        assert defer_package_init("json.decoder") is False  # a module, not a package
    finally:
        for name in [m for m in sys.modules if m.startswith("coldpkg_demo")]:
            del sys.modules[name]


def _env(home: Path) -> dict[str, str]:
    env = {**os.environ, "GPU_ADVISOR_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def test_langsmiths_run_models_are_built_on_first_use_and_validate_as_before(tmp_path):
    code = textwrap.dedent(
        """
        import pydantic
        from assistant.coldstart import load_tracing_models_lazily
        assert load_tracing_models_lazily()
        from langchain_core.language_models import BaseChatModel
        from langsmith.run_trees import RunTree
        assert pydantic.BaseModel.model_config == {}, "the setting leaked out of the block"
        class After(pydantic.BaseModel):  # defined later: built at once, as always
            n: int
        assert After.__pydantic_complete__
        print(RunTree.__pydantic_complete__)
        run = RunTree(name="x", run_type="chain", inputs={"q": 1})
        print(RunTree.__pydantic_complete__, run.name, run.inputs)
        try:
            RunTree(name="x", run_type="chain", inputs="not a mapping")
        except pydantic.ValidationError:
            print("refused")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[:3] == ["False", "True x {'q': 1}", "refused"]


def test_langchain_loads_without_langsmiths_api_models_and_they_still_resolve(tmp_path):
    code = textwrap.dedent(
        """
        import sys
        from assistant.coldstart import defer_package_init, is_deferred
        assert defer_package_init("langsmith.types")
        from langchain_core.language_models import BaseChatModel  # imports langsmith.run_trees
        import langsmith.run_trees
        assert is_deferred("langsmith.types"), "the API models were loaded"
        import langsmith.types
        print(langsmith.types.Run.__name__, is_deferred("langsmith.types"))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["Run", "False"]


@pytest.mark.slow
def test_a_cold_ask_from_the_cache_answers_as_one_without_it(tmp_path):
    """Three processes in one new home: the first builds the store and writes the regex file; the
    second runs from the file; the third bypasses assistant/coldstart.py (plain `re`, langsmith
    whole). The last two must agree exactly; every stored pattern must equal `re`'s own compile."""
    import json

    home = tmp_path / "home"
    question = "两张4090能全量微调7B吗"
    with_cache = [sys.executable, "-m", "assistant.cli", "ask", "--json", question]
    without = [
        sys.executable,
        "-c",
        "from assistant.cli import cli; from assistant.commands._common import run_cli; "
        f"run_cli(cli, ['ask', '--json', {question!r}])",
    ]
    runs = [
        subprocess.run(cmd, cwd=ROOT, env=_env(home), capture_output=True, text=True, timeout=600)
        for cmd in (with_cache, with_cache, without)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    cached, plain = (json.loads(r.stdout.strip().splitlines()[-1]) for r in runs[1:])
    for result in (cached, plain):
        result.pop("elapsed_ms", None)
    assert cached["answer"] and cached["answer"] == plain["answer"]
    assert cached["tool_calls"] == plain["tool_calls"]

    stored = home / "cache" / f"regex.{sys.implementation.cache_tag}.marshal"
    data = marshal.loads(stored.read_bytes())  # noqa: S302 — the file the test run just wrote
    assert data["tag"] == coldstart._build_tag()
    entries = data["entries"]
    assert len(entries) > 300  # the reader's, the vocabularies' and the libraries' patterns
    import _sre

    for (p, flags), args in entries.items():
        assert _sre.compile(p, *args) == _plain(p, flags), p
