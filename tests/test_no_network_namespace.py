"""Nothing phones home: the CLI and a representative slice of the test suite run with no network at all.

`unshare -n` (util-linux) puts the process in a fresh network namespace: no interfaces but a
loopback that starts *down*, no routes, no DNS. The CLI runs there with even loopback down
(the strictest case: the offline default must not need any socket); the pytest slice runs with
loopback brought up, because its OpenAI stub and page servers legitimately listen on 127.0.0.1.
A fresh GPU_ADVISOR_HOME means the retrieval index is built from scratch inside the namespace —
proof that building it needs no model download either.

Skipped, with the reason, where the kernel or container does not permit `unshare -n`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SAMPLE = ROOT / "tests" / "diagnosis_samples" / "dmesg_xid79_after_aer_surprise_down.txt"
# Offline planner, CLI contracts, diagnosis, retrieval and the LLM path against the loopback stub.
SUITE_SLICE = [
    "tests/test_agent_offline.py",
    "tests/test_estimate_cli.py",
    "tests/test_diagnose_cli.py",
    "tests/test_search_cli.py",
    "tests/test_agent_openai.py",
    "tests/test_prompt_injection.py",
]


@lru_cache(maxsize=1)
def _unshare_prefix() -> list[str] | None:
    """`unshare -n` as root, `unshare -rn` (user namespace) otherwise; None if neither is permitted."""
    if shutil.which("unshare") is None:
        return None
    for prefix in (["unshare", "-n"], ["unshare", "-rn"]):
        try:
            if subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0:
                return prefix
        except (OSError, subprocess.SubprocessError):
            continue
    return None


def _require_netns() -> list[str]:
    prefix = _unshare_prefix()
    if prefix is None:
        pytest.skip(
            "`unshare -n true` is not permitted here (no util-linux unshare, or the container forbids "
            "new network namespaces); run this file on a host or a privileged CI runner"
        )
    return prefix


def _env(home: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "GPU_ADVISOR_HOME": str(home),
        "PYTHONIOENCODING": "utf-8",
        "HF_HUB_OFFLINE": "1",
        "GRADIO_ANALYTICS_ENABLED": "False",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "GPU_ADVISOR_BACKEND",
        "CHROMA_URL",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "http_proxy",
        "https_proxy",
        "ALL_PROXY",
    ):
        env.pop(var, None)
    return env


def _in_netns(
    args: list[str], home: Path, timeout: float = 120, stdin: str | None = None, loopback: bool = False
) -> subprocess.CompletedProcess[str]:
    prefix = _require_netns()
    if loopback:
        if shutil.which("ip") is None:
            pytest.skip("`ip` (iproute2) is needed to bring loopback up inside the namespace")
        args = ["sh", "-c", 'ip link set lo up && exec "$@"', "sh", *args]
    return subprocess.run(
        [*prefix, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=_env(home), input=stdin
    )


def test_the_namespace_really_has_no_network(tmp_path):
    probe = (
        "import socket\n"
        "for target in [('1.1.1.1', 53), ('114.114.114.114', 53)]:\n"
        "    try:\n"
        "        socket.create_connection(target, timeout=2); print('REACHED', target)\n"
        "    except OSError as exc: print('unreachable', exc.errno)\n"
        "try:\n"
        "    socket.getaddrinfo('pypi.org', 443); print('RESOLVED')\n"
        "except OSError: print('no dns')\n"
    )
    proc = _in_netns([PY, "-c", probe], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "REACHED" not in proc.stdout and "RESOLVED" not in proc.stdout, proc.stdout


def _cli(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    proc = _in_netns([PY, "-m", "assistant.cli", *args], home, stdin=stdin)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, f"{args}: exit {proc.returncode}\n{proc.stderr[-2000:]}"
    return proc


@pytest.mark.slow
def test_cli_works_with_no_network_at_all(tmp_path):
    home = tmp_path / "home"
    est = json.loads(_cli(home, "estimate", "--params", "7B", "--mode", "full", "--json").stdout)
    # 7e9 params × 2 bytes (bf16 weights) = 14 GB: hand arithmetic, no tool output pasted back
    assert est["weights_gb"] == pytest.approx(14.0)

    zh = json.loads(_cli(home, "ask", "--json", "能用4090全量训练7B吗").stdout)
    assert zh["language"] == "zh" and zh["backend"] == "offline"
    assert "estimate_memory" in [c["name"] for c in zh["tool_calls"]]

    en = json.loads(_cli(home, "ask", "--json", "--lang", "en", "How many A100 80GB for a 70B full fine-tune?").stdout)
    assert en["language"] == "en" and en["tool_calls"]

    diag = json.loads(_cli(home, "diagnose", "--json", str(SAMPLE)).stdout.splitlines()[0])
    assert 79 in [x["code"] for x in diag["xids"]]

    found = _cli(home, "search", "--json", "两台8卡服务器用什么网络")
    hits = json.loads(found.stdout.splitlines()[-1])["hits"]
    assert hits and not all(h.get("low_relevance") for h in hits)
    assert (home / "chroma").is_dir(), "the index was built inside the namespace"


@pytest.mark.slow
def test_a_slice_of_the_suite_passes_with_no_network(tmp_path):
    proc = _in_netns(
        [PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not browser", *SUITE_SLICE],
        tmp_path / "home",
        timeout=600,
        loopback=True,
    )
    tail = (proc.stdout + proc.stderr)[-3000:]
    assert proc.returncode == 0, tail
    assert " passed" in proc.stdout and " failed" not in proc.stdout, tail
