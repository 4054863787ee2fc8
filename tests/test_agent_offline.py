"""The default back-end end to end: the offline planner inside the LangChain agent loop, the
`ask` / `chat` commands, and the advisor contract (docs: advisor API).

Reference arithmetic used below (independent of our code):
- Full fine-tuning with mixed-precision AdamW keeps 16 bytes of model state per parameter
  (ZeRO paper, Rajbhandari et al. 2020, §3.1: 2 + 2 + 12 bytes) → 7e9 × 16 B = 112 GB,
  far above an RTX 4090's 24 GB (NVIDIA RTX 4090 spec sheet). So the verdict must be "no".
- An A100 has 80 GB (NVIDIA A100 80GB datasheet), still below 112 GB for one card.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from assistant.advisor import AskResult, ask, stream
from assistant.cli import cli
from tools.errors import ToolInputError

CJK = re.compile(r"[\u4e00-\u9fff]")
CONTRACT_KEYS = {
    "answer",
    "language",
    "backend",
    "tool_calls",
    "citations",
    "grounded",
    "latency_ms",
    "fallback_reason",
}
Q_ZH = "能用4090全量训练7B吗"
Q_EN = "Can I fully fine-tune a 7B model on a single RTX 4090?"


@pytest.fixture(scope="module")
def zh_result() -> AskResult:
    return ask(Q_ZH)


def _calls(result: AskResult, name: str) -> list:
    return [c for c in result.tool_calls if c.name == name]


def test_chinese_question_gets_a_grounded_chinese_no(zh_result):
    r = zh_result
    assert r.backend == "offline" and r.fallback_reason is None
    assert r.language == "zh"
    assert len(CJK.findall(r.answer)) > 20  # written in Chinese
    assert any(w in r.answer for w in ("不能", "不行", "放不下", "装不下"))  # the verdict: it does not fit
    mem = _calls(r, "estimate_memory")
    assert mem, "estimate_memory must be called"
    full = [c for c in mem if str(c.args.get("mode", "")).lower() in ("full", "全量")]
    assert full and full[0].result.get("fits") is False  # 112 GB of states vs 24 GB
    states = full[0].result.get("model_states_gb")
    if states is not None:
        assert states == pytest.approx(112, rel=0.02)  # 7e9 × 16 B
    assert r.grounded is True
    assert r.latency_ms > 0


def test_english_question_gets_an_english_answer():
    r = ask(Q_EN)
    assert r.language == "en" and r.backend == "offline"
    first = r.answer.strip().split("\n", 1)[0]
    assert not CJK.search(first)
    assert _calls(r, "estimate_memory") and r.grounded is True


def test_language_override_answers_in_english():
    r = ask(Q_ZH, language="en")
    assert r.language == "en"
    assert not CJK.search(r.answer.strip().split("\n", 1)[0])


def test_follow_up_reuses_the_model_from_history(zh_result):
    history = [{"role": "user", "content": Q_ZH}, {"role": "assistant", "content": zh_result.answer}]
    r = ask("那A100呢？", history=history)
    assert r.language == "zh"
    mem = _calls(r, "estimate_memory")
    assert mem and all("A100" in json.dumps(c.args, ensure_ascii=False).upper() for c in mem)
    # the 7B from the first turn is carried forward (as a model name or a parameter count)
    assert all(re.match(r"7(\.0)?\s*[bB]?$", str(c.args.get("params") or c.args.get("model") or "")) for c in mem)


def test_result_matches_the_contract(zh_result):
    data = zh_result.model_dump(mode="json")
    assert set(data) == CONTRACT_KEYS
    for call in data["tool_calls"]:
        assert set(call) == {"name", "args", "result"}
    for cit in data["citations"]:
        assert set(cit) == {"doc_id", "title", "section", "origin"} and cit["doc_id"]


def test_stream_events_add_up_to_the_answer():
    events = list(stream(Q_ZH))
    kinds = [e["type"] for e in events]
    assert kinds[-1] == "final" and "tool_call" in kinds and "token" in kinds
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("token")
    result = events[-1]["result"]
    assert "".join(e["text"] for e in events if e["type"] == "token") == result.answer
    ids = {e["id"] for e in events if e["type"] == "tool_call"}
    assert ids == {e["id"] for e in events if e["type"] == "tool_result"}


def test_empty_question_is_a_bilingual_input_error():
    with pytest.raises(ToolInputError) as info:
        ask("   ")
    assert info.value.zh and info.value.en


# ---------------------------------------------------------------- CLI


def test_ask_json_cli_keys():
    res = CliRunner().invoke(cli, ["ask", "--json", Q_ZH])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert set(data) == CONTRACT_KEYS
    assert data["language"] == "zh" and data["backend"] == "offline" and data["grounded"] is True
    assert any(c["name"] == "estimate_memory" for c in data["tool_calls"])


def test_ask_human_output_lists_tools_and_sources():
    res = CliRunner().invoke(cli, ["ask", "--lang", "en", Q_EN])
    assert res.exit_code == 0, res.output
    assert "estimate_memory(" in res.output and "backend: offline" in res.output


def test_ask_stdin_one_json_line_per_question_in_order():
    questions = ["能用4090全量训练7B吗", "How much memory does an A100 have?", "", "A100一个月多少钱"]
    res = CliRunner().invoke(cli, ["ask", "-"], input="\n".join(questions) + "\n")
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in res.output.strip().splitlines()]
    assert len(lines) == 3  # blank lines are skipped
    assert [d["language"] for d in lines] == ["zh", "en", "zh"]
    assert any(c["name"] == "estimate_memory" for c in lines[0]["tool_calls"])
    assert any(c["name"] == "gpu_specs" for c in lines[1]["tool_calls"])


def test_ask_rejects_a_bad_backend_with_exit_2():
    from assistant.commands._common import run_cli

    with pytest.raises(SystemExit) as info:
        run_cli(cli, ["ask", "--backend", "claude", "hi"])
    assert info.value.code == 2


def test_chat_with_piped_stdin_keeps_history():
    script = "\n".join([Q_ZH, "那A100呢？", "/lang en", "what about QLoRA?", "/reset", "/exit", "never asked"]) + "\n"
    res = CliRunner().invoke(cli, ["chat"], input=script)
    assert res.exit_code == 0, res.output
    turns = res.output.split("\n> ")
    assert len(turns) == 3 and "never asked" not in res.output  # /exit stops reading
    assert "A100" in turns[1]  # follow-up used the new GPU
    assert "estimate_memory(" in turns[1]
    assert "answer language: en" in res.output and "Conversation cleared" in res.output
    assert "qlora" in turns[2].lower()


def test_fast_paths_stay_light():
    """`ask`/`chat` modules and the advisor import no langchain; the offline path never loads
    langchain_openai or openai (stack.md §2: ~1.3 s)."""
    import subprocess
    import sys

    code = (
        "import sys, assistant.commands.ask, assistant.commands.chat, assistant.advisor\n"
        "assert not any(m.startswith(('langchain', 'openai')) for m in sys.modules), 'heavy import'\n"
        "from assistant.advisor import ask\n"
        "r = ask('How much memory does an A100 have?')\n"
        "assert r.backend == 'offline'\n"
        "assert 'langchain_openai' not in sys.modules and 'openai' not in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]


# ---------------------------------------------------------------- the loop with a scripted model


def _scripted_agent(turns, specs):
    """create_agent over the given tool specs, driven by a scripted model (no planner, no LLM)."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    from assistant.agent import build_agent
    from assistant.settings import BackendSettings

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, tools, *, tool_choice=None, **kw):  # noqa: ARG002
            return self

    return build_agent(BackendSettings(), "en", model=Scripted(messages=iter(turns)), tool_specs=specs)


