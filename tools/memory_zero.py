"""The ZeRO paper's per-GPU model-state formulas, and the whole training state against all the cards together.

Why: users size multi-GPU training with the paper's arithmetic ("ZeRO-2 over 8: 2Ψ + 14Ψ/8"), and a stated
strategy is only understood when the answer shows it. Rajbhandari et al., "ZeRO: Memory Optimizations Toward
Training Trillion Parameter Models", arXiv:1910.02054, §5 and Fig. 1: mixed-precision Adam keeps 2Ψ (fp16/bf16
weights) + 2Ψ (gradients) + KΨ (fp32 master weights, momentum, variance; K = 12) per replica, so

  DDP (P_none)   (4 + K)Ψ            ZeRO-1 (P_os)    4Ψ + KΨ/N
  ZeRO-2 (P_os+g) 2Ψ + (2 + K)Ψ/N    ZeRO-3 (P_os+g+p) (4 + K)Ψ/N

PyTorch FSDP FULL_SHARD is ZeRO-3, SHARD_GRAD_OP ZeRO-2 (PyTorch FSDP docs, ShardingStrategy). The sum over all
GPUs never drops below (4 + K)Ψ: without CPU/NVMe offload that state must fit the cards' memory together, so a
job whose whole state exceeds N × one card cannot fit on N cards whatever the sharding.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

SOURCE = (
    "Rajbhandari et al., ZeRO, arXiv:1910.02054, §5 / Fig. 1 (DDP (4+K)Ψ, P_os 4Ψ+KΨ/N, P_os+g 2Ψ+(2+K)Ψ/N, "
    "P_os+g+p (4+K)Ψ/N; K = 12 for mixed-precision Adam)"
)
K_ADAM = 12  # fp32 master weights + momentum + variance, bytes per parameter


class ZeroFormula(BaseModel):
    stage: int = Field(description="0 = plain data parallel (DDP), 1–3 = ZeRO stage")
    gpus: int
    params: int = Field(description="Ψ: parameters trained (all of them for full training)")
    per_gpu_gb: float = Field(description="the paper's model states per GPU, decimal GB (no activations)")
    formula: str = Field(description="the formula with the numbers put in")
    label: dict[str, str]


def paper_model_states_bytes(psi: float, n: int, stage: int, k: int = K_ADAM) -> float:
    """Model-state bytes per GPU by the ZeRO paper (weights + gradients in 16 bits, K bytes of optimizer state)."""
    n = max(1, n)
    if stage <= 0:
        return (4 + k) * psi
    if stage == 1:
        return 4 * psi + k * psi / n
    if stage == 2:
        return 2 * psi + (2 + k) * psi / n
    return (4 + k) * psi / n


def zero_formula(psi: int, n: int, stage: int, k: int = K_ADAM) -> ZeroFormula:
    """The formula for `stage` over `n` GPUs with Ψ = `psi`, written out with the numbers (GB = 1e9 bytes)."""
    g = psi / 1e9
    per = paper_model_states_bytes(psi, n, stage, k) / 1e9
    name = {0: "DDP", 1: "ZeRO-1", 2: "ZeRO-2", 3: "ZeRO-3"}[min(stage, 3)]
    text = {
        0: f"(4+{k})Ψ = {4 + k} × {g:.2f}B",
        1: f"4Ψ + {k}Ψ/N = 4 × {g:.2f}B + {k} × {g:.2f}B / {n}",
        2: f"2Ψ + {2 + k}Ψ/N = 2 × {g:.2f}B + {2 + k} × {g:.2f}B / {n}",
        3: f"{4 + k}Ψ/N = {4 + k} × {g:.2f}B / {n}",
    }[min(stage, 3)]
    return ZeroFormula(
        stage=stage,
        gpus=n,
        params=psi,
        per_gpu_gb=round(per, 2),
        formula=f"{text} ≈ {per:,.1f} GB",
        label={
            "zh": f"ZeRO 论文的算法（arXiv:1910.02054）：{name} 每卡模型状态 {text} ≈ {per:,.1f} GB"
            "（不含激活值、DeepSpeed 的通信缓冲和框架开销）",
            "en": f"By the ZeRO paper (arXiv:1910.02054): {name} model states per GPU {text} ≈ {per:,.1f} GB "
            "(before activations, DeepSpeed's buffers and framework overhead)",
        },
    )


def all_cards_short(state_gb: float, n: int, card_gb: float) -> bool:
    """True when the whole training state exceeds the memory of all `n` cards together: no sharding can fit it."""
    return state_gb > n * card_gb
