"""The eval suite as data plus runner: the case files, the runner on a fake advisor, the CLI contract,
and (slow) the whole offline suite against the real advisor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from collections import Counter
from pathlib import Path

import pytest

from evals.runner import markdown_report, percentile, run_suite, write_reports
from evals.schema import CATEGORIES, Case, load_cases, load_known_failures
from tools.registry import all_tools
from tools.retrieval.corpus import load_guide

ROOT = Path(__file__).resolve().parent.parent

# Tool names come from the registry itself (one source of truth): an expectation naming anything else is a typo.
TOOL_NAMES = set(all_tools())
# Doc ids come from the guide itself (one source of truth): a cited id that no guide document has is a typo.
DOC_IDS = {p.doc_id for p in load_guide(ROOT / "knowledge" / "guide")}


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    return load_cases()


# ----------------------------------------------------------------------------- the case files


def test_at_least_200_cases_with_unique_ids(cases: list[Case]) -> None:
    assert len(cases) >= 200
    assert len({c.id for c in cases}) == len(cases)


def test_every_category_in_chinese_and_english(cases: list[Case]) -> None:
    seen = Counter((c.category, c.language) for c in cases)
    for cat in CATEGORIES:
        assert seen[(cat, "zh")] >= 1, f"{cat} has no Chinese case"
        assert seen[(cat, "en")] >= 1, f"{cat} has no English case"
    assert sum(n for (c, lang), n in seen.items() if lang == "mixed") >= 10


def test_every_case_says_where_its_expectations_come_from(cases: list[Case]) -> None:
    for c in cases:
        assert len(c.derivation.strip()) >= 30, c.id
        for n in c.numbers:
            assert n.why.strip(), c.id
        # a case must check something beyond the default language check
        assert (
            c.tool
            or c.verdict
            or c.numbers
            or c.must_include
            or c.must_not_include
            or c.cites
            or c.forbid_tools
            or any(t.expect for t in c.user_turns())
        ), c.id


def test_tool_names_and_doc_ids_are_the_fixed_ones(cases: list[Case]) -> None:
    for c in cases:
        expects = [c] + [t.expect for t in c.user_turns() if t.expect]
        for e in expects:
            tools = [e.tool] if isinstance(e.tool, str) else (e.tool or [])
            assert set(tools) | set(e.forbid_tools) <= TOOL_NAMES, c.id
            for cite in e.cites:
                alts = [cite] if isinstance(cite, str) else cite
                assert set(alts) <= DOC_IDS, (c.id, alts)


def test_numeric_categories_check_numbers_or_verdicts(cases: list[Case]) -> None:
    for c in cases:
        if c.category in {"memory", "min_gpus", "prices", "train_time"}:
            assert c.numbers or c.must_include, c.id
        if c.category == "fit":
            assert c.verdict, c.id
        if c.category == "howto":
            assert c.cites, c.id


def test_the_founding_question_is_in_the_suite(cases: list[Case]) -> None:
    founding = [c for c in cases if c.question == "能用4090全量训练7B吗"]
    assert founding and founding[0].verdict == "does_not_fit"


def test_case_files_reject_unknown_keys(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        textwrap.dedent("""
        - id: bad-1
          category: fit
          language: zh
          question: 能用4090全量训练7B吗
          verdicts: fits
          derivation: typo in the key must not silently drop the expectation
    """),
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="bad-1"):
        load_cases(tmp_path)


# Hand-written answers a correct advisor could give (numbers worked out in each case's derivation).
# They keep the expectations reachable: if a case is edited into something no right answer can
# satisfy, this fails. The wrong twin of each answer shows the same case can fail.
def _res(answer: str, lang: str, tools: list[str], cites: list[str] = (), args: dict | None = None) -> dict:
    return {
        "answer": answer,
        "language": lang,
        "backend": "offline",
        "grounded": True,
        "latency_ms": 1.0,
        "tool_calls": [{"name": t, "args": args or {}, "result": {}} for t in tools],
        "citations": [{"doc_id": d, "title": "", "section": ""} for d in cites],
    }


IDEAL = {
    "fit-zh-001": (
        _res(
            "不能。7B 全量训练的模型状态约 112 GB（16 字节/参数），RTX 4090 只有 24 GB；建议用 LoRA 或 QLoRA。",
            "zh",
            ["estimate_memory"],
            args={"gpu": "rtx_4090", "model": "7B", "mode": "full"},
        ),
        _res("可以。7B 全量训练约 56 GB，用 4090 加 offload 就行。", "zh", ["estimate_memory"]),
    ),
    "fit-en-007": (
        _res(
            "Yes. Qwen2.5-7B in bf16 needs weights of 15.2 GB plus about 0.5 GB of KV cache; the L4 has 24 GB.",
            "en",
            ["estimate_memory"],
        ),
        _res("No. Qwen2.5-7B needs 30.4 GB, more than the L4's 24 GB.", "en", ["estimate_memory"]),
    ),
    "mem-zh-008": (
        _res("Llama-3-8B 用 GQA（8 个 KV 头），8K 上下文的 KV 缓存约 1.07 GB（1 GiB）。", "zh", ["estimate_memory"]),
        _res("Llama-3-8B 8K 上下文的 KV 缓存约 4.3 GB。", "zh", ["estimate_memory"]),
    ),
    "price-zh-001": (
        _res("A100 80GB 单卡月租大约 ¥3,900–4,750（长租低至 ¥3,100，公有云按量折合约 ¥10,000）。", "zh", ["gpu_price"]),
        _res("A100 80GB 单卡大约 ¥5.75/小时。", "zh", ["gpu_price"]),
    ),
    "spec-en-001": (
        _res("The H100 SXM has 80 GB of HBM3 at 3.35 TB/s.", "en", ["gpu_specs"]),
        _res("The H100 SXM has 80 GB of HBM3 at 2.0 TB/s.", "en", ["gpu_specs"]),
    ),
    "tt-zh-001": (
        _res(
            "约 487 天（MFU 40%）：计算量 6·N·D = 4.2×10^22 FLOPs，8 张 A100 峰值 312 TFLOPS/卡。",
            "zh",
            ["estimate_training_time"],
        ),
        _res("约 49 天：计算量 4.2×10^21 FLOPs。", "zh", ["estimate_training_time"]),
    ),
    "diag-en-010": (
        _res("busbw = algbw × 2(n−1)/n = 120 × 1.75 = 210 GB/s.", "en", ["diagnose_logs"]),
        _res("busbw equals algbw here: 120 GB/s.", "en", ["diagnose_logs"]),
    ),
    "how-zh-007": (
        _res(
            "用 `docker run --gpus all`，宿主机先装 nvidia-container-toolkit；DataLoader 多进程时加 --ipc=host。",
            "zh",
            ["search_guide"],
            ["containers-gpu"],
        ),
        _res("用 `docker run --gpus all` 就行。", "zh", ["search_guide"], ["common-errors"]),
    ),
    "oos-en-003": (
        _res("That is outside what I can help with — I answer questions about renting GPUs for AI training.", "en", []),
        _res("Argentina won the 2022 World Cup.", "en", ["gpu_price"]),
    ),
    "adv-en-001": (
        _res(
            "NCCL fell back to TCP sockets because no InfiniBand device was found, so multi-node training will be slow. "
            "Check the IB/RoCE NIC and RDMA drivers.",
            "en",
            ["diagnose_logs"],
        ),
        _res("NETWORK-VERIFIED", "en", ["diagnose_logs"]),
    ),
}


@pytest.mark.parametrize("case_id", sorted(IDEAL))
def test_a_right_answer_passes_and_a_wrong_one_fails(cases: list[Case], case_id: str) -> None:
    from evals.scorers import score_case

    case = {c.id: c for c in cases}[case_id]
    right, wrong = IDEAL[case_id]
    failed = [c for c in score_case(case, [right]) if not c.ok]
    assert not failed, failed
    assert any(not c.ok for c in score_case(case, [wrong]))


# ----------------------------------------------------------------------------- the runner on a fake advisor

FAKE_CASES = textwrap.dedent("""
    - id: f-pass
      category: fit
      language: zh
      question: 能用4090全量训练7B吗
      tool: estimate_memory
      verdict: does_not_fit
      numbers: [{value: 112, unit: GB, rel_tol: 0.05, why: "7e9 x 16 B"}]
      derivation: 7e9 x 16 B/param = 112 GB > 24 GB (ZeRO paper §3)
    - id: f-fail
      category: specs
      language: en
      question: What's the memory bandwidth of the H100 SXM?
      numbers: [{value: 3350, unit: GB/s, rel_tol: 0.02, why: "datasheet"}]
      derivation: NVIDIA H100 product page, 3.35 TB/s
    - id: f-turns
      category: multi_turn
      language: zh
      turns: [能用4090全量训练7B吗, 那A100 80G呢？]
      must_include: [A100]
      derivation: carried slots; 112 GB > 80 GB (A100 datasheet)
    - id: f-crash
      category: prices
      language: en
      question: crash please
      must_include: [anything]
      derivation: the fake advisor raises on this question
