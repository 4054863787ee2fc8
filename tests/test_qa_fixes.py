"""Bugs a new user hit in the QA pass, each pinned to an independently known value.

Every expected figure is worked out here by hand (or is a plain fact of the input), not copied
from the program's output.
"""

from __future__ import annotations

import json
import math

import pytest

from tests.cli_inprocess import run_cli_inprocess
from tools.errors import ToolInputError

_cli = run_cli_inprocess


# ---------------------------------------------------------------- nonsense sizes are refused


@pytest.mark.parametrize("text", ["1e20", "1e14", "50000", "999"])  # 999 → 999B: fine; others are not models
def test_implausible_parameter_counts_are_refused(text):
    from tools.quantities import parse_param_count

    if text == "999":  # a bare number is billions (how people name sizes): 999B is large but real-world sized
        assert parse_param_count(text) == 999 * 10**9
        return
    with pytest.raises(ToolInputError) as err:
        parse_param_count(text)
    assert err.value.zh and err.value.en and "7B" in err.value.en


def test_estimate_cli_refuses_1e20_params_with_exit_2(capsys):
    code, out, err = _cli(capsys, "estimate", "--params", "1e20")
    assert code == 2 and out == ""
    assert err.startswith("错误 / Error:") and "Traceback" not in err


def test_largest_real_models_still_accepted():
    from tools.quantities import parse_param_count

    # DeepSeek-V3 has 671B parameters (model card); Kimi K2 about 1.04T
    assert parse_param_count("671B") == 671 * 10**9
    assert parse_param_count("1.04T") == 1_040_000_000_000


# ---------------------------------------------------------------- --params means the same everywhere


