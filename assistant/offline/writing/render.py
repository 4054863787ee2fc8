"""Section builders for the composed answer, one sentence at a time in Chinese or English.

Numbers are quoted from tool results with `num()` (no rounding beyond what the tool returned,
so the grounding guard finds each one in a result).
"""

from __future__ import annotations

import re
from typing import Any

from assistant.offline.reading.slots import Slots
from assistant.offline.types import ToolResult
from tools.lang import has_cjk


def num(x: Any) -> str:
    """A number as the tool wrote it: 113.6 → '113.6', 24.0 → '24', 50000 → '50000'."""
    if isinstance(x, bool) or x is None:
        return str(x)
    if isinstance(x, int):
        return f"{x:,}" if abs(x) >= 10000 else str(x)
    if isinstance(x, float):
        return f"{x:.0f}" if x.is_integer() else repr(x)
    return str(x)


class Writer:
    """Collects the answer's sections; `text()` joins them in a fixed order."""

    # The answer shape: the verdict (line 1, with the deciding number), a few key lines, then the
    # details (collapsible on the page), the not-used line and the sources once, at the end.
    KEY = ("verdict", "context", "can_do", "findings", "next")
    DETAILS = ("numbers", "causes", "assumptions", "alternatives", "checks", "script", "guide", "user_docs")
    ORDER = (*KEY, *DETAILS, "not_used", "sources")
    MAX_KEY_LINES = 5
    # The page collapses this block; the CLI shows it as is (see docs/architecture.md).
    DETAILS_OPEN = {"zh": "<details><summary>细节</summary>", "en": "<details><summary>Details</summary>"}
    DETAILS_CLOSE = "</details>"

    def __init__(self, lang: str):
        self.lang = lang
        self.parts: dict[str, list[str]] = {k: [] for k in self.ORDER}
        self.cited: list[tuple[str, str]] = []  # (doc_id, section) of the passages quoted, in order
        # where the current part's verdict lines begin: a renderer that puts its own premise first ("you gave N samples
        # but no length: …") inserts here, so in a multi-part answer it opens its own part, not the whole answer
        self.part_start = 0

    def t(self, zh: str, en: str) -> str:
        return zh if self.lang == "zh" else en

    def lead_with(self, zh: str, en: str) -> None:
        """Put this verdict line first in the current part (moving it if a renderer already added it): the figure
        the question asked for ("能开多大上下文", "batch 设多少", "需要多少内存") leads its part."""
        line = self.t(zh, en)
        verdict = self.parts["verdict"]
        if line in verdict:
            verdict.remove(line)
        verdict.insert(min(self.part_start, len(verdict)), line)

    def add(self, section: str, zh: str, en: str) -> None:
        line = self.t(zh, en)
        if self.lang == "zh" and len(line) > 40 and not has_cjk(line):
            return  # an English-only note from a tool does not belong in a Chinese answer
        if self.lang == "en" and has_cjk(line):
            return  # nor a Chinese passage in an English one
        if line and line not in self.parts[section]:
            self.parts[section].append(line)

    def heading(self, section: str) -> str:
        return {
            "can_do": self.t("**我能做的**", "**What I can do**"),
            "findings": self.t("**发现**", "**Findings**"),
            "causes": self.t("**可能原因**", "**Possible causes**"),
            "checks": self.t("**脚本检查的内容**", "**What the script checks**"),
            "context": self.t("**沿用上文**", "**Carried over**"),
            "script": self.t("**验收脚本**", "**Acceptance script**"),
            "numbers": self.t("**数字**", "**Numbers**"),
            "assumptions": self.t("**假设**", "**Assumptions**"),
            "alternatives": self.t("**其他办法**", "**Alternatives**"),
            "next": self.t("**下一步**", "**Next steps**"),
            "guide": self.t("**指南摘录**", "**From the guide**"),
            # the user's own added documents: quoted as theirs, never as the guide, never in place of a tool's number
            "user_docs": self.t(
                "**你的文档（你自己添加的资料，未经核实）**", "**Your documents (your own material, not verified)**"
            ),
            "sources": self.t("**来源**", "**Sources**"),
            "not_used": "",
        }.get(section, "")

    def _block(self, section: str, lines: list[str]) -> str:
        if section == "verdict":
            return "\n".join(lines)
        if section in ("script", "not_used"):
            return (self.heading(section) + "\n" if self.heading(section) else "") + "\n".join(lines)
        # a multi-line item (a quoted passage with a fenced command block) stays inside its
        # bullet: continuation lines are indented, as Markdown list items require
        return self.heading(section) + "\n" + "\n".join("- " + ln.replace("\n", "\n  ") for ln in lines)

    def text(self) -> str:
        """Verdict · ≤ MAX_KEY_LINES key lines · <details> breakdown, assumptions, alternatives, commands
        </details> · not-used line · sources (titles only)."""
        key_blocks, detail_blocks = [], []
        budget = self.MAX_KEY_LINES
        overflow: dict[str, list[str]] = {}
        for section in self.KEY:
            lines = self.parts[section]
            if not lines:
                continue
            if section == "verdict":
                key_blocks.append(self._block(section, lines))
                continue
            shown, rest = lines[: max(budget, 0)], lines[max(budget, 0) :]
            budget -= len(shown)
            if shown:
                key_blocks.append(self._block(section, shown))
            if rest:
                overflow[section] = rest
        for section, rest in overflow.items():
            detail_blocks.append(self._block(section, rest))
        for section in self.DETAILS:
            if self.parts[section]:
                detail_blocks.append(self._block(section, self.parts[section]))
        blocks = key_blocks
        if detail_blocks:
            body = "\n\n".join(detail_blocks)
            blocks = [*key_blocks, f"{self.DETAILS_OPEN[self.lang]}\n\n{body}\n\n{self.DETAILS_CLOSE}"]
        for section in ("not_used", "sources"):
            if self.parts[section]:
                blocks.append(self._block(section, self.parts[section]))
        return clean_punctuation("\n\n".join(b for b in blocks if b).strip())

    def scope_statement(self) -> None:
        self.add(
            "verdict",
            "这个问题超出了我的范围。我是算力顾问，只回答租用 GPU 做 AI 训练和推理相关的问题：",
            "That is outside what I can answer. I am GPU Advisor and only help with renting GPUs "
            "for AI training and inference:",
        )
        for zh, en in (
            (
                "估算显存：某个模型用某张卡能不能全量训练、LoRA/QLoRA 微调或推理",
                "memory: whether a model fits a GPU for full fine-tuning, LoRA/QLoRA or inference",
            ),
            ("算最少要几张卡、最长能开多少上下文", "the fewest GPUs for a job, the longest context that fits"),
            (
                "对比显卡规格、查租用价格、估算训练时间和费用",
                "GPU specs side by side, rental prices, training time and cost",
            ),
            ("按预算和工期推荐配置", "configurations ranked for a budget and deadline"),
            (
                "诊断粘贴的 nvidia-smi / dmesg / NCCL / all_reduce_perf 日志，以及交付验收清单",
                "diagnosing pasted nvidia-smi / dmesg / NCCL / all_reduce_perf output, and delivery checks",
            ),
        ):
            self.add("can_do", zh, en)
        self.add(
            "next",
            "可以这样问：「能用这张卡全量训练这个模型吗」「租这张卡一个月多少钱」「帮我看看这段 nvidia-smi 输出」",
            'Try: "Can I fully fine-tune this model on that GPU?", "How much is that GPU per month?" '
            "or paste an nvidia-smi output.",
        )

    def invalid_input(self, problems: list[tuple[str, str]]) -> None:
        """Input that cannot be right (a negative size, half a GPU): say so, compute nothing."""
        self.add(
            "verdict",
            "这个输入无效，我没法按它计算（不会替你改成别的数再算）：",
            "That input is invalid, so I cannot compute with it (and will not silently change it):",
        )
        for zh, en in problems:  # both languages, as every input error is reported (错误 / Error)
            self.parts["verdict"].append(f"- {zh} / {en}" if self.lang == "zh" else f"- {en} / {zh}")
        self.add(
            "next",
            "改正后再问一次，我会给出显存、卡数或时间的估算。",
            "Ask again with the corrected figure and I will estimate memory, GPU count or time.",
        )

    def unsized_model_statement(self, name: str) -> None:
        """A model with no catalog row and no stated size: say what is missing, never size another model."""
        self.add(
            "verdict",
            f"模型目录里没有「{name}」，问题里也没有它的参数量，所以我算不出它要多少显存，也不拿别的模型的数字充数。",
            f"'{name}' is not in the model catalog and the question gives no parameter count, so I cannot work out "
            "its memory, and I will not quote another model's figure instead.",
        )
        self.add(
            "next",
            "告诉我它的参数量（模型卡或 config.json 里有）以及是推理还是训练（LoRA / 全量），"
            "我按它算每张卡要多少显存、要几张卡；也可以直接说它基于哪个模型。",
            "Tell me its parameter count (from its model card or config.json) and whether it is inference or "
            "training (LoRA / full), and I will work out the memory per GPU and how many GPUs; or name the model "
            "it is based on.",
        )

    def no_data_statement(self) -> None:
        """In scope, but no tool or guide passage holds the figure (e.g. electricity bills)."""
        self.add(
            "verdict",
            "这个数我没有可靠的数据（比如电费），所以不给猜测的数字。",
            "I have no reliable data for that figure (electricity costs, for example), so I will not guess one.",
        )
        self.add(
            "next",
            "我能算的是租金、显存、训练时间和费用：可以问某张卡一个月的租金，或者某个模型要训练多久。",
            "I can work out rental prices, memory, training time and cost: ask for a card's monthly rent or how "
            "long a model takes to train.",
        )

    def forecast_statement(self) -> None:
        """A price forecast: nobody can know it; what to watch and how billing hedges it."""
        self.add(
            "verdict",
            "租金以后会涨还是会跌，我没法预测，也不会编一个数。",
            "I cannot forecast where rental prices will go, and I will not make up a figure.",
        )
        for zh, en in (
            (
                "可以留意：新一代卡的上市和到货量、出口管制的变化、大厂集中采购或退租、平台的促销和包年价",
                "Worth watching: new card generations arriving, export-control changes, large buyers "
                "signing or releasing capacity, platforms' promotions and yearly rates",
            ),
            (
                "用计费方式对冲：短期或不确定的用量按小时租；长期稳定的用量包月或包年锁价；两者搭配可以先按小时试，再按实际用量包月",
                "Hedge with billing: pay hourly for short or uncertain use; lock a monthly or yearly rate for "
                "steady long-term use; or start hourly and switch to monthly once the usage is known",
            ),
        ):
            self.add("next", zh, en)
        self.add(
            "next",
            "我能给的是现在的行情区间：可以问「A100 现在一个月多少钱」或「按小时和包月哪个划算」。",
            'What I can give is today\'s range: ask "how much is an A100 per month now?" or "hourly or monthly?".',
        )

    def unlawful_statement(self, kind: str = "unlawful", text: str = "") -> None:
        """Unlawful, abusive or provider-terms-breaking requests: refuse plainly, offer the lawful route.
        `kind` "licence" (dodging a software licence): say it needs a licence and a lawyer, briefly."""
        from assistant.offline.intents.decline import statement

        verdict, steps = statement(kind, text)  # the words live in knowledge/decline.yaml, one entry per kind
        self.add("verdict", *verdict)
        for zh, en in steps:
            self.add("next", zh, en)

    def sources(self, cites: list[dict]) -> None:
        """Once, at the end, titles only (the page links them)."""
        for c in cites:
            title = c.get("title") or ""
            if isinstance(title, dict):
                title = title.get(self.lang) or title.get("zh") or ""
            sec = _one_side(c.get("section") or "", self.lang)
            label = (title or str(c.get("doc_id") or "")) + (f" — {sec}" if sec else "")
            if label and label not in self.parts["sources"]:
                self.parts["sources"].append(label)


