"""Pull numbers *with their units* out of an answer, in Chinese or English.

Why: the eval suite checks that the advisor says the right numbers, and an answer can write
the same quantity many ways — "112 GB", "104.3 GiB", "约 11.2 万元", "两张", "七十亿参数",
"3.14×10^23 FLOPs", "56–112 GB". Every quantity is converted to one canonical unit per
dimension so a GiB figure can be compared with an expected GB figure, and a GB/s figure is
never mistaken for GB.

Canonical units (value stored in `Quantity.value`):
  bytes B · bandwidth B/s · flops_rate FLOP/s · ops_rate OP/s · flop FLOP · cny CNY · usd USD
  tokens · params · percent % · time s · gpu_time GPU-hours · gpus · nodes · watts W ·
  celsius °C · bytes_per_param B/param · ratio ×

Byte units follow the project rule: GB = 10^9 bytes, GiB = 2^30, MiB = 2^20; a bare "G" after a
number ("24G 显存") is read as GB, which is how Chinese listings use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# --------------------------------------------------------------------------- quantities


@dataclass
class Quantity:
    """One number found in text, converted to its dimension's canonical unit."""

    value: float
    dim: str | None  # None = a bare number (no unit recognised)
    raw: str  # the text it came from, e.g. "56–112 GB" or "104.3 GiB"
    start: int = 0
    end: int = 0
    per: str | None = None  # rate qualifier for money: "h" | "day" | "month" | "year"
    range_id: int | None = None  # quantities from one written range share an id
    range_role: str | None = None  # "low" | "high"
    unit_text: str = ""

    def __repr__(self) -> str:  # short, for test failure messages
        per = f"/{self.per}" if self.per else ""
        rng = f" [{self.range_role}]" if self.range_role else ""
        return f"Q({self.value:g} {self.dim}{per}{rng} ← {self.raw!r})"


# --------------------------------------------------------------------------- unit specs

_TIME = {
    "s": 1.0,
    "ms": 1e-3,
    "min": 60.0,
    "h": 3600.0,
    "day": 86400.0,
    "week": 7 * 86400.0,
    "month": 30 * 86400.0,
    "year": 365 * 86400.0,
}

# expected-unit string (lower-cased) -> (dimension, factor to canonical, per)
_UNIT_SPECS: dict[str, tuple[str, float, str | None]] = {
    "b": ("bytes", 1.0, None),
    "byte": ("bytes", 1.0, None),
    "bytes": ("bytes", 1.0, None),
    "kb": ("bytes", 1e3, None),
    "mb": ("bytes", 1e6, None),
    "gb": ("bytes", 1e9, None),
    "tb": ("bytes", 1e12, None),
    "pb": ("bytes", 1e15, None),
    "kib": ("bytes", 2.0**10, None),
    "mib": ("bytes", 2.0**20, None),
    "gib": ("bytes", 2.0**30, None),
    "tib": ("bytes", 2.0**40, None),
    "mb/s": ("bandwidth", 1e6, None),
    "gb/s": ("bandwidth", 1e9, None),
    "tb/s": ("bandwidth", 1e12, None),
    "gib/s": ("bandwidth", 2.0**30, None),
    "gbit/s": ("bandwidth", 1e9 / 8, None),
    "gbps": ("bandwidth", 1e9 / 8, None),
    "tflops": ("flops_rate", 1e12, None),
    "pflops": ("flops_rate", 1e15, None),
    "gflops": ("flops_rate", 1e9, None),
    "tops": ("ops_rate", 1e12, None),
    "flop": ("flop", 1.0, None),
    "flops_total": ("flop", 1.0, None),
    "cny": ("cny", 1.0, None),
    "元": ("cny", 1.0, None),
    "万元": ("cny", 1e4, None),
    "cny/h": ("cny", 1.0, "h"),
    "cny/hour": ("cny", 1.0, "h"),
    "元/小时": ("cny", 1.0, "h"),
    "cny/day": ("cny", 1.0, "day"),
    "cny/month": ("cny", 1.0, "month"),
    "元/月": ("cny", 1.0, "month"),
    "万元/月": ("cny", 1e4, "month"),
    "cny/year": ("cny", 1.0, "year"),
    "usd": ("usd", 1.0, None),
    "usd/h": ("usd", 1.0, "h"),
    "tokens": ("tokens", 1.0, None),
    "token": ("tokens", 1.0, None),
    "params": ("params", 1.0, None),
    "b_params": ("params", 1e9, None),
    "%": ("percent", 1.0, None),
    "percent": ("percent", 1.0, None),
    "s": ("time", 1.0, None),
    "ms": ("time", 1e-3, None),
    "min": ("time", 60.0, None),
    "h": ("time", 3600.0, None),
    "hours": ("time", 3600.0, None),
    "days": ("time", 86400.0, None),
    "weeks": ("time", 7 * 86400.0, None),
    "months": ("time", 30 * 86400.0, None),
    "gpu-hours": ("gpu_time", 1.0, None),
    "gpu_hours": ("gpu_time", 1.0, None),
    "gpus": ("gpus", 1.0, None),
    "nodes": ("nodes", 1.0, None),
    "w": ("watts", 1.0, None),
    "c": ("celsius", 1.0, None),
    "b/param": ("bytes_per_param", 1.0, None),
    "x": ("ratio", 1.0, None),
    "ratio": ("ratio", 1.0, None),
}


