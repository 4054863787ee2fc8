"""BM25 (Robertson & Zaragoza 2009, "Okapi BM25") over jieba tokens, for Chinese and English.

jieba's search mode (`lcut_for_search`) also emits the shorter words inside long ones
(利用率 → 利用, 用率, 利用率), which helps recall on colloquial queries. Latin text is lower
cased; numbers and model/card names such as "4090", "a100", "h20", "7b" stay whole tokens,
and a number glued to a unit ("24g", "80GB") is also split into number + unit so "24g" meets
"24 GB". jieba is initialised quietly and its dictionary cache goes to
`$GPU_ADVISOR_HOME/cache` (not the system temp folder).
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from typing import Any, Sequence

from tools.retrieval.paths import cache_dir

_LOCK = threading.Lock()
_TOKENIZER: Any = None
_GENERAL_FREQ: dict[str, int] = {}  # jieba's general-Chinese frequency of the words we add, before adding

# domain words jieba's general dictionary splits apart
_DOMAIN_WORDS = [
    "掉卡",
    "丢卡",
    "显存",
    "利用率",
    "全量",
    "微调",
    "全参",
    "量化",
    "多机",
    "单机",
    "八卡",
    "双机",
    "验收",
    "以次充好",
    "算力",
    "带宽",
    "互联",
    "租用",
    "包月",
    "按小时",
    "按量",
    "竞价",
    "断点续训",
    "混合精度",
    "梯度检查点",
    "重计算",
    "优化器",
    "卸载",
    "推理",
    "并发",
    "上下文",
    "数据中心",
    "机房",
    "延迟",
    "济南",
    "青岛",
    "山东",
    "交换机",
    "网卡",
    "驱动",
    "容器",
    "共享内存",
    "报错",
    "超时",
    "显卡",
    "温度",
    "功耗",
    "供电",
    "散热",
    "掉线",
    "读盘",
    "小文件",
    "预加载",
    "内存",
    "硬盘",
    "万兆",
    "千兆",
    "百兆",
    "卡时",
    "租卡",
    "整机",
    "单卡",
    "多卡",
    "八卡机",
]

# function words that say nothing about the topic (both languages)
STOPWORDS = frozenset(
    """
