"""`gpu-advisor train-time` — FLOPs, GPU-hours, wall time and cost for a training run."""

from __future__ import annotations

import click

from assistant.commands._common import emit_json, print_table
from tools.fields import choices
from tools.train_time import TrainTimeInput as _In


@click.command(name="train-time")
@click.option("--model", default=None, help="模型名 / model name ('qwen2.5-7b')")
@click.option(
    "--params", "params_b", default=None, help="参数量 / parameters ('7B', '70亿'; a bare number is billions)"
)
@click.option(
    "--active-params", "active_params_b", default=None, help="MoE 激活参数 / MoE active params ('37B'; bare = billions)"
)
@click.option("--tokens", default=None, help="训练 token 数 / training tokens ('1B', '2e12', '1万亿')")
@click.option("--samples", type=float, default=None, help="样本数 / samples (with --seq-len)")
@click.option("--seq-len", type=int, default=None, help="每条样本 token 数 / tokens per sample")
@click.option("--epochs", type=float, default=1.0, show_default=True, help="轮数 / epochs")
@click.option("--gpu", required=True, help="GPU 型号 / GPU name")
@click.option("--gpus", "n_gpus", type=int, default=1, show_default=True, help="GPU 数 / number of GPUs")
@click.option("--nodes", type=int, default=1, show_default=True, help="服务器数 / servers")
@click.option("--mode", type=click.Choice(choices(_In, "mode")), default="full", show_default=True)
@click.option("--precision", type=click.Choice(choices(_In, "precision")), default="bf16", show_default=True)
@click.option("--tf32", "tf32_enabled", is_flag=True, help="FP32 时已开启 TF32 / TF32 enabled with fp32")
@click.option("--fp8-framework", is_flag=True, help="框架真正跑 FP8（如 Transformer Engine）/ stack runs FP8")
@click.option("--recompute", type=click.Choice(choices(_In, "recompute")), default="none", show_default=True)
@click.option("--mfu", type=float, default=None, help="指定 MFU（0–1）/ fixed MFU")
@click.option("--topology", default=None, help="机内互联 / intra-node: auto, nvswitch, pcie, nvlink_bridge")
@click.option("--network", default=None, help="机间网络 / inter-node network ('IB HDR', 'RoCE 100G')")
@click.option("--zero3", is_flag=True, help="ZeRO-3 / FSDP 全分片 / full sharding")
@click.option(
    "--strategy",
    type=click.Choice(choices(_In, "strategy")),
    default=None,
    help="数据并行策略（通信量）/ data-parallel strategy for the communication term",
)
@click.option(
    "--micro-batch-tokens", type=int, default=2048, show_default=True, help="每卡每个 micro-batch 的 token 数"
)
@click.option(
    "--hourly", "hourly_price_cny", type=float, default=None, help="每卡每小时报价 / your quote per GPU-hour (CNY)"
)
@click.option("--quotes", "quotes_file", default=None, help="报价文件 / quotes file (YAML/CSV)")
@click.option("--json", "as_json", is_flag=True, help="JSON output / 输出 JSON")
def command(
    model,
    params_b,
    active_params_b,
    tokens,
    samples,
    seq_len,
    epochs,
    gpu,
    n_gpus,
    nodes,
    mode,
    precision,
    tf32_enabled,
    fp8_framework,
    recompute,
    mfu,
    topology,
    network,
    zero3,
    strategy,
    micro_batch_tokens,
    hourly_price_cny,
    quotes_file,
    as_json,
) -> None:
    """训练时长与费用 / training time and cost.

    \b
    例 / e.g.  gpu-advisor train-time --model qwen2.5-7b --tokens 1B --gpu "A100 80G" --gpus 8
               gpu-advisor train-time --params 7 --tokens 2e12 --gpu A100 --gpus 1024 --mode pretrain --json
    """
    from tools.quantities import parse_param_count
    from tools.train_time import TrainTimeInput, estimate_training_time

    # "7", "7B", "70亿" all mean 7 billion, as in `gpu-advisor estimate --params`
    params_b = parse_param_count(params_b, field="params") / 1e9 if params_b is not None else None
    active_params_b = (
        parse_param_count(active_params_b, field="active_params") / 1e9 if active_params_b is not None else None
    )
    try:
        tok: str | float | None = float(tokens) if tokens is not None else None
    except ValueError:
        tok = tokens
    out = estimate_training_time(
        TrainTimeInput(
            model=model,
            params_b=params_b,
            active_params_b=active_params_b,
            tokens=tok,
            samples=samples,
            seq_len=seq_len,
            epochs=epochs,
            gpu=gpu,
            n_gpus=n_gpus,
            nodes=nodes,
            mode=mode,
            precision=precision,
            tf32_enabled=tf32_enabled,
            fp8_framework=fp8_framework,
            recompute=recompute,
            mfu=mfu,
            topology=topology,
            network=network,
            zero3=zero3,
            strategy=strategy,
            micro_batch_tokens=micro_batch_tokens,
            hourly_price_cny=hourly_price_cny,
            quotes_file=quotes_file,
        )
    )
    if as_json:
        emit_json(out)
        return
    rows = [
        (
            "MFU（纯计算）/ compute-only" if out.mfu_effective else "MFU",
            f"{out.mfu.high:.0%}",
            f"{out.mfu.mid:.0%}",
            f"{out.mfu.low:.0%}",
        ),
        *(
            [
                (
                    "有效 MFU（含通信）/ effective",
                    f"{out.mfu_effective.high:.0%}",
                    f"{out.mfu_effective.mid:.0%}",
                    f"{out.mfu_effective.low:.0%}",
                )
            ]
            if out.mfu_effective
            else []
        ),
        (
            "GPU 小时 / GPU-hours",
            f"{out.gpu_hours.low:,.0f}",
            f"{out.gpu_hours.mid:,.0f}",
            f"{out.gpu_hours.high:,.0f}",
        ),
        (
            "墙钟小时 / wall hours",
            f"{out.wall_hours.low:,.1f}",
            f"{out.wall_hours.mid:,.1f}",
            f"{out.wall_hours.high:,.1f}",
        ),
        ("天 / days", f"{out.days.low:,.2f}", f"{out.days.mid:,.2f}", f"{out.days.high:,.2f}"),
    ]
    if out.cost_cny:
        rows.append(
            (
                "费用 / cost (CNY)",
                f"¥{out.cost_cny.low:,.0f}",
                f"¥{out.cost_cny.mid:,.0f}",
                f"¥{out.cost_cny.high:,.0f}",
            )
        )
    print_table(
        f"{out.n_gpus} × {out.gpu_name} · {out.flops:.3g} FLOPs · {out.precision_used} {out.peak_tflops_per_gpu:g} TFLOPS/GPU",
        ["", "快 fast", "中 mid", "慢 slow"],
        rows,
        caption=f"MFU: {out.mfu_source[:120]}",
    )
    if out.comm:
        click.echo(f"• {out.comm.note}")
    for w in out.warnings:
        click.echo(f"⚠ {w}")
    for n in out.notes:
        click.echo(f"• {n}")
    if out.cost_cny_by_market:
        click.echo(
            "• 按市场（中值时长）/ by market (mid time): "
            + ", ".join(f"{k} ¥{v:,.0f}" for k, v in out.cost_cny_by_market.items())
        )
