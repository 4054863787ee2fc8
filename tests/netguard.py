"""Block every non-loopback connection and DNS lookup during tests, and record attempts.

Imported as `tests.netguard` (by conftest and by tests that prove nothing phoned home), so
there is exactly one record of attempts.
"""

from __future__ import annotations

import ipaddress
import socket

_real_connect = socket.socket.connect
_real_getaddrinfo = socket.getaddrinfo
_LOCAL_NAMES = {"localhost", "127.0.0.1", "::1", "0.0.0.0", ""}

# Every blocked attempt is recorded here, so tests can prove nothing even tried to phone home.
BLOCKED_ATTEMPTS: list[str] = []


class InternetAccessBlocked(RuntimeError):
    """Raised when code under test tries to leave the machine."""


def is_loopback(host: object) -> bool:
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


def _guarded_connect(self: socket.socket, address):  # type: ignore[no-untyped-def]
    if self.family in (socket.AF_INET, socket.AF_INET6) and not is_loopback(address[0]):
        BLOCKED_ATTEMPTS.append(f"connect {address!r}")
        raise InternetAccessBlocked(f"test tried to reach {address!r}")
    return _real_connect(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
    if not is_loopback(host):
        BLOCKED_ATTEMPTS.append(f"resolve {host!r}")
        raise InternetAccessBlocked(f"test tried to resolve {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


def install() -> None:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.getaddrinfo = _guarded_getaddrinfo  # type: ignore[assignment]


def uninstall() -> None:
    socket.socket.connect = _real_connect  # type: ignore[method-assign]
    socket.getaddrinfo = _real_getaddrinfo  # type: ignore[assignment]
