"""Renderer registry and shared helpers: one tool's JSON result → verdict / numbers / assumptions /
alternatives / next-step lines. A tool without a specific renderer gets the generic one, which
quotes its top-level figures with their units (read from the key suffix: _gb, _cny, _hours …).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from assistant.offline.reading.slots import Slots
from assistant.offline.types import ToolResult
from assistant.offline.writing.render import Writer, num

Renderer = Callable[[Writer, ToolResult, "Context"], None]


class Context:
    """What every renderer may look at: the question's slots and all results."""

    def __init__(self, intent: str, slots: Slots, results: list[ToolResult], question: str, carried: bool):
        self.intent, self.slots, self.results, self.carried = intent, slots, results, carried
        # renderers test words the reading layer found (`said`), never the question text; the text is
        # kept only to rank guide passages by relevance
        self.said: set[str] = set(slots.mentions)
        self.question = slots.text or question

    def by_name(self, name: str) -> list[ToolResult]:
        return [r for r in self.results if r.name == name and not r.error]


_RENDERERS: dict[str, Renderer] = {}
_GROUPED: set[str] = set()


def renderer(name: str, *, grouped: bool = False) -> Callable[[Renderer], Renderer]:
    """Register a renderer; a `grouped` one reads every result of its tool at once (runs once)."""

    def deco(fn: Renderer) -> Renderer:
        _RENDERERS[name] = fn
        if grouped:
            _GROUPED.add(name)
        return fn

    return deco


def render(
    w: Writer,
    intent: str,
    slots: Slots,
    answered: list[ToolResult],
    all_results: list[ToolResult],
    question: str,
    carried: bool,
) -> None:
    from assistant.offline.writing.model_facts import is_fact, write_facts

    ctx = Context(intent, slots, all_results, question, carried)
    w.pretrain = slots.mode == "pretrain"  # type: ignore[attr-defined]
    if carried:
        carried_note(w, slots)
    done: set[str] = set()
    for r in answered:
        if is_fact(r):
            continue  # written after the answer's own lead (below)
        fn = _RENDERERS.get(r.name, generic)
        key = r.name if r.name in _GROUPED else r.id or str(id(r))
        if key in done:
            continue
        done.add(key)
        fn(w, r, ctx)
    from assistant.offline.writing.runtime_notes import runtime_notes

    runtime_notes(w, slots)  # llama.cpp -ngl, LMDeploy cache_max_entry_count … (knowledge/engines.yaml)
    guide_snippets(w, all_results, limit=1)
    write_facts(w, answered)  # the named model's weights beside an answer that did not size it


_UNITS = (
    ("_gb", " GB"),
    ("_gib", " GiB"),
    ("_gbs", " GB/s"),
    ("_cny", " 元"),
    ("_hours", " h"),
    ("_days", " d"),
    ("_tflops", " TFLOPS"),
    ("pct", "%"),
    ("_ms", " ms"),
    ("_w", " W"),
)


def generic(w: Writer, r: ToolResult, ctx: Context) -> None:
    figures = []
    for key, value in r.result.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            unit = next((u for suffix, u in _UNITS if key.endswith(suffix)), "")
            if unit == " 元" and w.lang == "en":
                unit = " CNY"
            figures.append(f"{key} = {num(value)}{unit}")
    if figures:
        w.add("numbers", f"{r.name}：" + "，".join(figures[:8]), f"{r.name}: " + ", ".join(figures[:8]))
    for note in (r.result.get("notes") or [])[:2]:
        if isinstance(note, str):
            w.add("assumptions", note, note)


def input_error(w: Writer, r: ToolResult) -> None:
    err = r.error or {}
    zh, en = err.get("zh") or "", err.get("en") or ""
    w.add("verdict", f"有一处我没读懂：{zh}", f"I could not read part of the question: {en}")
    sugg = [s for s in (err.get("suggestions") or []) if isinstance(s, str)][:6]
    if sugg:
        w.add("next", "你是不是想说：" + "、".join(sugg) + "？", "Did you mean: " + ", ".join(sugg) + "?")


