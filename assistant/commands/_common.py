"""Helpers every sub-command shares: JSON output, tables for people, bilingual errors."""

from __future__ import annotations

import json
import sys
from typing import Any, Iterable, Sequence

import click

from tools.errors import ToolInputError, from_validation_error

EXIT_BAD_INPUT = 2


def fail(zh: str, en: str) -> None:
    """Stop with a bilingual message on stderr and exit code 2."""
    raise ToolInputError(zh, en)


def emit_json(obj: Any) -> None:
    """One JSON object per line (UTF-8, Chinese unescaped). Never `Infinity`/`NaN` (not JSON)."""
    if hasattr(obj, "model_dump"):
        obj = obj.model_dump(mode="json")
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        raise _out_of_range() from None
    click.echo(text)


def _out_of_range() -> ToolInputError:
    return ToolInputError(
        "结果超出了可计算的范围，请检查输入的数值（时长、价格、token 数）",
        "The result is outside the range that can be computed; check the numbers given (durations, prices, tokens)",
    )


# Sub-commands whose option values are quantities: each value must be non-empty, and any number in it
# finite and in a computable range (tools/registry.py MAX_MAGNITUDE) — `inf`, `nan`, `1e400`, `1e308`
# and `""` get a bilingual error naming the option instead of an OverflowError deep in a formula.
NUMERIC_COMMANDS = frozenset({"estimate", "price", "train-time", "plan", "models", "gpus"})
_FREE_TEXT_OPTIONS = frozenset({"--expect", "--query", "--question"})


def check_cli_values(group: click.Group, argv: list[str]) -> None:
    """Refuse unusable option values before the command runs (see NUMERIC_COMMANDS)."""
    from tools.registry import check_numeric_text

    if not argv or argv[0] not in NUMERIC_COMMANDS:
        return
    command = group.get_command(click.Context(group), argv[0])
    if command is None:
        return
    takes_value: set[str] = set()
    for param in command.params:
        if isinstance(param, click.Option) and not param.is_flag and not param.count:
            takes_value.update(param.opts)
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        name, eq, inline = arg.partition("=")
        if eq and name in takes_value:
            opt, value = name, inline
        elif arg in takes_value and i + 1 < len(args):
            opt, value = arg, args[i + 1]
            i += 1
        else:
            i += 1
            continue
        i += 1
        if not value.strip():
            raise ToolInputError(f"{opt} 不能为空", f"{opt} must not be empty", field=opt.lstrip("-"))
        if opt not in _FREE_TEXT_OPTIONS:
            check_numeric_text(value, opt)


def print_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], caption: str | None = None) -> None:
    """A readable table for people (rich is imported only here)."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, caption=caption, show_lines=False, title_justify="left")
    for col in columns:
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*("" if v is None else str(v) for v in row))
    Console().print(table)


def run_cli(group: click.Group, argv: list[str]) -> None:
    """Run the click group; bad input exits 2 with `中文 / English`, never a traceback."""
    from pydantic import ValidationError

    try:
        check_cli_values(group, argv)
        group.main(args=argv, prog_name="gpu-advisor", standalone_mode=False)
    except ToolInputError as exc:
        click.echo(f"错误 / Error: {exc.bilingual()}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except ValidationError as exc:
        click.echo(f"错误 / Error: {from_validation_error(exc).bilingual()}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except click.exceptions.Abort:
        click.echo("已取消 / Aborted", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        click.echo(f"错误 / Error: {_click_message_zh(exc)} / {exc.format_message()}", err=True)
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            click.echo(
                f"查看帮助 / See: gpu-advisor {exc.ctx.command_path.split(' ', 1)[-1] if ' ' in exc.ctx.command_path else ''} --help".replace(
                    "  ", " "
                ),
                err=True,
            )
        sys.exit(EXIT_BAD_INPUT if isinstance(exc, click.UsageError) else exc.exit_code)
    except (OverflowError, ZeroDivisionError, FloatingPointError):
        # a last line of defence: check_cli_values keeps these out; never print a traceback for them
        click.echo(f"错误 / Error: {_out_of_range().bilingual()}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except FileNotFoundError as exc:
        click.echo(f"错误 / Error: 找不到文件 {exc.filename} / file not found: {exc.filename}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except BrokenPipeError:
        sys.exit(0)
    except KeyboardInterrupt:
        sys.exit(130)


def _click_message_zh(exc: click.ClickException) -> str:
    if isinstance(exc, click.NoSuchOption):
        return f"没有这个选项 {exc.option_name}"
    name = ""
    param = getattr(exc, "param", None)
    if param is not None:
        name = (getattr(param, "opts", None) or [getattr(param, "name", "")])[0]
    if isinstance(exc, click.MissingParameter):  # a subclass of BadParameter: test it first
        return f"缺少必需的参数 {name}".rstrip()
    if isinstance(exc, click.BadParameter):
        return f"参数 {name} 的取值无效".replace("参数  ", "参数")
    if isinstance(exc, click.UsageError):
        return "命令用法有误"
    return "命令失败"