def unit_spec(unit: str | None) -> tuple[str | None, float, str | None]:
    """Expected-unit string → (dimension, factor to canonical, per). None → a bare number."""
    if unit is None or unit == "":
        return None, 1.0, None
    key = unit.strip().lower().replace(" ", "")
    if key not in _UNIT_SPECS:
        raise ValueError(f"unknown unit {unit!r}; known: {sorted(_UNIT_SPECS)}")
    return _UNIT_SPECS[key]


def to_canonical(value: float, unit: str | None) -> tuple[float, str | None, str | None]:
    dim, factor, per = unit_spec(unit)
    return value * factor, dim, per


# --------------------------------------------------------------------------- Chinese numerals

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
}
_CN_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_BIG_UNITS = {"万": 10_000, "亿": 100_000_000}
_CN_CHARS = "零〇一二两俩三四五六七八九十百千万亿"


def chinese_to_number(text: str) -> float:
    """七十亿 → 7e9, 一百二十 → 120, 两 → 2, 三点五 → 3.5, 一万五千 → 15000."""
    if "点" in text:
        whole, frac = text.split("点", 1)
        base = chinese_to_number(whole) if whole else 0.0
        digits = "".join(str(_CN_DIGITS[c]) for c in frac if c in _CN_DIGITS)
        return base + (float("0." + digits) if digits else 0.0)
    total = 0.0  # finished big sections (亿, 万)
    section = 0.0  # current section below 万
    digit: float | None = None
    for ch in text:
        if ch in _CN_DIGITS:
            digit = float(_CN_DIGITS[ch])
        elif ch in _CN_SMALL_UNITS:
            section += (1.0 if digit is None else digit) * _CN_SMALL_UNITS[ch]
            digit = None
        elif ch in _CN_BIG_UNITS:
            section += digit or 0.0
            if section == 0:
                section = 1.0
            big = _CN_BIG_UNITS[ch]
            # 万亿: the 亿 multiplies everything gathered so far
            total = (total + section) * big if big > 10_000 else total + section * big
            section, digit = 0.0, None
        else:
            raise ValueError(f"not a Chinese numeral: {text!r}")
    return total + section + (digit or 0.0)


# --------------------------------------------------------------------------- unit table (text side)

# (regex anchored at the unit's start, dimension, factor to canonical, per)
# Order matters: longer / more specific first. Case-sensitive unless (?i) in the pattern.
_PER_H = r"(?:\s*/\s*(?:卡\s*/\s*|GPU\s*/\s*|card\s*/\s*)?(?:小时|时|h\b|hr\b|hour\b)|\s*每\s*(?:卡\s*)?(?:小时|时)|\s*(?:per|an|/)\s*(?:GPU[- ]?|card[- ]?)?hour\b|\s*/\s*(?:GPU|卡)[- ·]?(?:h\b|hour\b|小时|时))"
_PER_DAY = r"(?:\s*/\s*(?:卡\s*/\s*)?(?:天|日|day\b)|\s*每\s*(?:天|日)|\s*(?:per|a)\s*day\b)"
_PER_MONTH = r"(?:\s*/\s*(?:卡\s*/\s*|台\s*/\s*|card\s*/\s*|GPU\s*/\s*|server\s*/\s*|node\s*/\s*)?(?:月|mo\b|month\b)|\s*每\s*(?:卡\s*|台\s*)?(?:每\s*)?月|\s*(?:per|a)\s*(?:card[- ])?month\b|\s*/\s*(?:卡|台)[·\-]?月)"
_PER_YEAR = r"(?:\s*/\s*(?:年|yr\b|year\b)|\s*每年|\s*(?:per|a)\s*year\b)"

