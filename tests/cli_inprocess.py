"""Run `gpu-advisor` in-process the way the console entry point does (bilingual errors, exit 2),
so CLI tests need not pay for a subprocess."""

from __future__ import annotations


def run_cli_inprocess(capsys, *args: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    """Returns (exit code, stdout, stderr)."""
    from assistant.cli import cli
    from assistant.commands._common import run_cli

    code = 0
    try:
        run_cli(cli, list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err
