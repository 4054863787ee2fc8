"""Start-up work a one-shot `gpu-advisor ask` would otherwise repeat in every new process (issue 16).

A cold `ask` is a fresh interpreter each time; two of its costs are pure repetition, measured with
`python -X importtime`, cProfile and paired whole-process runs:

1. **Regex compilation.** About 570 patterns — the reading rules and vocabularies, and the libraries'
   own (urllib3, yaml, http.cookies …) — go through `re`'s pure-Python parser and compiler on every
   start: about a quarter of the process's CPU time. What that compiler produces is plain data (a
   list of ints, the group names) handed to the C engine `_sre.compile`. `RegexCache` keeps that
   data in the state folder (`$GPU_ADVISOR_HOME/cache/regex.<python tag>.marshal`) and hands it to
   `_sre.compile` directly next time; the pattern objects are equal (`==` compares the compiled
   code) to the ones `re` builds — tests/test_coldstart.py checks every pattern of an ask.
   Keyed on the exact interpreter build (`sys.version`, `_sre.MAGIC`, `_sre.CODESIZE`): another
   Python ignores the file. Only CPython 3.11, whose `re._compiler.compile` this mirrors line by
   line (pyproject pins 3.11); anywhere else `install_regex_cache` does nothing.
2. **`langsmith.types`.** `langchain_core`'s chat-model base imports `langsmith.run_trees`, which
   imports `langsmith.types.run_select_field` (one `Literal` alias) — and with it the package
   `langsmith.types`, ~160 generated API models that nothing on our path touches (~20 % of the
   LangChain import). `defer_package_init("langsmith.types")` registers that package with its
   `__init__` not yet run: submodules import as usual, and the first attribute read on the package
   itself (`langsmith.types.Run`, `from langsmith.types import Run`) runs the real `__init__` then,
   so tracing code that wants the models still gets them.

3. **langsmith's run models.** The same import defines ~50 pydantic models for LangSmith runs,
   traces and the tracing client (`langsmith.schemas`, `langsmith.run_trees` …): pydantic builds
   each one's validator at class creation, ~10 % of the LangChain import. They are used only when
   LangSmith tracing is on. `load_tracing_models_lazily()` imports them once with pydantic's own
   `defer_build` setting: the classes exist, and pydantic builds a model's validator the first
   time it is used (a `RunTree(...)` when tracing), exactly as it would have at import.

All are used by the CLI only for `ask`/`chat` (assistant/cli.py); `estimate` and the page are
unchanged. Nothing here changes what any pattern matches or what any module contains.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib.util
import logging
import marshal
import os
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

log = logging.getLogger(__name__)

# More entries than this (the file only grows by patterns a run has not met before) and the file is
# rewritten with just the last run's patterns: bounded, whatever builds patterns at run time.
MAX_ENTRIES = 4000
_FLAG_DEBUG = 128  # re.DEBUG: prints while compiling, never cached


def _build_tag() -> str | None:
    """The interpreter build the compiled code belongs to; None where the cache must stay off."""
    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11):
        return None
    import _sre

    return f"{sys.version}|{_sre.MAGIC}|{_sre.CODESIZE}|{_sre.MAXREPEAT}|{_sre.MAXGROUPS}"


class RegexCache:
    """`re._compiler.compile`, remembering each (pattern, flags)'s compiled code across processes."""

    def __init__(self, path: Path, tag: str, home: Path | None = None) -> None:
        self.path, self.tag, self.home = path, tag, home
        self.known: dict[tuple[Any, int], tuple[Any, ...]] = {}
        self.met: dict[tuple[Any, int], tuple[Any, ...]] = {}  # what this process compiled or reused
        self.misses = 0
        self._lock = threading.Lock()
        self._original: Callable[..., Any] | None = None

    def load(self) -> None:
        try:
            # our own plain-data file in the user's state folder (tuples, lists, ints, str), never code
            data = marshal.loads(self.path.read_bytes())  # noqa: S302
        except (OSError, EOFError, ValueError, TypeError):
            return
        if isinstance(data, dict) and data.get("tag") == self.tag and isinstance(data.get("entries"), dict):
            self.known = data["entries"]

    def compile(self, p: Any, flags: int = 0) -> Any:
        """Drop-in for `re._compiler.compile(p, flags)` (called by `re` on its own cache misses)."""
        import _sre
        from re import _compiler, _parser  # type: ignore[attr-defined]

        if not isinstance(p, (str, bytes)) or flags & _FLAG_DEBUG:
            return _compiler_original(self)(p, flags)
        flags = int(flags)  # `re` passes a plain int; a RegexFlag is an int subclass marshal cannot write
        key = (p, flags)
        args = self.known.get(key)
        if args is not None:
            try:
                compiled = _sre.compile(p, *args)
            except Exception:  # noqa: BLE001 — a damaged entry: compile as `re` would, and replace it
                args = None
            else:
                self.met[key] = args
                return compiled
        # as re._compiler.compile does it (CPython 3.11), keeping the arguments for next time
        parsed = _parser.parse(p, flags)
        code = _compiler._code(parsed, flags)
        groupindex = parsed.state.groupdict
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        # the opcodes are int subclasses (named constants), which marshal cannot write: plain ints
        final_flags, plain_code = int(flags | parsed.state.flags), [int(c) for c in code]
        args = (final_flags, plain_code, parsed.state.groups - 1, dict(groupindex), tuple(indexgroup))
        compiled = _sre.compile(p, *args)
        with self._lock:
            self.met[key] = args
            self.misses += 1
        return compiled

    def save(self) -> None:
        """Write the file when this run met a pattern it did not hold (atomic replace; best effort)."""
        if not self.misses or (self.home is not None and not self.home.is_dir()):
            return
        entries = {**self.known, **self.met}
        if len(entries) > MAX_ENTRIES:
            entries = dict(self.met)
        try:
            blob = marshal.dumps({"tag": self.tag, "entries": entries})
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(blob)
            tmp.replace(self.path)
        except (OSError, ValueError) as exc:  # a read-only home: compile each time, as before
            log.info("no regex cache written: %s", exc)


