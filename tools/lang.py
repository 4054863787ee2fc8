"""Answer language: Chinese if the text holds any CJK ideograph, otherwise English."""
from __future__ import annotations

import re
from typing import Literal

Language = Literal["zh", "en"]
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def detect_language(text: str) -> Language:
    return "zh" if _CJK.search(text or "") else "en"


def pick(lang: Language, zh: str, en: str) -> str:
    return zh if lang == "zh" else en
