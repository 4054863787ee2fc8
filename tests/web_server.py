"""Start the real page (`gpu-advisor serve`) in a subprocess on a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_page(
    extra_args: list[str] | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 90.0,
    module: str = "assistant.cli",
) -> Iterator[str]:
    """The page on a free port; `module` may name a test wrapper (tests.web_shaped) run with `-m`."""
    port = free_port()
    full_env = {
        **os.environ,
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }
    log = open(ROOT / "artifacts" / f"serve-{port}.log", "w") if (ROOT / "artifacts").is_dir() else subprocess.DEVNULL
    proc = subprocess.Popen(
        [sys.executable, "-m", module, "serve", "--port", str(port), *(extra_args or [])],
        cwd=ROOT,
        env=full_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"serve exited early with code {proc.returncode}")
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status in (200, 401):
                        break
            except Exception:
                if time.monotonic() > deadline:
                    raise TimeoutError("page did not come up") from None
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if log is not subprocess.DEVNULL:
            log.close()


def server_pid(port: int) -> int | None:
    """The process listening on the page's port (the `serve` child of running_page)."""
    import re

    out = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True).stdout
    m = re.search(r"pid=(\d+)", out)
    return int(m.group(1)) if m else None


def status_mb(pid: int, key: str) -> float:
    """A /proc/PID/status memory figure (VmRSS, VmHWM) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")
