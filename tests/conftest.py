"""Test-wide guards: no test may reach the internet (loopback only)."""
from __future__ import annotations

import ipaddress
import os
import socket

import pytest

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
for _var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GPU_ADVISOR_BACKEND", "GPU_ADVISOR_MODEL", "CHROMA_URL"):
    os.environ.pop(_var, None)

_real_connect = socket.socket.connect
_real_getaddrinfo = socket.getaddrinfo
_LOCAL_NAMES = {"localhost", "127.0.0.1", "::1", "0.0.0.0", ""}


def _is_loopback(host: object) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    host = str(host)
    if host in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class InternetAccessBlocked(RuntimeError):
    pass


def _guarded_connect(self: socket.socket, address):  # type: ignore[no-untyped-def]
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):
        raise InternetAccessBlocked(f"test tried to reach {address!r}")
    return _real_connect(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
    if not _is_loopback(host):
        raise InternetAccessBlocked(f"test tried to resolve {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True, scope="session")
def _no_internet():
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.getaddrinfo = _guarded_getaddrinfo  # type: ignore[assignment]
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]
    socket.getaddrinfo = _real_getaddrinfo  # type: ignore[assignment]