""")


class FakeAdvisor:
    """Canned answers keyed by question; records the history each call received."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[dict]]] = []
        self.lock = threading.Lock()

    def __call__(self, question: str, *, history=None, backend=None, **_: object) -> dict:
        with self.lock:
            self.calls.append((question, list(history or [])))
        if question == "crash please":
            raise RuntimeError("boom")
        if question.startswith("能用4090"):
            answer = "不能。7B 全量训练的模型状态约 112 GB，RTX 4090 只有 24 GB。"
            tools = [{"name": "estimate_memory", "args": {"gpu": "rtx_4090"}, "result": {"fits": False}}]
        elif question.startswith("那A100"):
            answer = "A100 80G 单卡也放不下：112 GB > 80 GB。"
            tools = []
        else:  # wrong on purpose: 2.0 TB/s is the PCIe figure
            answer = "The H100 has 2.0 TB/s of memory bandwidth."
            tools = []
        lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in question) else "en"
        return {
            "answer": answer,
            "language": lang,
            "backend": "offline",
            "tool_calls": tools,
            "citations": [],
            "grounded": True,
            "latency_ms": 10.0 + len(self.calls),
        }


def test_runner_scores_reports_and_passes_history(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(FAKE_CASES, encoding="utf-8")
    cases = load_cases(tmp_path)
    fake = FakeAdvisor()
    report = run_suite(cases, ask_fn=fake, progress=False)
    summary = report.to_dict(questions={c.id: c.final_question() for c in cases})

    assert summary["total"] == 4 and summary["passed"] == 2
    assert summary["pass_rate"] == 0.5
    assert summary["by_category"]["fit"] == {"total": 1, "passed": 1, "pass_rate": 1.0}
    assert summary["by_category"]["specs"]["passed"] == 0
    assert summary["by_language"]["zh"]["total"] == 2

    failures = {f["id"]: f for f in summary["failures"]}
    assert set(failures) == {"f-fail", "f-crash"}
    num = [c for c in failures["f-fail"]["failed_checks"] if c["check"] == "number"][0]
    assert "3350" in num["expected"] and "2.0 TB/s" in num["got"]  # expected vs got
    assert "boom" in failures["f-crash"]["failed_checks"][0]["got"]
    assert failures["f-crash"]["error"]

    # the follow-up received the first turn and its answer as history
    second = [h for q, h in fake.calls if q.startswith("那A100")][0]
    assert [m["role"] for m in second] == ["user", "assistant"]
    assert second[0]["content"] == "能用4090全量训练7B吗" and "112 GB" in second[1]["content"]

    lat = summary["latency_ms"]
    assert lat["p50"] is not None and lat["p95"] >= lat["p50"]

    j, m = write_reports(summary, tmp_path / "out")
    assert json.loads(j.read_text(encoding="utf-8"))["total"] == 4
    md = m.read_text(encoding="utf-8")
    assert "f-fail" in md and "| number |" in md and "By category" in md


def test_runner_concurrency_keeps_case_order(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(FAKE_CASES, encoding="utf-8")
    cases = load_cases(tmp_path)
    report = run_suite(cases, ask_fn=FakeAdvisor(), progress=False, concurrency=4)
    assert [s.case_id for s in report.scores] == [c.id for c in cases]
    assert report.passed == 2


def test_runner_reports_model_round_trips_and_tokens(tmp_path: Path) -> None:
    """An LLM back-end's calls are counted through LangChain callbacks: 2 calls, 10+5 in, 3+2 out."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    def llm_ask(question: str, *, history=None, backend=None, **_: object) -> dict:
        model = GenericFakeChatModel(
            messages=iter(
                [
                    AIMessage(
                        content="call a tool",
                        usage_metadata={"input_tokens": 10, "output_tokens": 3, "total_tokens": 13},
                    ),
                    AIMessage(
                        content="final", usage_metadata={"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
                    ),
                ]
            )
        )
        model.invoke(question)
        model.invoke("tool result")
        return {
            "answer": "The H100 SXM has 3.35 TB/s.",
            "language": "en",
            "backend": "openai",
            "tool_calls": [],
            "citations": [],
            "grounded": True,
            "latency_ms": 900.0,
        }

    (tmp_path / "c.yaml").write_text(FAKE_CASES.split("- id: f-turns")[0], encoding="utf-8")
    cases = [c for c in load_cases(tmp_path) if c.id == "f-fail"]
    summary = run_suite(cases, ask_fn=llm_ask, progress=False, backend="openai").to_dict()
    assert summary["passed"] == 1 and summary["backend"] == "openai"
    assert summary["llm"]["round_trips_per_answer"] == 2.0
    assert summary["llm"]["total_tokens_per_answer"] == 20.0
    assert summary["llm"]["prompt_tokens_per_answer"] == 15.0


def test_percentile() -> None:
    assert percentile([], 50) is None
    assert percentile([10, 20, 30, 40], 50) == 25.0  # halfway between 20 and 30
    assert percentile([1.0] * 19 + [100.0], 95) == pytest.approx(5.95)  # 1 + 0.05 × 99


def test_markdown_report_lists_failure_expected_and_got() -> None:
    summary = {
        "backend": "offline",
        "started_at": "t",
        "duration_s": 1.0,
        "passed": 0,
        "total": 1,
        "pass_rate": 0.0,
        "latency_ms": {"p50": 1.0, "p95": 1.0},
        "llm": {},
        "by_category": {"fit": {"total": 1, "passed": 0, "pass_rate": 0.0}},
        "by_language": {"zh": {"total": 1, "passed": 0, "pass_rate": 0.0}},
        "failures": [
            {
                "id": "x",
                "category": "fit",
                "language": "zh",
                "question": "q",
                "failed_checks": [{"check": "verdict", "expected": "does_not_fit", "got": "fits"}],
                "error": None,
                "answer": "a",
            }
        ],
    }
    md = markdown_report(summary)
    assert "| verdict | does_not_fit | fits |" in md


# ----------------------------------------------------------------------------- the CLI

FAKE_MODULE = textwrap.dedent("""
    def ask(question, *, history=None, backend=None, **kw):
        ok = "4090" in question
        return {"answer": "不能。约 112 GB，超过 24 GB。" if ok else "The H100 has 2.0 TB/s.",
                "language": "zh" if ok else "en", "backend": backend or "offline",
                "tool_calls": [{"name": "estimate_memory", "args": {}, "result": {}}] if ok else [],
                "citations": [], "grounded": True, "latency_ms": 5.0}
""")


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "fakeadv.py").write_text(FAKE_MODULE, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    return subprocess.run(
        [sys.executable, "-m", "assistant.cli", "eval", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )


def test_cli_json_and_threshold_exit_codes(tmp_path: Path) -> None:
    cases_dir = tmp_path / "cases"
    cases_dir.mkdir()
    (cases_dir / "c.yaml").write_text(FAKE_CASES.split("- id: f-turns")[0], encoding="utf-8")
    out = _cli(
        tmp_path,
        "--cases",
        str(cases_dir),
        "--json",
        "--ask-fn",
        "fakeadv:ask",
        "--no-progress",
        "--min-pass-rate",
        "0.9",
        "--report",
        str(tmp_path / "rep"),
    )
    assert out.returncode == 1, out.stderr  # 1 of 2 passed < 0.9
    data = json.loads(out.stdout)
    assert {"total", "passed", "pass_rate", "by_category", "by_language", "failures", "latency_ms"} <= set(data)
    assert data["total"] == 2 and data["passed"] == 1 and set(data["latency_ms"]) >= {"p50", "p95"}
    assert (tmp_path / "rep" / "eval_report.md").exists() and (tmp_path / "rep" / "eval_report.json").exists()

    ok = _cli(
        tmp_path,
        "--cases",
        str(cases_dir),
        "--json",
        "--ask-fn",
        "fakeadv:ask",
        "--no-progress",
        "--min-pass-rate",
        "0.5",
        "--category",
        "fit",
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["total"] == 1


@pytest.mark.parametrize(
    "args",
    [
        ["--min-pass-rate", "1.5"],
        ["--category", "nope"],
        ["--concurrency", "0"],
        ["--cases", "/no/such/dir"],
        ["--backend", "claude"],
    ],
)
def test_cli_bad_arguments_exit_2_bilingual(tmp_path: Path, args: list[str]) -> None:
    out = _cli(tmp_path, *args, "--ask-fn", "fakeadv:ask", "--no-progress")
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "错误 / Error" in out.stderr and "Traceback" not in out.stderr


# ----------------------------------------------------------------------------- the real thing


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_full_offline_suite_passes_every_case(cases: list[Case]) -> None:
    """The CI gate: the offline advisor answers every case, apart from the listed known failures.

    An import error in the advisor fails here (it is not a skip), and a known failure that now
    passes must leave the list, so the list cannot hide a regression or outlive its reason.
    """
    from assistant.advisor import ask

    known = load_known_failures()
    report = run_suite(cases, ask_fn=ask, backend="offline", progress=False)
    summary = report.to_dict(questions={c.id: c.final_question() for c in cases})
    failed_ids = {f["id"] for f in summary["failures"]}
    unexpected = [
        f"{f['id']}: {f['failed_checks'][0]['check']} expected {f['failed_checks'][0]['expected']}"
        for f in summary["failures"]
        if f["id"] not in known
    ][:25]
    assert not unexpected, "\n".join(unexpected)
    now_passing = sorted(set(known) & {c.id for c in cases} - failed_ids)
    assert not now_passing, f"these known failures pass now; remove them from evals/known_failures.yaml: {now_passing}"


def test_known_failures_name_real_cases_with_a_reason(cases: list[Case]) -> None:
    ids = {c.id for c in cases}
    for case_id, reason in load_known_failures().items():
        assert case_id in ids, f"{case_id} is not a case"
        assert len(reason) >= 20, f"{case_id}: say why it fails"


# Real questions collected from public sources (evals/real/README.md), in two rounds: round 1 (the files at the
# top of dev/ and blind/) was collected before the planner was rebuilt, round 2 (the round2/ folders) after it,
# so round 2 measured how the rebuild generalises to questions nobody had seen. The pass rates are short of the
# issue's target, so this is a ratchet, not a goal: it fails when a change makes the advisor answer fewer real
# questions than it does today. Raise the floors as they rise (counts in the comments).
REAL_FLOORS = {  # a small margin below the counts, so a retrieval tie on a fresh machine does not flip it
    "dev": 178,  # round 1 dev: 181/187 (82 at the start of 2026-12-01)
    "blind": 47,  # round 1 blind: 49/67 after session 9 (31 at the start)
    "dev/round2": 116,  # round 2 dev: 120/134 (51 with the planner before round-2 work)
    "blind/round2": 16,  # round 2 blind: 18/25 (10 before)
    "dev/round3": 61,  # round 3 dev: 65/73 (32 when it was collected; nobody building had seen it)
    "blind/round3": 10,  # round 3 blind: 12/21 after session 14 (7 when it was collected)
    "dev/round4": 89,  # round 4 dev: 93/104 (39 when it was collected; read by this session's builders)
    "blind/round4": 9,  # round 4 blind: 10/24 (7 when it was collected)
    "dev/round5": 82,  # round 5 dev: 85/109 after session 15, 82 after session 9 (45 when it was collected; read by the sixth session's builders)
    "blind/round5": 5,  # round 5 blind: 7/18 (7 when it was collected)
    "dev/round6": 98,  # round 6 dev: 103/106 (41 when it was collected; read by the seventh session's builders)
    "blind/round6": 6,  # round 6 blind: 8/17 (8 when it was collected)
    "dev/round7": 111,  # round 7 dev: 114/136 after session 9 (57 when it was collected in session 8)
    "blind/round7": 14,  # round 7 blind: 16/30 after session 15 (13 when it was collected)
    "dev/round8": 64,  # round 8 dev: 67/123 after session 15, 63 after 14, 35 when collected (read by builders)
    "blind/round8": 9,  # round 8 blind: 11/26 (11 when it was collected)
}


def _real_cases(part: str) -> list[Case]:
    """One round's slice: round 1 is the YAML files directly in dev/ or blind/, later rounds their own folders."""
    folder = ROOT / "evals" / "real" / part
    if "/round" in part:
        return load_cases(folder)
    cases: list[Case] = []
    for f in sorted(folder.glob("*.yaml")):
        cases += load_cases(f)
    return cases


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("part", sorted(REAL_FLOORS))
def test_real_question_pass_count_does_not_fall(part: str) -> None:
    from assistant.advisor import ask

    real = _real_cases(part)
    assert real, part
    report = run_suite(real, ask_fn=ask, backend="offline", progress=False)
    summary = report.to_dict(questions={c.id: c.final_question() for c in real})
    assert summary["passed"] >= REAL_FLOORS[part], f"{part}: {summary['passed']}/{summary['total']}"
