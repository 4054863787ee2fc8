"""The shape of an eval case (one YAML mapping) and how case files are loaded.

A case is a question (or a `turns:` conversation) plus expectations. Every case carries a
`derivation`: where each expected value came from — a datasheet, a paper, a reference-file
section, or arithmetic written out. Expected values never come from the program's output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from evals.numbers import unit_spec

CASES_DIR = Path(__file__).resolve().parent / "cases"

CATEGORIES: tuple[str, ...] = (
    "fit",  # verdicts: 能用4090全量训练7B吗
    "memory",  # memory figures (weights, states, KV cache, activations, GB vs GiB)
    "min_gpus",  # fewest cards for a job
    "specs",  # GPU specs and comparisons
    "prices",  # rental prices and billing
    "train_time",  # training time and cost
    "planning",  # ranked configurations, networks, choosing a rental
    "diagnosis",  # pasted logs: nvidia-smi, dmesg Xid, NCCL, nccl-tests, OOM, iostat
    "howto",  # how-to answered from the guidance corpus (cited)
    "multi_turn",  # follow-ups that carry slots from earlier turns
    "out_of_scope",  # questions the advisor should decline or redirect
    "adversarial",  # injected instructions, nonsense sizes, contradictions, false premises
)
Verdict = Literal["fits", "does_not_fit"]
Phrase = str | list[str]  # a list means "any of these synonyms"


class NumberExpect(BaseModel):
    """One number the answer must state (in any unit of the same dimension)."""

    model_config = ConfigDict(extra="forbid")

    value: float | None = Field(None, description="expected value in `unit`")
    or_values: list[float] = Field(
        default_factory=list, description="other acceptable values (other published accountings)"
    )
    min: float | None = Field(None, description="lower bound (in `unit`) when a band is expected instead of a point")
    max: float | None = Field(None, description="upper bound (in `unit`)")
    unit: str | None = Field(
        None, description="GB, GiB, GB/s, TFLOPS, CNY, CNY/h, CNY/month, tokens, %, h, days, GPU-hours, gpus …"
    )
    rel_tol: float | None = None
    abs_tol: float | None = None
    mode: Literal["value", "in_range"] = "value"
    where: Literal["answer", "tools", "any"] = "answer"
    allow_unitless: bool = False
    near: list[str] = Field(default_factory=list, description="words that must appear close to the number on its line")
    near_before: list[str] = Field(default_factory=list, description="words within 15 characters before the number")
    near_after: list[str] = Field(default_factory=list, description="words within 15 characters after the number")
    why: str = Field(..., min_length=3, description="where this value comes from")

    @model_validator(mode="after")
    def _has_target(self) -> "NumberExpect":
        if self.value is None and not self.or_values and self.min is None and self.max is None:
            raise ValueError("a number expectation needs value, or_values, or min/max")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError("min > max")
        unit_spec(self.unit)  # raises on an unknown unit
        return self


class Expect(BaseModel):
    """What the answer (and its tool calls) must show. Every field is optional."""

    model_config = ConfigDict(extra="forbid")

    tool: str | list[str] | None = Field(None, description="a tool that must be called (list = any of)")
    args: dict[str, Any] | None = Field(None, description="subset of that tool's arguments (loose key match)")
    forbid_tools: list[str] = Field(default_factory=list)
    verdict: Verdict | None = None
    numbers: list[NumberExpect] = Field(default_factory=list)
    must_include: list[Phrase] = Field(default_factory=list)
    must_not_include: list[Phrase] = Field(default_factory=list)
    cites: list[Phrase] = Field(
        default_factory=list, description="doc ids that must be cited (each entry required; a nested list = any of)"
    )
    answer_language: Literal["zh", "en"] | None = Field(
        None, description="default: zh if the question has CJK, else en"
    )
    grounded: bool | None = None

    @field_validator("must_include", "must_not_include", "cites", mode="before")
    @classmethod
    def _phrases_as_text(cls, v: Any) -> Any:
        """YAML turns `[4090, A100]` into an int and a str; phrases are always text."""

        def text(x: Any) -> Any:
            if isinstance(x, list):
                return [text(i) for i in x]
            return str(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else x

        return [text(i) for i in v] if isinstance(v, list) else v


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str
    expect: Expect | None = None


class Case(Expect):
    """One eval case. `language` is the language of the question (mixed = both in one question)."""

    id: str = Field(..., pattern=r"^[a-z0-9][a-z0-9_\-]*$")
    category: str
    language: Literal["zh", "en", "mixed"]
    question: str | None = None
    turns: list[Turn | str] | None = None
    derivation: str = Field(..., min_length=10)
    tags: list[str] = Field(default_factory=list)
    notes: str | None = None

    @field_validator("category")
    @classmethod
    def _known_category(cls, v: str) -> str:
        if v not in CATEGORIES:
            raise ValueError(f"unknown category {v!r}; use one of {CATEGORIES}")
        return v

    @model_validator(mode="after")
    def _question_or_turns(self) -> "Case":
        if (self.question is None) == (self.turns is None):
            raise ValueError("give exactly one of `question` or `turns`")
        if self.turns is not None and len(self.turns) < 2:
            raise ValueError("`turns` needs at least two user turns")
        return self

    def user_turns(self) -> list[Turn]:
        if self.question is not None:
            return [Turn(question=self.question)]
        return [t if isinstance(t, Turn) else Turn(question=t) for t in self.turns or []]

    def final_question(self) -> str:
        return self.user_turns()[-1].question


def load_cases(path: str | Path | None = None) -> list[Case]:
    """Every case under a directory (or one YAML file). Raises on a schema error or duplicate id."""
    root = Path(path) if path else CASES_DIR
    files = sorted(root.rglob("*.yaml")) + sorted(root.rglob("*.yml")) if root.is_dir() else [root]
    cases: list[Case] = []
    seen: dict[str, Path] = {}
    for f in files:
        try:
            data = yaml.safe_load(f.read_text(encoding="utf-8")) or []
        except yaml.YAMLError as exc:
            raise ValueError(f"{f.name}: not valid YAML: {exc}") from exc
        items = data.get("cases", []) if isinstance(data, dict) else data
        for i, raw in enumerate(items):
            try:
                case = Case.model_validate(raw)
            except Exception as exc:  # pydantic.ValidationError — add the file and position
                ident = raw.get("id", f"#{i}") if isinstance(raw, dict) else f"#{i}"
                raise ValueError(f"{f.name}: case {ident}: {exc}") from exc
            if case.id in seen:
                raise ValueError(f"duplicate case id {case.id!r} in {f.name} and {seen[case.id].name}")
            seen[case.id] = f
            cases.append(case)
    return cases


KNOWN_FAILURES_FILE = Path(__file__).resolve().parent / "known_failures.yaml"


def load_known_failures(path: str | Path | None = None) -> dict[str, str]:
    """Case id → why it fails today. The CI gate allows exactly these and nothing else."""
    p = Path(path) if path else KNOWN_FAILURES_FILE
    if not p.exists():
        return {}
    data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ValueError(f"{p.name}: expected a mapping of case id to reason")
    return data
