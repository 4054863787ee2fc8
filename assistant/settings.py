"""Which back-end answers, and how to reach it: one settings object for the CLI, the page and the evals.

`offline` (default) needs nothing: no key, no download, no network. `openai` talks to any
OpenAI-compatible endpoint (OpenAI, DeepSeek, Qwen/DashScope, Moonshot, vLLM, Ollama).
The API key is a `SecretStr`: it never shows up in `repr`, logs, JSON or answers.
"""

from __future__ import annotations

import os
import re
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from tools.errors import ToolInputError

Backend = Literal["offline", "openai"]
BACKENDS: tuple[str, ...] = ("offline", "openai")

# A local server (vLLM, Ollama, our test stub) ignores the key, but the openai client refuses
# to start without one (stack.md §5), so local endpoints get this placeholder.
DUMMY_API_KEY = "EMPTY"


def check_backend(value: str) -> str:
    """`offline` | `openai` (case-insensitive, blank = offline); anything else is a bilingual input error."""
    value = (value or "").strip().lower() or "offline"
    if value not in BACKENDS:
        raise ToolInputError(
            f"未知的后端 {value}（可选 offline 或 openai）",
            f"Unknown backend {value} (choose offline or openai)",
            field="backend",
            suggestions=list(BACKENDS),
        )
    return value


class BackendSettings(BaseModel):
    """Back-end choice plus connection limits. Build it with `from_env()` to honour the environment."""

    model_config = ConfigDict(frozen=True)

    backend: Backend = Field(
        "offline", description="offline (deterministic planner) | openai (any compatible endpoint)"
    )
    base_url: str | None = Field(None, description="OpenAI-compatible base URL, e.g. https://api.deepseek.com/v1")
    api_key: SecretStr | None = Field(None, description="API key; never logged or echoed", repr=False)
    model: str = Field("gpt-4o-mini", description="model name at the endpoint")
    timeout_s: float = Field(30.0, gt=0, le=600, description="per-request timeout, seconds")
    max_retries: int = Field(2, ge=0, le=10, description="retries on connection errors, 429 and 5xx")
    max_steps: int = Field(6, ge=1, le=50, description="most model turns per question before giving up")
    request_total_s: float = Field(
        60.0, gt=0, le=600, description="total time for one LLM HTTP request, body included (a trickle is cut)"
    )
    answer_deadline_s: float = Field(
        120.0, gt=0, le=1800, description="overall deadline for one answer, retries and repair turn included"
    )
    blocked: str | None = Field(
        None, description="why a visitor's choice was refused (the advisor then answers offline with a notice)"
    )

    @field_validator("backend", mode="before")
    @classmethod
    def _normalise_backend(cls, value: object) -> object:
        return check_backend(value) if isinstance(value, str) else value

    @field_validator("model", "base_url", "api_key", mode="before")
    @classmethod
    def _blank_is_default(cls, value: object, info: object) -> object:
        """Form fields arrive as "" or None when left empty: use the default instead."""
        if value is None or (isinstance(value, str) and not value.strip()):
            return cls.model_fields[info.field_name].default  # type: ignore[attr-defined]
        return value.strip() if isinstance(value, str) else value

    @classmethod
    def from_env(cls, backend: str | None = None, **overrides: object) -> "BackendSettings":
        """Environment first, explicit arguments win: `GPU_ADVISOR_BACKEND`, `OPENAI_BASE_URL`,
        `OPENAI_API_KEY`, `GPU_ADVISOR_MODEL`, `GPU_ADVISOR_TIMEOUT`, `GPU_ADVISOR_MAX_RETRIES`,
        `GPU_ADVISOR_MAX_STEPS`, `GPU_ADVISOR_REQUEST_TOTAL`, `GPU_ADVISOR_ANSWER_DEADLINE`."""
        env = os.environ
        values: dict[str, object] = {"backend": check_backend(backend or env.get("GPU_ADVISOR_BACKEND") or "")}
        for field, var in (
            ("base_url", "OPENAI_BASE_URL"),
            ("api_key", "OPENAI_API_KEY"),
            ("model", "GPU_ADVISOR_MODEL"),
            ("timeout_s", "GPU_ADVISOR_TIMEOUT"),
            ("max_retries", "GPU_ADVISOR_MAX_RETRIES"),
            ("max_steps", "GPU_ADVISOR_MAX_STEPS"),
            ("request_total_s", "GPU_ADVISOR_REQUEST_TOTAL"),
            ("answer_deadline_s", "GPU_ADVISOR_ANSWER_DEADLINE"),
        ):
            if env.get(var):
                values[field] = env[var]
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)

    def with_backend(self, backend: str | None) -> "BackendSettings":
        """The same connection settings with another back-end (None keeps this one)."""
        if backend is None:
            return self
        backend = check_backend(backend)
        return self.model_validate({**self.model_dump(), "api_key": self.api_key, "backend": backend})

    def key_for_client(self) -> str:
        """The real key, or a placeholder for local servers; only the openai client ever sees it."""
        if self.api_key is not None and self.api_key.get_secret_value():
            return self.api_key.get_secret_value()
        return DUMMY_API_KEY

    def missing_key(self) -> bool:
        """True when we would call a hosted API (no custom base_url) without a key."""
        has_key = self.api_key is not None and bool(self.api_key.get_secret_value())
        return not has_key and not self.base_url

    def secrets(self) -> list[str]:
        """Strings that must never appear in output (used to scrub error messages)."""
        if self.api_key is not None and len(self.api_key.get_secret_value()) >= 4:
            return [self.api_key.get_secret_value()]
        return []

    @classmethod
    def for_visitor(
        cls, backend: str | None, base_url: str | None, model: str | None, api_key: str | None
    ) -> "BackendSettings | None":
        """Settings for a page visitor's form (None = offline). See `visitor_settings`."""
        return visitor_settings(backend, base_url, model, api_key)

    def describe(self) -> str:
        """A safe one-line description for people (no key)."""
        if self.backend == "offline":
            return "offline"
        return f"openai ({self.model} @ {self.base_url or 'api.openai.com'})"


