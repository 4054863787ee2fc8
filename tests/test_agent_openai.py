"""The LLM back-end for real over HTTP: the `openai` client, through LangChain's ChatOpenAI and
`create_agent`, against the local stub server (tests/stub_openai_server.py). No internet.

Each stub `model` name scripts one behaviour (see the stub's docstring). Tool calls run the
real registry tools; the A100 figures asserted below come from NVIDIA's A100 datasheet
(80 GB HBM2e, 2,039 GB/s on the 80GB SXM4), not from our code.
"""

from __future__ import annotations

import json
import logging

import pytest

from assistant.advisor import AskResult, ask, stream
from assistant.settings import BackendSettings
from tests.stub_openai_server import INVENTED, StubOpenAI
from tools.registry import all_tools

SECRET = "sk-test-DO-NOT-LEAK-7f3a9c"
pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def stub():
    with StubOpenAI(
        plan=[("gpu_specs", {"names": ["A100"]}), ("search_guide", {"query": "A100 80GB 显存 带宽"})], slow_seconds=1.5
    ) as server:
        yield server


@pytest.fixture(autouse=True)
def _fresh(stub):
    stub.reset()


def settings_for(stub: StubOpenAI, model: str, **kw) -> BackendSettings:
    values = dict(
        backend="openai", base_url=stub.base_url, model=model, api_key=SECRET, max_retries=1, timeout_s=5.0, max_steps=4
    )
    values.update(kw)
    return BackendSettings(**values)


def _header(rec, name: str) -> str:
    return next((v for k, v in rec.headers.items() if k.lower() == name.lower()), "")


def _final(events: list[dict]) -> AskResult:
    assert events[-1]["type"] == "final"
    return events[-1]["result"]


# ---------------------------------------------------------------- happy paths


def test_tool_call_then_answer_non_streaming(stub):
    result = ask("How much memory does an A100 have?", settings=settings_for(stub, "tool_then_answer"))
    assert result.backend == "openai" and result.fallback_reason is None
    assert result.language == "en"
    assert [c.name for c in result.tool_calls] == ["gpu_specs"]
    assert result.tool_calls[0].args == {"names": ["A100"]}
    gpu = result.tool_calls[0].result["gpus"][0]
    assert gpu["memory_gb"] == 80.0  # A100 80GB datasheet
    assert "80.0" in result.answer and result.grounded is True

    reqs = stub.chat_requests()
    assert len(reqs) == 2  # one round of tools, then the answer
    assert all(r.body["stream"] is False for r in reqs)
    assert _header(reqs[0], "authorization") == f"Bearer {SECRET}"
    offered = {t["function"]["name"] for t in reqs[0].body["tools"]}
    assert offered == set(all_tools())  # every registry tool, one registry
    system = reqs[0].body["messages"][0]
    assert system["role"] == "system" and "tool" in system["content"].lower()
    # the second request carries the assistant's tool call and our tool result, linked by id
    second = reqs[1].body["messages"]
    call_id = second[-2]["tool_calls"][0]["id"]
    assert second[-1]["role"] == "tool" and second[-1]["tool_call_id"] == call_id
    assert json.loads(second[-1]["content"])["gpus"][0]["mem_bw_gbs"] == 2039.0


def test_streaming_split_deltas_with_index(stub):
    events = list(stream("A100 memory, streamed please", settings=settings_for(stub, "tool_then_answer")))
    kinds = [e["type"] for e in events]
    assert kinds[0] == "tool_call" and "tool_result" in kinds and kinds[-1] == "final"
    result = _final(events)
    assert result.backend == "openai" and result.grounded
    tokens = "".join(e["text"] for e in events if e["type"] == "token")
    assert tokens == result.answer  # what was shown is exactly what was checked
    call = next(e for e in events if e["type"] == "tool_call")
    res = next(e for e in events if e["type"] == "tool_result")
    assert call["id"] == res["id"] and call["args"] == {"names": ["A100"]}
    assert all(r.body["stream"] is True for r in stub.chat_requests())


@pytest.mark.parametrize("streaming", [False, True], ids=["json", "sse"])
def test_parallel_tool_calls_in_one_turn(stub, streaming):
    settings = settings_for(stub, "parallel")
    q = f"A100 memory and what the guide says ({'sse' if streaming else 'json'})"
    result = _final(list(stream(q, settings=settings))) if streaming else ask(q, settings=settings)
    assert result.backend == "openai"
    assert sorted(c.name for c in result.tool_calls) == ["gpu_specs", "search_guide"]
    assert all("error" not in c.result for c in result.tool_calls)
    assert len(stub.chat_requests()) == 2  # both tools in one round trip
    hits = next(c.result for c in result.tool_calls if c.name == "search_guide")["hits"]
    relevant = {h["doc_id"] for h in hits if not h.get("low_relevance")}
    assert relevant, "the guide has passages about A100 memory and bandwidth"
    assert {c.doc_id for c in result.citations} == relevant  # citations = relevant passages used
    assert all(isinstance(c.title, str) and c.title for c in result.citations)
    second = stub.chat_requests()[1].body["messages"]
    assert [m["role"] for m in second[-3:]] == ["assistant", "tool", "tool"]


