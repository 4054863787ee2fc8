"""Training methods beyond SFT: what DPO/KTO/ORPO/SimPO/PPO/GRPO add to the per-GPU memory of the same job.

Why a separate step: the SFT breakdown (tools/memory.py) is right for one model and one sequence per example, but
preference and RL trainers run more sequences per example and keep more models on the card — the reason a DPO run
OOMs where the same SFT run fitted. The profile of each method (knowledge/engines.yaml `methods`, each with its
paper and TRL doc) says:
- sequences per example: DPO/ORPO/SimPO run the chosen and the rejected answer (TRL concatenated_forward), so the
  activations and the logits buffer double at the same batch;
- a frozen reference model (DPO, KTO, PPO, GRPO with a KL term): one more copy of the 16-bit weights, no gradients,
  no optimizer states; sharded only under ZeRO-3 (TRL's prepare_deepspeed gives the reference stage 0 otherwise);
  none with LoRA (the reference is the base with adapters disabled), with precompute_ref_log_probs, or GRPO beta=0;
- PPO's frozen reward model (assumed the policy's size) and its trained value model (critic, the policy's size and
  training setup, so its model states equal the policy's);
- rollouts (PPO, GRPO): the KV cache of the generated sequences — GRPO num_generations per prompt, TRL default 8;
  a vLLM engine colocated on the training GPU adds its own copy of the weights.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from tools.data import load_yaml

if TYPE_CHECKING:
    from tools.memory import Breakdown, MemoryJob

Method = Literal["sft", "dpo", "kto", "orpo", "simpo", "ppo", "grpo"]
Rollout = Literal["hf", "vllm_colocate", "vllm_server"]
GB = 10**9

METHOD_SYNONYMS = {
    "rlhf": "ppo",
    "ipo": "dpo",
    "cpo": "simpo",
    "偏好": "dpo",
    "偏好优化": "dpo",
    "强化学习": "grpo",
    "supervised": "sft",
    "none": "sft",
}


class MethodProfile(BaseModel):
    id: str
    label: dict[str, str]
    sequences_per_example: int
    reference_model: bool
    reward_model: bool
    value_model: bool
    rollouts: bool
    why: dict[str, str]
    source: str


@lru_cache(maxsize=1)
def _raw() -> dict[str, Any]:
    return dict(load_yaml("engines.yaml")["methods"])


@lru_cache(maxsize=16)
def method_profile(method: str) -> MethodProfile:
    return MethodProfile.model_validate({"id": method, **_raw()[method]})


def methods() -> list[str]:
    return list(_raw())


class MethodMemory(BaseModel):
    """What the method added, per GPU, in bytes (already folded into the breakdown)."""

    method: str
    sequences_per_example: int = 1
    reference_bytes: float = 0.0
    reward_bytes: float = 0.0
    value_bytes: float = 0.0
    rollout_kv_bytes: float = 0.0
    rollout_weights_bytes: float = 0.0
    rollout_sequences: int = 0
    reference_loaded: bool = False


def _a(zh: str, en: str) -> dict[str, str]:
    return {"zh": zh, "en": en}


def reference_loaded(job: MemoryJob) -> bool:
    """Whether the method keeps a separate frozen reference model on the GPU."""
    prof = method_profile(job.method)
    if not prof.reference_model or job.precompute_ref_log_probs:
        return False
    if job.method == "grpo" and job.kl_beta == 0:
        return False
    return job.mode == "full"  # LoRA/QLoRA: the reference is the base with adapters disabled


def apply_method(job: MemoryJob, model: Any, b: Breakdown, fragmentation: float) -> MethodMemory:
    """Fold the method's extra sequences, models and rollouts into the SFT breakdown `b` (per GPU, in place)."""
    from tools.memory_kv import kv_cache_bytes

    prof = method_profile(job.method)
    out = MethodMemory(method=job.method, sequences_per_example=prof.sequences_per_example)
    if job.method == "sft":
        return out
    P, arch = model.params, model.arch
    zero3 = job.zero_stage >= 3
    shard = job.shard_degree if zero3 else 1
    frozen_bpp = 4.0 if job.precision in ("fp32", "tf32") else 2.0
    A: list[dict[str, str]] = [
        _a(f"训练方法 {prof.label['zh']}：{prof.why['zh']}", f"Method {prof.label['en']}: {prof.why['en']}")
    ]
    S = [f"Method {job.method}: {prof.source}"]

    # the value model (PPO critic) at the policy's size and setup: the same model states again
    if prof.value_model:
        out.value_bytes = b.weights + b.gradients + b.optimizer
        b.weights *= 2  # added before the frozen models, so this doubles the policy's own weights
        b.gradients *= 2
        b.optimizer *= 2
        A.append(
            _a(
                f"价值模型（critic）按与策略同样大小、同样训练设置计：再加一份模型状态 {out.value_bytes / GB:.1f} GB/卡",
                f"Value model (critic) at the policy's size and setup: another {out.value_bytes / GB:.1f} GB of "
                "model states per GPU",
            )
        )

    # a second sequence per example (chosen + rejected): activations and the logits buffer double at the same batch
    k = prof.sequences_per_example
    if k > 1:
        extra = (k - 1) * b.activations
        b.activations += extra
        b.logits *= k
        b.overhead += fragmentation * extra
        A.append(
            _a(
                f"每个样本 {k} 条序列（chosen + rejected 拼在一起前向）：同样 batch 下激活值（含 logits）是 SFT 的 {k} 倍，"
                f"每卡微批 {job.batch} 对 = {job.batch * k} 条序列",
                f"{k} sequences per example (chosen + rejected concatenated in one forward): at the same batch the "
                f"activations (incl. logits) are {k}× SFT; micro-batch {job.batch} pair(s) = {job.batch * k} sequences",
            )
        )

    # frozen reference and reward models: 16-bit weights only
    if prof.reference_model:
        out.reference_loaded = reference_loaded(job)
        if out.reference_loaded:
            out.reference_bytes = P * frozen_bpp / shard
            b.weights += out.reference_bytes
            how_zh = f"ZeRO-3 切分到 {shard} 张卡" if shard > 1 else "每张卡一份完整副本（ZeRO-3 才会切分参考模型）"
            how_en = (
                f"sharded over {shard} GPUs by ZeRO-3" if shard > 1 else "a full copy per GPU (only ZeRO-3 shards it)"
            )
            A.append(
                _a(
                    f"冻结的参考模型（ref_model）：{P / 1e9:.1f}B × {frozen_bpp:g} B = {P * frozen_bpp / GB:.1f} GB，{how_zh}；"
                    "只前向、无梯度和优化器状态。设 precompute_ref_log_probs=True 或改用 LoRA 可以不加载它",
                    f"Frozen reference model (ref_model): {P / 1e9:.1f}B × {frozen_bpp:g} B = {P * frozen_bpp / GB:.1f} GB, "
                    f"{how_en}; forward only, no gradients or optimizer states. precompute_ref_log_probs=True or LoRA "
                    "avoids loading it",
                )
            )
        elif job.mode != "full":
            A.append(
                _a(
                    "LoRA/QLoRA：参考模型就是关掉适配器的同一个底座（TRL 的 ref_model=None），不另占显存",
                    "LoRA/QLoRA: the reference is the same base with adapters disabled (TRL ref_model=None), no extra memory",
                )
            )
        else:
            why_zh = "precompute_ref_log_probs=True" if job.precompute_ref_log_probs else "beta=0（无 KL 项）"
            A.append(_a(f"不加载参考模型（{why_zh}）", f"No reference model loaded ({why_zh})"))
    if prof.reward_model:
        out.reward_bytes = P * frozen_bpp / shard
        b.weights += out.reward_bytes
        A.append(
            _a(
                f"冻结的奖励模型按与策略同样大小计：{P * frozen_bpp / GB:.1f} GB"
                + (f"，切分到 {shard} 张卡" if shard > 1 else ""),
                f"Frozen reward model at the policy's size: {P * frozen_bpp / GB:.1f} GB"
                + (f", sharded over {shard} GPUs" if shard > 1 else ""),
            )
        )

    # rollouts: the generated sequences' KV cache (and a vLLM copy of the weights when colocated)
    if prof.rollouts:
        seqs = max(job.batch, job.num_generations if job.method == "grpo" else job.batch)
        tokens = job.seq_len
        out.rollout_sequences = seqs
        kv = kv_cache_bytes(arch, tokens, seqs, 2.0)
        engine_zh = {"hf": "HF generate", "vllm_colocate": "vLLM（与训练同卡）", "vllm_server": "单独的 vLLM 卡"}[
            job.rollout_engine
        ]
        engine_en = {"hf": "HF generate", "vllm_colocate": "vLLM colocated", "vllm_server": "a separate vLLM GPU"}[
            job.rollout_engine
        ]
        if job.rollout_engine == "vllm_server":
            out.rollout_kv_bytes = kv
            out.rollout_weights_bytes = P * frozen_bpp
        else:
            out.rollout_kv_bytes = kv
            b.kv_cache += kv
            if job.rollout_engine == "vllm_colocate":
                out.rollout_weights_bytes = P * frozen_bpp
                b.weights += out.rollout_weights_bytes
        gen_zh = f"每组 {job.num_generations} 条回答（num_generations）" if job.method == "grpo" else f"{seqs} 条回答"
        gen_en = (
            f"{job.num_generations} completions per prompt (num_generations)"
            if job.method == "grpo"
            else f"{seqs} responses"
        )
        A.append(
            _a(
                f"生成（rollout，{engine_zh}）：{gen_zh} × {tokens} token 的 KV 缓存约 {kv / GB:.1f} GB"
                + (
                    f"；在单独的 vLLM 卡上，另需权重 {P * frozen_bpp / GB:.1f} GB + KV 缓存，不计入训练卡"
                    if job.rollout_engine == "vllm_server"
                    else ("；同卡 vLLM 再放一份权重" if job.rollout_engine == "vllm_colocate" else "")
                ),
                f"Rollouts ({engine_en}): {gen_en} × {tokens} tokens need about {kv / GB:.1f} GB of KV cache"
                + (
                    f"; on a separate vLLM GPU that needs {P * frozen_bpp / GB:.1f} GB of weights + the KV cache, "
                    "not counted on the training GPUs"
                    if job.rollout_engine == "vllm_server"
                    else (
                        "; colocated vLLM holds another copy of the weights"
                        if job.rollout_engine == "vllm_colocate"
                        else ""
                    )
                ),
            )
        )
    b.assumptions = b.assumptions + A
    b.sources = b.sources + S
    return out