_GPU_NAME_AHEAD = r"(?=\s*(?:NVIDIA\s*|英伟达\s*)?(?:RTX\s*|GeForce\s*|Tesla\s*)?(?:[AHBLTV]\d{1,3}|RTX|4090|3090|5090|昇腾|Ascend|910B|GB200))"

_UNIT_TABLE: list[tuple[re.Pattern[str], str, float]] = []


def _u(pattern: str, dim: str, factor: float) -> None:
    _UNIT_TABLE.append((re.compile(pattern), dim, factor))


# GPU-time (before plain hours)
_u(r"(?i)(?:GPU|卡)\s*[·\-_ ]?\s*(?:hours?|hrs?|h\b|小时|时)|卡时|card[- ]hours?", "gpu_time", 1.0)
_u(r"(?i)(?:GPU|卡)\s*[·\-_ ]?\s*(?:days?|天)|卡天", "gpu_time", 24.0)
# bandwidth (bits first: Gb/s, Gbps, GbE, Gbit/s are bits)
_u(r"Tb/s|Tbps|Tbit/s|TbE", "bandwidth", 1e12 / 8)
_u(r"Gb/s|Gbps|gbps|Gbit/s|GbE|gbit/s|Gb\b(?!/)", "bandwidth", 1e9 / 8)
_u(r"Mb/s|Mbps|mbps|Mbit/s", "bandwidth", 1e6 / 8)
_u(r"(?i)TiB/s", "bandwidth", 2.0**40)
_u(r"(?i)GiB/s", "bandwidth", 2.0**30)
_u(r"(?i)TB/s|TBps|TB每秒|T/s", "bandwidth", 1e12)
_u(r"(?i)GB/s|GBps|GB每秒|G/s", "bandwidth", 1e9)
_u(r"(?i)MB/s|MBps", "bandwidth", 1e6)
# compute rates and counts
_u(r"(?i)PFLOPS|PFLOP/s|PFlops", "flops_rate", 1e15)
_u(r"(?i)TFLOPS|TFLOP/s|TFlops|TF(?![a-zA-Z0-9])", "flops_rate", 1e12)
_u(r"(?i)GFLOPS|GFLOP/s", "flops_rate", 1e9)
_u(r"(?i)POPS|PetaOPS", "ops_rate", 1e15)
_u(r"(?i)TOPS(?![a-z])", "ops_rate", 1e12)
_u(r"(?i)PF[- ]?days?", "flop", 1e15 * 86400)
_u(r"(?i)(?:ZFLOPs?|zettaFLOPs?)", "flop", 1e21)
_u(r"(?i)EFLOPs?(?![/a-zA-Z])", "flop", 1e18)
_u(r"(?i)FLOPs?(?![/a-zA-Z])|次浮点运算|次运算", "flop", 1.0)
# bytes per parameter
_u(r"(?i)(?:bytes?|B)\s*(?:/|per)\s*(?:param(?:eter)?s?|参数)|字节\s*/\s*参数|字节每参数", "bytes_per_param", 1.0)
# bytes
_u(r"(?i)TiB", "bytes", 2.0**40)
_u(r"(?i)GiB", "bytes", 2.0**30)
_u(r"(?i)MiB", "bytes", 2.0**20)
_u(r"(?i)KiB", "bytes", 2.0**10)
_u(r"PB(?![a-zA-Z])", "bytes", 1e15)
_u(r"(?i)TB(?![a-zA-Z])", "bytes", 1e12)
_u(r"(?i)GB(?![a-zA-Z])|G(?=\s*(?:显存|内存|HBM|GDDR|的显存|版|卡|\b|[，,。、)）/]|$))|(?i:gigabytes?)", "bytes", 1e9)
_u(r"(?i)MB(?![a-zA-Z])|(?i:megabytes?)", "bytes", 1e6)
_u(r"(?i)KB(?![a-zA-Z])", "bytes", 1e3)
_u(r"字节|(?i:bytes?)(?![a-zA-Z])", "bytes", 1.0)
# money
_u(r"万元|万块", "cny", 1e4)
_u(r"(?i)元|块钱|块(?=\s*(?:/|每|一))|人民币|RMB|CNY", "cny", 1.0)
_u(r"(?i)美元|美金|USD|dollars?", "usd", 1.0)
# tokens and parameters
_u(r"(?i)tokens?|个\s*token|词元", "tokens", 1.0)
_u(r"(?i)个?参数|parameters?|params?(?![a-z/])", "params", 1.0)
# percent
_u(r"%|％|(?i:percent)", "percent", 1.0)
# time
_u(r"毫秒|(?i:ms)(?![a-zA-Z])|(?i:milliseconds?)", "time", 1e-3)
_u(r"(?i)秒钟?|seconds?|secs?(?![a-z])|s(?![a-zA-Z0-9/])", "time", 1.0)
_u(r"(?i)分钟|minutes?|mins?(?![a-z])", "time", 60.0)
_u(r"(?i)个?小时|钟头|hours?|hrs?(?![a-z])|h(?![a-zA-Z0-9/])", "time", 3600.0)
_u(r"(?i)天|days?(?![a-z])|(?<=\d)d(?![a-zA-Z0-9])", "time", 86400.0)
_u(r"(?i)个?星期|个?礼拜|周(?!期|边|围|末)|weeks?(?![a-z])", "time", 7 * 86400.0)
_u(r"(?i)个月|months?(?![a-z])", "time", 30 * 86400.0)
_u(r"(?i)years?(?![a-z])", "time", 365 * 86400.0)
# counts
_u(
    r"(?i)(?:张|块|片)\s*(?:卡|GPU|显卡|算力卡|计算卡)?|个?\s*GPUs?(?![a-zA-Z])|[- ]?(?:cards?|GPUs?)(?![a-zA-Z])|卡(?!时)",
    "gpus",
    1.0,
)
_u(r"[x×*]" + _GPU_NAME_AHEAD, "gpus", 1.0)
_u(
    r"(?i)台\s*(?:服务器|机器|主机|节点)?|个?\s*节点|[- ]?(?:nodes?|servers?|machines?|boxes)(?![a-zA-Z])|机(?=\s*\d|\s*[一二两三四五六七八九十]+\s*卡)",
    "nodes",
    1.0,
)
# power, temperature
_u(r"(?i)瓦|W(?![a-zA-Z])|watts?", "watts", 1.0)
_u(r"°\s*C|℃|度(?=\s*(?:C|左右|以上|以下|，|。|$))|C(?![a-zA-Z0-9])", "celsius", 1.0)
# ratios
_u(r"倍|×(?!\s*10)|x(?![a-zA-Z0-9])|(?i:times)(?![a-z])", "ratio", 1.0)

