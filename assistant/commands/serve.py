"""`gpu-advisor serve` — start the page on loopback (offline default, no configuration)."""

from __future__ import annotations

import click

from tools.errors import ToolInputError


def _parse_auth(value: str | None) -> tuple[str, str] | None:
    if not value:
        return None
    user, sep, password = value.partition(":")
    if not sep or not user or not password:
        raise ToolInputError("--auth 的格式应为 用户名:密码", "--auth must look like user:pass", field="auth")
    return user, password


def check_port(host: str, port: int) -> None:
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError as exc:
            nxt = port + 1 if port < 65535 else 7861
            if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux / macOS / Windows
                raise ToolInputError(
                    f"端口 {port} 已被占用（可能已有一个页面在运行）。换一个端口：make run PORT={nxt}，"
                    f"或 gpu-advisor serve --port {nxt}",
                    f"port {port} is already in use (is the page already running?). "
                    f"Choose another: make run PORT={nxt}, or gpu-advisor serve --port {nxt}",
                    field="port",
                ) from None
            raise ToolInputError(
                f"无法在 {host}:{port} 上监听：{exc.strerror}",
                f"cannot listen on {host}:{port}: {exc.strerror}",
                field="port",
            ) from None


@click.command(help="启动网页（默认仅本机 127.0.0.1）/ Start the web page (loopback by default).")
@click.option("--host", default="127.0.0.1", show_default=True, help="监听地址 / Address to bind.")
@click.option("--port", default=7860, show_default=True, type=click.IntRange(1, 65535), help="端口 / Port.")
@click.option("--auth", default=None, metavar="USER:PASS", help="访问口令 / Require a login (user:pass).")
def command(host: str, port: int, auth: str | None) -> None:
    credentials = _parse_auth(auth)
    check_port(host, port)  # before gradio loads: a busy port is one bilingual line, not a traceback
    from assistant.web.app import launch

    if host not in ("127.0.0.1", "localhost", "::1") and credentials is None:
        click.echo(
            "注意：页面对网络开放且未设口令 / Note: the page is reachable from the network without --auth.", err=True
        )
    click.echo(f"GPU Advisor · 算力顾问 → http://{host}:{port}  (Ctrl+C 退出 / to stop)")
    launch(host=host, port=port, auth=credentials)
