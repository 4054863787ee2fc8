"""`gpu-advisor chat` — a terminal conversation that remembers earlier turns.

Commands: `/exit` (or `/quit`), `/reset` (forget the conversation), `/lang zh|en|auto`, `/help`.
Works with a pipe too (`printf '能用4090全量训练7B吗\\n那A100呢？\\n' | gpu-advisor chat`): no prompt
is printed when stdin is not a terminal, and the session ends at end of input.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from assistant.commands.ask import BACKEND_CHOICE, LANG_CHOICE, format_footer, print_answer, tool_call_line

HELP_TEXT = (
    "命令 / commands: /exit 退出 · /reset 清空对话 / forget the conversation · "
    "/lang zh|en|auto 回答语言 / answer language · /help · "
    '粘贴多行日志：单独一行 """ 开始、再一行 """ 结束 / paste a multi-line log between two lines of """'
)
BLOCK_FENCES = ('"""', "```")  # a whole line of either opens and closes a multi-line message
MAX_HISTORY_TURNS = 20  # user+assistant messages kept; older turns rarely matter for slots


def _read_line(interactive: bool) -> str | None:
    if interactive:
        try:
            return input("你 / You > ")
        except EOFError:
            return None
    raw = sys.stdin.buffer.readline()
    if not raw:
        return None
    from tools.textcodec import decode_text

    return decode_text(raw)


def _read_message(interactive: bool) -> str | None:
    """One user turn: a line, or every line between two fence lines (a pasted nvidia-smi / dmesg)."""
    line = _read_line(interactive)
    if line is None or line.strip() not in BLOCK_FENCES:
        return line
    fence = line.strip()
    lines: list[str] = []
    while True:
        nxt = _read_line(interactive) if not interactive else _read_block_line()
        if nxt is None or nxt.strip() == fence:
            return "\n".join(lines)
        lines.append(nxt.rstrip("\r\n"))


def _read_block_line() -> str | None:
    try:
        return input("... ")
    except EOFError:
        return None


def _answer(
    question: str, history: list[dict[str, str]], language: str, settings: Any, interactive: bool, plain: bool = False
) -> Any:
    """One reply: tool calls as they happen, then the answer rendered for the terminal (the details
    block as a "细节 / Details" section, never raw HTML), then the footer."""
    from assistant.advisor import stream

    result = None
    for event in stream(question, history=history, language=language, settings=settings):
        kind = event["type"]
        if kind == "tool_call" and interactive:
            click.echo(click.style(f"  → {tool_call_line(event['name'], event['args'])}", dim=True))
        elif kind == "final":
            result = event["result"]
    if result is not None:
        print_answer(result.answer, plain=plain)
    click.echo("")
    if result is not None:
        click.echo(click.style(format_footer(result), dim=True) if interactive else format_footer(result))
    click.echo("")
    return result


@click.command(help="对话 / Terminal conversation with history. " + HELP_TEXT)
@click.option(
    "--backend",
    type=BACKEND_CHOICE,
    default=None,
    help="offline（默认）或 openai；默认读 GPU_ADVISOR_BACKEND / default from env",
)
@click.option(
    "--lang", "language", type=LANG_CHOICE, default="auto", show_default=True, help="回答语言 / answer language"
)
@click.option("--plain", is_flag=True, help="纯文本（不排版）/ plain text, no terminal styling")
def command(backend: str | None, language: str, plain: bool) -> None:
    from assistant.settings import BackendSettings

    settings = BackendSettings.from_env(backend)
    interactive = sys.stdin.isatty()
    history: list[dict[str, str]] = []
    if interactive:
        click.echo(f"GPU Advisor · 算力顾问 ({settings.describe()})  {HELP_TEXT}")
    while True:
        line = _read_message(interactive)
        if line is None:
            break
        text = line.strip().lstrip("\ufeff")
        if not text:
            continue
        if text.startswith("/"):
            cmd, _, arg = text.partition(" ")
            cmd, arg = cmd.lower(), arg.strip().lower()
            if cmd in ("/exit", "/quit", "/q"):
                break
            if cmd == "/reset":
                history.clear()
                click.echo("已清空对话 / Conversation cleared.")
            elif cmd == "/lang" and arg in ("zh", "en", "auto"):
                language = arg
                click.echo(f"回答语言 / answer language: {language}")
            elif cmd == "/lang":
                click.echo("用法 / usage: /lang zh|en|auto")
            else:
                click.echo(HELP_TEXT)
            continue
        if not interactive:
            first, _, rest = text.partition("\n")
            click.echo(f"> {first}" + (f"  (+{rest.count(chr(10)) + 1} 行 / lines)" if rest else ""))
        result = _answer(text, history, language, settings, interactive, plain)
        if result is not None:
            history += [{"role": "user", "content": text}, {"role": "assistant", "content": result.answer}]
            del history[:-MAX_HISTORY_TURNS]
    if interactive:
        click.echo("再见 / Bye.")
