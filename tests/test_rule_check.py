"""Rules of thumb the user quotes to have checked (「1B=4G 对不对」). Expected bytes per parameter are the textbook
ones (ZeRO paper arXiv:1910.02054 §3.1: fp16/bf16 weights 2 B; mixed-precision Adam 2 + 2 + 12 = 16 B; fp32 4 B),
worked by hand for the sizes in each question."""

from __future__ import annotations

from assistant.advisor import ask
from assistant.offline.intents import plan
from assistant.offline.reading.claimed_rules import claimed_rules
from tools.memory_rule import CheckMemoryRuleInput, ClaimedRule, check_memory_rule

# https://github.com/deepseek-ai/DeepSeek-V3/issues/879
DS_879 = (
    "这个B和G折算的说法对不对？弱问。。LoRA或者推理，FP32精度，折算是1B=4G的显存，就是70B模型需要280G显存；"
    "全参数训练，FP32精度，折算是1B=16G的显存，就是70B模型需要1120G显存；"
)


def test_each_clause_is_one_claim_with_its_own_job_and_precision() -> None:
    claims = claimed_rules(DS_879)
    assert [(c.mode, c.precision, c.bytes_per_param, c.params_b) for c in claims] == [
        ("lora", "fp32", 4.0, 70.0),
        ("full", "fp32", 16.0, 70.0),
    ]


def test_both_rules_hold_and_the_usual_precision_is_given() -> None:
    r = ask(DS_879, backend="offline")
    assert [c.name for c in r.tool_calls] == ["check_memory_rule"]
    first = r.answer.splitlines()[0]
    assert "成立" in first
    # bf16 LoRA/inference: 70e9 × 2 B = 140 GB (+ adapters); full mixed precision: 70e9 × 16 B = 1120 GB
    assert "141.6 GB" in r.answer and "1120 GB" in r.answer
    assert "KV 缓存" in r.answer and "激活值" in r.answer
    assert "没用上" not in r.answer  # the sizes and precisions were all used


def test_a_wrong_rule_is_corrected_with_the_hand_worked_total() -> None:
    r = ask("全量微调7B需要28G显存，对不对", backend="offline")
    assert "不对" in r.answer.splitlines()[1]
    assert "112 GB" in r.answer  # 7e9 × 16 B


def test_no_precision_said_matches_the_one_that_fits() -> None:
    out = check_memory_rule(CheckMemoryRuleInput(claims=[ClaimedRule(mode="inference", bytes_per_param=4, params_b=7)]))
    v = out.verdicts[0]
    assert v.holds and v.precision == "fp32" and not v.precision_said
    assert v.usual_precision == "bf16" and v.usual_gb == 14.0  # 7e9 × 2 B


def test_a_sizing_question_is_not_a_rule_check() -> None:
    assert claimed_rules("推理 7B 要多少显存") == ()
    assert all(c.name != "check_memory_rule" for c in plan("7B模型推理需要多少显存，24G够吗"))


def test_a_bare_rate_with_no_job_is_read_as_the_weights() -> None:
    # 「是不是1B=2G」: what most people mean is the bf16 weights, 2 bytes per parameter
    claims = claimed_rules("1B参数大概要多少显存？是不是1B=2G？")
    assert [(c.mode, c.bytes_per_param) for c in claims] == [("inference", 2.0)]
    r = ask("1B参数大概要多少显存？是不是1B=2G？", backend="offline")
    names = [c.name for c in r.tool_calls]
    assert names[0] == "check_memory_rule" and "estimate_memory" in names  # both parts: the check and the sizing
