"""`gpu-advisor diagnose [--json] [--expect SPEC] [FILE…|-]` — read pasted server output, say what is wrong.

With several files and --json: one JSON object per file, one per line, in order. A file that
cannot be read or diagnosed yields `{"file": ..., "error": {...}}` on its line and exit code 2.
"""

from __future__ import annotations

import sys

import click

from assistant.commands._common import EXIT_BAD_INPUT, emit_json
from tools.errors import ToolInputError

# Read at most this many bytes per file: 2,000,000 characters of UTF-8 Chinese can take ~6 MB.
MAX_READ_BYTES = 8_000_000


def _read_limited(name: str) -> bytes:
    """`-` = stdin. Stops reading past the limit so a huge file fails fast with the stated limit."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_READ_BYTES + 1)
    else:
        with open(name, "rb") as fh:
            data = fh.read(MAX_READ_BYTES + 1)
    if len(data) > MAX_READ_BYTES:
        raise ToolInputError(
            f"文件 {name} 太大；上限为 2 MB / 20,000 行文本。请只贴出错前后的部分。",
            f"{name} is too large; the limit is 2 MB / 20,000 lines of text. Paste only the part around the error.",
            field="file",
        )
    return data


COLOURS = {"critical": "bold red", "warning": "yellow", "info": "cyan", "ok": "green", "unknown": "magenta"}
LABEL = {
    "critical": "严重 critical",
    "warning": "警告 warning",
    "info": "提示 info",
    "ok": "正常 ok",
    "unknown": "未识别 unknown",
}
VERDICT_LABEL = {
    "move_machine": "换机器 / move machine",
    "ask_provider": "找服务商 / ask the provider",
    "fix_setup": "改你的配置 / fix your setup",
    "no_action": "无需处理 / no action",
    "need_more_input": "需要更多输出 / paste more",
}
REPORT_KEYS = ("kinds", "inventory", "xids", "severity", "findings", "next_action", "verdict", "incidents")


def _report_json(report, name: str | None) -> dict:
    data = report.model_dump(mode="json")
    out = {k: data[k] for k in REPORT_KEYS}
    out["findings"] = [
        {k: f[k] for k in ("id", "severity", "title", "evidence", "causes", "actions", "gpu_index", "bus_id")}
        for f in data["findings"]
    ]
    if data.get("acceptance") is not None:
        out["acceptance"] = data["acceptance"]
    if name is not None:
        out["file"] = name
    return out


def _inventory_line(inv) -> str:
    """What the paste showed about the machine; parts it did not show are left out, not '?'."""
    parts = []
    if inv.gpus:
        names = sorted({g.name for g in inv.gpus if g.name})
        parts.append(f"GPU: {len(inv.gpus)} × {', '.join(names)}" if names else f"GPU: {len(inv.gpus)}")
    if inv.driver_version:
        parts.append(f"驱动 / driver {inv.driver_version}")
    if inv.cuda_version:
        parts.append(f"CUDA ≤ {inv.cuda_version}")
    return "   ".join(parts)


def _print_human(report, name: str | None) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    con = Console()
    sev = report.severity
    head = f"[{COLOURS[sev]}]{LABEL[sev]}[/]  [bold]{VERDICT_LABEL.get(report.verdict, report.verdict)}[/]"
    if name:
        head = f"{escape(name)} · " + head
    con.print(head)
    # the renter's next step comes first, before any table
    con.print(
        f"[bold]下一步 / next:[/] {escape(report.next_action.zh)}\n               {escape(report.next_action.en)}"
    )
    kinds = ", ".join(report.kinds) or "—"
    con.print(f"检测到 / detected: {escape(kinds)}")
    if len(report.incidents) > 1:
        for inc in report.incidents[1:4]:
            con.print(
                f"  · [{COLOURS[inc.severity]}]{LABEL[inc.severity]}[/] {escape(inc.title.zh)} / {escape(inc.title.en)}"
            )
    line = _inventory_line(report.inventory)
    if line:
        con.print(escape(line))
    if report.findings:
        table = Table(show_lines=True, title_justify="left")
        table.add_column("级别 / level", no_wrap=True)
        table.add_column("发现 / finding", overflow="fold")
        table.add_column("证据 / evidence", overflow="fold", max_width=60)
        table.add_column("建议 / action", overflow="fold")
        for f in report.findings:
            table.add_row(
                f"[{COLOURS[f.severity]}]{LABEL[f.severity]}[/]",
                escape(f"{f.title.zh}\n{f.title.en}"),
                escape("\n".join(f.evidence[:3])),
                escape(f"{f.actions[0].zh}\n{f.actions[0].en}" if f.actions else ""),
            )
        con.print(table)
    if report.acceptance:
        t = Table(title="验收 / acceptance", title_justify="left")
        for col in ("检查 / check", "期望 / expected", "实际 / observed", "结果 / result"):
            t.add_column(col, overflow="fold")
        colour = {"pass": "green", "fail": "bold red", "unknown": "yellow"}
        for r in report.acceptance:
            t.add_row(escape(r.check), escape(r.expected), escape(r.observed), f"[{colour[r.status]}]{r.status}[/]")
        con.print(t)


@click.command(name="diagnose")
@click.argument("files", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="JSON output, one object per file per line / 输出 JSON")
@click.option(
    "--expect",
    "expect",
    default=None,
    metavar="SPEC",
    help='what was rented, e.g. "8x A100-SXM4-80GB" → pass/fail acceptance table / 验收：租的配置',
)
def command(files: tuple[str, ...], as_json: bool, expect: str | None) -> None:
    """诊断粘贴的日志 / Diagnose pasted nvidia-smi, dmesg, NCCL, nccl-tests, PyTorch … output.

    FILE may be `-` for standard input (the default when no FILE is given). Limit: 2 MB /
    20,000 lines per file.
    """
    from tools.diagnosis.acceptance import parse_expect
    from tools.diagnosis.tool import diagnose_text

    if expect is not None:
        parse_expect(expect)  # fail early, bilingual, exit 2
    if not files:
        if sys.stdin.isatty():
            raise ToolInputError(
                "请给出文件名，或用管道传入日志，例如 `nvidia-smi | gpu-advisor diagnose -`",
                "Give a FILE, or pipe the log in, e.g. `nvidia-smi | gpu-advisor diagnose -`",
            )
        files = ("-",)
    single = len(files) == 1
    failed = False
    for i, name in enumerate(files):
        try:
            report = diagnose_text(_read_limited(name), expect)
        except ToolInputError as exc:
            if single:
                raise
            failed = True
            if as_json:
                emit_json({"file": name, **exc.to_dict()})
            else:
                click.echo(f"错误 / Error: {name}: {exc.bilingual()}", err=True)
            continue
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            if single:
                raise ToolInputError(
                    f"无法读取文件 {name}", f"Cannot read file {name}: {exc.strerror}", field="file"
                ) from exc
            failed = True
            err = ToolInputError(f"无法读取文件 {name}", f"Cannot read file {name}: {exc.strerror}", field="file")
            if as_json:
                emit_json({"file": name, **err.to_dict()})
            else:
                click.echo(f"错误 / Error: {err.bilingual()}", err=True)
            continue
        if as_json:
            emit_json(_report_json(report, None if single else name))
        else:
            if i:
                click.echo()
            _print_human(report, None if single else name)
    if failed:
        sys.exit(EXIT_BAD_INPUT)


__all__ = ["command"]
