"""`gpu-advisor ask` — one question (or one per stdin line) → an answer with its tool calls and sources.

Kept light to import: the advisor (and with it langchain) loads only when a question is asked;
`langchain_openai` only on the openai back-end.
"""

from __future__ import annotations

import contextlib
import gc
import json
import re
import sys
from typing import Any, Iterator

import click

from assistant.commands._common import emit_json, fail

BACKEND_CHOICE = click.Choice(["offline", "openai"], case_sensitive=False)
LANG_CHOICE = click.Choice(["auto", "zh", "en"], case_sensitive=False)


def _short(value: Any, limit: int = 40) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tool_call_line(name: str, args: dict[str, Any], result: dict[str, Any] | None = None) -> str:
    """`estimate_memory(model=7B, gpu=4090)` plus `✗ error` when the tool rejected the input."""
    inner = ", ".join(f"{k}={_short(v)}" for k, v in (args or {}).items())
    line = f"{name}({inner})"
    if isinstance(result, dict) and isinstance(result.get("error"), dict):
        line += f"  ✗ {result['error'].get('zh', '')} / {result['error'].get('en', '')}"
    return line


def format_footer(result: Any) -> str:
    """The compact tool list printed under an answer for people; the sources too, but only when the
    answer does not end with its own sources line (they are shown once, issue 16)."""
    from assistant.answer_shape import has_sources

    lines: list[str] = []
    if result.tool_calls:
        lines.append("工具 / Tools:")
        lines += [f"  · {tool_call_line(c.name, c.args, c.result)}" for c in result.tool_calls]
    if result.citations and not has_sources(result.answer):
        lines.append("来源 / Sources:")
        for c in result.citations:
            where = f" § {c.section}" if c.section else ""
            lines.append(f"  · {c.doc_id}{where}" + (f" — {c.title}" if c.title else ""))
    meta = f"后端 / backend: {result.backend} · {result.latency_ms:.0f} ms"
    if not result.grounded:
        meta += " · 数字未全部核实 / not all numbers verified"
    lines.append(meta)
    return "\n".join(lines)


def print_answer(answer: str, plain: bool = False) -> None:
    """The answer for a terminal: rich Markdown (bold, lists, code, the details block as a
    "细节 / Details" section); `plain` prints the same text as Markdown source, no styling."""
    from assistant.answer_shape import for_terminal

    text = for_terminal(answer)
    if plain:
        click.echo(text)
        return
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console(soft_wrap=False)
    with console.capture() as captured:
        console.print(Markdown(text, code_theme="ansi_dark", justify="default", hyperlinks=False))
    # rich pads list items and headings to the full width; trailing blanks only hurt copy-paste
    click.echo(_TRAILING_BLANKS.sub(r"\1", captured.get()).rstrip("\n"), color=console.is_terminal or None)


def _stdin_lines() -> Iterator[str]:
    from tools.textcodec import decode_text

    for raw in sys.stdin.buffer:
        line = decode_text(raw).strip().lstrip("\ufeff")
        if line:
            yield line


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while LangChain loads and one question is answered.

    WHY: the collector re-scans the ~120,000 objects that importing LangChain/langsmith/pydantic
    leaves (271 young and 2 full collections), ~0.12 s of CPU, about a tenth of a cold `ask`
    (issue 16), for a process that exits right after its one answer; paused, it costs ~4 MB more
    peak memory. The previous state comes back afterwards (in-process callers, `ask -`)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_TEXT_MARK = "\x00"
_TRAILING_BLANKS = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$", re.M)


class _QuestionCommand(click.Command):
    """A word like "-3B" or "-1" is part of the question ("-3B 模型能训练吗"), not an unknown option;
    mistyped options (`--jsn`) still get click's usage error."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        args = [_TEXT_MARK + a if re.match(r"^-[\d.]", a) else a for a in args]
        return super().parse_args(ctx, args)


@click.command(
    help="提问 / Ask one question. QUESTION 为 `-` 时从标准输入逐行读取问题，逐行输出 JSON。\n\n"
    "With `-`, reads one question per line from stdin and prints one JSON object per line.",
    cls=_QuestionCommand,
)
@click.argument("question", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="输出 JSON / print AskResult as JSON")
@click.option("--plain", is_flag=True, help="纯文本（不排版）/ plain text, no terminal styling")
@click.option(
    "--backend",
    type=BACKEND_CHOICE,
    default=None,
    help="offline（默认）或 openai；默认读 GPU_ADVISOR_BACKEND / default from env",
)
@click.option(
    "--lang", "language", type=LANG_CHOICE, default="auto", show_default=True, help="回答语言 / answer language"
)
def command(question: tuple[str, ...], as_json: bool, plain: bool, backend: str | None, language: str) -> None:
    text = " ".join(q.removeprefix(_TEXT_MARK) for q in question).strip()
    with _collector_paused():
        from assistant.advisor import ask
        from assistant.settings import BackendSettings

        settings = BackendSettings.from_env(backend)
        if text != "-":
            if not text:
                fail("问题是空的", "The question is empty")
            result = ask(text, language=language, settings=settings)
            if as_json:
                emit_json(result)
                return
            print_answer(result.answer, plain=plain)
            click.echo("")
            click.echo(format_footer(result))
            return
    # `-`: one question per line, for as long as stdin lasts; the collector runs as usual
    for line in _stdin_lines():
        emit_json(ask(line, language=language, settings=settings))
        sys.stdout.flush()