_PUNCT_FIXES = (
    (re.compile(r"([。！？；，])\s*[；;，,。]"), r"\1"),  # "。；" "，。"
    (re.compile(r"\.\s*;"), "."),  # ".;"
    (re.compile(r";\s*\."), "."),
    (re.compile(r"。\s*\."), "。"),
    (re.compile(r"[；，、]\s*(?=[（(]见 )"), "。"),  # a passage cut after a clause: "…1 字节；（见 x）"
    (re.compile(r"[;,]\s*(?=\(see )"), "."),
)


def clean_punctuation(text: str) -> str:
    """No doubled sentence marks ("。；", ".;") — outside code blocks, which are quoted verbatim."""
    parts = re.split(r"(```.*?```|`[^`\n]*`)", text, flags=re.S)
    for i in range(0, len(parts), 2):
        for rx, rep in _PUNCT_FIXES:
            parts[i] = rx.sub(rep, parts[i])
    return "".join(parts)


def _one_side(text: str, lang: str) -> str:
    """'中文标题 / English title' → the side in `lang`."""
    if " / " in text:
        zh, _, en = text.partition(" / ")
        return (zh if lang == "zh" else en).strip()
    return text


def citations(results: list[ToolResult], lang: str = "zh", first: list[tuple[str, str]] | None = None) -> list[dict]:
    """doc id + title + section from search_guide hits (deduplicated): the passages the answer quotes
    (`first`) come first, then the rest in rank order."""
    out: list[dict] = []
    seen = set()
    hits = [
        h
        for r in results
        if r.name == "search_guide" and not r.error
        for h in (r.result.get("hits") or r.result.get("results") or [])
        if isinstance(h, dict)
    ]
    order = {key: i for i, key in enumerate(first or [])}
    # a passage about another subject (tools/retrieval/subjects.py) is no source, and when no passage answers
    # at all none is listed (the answer said so); one the answer quoted stays
    any_relevant = any(not h.get("low_relevance") for h in hits)
    hits = [
        h
        for h in hits
        if (str(h.get("doc_id") or h.get("id")), str(h.get("section") or "")) in order
        or not (h.get("mismatch") == "subject" or (h.get("low_relevance") and not any_relevant))
    ]
    hits.sort(key=lambda h: order.get((str(h.get("doc_id") or h.get("id")), str(h.get("section") or "")), len(order)))
    for hit in hits:
        doc = hit.get("doc_id") or hit.get("id")
        if not doc:
            continue
        key = (doc, hit.get("section"))
        if key in seen:
            continue
        seen.add(key)
        title = hit.get("title")
        if isinstance(title, dict):
            title = title.get(lang) or title.get("zh") or title.get("en")
        out.append({"doc_id": doc, "title": title or "", "section": _one_side(hit.get("section") or "", lang)})
        if len(out) >= 3:
            return out
    return out