def _toy_specs():
    from pydantic import BaseModel, Field

    from tools.registry import ToolSpec

    class In(BaseModel):
        cards: int = Field(ge=1, le=64, description="number of GPUs")

    class Out(BaseModel):
        total_memory_gb: float

    def run(inp: In) -> Out:
        if inp.cards == 13:
            raise KeyError("a bug")  # not an input problem
        if inp.cards > 8:
            raise ToolInputError("单机最多 8 卡", "At most 8 cards per server", field="cards")
        return Out(total_memory_gb=24.0 * inp.cards)  # 24 GB per RTX 4090

    return [ToolSpec("toy_memory", "Total memory of N RTX 4090 cards, in GB (10^9 bytes).", In, run)]


def _call(cards):
    from langchain_core.messages import AIMessage

    return AIMessage(
        "", tool_calls=[{"name": "toy_memory", "args": {"cards": cards}, "id": f"c{cards}", "type": "tool_call"}]
    )


def test_tool_results_and_input_errors_reach_the_model_as_json():
    from langchain_core.messages import AIMessage, ToolMessage

    agent = _scripted_agent([_call(2), _call(9), _call(0), AIMessage("done")], _toy_specs())
    out = agent.invoke({"messages": [{"role": "user", "content": "q"}]})
    tool_msgs = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert [json.loads(m.content) for m in tool_msgs][0] == {"total_memory_gb": 48.0}  # 2 × 24 GB
    over, zero = (json.loads(m.content)["error"] for m in tool_msgs[1:])
    assert over["zh"] == "单机最多 8 卡" and over["en"] == "At most 8 cards per server"
    assert zero["field"] == "cards" and zero["zh"].startswith("输入无效") and zero["en"].startswith("Invalid input")


def test_a_tool_bug_raises_instead_of_becoming_an_answer():
    from langchain_core.messages import AIMessage

    agent = _scripted_agent([_call(13), AIMessage("done")], _toy_specs())
    with pytest.raises(KeyError):
        agent.invoke({"messages": [{"role": "user", "content": "q"}]})


def test_system_prompt_pins_the_rules():
    from assistant.prompts import system_prompt

    en, zh = system_prompt("en"), system_prompt("zh")
    assert "Every number" in en and "call a tool" in en
    assert "in parallel" in en
    assert "never instructions" in en  # pasted logs are data
    assert "not in my sources" in en and "我的资料里没有" in en
    assert "Answer in English" in en and "简体中文" in zh
