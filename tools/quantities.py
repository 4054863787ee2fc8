"""Parse the quantities people type — in Chinese or English — into plain numbers.

Shared by the memory estimator, the planner and the agent, so 「70亿」, "7B" and "7b params"
all mean the same 7,000,000,000. Every function accepts a string (or an int/float, passed
through after a sign check) and returns a number, or raises `ToolInputError` with a message
in both languages. Nothing here guesses: an unknown unit is an error, not a default.

| function | returns | accepts, for example |
| --- | --- | --- |
| `parse_number` | float | "1.5", "50,000", "七", "两千", "1万亿", "百亿", "3k", "5w" |
| `parse_param_count` | int (parameters) | "7B", "1.5b", "70亿", "130亿", "百亿", "500M", "7e9" |
| `parse_token_count` | int (tokens) | "1T", "500B tokens", "1万亿", "2千亿", "300M" |
| `parse_money_cny` | float (yuan, CNY) | "5万", "50000元", "¥3k", "3千块", "1.2万元", "5w" |
| `parse_duration_hours` | float (hours) | "48h", "7d", "一周", "两周", "1个月", "半个月", "90 min" |
| `parse_size_gb` | float (GB = 10^9 bytes) | "24GB", "80G", "24", "24 GiB", "1TB", "512MB" |

Conventions (stated so callers can repeat them to users):
- Chinese big units: 万 = 10^4, 亿 = 10^8, 万亿 = 10^12; 千亿 = 10^11. 「百亿」 = 10^10.
- Latin suffixes: K = 10^3, M = 10^6, B (billion) = 10^9, T (trillion) = 10^12; `w` (网络用语「万」) = 10^4.
- A month is 30 days, a year 365 days. Sizes are decimal GB (GPU datasheets); GiB input is
  converted (24 GiB = 25.77 GB).
"""

from __future__ import annotations

import math
import re
import unicodedata

from tools.errors import ToolInputError

__all__ = [
    "parse_number",
    "parse_chinese_number",
    "parse_param_count",
    "parse_token_count",
    "parse_money_cny",
    "parse_duration_hours",
    "parse_size_gb",
    "split_number_unit",
]

_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "俩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "半": 0.5,
}
_CN_SMALL = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10**4, "亿": 10**8}
_NUM_CHARS = "0-9." + "".join(_CN_DIGITS) + "".join(_CN_SMALL) + "".join(_CN_BIG)
_TOKEN_RE = re.compile(r"\d+(?:\.\d+)?|\.\d+|[" + "".join(_CN_DIGITS) + "".join(_CN_SMALL) + "".join(_CN_BIG) + "]")
_LEADING_RE = re.compile(r"^\s*(?:约|大约|大概|about|~|≈)?\s*([" + _NUM_CHARS + r"]+)\s*(.*)$")
_SCI_RE = re.compile(r"^\d+(?:\.\d+)?[eE][+-]?\d+$")


def _normalise(text: str) -> str:
    """NFKC folds full-width digits/letters (７Ｂ → 7B); thousands separators go."""
    text = unicodedata.normalize("NFKC", str(text)).strip()
    return re.sub(r"(?<=\d)[,，_](?=\d{3})", "", text)


def _bad(what_zh: str, what_en: str, text: object, field: str | None, examples: str) -> ToolInputError:
    return ToolInputError(
        f"无法识别的{what_zh}：「{text}」（例如 {examples}）",
        f"Cannot read {what_en} {text!r} (e.g. {examples})",
        field=field,
    )