def write_answer(w: Writer, intent: str, slots: Slots, results: list[ToolResult], question: str, carried: bool) -> None:
    """Dispatch on the tools that answered (specific renderers first, a generic one otherwise)."""
    from assistant.offline.writing import render_tools

    if intent in ("memory_pooling", "engine_reservation"):  # intents/pooling.py: led by the user's own question
        from assistant.offline.writing.render_pooling import render as render_pooling

        render_pooling(w, intent, slots, results)
        return
    errors = [r for r in results if r.error and r.name != "search_guide"]
    answered = [r for r in results if not r.error and r.name != "search_guide"]
    from assistant.offline.writing.model_facts import is_fact, write_facts

    # the named model's weights (intents/model_facts) do not make an answer: with nothing else, the guide leads
    if not [r for r in answered if not is_fact(r)] and not errors:
        if any(r.name == "search_guide" and not r.error for r in results):
            render_tools.guide_only(w, results, question)
            write_facts(w, answered)
        else:
            w.add(
                "verdict",
                "这个问题我没法用现有的工具算出可靠的数字，所以不给猜测的答案。",
                "I could not get a reliable figure for this from my tools, so I will not guess.",
            )
            w.add(
                "next",
                "说清楚模型大小（如 7B）、显卡（如 A100 80G）和用途（全量/LoRA/推理）再问一次。",
                "Ask again with the model size (e.g. 7B), the GPU (e.g. A100 80GB) and the job "
                "(full fine-tune / LoRA / inference).",
            )
        return
    render_tools.render(w, intent, slots, answered, results, question, carried)
    for r in errors:
        render_tools.input_error(w, r)
