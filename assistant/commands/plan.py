"""`gpu-advisor plan --model … --mode … [--tokens 1B] [--deadline 7d] [--budget 50000] [--json]` — ranked configurations."""

from __future__ import annotations

import click

from assistant.commands._common import emit_json, print_table
from tools.fields import choices
from tools.planner import PlanInput as _In


def option_json(o) -> dict:
    """The CLI contract keys first (gpu, count, nodes, interconnect, fits, per_gpu_gb, days, cost_cny, notes)."""
    data = o.model_dump(mode="json")
    head = {
        k: data.pop(k)
        for k in ("gpu", "count", "nodes", "interconnect", "fits", "per_gpu_gb", "days", "cost_cny", "notes")
    }
    return {**head, **data}


@click.command(name="plan")
@click.option("--model", default=None, help="模型名或大小 / model name or size ('qwen2.5-7b', '7B', '70亿')")
@click.option(
    "--params", "params_b", default=None, help="参数量 / parameters ('7B', '70亿'; a bare number is billions)"
)
@click.option("--mode", type=click.Choice(choices(_In, "mode")), default="full", show_default=True)
@click.option("--tokens", default=None, help="训练 token 数 / training tokens ('1B', '1万亿')")
@click.option("--samples", type=float, default=None, help="样本数（× --seq-len × --epochs）/ samples")
@click.option("--epochs", type=float, default=1.0, show_default=True)
@click.option("--seq-len", type=int, default=2048, show_default=True, help="序列长度 / sequence length")
@click.option("--deadline", default=None, help="截止时间 / deadline ('7d', '一周', '48h')")
@click.option("--budget", default=None, help="预算（元）/ budget in CNY (50000, '5万')")
@click.option("--gpu", "gpus", multiple=True, help="只考虑这些卡，可重复 / only these GPUs (repeatable)")
@click.option("--exclude", multiple=True, help="排除这些卡 / exclude GPUs (repeatable)")
@click.option("--max-gpus", type=int, default=64, show_default=True)
@click.option("--concurrency", type=int, default=8, show_default=True, help="推理并发 / serving concurrency")
@click.option("--context", type=int, default=4096, show_default=True, help="推理上下文 / serving context tokens")
@click.option("--precision", type=click.Choice(choices(_In, "precision")), default="bf16", show_default=True)
@click.option("--quotes", "quotes_file", default=None, help="你的报价文件 / your quotes file (YAML/CSV)")
@click.option("--top", type=int, default=8, show_default=True)
@click.option(
    "--market",
    type=click.Choice(choices(_In, "market")),
    default="any",
    show_default=True,
    help="租用渠道 / where you rent (AutoDL 类平台、公有云、IDC 整机长租)",
)
@click.option(
    "--objective",
    type=click.Choice(choices(_In, "objective")),
    default=None,
    help="排序目标 / ranking objective (default: inferred)",
)
@click.option(
    "--input-tokens", type=int, default=1024, show_default=True, help="推理每请求输入 / serving prompt tokens"
)
@click.option(
    "--output-tokens", type=int, default=256, show_default=True, help="推理每请求输出 / serving output tokens"
)
@click.option("--json", "as_json", is_flag=True, help="JSON output / 输出 JSON")
def command(
    model,
    params_b,
    mode,
    tokens,
    samples,
    epochs,
    seq_len,
    deadline,
    budget,
    gpus,
    exclude,
    max_gpus,
    concurrency,
    context,
    precision,
    quotes_file,
    top,
    market,
    objective,
    input_tokens,
    output_tokens,
    as_json,
) -> None:
    """配置方案排名 / ranked rental configurations for a job.

    \b
    例 / e.g.  gpu-advisor plan --model qwen2.5-7b --mode full --tokens 1B --deadline 7d --budget 50000
               gpu-advisor plan --model 70B --mode lora --tokens 200M --json
               gpu-advisor plan --model qwen2.5-7b --mode inference --concurrency 32 --context 8192
    """
    from tools.planner import PlanInput, plan_configurations
    from tools.quantities import parse_param_count

    # "7", "7B", "70亿" all mean 7 billion, as in `gpu-advisor estimate --params`
    params_b = parse_param_count(params_b, field="params") / 1e9 if params_b is not None else None

    def _num(v: str | None) -> str | float | None:
        if v is None:
            return None
        try:
            return float(v)
        except ValueError:
            return v

    out = plan_configurations(
        PlanInput(
            model=model,
            params_b=params_b,
            mode=mode,
            tokens=_num(tokens),
            samples=samples,
            epochs=epochs,
            seq_len=seq_len,
            deadline=deadline,
            budget=_num(budget),
            gpus=list(gpus) or None,
            exclude=list(exclude) or None,
            max_gpus=max_gpus,
            concurrency=concurrency,
            context=context,
            precision=precision,
            quotes_file=quotes_file,
            top=top,
            market=market,
            objective=objective,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
        )
    )
    if as_json:
        data = out.model_dump(mode="json")
        data["options"] = [option_json(o) for o in out.options]
        data["infeasible"] = [option_json(o) for o in out.infeasible]
        emit_json(data)
        return
    serving = mode == "inference"
    rows = []
    for o in out.options:
        days = f"{o.days.low:.1f}–{o.days.high:.1f}" if o.days else "–"
        cost = f"¥{o.cost_cny.low:,.0f}–{o.cost_cny.high:,.0f}" if o.cost_cny else "–"
        extra = f"{o.decode_tokens_per_s.mid:,.0f} tok/s" if o.decode_tokens_per_s else days
        if serving and o.cost_per_mtok_cny:
            extra += f" ¥{o.cost_per_mtok_cny.mid:.2f}/M"
        rows.append(
            (
                o.rank,
                f"{o.count}× {o.gpu_name.replace('NVIDIA ', '')}" + (" ▣" if o.rent_unit == "server_8" else ""),
                o.nodes,
                f"{o.per_gpu_gb:.1f}/{o.gpu_memory_gb:g}",
                extra,
                cost,
            )
        )
    # Long bilingual text (interconnect, why) goes below the table, one line per option, so the
    # table stays readable in an 80-column terminal.
    print_table(
        f"{out.model} · {mode} 配置方案 / ranked configurations",
        [
            "#",
            "GPU",
            "节点 nodes",
            "GB/卡 GPU",
            "tok/s" if serving else "天 days",
            "元/月 CNY/month" if serving else "元 CNY",
        ],
        rows,
    )
    for o in out.options:
        click.echo(f"  #{o.rank} {o.interconnect}")
        click.echo(f"      {o.why}")
    click.echo("  ▣ = 只能整台 8 卡服务器租 / whole 8-GPU servers only")
    click.echo(f"• {out.objective_reason}")
    click.echo(f"• {out.summary['zh']}\n  {out.summary['en']}")
    if out.infeasible:
        click.echo("不可行或受限的选项 / infeasible or constrained:")
        for o in out.infeasible:
            click.echo(f"  ✗ {o.count}× {o.gpu_name}: {o.why}")
    for o in out.options[:3]:
        for n in o.notes:
            click.echo(f"  · #{o.rank}: {n}")
        if o.billing:
            click.echo(f"  · #{o.rank}: {o.billing}")
    for a in out.assumptions:
        click.echo(f"• {a}")
    click.echo(f"⚠ {out.warning}")
