"""Bilingual labels for output fields, declared once on the output model and read by every surface.

A field carries its label in the model (`Field(..., json_schema_extra=label("权重", "Weights"))`),
so the CLI table, the page and the offline writer cannot drift apart. An optional `note` adds
what the figure includes ("incl. fp32 master weights") where a surface has room for it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

Lang = Literal["zh", "en"]


def label(zh: str, en: str, *, note_zh: str | None = None, note_en: str | None = None) -> dict[str, Any]:
    """The `json_schema_extra` for a labelled field (a note needs both languages, or neither)."""
    if (note_zh is None) != (note_en is None):
        raise ValueError("a note needs both zh and en")
    extra: dict[str, Any] = {"label": {"zh": zh, "en": en}}
    if note_zh is not None:
        extra["note"] = {"zh": note_zh, "en": note_en}
    return extra


def _extra(model_cls: type[BaseModel], name: str) -> dict[str, Any]:
    extra = model_cls.model_fields[name].json_schema_extra
    return extra if isinstance(extra, dict) else {}


def field_label(model_cls: type[BaseModel], name: str, lang: Lang, *, inline: bool = False) -> str:
    """The field's label in `lang`; KeyError if the model declares none (a missing label is a bug).

    `inline=True` lower-cases an English label's first letter for use mid-sentence ("Weights" →
    "weights") but leaves acronyms alone ("KV cache").
    """
    text = str(_extra(model_cls, name)["label"][lang])
    if inline and lang == "en" and text[:1].isupper() and not text[1:2].isupper():
        text = text[0].lower() + text[1:]
    return text


def field_note(model_cls: type[BaseModel], name: str, lang: Lang) -> str | None:
    """What the figure includes, if the model says ("含 fp32 主权重"); None otherwise."""
    note = _extra(model_cls, name).get("note")
    return str(note[lang]) if isinstance(note, dict) else None


def labelled_fields(model_cls: type[BaseModel]) -> list[str]:
    """Fields that carry a label, in declaration order."""
    return [n for n in model_cls.model_fields if "label" in _extra(model_cls, n)]
