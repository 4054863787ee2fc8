"""Answer language: Chinese if the text holds any CJK ideograph, otherwise English."""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["zh", "en"]
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def has_cjk(text: str) -> bool:
    """True if the text holds any CJK ideograph — how every layer tells Chinese from English."""
    return bool(_CJK.search(text or ""))


def detect_language(text: str) -> Language:
    return "zh" if has_cjk(text) else "en"


def pick(lang: Language, zh: str, en: str) -> str:
    return zh if lang == "zh" else en