_MONEY_CONTEXT = re.compile(r"[¥￥元]|(?i:rmb|cny)|价|租|费|钱|成本|预算|花|报价|月租|包月")

# --------------------------------------------------------------------------- literal scanner

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_NUM_RE = re.compile(
    r"(?<![A-Za-z0-9_.])"  # not glued to a Latin word (A100, v2.1) or decimal
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?P<sci>"
    r"[eE][+-]?\d+"  # 3.14e23
    r"|\s*[×xX*]\s*10\s*(?:\^|\*\*)\s*[+-]?\d+"  # 3.14×10^23, 3.14 x 10**23
    r"|\s*[×xX*]\s*10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+"  # 3.14×10²³
    r"|\^\s*[+-]?\d+"  # 10^23 (mantissa 1)
    r"|[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+"  # 10²³
    r")?"
)
_CN_NUM_RE = re.compile(r"(?:百分之)?[" + _CN_CHARS + r"]+(?:点[" + "零〇一二三四五六七八九" + r"]+)?")
_MULT_RE = re.compile(r"\s*(万亿|千亿|百亿|亿|千万|百万|万|千|百(?![分]))")
_SCALE_RE = re.compile(r"\s?(?P<s>thousand|million|billion|trillion|[kKMBT])(?=[^A-Za-z0-9]|$)")
_SCALE = {
    "thousand": 1e3,
    "k": 1e3,
    "K": 1e3,
    "million": 1e6,
    "M": 1e6,
    "billion": 1e9,
    "B": 1e9,
    "trillion": 1e12,
    "T": 1e12,
}
_WORD_NUMS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "sixteen": 16,
    "a pair of": 2,
    "a single": 1,
    "single": 1,
}
_WORD_NUM_RE = re.compile(
    r"(?i)\b("
    + "|".join(sorted(_WORD_NUMS, key=len, reverse=True))
    + r")\b(?=\s+(?:[\w-]+\s+)?(?:GPUs?|cards?|nodes?|servers?|machines?)\b)"
)
_RANGE_SEP = re.compile(r"^\s*(?:–|—|-|~|～|〜|－|到|至|to)\s*$")
_SIGN_BEFORE = re.compile(r"(?:^|[\s(（:：=,，])[-−]$")
_CN_MULT = {
    "万亿": 1e12,
    "千亿": 1e11,
    "百亿": 1e10,
    "亿": 1e8,
    "千万": 1e7,
    "百万": 1e6,
    "万": 1e4,
    "千": 1e3,
    "百": 1e2,
}