def scrub(text: str, settings: BackendSettings | None) -> str:
    """Remove the API key (and anything that looks like a bearer token) from a message."""
    for secret in settings.secrets() if settings else []:
        text = text.replace(secret, "***")
    return re.sub(r"(?i)(bearer\s+)\S+", r"\1***", text)


# ---------------------------------------------------------------- page visitors (untrusted)

ALLOW_VISITOR_ENDPOINT_ENV = "GPU_ADVISOR_ALLOW_VISITOR_ENDPOINT"
ENDPOINT_HOSTS_ENV = "GPU_ADVISOR_ENDPOINT_HOSTS"


def _env_flag(name: str) -> bool:
    return (os.environ.get(name) or "").strip().lower() in ("1", "true", "yes", "on")


class _Refused(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _check_visitor_url(url: str) -> str:
    """A visitor's Base URL: http(s) only, a host, no credentials in it, on the operator's allow-list if set."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        parts.port  # noqa: B018 — raises ValueError on a bad port
    except ValueError:
        raise _Refused("visitor_endpoint_invalid") from None
    if parts.scheme not in ("http", "https") or not host or parts.username or parts.password:
        raise _Refused("visitor_endpoint_invalid")
    allowed = [h.strip().lower() for h in (os.environ.get(ENDPOINT_HOSTS_ENV) or "").split(",") if h.strip()]
    if allowed and host not in allowed:
        raise _Refused("visitor_endpoint_not_allowed")
    return url


def visitor_settings(
    backend: str | None, base_url: str | None, model: str | None, api_key: str | None
) -> BackendSettings | None:
    """What a page visitor may choose — WHY: the operator's key must never travel to an endpoint a
    visitor typed (that would hand the key to whoever runs that endpoint, and make the server POST anywhere).

    - offline → None (the default back-end).
    - openai without a Base URL → the operator's endpoint and key from the environment; a visitor's own
      key may replace the key, but only for the operator's endpoint.
    - openai with a Base URL → refused unless the operator set GPU_ADVISOR_ALLOW_VISITOR_ENDPOINT=1; then
      the visitor must supply their own key (the operator's is never attached), the URL must be http(s),
      and its host must be on GPU_ADVISOR_ENDPOINT_HOSTS (comma-separated) when that list is set.
    A refusal returns settings with `blocked` set and no endpoint or key: the advisor answers offline
    with a bilingual notice saying why (nothing is sent anywhere).
    """
    if check_backend(backend or "") == "offline":
        return None
    base = BackendSettings.from_env("openai")
    url = (base_url or "").strip()
    key = (api_key or "").strip()
    update: dict[str, Any] = {"backend": "openai"}
    if model and model.strip():
        update["model"] = model.strip()[:200]
    try:
        if url and url.rstrip("/") != (base.base_url or "").rstrip("/"):
            if not _env_flag(ALLOW_VISITOR_ENDPOINT_ENV):
                raise _Refused("visitor_endpoint_disabled")
            if not key:
                raise _Refused("visitor_key_required")
            update["base_url"] = _check_visitor_url(url)
    except _Refused as refused:
        values = {**base.model_dump(), "base_url": None, "api_key": None, **update, "blocked": refused.code}
        return BackendSettings.model_validate(values)
    if key:
        update["api_key"] = key
    return BackendSettings.model_validate({**base.model_dump(), "api_key": base.api_key, **update})
