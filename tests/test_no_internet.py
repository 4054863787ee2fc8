"""Proof that the guard in tests/conftest.py works: a non-loopback connection or DNS lookup
fails fast inside tests, while loopback (the stub servers) still works."""

from __future__ import annotations

import socket

import pytest

from tests.netguard import BLOCKED_ATTEMPTS, InternetAccessBlocked


def test_non_loopback_connect_is_blocked():
    before = len(BLOCKED_ATTEMPTS)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1)
        with pytest.raises(InternetAccessBlocked):
            s.connect(("93.184.216.34", 443))  # a public address (example.com's old IP)
    assert len(BLOCKED_ATTEMPTS) == before + 1


def test_dns_lookup_is_blocked():
    with pytest.raises(InternetAccessBlocked):
        socket.getaddrinfo("api.openai.com", 443)


def test_the_openai_client_cannot_reach_the_internet():
    """The real client, pointed at the real API, fails before any byte leaves the machine."""
    import openai

    client = openai.OpenAI(api_key="sk-none", max_retries=0, timeout=2)
    with pytest.raises((openai.APIConnectionError, InternetAccessBlocked)):
        client.models.list()
    assert any("api.openai.com" in a for a in BLOCKED_ATTEMPTS)


def test_loopback_still_works():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=1):
            pass