def test_rate_limit_then_success_is_retried(stub):
    result = ask("A100 memory after a 429?", settings=settings_for(stub, "rate_limit_then_ok"))
    assert result.backend == "openai" and result.fallback_reason is None
    assert len(stub.chat_requests()) == 3  # 429, retry, then the answer turn


@pytest.mark.parametrize(
    "bad_args",
    [
        {"names": ["Voodoo 9000"]},  # the tool's own ToolInputError
        {"names": "A100"},
    ],  # schema violation (not a list)
    ids=["unknown-gpu", "schema"],
)
def test_tool_input_error_goes_back_to_the_model_as_data(stub, bad_args):
    stub.plan.insert(0, ("gpu_specs", bad_args))
    try:
        result = ask(f"A100 memory with a bad call {bad_args}", settings=settings_for(stub, "tool_then_answer"))
    finally:
        stub.plan.pop(0)
    err = result.tool_calls[0].result["error"]
    assert err["zh"] and err["en"] and err["field"]  # bilingual, structured
    tool_msg = stub.chat_requests()[1].body["messages"][-1]
    assert json.loads(tool_msg["content"])["error"]["en"] == err["en"]


# ---------------------------------------------------------------- failures → offline answer


def _assert_fallback(result: AskResult, code: str) -> None:
    assert result.backend == "offline (fallback)"
    assert result.fallback_reason and result.fallback_reason.startswith(code)
    head = result.answer.split("\n", 1)[0]
    assert "离线" in head and "offline" in head  # visible, bilingual notice
    assert len(result.answer) > len(head) + 20  # followed by a real answer
    assert result.tool_calls, "the offline planner called its own tools"


@pytest.mark.parametrize(
    "model,code",
    [("bad_json", "malformed_tool_call"), ("unknown_tool", "malformed_tool_call"), ("noindex", "malformed_tool_call")],
)
def test_malformed_tool_calls_fall_back(stub, model, code):
    q = "How much memory does an A100 have? (%s)" % model
    events = list(stream(q, settings=settings_for(stub, model)))
    result = _final(events)
    _assert_fallback(result, code)
    assert "".join(e["text"] for e in events if e["type"] == "token") == result.answer
    assert [e["type"] for e in events].count("notice") == 1
    if model != "noindex":  # without index only the streamed deltas break; JSON is fine
        _assert_fallback(ask(q, settings=settings_for(stub, model)), code)


def test_server_error_after_bounded_retries(stub):
    result = ask("A100 memory (500)", settings=settings_for(stub, "server_error", max_retries=1))
    _assert_fallback(result, "server_error")
    assert len(stub.chat_requests()) == 2  # first try + one retry, then give up


def test_persistent_rate_limit_after_bounded_retries(stub):
    result = ask("A100 memory (429 forever)", settings=settings_for(stub, "rate_limited", max_retries=2))
    _assert_fallback(result, "rate_limited")
    assert len(stub.chat_requests()) == 3  # first try + two retries


def test_timeout_falls_back_quickly(stub):
    # the first call of a process imports the LLM client and loads the planner's catalogs (seconds): warm both, so
    # the latency below measures the timeout and the fallback, not a cold start when this test runs alone
    ask("A100 memory (slow)", settings=settings_for(stub, "slow", timeout_s=0.4, max_retries=0))
    result = ask("A100 memory (slow)", settings=settings_for(stub, "slow", timeout_s=0.4, max_retries=0))
    _assert_fallback(result, "timeout")
    assert result.latency_ms < 1400  # 0.4 s timeout, not the stub's 1.5 s sleep


def test_endless_tool_calls_hit_the_step_limit(stub):
    settings = settings_for(stub, "endless", max_steps=3)
    result = ask("A100 memory (endless)", settings=settings)
    _assert_fallback(result, "step_limit")
    assert len(stub.chat_requests()) == 3  # exactly max_steps model turns


def test_connection_refused_falls_back(stub):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = BackendSettings(
        backend="openai", base_url=f"http://127.0.0.1:{port}/v1", model="m", api_key=SECRET, max_retries=0, timeout_s=2
    )
    _assert_fallback(ask("A100 memory (down)", settings=settings), "connection_error")


