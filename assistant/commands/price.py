"""`gpu-advisor price GPU [--hours H | --days D | --months M] [--count N] [--json]` — rental price ranges (CNY)."""

from __future__ import annotations

import click

from assistant.commands._common import emit_json, print_table
from tools.fields import choices
from tools.prices import PriceInput as _In


def _money(x: float | None) -> str:
    if x is None:
        return "–"
    return f"¥{x:,.2f}" if x < 100 else f"¥{x:,.0f}"


@click.command(name="price")
@click.argument("gpu")
@click.option("--hours", type=float, default=None, help="租用小时数 / rental hours")
@click.option("--days", type=float, default=None, help="租用天数 / rental days")
@click.option("--months", type=float, default=None, help="租用月数（每月 720 小时）/ months (720 h)")
@click.option("--count", type=int, default=1, show_default=True, help="卡数 / number of cards")
@click.option(
    "--market",
    type=click.Choice(choices(_In, "market")),
    default=None,
    help="只看一种市场 / one market only",
)
@click.option(
    "--hourly", "hourly_quote", type=float, default=None, help="你拿到的每卡每小时报价 / your quote per card-hour (CNY)"
)
@click.option(
    "--monthly",
    "monthly_quote",
    type=float,
    default=None,
    help="你拿到的每卡每月报价 / your quote per card-month (CNY)",
)
@click.option(
    "--quotes",
    "quotes_file",
    type=str,
    default=None,
    help="报价文件 YAML/CSV（默认读环境变量 GPU_ADVISOR_QUOTES）/ your quotes file",
)
@click.option("--hours-per-day", type=float, default=None, help="每天开机小时数 / hours the machine runs per day")
@click.option("--days-per-week", type=float, default=7, show_default=True, help="每周使用天数 / days per week")
@click.option("--weeks", type=float, default=None, help="项目周数 / project length in weeks")
@click.option("--disk-gb", type=float, default=0, show_default=True, help="关机也计费的数据盘 GB / disk kept while off")
@click.option("--disk-price", type=float, default=None, help="数据盘 元/GB/天 / disk CNY per GB per day")
@click.option("--daily-quote", type=float, default=None, help="按日报价（元/卡/天）/ your per card-day quote")
@click.option("--weekly-quote", type=float, default=None, help="按周报价（元/卡/周）/ your per card-week quote")
@click.option("--spot-discount", type=float, default=None, help="抢占式折扣，如 0.5 / spot discount off hourly")
@click.option("--json", "as_json", is_flag=True, help="JSON output / 输出 JSON")
def command(
    gpu: str,
    hours: float | None,
    days: float | None,
    months: float | None,
    count: int,
    market: str | None,
    hourly_quote: float | None,
    monthly_quote: float | None,
    quotes_file: str | None,
    hours_per_day: float | None,
    days_per_week: float,
    weeks: float | None,
    disk_gb: float,
    disk_price: float | None,
    daily_quote: float | None,
    weekly_quote: float | None,
    spot_discount: float | None,
    as_json: bool,
) -> None:
    """租用价格区间（人民币）/ GPU rental price ranges in China (CNY).

    \b
    例 / e.g.  gpu-advisor price "A100 80G" --days 10 --count 8
               gpu-advisor price 4090 --months 3 --json
               gpu-advisor price H800 --hourly 9.5
               gpu-advisor price 4090 --hours-per-day 8 --days-per-week 5 --weeks 6 --disk-gb 200 --disk-price 0.01
    """
    from tools.errors import ToolInputError
    from tools.prices import PriceInput, gpu_price

    if sum(x is not None for x in (hours, days, months)) > 1:
        raise ToolInputError(
            "--hours、--days、--months 只能给一个", "Give only one of --hours, --days, --months", field="hours"
        )
    out = gpu_price(
        PriceInput(
            gpu=gpu,
            count=count,
            hours=hours,
            days=days,
            months=months,
            market=market,
            hourly_quote_cny=hourly_quote,
            monthly_quote_cny=monthly_quote,
            quotes_file=quotes_file,
            hours_per_day=hours_per_day if (hours_per_day is not None or weeks is not None) else None,
            days_per_week=days_per_week,
            weeks=weeks,
            disk_gb=disk_gb,
            disk_cny_per_gb_day=disk_price,
            daily_quote_cny=daily_quote,
            weekly_quote_cny=weekly_quote,
            spot_discount=spot_discount,
        )
    )
    if as_json:
        emit_json(out)
        return
    h, m, s = out.hourly_cny, out.monthly_cny, out.server_8card_monthly_cny
    rows = [
        ("每卡每小时 / per card-hour", _money(h.low), _money(h.typical), _money(h.high)),
        ("每卡每月 / per card-month", _money(m.low), _money(m.typical), _money(m.high)),
        ("8 卡整机每月 / 8-card server-month", _money(s.low), _money(s.typical), _money(s.high)),
    ]
    if out.total_cny:
        t = out.total_cny
        label = {"hourly": "按小时", "monthly": "包月"}[out.billing or "hourly"]
        rows.append(
            (
                f"合计 {out.count} 卡 × {out.period_hours:g} h（{label}）/ total",
                _money(t.low),
                _money(t.typical),
                _money(t.high),
            )
        )
        if out.alternative_total_cny:
            a = out.alternative_total_cny
            other = "按小时 / if hourly" if out.billing == "monthly" else "包月 / if monthly"
            rows.append((f"若改{other}", _money(a.low), _money(a.typical), _money(a.high)))
    print_table(
        f"{out.gpu_name} 租用价格 / rental price (CNY)",
        ["", "低 low", "典型 typical", "高 high"],
        rows,
        caption=f"as_of {out.as_of} · confidence {out.confidence} · 低=长租/批发 典型=租用平台 高=公有云按量",
    )
    if out.usage_plan:
        for o in out.usage_plan.options:
            click.echo(f"  {o.zh} / {o.en}: ¥{o.total_cny:,.0f}  = {o.arithmetic}")
    for line in out.advice:
        click.echo(f"• {line}")
    click.echo(f"⚠ {out.warning}")
    click.echo(f"来源 / source: {out.source}")
