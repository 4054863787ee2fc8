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
import math
import re
import threading
import unicodedata
from collections import Counter
from typing import Any, Mapping, Sequence

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


class FreqTable:
    """jieba's word-frequency dictionary (~350,000 words and prefixes) read on demand from a SQLite
    copy in the cache folder. Loading it whole is a 9 MB marshal read, the largest single cost of a
    cold `gpu-advisor ask` (~0.5 s); cutting one question looks up only the substrings of that text
    (a few hundred keys), each memoised. Same keys, same counts, so jieba cuts exactly as before.
    Supports what jieba's Tokenizer uses: `get`, `in`, `[]` and `[]=` (added words)."""

    _MEMO_LIMIT = 400_000

    def __init__(self, path: Any) -> None:
        import sqlite3

        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        self._lock = threading.Lock()
        self._memo: dict[str, int | None] = {}
        self._added: dict[str, int] = {}

    def get(self, key: str, default: Any = None) -> Any:
        if key in self._added:
            return self._added[key]
        try:
            value = self._memo[key]
        except KeyError:
            with self._lock:
                row = self._db.execute("SELECT f FROM freq WHERE w = ?", (key,)).fetchone()
            if len(self._memo) > self._MEMO_LIMIT:
                self._memo.clear()
            value = self._memo[key] = row[0] if row else None
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __getitem__(self, key: str) -> int:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return int(value)

    def __setitem__(self, key: str, value: int) -> None:
        self._added[key] = value


def _freq_table_path(jieba: Any) -> Any:
    from pathlib import Path

    dict_file = Path(jieba.__file__).with_name("dict.txt")
    size = dict_file.stat().st_size if dict_file.exists() else 0
    return cache_dir() / f"jieba_freq_{getattr(jieba, '__version__', 'x')}_{size}.sqlite"


def _write_freq_table(path: Any, freq: dict[str, int], total: int) -> None:
    """Write the table beside its final name and move it into place (two processes may race)."""
    import os
    import sqlite3

    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    db = sqlite3.connect(tmp)
    try:
        db.execute("CREATE TABLE freq (w TEXT PRIMARY KEY, f INTEGER NOT NULL) WITHOUT ROWID")
        db.execute("CREATE TABLE meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL)")
        db.executemany("INSERT INTO freq VALUES (?, ?)", freq.items())
        db.execute("INSERT INTO meta VALUES ('total', ?)", (total,))
        db.commit()
    finally:
        db.close()
    os.replace(tmp, path)


def _new_tokenizer(jieba: Any) -> Any:
    """A private jieba Tokenizer whose dictionary is the on-demand FreqTable (built from jieba's own
    dictionary the first time, then reused)."""
    import sqlite3

    tok = jieba.Tokenizer()
    tok.tmp_dir = str(cache_dir())
    path = _freq_table_path(jieba)
    if not path.exists():
        tok.initialize()  # jieba's own load (and its marshal cache), once per dictionary version
        try:
            _write_freq_table(path, tok.FREQ, tok.total)
        except (OSError, sqlite3.Error):  # a read-only cache folder: keep the loaded dictionary
            return tok
    try:
        table = FreqTable(path)
        total = table._db.execute("SELECT v FROM meta WHERE k = 'total'").fetchone()[0]
    except (sqlite3.Error, TypeError):  # damaged copy: jieba's own load, and rebuild next time
        path.unlink(missing_ok=True)
        tok.initialize()
        return tok
    tok.FREQ, tok.total, tok.initialized = table, total, True
    return tok


def _tokenizer() -> Any:
    """A private jieba Tokenizer (the global one is left alone), initialised once, quietly."""
    global _TOKENIZER
    if _TOKENIZER is None:
        with _LOCK:
            if _TOKENIZER is None:
                jieba = _import_jieba()

                jieba.setLogLevel(logging.WARNING)
                tok = _new_tokenizer(jieba)
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