@dataclass
class _Lit:
    value: float
    start: int
    end: int  # end of number + multiplier (unit starts here)
    has_mult: bool = False
    mult: float = 1.0
    scale_dim: str | None = None  # dimension implied by a B/T/M scale word ("7B" → params)
    percent_prefix: bool = False


def _parse_sci(num: float, sci: str) -> float:
    s = sci.translate(_SUPERSCRIPT).replace(" ", "")
    if not s:
        return num
    if s[0] in "eE":
        return num * 10 ** int(s[1:])
    if s[0] == "^":
        return num ** int(s[1:]) if num != 10 else 10.0 ** int(s[1:])
    m = re.match(r"[×xX*]10(?:\^|\*\*)?([+-]?\d+)$", s)
    if m:
        return num * 10 ** int(m.group(1))
    if re.fullmatch(r"[+-]?\d+", s):  # 10²³
        return num ** int(s) if num != 10 else 10.0 ** int(s)
    return num


def _scan_literals(text: str) -> list[_Lit]:
    lits: list[_Lit] = []
    taken: list[tuple[int, int]] = []
    for m in _NUM_RE.finditer(text):
        value = float(m.group("num").replace(",", ""))
        sci = m.group("sci") or ""
        # "8 x 10^9" only counts as scientific when the base is 10; "8×A100" is a count
        value = _parse_sci(value, sci)
        end = m.end()
        lit = _Lit(value=value, start=m.start(), end=end)
        mm = _MULT_RE.match(text, end)
        if mm:
            lit.value *= _CN_MULT[mm.group(1)]
            lit.mult = _CN_MULT[mm.group(1)]
            lit.has_mult = True
            lit.end = mm.end()
        else:
            sm = _SCALE_RE.match(text, end)
            if sm and not _unit_follows_directly(text, end):
                word = sm.group("s")
                rest = text[sm.end() : sm.end() + 20]
                if word == "B" and re.match(r"\s*(?:/|per\s|每)", rest):
                    pass  # "16 B/param" is bytes
                else:
                    lit.value *= _SCALE[word]
                    lit.mult = _SCALE[word]
                    lit.has_mult = True
                    lit.end = sm.end()
                    if word in ("B", "billion") or (
                        word in ("M", "million", "T", "trillion", "K", "k", "thousand")
                        and re.match(r"\s*(?:params?|parameters?|参数|个参数)", rest)
                    ):
                        lit.scale_dim = "params"
                    if re.match(r"\s*(?:tokens?|个?token|词元)", rest):
                        lit.scale_dim = "tokens"
        # sign
        if m.start() > 0 and _SIGN_BEFORE.search(text[max(0, m.start() - 2) : m.start()]):
            lit.value = -lit.value
            lit.start -= 1
        lits.append(lit)
        taken.append((m.start(), lit.end))
    for m in _CN_NUM_RE.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        chunk = m.group(0)
        pct = chunk.startswith("百分之")
        if pct:
            chunk = chunk[3:]
        if not chunk:
            continue
        # a lone 一 / 十 inside ordinary words ("一下", "统一") is not a number: require a unit
        try:
            value = chinese_to_number(chunk)
        except ValueError:
            continue
        lits.append(
            _Lit(
                value=value, start=m.start(), end=m.end(), percent_prefix=pct, has_mult=any(c in chunk for c in "万亿")
            )
        )
    for m in _WORD_NUM_RE.finditer(text):
        noun_match = re.match(r"(?i)\s+(?:[\w-]+\s+)?(GPUs?|cards?|nodes?|servers?|machines?)", text[m.end() :])
        if noun_match is None:  # _WORD_NUM_RE only matches before such a noun
            continue
        noun = noun_match.group(1).lower()
        lits.append(
            _Lit(
                value=float(_WORD_NUMS[m.group(1).lower()]),
                start=m.start(),
                end=m.end(),
                scale_dim="gpus" if noun.startswith(("gpu", "card")) else "nodes",
            )
        )
    lits.sort(key=lambda lit: lit.start)
    return lits