def guide_only(w: Writer, results: list[ToolResult], question: str) -> None:
    """A how-to answer: the two best sections (see passages.rank) quoted at some length, and a third,
    shorter, when the guide has one."""
    hits = _hits(results)
    if not hits:
        w.add(
            "verdict",
            "指南里没有找到能回答这个问题的段落，我不凭空作答。",
            "I found no passage in the guide that answers this, so I will not make one up.",
        )
        # what the tools can do instead: the scope, so the reader knows what to ask
        w.add(
            "next",
            "我能算的是租 GPU 服务器的事：某个模型要多少显存、几张卡、哪张卡合适、租金多少、训练要多久，"
            "以及看报错日志；把模型名、卡型或报错贴出来，我按这些来算。",
            "What I can work out is renting GPU servers: how much memory a model needs, how many GPUs, which card, "
            "the rental cost, how long training takes, and what an error log means; give me the model, the card or "
            "the error and I will work from that.",
        )
        return
    # The substance first: the best passage is the answer (no meta preamble), the next ones follow.
    size = 700 if w.lang == "zh" else 1100
    guide_snippets(w, results, limit=1, section="verdict", max_chars=size, question=question)
    guide_snippets(
        w, results, limit=2, section="guide", max_chars=size, question=question, shorter_after=1, skip=len(w.cited)
    )


