"""Serving load in the user's words: peak concurrency, requests per second, requests a day, head count.

Why separate from `quantities.py`: these are read only when a serving-sizing intent asks (a team's
knowledge base, "日活200+，并发10次/s", "5000 requests a day"), and the distinctions matter — a rate
(次/s, QPS) is not a concurrency (路/人同时), and 200 employees are not 200 simultaneous generations.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from tools.quantities import parse_chinese_number

_N = r"(?:\d+(?:\.\d+)?(?![\d.])|[零〇一二两三四五六七八九十百千万]+)"
_K = r"(?:\s*(?:k|千|万|w)(?![a-z]))?"

_RPS_RE = re.compile(
    rf"(?P<n>{_N}){_K}\s*(?:次|个请求|个|条|请求|requests?|reqs?|queries)?\s*(?:/|每|per|a)\s*(?:s|秒|sec(?:ond)?)\b|"
    rf"每秒\s*(?:钟)?\s*(?:有|约|大概)?\s*(?P<n2>{_N}){_K}\s*(?:次|个|条)?\s*(?:请求|调用|提问)?|"
    rf"(?P<n3>{_N}){_K}\s*(?:qps|rps)\b|(?:qps|rps)\s*(?:=|:|是|为|约|大概)?\s*(?P<n4>{_N}){_K}",
    re.I,
)
_DAILY_RE = re.compile(
    rf"(?P<n>{_N}){_K}\s*(?:次|个|条)?\s*(?:requests?|calls|queries|请求|调用|提问|次调用)\s*(?:/|a|per|每)\s*(?:day|天|日)|"
    rf"(?:daily|每天|每日|一天)[^0-9。.]{{0,24}}?(?P<n2>{_N}){_K}\s*(?:次|个|条)?\s*(?:requests?|calls|queries|请求|调用|提问)",
    re.I,
)
_PEAK_RE = re.compile(
    rf"并发(?:峰值|量|数|用户|用户数)?\s*(?:估计|预计|大概|约|算|为|是|在|有|达到|峰值)*\s*(?P<n>{_N}){_K}\s*(?:人次|人|个|路|用户|个用户|请求)?(?!\s*(?:次|个)?\s*/\s*(?:s|秒))|"
    rf"(?P<n2>{_N}){_K}\s*(?:个|位|名)?\s*(?:人|用户|users?)\s*(?:同时|并发|concurrent)|"
    rf"(?P<n3>{_N}){_K}\s*(?:concurrent|simultaneous)\s*(?:users?|requests?|sessions?)|"
    rf"同时\s*(?:有|在线|大概|大约|约|会有)*\s*(?P<n4>{_N}){_K}\s*(?:个|位|名|路)?\s*(?:人|用户|请求|会话)",
    re.I,
)
_HEADS_RE = re.compile(
    rf"(?:日活|dau)\s*(?:用户)?\s*(?:大概|大约|约|有|是|为|估计|预计|差不多|在)*\s*(?P<n>{_N}){_K}|(?P<n2>{_N}){_K}\s*\+?\s*(?:人|名员工|个员工|员工|位员工|个用户|用户|employees|users|people)\s*(?:规模|左右|的公司|团队|使用|用)?|"
    rf"(?:员工|用户)(?:人数|数)?\s*(?:约|大概|估计)?\s*(?P<n3>{_N}){_K}|"
    # "500 daily users", "2k daily active users", "DAU of 500"
    rf"(?P<n4>{_N}){_K}\s*\+?\s*(?:daily|monthly|weekly)\s+(?:active\s+)?users|(?:dau)\s*(?:of|is|=|:|~|about|around)\s*(?P<n5>{_N}){_K}",
    re.I,
)
_MULT = {"k": 1e3, "千": 1e3, "万": 1e4, "w": 1e4}


class Load(BaseModel):
    """What the question said about the load (None = not said)."""

    concurrency: int | None = None  # sequences generating at once (峰值并发 / simultaneous users)
    requests_per_s: float | None = None  # a rate: 次/s, QPS, or requests a day ÷ 86,400
    per_day: float | None = None  # requests a day as stated
    heads: int | None = None  # people who use it (日活, 200人规模) — not all at once


def _value(m: re.Match[str], *groups: str) -> float | None:
    raw = next((m.group(g) for g in groups if m.group(g)), None)
    if raw is None:
        return None
    try:
        n = float(raw) if re.match(r"\d", raw) else float(parse_chinese_number(raw))
    except Exception:  # an unreadable numeral is not a load figure
        return None
    g = next(g for g in groups if m.group(g))
    after = re.match(r"\s*(k|千|万|w)(?![a-z])", m.string[m.end(g) :], re.I)
    return n * (_MULT[after.group(1).lower()] if after else 1.0)


def read_load(text: str) -> Load:
    t = text.replace("，", ",")
    out = Load()
    m = _RPS_RE.search(t)
    if m:
        out.requests_per_s = _value(m, "n", "n2", "n3", "n4")
    m = _DAILY_RE.search(t)
    if m:
        out.per_day = _value(m, "n", "n2")
        if out.per_day and out.requests_per_s is None:
            out.requests_per_s = round(out.per_day / 86_400, 4)
    m = _PEAK_RE.search(t)
    if m:
        n = _value(m, "n", "n2", "n3", "n4")
        out.concurrency = int(n) if n and n >= 1 else None
    m = _HEADS_RE.search(t)
    if m:
        n = _value(m, "n", "n2", "n3", "n4", "n5")
        out.heads = int(n) if n and n >= 2 else None
    return out