def _unit_follows_directly(text: str, pos: int) -> bool:
    """True when a real unit starts at pos (so "8 TB" is not read as 8 trillion)."""
    seg = text[pos : pos + 12]
    return bool(re.match(r"\s?(?:TB|Tb|TF|TOPS|T/s|MB|Mb|MiB|KB|kB|K[iI]B|B/|Bytes?|bytes?|Gb|GB)", seg))


def _match_unit(text: str, pos: int) -> tuple[str | None, float, int, str]:
    """The unit right after pos → (dimension, factor, end position, unit text)."""
    # allow one optional space (or a hyphen for "8-GPU", "8-card") between number and unit;
    # table order decides (so " GPU-hours" is GPU time, not a GPU count)
    spaced = text[pos : pos + 1] in (" ", "\u00a0", "-", "\u2009")
    for pattern, dim, factor in _UNIT_TABLE:
        for start in (pos, pos + 1) if spaced else (pos,):
            m = pattern.match(text, start)
            if m and m.end() > start:
                return dim, factor, m.end(), m.group(0)
    return None, 1.0, pos, ""


def _match_per(text: str, pos: int) -> tuple[str | None, int]:
    for per, pat in (("h", _PER_H), ("day", _PER_DAY), ("month", _PER_MONTH), ("year", _PER_YEAR)):
        m = re.compile(pat, re.I).match(text, pos)
        if m:
            return per, m.end()
    return None, pos


def extract_quantities(text: str) -> list[Quantity]:
    """Every number in `text` with its unit (if any), canonicalised; ranges become two quantities."""
    text = text or ""
    out: list[Quantity] = []
    lits = _scan_literals(text)
    for lit in lits:
        value = lit.value
        dim, factor, uend, utext = _match_unit(text, lit.end)
        if lit.percent_prefix:
            dim, factor, uend, utext = "percent", 1.0, lit.end, "百分之"
        # money prefix: ¥3,100 / ￥ / $ / RMB 3100
        before = text[max(0, lit.start - 5) : lit.start]
        if dim is None and re.search(r"[¥￥]\s*$|(?i:rmb|cny)\s*$", before):
            dim, factor = "cny", 1.0
        elif dim is None and re.search(r"\$\s*$|(?i:usd)\s*$", before):
            dim, factor = "usd", 1.0
        if dim is None and lit.scale_dim:
            dim, factor = lit.scale_dim, 1.0
        if dim == "params" and lit.scale_dim == "tokens":
            dim = "tokens"
        # Chinese numerals without any unit are too ambiguous ("一下", "统一") — drop them
        is_cn = bool(re.match(r"[" + _CN_CHARS + r"百]", text[lit.start : lit.start + 1] or "x"))
        if is_cn and dim is None:
            continue
        # bare 万/亿 amounts in a money sentence ("8卡月租约2.5万/月") are CNY
        if dim is None and lit.has_mult and lit.mult >= 1e4:
            sentence = _sentence_around(text, lit.start, lit.end)
            per_probe, _ = _match_per(text, uend)
            if per_probe or _MONEY_CONTEXT.search(sentence):
                dim, factor = "cny", 1.0
        # "16 字节" next to "参数/param" is bytes per parameter
        if dim == "bytes" and factor == 1.0 and re.search(r"参数|(?i:param)", text[max(0, lit.start - 12) : uend + 8]):
            dim = "bytes_per_param"
        per = None
        end = uend
        if dim == "cny" or dim == "usd":
            per, end = _match_per(text, uend)
            if per is None:
                per = _per_from_prefix(text, lit.start)
        out.append(
            Quantity(
                value=value * factor,
                dim=dim,
                raw=text[lit.start : end],
                start=lit.start,
                end=end,
                per=per,
                unit_text=utext,
            )
        )
    _link_ranges(text, out, lits)
    return out


