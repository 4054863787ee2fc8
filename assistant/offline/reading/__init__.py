"""Question text → Frame. Knows nothing about tools' outputs.

`read(question, history)` reads the question (`slots.extract`: entities from knowledge/, the quantity
grammar, pastes via tools.diagnosis.detect) and merges it with earlier turns when it is a follow-up
("那A100呢？", `followups.resolve`).
"""

from __future__ import annotations

from assistant.offline.reading.frame import Ask, Frame, GpuMention, ModelMention, Quantity

__all__ = ["read", "read_one", "Frame", "GpuMention", "ModelMention", "Quantity", "Ask"]


def read_one(question: str) -> Frame:
    """One message on its own (no history)."""
    from assistant.offline.reading.slots import extract

    return extract(question)


def read(question: str, history: list[dict] | None = None) -> tuple[Frame, bool]:
    """(frame, carried): the question merged with earlier user turns when it is a follow-up."""
    from assistant.offline.intents.args import restate
    from assistant.offline.reading.followups import resolve

    frame, carried = resolve(question, history)
    if carried:
        frame.text = restate(frame, frame.text)
    return frame, carried