def colocated_rollout_need(
    params: float, usable_gb: float, states_gb: float, margin: float, util: float, tp: int
) -> dict[str, float | int]:
    """An RL run whose vLLM rollout engine shares the training GPUs (EasyR1/verl hybrid engine), per card.

    WHY: find_min_gpus counts the policy's update alone. The engine reserves `util` × each card and holds the
    bf16 weights split over its own tensor parallel size `tp` (params × 2 B ÷ tp): a per-card limit more cards do
    not lift — the smallest TP of 1/2/4/8 whose share is ≤ 80% of the reserve (the rest for KV cache) is the fix.
    While the reserve stays held during the update (no vLLM sleep mode), the update gets (1 − util) × the card:
    the count is the states ÷ that share, scaled by the activation/overhead `margin` the plain estimate needed
    (per-GPU total ÷ per-GPU share of the states, or min_gpus ÷ floor_gpus of the card count)."""
    reserve = util * usable_gb
    weights_per_card = params * 2 / tp / 1e9
    fit_tp = next((t for t in (1, 2, 4, 8, 16) if params * 2 / t / 1e9 <= 0.8 * reserve), 16)
    share = (1 - util) * usable_gb
    need = int(-(-states_gb * max(margin, 1.0) // share)) if share > 0 else 0
    return {
        "reserve_gb": round(reserve, 1),
        "weights_per_card_gb": round(weights_per_card, 1),
        "rollout_fits": weights_per_card <= 0.8 * reserve,
        "tp_needed": fit_tp,
        "update_share_gb": round(share, 1),
        "gpus_reserved": need,
        "rent_gpus_reserved": -(-need // 8) * 8 if need > 8 else need,
    }
