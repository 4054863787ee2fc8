"""`gpu-advisor checklist [--gpus 8 --model "A100 80GB SXM"]` — print the delivery-acceptance bash script."""

from __future__ import annotations

import click

from assistant.commands._common import emit_json


@click.command(name="checklist")
@click.option("--gpus", type=click.IntRange(1, 64), default=8, show_default=True, help="GPUs rented / 租的 GPU 数量")
@click.option("--model", default=None, help='GPU model rented, e.g. "A100 80GB SXM" / 租的型号')
@click.option(
    "--output",
    "output_file",
    default="gpu_acceptance.txt",
    show_default=True,
    help="file the script saves its output to / 结果保存到的文件",
)
@click.option("--json", "as_json", is_flag=True, help="JSON with the script, steps and the --expect value")
def command(gpus: int, model: str | None, output_file: str, as_json: bool) -> None:
    """验收脚本 / Print a bash script that checks a rented GPU server and saves everything to one file.

    Run it on the server (`bash gpu_acceptance.sh`), then verify with
    `gpu-advisor diagnose --expect "8x MODEL" gpu_acceptance.txt`.
    """
    from tools.diagnosis.checklist import build_checklist

    out = build_checklist(gpus, model, output_file)
    if as_json:
        emit_json(out)
    else:
        click.echo(out.script, nl=False)
