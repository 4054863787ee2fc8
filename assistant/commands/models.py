"""`gpu-advisor models [QUERY]` — list the model catalog or look one model up."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from tools.models import ModelEntry


def _norm(name: str) -> str:
    return name.lower().replace(" ", "").replace("-", "")


def _is_family(query: str, catalog: Iterable[ModelEntry]) -> bool:
    """True when QUERY names a whole family ("qwen", "DeepSeek"), not one model."""
    return _norm(query) in {_norm(e.family) for e in catalog}


@click.command("models", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("query", required=False)
@click.option("--family", default=None, help="只列出某个系列 / only one family (Qwen, Llama, DeepSeek …)")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON / print JSON")
def command(query, family, as_json) -> None:
    """模型目录：列出全部模型，或查询一个模型的架构与参数量。

    List the catalog, or look up one model ('qwen2.5 7b', 'deepseek r1', '7B', ./config.json).
    """
    from tools.models import LookupModelInput, count_params, load_catalog, lookup_model

    if query and not family and _is_family(query, load_catalog()):
        family, query = query, None  # "models qwen" lists the family instead of failing the lookup
    if query:
        out = lookup_model(LookupModelInput(query=query))
        if as_json:
            from assistant.commands._common import emit_json

            emit_json(out)
            return
        from assistant.commands._common import print_table

        a = out.architecture
        rows = [
            ("参数量 Params", f"{out.params:,} ({out.params_b:g}B)"),
            ("激活参数 Active params", f"{out.active_params:,}" if out.is_moe else "—"),
            ("官方数字 Published", out.params_published or "—"),
            ("系列 Family", out.family or "—"),
            (
                "权重精度 Weights",
                (out.weights_precision or "—")
                + (
                    f" (官方发布 shipped {out.shipped_precision})"
                    if out.shipped_precision and out.shipped_precision != out.weights_precision
                    else ""
                ),
            ),
            ("层数 Layers", a.num_layers),
            ("隐藏维度 Hidden", a.hidden_size),
            ("注意力头 / KV 头 Heads / KV heads", f"{a.num_heads} / {a.num_kv_heads}"),
            ("head_dim", a.head_dim),
            ("FFN", a.intermediate_size),
            ("词表 Vocab", a.vocab_size),
            ("共享嵌入 Tied embeddings", a.tie_word_embeddings),
        ]
        if a.is_moe:
            rows.append(
                (
                    "专家 Experts",
                    f"{a.num_experts} (top-{a.experts_per_token}, shared {a.num_shared_experts}, "
                    f"width {a.moe_intermediate_size})",
                )
            )
        if a.is_mla:
            rows.append(("MLA", f"kv_lora_rank {a.kv_lora_rank}, rope {a.qk_rope_head_dim}"))
        if a.sliding_window:
            rows.append(("滑动窗口 Sliding window", f"{a.sliding_window} on {a.windowed_layers} layers"))
        rows += [
            ("KV/token (16-bit)", f"{out.kv_bytes_per_token_fp16:,} B"),
            ("bf16 权重 weights", f"{out.weights_bf16_gb:.2f} GB"),
            ("来源 Source", out.source or "—"),
        ]
        print_table(f"{out.name} ({out.kind})", ["字段 Field", "值 Value"], rows)
        for item in out.assumptions:
            click.echo(f"  - {item['zh']} / {item['en']}")
        return

    listing: list[dict[str, Any]] = []
    for e in load_catalog():
        if family and _norm(e.family) != _norm(family):
            continue
        pc = count_params(e.arch)
        listing.append(
            {
                "id": e.id,
                "family": e.family,
                "hf_repo": e.hf_repo,
                "params": pc.total,
                "active_params": pc.active,
                "params_published": e.params_published,
                "layers": e.arch.num_layers,
                "hidden": e.arch.hidden_size,
                "kv_heads": e.arch.num_kv_heads,
                "moe": e.arch.is_moe,
                "mla": e.arch.is_mla,
                "shipped_precision": e.shipped_precision,
                "aliases": e.aliases,
                "releases": [r.model_dump(exclude_none=True) for r in e.releases],
                "source": e.source,
                "as_of": e.as_of,
            }
        )
    if as_json:
        from assistant.commands._common import emit_json

        emit_json({"count": len(listing), "models": listing})
        return
    from assistant.commands._common import print_table

    print_table(
        f"模型目录 Model catalog ({len(listing)})",
        ["id", "family", "params", "layers", "hidden", "kv heads", "MoE/MLA", "dtype"],
        [
            (
                r["id"],
                r["family"],
                f"{r['params'] / 1e9:.2f}B" + (f" (A{r['active_params'] / 1e9:.1f}B)" if r["moe"] else ""),
                r["layers"],
                r["hidden"],
                r["kv_heads"],
                "/".join(x for x, on in (("MoE", r["moe"]), ("MLA", r["mla"])) if on) or "—",
                r["shipped_precision"] or "—",
            )
            for r in listing
        ],
    )
