"""Which guide passages a how-to answer shows, and how a passage reads in an answer.

Retrieval (tools/retrieval) ranks whole sections and caps each document at two hits; the planner
therefore asks a second time within the best document (`search_guide(doc_id=…)`) and this module
re-ranks the candidates the way a reader would:
- the retrieval score and the share of the question's words the passage holds;
- a section whose heading says what the question asks, or names its technical term (NCCL, CUDA…) ("Hidden costs" for "what hidden costs…",
  「显存不足报错（CUDA OOM）」 for "CUDA out of memory…") comes first;
- a "what is / what's the difference" question prefers the section that introduces the terms —
  in our guide documents that is the earlier section (definitions first, advice later);
- a section of a document whose `leads` the question matches (tools/retrieval/leads) is preferred;
- a hit retrieval marks with a `mismatch` (about another subject, or sharing only generic words) comes after
  the others (`MISMATCH_PENALTY`);
- otherwise the retrieval score decides.

Display: code blocks stay fenced Markdown blocks, one command per line (a comment in the other
language is dropped, so an English answer never loses a passage to a Chinese comment), table rows
become "a | b" lines, and prose is quoted in whole sentences; a code block is never cut.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from tools.lang import has_cjk
from tools.retrieval.leads import guide_leads

_EN_STOP = {
    "a",
    "an",
    "the",
    "of",
    "and",
    "or",
    "to",
    "in",
    "on",
    "for",
    "with",
    "by",
    "how",
    "what",
    "when",
    "is",
    "are",
    "do",
    "does",
    "i",
    "my",
    "it",
    "at",
    "vs",
    "versus",
    "from",
    "as",
    "that",
    "this",
    "which",
    "should",
    "can",
    "you",
    "your",
    "we",
    "our",
    "be",
    "all",
    "not",
}
_DEFINITIONAL = re.compile(
    r"区别|不同|差别|是什么|什么是|啥是|啥意思|什么意思|含义|原理|difference|differ|what (?:is|are)|"
    r"what's|explain|meaning|compare",
    re.I,
)


# A hit retrieval marks as possibly about something else (tools/retrieval/subjects.py: its heading names a
# card, model or engine the question does not, or it shares only generic words) loses this much: more than
# any heading or symptom bonus, so it never leads a passage that is about the question's own subject.
MISMATCH_PENALTY = 1.0

_CODE_Q = re.compile(r"\bxid\s*[:#]?\s*(\d{1,3})(?!\d)", re.I)

# Symptoms a question states and a heading can name: when both name the same one, the section is about
# what went wrong, not only about the card or tool the question mentions ("推理速度太慢" → a heading on
# slow inference, not 「推理显存的组成」).
_SYMPTOMS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(q, re.I), re.compile(h, re.I))
    for q, h in (
        # (the question states it, the heading names it)
        (
            r"慢|\bslow|耗时|no faster|not faster|not (?:significantly )?improv|更快|哪个快|which .{0,24}faster|trains? faster",
            r"慢|速度|提速|加速|\bslow|\bspeed|faster|throughput|吞吐|几小时",
        ),
        (
            r"占满|占得很满|吃满|顶满|吃光|占光|用满|拉满|reserved|(?:memory|vram) (?:is )?full",
            r"占满|多出|预占|预先占|reserved|full",
        ),
        # above the limit the user set: what sits outside the framework's pool
        (
            r"多出|设置的多|设的多|上限|more than (?:i|the limit)|above the limit|over the limit",
            r"设置的多|上限|than the limit|limit you set",
        ),
        (r"卡住|卡死|不动了|\bhangs?\b|\bstuck\b", r"卡住|卡死|不动|\bhangs?\b|\bstuck\b"),
        (r"扣费|收费|计费|\bcharged?\b|\bbilled\b", r"计费|收费|扣费|\bbill(?:ed|ing)\b|\bcharged?\b"),
        (r"爆显存|\boom\b|out of memory|显存不足|显存不够", r"爆显存|\boom\b|out of memory|显存不足|显存不够"),
        # minutes or hours for one answer: the model does not fit and is offloaded, not a slow card
        (
            r"一下午|一上午|一晚上|半小时|几小时|十几分钟|几十分钟|per answer|per response|minutes per|hours per",
            r"几小时|十几分钟|per answer|hours per",
        ),
    )
)


def names_symptom(question: str, section: str) -> int:
    """How many of the symptoms the question states the heading names (slow, memory full, hang, billing,
    out of memory, minutes per answer)."""
    return sum(1 for asked, named in _SYMPTOMS if asked.search(question) and named.search(section))


def _en_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9_\-]*|\d+", text.lower()) if w not in _EN_STOP and len(w) > 1}


def _zh_bigrams(text: str) -> set[str]:
    out: set[str] = set()
    for run in re.findall(r"[\u4e00-\u9fff]+", text):
        out |= {run[i : i + 2] for i in range(len(run) - 1)}
    return out


# Words nearly every question here uses (the machine, renting it, the card): a heading that shares only
# these with the question is not about what was asked ("租的服务器" vs a heading on whole 8-card servers).
_DOMAIN_STOPWORDS = {"服务", "务器", "机器", "显卡", "租的", "租用", "server", "servers", "machine", "gpu", "gpus"}
# Words of asking, not of a topic: a heading made only of them ("怎么选 / How to choose") would match every
# question that asks how to choose, whatever it is about.
_ASKING = {
    "怎么",
    "么选",
    "怎样",
    "如何",
    "什么",
    "为什",
    "么办",
    "choose",
    "choosing",
    "pick",
    "picking",
    "why",
}


def heading_match(question: str, section: str) -> float:
    """Share (0–1) of a heading's words that the question uses, on the better of its two sides; a side made
    only of words of asking (`_ASKING`) matches nothing."""
    best = 0.0
    for side in section.split(" / ") if " / " in section else [section]:
        words = (_en_words(side) | _zh_bigrams(side)) - _DOMAIN_STOPWORDS
        if not words - _ASKING:
            continue
        q = _en_words(question) | _zh_bigrams(question)
        best = max(best, len(words & q) / len(words))
    return best


_GENERIC_ACRONYMS = {"gpu", "gpus", "gb", "gib", "mb", "mib", "tb", "cpu", "ai", "ok"}


def names_topic(question: str, section: str) -> bool:
    """The heading names a technical term the question names (NCCL, CUDA, ZeRO, KV …): a strong
    sign the section is about what was asked, whatever else both say."""
    terms = {t.lower() for t in re.findall(r"\b\w*[A-Z]\w*[A-Z]\w*\b", question)} - _GENERIC_ACRONYMS
    return any(re.search(rf"(?<![a-z0-9]){re.escape(t)}(?![a-z0-9])", section, re.I) for t in terms)


@lru_cache(maxsize=64)
def _section_order(source: str) -> tuple[str, ...]:
    """Headings of a guide document in file order (read once; empty when the file is not ours)."""
    path = Path(source)
    if not path.is_absolute():
        path = Path(__file__).resolve().parents[2] / source
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ()
    return tuple(m.group(1).strip() for m in re.finditer(r"^##\s+(.+?)\s*$", text, re.M))


def section_position(hit: dict[str, Any]) -> float | None:
    """0 for a document's first section … 1 for its last; None if unknown."""
    order = _section_order(str(hit.get("source") or ""))
    section = str(hit.get("section") or "")
    if section not in order or len(order) < 2:
        return None
    return order.index(section) / (len(order) - 1)


