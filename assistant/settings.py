"""Which back-end answers, and how to reach it: one settings object for the CLI, the page and the evals.

`offline` (default) needs nothing: no key, no download, no network. `openai` talks to any
OpenAI-compatible endpoint (OpenAI, DeepSeek, Qwen/DashScope, Moonshot, vLLM, Ollama).
The API key is a `SecretStr`: it never shows up in `repr`, logs, JSON or answers.
"""

from __future__ import annotations

import os
import re
from typing import Literal

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
        `GPU_ADVISOR_MAX_STEPS`."""
        env = os.environ
        values: dict[str, object] = {"backend": check_backend(backend or env.get("GPU_ADVISOR_BACKEND") or "")}
        for field, var in (
            ("base_url", "OPENAI_BASE_URL"),
            ("api_key", "OPENAI_API_KEY"),
            ("model", "GPU_ADVISOR_MODEL"),
            ("timeout_s", "GPU_ADVISOR_TIMEOUT"),
            ("max_retries", "GPU_ADVISOR_MAX_RETRIES"),
            ("max_steps", "GPU_ADVISOR_MAX_STEPS"),
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