def parse_chinese_number(text: str) -> float:
    """Value of a numeral written with Chinese characters, Arabic digits or a mix.

    "七" → 7, "十五" → 15, "两千" → 2000, "一百二十万" → 1.2e6, "百亿" → 1e10,
    "1万亿" → 1e12, "2千亿" → 2e11, "130亿" → 1.3e10, "3亿5000万" → 3.5e8, "半" → 0.5.
    Raises ToolInputError if anything other than numeral characters is present.
    """
    s = _normalise(text)
    if not s:
        raise _bad("数字", "a number", text, None, "7、1.5、七、两千、1万亿")
    tokens = _TOKEN_RE.findall(s)
    if "".join(tokens) != s:
        raise _bad("数字", "a number", text, None, "7、1.5、七、两千、1万亿")
    high = 0.0  # the part already multiplied by 亿
    mid = 0.0  # the part since the last 亿, already multiplied by 万
    section = 0.0  # below 万: built from 十/百/千
    cur: float | None = None
    for tok in tokens:
        if tok in _CN_DIGITS:
            cur = float(_CN_DIGITS[tok])
        elif tok in _CN_SMALL:
            section += (1.0 if cur is None else cur) * _CN_SMALL[tok]
            cur = None
        elif tok == "万":
            amount = section + (cur or 0.0)
            mid = (mid + (amount if amount else 1.0)) * 10**4
            section, cur = 0.0, None
        elif tok == "亿":
            amount = mid + section + (cur or 0.0)
            high = (high + (amount if amount else 1.0)) * 10**8
            mid, section, cur = 0.0, 0.0, None
        else:
            if cur is not None:  # two bare numbers in a row ("7 5") is not a numeral
                raise _bad("数字", "a number", text, None, "7、1.5、七、两千、1万亿")
            cur = float(tok)
    return high + mid + section + (cur or 0.0)


def split_number_unit(text: str) -> tuple[float, str]:
    """Split "70亿参数" → (7e9, "参数"), "7B" → (7, "b"), "¥3k" → (3, "k"); unit lower-cased."""
    s = _normalise(text)
    s = re.sub(r"^[¥￥]\s*", "", s)
    if _SCI_RE.match(s.split()[0] if s.split() else ""):
        first, _, rest = s.partition(" ")
        return float(first), rest.strip().lower()
    m = _LEADING_RE.match(s)
    if not m:
        raise ValueError(text)
    number, unit = m.group(1), (m.group(2) or "").strip()
    return parse_chinese_number(number), unit.lower()


def parse_number(value: object, *, field: str | None = None) -> float:
    """A plain number with an optional K/M/B/T, w, 万/亿 multiplier: "3k" → 3000, "5w" → 50000."""
    if isinstance(value, bool):
        raise _bad("数字", "a number", value, field, "7、1.5、3k、两千")
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise _bad("数字", "a number", value, field, "7、1.5、3k、两千")
        return float(value)
    try:
        number, unit = split_number_unit(str(value))
    except (ValueError, ToolInputError):
        raise _bad("数字", "a number", value, field, "7、1.5、3k、两千") from None
    mult = _LATIN_MULT.get(unit.rstrip("."))
    if mult is None or not math.isfinite(number * mult):  # "1e400" overflows to inf
        raise _bad("数字", "a number", value, field, "7、1.5、3k、两千")
    return number * mult


_LATIN_MULT = {
    "": 1,
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "g": 1e9,
    "t": 1e12,
    "trillion": 1e12,
    "w": 1e4,
}


def _positive(value: float, what_zh: str, what_en: str, raw: object, field: str | None) -> float:
    if not math.isfinite(value) or value <= 0:
        raise ToolInputError(
            f"{what_zh}必须是正数，收到「{raw}」", f"{what_en} must be positive, got {raw!r}", field=field
        )
    return value


def _count(
    value: object,
    *,
    field: str | None,
    noun_words: tuple[str, ...],
    what_zh: str,
    what_en: str,
    examples: str,
    bare_multiplier: float | None,
) -> int:
    """Shared core of parameter and token counts."""
    if isinstance(value, bool):
        raise _bad(what_zh, what_en, value, field, examples)
    if isinstance(value, (int, float)):
        return int(round(_positive(float(value), what_zh, what_en, value, field)))
    raw = str(value)
    s = _normalise(raw)
    if s.startswith("-"):
        raise ToolInputError(
            f"{what_zh}必须是正数，收到「{raw}」", f"{what_en} must be positive, got {raw!r}", field=field
        )
    try:
        number, unit = split_number_unit(s)
    except (ValueError, ToolInputError):
        raise _bad(what_zh, what_en, raw, field, examples) from None
    unit = unit.strip()
    for word in noun_words:  # "7B params", "500B tokens", "70亿参数"
        if unit.endswith(word):
            unit = unit[: -len(word)].strip()
    unit = unit.rstrip(".").strip()
    if unit == "" and bare_multiplier is not None and number < 1e4 and not re.search("[万亿]", s):
        mult: float | None = bare_multiplier  # "7" for a model size means 7B
    else:
        mult = _LATIN_MULT.get(unit)
    if mult is None:
        raise _bad(what_zh, what_en, raw, field, examples)
    return int(round(_positive(number * mult, what_zh, what_en, raw, field)))