def guide_snippets(
    w: Writer,
    results: list[ToolResult],
    limit: int = 1,
    section: str = "guide",
    max_chars: int = 200,
    question: str = "",
    shorter_after: int | None = None,
    skip: int = 0,
) -> None:
    """Quote up to `limit` passages (best first when `question` is given); passages after the
    first `shorter_after` are cut to half the length (a pointer, not a second essay)."""
    from assistant.offline.writing.passages import excerpt, rank, readable

    hits = rank(_hits(results), question) if question else _hits(results)
    shown = 0
    for hit in hits:
        if shown >= limit:
            break
        text = readable(hit.get("text") or hit.get("snippet") or hit.get("excerpt") or "", w.lang)
        if not text:
            continue
        if skip:  # already quoted above (the verdict)
            skip -= 1
            continue
        text = excerpt(text, max_chars // 2 if shorter_after is not None and shown >= shorter_after else max_chars)
        doc = hit.get("doc_id") or hit.get("id")
        target = "user_docs" if hit.get("origin") == "user" else section
        before = len(w.parts[target])
        w.add(target, f"{text}（见 `{doc}`）", f"{text} (see `{doc}`)")
        if len(w.parts[target]) > before:
            shown += 1
            w.cited.append((str(doc), str(hit.get("section") or "")))


def _hits(results: list[ToolResult]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in results:
        if r.name == "search_guide" and not r.error:
            out += [
                h
                for h in (r.result.get("hits") or r.result.get("results") or [])
                if isinstance(h, dict) and not h.get("low_relevance")
            ]
    return out


def bi(text: str, lang: str) -> str:
    """Pick one side of a tool's "中文 / English" string."""
    if not isinstance(text, str):
        return ""
    if " / " in text:
        zh, _, en = text.partition(" / ")
        return zh.strip() if lang == "zh" else en.strip()
    return text


def money(x: Any) -> str:
    """¥ with thousands separators, as the price tool writes it in its advice: ¥4,325 / ¥5.75."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return str(x)
    if float(x).is_integer():
        return f"¥{int(x):,}"
    return f"¥{x:,.2f}".rstrip("0").rstrip(".")


def money_range(lo: Any, hi: Any) -> str:
    if lo == hi:
        return money(lo)
    return f"{money(lo)}–{money(hi).lstrip('¥')}"


# ---------------------------------------------------------------- memory -----------------------
def gb(x: Any) -> str:
    """Decimal GB to one decimal place (the grounding guard allows the display rounding)."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return str(x)
    if float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:.1f}" if abs(x) < 1000 else f"{x:,.0f}"


_MODE_LABEL = {
    "full": ("全量训练", "full fine-tuning"),
    "lora": ("LoRA 微调", "LoRA fine-tuning"),
    "qlora": ("QLoRA 微调", "QLoRA fine-tuning"),
    "inference": ("推理", "inference"),
    "pretrain": ("预训练", "pre-training"),
}


def plural(n: Any, word: str, words: str | None = None) -> str:
    """'1 sequence', '2 sequences', '1.5 hours' — English count + noun with the right number."""
    one = (isinstance(n, (int, float)) and not isinstance(n, bool) and float(n) == 1) or n in ("1", "1.0")
    return f"{num(n)} {word if one else (words or word + 's')}"


def mode_label(w: Writer, mode: Any) -> str:
    zh, en = _MODE_LABEL.get(str(mode), (str(mode), str(mode)))
    if mode == "full" and getattr(w, "pretrain", False):
        en = "full training from scratch"  # the memory tools size pre-training as full training
    return w.t(zh, en)


def cat_words(a: str, b: str) -> str:
    """Join with a space where Latin meets Chinese (or Latin meets Latin), as Chinese typesetting does."""
    if not a or not b:
        return a + b
    left_latin = a[-1].isascii() and a[-1].isalnum()
    right_latin = b[0].isascii() and b[0].isalnum()
    if left_latin or (right_latin and not a[-1].isascii()):
        return f"{a} {b}"
    return a + b


# ---------------------------------------------------------------- training time / cost ---------
def tokens_text(w: Writer, x: Any) -> str:
    """1e12 → '1万亿' / '1T'; 3e11 → '3000亿' / '300B' (the guard reads 万亿/亿/T/B as magnitudes)."""
    if not isinstance(x, (int, float)):
        return str(x)
    if w.lang == "zh":
        if x >= 1e12:
            return f"{x / 1e12:g}万亿"
        if x >= 1e8:
            return f"{x / 1e8:.4g}亿"
        return f"{x:,.0f}"
    if x >= 1e12:
        return f"{x / 1e12:g}T"
    if x >= 1e9:
        return f"{x / 1e9:g}B"
    return f"{x:,.0f}"


def article(word: str) -> str:
    """English article before a number read aloud: 'an 8B', 'an 11B', 'a 7B'."""
    return "an" if re.match(r"(8|11|18|80|800)(\D|$)", word) else "a"


def big(x: Any) -> str:
    """A large count rounded to a whole number with thousands separators: 13413.51 → '13,414'."""
    return f"{round(x):,}" if isinstance(x, (int, float)) else str(x)


def pct(x: Any) -> str:
    return f"{x * 100:g}%" if isinstance(x, (int, float)) else str(x)


def zh_en(x: Any) -> tuple[str, str]:
    if isinstance(x, dict):
        return x.get("zh") or "", x.get("en") or ""
    return bi(str(x), "zh"), bi(str(x), "en")


def carried_note(w: Writer, s: Slots) -> None:
    """Say which earlier conditions a follow-up reused ("那A100呢？" keeps 7B and full training)."""
    zh, en = [], []
    if s.model or s.params_b:
        label = s.model if s.model and not re.fullmatch(r"[\d.]+[bm]", s.model) else f"{s.params_b:g}B"
        zh.append(f"模型 {label}")
        en.append(f"model {label}")
    if s.mode:
        zh.append(_MODE_LABEL.get(s.mode, (s.mode, s.mode))[0])
        en.append(_MODE_LABEL.get(s.mode, (s.mode, s.mode))[1])
    if s.gpus:
        zh.append("显卡 " + "、".join(s.gpus))
        en.append("GPU " + ", ".join(s.gpus))
    if s.gpu_count:
        zh.append(f"{s.gpu_count} 张卡")
        en.append(plural(s.gpu_count, "GPU"))
    if s.context:
        zh.append(f"上下文 {s.context} tokens")
        en.append(f"context {s.context} tokens")
    if zh:
        w.add("context", "按上文的条件接着算：" + "，".join(zh) + "。", "Continuing with: " + ", ".join(en) + ".")


# The per-topic renderers register themselves on import (kept last: they import the helpers above).
from assistant.offline.writing import (  # noqa: E402,F401
    render_conversions,
    render_cpu,
    render_gpus,
    render_jobs,
    render_memory,
    render_ops,
)
