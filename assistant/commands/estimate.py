"""`gpu-advisor estimate` — GPU memory per GPU, as a table for people or JSON for machines.

Imports only click, pydantic and the sizing tools (no torch/langchain/gradio/chromadb), so it
starts fast: see benchmarks/bench_cold_start.py.
"""

from __future__ import annotations

import click

from tools.fields import choices
from tools.memory import EstimateMemoryInput as _In

# `--offload all|params` are older spellings the model's synonyms map onto optimizer_and_params.
_OFFLOAD = [*choices(_In, "offload"), "all", "params"]


@click.command("estimate", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--model",
    "-m",
    "model",
    default=None,
    help="模型名称 / model name, e.g. 'qwen2.5 7b', 'Llama-3-8B', or a config.json path",
)
@click.option("--params", "-p", "params", default=None, help="参数量 / parameter count: 7B, 1.5b, 70亿, 百亿")
@click.option(
    "--mode",
    type=click.Choice(choices(_In, "mode"), case_sensitive=False),
    default="full",
    show_default=True,
    help="全量 / full, lora, qlora, 推理 / inference",
)
@click.option(
    "--precision",
    type=click.Choice(choices(_In, "precision"), case_sensitive=False),
    default="bf16",
    show_default=True,
    help="训练精度或推理权重精度 / training dtype or inference weight dtype",
)
@click.option(
    "--optimizer",
    type=click.Choice(choices(_In, "optimizer"), case_sensitive=False),
    default="adamw",
    show_default=True,
    help="adamw = 混合精度 fp32 主权重 / mixed precision with fp32 master (16 B/param)",
)
@click.option(
    "--gpus",
    type=int,
    default=1,
    show_default=True,
    help="卡数（训练=数据并行，推理=张量并行）/ GPUs (DP for training, TP for inference)",
)
@click.option("--zero", type=click.IntRange(0, 3), default=0, show_default=True, help="DeepSpeed ZeRO 阶段 / stage 0–3")
@click.option(
    "--fsdp",
    type=click.Choice(choices(_In, "fsdp"), case_sensitive=False),
    default="none",
    is_flag=False,
    flag_value="full_shard",
    help="FSDP 分片策略（单独写 --fsdp 即 full_shard）/ FSDP strategy (bare --fsdp = full_shard)",
)
@click.option(
    "--offload",
    type=click.Choice(_OFFLOAD, case_sensitive=False),
    default="none",
    is_flag=False,
    flag_value="optimizer",
    help="CPU 卸载（单独写 --offload 即 optimizer）/ CPU offload (bare --offload = optimizer)",
)
@click.option("--seq-len", type=int, default=2048, show_default=True, help="训练序列长度 / training sequence length")
@click.option("--batch", type=int, default=1, show_default=True, help="每卡微批 / micro-batch per GPU")
@click.option(
    "--checkpointing",
    type=click.Choice(choices(_In, "checkpointing"), case_sensitive=False),
    default="full",
    show_default=True,
    help="激活重算 / activation recomputation",
)
@click.option("--no-flash-attn", is_flag=True, help="不用 FlashAttention（保存 s² 注意力分数）/ eager attention")
@click.option("--fp32-grads", is_flag=True, help="梯度用 fp32（18 B/参数）/ fp32 gradients (18 B/param)")
@click.option("--lora-rank", type=int, default=8, show_default=True, help="LoRA 秩 / rank r")
@click.option("--lora-targets", default="all", show_default=True, help="q,k,v,o,gate,up,down | all | attn | mlp")
@click.option("--context", type=int, default=None, help="推理：每条序列的 token 数 / inference tokens per sequence")
@click.option("--concurrency", type=int, default=None, help="推理：并发序列数 / inference sequences at once")
@click.option(
    "--kv-dtype",
    type=click.Choice(choices(_In, "kv_dtype"), case_sensitive=False),
    default=None,
    help="KV 缓存精度 / KV-cache dtype",
)
@click.option(
    "--int4-format",
    type=click.Choice(choices(_In, "int4_format"), case_sensitive=False),
    default=None,
    help="4-bit 格式（推理默认 awq，QLoRA 默认 nf4；gptq/awq = 在 GPTQ/AWQ 底座上做 LoRA）/ 4-bit format",
)
@click.option(
    "--engine",
    type=click.Choice(choices(_In, "engine"), case_sensitive=False),
    default="auto",
    show_default=True,
    help="运行框架 / runtime: hf | vllm | sglang (inference), hf | deepspeed | fsdp (training)",
)
@click.option(
    "--loss",
    type=click.Choice(choices(_In, "loss"), case_sensitive=False),
    default="auto",
    show_default=True,
    help="损失实现 / loss: hf (fp32 upcast) | bf16 | chunked (torchtune) | fused (Liger/unsloth)",
)
@click.option(
    "--adapter-dtype",
    type=click.Choice(choices(_In, "adapter_dtype"), case_sensitive=False),
    default="fp32",
    show_default=True,
    help="LoRA 适配器精度 / adapter dtype",
)
@click.option(
    "--mem-fraction", type=float, default=None, help="SGLang mem_fraction_static（默认 0.85）/ SGLang static fraction"
)
@click.option(
    "--gpu-util", type=float, default=0.9, show_default=True, help="推理可用显存比例（vLLM）/ serving memory fraction"
)
@click.option(
    "--gpu", "gpu", default=None, help="对照的 GPU：型号或大小 / GPU name or size for a verdict: 'A100 80G', 4090, 24GB"
)
@click.option(
    "--method",
    type=click.Choice(choices(_In, "method"), case_sensitive=False),
    default="sft",
    show_default=True,
    help="训练方法：dpo/kto 有参考模型，orpo/simpo 成对无参考，ppo 四个模型，grpo 生成回答 / training method",
)
@click.option(
    "--precompute-ref-log-probs",
    is_flag=True,
    help="DPO/KTO：预先算好参考对数概率，不加载参考模型 / no reference model",
)
@click.option("--kl-beta", type=float, default=None, help="GRPO KL 系数，0 = 不加载参考模型 / 0 loads no reference")
@click.option("--num-generations", type=int, default=8, show_default=True, help="GRPO 每个提示的回答数 / completions")
@click.option(
    "--rollout-engine",
    type=click.Choice(choices(_In, "rollout_engine"), case_sensitive=False),
    default="hf",
    show_default=True,
    help="PPO/GRPO 生成：hf、vllm_colocate（同卡）、vllm_server（单独的卡）/ where rollouts run",
)
@click.option("--load-fp32", is_flag=True, help="from_pretrained 没写 torch_dtype（4.x 按 fp32 加载）/ fp32 load")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON / print JSON")
def command(
    model,
    params,
    mode,
    precision,
    optimizer,
    gpus,
    zero,
    fsdp,
    offload,
    seq_len,
    batch,
    checkpointing,
    no_flash_attn,
    fp32_grads,
    lora_rank,
    lora_targets,
    context,
    concurrency,
    kv_dtype,
    int4_format,
    engine,
    loss,
    adapter_dtype,
    mem_fraction,
    gpu_util,
    gpu,
    method,
    precompute_ref_log_probs,
    kl_beta,
    num_generations,
    rollout_engine,
    load_fp32,
    as_json,
) -> None:
    """显存估算：每张卡需要多少显存，放不放得下。

    Per-GPU memory estimate (decimal GB, GiB beside) for full training, LoRA, QLoRA or inference.

    \b
    例 / Examples:
      gpu-advisor estimate --params 7B --mode full --gpu 24GB
      gpu-advisor estimate -m "qwen2.5 7b" --mode lora --seq-len 4096 --gpu 4090
      gpu-advisor estimate -m llama-3-70b --mode full --gpus 16 --zero 3 --json
      gpu-advisor estimate -m qwen2.5-72b --mode inference --precision int4 --context 32768 --gpu "A100 80G"
    """
    from tools.errors import ToolInputError
    from tools.memory import EstimateMemoryInput, estimate_memory

    if model is None and params is None:
        raise ToolInputError(
            "请用 --model 给出模型名称或用 --params 给出参数量",
            "Give --model NAME or --params SIZE (e.g. --params 7B)",
            field="model",
        )
    inp = EstimateMemoryInput(
        model=model,
        params=params,
        mode=mode.lower(),
        precision=precision.lower(),
        optimizer=optimizer.lower(),
        fp32_grads=fp32_grads,
        gpus=gpus,
        zero=zero,
        fsdp=fsdp.lower(),
        offload=offload.lower(),
        seq_len=seq_len,
        batch=batch,
        checkpointing=checkpointing.lower(),
        flash_attention=not no_flash_attn,
        lora_rank=lora_rank,
        lora_targets=lora_targets,
        context=context,
        concurrency=concurrency,
        kv_dtype=kv_dtype.lower() if kv_dtype else None,
        int4_format=int4_format.lower() if int4_format else None,
        engine=engine.lower(),
        loss=loss.lower(),
        adapter_dtype=adapter_dtype.lower(),
        mem_fraction_static=mem_fraction,
        gpu_memory_utilization=gpu_util,
        gpu=gpu,
        method=method.lower(),
        precompute_ref_log_probs=precompute_ref_log_probs,
        kl_beta=kl_beta,
        num_generations=num_generations,
        rollout_engine=rollout_engine.lower(),
        load_fp32=load_fp32,
    )
    out = estimate_memory(inp)
    if as_json:
        from assistant.commands._common import emit_json

        emit_json(out)
        return
    _print_human(out)