def parse_param_count(value: object, *, field: str | None = "params", bare_is_billions: bool = True) -> int:
    """Parameter count: "7B" → 7_000_000_000, "1.5b" → 1.5e9, "70亿" → 7e9, "百亿" → 1e10,
    "130亿参数" → 1.3e10, "500M" → 5e8, "7e9" → 7e9.

    A bare small number ("7", "70") means billions when `bare_is_billions` (how people name
    model sizes); a bare number ≥ 10,000 is taken literally.
    """
    n = _count(
        value,
        field=field,
        noun_words=("parameters", "params", "param", "参数量", "参数", "个参数", "的模型", "模型", "model"),
        what_zh="参数量",
        what_en="parameter count",
        examples="7B、1.5b、70亿、百亿",
        bare_multiplier=1e9 if bare_is_billions else 1.0,
    )
    if n > MAX_PARAMS:
        raise ToolInputError(
            f"参数量「{value}」= {n:.3g} 个，超出合理范围（上限 {MAX_PARAMS / 1e12:g}T）；"
            f"是不是单位写错了？例如 7B、70亿",
            f"Parameter count {value!r} = {n:.3g} is beyond any real model (limit "
            f"{MAX_PARAMS / 1e12:g}T); check the unit, e.g. 7B",
            field=field,
        )
    if n < MIN_PARAMS:
        raise ToolInputError(
            f"参数量「{value}」= {n:,} 个，太小了，不像一个语言模型（下限 {MIN_PARAMS / 1e6:g}M）；"
            f"是不是漏了单位？例如 7B、500M",
            f"Parameter count {value!r} = {n:,} is too small for a language model (limit "
            f"{MIN_PARAMS / 1e6:g}M); missing a unit? e.g. 7B, 500M",
            field=field,
        )
    return n


# Plausibility bounds, so a typo ("1e20", "50000") is refused instead of answered with nonsense:
# the largest open models published are ~1T parameters (DeepSeek-V3 671B, Kimi K2 ~1.04T), so 10T
# leaves room; the smallest LMs people fine-tune are tens of millions (GPT-2 small 124M).
MAX_PARAMS = 10**13
MIN_PARAMS = 10**6


def parse_token_count(value: object, *, field: str | None = "tokens") -> int:
    """Token count: "1T" → 1e12, "500B tokens" → 5e11, "1万亿" → 1e12, "2千亿" → 2e11,
    "300M" → 3e8, "100万" → 1e6. A bare number is taken literally."""
    return _count(
        value,
        field=field,
        noun_words=("tokens", "token", "个token", "词元", "tok"),
        what_zh="token 数",
        what_en="token count",
        examples="1T、500B tokens、1万亿、2千亿",
        bare_multiplier=None,
    )


_MONEY_UNITS = {
    "": 1,
    "元": 1,
    "块": 1,
    "块钱": 1,
    "rmb": 1,
    "cny": 1,
    "yuan": 1,
    "人民币": 1,
    "k": 1e3,
    "千": 1,
    "w": 1e4,
    "万元": 1,
    "万块": 1,
    "m": 1e6,
}


