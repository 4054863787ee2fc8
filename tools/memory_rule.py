"""Check a memory rule of thumb the user quotes: 「推理 FP32 折算 1B=4G，70B 要 280G；全参训练 1B=16G，70B 要 1120G，对不对？」.

Why a tool of its own: the question is "is this rule right?", not "how much memory does my job take". Each
claim is set against the model-state bytes per parameter that `estimate_memory` itself computes for that mode
and precision (weights, gradients and Adam states; ZeRO paper arXiv:1910.02054 for the 16 B/param of mixed
precision), so the verdict can never disagree with the estimator. What the rule leaves out (activations, KV
cache, framework overhead) and the precision the job is usually run in are said beside it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tools.registry import ToolSpec

RuleMode = Literal["inference", "lora", "full"]
RulePrecision = Literal["fp32", "bf16", "fp16", "int8", "int4"]
# a claim within 10% of the estimator's bytes per parameter holds (the estimator's LoRA adapters add ~0.5%)
TOLERANCE = 0.10
# how each job is usually run: bf16 weights for inference and LoRA; mixed-precision AdamW (bf16 + fp32 master) for
# full training (PyTorch AMP / DeepSpeed / Megatron defaults)
USUAL_PRECISION: dict[str, RulePrecision] = {"inference": "bf16", "lora": "bf16", "full": "bf16"}
SOURCE = "ZeRO (Rajbhandari et al., arXiv:1910.02054) §3.1: mixed-precision Adam = 2 + 2 + 12 = 16 B/param"


class ClaimedRule(BaseModel):
    mode: RuleMode = Field(description="the job the rule is for: inference, lora, or full (training/fine-tuning)")
    precision: RulePrecision | None = Field(None, description="the precision the rule assumes, if said")
    bytes_per_param: float = Field(gt=0, le=1000, description="the rule's GB per billion parameters (= B/param)")
    params_b: float = Field(gt=0, le=20_000, description="the model size the rule is applied to, billions")


class CheckMemoryRuleInput(BaseModel):
    claims: list[ClaimedRule] = Field(min_length=1, max_length=4)


class RuleVerdict(BaseModel):
    mode: RuleMode
    precision: RulePrecision
    claimed_bytes_per_param: float
    claimed_gb: float = Field(description="the rule applied to params_b, decimal GB")
    params_b: float
    bytes_per_param: float = Field(description="model-state bytes per parameter the estimator computes")
    weights_bytes: float
    gradient_bytes: float
    optimizer_bytes: float = Field(description="Adam m, v and any fp32 master copy, bytes per parameter")
    model_states_gb: float
    holds: bool
    precision_said: bool = Field(description="False when the user named no precision and this one was matched")
    usual_precision: RulePrecision
    usual_bytes_per_param: float
    usual_weights_bytes: float
    usual_optimizer_bytes: float = Field(description="at the usual precision: Adam m, v and the fp32 master copy")
    usual_gb: float = Field(description="the same job at its usual precision, decimal GB")


class CheckMemoryRuleOutput(BaseModel):
    verdicts: list[RuleVerdict]
    all_hold: bool
    source: str = SOURCE


def _states(params_b: float, mode: str, precision: str) -> tuple[float, float, float, float]:
    """(weights, gradients, optimizer, total) bytes per parameter, from the estimator's own breakdown."""
    from tools.memory import EstimateMemoryInput, estimate_memory

    est = estimate_memory(EstimateMemoryInput(params=params_b * 1e9, mode=mode, precision=precision))
    per = 1e9 / est.params
    w, g, o = est.weights_gb * per, est.gradients_gb * per, est.optimizer_gb * per
    return w, g, o, est.model_states_gb * per


def _holds(claimed: float, actual: float) -> bool:
    return abs(claimed - actual) <= TOLERANCE * actual


def check_memory_rule(inp: CheckMemoryRuleInput) -> CheckMemoryRuleOutput:
    out: list[RuleVerdict] = []
    for c in inp.claims:
        # no precision said: the one the rule fits (「7B 推理要 28G」 holds at FP32), else the usual one
        # (full training is not run on int8/int4 weights: that is QLoRA)
        others: list[RulePrecision] = ["fp32"] if c.mode == "full" else ["fp32", "int8", "int4"]
        tried: list[RulePrecision] = [c.precision] if c.precision else [USUAL_PRECISION[c.mode], *others]
        precision: RulePrecision = tried[0]
        w, g, o, total = _states(c.params_b, c.mode, precision)
        if not _holds(c.bytes_per_param, total):
            for p in tried[1:]:
                states = _states(c.params_b, c.mode, p)
                if _holds(c.bytes_per_param, states[3]):
                    precision, (w, g, o, total) = p, states
                    break
        usual = USUAL_PRECISION[c.mode]
        uw, _, uo, usual_total = (w, g, o, total) if usual == precision else _states(c.params_b, c.mode, usual)
        out.append(
            RuleVerdict(
                mode=c.mode,
                precision=precision,
                claimed_bytes_per_param=c.bytes_per_param,
                claimed_gb=round(c.bytes_per_param * c.params_b, 1),
                params_b=c.params_b,
                bytes_per_param=round(total, 2),
                weights_bytes=round(w, 2),
                gradient_bytes=round(g, 2),
                optimizer_bytes=round(o, 2),
                model_states_gb=round(total * c.params_b, 1),
                holds=_holds(c.bytes_per_param, total),
                precision_said=c.precision is not None,
                usual_precision=usual,
                usual_bytes_per_param=round(usual_total, 2),
                usual_weights_bytes=round(uw, 2),
                usual_optimizer_bytes=round(uo, 2),
                usual_gb=round(usual_total * c.params_b, 1),
            )
        )
    return CheckMemoryRuleOutput(verdicts=out, all_hold=all(v.holds for v in out))


TOOLS = [
    ToolSpec(
        name="check_memory_rule",
        description="Check a memory rule of thumb the user quotes (「1B=4G」, '16 GB per billion for full "
        "training') against the estimator's model-state bytes per parameter for that mode and precision; says "
        "whether it holds, and the figure at the precision the job is usually run in.",
        input_model=CheckMemoryRuleInput,
        func=check_memory_rule,
    )
]
