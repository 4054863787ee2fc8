"""The page's API through `gradio_client` (the way scripts and the load benchmark use it),
and proof that starting and using the page makes no request off this machine."""

from __future__ import annotations

import re

import pytest

from tests.web_server import running_page

pytestmark = [pytest.mark.server]


@pytest.fixture(scope="module")
def client():
    from gradio_client import Client

    with running_page() as url:
        yield Client(url, verbose=False)


def test_ask_endpoint_returns_the_offline_answer(client) -> None:
    result = client.predict(question="How many A100 80GB for a 70B full fine-tune?", language="auto", api_name="/ask")
    assert result["language"] == "en"
    assert result["backend"] == "offline"
    assert any(
        call["name"] in ("find_min_gpus", "estimate_memory", "plan_configurations") for call in result["tool_calls"]
    )
    # 70e9 params × 16 B = 1,120 GB of model states; on 80 GB cards that is at least 14 cards.
    assert re.search(r"\b1[4-9]\b|\b[2-9]\d\b", result["answer"])


def test_chat_endpoint_streams_tool_steps(client) -> None:
    job = client.submit("能用4090全量训练7B吗", [], "自动 / Auto", "offline", "", "", "", api_name="/chat")
    outputs = list(job)
    final_history = job.result()[0]
    assert len(outputs) >= 2, "the reply should stream in several updates"
    titles = [(m.get("metadata") or {}).get("title") or "" for m in final_history]
    assert any("estimate_memory" in t for t in titles)
    answer = [m for m in final_history if m["role"] == "assistant" and not (m.get("metadata") or {}).get("title")]
    assert answer and "24" in str(answer[-1]["content"])


def test_estimate_endpoint_draws_against_capacity(client) -> None:
    chart, data = client.predict("7B", "full", "4090", 1, 2048, 1, "English", api_name="/estimate")
    assert 'data-capacity-gb="24.000"' in chart
    assert data["fits"] is False