def _per_from_prefix(text: str, start: int) -> str | None:
    """'月租 3900 元', '每小时 2 元', 'hourly ¥2' — a rate word shortly before the amount."""
    before = text[max(0, start - 10) : start]
    if re.search(r"月租|包月|每月|一个月|(?i:monthly|per month|a month)", before):
        return "month"
    if re.search(r"每小时|时租|按小时|(?i:hourly|per hour|an hour)", before):
        return "h"
    if re.search(r"日租|每天|(?i:daily|per day)", before):
        return "day"
    return None


def _sentence_around(text: str, start: int, end: int) -> str:
    left = max(text.rfind(c, 0, start) for c in "。.!！?？\n;；")
    right_candidates = [i for i in (text.find(c, end) for c in "。!！?？\n;；") if i >= 0]
    right = min(right_candidates) if right_candidates else len(text)
    return text[left + 1 : right]


def _link_ranges(text: str, qs: list[Quantity], lits: list[_Lit]) -> None:
    """56–112 GB, 56~112GB, 56 到 112 GB, 2.5–3.8万/月: the left end inherits the right's unit."""
    lit_by_start = {lit.start: lit for lit in lits}
    rid = 0
    for i in range(len(qs) - 1):
        a, b = qs[i], qs[i + 1]
        if a.range_id is not None:
            continue
        gap_start = a.end
        gap = text[gap_start : b.start]
        neg_b = b.value < 0 and text[b.start : b.start + 1] in "-−"
        if neg_b:  # "56 -112" was read as a negative number: it is a range
            gap = text[gap_start : b.start + 1]
        if not _RANGE_SEP.match(gap):
            continue
        if a.dim is not None and b.dim is not None and a.dim != b.dim:
            continue
        if neg_b:
            b.value = -b.value
            b.start += 1
        la, lb = lit_by_start.get(a.start), lit_by_start.get(b.start - (1 if neg_b else 0)) or lit_by_start.get(b.start)
        if b.dim is None and a.dim is not None:
            b.value *= _factor_of(a)
            b.dim, b.per, b.unit_text = a.dim, a.per, a.unit_text
        if a.dim is None and b.dim is not None:
            # inherit unit and (if the left end has none) the 万/亿 multiplier of the right end
            raw_a = a.value
            if la is not None and lb is not None and not la.has_mult and lb.has_mult:
                raw_a *= lb.mult
            factor = _factor_of(b)
            a.value = raw_a * factor
            a.dim, a.per, a.unit_text = b.dim, b.per, b.unit_text
        if b.dim in ("cny", "usd") and b.per is None:
            b.per, new_end = _match_per(text, b.end)
            b.end = max(b.end, new_end)
            a.per = a.per or b.per
        rid += 1
        a.range_id = b.range_id = rid
        a.range_role, b.range_role = "low", "high"
        a.raw = b.raw = text[a.start : b.end]


def _factor_of(q: Quantity) -> float:
    """Canonical factor of q's unit text (used when the left end of a range borrows it)."""
    if not q.unit_text:
        return 1.0
    for pattern, dim, factor in _UNIT_TABLE:
        if dim == q.dim and pattern.fullmatch(q.unit_text):
            return factor
    return 1.0


# --------------------------------------------------------------------------- matching


@dataclass
class NumberCheck:
    """Outcome of looking for one expected number in an answer."""

    ok: bool
    expected: str
    found: list[Quantity] = field(default_factory=list)
    matched: Quantity | None = None

    def describe(self) -> str:
        if self.ok:
            return f"found {self.expected} as {self.matched!r}"
        same_dim = ", ".join(q.raw for q in self.found[:8]) or "none"
        return f"expected {self.expected}; numbers of that kind in the answer: {same_dim}"


