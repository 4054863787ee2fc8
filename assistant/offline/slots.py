"""Kept for callers outside the planner (tests/test_fuzz_parsers.py): the reader lives in `reading/`."""

from assistant.offline.reading.slots import Slots, extract, user_words

__all__ = ["Slots", "extract", "user_words"]