# Rows of the human table: (output field, key in `out.gib`); labels come from the output model.
_ROWS = (
    ("weights_gb", "weights"),
    ("gradients_gb", "gradients"),
    ("optimizer_gb", "optimizer"),
    ("model_states_gb", "model_states"),
    ("activations_gb", "activations"),
    ("kv_cache_gb", "kv_cache"),
    ("overhead_gb", "overhead"),
    ("total_gb", None),
)
_TRAINING_ONLY = ("gradients_gb", "optimizer_gb", "model_states_gb")


def _row_label(name: str) -> str:
    """'优化器状态（含主权重） Optimizer states (incl. master weights)' — zh first, then en."""
    from tools.labels import field_label, field_note
    from tools.memory import EstimateMemoryOutput as Out

    zh, en = field_label(Out, name, "zh"), field_label(Out, name, "en")
    nz, ne = field_note(Out, name, "zh"), field_note(Out, name, "en")
    text = f"{zh}（{nz}） {en} ({ne})" if nz and ne else f"{zh} {en}"
    return ("= " + text) if name == "model_states_gb" else text


def _print_pipeline(p: dict) -> None:
    for c in p.get("components") or []:
        click.echo(f"  {c['name']:<16} {c['params_b']:>7g}B × {c['bytes_per_param']:g} B = {c['weights_gb']:,.2f} GB")
    for o in p.get("options") or []:
        peak = f" ≈ {o['peak_gb']:,.2f} GB" if o.get("peak_gb") is not None else ""
        click.echo(f"  → {o['zh']}{peak}")


