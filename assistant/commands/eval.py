"""`gpu-advisor eval` — run the scored eval suite against the advisor (offline or an LLM)."""

from __future__ import annotations

import sys

import click

from assistant.settings import BACKENDS
from tools.errors import ToolInputError


@click.command(name="eval")
@click.option(
    "--backend",
    type=click.Choice(BACKENDS),
    default=None,
    help="offline（默认）或 OpenAI 兼容接口 / offline (default) or an OpenAI-compatible endpoint",
)
@click.option(
    "--cases",
    "cases_path",
    type=click.Path(exists=True),
    default=None,
    help="用例目录或 YAML 文件 / case directory or YAML file (default: evals/cases)",
)
@click.option("--json", "as_json", is_flag=True, help="输出一个 JSON 对象 / print one JSON object")
@click.option(
    "--report",
    "report_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="写出 Markdown 和 JSON 报告的目录 / write Markdown + JSON reports here",
)
@click.option(
    "--min-pass-rate",
    type=float,
    default=0.95,
    show_default=True,
    help="低于此通过率时退出码为 1 / exit 1 below this pass rate",
)
@click.option("--category", "categories", multiple=True, help="只跑这些类别 / only these categories (repeatable)")
@click.option("--id", "case_ids", multiple=True, help="只跑这些用例 / only these case ids (repeatable)")
@click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="并发用例数（LLM 后端时有用）/ cases in flight at once (useful with an LLM back-end)",
)
@click.option("--no-progress", is_flag=True, help="不显示进度条 / hide the progress bar")
@click.option(
    "--ask-fn",
    default=None,
    hidden=True,
    help="module:function to call instead of assistant.advisor.ask (tests, other agents)",
)
def command(
    backend: str | None,
    cases_path: str | None,
    as_json: bool,
    report_dir: str | None,
    min_pass_rate: float,
    categories: tuple[str, ...],
    case_ids: tuple[str, ...],
    concurrency: int,
    no_progress: bool,
    ask_fn: str | None,
) -> None:
    """评测：逐条提问并核对数字、工具、引用与语言 / Run the eval suite and score every answer."""
    from evals.runner import markdown_report, run_suite, write_reports
    from evals.schema import CATEGORIES, load_cases

    if not 0.0 <= min_pass_rate <= 1.0:
        raise ToolInputError(
            "--min-pass-rate 必须在 0 到 1 之间", "--min-pass-rate must be between 0 and 1", field="min_pass_rate"
        )
    unknown = [c for c in categories if c not in CATEGORIES]
    if unknown:
        raise ToolInputError(
            f"未知类别：{', '.join(unknown)}",
            f"unknown category: {', '.join(unknown)}",
            field="category",
            suggestions=list(CATEGORIES),
        )
    try:
        cases = load_cases(cases_path)
    except ValueError as exc:
        raise ToolInputError(f"用例文件有误：{exc}", f"bad case file: {exc}", field="cases") from exc
    if categories:
        cases = [c for c in cases if c.category in categories]
    if case_ids:
        cases = [c for c in cases if c.id in case_ids]
    if not cases:
        raise ToolInputError("没有匹配的用例", "no cases match the filters", field="cases")
    try:
        fn = _load_ask(ask_fn)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ToolInputError(f"顾问模块不可用：{exc}", f"the advisor is not available: {exc}") from exc

    report = run_suite(
        cases,
        ask_fn=fn,
        backend=backend,
        concurrency=concurrency,
        progress=not no_progress,
        cases_path=cases_path or "evals/cases",
    )
    summary = report.to_dict(questions={c.id: c.final_question() for c in cases})
    if report_dir:
        j, m = write_reports(summary, report_dir)
        click.echo(f"报告 / reports: {m} · {j}", err=True)
    if as_json:
        from assistant.commands._common import emit_json

        emit_json(summary)
    else:
        _print_human(summary, markdown_report)
    if summary["pass_rate"] < min_pass_rate:
        click.echo(f"通过率 {summary['pass_rate']:.1%} 低于 {min_pass_rate:.0%} / pass rate below threshold", err=True)
        sys.exit(1)


def _load_ask(target: str | None):
    """The advisor's ask(), or another callable with the same signature given as module:function."""
    if not target:
        from evals.runner import default_ask

        return default_ask()
    import importlib

    module, _, attr = target.partition(":")
    if not attr:
        raise ValueError(f"--ask-fn wants module:function, got {target!r}")
    return getattr(importlib.import_module(module), attr)


def _print_human(summary: dict, markdown_report) -> None:
    from assistant.commands._common import print_table

    rows = [(k, v["passed"], v["total"], f"{v['pass_rate']:.1%}") for k, v in summary["by_category"].items()]
    print_table("按类别 / by category", ["category", "passed", "total", "rate"], rows)
    rows = [(k, v["passed"], v["total"], f"{v['pass_rate']:.1%}") for k, v in summary["by_language"].items()]
    print_table("按语言 / by language", ["language", "passed", "total", "rate"], rows)
    for f in summary["failures"][:40]:
        first = f["failed_checks"][0] if f["failed_checks"] else {"check": "?", "expected": "", "got": ""}
        click.echo(
            f"✗ {f['id']} [{f['category']}/{f['language']}] {first['check']}: "
            f"expected {first['expected']} · got {str(first['got'])[:160]}"
        )
    if len(summary["failures"]) > 40:
        click.echo(f"… {len(summary['failures']) - 40} more (use --report DIR)")
    lat = summary["latency_ms"]
    click.echo(
        f"通过 / passed {summary['passed']}/{summary['total']} = {summary['pass_rate']:.1%} · "
        f"latency p50 {lat['p50']} ms, p95 {lat['p95']} ms · backend {summary['backend']}"
    )