def _is_near(text: str, q: Quantity, words: list[str], before: int = 40, after: int = 25) -> bool:
    if q.end <= q.start:  # quantities read from tool results have no position
        return True
    line_start = text.rfind("\n", 0, q.start) + 1
    line_end = text.find("\n", q.end)
    line_end = len(text) if line_end < 0 else line_end
    lo = max(line_start, q.start - before) if before else q.end
    hi = min(line_end, q.end + after) if after else q.start
    window = (text[lo : q.start] + " " + text[q.end : hi]) if before and after else text[min(lo, hi) : max(lo, hi)]
    window = window.lower()
    return any(w.lower() in window for w in words)


def _per_compatible(expected_per: str | None, got_per: str | None) -> bool:
    return expected_per is None or got_per is None or expected_per == got_per


def find_number(
    text: str,
    *,
    value: float | None = None,
    unit: str | None = None,
    rel_tol: float | None = None,
    abs_tol: float | None = None,
    or_values: list[float] | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    mode: str = "value",
    allow_unitless: bool = False,
    quantities: list[Quantity] | None = None,
    near: list[str] | None = None,
    near_before: list[str] | None = None,
    near_after: list[str] | None = None,
) -> NumberCheck:
    """Is the expected number (in `unit`) in `text`, within tolerance, with a compatible unit?

    mode "value": some quantity equals value (or one of or_values) within rel_tol/abs_tol, or
    lies in [minimum, maximum]. mode "in_range": a written range in the text contains the value.
    Tolerances are in the expected unit (abs_tol) or relative (rel_tol; default 2%).
    `near`: only quantities with one of these words close by on the same line count (so a band
    for "base weights" is not satisfied by an activation figure that happens to fall inside it).
    """
    dim, factor, per = unit_spec(unit)
    qs = quantities if quantities is not None else extract_quantities(text)
    candidates = [q for q in qs if (q.dim == dim or (allow_unitless and q.dim is None)) and _per_compatible(per, q.per)]
    if near:
        candidates = [q for q in candidates if _is_near(text, q, near)]
    if near_before or near_after:
        # tight windows: "显存 24 GB" or "24 GB of memory", but not the "24GB" in a card's name
        candidates = [
            q
            for q in candidates
            if (near_before and _is_near(text, q, near_before, before=15, after=0))
            or (near_after and _is_near(text, q, near_after, before=0, after=15))
        ]
    targets = [v for v in ([value] if value is not None else []) + list(or_values or [])]
    label_parts = []
    near_words = list(near or []) + list(near_before or []) + list(near_after or [])
    near_txt = f" near {'/'.join(near_words)}" if near_words else ""
    if targets:
        label_parts.append(" or ".join(f"{t:g}" for t in targets))
    if minimum is not None or maximum is not None:
        label_parts.append(
            f"in [{'' if minimum is None else f'{minimum:g}'}, {'' if maximum is None else f'{maximum:g}'}]"
        )
    tol_txt = (
        f" ±{abs_tol:g}"
        if abs_tol is not None
        else f" ±{(rel_tol if rel_tol is not None else 0.02):.0%}"
        if targets
        else ""
    )
    expected_label = f"{' '.join(label_parts)}{tol_txt} {unit or '(no unit)'}{near_txt}".strip()

    def close(got: float, target: float) -> bool:
        got_u = got / factor
        if abs_tol is not None:
            return abs(got_u - target) <= abs_tol + 1e-12
        tol = rel_tol if rel_tol is not None else 0.02
        return abs(got_u - target) <= tol * abs(target) + 1e-12

    if mode == "in_range":
        ranges: dict[int, list[Quantity]] = {}
        for q in candidates:
            if q.range_id is not None:
                ranges.setdefault(q.range_id, []).append(q)
        for parts in ranges.values():
            lo = min(p.value for p in parts) / factor
            hi = max(p.value for p in parts) / factor
            for t in targets:
                slack = abs_tol if abs_tol is not None else (rel_tol or 0.0) * abs(t)
                if lo - slack <= t <= hi + slack:
                    return NumberCheck(True, expected_label, candidates, parts[0])
        # a single point value that matches is also fine
    for q in candidates:
        if any(close(q.value, t) for t in targets):
            return NumberCheck(True, expected_label, candidates, q)
        got_u = q.value / factor
        if (minimum is not None or maximum is not None) and not targets:
            if (minimum is None or got_u >= minimum - 1e-9) and (maximum is None or got_u <= maximum + 1e-9):
                return NumberCheck(True, expected_label, candidates, q)
    return NumberCheck(False, expected_label, candidates, None)
