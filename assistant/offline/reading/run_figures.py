"""A published or measured training run read out of the user's words, and the card they want to move it to.

WHY a reading step: "作者：one week on 4 NVIDIA A800 GPUs，我一个3090能跑吗", "README says 8 V100 for 2 days",
"230 sec/kimg × 20000 kimg on a 3090", 「论文说8张V100训了3天，我一张4090要多久」 all carry the same three
quantities — cards × count × duration (or a measured rate × the run's units) — and a target card. The intent
hands them to `rescale_training_time`; nothing here computes an answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD_N = {
    "one": 1, "a": 1, "an": 1, "single": 1, "two": 2, "three": 3, "four": 4, "six": 6, "eight": 8, "sixteen": 16,
    "一": 1, "单": 1, "两": 2, "二": 2, "三": 3, "四": 4, "六": 6, "八": 8,
}  # fmt: skip
# a count written before the card: "8 V100", "8×A100", "8张V100", "8卡A800", "four NVIDIA A800", "一张4090", "单卡3090"
_COUNT_BEFORE = re.compile(
    r"(?P<n>\d{1,4}|one|an?|single|two|three|four|six|eight|sixteen|[一单两二三四六八])\s*"
    r"(?:[x×*]|张|块|卡|台|个|片|pcs)?\s*(?:(?:nvidia|tesla|geforce|rtx)\s*)*$",
    re.I,
)
_COUNT_AFTER = re.compile(
    r"^\s*(?:gpus?|cards?|显卡)?\s*(?:[x×*]\s*(?P<n>\d{1,4})|(?P<m>\d{1,4})\s*(?:张|块|卡))", re.I
)
_UNIT_H = {"week": 168.0, "周": 168.0, "星期": 168.0, "day": 24.0, "天": 24.0, "hour": 1.0, "小时": 1.0, "h": 1.0}
_UNIT_H |= {"hr": 1.0, "month": 720.0, "个月": 720.0, "月": 720.0, "min": 1 / 60, "分钟": 1 / 60}
_DURATION = re.compile(
    r"(?<![A-Za-z0-9_.])(?P<n>\d+(?:\.\d+)?|one|a|an|two|three|four|five|half an?|[一两二三四五六七八九十半])\s*(?:个)?\s*"
    r"(?P<u>weeks?|days?|hours?|hrs?|h(?![a-z])|months?|mins?|minutes?|周|星期|天|小时|个月|分钟)",
    re.I,
)
_ZH_N = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "半": 0.5}
_EN_N = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "half a": 0.5, "half an": 0.5}
# a measured rate: "230 sec/kimg", "1.77 s/it", "55s/step", "3 it/s"
_RATE = re.compile(
    r"(?P<v>\d+(?:\.\d+)?)\s*(?:s|secs?|seconds?|秒)\s*(?:/|per|每)\s*(?P<u>kimg|it(?:er(?:ation)?)?|step|batch|epoch)\b"
    r"|(?P<ips>\d+(?:\.\d+)?)\s*it/s\b",
    re.I,
)
# the run's amount of work: "20000 kimg", "150k steps", "150,000 iterations", "20万步"
_UNITS = re.compile(
    r"(?P<v>\d[\d,]*(?:\.\d+)?)\s*(?P<k>k|万)?\s*(?P<u>kimg|steps?|iters?|iterations?|步|epochs?)(?![a-z/])", re.I
)
_MINE = re.compile(r"我|我的|手上|手里|只有|\bI\b|\bmy\b|\bmine\b|\bhave\b|\bonly\b|\bsingle\b|\bone\b", re.I)
_WANT = re.compile(r"(?:能|可以|要多久|多长时间|多久|需要|how long|would|will|can|could|possible|enough)", re.I)


@dataclass(frozen=True)
class CardAt:
    start: int
    end: int
    gpu_id: str
    count: int | None


@dataclass(frozen=True)
class RunFigures:
    """What the question says: a reference run (cards × count × hours, or a rate × units) and the target."""

    ref_gpu: str
    ref_gpus: int
    ref_hours: float | None
    ref_seconds_per_unit: float | None
    ref_units: float | None
    unit: str
    gpu: str
    n_gpus: int
    # the published figure beside a measured rate ("the README says 8 V100 for 2 days"), carried as a second line
    also_gpu: str | None = None
    also_gpus: int | None = None
    also_hours: float | None = None


def _num(tok: str) -> float:
    t = tok.lower().strip()
    if t in _EN_N:
        return float(_EN_N[t])
    if t in _ZH_N:
        return float(_ZH_N[t])
    return float(t)


def _count(text: str, start: int, end: int) -> int | None:
    m = _COUNT_BEFORE.search(text[max(0, start - 24) : start])
    if m:
        tok = m.group("n").lower()
        n = _WORD_N.get(tok) or (int(tok) if tok.isdigit() else None)
        if n:
            return n
    a = _COUNT_AFTER.match(text[end : end + 16])
    if a:
        return int(a.group("n") or a.group("m"))
    return None


def cards_at(text: str) -> list[CardAt]:
    """Every known card in the text with its place and the count written beside it."""
    from assistant.offline.reading.vocab import canonical_gpu, gpu_known, gpu_vocab

    out: list[CardAt] = []
    for m in gpu_vocab().regex.finditer(text):
        mem = re.search(r"(\d{1,3})\s*g", m.group("variant") or "", re.I)
        gid, _ = gpu_known(canonical_gpu(m.group("name")), float(mem.group(1)) if mem else None)
        if gid:
            out.append(CardAt(m.start(), m.end(), gid, _count(text, m.start(), m.end())))
    return out


def durations(text: str) -> list[tuple[int, float]]:
    """(position, hours) of every duration ('one week' → 168, '2 days' → 48, '31h' → 31)."""
    out = []
    for m in _DURATION.finditer(text):
        unit = m.group("u").lower().rstrip("s") if m.group("u").isascii() else m.group("u")
        unit = {"minute": "min", "hrs": "hr", "mins": "min"}.get(unit, unit)
        try:
            out.append((m.start(), _num(m.group("n")) * _UNIT_H[unit]))
        except (KeyError, ValueError):
            continue
    return out


def _rate(text: str) -> tuple[int, float, str] | None:
    m = _RATE.search(text)
    if not m:
        return None
    if m.group("ips"):
        return m.start(), 1 / float(m.group("ips")), "it"
    u = m.group("u").lower()
    return m.start(), float(m.group("v")), "kimg" if u == "kimg" else "epoch" if u == "epoch" else "step"


def _units(text: str, unit: str, skip: int) -> float | None:
    for m in _UNITS.finditer(text):
        if abs(m.start() - skip) < 2:
            continue
        u = m.group("u").lower()
        kind = "kimg" if u == "kimg" else "epoch" if u.startswith("epoch") else "step"
        if kind != (unit if unit != "it" else "step"):
            continue
        v = float(m.group("v").replace(",", ""))
        return v * (1000 if m.group("k") and m.group("k").lower() == "k" else 10_000 if m.group("k") else 1)
    return None


def _is_mine(text: str, c: CardAt) -> bool:
    return bool(_MINE.search(text[max(0, c.start - 16) : c.start]))


def _target(text: str, cards: list[CardAt], ref: CardAt, mine_only: bool = False) -> CardAt | None:
    """The card the user wants the run on: another card or count, the one said as theirs ('one 3090', '我一张4090')."""
    others = [c for c in cards if (c.gpu_id, c.count or 1) != (ref.gpu_id, ref.count or 1) and c.start != ref.start]
    if not others:
        return None
    mine = [c for c in others if _is_mine(text, c) or (c.count or 1) == 1]
    if mine_only:
        return mine[-1] if mine else None
    return (mine or others)[-1]


def read_run_figures(text: str) -> RunFigures | None:
    """The reference run and the target card, or None when the text does not carry both."""
    cards = cards_at(text)
    if len(cards) < 1:
        return None
    rate = _rate(text)
    spans = durations(text)
    published: tuple[CardAt, float] | None = None
    # a counted card that is not said as the user's, with a duration in the same stretch of text ('8 V100 for
    # 2 days', '2 days on 8 V100', '8x V100 … which takes ~31h'); the nearest such pair wins
    pairs = [
        (abs(p - c.start), -(c.count or 0), i, h)
        for i, c in enumerate(cards)
        if c.count and not _is_mine(text, c)
        for p, h in spans
        if abs(p - c.start) <= 100
    ]
    if pairs:
        _, _, i, h = min(pairs)
        published = (cards[i], h)
    if rate is not None:
        pos, secs, unit = rate
        units = _units(text, unit, pos)
        if units:
            before = [c for c in cards if c.start < pos and pos - c.start <= 120]
            rated = before[-1] if before else None
            if rated is None:
                return None
            # the card the rate is carried to must be said as the user's ('only one RTX 4090'); else the rate is theirs
            tgt = _target(text, cards, rated, mine_only=True) or rated
            also = published if published and published[0].start != rated.start else None
            return RunFigures(
                ref_gpu=rated.gpu_id,
                ref_gpus=rated.count or 1,
                ref_hours=None,
                ref_seconds_per_unit=secs,
                ref_units=units,
                unit=unit,
                gpu=tgt.gpu_id,
                n_gpus=tgt.count or 1,
                also_gpu=also[0].gpu_id if also else None,
                also_gpus=(also[0].count or 1) if also else None,
                also_hours=also[1] if also else None,
            )
    if published is None:
        return None
    ref, hours = published
    dest = _target(text, cards, ref)
    if dest is None:
        return None
    return RunFigures(
        ref_gpu=ref.gpu_id,
        ref_gpus=ref.count or 1,
        ref_hours=hours,
        ref_seconds_per_unit=None,
        ref_units=None,
        unit="step",
        gpu=dest.gpu_id,
        n_gpus=dest.count or 1,
    )


# ---- the user's own measured training throughput ("it takes 37.8 seconds to run 100 iterations, which corresponds
# to 100 * 4096 = 409,600 tokens", 「100步用了37.8秒，每步4096个token」, "my run does 12k tokens/s") ----------------
_SECS = r"(?:s|secs?|seconds?|秒)(?![a-z])"
_STEPS = r"(?:iterations?|iters?|steps?|步|次迭代)(?![a-z])"
_SECS_FOR_STEPS = re.compile(
    rf"(?P<s>\d+(?:\.\d+)?)\s*{_SECS}\s*(?:to run|to train|to do|for|per|跑|完成)?\s*(?P<n>\d[\d,]*)\s*(?:个)?\s*{_STEPS}"
    rf"|(?P<n2>\d[\d,]*)\s*(?:个)?\s*{_STEPS}\s*(?:take|takes|took|in|用了|用时|耗时|花了|需要|要|大概|大约|约)\s*"
    rf"(?:about|around|~|约)?\s*(?P<s2>\d+(?:\.\d+)?)\s*{_SECS}",
    re.I,
)
_SECS_PER_STEP = re.compile(
    r"(?P<sps>\d+(?:\.\d+)?)\s*(?:s|秒)\s*/\s*(?:it|step|步|iter)\b|每(?:步|个?step|个?iter)\s*(?P<sps2>\d+(?:\.\d+)?)\s*秒"
    r"|(?P<ips>\d+(?:\.\d+)?)\s*it/s\b",
    re.I,
)
# the tokens those steps processed ("= 409,600 tokens") or one step's ("4096 tokens per step", 「每步4096个token」)
_TOKENS_DONE = re.compile(r"=\s*(?P<t>\d{1,3}(?:,\d{3})+|\d{4,})\s*tokens?\b", re.I)
_TOKENS_PER_STEP = re.compile(
    r"(?P<t>\d{1,3}(?:,\d{3})+|\d{3,})\s*tokens?\s*(?:per|each|/|every)\s*(?:step|iteration|iter|batch)\b"
    r"|每(?:步|个?step|个?iter|次迭代)\s*(?P<t2>\d{1,3}(?:,\d{3})+|\d{3,})\s*(?:个)?\s*token",
    re.I,
)
_TOKENS_PER_S = re.compile(
    r"(?P<r>\d+(?:\.\d+)?)\s*(?P<k>k|K|万)?\s*(?:tokens?|tok)\s*/\s*(?:s|sec)\b|每秒\s*(?P<r2>\d+(?:\.\d+)?)\s*(?P<k2>k|K|万)?\s*(?:个)?\s*token",
    re.I,
)


def _int(tok: str) -> float:
    return float(tok.replace(",", ""))


def measured_token_rate(text: str) -> float | None:
    """Tokens per second the user measured on their own run (steps timed × tokens per step, or said as tokens/s), or
    None. The caller decides it is a training run; a serving decode speed is not read here."""
    m = _SECS_FOR_STEPS.search(text)
    secs_per_step = None
    at = 0
    if m:
        secs, steps = float(m.group("s") or m.group("s2")), _int(m.group("n") or m.group("n2"))
        if secs > 0 and steps > 0:
            secs_per_step, at = secs / steps, m.end()
            done = _TOKENS_DONE.search(text, m.end(), m.end() + 120)
            if done:
                return _int(done.group("t")) / secs
    if secs_per_step is None and (p := _SECS_PER_STEP.search(text)):
        if p.group("ips"):
            secs_per_step = 1 / float(p.group("ips")) if float(p.group("ips")) > 0 else None
        else:
            v = float(p.group("sps") or p.group("sps2"))
            secs_per_step = v if v > 0 else None
        at = p.end()
    if secs_per_step:
        per = _TOKENS_PER_STEP.search(text, max(0, at - 200))
        if per:
            return _int(per.group("t") or per.group("t2")) / secs_per_step
        return None
    r = _TOKENS_PER_S.search(text)
    if r:
        k = r.group("k") or r.group("k2")
        v = float(r.group("r") or r.group("r2")) * (1000 if k in ("k", "K") else 10_000 if k == "万" else 1)
        return v if v > 0 else None
    return None


# ---- a run's data as steps × sequences per step × sequence length (「batch_size=1024大约6h可以训练1K步 … block_size
# 512」): the tokens those steps saw, when no corpus size is given -------------------------------------------------
_STEP_COUNT = re.compile(
    r"(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s*(?P<k>k|K|千|万)?\s*(?:个)?\s*(?:steps?|步|iterations?|iters?)(?![a-z])", re.I
)
_GLOBAL_BATCH = re.compile(
    r"(?:global[\s_]*batch(?:[\s_]*size)?|total[\s_]*batch(?:[\s_]*size)?|batch[\s_]*size|总\s*batch|全局\s*batch|bs)"
    r"\s*[=:：]?\s*(?:为|是)?\s*(?P<b>\d{2,6})(?![\d.])",
    re.I,
)
# block_size / max_seq_length before the looser words: 「最大长度1024」 in another question is not this run's length
_RUN_LENGTH = (
    re.compile(
        r"(?:block[\s_]*size|max[\s_]*seq(?:uence)?[\s_]*len(?:gth)?|seq[\s_]*len(?:gth)?)\s*[=:：]?\s*(?P<l>\d{2,6})",
        re.I,
    ),
    re.compile(r"(?:序列长度|上下文长度|cutoff_len)\s*[=:：]?\s*(?:为|是)?\s*(?P<l>\d{2,6})", re.I),
)


def steps_batch_length(text: str) -> tuple[int, int, int] | None:
    """(steps, sequences per step, tokens per sequence) when the text gives all three, else None."""
    s, b = _STEP_COUNT.search(text or ""), _GLOBAL_BATCH.search(text or "")
    length = next((m for rx in _RUN_LENGTH if (m := rx.search(text or ""))), None)
    if not (s and b and length):
        return None
    mult = {"k": 1000, "K": 1000, "千": 1000, "万": 10_000}.get(s.group("k") or "", 1)
    steps = int(float(s.group("n")) * mult)
    batch, seq = int(b.group("b")), int(length.group("l"))
    return (steps, batch, seq) if steps > 0 and batch > 0 and seq > 0 else None