def test_missing_key_for_hosted_api_falls_back_without_network():
    settings = BackendSettings(backend="openai", base_url=None, api_key=None)
    _assert_fallback(ask("How much memory does an A100 have?", settings=settings), "missing_api_key")


# ---------------------------------------------------------------- grounding guard


def test_invented_number_repair_then_offline(stub):
    events = list(stream("A100 memory (invented)", settings=settings_for(stub, "invented")))
    result = _final(events)
    _assert_fallback(result, "ungrounded")
    assert INVENTED in result.fallback_reason and INVENTED not in result.answer
    reqs = stub.chat_requests()
    assert len(reqs) == 3  # tools, invented answer, repair → still invented
    repair = reqs[2].body["messages"][-1]
    assert repair["role"] == "user" and INVENTED in repair["content"]
    assert any(e["type"] == "notice" for e in events)
    tokens = "".join(e["text"] for e in events if e["type"] == "token")
    assert INVENTED not in tokens  # the unchecked answer was never shown


def test_invented_number_repaired_by_the_model(stub):
    result = ask("A100 memory (fixable)", settings=settings_for(stub, "invented_then_fixed"))
    assert result.backend == "openai" and result.grounded is True
    assert INVENTED not in result.answer and "80.0" in result.answer
    assert len(stub.chat_requests()) == 3


# ---------------------------------------------------------------- settings and secrets


def test_api_key_never_leaks(stub, caplog):
    caplog.set_level(logging.DEBUG)
    results = [
        ask("A100 memory (leak check)", settings=settings_for(stub, "tool_then_answer")),
        ask("A100 memory (leak check 500)", settings=settings_for(stub, "server_error", max_retries=0)),
        ask("A100 memory (leak check bad)", settings=settings_for(stub, "bad_json")),
    ]
    settings = settings_for(stub, "tool_then_answer")
    assert SECRET not in repr(settings) and SECRET not in str(settings)
    assert SECRET not in settings.model_dump_json() and SECRET not in settings.describe()
    for r in results:
        assert SECRET not in r.model_dump_json()
    assert SECRET not in caplog.text
    assert any(_header(r, "authorization") == f"Bearer {SECRET}" for r in stub.chat_requests())


def test_environment_selects_the_openai_backend(stub, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_BACKEND", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("GPU_ADVISOR_MODEL", "tool_then_answer")
    result = ask("A100 memory via env")
    assert result.backend == "openai"
    assert stub.chat_requests()[0].body["model"] == "tool_then_answer"
    # an explicit backend argument wins over the environment
    assert ask("A100 memory offline", backend="offline").backend == "offline"


def test_models_endpoint_lists_scenarios(stub):
    import openai

    client = openai.OpenAI(base_url=stub.base_url, api_key=SECRET, max_retries=0)
    ids = {m.id for m in client.models.list()}
    assert {"tool_then_answer", "endless", "invented"} <= ids


def test_chinese_question_gets_a_chinese_repair_request(stub):
    result = ask("A100 显存多大？（编造）", settings=settings_for(stub, "invented_then_fixed"))
    assert result.language == "zh" and result.backend == "openai" and result.grounded
    repair = stub.chat_requests()[2].body["messages"][-1]["content"]
    assert INVENTED in repair and "工具" in repair
    system = stub.chat_requests()[0].body["messages"][0]["content"]
    assert "简体中文" in system  # answer in the user's language


def test_settings_from_env_and_overrides(monkeypatch):
    from tools.errors import ToolInputError

    monkeypatch.setenv("GPU_ADVISOR_BACKEND", "OpenAI")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("GPU_ADVISOR_MODEL", "qwen-plus")
    monkeypatch.setenv("GPU_ADVISOR_TIMEOUT", "12.5")
    monkeypatch.setenv("GPU_ADVISOR_MAX_STEPS", "3")
    s = BackendSettings.from_env()
    assert (s.backend, s.base_url, s.model, s.timeout_s, s.max_steps) == (
        "openai",
        "http://127.0.0.1:9/v1",
        "qwen-plus",
        12.5,
        3,
    )
    assert s.key_for_client() == "EMPTY"  # local servers still need some key for the client
    assert BackendSettings.from_env("offline", model="deepseek-chat").model == "deepseek-chat"
    assert BackendSettings.from_env("offline").backend == "offline"
    assert BackendSettings(backend="openai", model="", base_url=" ").model == "gpt-4o-mini"
    with pytest.raises(ToolInputError):
        BackendSettings.from_env("claude")
