"""Score one advisor answer against a case's expectations.

Each check returns a `Check(name, ok, expected, got)`; a case passes when every check passes.
The checks are deliberately independent of how the answer was produced (offline planner or an
LLM): they read what the user sees (answer text, citations, language) and what the tools
were asked (tool name and arguments).
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable

from evals.numbers import Quantity, extract_quantities, find_number
from evals.schema import Case, Expect, NumberExpect

# --------------------------------------------------------------------------- result access


def result_dict(result: Any) -> dict[str, Any]:
    """AskResult (pydantic), a dict, or any object with the same attributes → a plain dict."""
    if result is None:
        return {}
    if isinstance(result, dict):
        return result
    if hasattr(result, "model_dump"):
        return result.model_dump(mode="json")
    return {
        k: getattr(result, k, None)
        for k in ("answer", "language", "backend", "tool_calls", "citations", "grounded", "latency_ms")
    }


def _calls(res: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for c in res.get("tool_calls") or []:
        if not isinstance(c, dict):
            c = c.model_dump(mode="json") if hasattr(c, "model_dump") else dict(vars(c))
        out.append(c)
    return out


def _citation_ids(res: dict[str, Any]) -> list[str]:
    ids = []
    for c in res.get("citations") or []:
        if isinstance(c, dict):
            ids.append(str(c.get("doc_id", "")))
        else:
            ids.append(str(getattr(c, "doc_id", "")))
    return ids


@dataclass
class Check:
    name: str
    ok: bool
    expected: str
    got: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.name, "ok": self.ok, "expected": self.expected, "got": self.got}


@dataclass
class CaseScore:
    case_id: str
    category: str
    language: str
    passed: bool
    checks: list[Check] = field(default_factory=list)
    latency_ms: float | None = None
    error: str | None = None
    answer: str = ""
    usage: dict[str, Any] = field(default_factory=dict)

    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]


# --------------------------------------------------------------------------- text helpers


def normalize(text: str) -> str:
    """NFKC (full-width → half-width), lower case, collapsed whitespace."""
    text = unicodedata.normalize("NFKC", text or "").lower()
    return re.sub(r"\s+", " ", text)


def _alts(phrase: str | list[str]) -> list[str]:
    return [phrase] if isinstance(phrase, str) else list(phrase)


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    """Whitespace-flexible pattern; a phrase starting with a Latin letter or digit must start a word
    there, so "rain" does not match "training" and "IB" does not match "distributed"."""
    norm = normalize(phrase).strip()
    body = r"\s*".join(re.escape(part) for part in norm.split(" "))
    if re.match(r"[a-z]", norm):
        body = r"(?<![a-z])" + body
    elif re.match(r"[0-9]", norm):
        body = r"(?<![0-9.])" + body
    return re.compile(body)


def contains_phrase(text: str, phrase: str | list[str]) -> str | None:
    """The first alternative found in text (case/width-insensitive, word-start aware), else None."""
    norm = normalize(text)
    for alt in _alts(phrase):
        if normalize(alt).strip() and _phrase_pattern(alt).search(norm):
            return alt
    return None


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def text_language(text: str) -> str:
    """zh when CJK characters outnumber half the Latin words (answers mix in GPU names and units)."""
    cjk = len(_CJK.findall(text or ""))
    words = len(_LATIN_WORD.findall(text or ""))
    if cjk == 0:
        return "en"
    return "zh" if cjk >= 0.5 * words else "en"


def question_language(question: str) -> str:
    """Product rule: answer in Chinese if the question holds any CJK character."""
    return "zh" if _CJK.search(question or "") else "en"


# --------------------------------------------------------------------------- verdict

_NEUTRAL = re.compile(
    r"能不能|可不可以|行不行|够不够|能否|是否|can\s+\w+(?:\s+\w+)?\s+fit\?|does it fit\?|will it fit\?", re.I
)
_NEG = re.compile(
    r"找不到可行|没有可行|不可行|infeasible|no\s+feasible|not\s+feasible|could\s+not\s+find|no\s+configuration|放不下|装不下|塞不下|跑不了|跑不起来|跑不动|训不了|训练不了|不能|不行|不够|不可以|不可行|无法|不足以|超出|超过了?(?:单卡)?显存|做不到|不太可能|"
    r"does\s*n[o']t\s+fit|doesn't\s+fit|do\s+not\s+fit|won't\s+fit|will\s+not\s+fit|cannot|can't|can\s*not|not\s+enough|insufficient|"
    r"exceeds?|too\s+(?:large|big|small)|not\s+(?:possible|feasible)|out\s+of\s+memory|^\W*no\b|"
    r"unfortunately,?\s+no\b|不可能|(?:^|[:：—-]\s*)no[,.!]",
    re.I,
)
_POS = re.compile(
    r"放得下|装得下|能放下|可以放下|放下|可以跑|能跑|跑得动|够用|足够|可行|可以|没问题|"
    r"^\W*(?:能|行|够|是的)(?=[，,。!！\s]|$)|能(?:放|装|跑|用|训|做|够|行|支持)|"  # not 性能/可能/并行/运行
    r"\bfits?\b|will\s+fit|can\s+fit|enough|feasible|^\W*yes\b|\bworks\b",
    re.I,
)


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[。！？!?\n])|(?<=\.)\s", text or "")
    return [p.strip() for p in parts if p and p.strip()]


def verdict_from_text(answer: str) -> str | None:
    """Read the verdict from the first sentences (the answer leads with it): fits / does_not_fit."""
    for sent in [s for s in _sentences(answer) if not s.rstrip().endswith(("?", "？"))][:3]:
        s = re.sub(r"^[#>*\s\-]*(?:结论|判断|答案|verdict|answer|short answer)\s*[:：]?\s*", "", sent, flags=re.I)
        s = s.replace("*", "")
        shadow = [(m.start(), m.end()) for m in _NEUTRAL.finditer(s)]
        hits: list[tuple[int, str]] = []
        neg_spans = []
        for m in _NEG.finditer(s):
            if any(a <= m.start() < b for a, b in shadow):
                continue
            neg_spans.append((m.start(), m.end()))
            hits.append((m.start(), "does_not_fit"))
        for m in _POS.finditer(s):
            if any(a <= m.start() < b for a, b in shadow + neg_spans):
                continue
            if any(a <= m.end() - 1 < b for a, b in neg_spans):
                continue
            hits.append((m.start(), "fits"))
        if hits:
            return min(hits)[1]
    return None


def _walk(obj: Any, path: str = "") -> Iterable[tuple[str, Any]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _walk(v, f"{path}[{i}]")
    else:
        yield path, obj


def verdict_from_tools(calls: list[dict[str, Any]]) -> str | None:
    found = None
    for c in calls:
        for path, v in _walk(c.get("result") or {}):
            if path.split(".")[-1] == "fits" and isinstance(v, bool):
                found = "fits" if v else "does_not_fit"
    return found


def check_verdict(expected: str, answer: str, calls: list[dict[str, Any]]) -> Check:
    from_text = verdict_from_text(answer)
    from_tools = verdict_from_tools(calls)
    got = from_text or from_tools
    src = "answer" if from_text else ("tool result" if from_tools else "nothing")
    return Check("verdict", got == expected, expected, f"{got} (from {src})")


# --------------------------------------------------------------------------- tools and args


def _norm_token(x: Any) -> str:
    return re.sub(r"[^0-9a-z\u4e00-\u9fff.]", "", normalize(str(x)))


def _numbers_in(x: Any) -> list[float]:
    if isinstance(x, bool):
        return []
    if isinstance(x, (int, float)):
        return [float(x)]
    if isinstance(x, str):
        return [float(n) for n in re.findall(r"\d+(?:\.\d+)?", x)]
    if isinstance(x, list):
        return [n for item in x for n in _numbers_in(item)]
    return []


def arg_value_matches(expected: Any, actual: Any) -> bool:
    """Loose: numbers equal (also ×1e3/1e6/1e9 — "7" matches 7e9 params); strings by containment."""
    if isinstance(actual, dict):
        return any(arg_value_matches(expected, v) for v in actual.values())
    if isinstance(expected, list):
        return any(arg_value_matches(e, actual) for e in expected)
    if isinstance(expected, bool):
        return actual is expected or str(actual).lower() == str(expected).lower()
    if isinstance(expected, (int, float)):
        for n in _numbers_in(actual):
            for scale in (1, 1e3, 1e6, 1e9, 1e-9):
                if abs(n - expected * scale) <= 1e-6 * max(1.0, abs(expected * scale)):
                    return True
        return False
    if isinstance(actual, list):
        return any(arg_value_matches(expected, a) for a in actual)
    e, a = _norm_token(expected), _norm_token(actual)
    return bool(e) and e in a


def args_match(expected: dict[str, Any], actual: dict[str, Any]) -> tuple[bool, str]:
    """Every expected key (alternatives "a|b"; matches any actual key containing it) has a matching value."""
    flat = dict(_walk(actual or {}))
    missing = []
    for key, want in expected.items():
        alts = [k.strip().lower() for k in key.split("|")]
        if alts == ["*"]:
            cands = list(flat.values())
        else:
            cands = [v for p, v in flat.items() if any(a in p.lower() for a in alts)]
        if not any(arg_value_matches(want, v) for v in cands):
            missing.append(f"{key}={want!r}")
    return (not missing), ", ".join(missing)


# Tools that do the job an older expectation names: pretraining_run (a released model's own pre-training, from the
# authors' published tokens and GPU-hours) split off from published_run (a published fine-tuning recipe's cards ×
# hours). A case written before the split asks for "a published run's figures", which either tool gives.
# check_memory_rule runs estimate_memory for each rule the user quotes (tools/memory_rule.py), so a case that asks
# for the memory estimate on 「1B=4G 对不对」 is answered by the estimator either way.
_SAME_JOB: dict[str, tuple[str, ...]] = {
    "published_run": ("pretraining_run",),
    "estimate_memory": ("check_memory_rule",),
}


def check_tool(expect: Expect, calls: list[dict[str, Any]]) -> list[Check]:
    checks = []
    names = [c.get("name") for c in calls]
    if expect.tool is not None:
        wanted = _alts(expect.tool)
        wanted += [t for w in list(wanted) for t in _SAME_JOB.get(w, ()) if t not in wanted]
        hits = [c for c in calls if c.get("name") in wanted]
        checks.append(Check("tool", bool(hits), " or ".join(wanted), ", ".join(map(str, names)) or "no tool calls"))
        if expect.args and hits:
            results = [args_match(expect.args, c.get("args") or {}) for c in hits]
            ok = any(r[0] for r in results)
            got = "; ".join(json.dumps(c.get("args"), ensure_ascii=False)[:200] for c in hits)
            checks.append(Check("args", ok, json.dumps(expect.args, ensure_ascii=False), got))
        elif expect.args:
            checks.append(Check("args", False, json.dumps(expect.args, ensure_ascii=False), "tool not called"))
    for bad in expect.forbid_tools:
        checks.append(
            Check("forbid_tool", bad not in names, f"no call to {bad}", ", ".join(map(str, names)) or "no tool calls")
        )
    return checks


# --------------------------------------------------------------------------- numbers

_KEY_UNITS = [  # JSON key suffix → unit (project convention: *_gb, *_gbs, *_cny …)
    ("_gbs", "GB/s"),
    ("_tbs", "TB/s"),
    ("_gib", "GiB"),
    ("_gb", "GB"),
    ("_mib", "MiB"),
    ("_tflops", "TFLOPS"),
    ("_cny", "CNY"),
    ("_usd", "USD"),
    ("_hours", "h"),
    ("_h", "h"),
    ("_days", "days"),
    ("_seconds", "s"),
    ("_pct", "%"),
    ("_percent", "%"),
    ("_tokens", "tokens"),
    ("_flops", "flop"),
    ("gpu_hours", "GPU-hours"),
    ("_w", "W"),
]


def quantities_from_tools(calls: list[dict[str, Any]]) -> list[Quantity]:
    from evals.numbers import to_canonical

    out = []
    for c in calls:
        for path, v in _walk(c.get("result") or {}):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            key = path.split(".")[-1].split("[")[0].lower()
            unit = next((u for suf, u in _KEY_UNITS if key.endswith(suf)), None)
            if unit is None and ("count" in key or key in ("gpus", "num_gpus", "n_gpus", "min_gpus")):
                unit = "gpus"
            val, dim, per = to_canonical(float(v), unit) if unit else (float(v), None, None)
            if dim == "cny":
                per = "h" if "hour" in key or key.endswith("_h_cny") else "month" if "month" in key else None
            out.append(Quantity(value=val, dim=dim, raw=f"{c.get('name')}:{path}={v}", per=per))
    return out


def check_number(n: NumberExpect, answer: str, calls: list[dict[str, Any]], answer_qs: list[Quantity]) -> Check:
    pools: list[list[Quantity]] = []
    if n.where in ("answer", "any"):
        pools.append(answer_qs)
    if n.where in ("tools", "any"):
        pools.append(quantities_from_tools(calls))
    last = None
    for qs in pools:
        res = find_number(
            answer,
            value=n.value,
            unit=n.unit,
            rel_tol=n.rel_tol,
            abs_tol=n.abs_tol,
            or_values=n.or_values,
            minimum=n.min,
            maximum=n.max,
            mode=n.mode,
            allow_unitless=n.allow_unitless,
            quantities=qs,
            near=n.near or None,
            near_before=n.near_before or None,
            near_after=n.near_after or None,
        )
        if res.ok:
            return Check("number", True, f"{res.expected} ({n.why[:80]})", res.matched.raw if res.matched else "")
        last = res
    if last is None:  # every expectation has at least one target, so the loop ran
        raise RuntimeError("number expectation without a target")
    found = ", ".join(q.raw for q in last.found[:8]) or "no number of that kind"
    return Check("number", False, f"{last.expected} — {n.why[:120]}", found)


# --------------------------------------------------------------------------- everything for one answer


def score_expect(expect: Expect, result: Any, *, question: str, language_of: str | None = None) -> list[Check]:
    """`language_of`: the text whose language the answer must have when it is not the question's own (a turn
    with no words in either script, 「8G ？16？」, follows the conversation)."""
    res = result_dict(result)
    answer = res.get("answer") or ""
    calls = _calls(res)
    checks: list[Check] = []
    checks += check_tool(expect, calls)
    if expect.verdict:
        checks.append(check_verdict(expect.verdict, answer, calls))
    if expect.numbers:
        qs = extract_quantities(answer)
        checks += [check_number(n, answer, calls, qs) for n in expect.numbers]
    for phrase in expect.must_include:
        hit = contains_phrase(answer, phrase)
        checks.append(Check("must_include", hit is not None, " | ".join(_alts(phrase)), hit or "absent"))
    for phrase in expect.must_not_include:
        hit = contains_phrase(answer, phrase)
        checks.append(Check("must_not_include", hit is None, "absent: " + " | ".join(_alts(phrase)), hit or "absent"))
    if expect.cites:
        ids = _citation_ids(res)
        for doc in expect.cites:
            ok = any(a in ids for a in _alts(doc))
            checks.append(Check("cites", ok, " | ".join(_alts(doc)), ", ".join(ids) or "no citations"))
    want_lang = expect.answer_language or question_language(language_of or question)
    got_lang = text_language(answer)
    declared = res.get("language")
    ok = got_lang == want_lang and (declared in (None, want_lang))
    checks.append(Check("language", ok, want_lang, f"text={got_lang}, declared={declared}"))
    if expect.grounded is not None:
        checks.append(
            Check(
                "grounded", bool(res.get("grounded")) == expect.grounded, str(expect.grounded), str(res.get("grounded"))
            )
        )
    return checks


def score_case(case: Case, results: list[Any]) -> list[Check]:
    """results: one AskResult per user turn. Turn-level expectations apply to their turn;
    the case-level expectations apply to the last answer."""
    checks: list[Check] = []
    turns = case.user_turns()
    for i, turn in enumerate(turns[:-1]):
        if turn.expect is not None and i < len(results):
            for c in score_expect(turn.expect, results[i], question=turn.question):
                c.name = f"turn{i + 1}.{c.name}"
                checks.append(c)
    last = turns[-1].question
    # a last turn with no words of either script ('8G ？16？', '24G?') is answered in the conversation's language
    words = _CJK.search(last or "") or re.search(r"[A-Za-z]{3,}", last or "")
    lang_of = None if words or len(turns) < 2 else turns[0].question
    if turns[-1].expect is not None:
        checks += score_expect(turns[-1].expect, results[-1], question=last, language_of=lang_of)
    checks += score_expect(case, results[-1], question=last, language_of=lang_of)
    return checks
