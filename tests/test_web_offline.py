"""Nothing leaves the machine: build and launch the page in-process with every DNS lookup
and connection recorded through an audit hook; only loopback may appear."""

from __future__ import annotations

import ipaddress
import sys
import urllib.request

import pytest

from tests.web_server import free_port

pytestmark = [pytest.mark.server]


def _external(host: object) -> bool:
    if host in (None, "", "localhost"):
        return False
    try:
        return not ipaddress.ip_address(str(host)).is_loopback
    except ValueError:
        return True


def test_page_start_and_use_make_no_outside_requests() -> None:
    seen: list[tuple[str, object]] = []

    def hook(event: str, args: tuple) -> None:
        if event == "socket.getaddrinfo":
            seen.append((event, args[0]))
        elif event == "socket.connect":
            addr = args[1]
            if isinstance(addr, tuple):
                seen.append((event, addr[0]))

    from tests.netguard import BLOCKED_ATTEMPTS

    already_blocked = len(BLOCKED_ATTEMPTS)
    sys.addaudithook(hook)
    from assistant.web.app import launch

    port = free_port()
    demo_app = launch(port=port, prevent_thread_lock=True)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as resp:
            assert resp.status == 200
            page_html = resp.read().decode("utf-8", "replace")
        assert "fonts.googleapis.com" not in page_html and "cdn.jsdelivr" not in page_html
        from assistant.web.app import estimate

        estimate("7B", "full", "4090", 1, 2048, 1, "中文")
    finally:
        import gradio as gr

        gr.close_all()
    outside = [(event, host) for event, host in seen if _external(host)] + BLOCKED_ATTEMPTS[already_blocked:]
    assert not outside, f"requests off this machine: {outside}"
    del demo_app
