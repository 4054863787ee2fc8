"""Is a passage actually about the question? A score that does not depend on rank.

Rank fusion always returns *something*; for 「今天天气怎么样」 it would happily return the
passage that shares the word 怎么. So each hit also gets `relevance` in 0–1: the weighted share
of the query's words that occur in the passage, where a word's weight says how much it is
about our domain:

* keyness — how much more often a Chinese word occurs in our corpus than in general Chinese
  (jieba's dictionary frequencies stand in for general Chinese); log10 ratio ≥ 1 (10×) makes
  it a domain word (显存 4.4, 利用率 2.5, 带宽 2.5, 训练 1.6), below that it is everyday
  language (价格 0.7, 值得 0.3, 写 0.0). A Latin token is a domain word when it names a card,
  size or version (a100, 4090, 24gb: letters with digits, or a number of 3+ digits) or the corpus
  uses it and it is not everyday English; a token the corpus never uses (a version string such as
  cudnn8.9.7, a CPU part number) weighs 1.0 like any unknown word. A bare small number ("2 or 4 dialogs", "1 by 1") and the
  function words of a long English question (have, they, after, but …) carry no topic: counted
  as domain words they made a long question look off-topic to the one passage about its subject.
* weights: domain word 1 + min(keyness, 3) (Latin domain words 3), everyday word the corpus
  knows 0.5, word the corpus never uses 1.0.

A hit is `low_relevance` when it matches no domain word of the query, or its share is below
`LOW_RELEVANCE`. Synonym expansion (synonyms.py) is scored the same way, at 0.8 weight.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from tools.retrieval.bm25 import general_frequency, plain_words, tokenize

DOMAIN_KEYNESS = 1.0  # log10 of (corpus rate / general-Chinese rate)
LOW_RELEVANCE = 0.34
# A word at least this share of all passages hold is generic (显存 0.50, GPU 0.62, 训练 0.50, 模型 0.50,
# 卡 0.52, memory 0.59 in the 2026-12 guide); 推理 0.16, 多卡 0.18, 利用率 0.09, LoRA 0.16 stay topic words.
GENERIC_SHARE = 0.2
_LATIN = re.compile(r"^[0-9a-z][0-9a-z._+\-/%]*$")
_DIGIT = re.compile(r"\d")

# Everyday English that carries no topic (beyond the BM25 stopwords); a corpus that happens to
# use "world" or "time" must not make "who won the world cup" look on-topic.
EVERYDAY_EN = frozenset(
    """
