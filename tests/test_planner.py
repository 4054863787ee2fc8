"""The planner: configurations that fit, ranked by cost, with infeasible ones explained.

Memory figures come from tools.memory (ZeRO paper: mixed-precision AdamW = 16 bytes/param of model states).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.errors import ToolInputError
from tools.gpus import resolve_gpu
from tools.planner import PlanInput, _memory_at, plan_configurations, rentable_count


def test_rentable_counts() -> None:
    assert [rentable_count(n) for n in (1, 2, 3, 5, 8, 9, 17)] == [1, 2, 4, 8, 8, 16, 24]


def test_7b_full_finetune_on_4090s_needs_8_cards_with_zero3_over_pcie() -> None:
    # 7.6B × 18 B/param (DeepSpeed ZeRO-3, 18P/N) = 137 GB of model states; HF's fp32-upcast loss adds 2,048 ×
    # 152,064 × 16 B = 5.0 GB of logits per GPU, plus activations, the gathered embedding and the CUDA context: at 8
    # cards ≈ 27 GB > 25.76 GB (24564 MiB) → 9+ cards → rentable as two 8-GPU servers; the plan says why it is slow
    out = plan_configurations(PlanInput(model="qwen2.5-7b", mode="full", tokens="1B", gpus=["4090"]))
    opt = out.options[0]
    assert opt.gpu == "rtx_4090" and opt.count == 16 and opt.nodes == 2
    assert 7.6e9 * 16 / 1e9 / 16 < opt.per_gpu_gb <= 24564 * 2**20 / 1e9
    text = " ".join(opt.notes)
    assert "ZeRO-3" in text and "NVLink" in text and "PCIe" in text
    assert opt.days and opt.cost_cny and opt.cost_cny.low <= opt.cost_cny.mid <= opt.cost_cny.high


def test_options_are_ranked_by_cost_and_explained() -> None:
    out = plan_configurations(PlanInput(model="qwen2.5-7b", mode="full", tokens="1B"))
    mids = [o.cost_cny.mid for o in out.options]
    assert mids == sorted(mids) and len(out.options) >= 3
    assert [o.rank for o in out.options] == list(range(1, len(out.options) + 1))
    assert all(o.fits and o.why for o in out.options)
    assert out.summary["zh"] and out.summary["en"] and "confirm" in out.warning


def test_70b_full_finetune_rules_out_24gb_cards() -> None:
    out = plan_configurations(PlanInput(model="llama-3-70b", mode="full", tokens="1B", max_gpus=64))
    ruled_out = {o.gpu for o in out.infeasible if not o.fits}
    assert {"rtx_4090", "rtx_3090"} <= ruled_out
    for o in out.options:
        assert o.count * resolve_gpu(o.gpu).memory_gb >= 70e9 * 16 / 1e9  # 1.12 TB of model states must fit in total


def test_tight_budget_leaves_nothing_feasible_and_says_why() -> None:
    out = plan_configurations(PlanInput(model="qwen2.5-7b", mode="full", tokens="10B", budget=100))
    assert out.options == []
    assert any("budget" in o.why for o in out.infeasible)


def test_deadline_scales_the_count_up() -> None:
    loose = plan_configurations(PlanInput(model="qwen2.5-7b", mode="full", tokens="10B", gpus=["A100 80G"]))
    tight = plan_configurations(
        PlanInput(model="qwen2.5-7b", mode="full", tokens="10B", gpus=["A100 80G"], deadline="1d")
    )
    assert tight.options[0].count > loose.options[0].count
    assert tight.options[0].days.mid <= 1.0
    assert tight.deadline_hours == 24


def test_impossible_deadline_is_explained() -> None:
    out = plan_configurations(
        PlanInput(model="qwen2.5-7b", mode="full", tokens="1T", gpus=["4090"], deadline="1d", max_gpus=16)
    )
    assert out.options == [] and "deadline" in out.infeasible[0].why


def test_serving_plan_reports_throughput_and_monthly_cost() -> None:
    out = plan_configurations(
        PlanInput(model="qwen2.5-7b", mode="inference", concurrency=16, context=4096, gpus=["4090", "A100 80GB PCIe"])
    )
    for o in out.options:
        assert o.days is None and o.decode_tokens_per_s and o.decode_tokens_per_s.low > 0
        assert "month" in o.cost_basis
    by = {o.gpu: o for o in out.options}
    # decode is memory-bound: same bytes per step on one card each, so speed ∝ memory bandwidth (1,935 vs 1,008 GB/s,
    # A100 80GB PCIe datasheet / Ada whitepaper)
    assert by["a100_80gb_pcie"].count == by["rtx_4090"].count == 1
    ratio = by["a100_80gb_pcie"].decode_tokens_per_s.mid / by["rtx_4090"].decode_tokens_per_s.mid
    assert ratio == pytest.approx(1935 / 1008, rel=0.01)


def test_lora_fits_on_one_24gb_card() -> None:
    out = plan_configurations(PlanInput(model="qwen2.5-7b", mode="qlora", tokens="100M", gpus=["4090"]))
    assert out.options[0].count == 1 and out.options[0].per_gpu_gb < 24


def test_bad_input() -> None:
    with pytest.raises(ToolInputError):
        plan_configurations(PlanInput(model="qwen2.5-7b", gpus=["RTX 9999"]))
    with pytest.raises(ToolInputError):
        plan_configurations(PlanInput(model="qwen2.5-7b", deadline="soon"))
    with pytest.raises(ToolInputError):
        plan_configurations(PlanInput(model="qwen2.5-7b", gpus=["4090"], exclude=["4090"]))


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=31),
    extra=st.integers(min_value=1, max_value=32),
    gpu=st.sampled_from(["4090", "A100 80G", "L40S"]),
    mode=st.sampled_from(["full", "lora"]),
)
def test_more_gpus_never_raise_per_gpu_memory(n: int, extra: int, gpu: str, mode: str) -> None:
    inp = PlanInput(model="qwen2.5-7b", mode=mode)
    spec = resolve_gpu(gpu)
    few = _memory_at(spec, inp, "qwen2.5-7b", None, n).total_gb
    many = _memory_at(spec, inp, "qwen2.5-7b", None, n + extra).total_gb
    assert many <= few + 1e-9


def test_full_training_on_four_plus_pcie_cards_ranks_after_every_nvlink_option() -> None:
    """The seed's rule (four or more cards for data/tensor parallel want SXM/NVLink): a 70B full
    fine-tune must not recommend 16× RTX PRO 6000 or 64× RTX 5090 over PCIe ahead of SXM servers."""
    from tools.gpus import resolve_gpu
    from tools.planner import PlanInput, plan_configurations

    out = plan_configurations(PlanInput(model="Llama-3.1-70B", mode="full", tokens="10B", top=12))
    sxm = [resolve_gpu(o.gpu).is_sxm for o in out.options]
    assert sxm[0] is True
    first_pcie = sxm.index(False) if False in sxm else len(sxm)
    assert all(sxm[:first_pcie]) and not any(sxm[first_pcie:])
    for o in out.options[first_pcie:]:
        assert "SXM/NVLink" in (o.why or "")


# ---------------------------------------------------------------- rentability and objective (issue 15)


def test_export_controlled_sxm_cards_are_costed_as_whole_servers_on_a_monthly_lease() -> None:
    # knowledge/rentability.yaml: H100 SXM only on IDC leases, 8-GPU servers, 1-month minimum (SMM/云擎天下 listings)
    out = plan_configurations(PlanInput(model="qwen2.5-7b", mode="lora", tokens="100M", gpus=["H100"]))
    opt = out.options[0]
    assert opt.rent_unit == "server_8" and opt.market == "idc_lease" and opt.count == 8
    # LoRA on 7B fits one card, yet a whole server is paid for at least one month:
    # 8 cards × ¥8,000 per card-month (prices.yaml H100 monthly low) = ¥64,000
    assert opt.cost_cny.mid == 64_000
    assert "8 卡" in " ".join(opt.notes) and "monthly" in opt.cost_basis


def test_a_card_not_offered_in_the_market_is_absent_and_explained() -> None:
    out = plan_configurations(PlanInput(model="qwen2.5-7b", mode="lora", tokens="100M", market="rental_platform"))
    assert "h100_sxm_80gb" not in {o.gpu for o in out.options}
    h100 = next(o for o in out.infeasible if o.gpu == "h100_sxm_80gb")
    assert h100.availability == "not_offered" and "export-controlled" in h100.why
    # public clouds do not rent GeForce cards
    cloud = plan_configurations(PlanInput(model="qwen2.5-7b", mode="lora", tokens="100M", market="public_cloud"))
    assert not {o.gpu for o in cloud.options} & {"rtx_4090", "rtx_3090"}
    assert all(o.market == "public_cloud" for o in cloud.options)


def test_no_bf16_card_is_not_first_for_a_bf16_model_and_says_why() -> None:
    out = plan_configurations(PlanInput(model="qwen2.5-7b", mode="lora", tokens="1B", gpus=["V100", "4090", "A10"]))
    assert out.options[0].gpu != "v100_32gb_sxm2"
    v100 = next(o for o in out.options if o.gpu == "v100_32gb_sxm2")
    assert "BF16" in v100.why and any("BF16" in f for f in v100.risk_factors)


def test_objective_changes_the_ranking_and_the_why_names_it() -> None:
    kw = dict(model="qwen2.5-7b", mode="full", tokens="2B", gpus=["4090", "A800", "H800"])
    cheap = plan_configurations(PlanInput(**kw, objective="cheapest"))
    fast = plan_configurations(PlanInput(**kw, objective="fastest"))
    safe = plan_configurations(PlanInput(**kw, objective="lowest_risk"))
    assert cheap.objective == "cheapest" and "Cheapest" in cheap.options[0].why
    assert "Fastest" in fast.options[0].why and "Lowest-risk" in safe.options[0].why
    # fastest puts the option with the fewest days first; lowest risk never starts with 8×4090 (PCIe rule, +2)
    assert fast.options[0].days.mid == min(o.days.mid for o in fast.options)
    assert safe.options[0].risk == min(o.risk for o in safe.options) and safe.options[0].gpu != "rtx_4090"
    # only a budget → fastest within it (stated)
    inferred = plan_configurations(PlanInput(model="qwen2.5-7b", mode="lora", tokens="1B", budget="5万"))
    assert inferred.objective == "fastest" and "budget" in inferred.objective_reason


def test_every_option_carries_rent_unit_and_availability() -> None:
    out = plan_configurations(PlanInput(model="qwen2.5-7b", mode="lora", tokens="1B"))
    for o in out.options:
        assert o.rent_unit in ("card", "server_8") and o.availability in ("common", "limited", "rare")
        if o.rent_unit == "server_8":
            assert o.count % 8 == 0


def test_tiny_jobs_and_non_finite_input_never_crash() -> None:
    from tools.registry import run_tool

    one = run_tool("plan_configurations", {"model": "qwen2.5-7b", "samples": 1, "seq_len": 1})
    assert "error" not in one and "under a second" in one["summary"]["en"]
    tiny = run_tool("plan_configurations", {"model": "qwen2.5-7b", "tokens": "1B", "budget": 0.01})
    assert tiny["options"] == [] and any("budget" in o["why"] for o in tiny["infeasible"])
    for bad in ({"tokens": float("inf")}, {"tokens": float("nan")}, {"tokens": "1B", "budget": float("inf")}):
        r = run_tool("plan_configurations", {"model": "qwen2.5-7b", **bad})
        assert r["error"]["zh"] and r["error"]["en"]
    r = run_tool("gpu_price", {"gpu": "4090", "hours": float("inf")})
    assert "finite" in r["error"]["en"]


def test_plan_cli_json_keeps_its_keys_and_adds_the_new_ones(capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from tests.cli_inprocess import run_cli_inprocess

    code, out, _ = run_cli_inprocess(
        capsys, "plan", "--model", "qwen2.5-7b", "--mode", "inference", "--concurrency", "8", "--json"
    )
    assert code == 0
    data = json.loads(out)
    opt = data["options"][0]
    head = ["gpu", "count", "nodes", "interconnect", "fits", "per_gpu_gb", "days", "cost_cny", "notes"]
    assert list(opt)[: len(head)] == head
    for k in ("rent_unit", "availability", "tokens_per_s", "ttft_s", "cost_per_mtok_cny"):
        assert k in opt
    assert opt["tokens_per_s"]["mid"] > 0 and opt["cost_per_mtok_cny"]["mid"] > 0
    assert data["objective"] == "cheapest"
    code, out, _ = run_cli_inprocess(
        capsys, "plan", "--model", "7B", "--mode", "lora", "--tokens", "1B", "--market", "idc_lease", "--json"
    )
    assert code == 0 and all(o["rent_unit"] == "server_8" for o in json.loads(out)["options"])


def test_price_and_train_time_cli_take_the_new_flags(capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from tests.cli_inprocess import run_cli_inprocess

    code, out, _ = run_cli_inprocess(
        capsys, "price", "4090", "--hours-per-day", "8", "--days-per-week", "5", "--weeks", "4", "--json"
    )
    assert code == 0 and json.loads(out)["usage_plan"]["cheapest"] == "hourly"
    code, out, _ = run_cli_inprocess(
        capsys,
        "train-time",
        "--params",
        "7",
        "--tokens",
        "1B",
        "--gpu",
        "4090",
        "--gpus",
        "8",
        "--strategy",
        "zero3",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["comm"]["strategy"] == "zero3" and data["mfu_effective"]["mid"] < data["mfu"]["mid"]


def test_every_gpu_has_a_rentability_row_with_evidence_or_a_reason() -> None:
    import yaml

    from tools.data import load_yaml
    from tools.rentability import MARKETS

    rent = {r["gpu"]: r for r in load_yaml("rentability.yaml")["gpus"]}
    raw = yaml.safe_load(open("knowledge/gpus.yaml", encoding="utf-8"))
    gpus = [x["id"] for v in raw.values() if isinstance(v, list) for x in v if isinstance(x, dict) and "memory_gb" in x]
    assert gpus and set(gpus) <= set(rent)
    for gid, row in rent.items():
        for m in MARKETS:
            cell = row[m]
            assert cell["unit"] in ("card", "server_8")
            assert cell.get("evidence") or cell.get("why_zh"), (gid, m)
