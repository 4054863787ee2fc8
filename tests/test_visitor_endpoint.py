"""Issue 18 item 1: the page never sends the operator's key to an endpoint a visitor typed.

Real traffic, not mocks: two OpenAI-compatible stubs on loopback record every request's headers.
`operator` is the endpoint the operator configured (env OPENAI_BASE_URL + OPENAI_API_KEY);
`attacker` is the Base URL a visitor types into Settings. The attacker must never receive the
operator's key — with visitor endpoints off (the default) it must receive nothing at all.
Runs in the fast suite on purpose (in-process threads, no subprocess): this is the critical path.
"""

from __future__ import annotations

import pytest

from assistant.advisor import ask
from assistant.settings import visitor_settings
from tests.stub_openai_server import StubOpenAI

OPERATOR_KEY = "sk-operator-SECRET-0b7e41"
VISITOR_KEY = "sk-visitor-own-key-5d2c"


@pytest.fixture(scope="module")
def operator():
    with StubOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def attacker():
    with StubOpenAI() as server:
        yield server


@pytest.fixture(autouse=True)
def _env(monkeypatch, operator, attacker):
    operator.reset()
    attacker.reset()
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", operator.base_url)
    monkeypatch.setenv("GPU_ADVISOR_MAX_RETRIES", "0")
    monkeypatch.setenv("GPU_ADVISOR_TIMEOUT", "5")
    for var in ("GPU_ADVISOR_ALLOW_VISITOR_ENDPOINT", "GPU_ADVISOR_ENDPOINT_HOSTS", "GPU_ADVISOR_BACKEND"):
        monkeypatch.delenv(var, raising=False)


def _auth_headers(stub: StubOpenAI) -> list[str]:
    return [v for r in stub.requests for k, v in r.headers.items() if k.lower() == "authorization"]


def _page_answer(base_url: str, api_key: str, model: str = "tool_then_answer"):
    """What the page does on submit: the form's settings, then the advisor."""
    from assistant.web import forms

    settings = forms.backend_settings("openai", base_url, model, api_key)
    return ask("How much memory does an A100 have?", settings=settings)


def test_default_refuses_a_visitor_endpoint_and_sends_nothing(attacker):
    result = _page_answer(attacker.base_url, "")
    assert attacker.requests == []  # not one byte went to the visitor's URL
    assert result.backend == "offline (fallback)"
    assert result.fallback_reason and result.fallback_reason.startswith("visitor_endpoint_disabled")
    assert "Base URL" in result.answer and "本页面不接受" in result.answer  # the visitor is told why, in both languages
    assert OPERATOR_KEY not in result.model_dump_json()


def test_default_refuses_even_with_the_visitors_own_key(attacker):
    result = _page_answer(attacker.base_url, VISITOR_KEY)
    assert attacker.requests == []
    assert result.backend == "offline (fallback)"


def test_enabled_but_blank_key_never_falls_back_to_the_operators_key(monkeypatch, attacker):
    monkeypatch.setenv("GPU_ADVISOR_ALLOW_VISITOR_ENDPOINT", "1")
    result = _page_answer(attacker.base_url, "  ")
    assert attacker.requests == []
    assert result.fallback_reason and result.fallback_reason.startswith("visitor_key_required")


def test_enabled_with_own_key_the_endpoint_sees_only_the_visitors_key(monkeypatch, attacker, operator):
    monkeypatch.setenv("GPU_ADVISOR_ALLOW_VISITOR_ENDPOINT", "1")
    result = _page_answer(attacker.base_url, VISITOR_KEY)
    headers = _auth_headers(attacker)
    assert headers and all(h == f"Bearer {VISITOR_KEY}" for h in headers)
    assert not any(OPERATOR_KEY in h for h in headers)
    assert operator.requests == []
    assert result.backend == "openai"


def test_allow_list_blocks_other_hosts(monkeypatch, attacker):
    monkeypatch.setenv("GPU_ADVISOR_ALLOW_VISITOR_ENDPOINT", "1")
    monkeypatch.setenv("GPU_ADVISOR_ENDPOINT_HOSTS", "api.deepseek.com, dashscope.aliyuncs.com")
    result = _page_answer(attacker.base_url, VISITOR_KEY)
    assert attacker.requests == []
    assert result.fallback_reason and result.fallback_reason.startswith("visitor_endpoint_not_allowed")


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "ftp://127.0.0.1/v1", "http://user:pw@127.0.0.1:1/v1", "http://[::1", "javascript:alert(1)"],
)
def test_malformed_or_credentialled_urls_are_refused(monkeypatch, url):
    monkeypatch.setenv("GPU_ADVISOR_ALLOW_VISITOR_ENDPOINT", "1")
    settings = visitor_settings("openai", url, None, VISITOR_KEY)
    assert settings is not None and settings.blocked == "visitor_endpoint_invalid"
    assert settings.base_url is None and settings.api_key is None


def test_no_base_url_uses_the_operators_endpoint_and_key(operator, attacker):
    result = _page_answer("", "")
    assert result.backend == "openai"
    assert _auth_headers(operator) and all(h == f"Bearer {OPERATOR_KEY}" for h in _auth_headers(operator))
    assert attacker.requests == []


def test_typing_the_operators_own_url_is_not_a_custom_endpoint(operator):
    result = _page_answer(operator.base_url + "/", "")
    assert result.backend == "openai"
    assert all(h == f"Bearer {OPERATOR_KEY}" for h in _auth_headers(operator))


def test_offline_choice_is_none():
    assert visitor_settings("offline", "http://evil.example/v1", None, None) is None