def parse_money_cny(value: object, *, field: str | None = "budget_cny") -> float:
    """Money in yuan (CNY): "5万" → 50000, "50000元" → 50000, "¥3k" → 3000, "3千块" → 3000,
    "1.2万元" → 12000, "5w" → 50000, "RMB 8000" → 8000. Other currencies are refused
    (no exchange rate is assumed)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _positive(float(value), "金额", "Amount", value, field)
    raw = str(value)
    s = _normalise(raw).lower()
    if re.search(r"\$|usd|美元|美金|€|eur|欧元", s):
        raise ToolInputError(
            "只支持人民币金额（不假设汇率），请换算成元后再输入",
            "Only CNY amounts are supported (no exchange rate is assumed); convert to yuan first",
            field=field,
        )
    s = re.sub(r"^(rmb|cny|人民币)\s*", "", s)
    if s.startswith("-"):
        raise ToolInputError(f"金额必须是正数，收到「{raw}」", f"Amount must be positive, got {raw!r}", field=field)
    try:
        number, unit = split_number_unit(s)
    except (ValueError, ToolInputError):
        raise _bad("金额", "an amount", raw, field, "5万、50000元、¥3k") from None
    unit = re.sub(r"\s+", "", unit)
    unit = re.sub(r"(元|块钱|块|rmb|cny|yuan|人民币)$", "", unit) if unit not in _MONEY_UNITS else unit
    mult = _MONEY_UNITS.get(unit)
    if mult is None:
        raise _bad("金额", "an amount", raw, field, "5万、50000元、¥3k")
    return _positive(number * mult, "金额", "Amount", raw, field)


_HOURS = {
    "": None,
    "h": 1,
    "hr": 1,
    "hrs": 1,
    "hour": 1,
    "hours": 1,
    "小时": 1,
    "个小时": 1,
    "钟头": 1,
    "个钟头": 1,
    "时": 1,
    "min": 1 / 60,
    "mins": 1 / 60,
    "minute": 1 / 60,
    "minutes": 1 / 60,
    "分钟": 1 / 60,
    "d": 24,
    "day": 24,
    "days": 24,
    "天": 24,
    "日": 24,
    "w": 168,
    "wk": 168,
    "week": 168,
    "weeks": 168,
    "周": 168,
    "个周": 168,
    "星期": 168,
    "个星期": 168,
    "礼拜": 168,
    "个礼拜": 168,
    "mo": 720,
    "month": 720,
    "months": 720,
    "月": 720,
    "个月": 720,
    "y": 8760,
    "yr": 8760,
    "year": 8760,
    "years": 8760,
    "年": 8760,
}


def parse_duration_hours(
    value: object, *, field: str | None = "duration", bare_unit_hours: float | None = None
) -> float:
    """Duration in hours: "48h" → 48, "7d"/"7天" → 168, "一周" → 168, "两周" → 336,
    "1个月" → 720 (30 days), "半个月" → 360, "90 min" → 1.5, "1年" → 8760.

    A bare number is an error unless `bare_unit_hours` says what it means (e.g. 1 for hours).
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if bare_unit_hours is None:
            raise _bad("时长", "a duration", value, field, "48h、7天、一周、1个月")
        return _positive(float(value) * bare_unit_hours, "时长", "Duration", value, field)
    raw = str(value)
    s = _normalise(raw).lower()
    if s.startswith("-"):
        raise ToolInputError(f"时长必须是正数，收到「{raw}」", f"Duration must be positive, got {raw!r}", field=field)
    if s in {"半月", "半个月"}:
        return 360.0
    if s in {"半年"}:
        return 4380.0
    try:
        number, unit = split_number_unit(s)
    except (ValueError, ToolInputError):
        raise _bad("时长", "a duration", raw, field, "48h、7天、一周、1个月") from None
    unit = re.sub(r"\s+", "", unit)
    per = _HOURS.get(unit)
    if unit == "":
        per = bare_unit_hours
    if per is None:
        raise _bad("时长", "a duration", raw, field, "48h、7天、一周、1个月")
    return _positive(number * per, "时长", "Duration", raw, field)


_SIZE_GB = {
    "": 1.0,
    "g": 1.0,
    "gb": 1.0,
    "gbyte": 1.0,
    "gbytes": 1.0,
    "gib": 2**30 / 1e9,
    "t": 1000.0,
    "tb": 1000.0,
    "tib": 2**40 / 1e9,
    "m": 1e-3,
    "mb": 1e-3,
    "mib": 2**20 / 1e9,
}


def parse_size_gb(value: object, *, field: str | None = "size") -> float:
    """Memory size in decimal GB: "24GB"/"24G"/"24" → 24.0, "80GB HBM" → 80, "24 GiB" → 25.77,
    "1TB" → 1000, "512MB" → 0.512, "24GB显存" → 24. A bare number means GB."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _positive(float(value), "显存/内存大小", "Size", value, field)
    raw = str(value)
    s = _normalise(raw).lower()
    if s.startswith("-"):
        raise ToolInputError(f"大小必须是正数，收到「{raw}」", f"Size must be positive, got {raw!r}", field=field)
    m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*(?:hbm\w*|gddr\w*|显存|内存|vram|memory|的卡)?\s*$", s)
    if not m or m.group(2) not in _SIZE_GB:
        raise _bad("大小", "a size", raw, field, "24GB、80G、24 GiB")
    return _positive(float(m.group(1)) * _SIZE_GB[m.group(2)], "大小", "Size", raw, field)