的 了 吗 呢 吧 啊 呀 么 是 在 有 和 与 及 或 就 都 也 还 要 会 能 可以 可 我 我们 你 你们 他 她 它 这 那
这个 那个 一个 一下 什么 怎么 怎么样 怎样 如何 为什么 为何 多少 哪个 哪些 哪 吗 嘛 呃 请问 请 想 想要
个 把 被 让 给 对 从 到 用 上 下 中 里 后 前 时 时候 不 没 没有 很 太 最 更 又 再 之 其 该 如果 但是
咋 啥 咋办 怎么办 回事 一般 大概 左右 知道 告诉 帮 帮忙 问 问题 需要 应该 比较
the a an and or of to in on for with by at from is are was were be been being do does did
what how why which who when where whats hows can could should would will shall may might must
i me my we our you your it its this that these those there here as if than then so not no
about into over under up down out any some much many more most very just also get got
""".split()
)


def tokenizer_version() -> str:
    """Changes whenever tokenisation rules change, so cached token lists are not reused."""
    import hashlib

    basis = "|".join(["2", *_DOMAIN_WORDS, *sorted(STOPWORDS), _NUM_UNIT.pattern])
    return hashlib.blake2b(basis.encode("utf-8"), digest_size=5).hexdigest()


_NUM_UNIT = re.compile(r"^(\d+(?:\.\d+)?)(g|gb|gib|t|tb|tib|m|mb|k|w|kw|x|b|%)$")
_UNIT_CANON = {"g": "gb", "gib": "gb", "t": "tb", "tib": "tb", "mb": "mb", "m": "m", "%": "%"}
_USEFUL = re.compile(r"[0-9a-z\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _import_jieba() -> Any:
    """jieba without `pkg_resources`: jieba 0.42 imports it only to find its own dictionary file
    and falls back to a plain path when it is missing. pkg_resources scans every installed package
    (~0.2–0.4 s of a cold `gpu-advisor ask`), so it is hidden for the duration of this import only."""
    import sys

    if "jieba" in sys.modules or "pkg_resources" in sys.modules:
        import jieba

        return jieba
    sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # makes `import pkg_resources` fail
    try:
        import jieba
    finally:
        del sys.modules["pkg_resources"]
    return jieba


def _tokenizer() -> Any:
    """A private jieba Tokenizer (the global one is left alone), initialised once, quietly."""
    global _TOKENIZER
    if _TOKENIZER is None:
        with _LOCK:
            if _TOKENIZER is None:
                jieba = _import_jieba()

                jieba.setLogLevel(logging.WARNING)
                tok = jieba.Tokenizer()
                tok.tmp_dir = str(cache_dir())
                tok.initialize()
                for word in _DOMAIN_WORDS:
                    _GENERAL_FREQ[word] = tok.FREQ.get(word, 0) or 0
                    tok.add_word(word, freq=20000)
                _TOKENIZER = tok
    return _TOKENIZER


def normalise(text: str) -> str:
    """NFKC (full-width → half-width) and lower case; keeps character positions for CJK text."""
    return unicodedata.normalize("NFKC", text or "").lower()


def general_frequency(word: str) -> float:
    """Relative frequency of a word in general Chinese (jieba's dictionary, ~60 M word corpus)."""
    tok = _tokenizer()
    freq = _GENERAL_FREQ.get(word, tok.FREQ.get(word, 0)) or 0
    return freq / tok.total


def plain_words(text: str) -> list[str]:
    """Whole words only (jieba accurate mode, no sub-words), stopwords and punctuation dropped."""
    out = []
    for raw in _tokenizer().lcut(normalise(text)):
        token = raw.strip()
        if token and _USEFUL.search(token) and token not in STOPWORDS:
            out.append(token)
    return out


def token_spans(text: str, drop_stopwords: bool = True) -> list[tuple[str, int, int]]:
    """(token, start, end) over `normalise(text)`, in jieba search mode (words and their sub-words)."""
    text = normalise(text)
    out: list[tuple[str, int, int]] = []
    for raw, start, end in _tokenizer().tokenize(text, mode="search"):
        token = raw.strip()
        if not token or not _USEFUL.search(token):
            continue
        if drop_stopwords and token in STOPWORDS:
            continue
        out.append((token, start, end))
        match = _NUM_UNIT.match(token)
        if match:
            unit = match.group(2)
            out.append((match.group(1), start, end))
            out.append((_UNIT_CANON.get(unit, unit), start, end))
        elif len(token) > 2 and token.endswith("s") and token[:-1].isdigit():
            out.append((token[:-1], start, end))  # "4090s" → also "4090"
    return out


def tokenize(text: str, drop_stopwords: bool = True) -> list[str]:
    """Search tokens for BM25: jieba words (plus sub-words), lower-case, numbers kept."""
    return [token for token, _, _ in token_spans(text, drop_stopwords)]


class BM25Index:
    """BM25Okapi over pre-tokenised passages (rank_bm25), with the token sets kept for coverage."""

    def __init__(self, tokenized: Sequence[Sequence[str]]) -> None:
        from rank_bm25 import BM25Okapi

        self.tokenized = [list(t) or ["∅"] for t in tokenized]
        self._bm25 = BM25Okapi(self.tokenized) if self.tokenized else None
        self.vocab_df: dict[str, int] = {}
        for tokens in self.tokenized:
            for tok in set(tokens):
                self.vocab_df[tok] = self.vocab_df.get(tok, 0) + 1
        self.sets = [set(t) for t in self.tokenized]

    def __len__(self) -> int:
        return len(self.tokenized)

    def scores(self, query_tokens: Sequence[str]) -> list[float]:
        if self._bm25 is None or not query_tokens:
            return [0.0] * len(self.tokenized)
        return [float(s) for s in self._bm25.get_scores(list(query_tokens))]