def _compiler_original(cache: RegexCache) -> Callable[..., Any]:
    from re import _compiler  # type: ignore[attr-defined]

    return cache._original or _compiler.compile


_installed: RegexCache | None = None


def install_regex_cache(home: Path) -> RegexCache | None:
    """Serve this process's regex compiles from `home`/cache and save new ones at exit.

    Saved only where `home` exists by then (the question's retrieval creates it on a first ask)."""
    global _installed
    if _installed is not None:
        return _installed
    tag = _build_tag()
    if tag is None:
        return None
    from re import _compiler  # type: ignore[attr-defined]

    cache = RegexCache(home / "cache" / f"regex.{sys.implementation.cache_tag}.marshal", tag, home)
    cache.load()
    cache._original = _compiler.compile
    _compiler.compile = cache.compile
    atexit.register(cache.save)
    _installed = cache
    return cache


def uninstall_regex_cache() -> None:
    """Put `re` back as it was (tests)."""
    global _installed
    if _installed is None:
        return
    from re import _compiler  # type: ignore[attr-defined]

    if _installed._original is not None:
        _compiler.compile = _installed._original
    atexit.unregister(_installed.save)
    _installed = None


_DEFERRED: dict[str, dict[str, bool]] = {}


def defer_package_init(name: str) -> bool:
    """Register package `name` with its `__init__` not yet run (see the module docstring, item 2).

    True when deferred; False when it is already imported, missing, or not a package."""
    if name in sys.modules:
        return False
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    module = importlib.util.module_from_spec(spec)
    loader, lock, state = spec.loader, threading.RLock(), {"done": False}
    _DEFERRED[name] = state

    def __getattr__(attr: str) -> Any:  # PEP 562: only names the module does not have yet
        with lock:
            if not state["done"]:
                state["done"] = True
                loader.exec_module(module)
                if attr in module.__dict__:
                    return module.__dict__[attr]
        raise AttributeError(f"module {name!r} has no attribute {attr!r}")

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent and parent in sys.modules:
        setattr(sys.modules[parent], child, module)
    return True


def is_deferred(name: str) -> bool:
    """True while a `defer_package_init` package has not run its `__init__` (tests, benchmarks)."""
    state = _DEFERRED.get(name)
    return state is not None and not state["done"] and sys.modules.get(name) is not None


@contextlib.contextmanager
def _pydantic_models_built_on_first_use() -> Iterator[None]:
    """Every pydantic model *defined* inside the block gets `defer_build=True` (merged from
    `BaseModel.model_config`, which every model's config starts from); restored afterwards."""
    from pydantic import BaseModel

    config = BaseModel.model_config
    if "defer_build" in config:
        yield
        return
    config["defer_build"] = True
    try:
        yield
    finally:
        config.pop("defer_build", None)


def load_tracing_models_lazily() -> bool:
    """Import langsmith's run/trace models (item 3 above) before LangChain does; False if already imported."""
    if "langsmith.run_trees" in sys.modules:
        return False
    try:
        with _pydantic_models_built_on_first_use():
            import langsmith.run_trees  # noqa: F401 — what langchain_core's chat-model base imports
    except ImportError:
        return False
    return True


def prepare_one_shot(argv: list[str], home: Path | None = None) -> None:
    """Everything above, for a process that answers questions and exits (`ask`, `chat`).

    `ask QUESTION` (one answer, then exit) also runs without the cyclic garbage collector from the
    first import on: `ask` pauses it only while it answers (assistant/commands/ask.py), and turning
    it back on before exit started a full collection of everything LangChain had loaded (~0.1 s
    of CPU, for memory the exit returns anyway). `ask -` and `chat` keep it."""
    if argv[:1] == ["ask"] and "-" not in argv[1:]:
        gc.disable()
    if home is None:
        from tools.retrieval.paths import home_path

        home = home_path()
    install_regex_cache(home)
    defer_package_init("langsmith.types")
    load_tracing_models_lazily()