good best better bad new old big small long short high low right left first last next same other own
make made use used using need needs want wants like get gets go goes going went come take give find
know think say said tell see look work works run runs way thing things time times day days year years
people person man woman world life home house city country place part case point fact number group
help ask try call keep let put seem feel become leave mean show hear play move live believe hold bring
write writing read provide sit stand lose pay meet include continue set learn change lead understand
watch follow stop create speak allow add spend grow open walk win offer remember love consider appear
buy wait serve die send expect build stay fall cut reach kill remain suggest raise pass sell require
report decide pull tell joke weather today tomorrow yesterday recipe food eat cook bake bread cake
song music movie film game sport football cup capital country france china beijing paris london poem
story book news weather rain sun sunny hot cold nice great well still even back only also really
every each both few lot lots little much many such own sure yes okay ok please thanks thank hello hi
have has had having do does did doing done be been being am was were will would shall could might must
they them their there these those then than this that what which who whom whose when where why how
after before again against about above below between into through during under over out off up down
but because while until since though although unless whether either neither nor not no yet just
answer answers question questions connect connected another any anyone anything some someone something
here very too more most less least other others same such into onto upon within without per via
i me my mine we us our you your he him his she her it its one two three four five six seven eight nine
ten first second third try tried trying fix fixed issue issues problem problems idea ideas thing
like likes liked seems seemed seem going gonna wanna got getting able unable enough different
""".split()
)
_CARD_SHAPE = re.compile(r"^[a-z]{0,5}\d{2,5}[a-z]{0,4}$")  # h20, a100, rtx4090, 4060ti, 24gb, 70b
_SMALL_NUMBER = re.compile(r"^\d{1,2}(?:[.,]\d+)*$|^\d+[.,]\d+(?:[.,]\d+)*$")


@dataclass(frozen=True)
class QueryTerm:
    word: str
    weight: float
    domain: bool
    parts: tuple[str, ...]  # search-mode sub-words, for matching compounds such as 利用率不到


class RelevanceModel:
    """Corpus word counts, and the scoring of a passage's token set against a query."""

    def __init__(self, tokenized_passages: Iterable[Sequence[str]]) -> None:
        self.counts: Counter[str] = Counter()
        for tokens in tokenized_passages:
            self.counts.update(tokens)
        self.total = sum(self.counts.values()) or 1

    def state(self) -> dict[str, Any]:
        """The counts as plain data (a persisted copy; see `from_state`)."""
        return {"counts": dict(self.counts), "total": self.total}

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> "RelevanceModel":
        model = cls(())
        model.counts = Counter(state["counts"])
        model.total = int(state["total"])
        return model

    def keyness(self, word: str) -> float | None:
        """log10(corpus rate / general-Chinese rate); None if the corpus never uses the word."""
        count = self.counts.get(word, 0)
        if not count:
            return None
        general = max(general_frequency(word), 1e-8)  # unseen in general Chinese: very rare
        return math.log10((count / self.total) / general)

    def term(self, word: str) -> QueryTerm:
        parts = tuple(t for t in tokenize(word) if t != word)
        candidates = [word, *parts]
        if _LATIN.match(word):
            known = self.counts.get(word, 0) > 0
            if _SMALL_NUMBER.match(word):
                return QueryTerm(word, 0.5, False, parts)  # "2 or 4", "0.0.0.0": no topic
            if not known and not _CARD_SHAPE.match(word):
                # a version string or part number the guide never names (paddleseg2.8, i9-13900k, cudnn8.9.7):
                # unmatched as any unknown word; a card- or size-shaped token (h20, b300, 4060ti, 24gb) stays a domain word
                return QueryTerm(word, 1.0, False, parts)
            domain = bool(_DIGIT.search(word)) or (word not in EVERYDAY_EN and len(word) > 1)
            weight = 3.0 if domain else (0.5 if known else 1.0)
            return QueryTerm(word, weight, domain, parts)
        best = max((k for k in (self.keyness(c) for c in candidates) if k is not None), default=None)
        if best is None:
            return QueryTerm(word, 1.0, False, parts)
        if best >= DOMAIN_KEYNESS:
            return QueryTerm(word, 1.0 + min(best, 3.0), True, parts)
        return QueryTerm(word, 0.5, False, parts)

    def profile(self, query: str) -> list[QueryTerm]:
        words = list(dict.fromkeys(plain_words(query)))
        return [self.term(w) for w in words]

    def topical(self, terms: Sequence[QueryTerm], passage_tokens: set[str], df_share: Mapping[str, float]) -> bool:
        """Whether the passage holds one of the query's topic words: a domain word (or a card, size or model
        token) that fewer than `GENERIC_SHARE` of all passages use. Sharing only 显存 / GPU / 训练 / model —
        words half the corpus holds — says nothing about whether it answers this question."""
        for t in terms:
            if not t.domain:
                continue
            for w in (t.word, *t.parts):
                if w in passage_tokens and (w == t.word or (self.keyness(w) or 0) >= DOMAIN_KEYNESS):
                    if df_share.get(w, 0.0) < GENERIC_SHARE or (_DIGIT.search(w) and _CARD_SHAPE.match(w)):
                        return True
        return False

    def score(self, terms: Sequence[QueryTerm], passage_tokens: set[str]) -> tuple[float, bool]:
        """(weighted share of query terms found, whether any domain term was found)."""
        total = sum(t.weight for t in terms)
        if not total:
            return 0.0, False
        matched = 0.0
        domain_hit = False
        for t in terms:
            if t.word in passage_tokens:
                hit = True
            elif t.parts:
                # a compound the passage lacks counts when its domain sub-words are there (利用率不到 → 利用率)
                hit = any(p in passage_tokens and (self.keyness(p) or 0) >= DOMAIN_KEYNESS for p in t.parts)
            else:
                hit = False
            if hit:
                matched += t.weight
                domain_hit = domain_hit or t.domain
        return matched / total, domain_hit