def _print_human(out) -> None:
    from assistant.commands._common import print_table

    rows = [
        (_row_label(name), getattr(out, name), out.gib[key] if key else out.total_gib)
        for name, key in _ROWS
        if not (out.mode == "inference" and name in _TRAINING_ONLY)
    ]
    title = (
        f"{out.model} · {out.mode} · {out.precision} · {out.gpus} GPU · {out.engine}"
        + (f" · ZeRO-{out.zero_stage}" if out.zero_stage else "")
        + " — 每卡 / per GPU"
    )
    print_table(
        title,
        ["项目 Item", "GB (10^9)", "GiB (2^30)"],
        [(name, f"{gb:,.2f}", f"{gib:,.2f}") for name, gb, gib in rows],
        caption=f"参数 params {out.params / 1e9:.2f}B · 可训练 trainable {out.trainable_params:,}",
    )
    if out.pipeline:  # an image/video/speech pipeline: its components and the settings that change residency
        _print_pipeline(out.pipeline)
    if out.gpu is not None:
        mib = f" ({out.reported_mib:,} MiB)" if out.reported_mib else ""
        click.echo(
            f"显存 / GPU memory · 标称 nominal {out.nominal_gb:g} GB · 驱动报告 reported {out.reported_gb:.2f} GB{mib}"
            f" · 可用 usable {out.usable_gb:.2f} GB"
        )
        label = {"fits": "放得下 / fits", "fits_with_changes": "改设置后放得下 / fits with changes"}
        click.echo(f"结论 / verdict: {label.get(out.verdict or '', '放不下 / does not fit')}")
        if out.changes:
            click.echo(
                "  以下改动一起做（依次）/ apply these together, in order:"
                if out.changes_combined
                else "  以下任一改动即可 / any one of these:"
            )
        for c in out.changes:
            click.echo(f"  → {c.label['zh']} / {c.label['en']}: ≈ {c.total_gb:,.1f} GB")
        if out.nearest_option:
            n = out.nearest_option
            click.echo(
                f"  最接近的可行方案 / nearest option: {n.label['zh']} / {n.label['en']}: ≈ {n.total_gb:,.1f} GB"
            )
        if out.max_context_fit:
            per = " · ".join(
                f"{e} {out.max_context_fit[e] if out.max_context_fit[e] is not None else '—'}"
                f"/{out.max_concurrency_fit[e] if out.max_concurrency_fit and out.max_concurrency_fit[e] is not None else '—'}"
                for e in out.max_context_fit
            )
            click.echo(f"最长上下文/最大并发 per engine (context/concurrency): {per}")
    click.echo(out.summary["zh"])
    click.echo(out.summary["en"])
    if out.max_batch is not None or out.max_seq_len is not None:
        what = (
            ("最大并发 / max concurrency", "最长上下文 / longest context")
            if out.mode == "inference"
            else ("最大微批 / largest micro-batch", "最长序列 / longest sequence")
        )
        click.echo(
            f"{what[0]}: {out.max_batch if out.max_batch is not None else '—'} · "
            f"{what[1]}: {out.max_seq_len if out.max_seq_len is not None else '—'}"
        )
    if out.host_ram_gb:
        click.echo(f"CPU 内存 / host RAM needed: ≈ {out.host_ram_gb:,.0f} GB")
    if out.host_ram_total_gb:
        click.echo(
            f"主机内存（加载 + 卸载）/ host RAM per machine (loading + offload): ≈ {out.host_ram_total_gb:,.0f} GB"
        )
    if out.method != "sft":
        click.echo(
            f"{out.method.upper()}: 参考模型 / reference {out.reference_model_gb:.1f} GB · 奖励模型 / reward "
            f"{out.reward_model_gb:.1f} GB · 价值模型 / value {out.value_model_gb:.1f} GB · rollout KV "
            f"{out.rollout_kv_gb:.1f} GB · 每样本序列 / sequences per example {out.sequences_per_example}"
        )
    if out.seed_rule:
        s = out.seed_rule
        click.echo(
            f"常见经验算法（优化器≈4×权重）/ a common rule of thumb (optimizer ≈ 4× weights): "
            f"{s.bytes_per_param:g} B/参数 → {s.model_states_gb:,.1f} GB；"
            f"精确 / precise: {s.precise_bytes_per_param:g} B/param → {s.precise_model_states_gb:,.1f} GB"
        )
        click.echo(f"  {s.reason['zh']}")
    click.echo("假设 / Assumptions:")
    for a in out.assumptions:
        click.echo(f"  - {a['zh']}")
        click.echo(f"    {a['en']}")
    click.echo("来源 / Sources:")
    for s in out.sources:
        click.echo(f"  - {s}")