# BM25 "Okapi" parameters, as rank_bm25.BM25Okapi (the reference the tests compare against)
K1 = 1.5
B = 0.75
EPSILON = 0.25  # floor for negative idf: EPSILON × the mean idf


class BM25Index:
    """BM25 Okapi over pre-tokenised passages, with the token sets kept for coverage.

    The same formula and operation order as rank_bm25.BM25Okapi (idf = ln(N − df + 0.5) −
    ln(df + 0.5), negative idf floored at ε × mean idf; per term idf · tf·(k1+1) / (tf + k1·(1 − b +
    b·|d|/avgdl))), so the scores are bit-identical (tests/test_vector_copy.py), but in plain Python
    over posting lists: rank_bm25 imports numpy, ~0.1–0.3 s of a cold `gpu-advisor ask`, and a query
    touches only the passages that contain its words."""

    def __init__(self, tokenized: Sequence[Sequence[str]]) -> None:
        self.tokenized = [list(t) or ["∅"] for t in tokenized]
        self.vocab_df: dict[str, int] = {}
        self._postings: dict[str, list[tuple[int, int]]] = {}  # term → [(passage, tf)]
        vocab_df, postings = self.vocab_df, self._postings
        for j, tokens in enumerate(self.tokenized):
            for tok, tf in Counter(tokens).items():  # first-occurrence order, as rank_bm25's dict
                if tok in postings:
                    vocab_df[tok] += 1
                    postings[tok].append((j, tf))
                else:
                    vocab_df[tok] = 1
                    postings[tok] = [(j, tf)]
        self.sets = [set(t) for t in self.tokenized]
        n = len(self.tokenized)
        avgdl = sum(len(t) for t in self.tokenized) / n if n else 0.0
        self._norm = [K1 * (1 - B + B * len(t) / avgdl) for t in self.tokenized]
        self.idf: dict[str, float] = {}
        negative = []
        for tok, df in self.vocab_df.items():
            idf = math.log(n - df + 0.5) - math.log(df + 0.5)
            self.idf[tok] = idf
            if idf < 0:
                negative.append(tok)
        if self.idf:
            eps = EPSILON * (sum(self.idf.values()) / len(self.idf))
            for tok in negative:
                self.idf[tok] = eps

    # What __init__ counts, as plain lists, dicts and floats that `marshal` writes and reads back
    # exactly (the floats bit for bit), so a later process skips the counting. Each token is one
    # string object throughout (marshal then writes it once and refers back to it); the per-passage
    # token sets are rebuilt from the lists, faster than marshal reads sets.
    _STATE = ("tokenized", "vocab_df", "_postings", "_norm", "idf")

    def state(self) -> dict[str, Any]:
        """The built index as plain data (see `from_state`)."""
        one = {tok: tok for tok in self.vocab_df}
        return {
            "tokenized": [[one[t] for t in tokens] for tokens in self.tokenized],
            "vocab_df": self.vocab_df,
            "_postings": {one[t]: v for t, v in self._postings.items()},
            "_norm": self._norm,
            "idf": {one[t]: v for t, v in self.idf.items()},
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> "BM25Index":
        """The index `state()` described, without recounting; a missing field raises KeyError."""
        index = cls.__new__(cls)
        for name in cls._STATE:
            setattr(index, name, state[name])
        index.sets = [set(t) for t in index.tokenized]
        return index

    def __len__(self) -> int:
        return len(self.tokenized)

    def scores(self, query_tokens: Sequence[str]) -> list[float]:
        """One score per passage; each query token counts once per occurrence (as rank_bm25)."""
        scores = [0.0] * len(self.tokenized)
        for tok in query_tokens:
            idf = self.idf.get(tok) or 0
            for j, tf in self._postings.get(tok, ()):
                scores[j] += idf * (tf * (K1 + 1) / (tf + self._norm[j]))
        return scores
