"""Three-way verdict: fits / fits_with_changes (each change with its number) / does_not_fit (+ nearest option).

Why: "does not fit" is the wrong answer when the job runs after one ordinary setting change — a shorter
max_model_len, gpu_memory_utilization 0.95, an fp8 KV cache, micro-batch 1 with gradient accumulation, a fused
cross-entropy, ZeRO-3 instead of ZeRO-2, QLoRA instead of 16-bit LoRA. Each candidate below keeps the job (same
model, same data, same effective batch); changes of the job itself (full fine-tuning → LoRA, more GPUs, int4
weights) are offered only as the nearest option when nothing else works.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import combinations
from typing import Any

from pydantic import BaseModel, Field

GB = 10**9


class FitChange(BaseModel):
    kind: str = Field(
        description="machine id: max_model_len | max_num_seqs | gpu_memory_utilization | mem_fraction_static | "
        "kv_cache_dtype | engine | micro_batch | gradient_checkpointing | chunked_ce | zero_stage | optimizer | qlora | "
        "cpu_offload | precision | mode | gpus"
    )
    value: str = Field(description="the new setting, e.g. '22528', '0.95', 'fp8', '1', 'fused', '3'")
    total_gb: float = Field(description="per-GPU total after this change (and the ones before it, if combined), GB")
    label: dict[str, str] = Field(description="zh / en text, e.g. 'max_model_len ≤ 22,528'")


def _a(zh: str, en: str) -> dict[str, str]:
    return {"zh": zh, "en": en}


Evaluate = Callable[[Any], tuple[float, float]]  # job -> (total bytes, usable bytes)
MaxValue = Callable[[Any, str], int | None]  # (job, field) -> largest value that fits


def _candidates(job: Any, max_value: MaxValue) -> list[tuple[str, str, dict[str, Any], dict[str, str]]]:
    """(kind, value, update, label) for every same-job change that applies to `job`, least disruptive first."""
    out: list[tuple[str, str, dict[str, Any], dict[str, str]]] = []
    if job.mode == "inference":
        engine = job.engine_id
        if engine == "vllm" and job.gpu_memory_utilization < 0.95:
            out.append(
                (
                    "gpu_memory_utilization",
                    "0.95",
                    {"gpu_memory_utilization": 0.95},
                    _a("gpu_memory_utilization 调到 0.95", "gpu_memory_utilization 0.95"),
                )
            )
        if engine == "sglang" and (job.mem_fraction_static or 0.85) < 0.92:
            out.append(
                (
                    "mem_fraction_static",
                    "0.92",
                    {"mem_fraction_static": 0.92},
                    _a("mem_fraction_static 调到 0.92", "mem_fraction_static 0.92"),
                )
            )
        if (job.kv_dtype or "bf16") in ("bf16", "fp16", "fp32") and job.precision not in ("fp32", "tf32"):
            out.append(("kv_cache_dtype", "fp8", {"kv_dtype": "fp8"}, _a("KV 缓存用 fp8", "fp8 KV cache")))
        if engine == "hf":
            out.append(
                (
                    "engine",
                    "vllm",
                    {"engine": "vllm"},
                    _a("换 vLLM（分块预填充）", "vLLM instead of HF generate (chunked prefill)"),
                )
            )
        ctx = job.context or job.seq_len
        n = max_value(job, "context")
        if n is not None and 256 <= n < ctx:
            n = n // 1024 * 1024 if n >= 4096 else n
            out.append(
                ("max_model_len", str(n), {"context": n}, _a(f"max_model_len ≤ {n:,}", f"max_model_len ≤ {n:,}"))
            )
        seqs = job.concurrency or job.batch
        if seqs > 1:
            k = max_value(job, "concurrency")
            if k is not None and 1 <= k < seqs:
                out.append(
                    (
                        "max_num_seqs",
                        str(k),
                        {"concurrency": k},
                        _a(f"降低并发：max_num_seqs ≤ {k}", f"lower concurrency: max_num_seqs ≤ {k} sequences"),
                    )
                )
        return out
    if job.batch > 1:
        b = max_value(job, "batch") or 1
        b = min(b, job.batch - 1)
        acc = math.ceil(job.batch / b)
        out.append(
            (
                "micro_batch",
                str(b),
                {"batch": b},
                _a(f"微批 {b} × 梯度累积 {acc}", f"micro-batch {b} × gradient accumulation {acc}"),
            )
        )
    if job.checkpointing != "full":
        out.append(
            (
                "gradient_checkpointing",
                "full",
                {"checkpointing": "full"},
                _a("开启梯度检查点", "gradient checkpointing on"),
            )
        )
    if job.loss_id in ("hf", "bf16"):
        out.append(
            (
                "chunked_ce",
                "fused",
                {"loss": "fused"},
                _a("融合/分块交叉熵（Liger Kernel、unsloth）", "chunked/fused cross-entropy (Liger Kernel, unsloth)"),
            )
        )
    if job.gpus > 1 and job.zero_stage < 3:
        name = f"ZeRO-{job.zero_stage}" if job.zero_stage else "DDP"
        update: dict[str, Any] = {"zero": 3, "fsdp": "none"} if job.fsdp == "none" else {"fsdp": "full_shard"}
        out.append(("zero_stage", "3", update, _a(f"用 ZeRO-3 代替 {name}", f"ZeRO-3 instead of {name}")))
    if job.mode == "full" and job.optimizer == "adamw":
        out.append(
            (
                "optimizer",
                "adamw_8bit",
                {"optimizer": "adamw_8bit"},
                _a("8-bit（分页）AdamW", "8-bit (paged) AdamW"),
            )
        )
    if job.mode == "lora" and job.precision in ("bf16", "fp16"):
        out.append(("qlora", "nf4", {"mode": "qlora", "precision": "int4"}, _a("改用 QLoRA（NF4 底座）", "QLoRA")))
    if job.offload == "none" and job.mode == "full":
        update = {"offload": "optimizer"}
        if job.zero_stage < 2:
            update.update({"zero": 2, "fsdp": "none"} if job.fsdp == "none" else {})
        out.append(
            (
                "cpu_offload",
                "optimizer",
                update,
                _a(
                    "优化器卸载到 CPU（ZeRO-Offload，慢数倍）",
                    "CPU optimizer offload (ZeRO-Offload, several times slower)",
                ),
            )
        )
    return out


def _apply(job: Any, update: dict[str, Any]) -> Any | None:
    from tools.errors import ToolInputError

    try:
        new = job.model_copy(update=update)
        type(job).model_validate(new.model_dump()).check()
        return new
    except (ToolInputError, ValueError):
        return None


def fit_changes(job: Any, evaluate: Evaluate, max_value: MaxValue) -> tuple[list[FitChange], bool]:
    """Changes that make `job` fit and whether they are meant together.

    First every single change that fits on its own (alternatives, returned with False). If none does, the smallest
    combination (up to three changes, least disruptive first) that fits, each step with its cumulative total (True).
    For serving, a combination may end with the longest max_model_len that then fits."""
    singles: list[FitChange] = []
    combinable: list[tuple[str, str, dict[str, Any], dict[str, str]]] = []
    for kind, value, update, label in _candidates(job, max_value):
        new = _apply(job, update)
        if new is None:
            continue
        total, usable = evaluate(new)
        if total <= usable:
            singles.append(FitChange(kind=kind, value=value, total_gb=round(total / GB, 3), label=label))
        if kind in ("max_model_len", "max_num_seqs"):
            continue  # these shrink the workload: offered alone, or last on top of a combination
        if kind == "micro_batch":  # in a combination go straight to micro-batch 1 (same effective batch)
            value, update = "1", {"batch": 1}
            label = _a(f"微批 1 × 梯度累积 {job.batch}", f"micro-batch 1 × gradient accumulation {job.batch}")
        combinable.append((kind, value, update, label))
    if singles:
        return singles, False
    for size in range(2, min(3, len(combinable)) + 1):
        for combo in combinations(combinable, size):
            steps = _steps(job, combo, evaluate)
            if steps and steps[-1][1]:
                return [c for c, _ in steps], True
    if job.mode == "inference" and combinable:
        steps = _steps(job, tuple(combinable), evaluate)
        current = job
        for _, _, update, _ in combinable:
            current = _apply(current, update) or current
        n = max_value(current, "context")
        if steps is not None and n is not None and n >= 1024:
            n = n // 1024 * 1024
            fitted = _apply(current, {"context": n})
            if fitted is not None:
                total, usable = evaluate(fitted)
                if total <= usable:
                    label = _a(f"max_model_len ≤ {n:,}", f"max_model_len ≤ {n:,}")
                    last = FitChange(kind="max_model_len", value=str(n), total_gb=round(total / GB, 3), label=label)
                    return [c for c, _ in steps] + [last], True
    return [], False


def _steps(
    job: Any, combo: tuple[tuple[str, str, dict[str, Any], dict[str, str]], ...], evaluate: Evaluate
) -> list[tuple[FitChange, bool]] | None:
    """Apply `combo` in order; each step with its cumulative total and whether the job fits after it."""
    out: list[tuple[FitChange, bool]] = []
    current = job
    for kind, value, update, label in combo:
        new = _apply(current, update)
        if new is None:
            return None
        current = new
        total, usable = evaluate(current)
        out.append((FitChange(kind=kind, value=value, total_gb=round(total / GB, 3), label=label), total <= usable))
    return out


def nearest_option(
    job: Any,
    evaluate: Evaluate,
    fp8_card: bool | None = None,
    tp_ok: Callable[[int], bool] | None = None,
    owned: int | None = None,
) -> FitChange | None:
    """The closest option that changes the job itself: LoRA/QLoRA for full training, FP8 weights on a card with FP8
    tensor cores (an official FP8 release, or vLLM --quantization fp8), int4 weights for serving, or more GPUs
    (tensor parallel / ZeRO-3). More of the cards the user already has (`owned`) comes first: a launch setting,
    not a different model."""
    options: list[tuple[str, str, dict[str, Any], dict[str, str]]] = []
    if job.mode == "inference" and job.precision in ("fp32", "tf32"):
        options.append(
            (
                "precision",
                "bf16",
                {"precision": "bf16"},
                _a("用 bf16 权重（torch_dtype=torch.bfloat16）", "bf16 weights (torch_dtype=torch.bfloat16)"),
            )
        )
    if job.mode == "inference" and fp8_card and job.precision in ("bf16", "fp16", "fp32"):
        options.append(
            (
                "precision",
                "fp8",
                {"precision": "fp8"},
                _a(
                    "用 FP8 权重（这张卡有 FP8 张量核：官方 FP8 版，或 vLLM --quantization fp8 在线量化）",
                    "FP8 weights (this card has FP8 tensor cores: an official FP8 release, or vLLM --quantization fp8)",
                ),
            )
        )
    if job.mode == "full":
        options.append(("mode", "lora", {"mode": "lora"}, _a("改用 LoRA 微调", "LoRA instead of full fine-tuning")))
        options.append(
            (
                "mode",
                "qlora",
                {"mode": "qlora", "precision": "int4"},
                _a("改用 QLoRA", "QLoRA instead of full fine-tuning"),
            )
        )
    if job.mode == "lora":
        options.append(("qlora", "nf4", {"mode": "qlora", "precision": "int4"}, _a("改用 QLoRA", "QLoRA")))
    if job.mode == "inference" and job.precision in ("bf16", "fp16", "fp32", "fp8"):
        options.append(
            ("precision", "int4", {"precision": "int4"}, _a("用 int4（AWQ/GPTQ）权重", "int4 (AWQ/GPTQ) weights"))
        )
    for n in (2, 4, 8, 16, 32, 64):
        if n <= job.gpus:
            continue
        if job.mode == "inference" and tp_ok is not None and n <= 8 and not tp_ok(n):
            continue  # a tensor-parallel size the model's heads do not divide (vLLM refuses it)
        upd: dict[str, Any] = {"gpus": n}
        if job.mode != "inference" and job.zero_stage < 3:
            upd.update({"zero": 3, "fsdp": "none"})
        how = ("张量并行", "tensor parallel") if job.mode == "inference" else ("ZeRO-3", "ZeRO-3")
        options.append(("gpus", str(n), upd, _a(f"{n} 张卡（{how[0]}）", f"{n} GPUs ({how[1]})")))
    if owned and owned > job.gpus:  # 「8 张 T4，--tp 1」: --tp 2 on cards already there before int4 weights
        options.sort(key=lambda o: not (o[0] == "gpus" and int(o[1]) <= owned))
    for kind, value, update, label in options:
        new = _apply(job, update)
        if new is None:
            continue
        total, usable = evaluate(new)
        if total <= usable:
            return FitChange(kind=kind, value=value, total_gb=round(total / GB, 3), label=label)
    return None
