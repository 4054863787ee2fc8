"""`gpu-advisor gpus [NAME…] [--json]` — GPU specs, or a side-by-side table for 2–4 cards."""

from __future__ import annotations

from typing import Any

import click

from assistant.commands._common import emit_json, print_table


def _fmt(v: object) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool) or isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{int(v):,}" if v.is_integer() else f"{v:,}"
    return str(v)


def _nvlink(v: object) -> str:
    """0 GB/s of NVLink means the card has none (GeForce/PCIe cards): say so instead of printing 0."""
    return "无 none" if v == 0 else _fmt(v)


def gpu_json(spec: Any) -> dict[str, Any]:
    """The CLI contract fields first, then everything else from the table."""
    data = spec.model_dump(mode="json")
    head = {
        "id": spec.id,
        "name": spec.name,
        "memory_gb": spec.memory_gb,
        "reported_gb": spec.reported_gb,
        "mem_bw_gbs": spec.mem_bw_gbs,
        "bf16_dense_tflops": spec.bf16_dense_tflops,
        "fp8_dense_tflops": spec.fp8_dense_tflops,
        "nvlink_gbs": spec.nvlink_gbs_bidir,
        "nvlink_gbs_note": "bidirectional total per GPU / 双向合计",
        "pcie_gen": spec.pcie_gen,
        "tdp_w": spec.tdp_w,
        "source": spec.source,
        "as_of": spec.as_of,
        "confidence": spec.confidence,
    }
    for key in ("aliases", "nvidia_smi_names", "lookup_rank"):
        data.pop(key, None)
    return {**head, **{k: v for k, v in data.items() if k not in head}}


@click.command(name="gpus")
@click.argument("names", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="JSON output / 输出 JSON")
def command(names: tuple[str, ...], as_json: bool) -> None:
    """GPU 规格与对比 / GPU specs; 2–4 names → side-by-side.

    \b
    例 / e.g.  gpu-advisor gpus 4090 "A100 80G" H100
               gpu-advisor gpus "NVIDIA A100-SXM4-80GB" --json
    """
    from tools.gpus import GpuSpecsInput, all_gpus, gpu_specs

    if not names:
        specs = all_gpus()
        if as_json:
            emit_json({"gpus": [gpu_json(s) for s in specs]})
            return
        rows: list[tuple[str, ...]] = [
            (
                s.name.replace("NVIDIA ", "").replace("GeForce ", ""),
                _fmt(s.memory_gb),
                s.memory_type or "—",
                _fmt(s.mem_bw_gbs),
                _fmt(s.bf16_dense_tflops or s.fp16_dense_tflops),
                _fmt(s.fp8_dense_tflops),
                _nvlink(s.nvlink_gbs_bidir),
                _fmt(s.pcie_gen),
                _fmt(s.tdp_w),
                s.confidence,
            )
            for s in specs
        ]
        print_table(
            "GPU 规格表 / GPU table (dense TFLOPS; NVLink = bidirectional GB/s)",
            ["GPU", "GB", "type", "BW GB/s", "BF16", "FP8", "NVLink", "PCIe", "W", "confidence"],
            rows,
            caption=f"as_of {specs[0].as_of} · source: knowledge/gpus.yaml (per-row `source`) · V100/T4: FP16 shown",
        )
        return

    out = gpu_specs(GpuSpecsInput(names=list(names)))
    if as_json:
        emit_json(
            {
                "gpus": [gpu_json(s) for s in out.gpus],
                "comparison": [r.model_dump(mode="json") for r in out.comparison] if out.comparison else None,
                "ratios": out.ratios,
                "seed_notes": [n.model_dump(mode="json") for n in out.seed_notes],
                "notes": out.notes,
            }
        )
        return
    if out.comparison:
        cols = ["", *[s.name for s in out.gpus]]
        rows = []
        for r in out.comparison:
            show = _nvlink if r.field == "nvlink_gbs_bidir" else _fmt
            vals = [show(v) + (" ★" if i == r.best_index else "") for i, v in enumerate(r.values)]
            rows.append((f"{r.label_zh} / {r.label_en}", *vals))
        print_table("GPU 对比 / side by side (dense)", cols, rows)
    else:
        s = out.gpus[0]
        rows = [
            (f"{zh} / {en}", (_nvlink if f == "nvlink_gbs_bidir" else _fmt)(getattr(s, f)))
            for f, zh, en in [
                ("memory_gb", "显存 GB（标称）", "Memory GB (nominal)"),
                ("reported_gb", "驱动报告 GB", "Reported GB (driver)"),
                ("nvidia_smi_total_mib", "nvidia-smi MiB", "nvidia-smi MiB"),
                ("memory_type", "类型", "Type"),
                ("mem_bw_gbs", "带宽 GB/s", "BW GB/s"),
                ("fp32_tflops", "FP32", "FP32"),
                ("tf32_dense_tflops", "TF32 稠密", "TF32 dense"),
                ("bf16_dense_tflops", "BF16 稠密", "BF16 dense"),
                ("fp16_dense_tflops", "FP16 稠密", "FP16 dense"),
                ("bf16_fp16_sparse_tflops", "BF16/FP16 稀疏", "sparse"),
                ("fp8_dense_tflops", "FP8 稠密", "FP8 dense"),
                ("int8_dense_tops", "INT8 稠密 TOPS", "INT8 dense"),
                ("nvlink_gbs_bidir", "NVLink 双向 GB/s", "NVLink bidir GB/s"),
                ("pcie_gen", "PCIe", "PCIe gen"),
                ("tdp_w", "功耗 W", "TDP W"),
                ("form_factor", "形态", "Form"),
                ("architecture", "架构", "Arch"),
                ("release_year", "年份", "Year"),
                ("china_availability", "国内情况", "China"),
                ("confidence", "可信度", "Confidence"),
            ]
        ]
        print_table(s.name, ["", "value"], rows, caption=f"source: {s.source} · as_of {s.as_of}")
    for note in out.notes:
        click.echo(f"• {note}")
    for g in out.gpus:
        if g.caveat:
            click.echo(f"• {g.name}: {g.caveat}")
        if g.reliability:
            click.echo(f"• {g.name} 可靠性 / reliability: {g.reliability}")
    for n in out.seed_notes:
        click.echo(f"• 常见说法的更正 / correction to a common claim [{n.id}]: {n.zh}\n  {n.en}")