@pytest.mark.parametrize("spelling", ["7B", "7", "70亿", "7b"])
def test_train_time_params_accepts_sizes_like_estimate(capsys, spelling):
    code, out, err = _cli(
        capsys, "train-time", "--params", spelling, "--tokens", "1B", "--gpu", "A100 80G", "--mfu", "0.5", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["params"] == 7e9
    # 6·N·D = 6 × 7e9 × 1e9 = 4.2e19 FLOPs (Kaplan et al. 2020)
    assert data["flops"] == pytest.approx(4.2e19)


def test_plan_params_accepts_sizes(capsys):
    code, out, err = _cli(capsys, "plan", "--params", "7B", "--mode", "lora", "--json")
    assert code == 0, err
    assert json.loads(out)["params"] == 7e9


# ---------------------------------------------------------------- errors read as Chinese in the Chinese half


def test_pydantic_errors_have_a_chinese_half(capsys):
    code, _, err = _cli(capsys, "estimate", "--params", "7B", "--gpus", "0")
    assert code == 2
    zh, en = err.split(" / ", 1)[1].split(" / ", 1)[0], err
    assert "Input should" not in zh and "必须大于或等于 1" in zh
    assert "greater than or equal to 1" in en  # the English half keeps pydantic's wording


# ---------------------------------------------------------------- a question may start with a dash


def test_ask_keeps_a_leading_minus_as_question_text(capsys, monkeypatch):
    seen: list[str] = []

    class _Result:
        answer, tool_calls, citations, backend, latency_ms, grounded = "ok", [], [], "offline", 1.0, True

    import assistant.advisor as advisor

    monkeypatch.setattr(advisor, "ask", lambda q, **kw: seen.append(q) or _Result())
    code, out, err = _cli(capsys, "ask", "-3B", "模型能训练吗")
    assert code == 0, err
    assert seen == ["-3B 模型能训练吗"]
    code, _, err = _cli(capsys, "ask", "--jsn", "x")  # a mistyped option is still a usage error
    assert code == 2 and "--jsn" in err


# ---------------------------------------------------------------- minimum GPUs vs what is rented


def test_min_gpus_reports_whole_servers_for_70b_full_on_a100():
    from tools.memory import FindMinGpusInput, find_min_gpus

    r = find_min_gpus(FindMinGpusInput(params="70B", mode="full", gpu="A100 80GB SXM"))
    # model states alone: 70e9 × 16 B = 1,120 GB (ZeRO paper); over 80 GB cards that is > 14 GPUs
    assert r.min_gpus is not None and r.min_gpus > 1120 / 80
    # servers come with 8 GPUs: the rented count is the next multiple of 8
    assert r.rent_gpus == math.ceil(r.min_gpus / 8) * 8
    assert r.rent_per_gpu_total_gb is not None and r.rent_per_gpu_total_gb <= r.per_gpu_total_gb
    # sharded over the rented GPUs, model states are 1,120 / rent_gpus per GPU — a floor for the total
    assert r.rent_per_gpu_total_gb > 1120 / r.rent_gpus
    if r.min_gpus != r.rent_gpus:
        assert any(str(r.rent_gpus) in n["zh"] and str(r.rent_gpus) in n["en"] for n in r.notes)


def test_min_gpus_flags_thin_headroom():
    from tools.memory import FindMinGpusInput, find_min_gpus

    r = find_min_gpus(FindMinGpusInput(params="7B", mode="full", gpu="RTX 4090"))
    assert r.headroom_gb is not None
    thin = r.headroom_gb < 0.05 * 24  # 5% of a 24 GB card = 1.2 GB
    assert thin == any("5%" in n["en"] for n in r.notes)
    # 4090 servers are rented as 1/2/4/8-GPU machines: never an odd count like 7
    assert r.rent_gpus in (1, 2, 4, 8)


# ---------------------------------------------------------------- comparison stars only a strict winner


def test_compare_does_not_star_ties():
    from tools.gpus import GpuSpecsInput, gpu_specs

    out = gpu_specs(GpuSpecsInput(names=["RTX 4090", "RTX 4090D"]))
    rows = {r.field: r for r in out.comparison}
    assert rows["memory_gb"].values == [24, 24] and rows["memory_gb"].best_index is None  # both 24 GB
    assert rows["nvlink_gbs_bidir"].best_index is None  # neither has NVLink
    # Ada whitepaper: RTX 4090 BF16 dense (FP32 accumulate) 165.2 TFLOPS > 4090D 147
    assert rows["bf16_dense_tflops"].best_index == 0


# ---------------------------------------------------------------- citations a user can follow


def test_user_visible_sources_do_not_point_at_team_paths():
    from tools.train_time import mfu_band

    for mode in ("pretrain", "full", "lora", "qlora"):
        _, src = mfu_band(mode, "bf16")
        assert "../shared" not in src and ".md §" not in src, src


def test_models_family_name_lists_the_family(capsys):
    code, out, err = _cli(capsys, "models", "qwen", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["count"] >= 10 and all(m["family"] == "Qwen" for m in data["models"])


# ---------------------------------------------------------------- the sync share does not blame the best fabric


def test_big_jobs_default_to_a_larger_global_batch():
    from tools.train_time import estimate_time

    est = estimate_time(
        gpu="H100", n_gpus=64, nodes=8, network="IB NDR", active_params=70e9, tokens=2e12, mode="full", with_cost=False
    )
    assert est.comm is not None
    # 16,384 tokens per GPU × 64 GPUs = 1,048,576 tokens per step (vs the 262,144 default for ≤ 16 GPUs)
    assert est.comm.tokens_per_step == 16_384 * 64
    assert not any("interconnect is weak" in w for w in est.warnings)


# ---------------------------------------------------------------- serving across servers is not ranked as a bargain


def test_plan_serving_prefers_one_server_and_explains_cross_node():
    from tools.planner import PlanInput, plan_configurations

    out = plan_configurations(PlanInput(model="qwen2.5-72b", mode="inference", concurrency=32, context=8192, top=40))
    nodes = [o.nodes for o in out.options]
    # Qwen2.5-72B bf16 weights are 72.7e9 × 2 B ≈ 145 GB: 24 GB cards need two 8-GPU servers (192 GB < 145 GB + KV),
    # while 80 GB cards fit in one — so both kinds exist, and every one-server option ranks first
    assert 1 in nodes and any(n > 1 for n in nodes)
    assert nodes == sorted(nodes, key=lambda n: n > 1)
    for o in out.options:
        if o.nodes > 1:
            assert any("流水线" in n and "pipeline" in n for n in o.notes)


# ---------------------------------------------------------------- a user's own quote reads as one price


def test_user_quote_gives_one_break_even_line_and_its_own_date(tmp_path):
    from tools.prices import PriceInput, gpu_price

    f = tmp_path / "quotes.yaml"
    f.write_text(
        "quotes:\n  - gpu: A100 80G\n    hourly_cny: 5.2\n    monthly_cny: 3800\n"
        "    provider: Jinan IDC\n    date: '2026-11-20'\n",
        encoding="utf-8",
    )
    out = gpu_price(PriceInput(gpu="A100 80G", months=1, quotes_file=str(f)))
    # 1 month = 720 h (30 days): hourly 720 × 5.2 = ¥3,744 vs the ¥3,800 monthly quote
    assert out.total_cny.typical == 3800 and out.alternative_total_cny.typical == pytest.approx(3744)
    assert out.as_of == "2026-11-20"
    text = " ".join(out.advice)
    assert "长租/整机" not in text and "平台包月" not in text  # one monthly price, said once
    assert "30,400" in text and "30,400–30,400" not in text  # 8 × 3,800, not a range of equal ends


# ---------------------------------------------------------------- close calls are called close


def test_borderline_verdicts_are_flagged():
    from tools.memory import EstimateMemoryInput, estimate_memory

    # Qwen2.5-32B-AWQ on a 24 GB card: int4 linear layers ≈ 32.8e9 × 0.53 B ≈ 17.4 GB, plus 16-bit embedding and
    # LM head 2 × 152,064 × 5,120 × 2 B ≈ 3.1 GB and ~1 GiB CUDA context ≈ 21.6 GB, against 90% × 24 GB = 21.6 GB
    close = estimate_memory(EstimateMemoryInput(model="qwen2.5-32b", mode="inference", precision="int4", gpu="4090"))
    assert abs(close.headroom_gb) < 0.05 * 24 and close.borderline is True
    assert "0.0 GB" not in close.summary["zh"] and "0.0 GB" not in close.summary["en"]
    # 7B full fine-tuning needs ≥ 7e9 × 16 B = 112 GB of model states: nowhere near 24 GB
    far = estimate_memory(EstimateMemoryInput(params="7B", mode="full", gpu="4090"))
    assert far.fits is False and far.borderline is False


# ---------------------------------------------------------------- how people name DeepSeek-R1


@pytest.mark.parametrize("query", ["ds r1", "ds-r1", "deepseek r1 满血版", "DeepSeek-R1 671B", "ds r1满血"])
def test_colloquial_deepseek_r1_names(query):
    from tools.models import resolve_model

    m = resolve_model(query)
    assert m.name == "DeepSeek-R1"
    # DeepSeek-R1 model card: 671B total parameters, 37B activated per token
    assert m.params == pytest.approx(671e9, rel=0.01) and m.active_params == pytest.approx(37e9, rel=0.05)


def test_a_size_that_disagrees_with_the_name_is_not_swallowed():
    from tools.models import find_entry

    assert find_entry("Qwen2.5-7B 70B") is None  # 70B is not Qwen2.5-7B's size


def test_hourly_price_is_not_rounded_to_whole_yuan():
    from tools.prices import PriceInput, gpu_price

    out = gpu_price(PriceInput(gpu="L20", hours=1, hourly_quote_cny=6.5))
    # one hour at the ¥6.5 quote is ¥6.5 — printing "¥6" or "¥7" would contradict the quote
    assert out.total_cny.typical == pytest.approx(6.5)
    assert "¥6.5 " in out.advice[1] or "¥6.5）" in out.advice[1], out.advice


# ---------------------------------------------------------------- pasting a log into `chat`


def test_chat_takes_a_fenced_multiline_paste_as_one_turn_and_answers_in_the_users_language(capsys, monkeypatch):
    import io
    import sys

    from assistant.advisor import resolve_language

    log = (
        "[Tue Mar  3 11:02:15 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, "
        "GPU has fallen off the bus.\n[Tue Mar  3 11:02:15 2026] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."
    )
    seen: list[str] = []

    def fake_stream(question, **kw):
        seen.append(question)
        yield {
            "type": "final",
            "result": type(
                "R",
                (),
                {
                    "answer": "ok",
                    "tool_calls": [],
                    "citations": [],
                    "backend": "offline",
                    "latency_ms": 1.0,
                    "grounded": True,
                },
            )(),
        }

    import assistant.advisor as advisor

    monkeypatch.setattr(advisor, "stream", fake_stream)
    monkeypatch.setattr(
        sys, "stdin", io.TextIOWrapper(io.BytesIO(f'帮我看看\n"""\n{log}\n"""\n'.encode("utf-8")), encoding="utf-8")
    )
    code, _, err = _cli(capsys, "chat")
    assert code == 0, err
    assert seen == ["帮我看看", log]  # two turns: the sentence, then the whole two-line paste
    # a bare English log after a Chinese turn is answered in Chinese
    assert resolve_language("auto", log, [{"role": "user", "content": "帮我看看"}]) == "zh"
    assert resolve_language("auto", log) == "en"