def rank(hits: list[dict[str, Any]], question: str) -> list[dict[str, Any]]:
    """Unique (doc, section) candidates, best first (see the module docstring)."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for h in hits:
        key = (str(h.get("doc_id")), str(h.get("section")))
        if key not in seen or float(h.get("score") or 0) > float(seen[key].get("score") or 0):
            seen[key] = h
    if not seen:
        return []
    definitional = bool(_DEFINITIONAL.search(question))

    def base(h: dict[str, Any]) -> float:
        # fused rank score (relative) + share of the question's words in the passage (absolute) +
        # heading match, squared so one shared word ("memory") does not outweigh the text
        v = float(h.get("score") or 0) + 0.3 * float(h.get("relevance") or 0)
        v += 0.5 * heading_match(question, str(h.get("section") or "")) ** 2
        if names_topic(question, str(h.get("section") or "")):
            v += 0.15
        v += 0.2 * names_symptom(question, str(h.get("section") or ""))
        if h.get("mismatch"):  # retrieval found it about another subject, or sharing only generic words
            v -= MISMATCH_PENALTY
        return v

    codes = [m.group(1) for m in _CODE_Q.finditer(question)]

    def names_code(h: dict[str, Any]) -> bool:
        # "what does Xid 79 mean": the passage that names Xid 79 answers it, not the general intro
        text = str(h.get("text") or "")
        return any(re.search(rf"xid\s*(?:\d+\s*[,、/和and]+\s*)*{c}(?!\d)", text, re.I) for c in codes)

    # the documents whose `leads` the question matches (tools/retrieval/leads): know-how that document answers
    # Its best section is lifted to just above the best section overall (its own sections keep their order):
    # a restricted search scores on the open search's scale, so a fixed bonus can fall short.
    led = set(guide_leads(question))
    top = max(base(h) for h in seen.values())
    led_top = {
        d: max((base(h) for h in seen.values() if str(h.get("doc_id")) == d), default=float("-inf")) for d in led
    }
    led_top = {d: v for d, v in led_top.items() if v > float("-inf")}

    def base_led(h: dict[str, Any]) -> float:
        doc = str(h.get("doc_id"))
        return base(h) + (top - led_top[doc] + 0.15 if doc in led_top else 0.0)

    top_doc = str(max(seen.values(), key=base_led).get("doc_id"))

    def value(h: dict[str, Any]) -> float:
        # + a little for the best document, so its sections read as one answer
        v = base_led(h)
        if str(h.get("doc_id")) == top_doc:
            v += 0.1
            pos = section_position(h)
            if definitional and pos is not None:
                v += 0.3 * (1 - pos)
        if codes and names_code(h):
            v += 0.6
        return v

    return sorted(seen.values(), key=lambda h: -value(h))


# ---------------------------------------------------------------- display ------------------------
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+\-.]*)")
_SHELL_COMMENT = re.compile(r"(?:^|(?<=\s))#(?!!)")  # "# note" / "cmd   # note"; not "#wrong" inside a word


def _code_line(line: str, lang: str) -> str | None:
    """A code line for an answer in `lang`: a comment in the other language is dropped (an English
    answer never shows a Chinese comment), the command itself is kept exactly; None = drop the line."""
    m = _SHELL_COMMENT.search(line)
    if not m:
        return line.rstrip()
    code, comment = line[: m.start()].rstrip(), line[m.end() :].strip()
    if not comment or has_cjk(comment) == (lang == "zh"):
        return line.rstrip()
    return code or None


def readable(text: str, lang: str) -> str:
    """A passage as answer Markdown: prose joined into one paragraph per run, table rows as
    "a | b" lines, and code kept as a fenced block — a command such as
    `all_reduce_perf -b 8 -e 8G -f 2 -g 8` must stay one line a reader can copy. Inside a block a
    comment in the other language is dropped (comments in the answer's language stay)."""
    blocks: list[str] = []
    prose: list[str] = []
    code: list[str] | None = None
    fence, info = "```", ""

    def flush_prose() -> None:
        if prose:
            blocks.append(" ".join(" ".join(prose).split()))
            prose.clear()

    for raw in (text or "").splitlines():
        opening = _FENCE.match(raw)
        if code is None and opening:
            flush_prose()
            code, fence, info = [], opening.group(1)[0] * 3, opening.group(2)
            continue
        if code is not None:
            if raw.strip().startswith(fence):
                body = "\n".join(code).strip("\n")
                if body.strip():
                    indent = min(len(ln) - len(ln.lstrip()) for ln in code if ln.strip())
                    body = "\n".join(ln[indent:] for ln in code).strip("\n")
                    blocks.append(f"```{info}\n{body}\n```")
                code = None
                continue
            kept = _code_line(raw, lang)
            if kept is not None:
                code.append(kept)
            continue
        line = raw.strip()
        if not line:
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                continue
            cells = [c for c in cells if c]
            if lang == "zh":
                cells = [c.partition(" / ")[0] for c in cells]
            else:
                cells = [c.partition(" / ")[2] or c for c in cells]
            prose.append(" | ".join(cells) + ("；" if lang == "zh" else ";"))
            continue
        prose.append(line)
    if code:  # an unclosed fence in the source: still a block
        blocks.append(f"```{info}\n" + "\n".join(code).strip("\n") + "\n```")
    flush_prose()
    return "\n".join(b for b in blocks if b)


def _is_code(block: str) -> bool:
    return block.startswith("```")


def excerpt(text: str, limit: int) -> str:
    """Whole sentences up to about `limit` characters (a cut mid-number would misquote it); a code
    block is kept whole or left out, never cut (a half command is worse than none)."""
    if len(text) <= limit:
        return text
    out: list[str] = []
    used = 0
    for block in _blocks(text):
        if _is_code(block):
            if out and used + len(block) > limit:
                break
            out.append(block)
            used += len(block)
            continue
        room = limit - used
        if out and room < min(80, limit // 4):
            break
        cut = _excerpt_prose(block, max(room, limit // 4) if out else limit)
        if cut:
            out.append(cut)
            used += len(cut)
        if cut != block:
            break
    return "\n".join(out)


def _blocks(text: str) -> list[str]:
    """`readable` output split back into prose paragraphs and whole fenced blocks."""
    out: list[str] = []
    code: list[str] | None = None
    for line in text.split("\n"):
        if code is None and line.startswith("```"):
            code = [line]
        elif code is not None:
            code.append(line)
            if line == "```":
                out.append("\n".join(code))
                code = None
        else:
            out.append(line)
    if code:
        out.append("\n".join(code))
    return out


def _excerpt_prose(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    out = ""
    for sentence in re.findall(r".+?(?:[。！？；]|[.!?;](?=\s)|$)", text):
        if out and len(out) + len(sentence) > limit:
            break
        out += sentence
    if len(out) <= limit * 1.6:
        return out.strip()
    cut = out[:limit]
    cut = re.sub(r"[\w.,，、%‰`-]*$", "", cut) or cut  # never end inside a number, word or code span
    if cut.count("`") % 2:
        cut = cut[: cut.rfind("`")]
    return cut.rstrip() + "…"
