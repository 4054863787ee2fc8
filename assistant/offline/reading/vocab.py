"""GPU and model names, read from `knowledge/` at first use — no second list of names lives here.

GPUs: every id, name, alias and nvidia-smi name in knowledge/gpus.yaml (via `tools.gpus.all_gpus`),
with the memory size and form factor taken off so "A100 80G SXM" is the base name "a100" plus a variant
the reader keeps. Models: the catalog in knowledge/models/ (via `tools.models`): a family word
(from the catalog ids and the Chinese family names the catalog knows) starts a candidate span that
`tools.models.find_entry` resolves; a variant (Coder, Math, Instruct, a distill) resolves to the
architecture it is built on, and the answer says which one was used.

Only shapes live here (how a card or model name is written), never names: a GPU-shaped word that is not
in the table (RTX 2080 Ti, GB200) is kept as typed and reported as unknown.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# ---------------------------------------------------------------- GPUs ---------------------------
_MEM_TOKEN = re.compile(r"(?<![a-z0-9])\d{1,3}\s*(?:gib|gb|g)(?![a-z0-9])", re.I)
_FORM_TOKEN = re.compile(r"(?<![a-z0-9])(?:sxm\d?|pcie|pci-e|nvl|hgx|oam|hbm3e?|per gpu)(?![a-z0-9])", re.I)
_MAKER_TOKEN = re.compile(r"(?<![a-z0-9])(?:nvidia|geforce|tesla|huawei)(?![a-z0-9])", re.I)
# A GPU-shaped word the table may not have (passed on as typed, reported as unknown by the tools).
# A size followed by "/s" or "ps" is a rate ("160GB/s", "400Gbps"), never a card's memory.
NOT_A_RATE = r"(?!\s*(?:/\s*s(?:ec)?\b|ps\b|per\s+sec))"
UNKNOWN_GPU_SHAPE = (
    r"(?:rtx|gtx)\s*\d{4}\s*(?:ti|super|d)?(?![a-z0-9])|\d{4}\s*ti(?![a-z0-9])|gb\d{3}(?![a-z0-9])|"
    # an NVIDIA data-centre / laptop part named with its maker (Tesla M40, NVIDIA T500), an AMD Instinct card
    r"(?:nvidia|tesla|quadro)\s+[kmpt]\d{2,4}(?![a-z0-9])|(?:amd\s+)?(?:instinct\s+)?mi\d{3}x?(?![a-z0-9])|"
    # Chinese accelerators by their model shapes: Cambricon MLU370-S4, Hygon DCU K100-AI / Z100, Moore Threads MTT S5000
    r"mlu\d{3}(?:[\s\-_]*[a-z]\d)?(?![a-z0-9])|(?:dcu\s*)?[kz]\d{3}(?:l|[\-_]?ai)?(?![a-z0-9])|mtt\s*s\d{2,4}(?![a-z0-9])"
)
# A known base name followed by a tier word it does not include ("RTX 3060" + " Ti") is a different card:
# the name must not stop there, or a 3060 Ti would silently become a 12 GB 3060.
_NOT_A_LONGER_NAME = r"(?![\s\-_]*(?:ti|super)(?![a-z]))(?![\-_]?ai(?![a-z]))"
# "RTX 4000 series" / 「RTX 3000系列」 is a GeForce generation (4060-4090), not the RTX 4000 Ada workstation card nor an
# unknown "RTX 4000": a round thousand followed by a series word names no card.
_NOT_A_SERIES = r"(?!(?<=\d000)[\s\-_]*(?:series\b|系列|系(?!统)))"
# A desktop name followed by a laptop word the table has no row for ("RTX A2000 Laptop GPU", 4 GB) is another card
# (laptop parts have less memory); the laptop rows' own aliases ("4060 laptop") are longer and match first.
_NOT_A_LAPTOP = r"(?![\s\-_]*(?:laptop|mobile|移动版|笔记本)(?![a-z]))"


def _base(alias: str) -> str:
    s = alias.lower().replace("-", " ").replace("_", " ")
    for rx in (_MEM_TOKEN, _FORM_TOKEN, _MAKER_TOKEN):
        s = rx.sub(" ", s)
    s = re.sub(r"\(.*?\)", " ", s)
    return re.sub(r"\s+", " ", s).strip()


def _flex(base: str) -> str:
    """'rtx 4090' → 'rtx\\s*4090'; '4090d' → '4090\\s*d' (a separator may be left out or added)."""
    parts = [re.escape(p) for p in base.split(" ") if p]
    out = r"[\s\-_]*".join(parts)
    return re.sub(r"(\d)([a-z])", r"\1[\\s\\-_]*\2", out)


def display_name(spec_name: str) -> str:
    """'NVIDIA GeForce RTX 4090 24GB' → 'RTX 4090'; 'NVIDIA A100 80GB SXM4' → 'A100' (family, no variant)."""
    s = re.sub(r"\(.*?\)", " ", spec_name)
    s = _MAKER_TOKEN.sub(" ", s)
    s = _MEM_TOKEN.sub(" ", s)
    s = _FORM_TOKEN.sub(" ", s)
    s = re.sub(r"\b(?:Generation|Blackwell|Workstation Edition)\b", " ", s)
    s = re.sub(r"(\d) D\b", r"\1D", s)
    return re.sub(r"\s+", " ", s).strip()


@dataclass(frozen=True)
class GpuVocab:
    regex: re.Pattern[str]
    display: dict[str, str]  # base name → display name ("4090" → "RTX 4090")


@functools.lru_cache(maxsize=1)
def gpu_vocab() -> GpuVocab:
    """One regex over every base name in the GPU table, longest first."""
    from tools.gpus import all_gpus

    display: dict[str, str] = {}
    for gpu in all_gpus():
        name = display_name(gpu.name)
        for alias in [gpu.id.replace("_", " "), gpu.name, *gpu.aliases, *gpu.nvidia_smi_names]:
            base = _base(alias)
            # a digit, or two words with no digit ("titan rtx"): one bare word would match ordinary text
            if len(base) >= 2 and (re.search(r"\d", base) or re.fullmatch(r"[a-z]{3,} [a-z]{2,}", base)):
                display.setdefault(base, name)
    alts = sorted(display, key=len, reverse=True)
    pattern = "|".join(f"(?:{_flex(b)})" for b in alts)
    regex = re.compile(
        # a size may be glued before the name: "22GB2080ti", "24g4090"
        r"(?:(?<=\dx)|(?<=\d\*)|(?<=\dg)|(?<=\dgb)|(?<![a-z0-9]))"
        rf"(?P<name>(?:{pattern}){_NOT_A_LONGER_NAME}|{UNKNOWN_GPU_SHAPE}){_NOT_A_SERIES}{_NOT_A_LAPTOP}(?=s\b|x\s*\d|[^a-z0-9]|$)"
        rf"(?P<variant>(?:[\s\-_/]*(?:\d{{1,3}}\s*g(?:b|i?b)?(?![a-z0-9]){NOT_A_RATE}|sxm\d?|pcie|nvl(?!ink)))*)"
        r"(?:\s*(?:显卡|gpus?|cards?|卡|s\b))?",
        re.I,
    )
    return GpuVocab(regex=regex, display=display)


def canonical_gpu(raw: str) -> str:
    """The display name for a matched base name; an unknown GPU-shaped word as typed, upper-cased."""
    key = re.sub(r"[\s\-_]+", " ", raw.lower()).strip()
    vocab = gpu_vocab()
    for cand in (key, key.replace(" ", ""), re.sub(r"(\d)\s+([a-z])", r"\1\2", key)):
        if cand in vocab.display:
            return vocab.display[cand]
    for base, name in vocab.display.items():  # separators typed differently ("rtx4090" vs "rtx 4090")
        if base.replace(" ", "") == key.replace(" ", ""):
            return name
    m = re.fullmatch(r"(?:(rtx|gtx)\s*)?(\d{4})\s*(ti|super|d)?", key)
    if m:  # "2080ti" → "RTX 2080 Ti"
        suffix = {"ti": " Ti", "super": " SUPER", "d": "D"}.get(m.group(3) or "", "")
        return f"{(m.group(1) or 'rtx').upper()} {m.group(2)}{suffix}"
    return raw.strip().upper()


def gpu_known(
    name: str, memory_gb: float | None = None, form: str | None = None, from_mib: bool = False
) -> tuple[str | None, bool]:
    """(table id or None, stated memory matches a variant). '4090' + 48 → ('rtx_4090', False): a modded card."""
    from tools.errors import ToolInputError
    from tools.gpus import resolve_gpu

    try:
        base = resolve_gpu(name)
    except ToolInputError:
        return None, True
    if memory_gb is None:
        return base.id, True
    if base.gpus_per_board > 1 and abs(base.memory_gb * base.gpus_per_board - memory_gb) < 1:
        return base.id, True  # "24GB K80": the board's total, two 12 GB GPUs
    try:
        spec = resolve_gpu(f"{name} {memory_gb:g}GB" + (f" {form}" if form else ""))
    except ToolInputError:
        spec = None
    if spec is not None and abs(spec.memory_gb - memory_gb) < 1:
        return spec.id, True
    # "L20(46G)": the size nvidia-smi shows (46,068 MiB), not a different card
    from tools.gpus import all_gpus

    for row in [base, *(g for g in all_gpus() if g.family == base.family and g.id != base.id)]:
        mib = row.nvidia_smi_total_mib
        if mib and (abs(mib / 1024 - memory_gb) < 1 or abs(mib / 1000 - memory_gb) < 1):
            return row.id, True
    # "RTX 2080" shown with 11264 MiB is the 2080 Ti (11 GB), a sibling family: the exact figure the driver shows
    # decides (a rounded "5090 24G" stays a premise to correct: the 5090 has 32 GB)
    for row in (g for g in all_gpus() if from_mib and g.family != base.family and g.family.startswith(base.family)):
        mib = row.nvidia_smi_total_mib
        if mib and abs(mib / 1024 - memory_gb) < 0.5 and abs(row.memory_gb - base.memory_gb) >= 1:
            return row.id, True
    return (spec or base).id, False


# ---------------------------------------------------------------- models -------------------------
# Words that name a variant of a base architecture: dropping them leaves the model it is built on.
_VARIANT_WORDS = {"coder", "math", "instruct", "chat", "base", "it", "sft", "hf", "preview", "distill", "r1"}
_SIZE_TOKEN = re.compile(r"^(?:\d+x)?\d+(?:\.\d+)?[bm]$|^a\d+(?:\.\d+)?b$", re.I)


@functools.lru_cache(maxsize=1)
def _family_regex() -> re.Pattern[str]:
    from tools.models import family_words, load_catalog

    words: set[str] = set()
    for entry in load_catalog():
        for name in (entry.id, *entry.aliases):
            m = re.match(r"[a-z]+", name.lower())
            if m and len(m.group(0)) >= 2:
                words.add(m.group(0))
            m = re.match(r"[\u4e00-\u9fff]+", name)
            if m:
                words.add(m.group(0))
    words |= set(family_words())
    alts = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    # a name glued to the verb before it (「finetuneChatGLM2」, "finetuningQwen2-7B") still starts there
    return re.compile(rf"(?:(?<![a-z])|(?<=finetune)|(?<=finetuning))(?:{alts})", re.I)


# ASCII only: "\w" would take 「Qwen2-VL-72B-Instruct在docker镜像qwenllm/」 for one org prefix and blank the model
_REPO_PREFIX = re.compile(r"(?<![a-z0-9_./\-])(?:\.{1,2}/|~/|[a-z][a-z0-9_.\-]*/)+(?=[a-z])", re.I)
# ':' joins an Ollama tag to its name ("deepseek-r1:32b", "qwen2.5:72b"): one name, not a name and a bare size
# a dot only inside a token ("qwen2.5"): "Llama 3. The 8B model" ends the name at the sentence's full stop
_NAME_PIECE = r"[a-z0-9]+(?:\.[a-z0-9]+)*"
# one space at most between pieces, and no command-line flag: "chinese_llama_7b.bin --config_path models/llama/7b" is a
# file name and a flag's value, not one model name
_TOKEN_RUN = re.compile(rf"{_NAME_PIECE}(?:(?:\s[\-_/:]+\s|[\-_/:]+\s?|\s(?!-)){_NAME_PIECE}){{0,7}}", re.I)


@dataclass(frozen=True)
class ModelHit:
    start: int
    end: int
    text: str  # as typed
    catalog_id: str | None  # the catalog row used (None: a named model the catalog does not have)
    variant: bool  # `text` is a variant (Coder, Math, a distill) sized by `catalog_id`'s architecture
    size_b: float | None  # the size written in the name, billions


def _size_b(token: str) -> float | None:
    m = re.fullmatch(r"(?:(\d+)x)?(\d+(?:\.\d+)?)([bm])", token.lower())
    if not m:
        return None
    val = float(m.group(2)) / (1000 if m.group(3) == "m" else 1)
    return val * int(m.group(1)) if m.group(1) else val


def find_models(text: str) -> list[ModelHit]:
    """Model names in `text` resolved against the catalog, in order of mention."""
    from tools.models import UNDERSCORE_VERSION_RE, find_entry

    hits: list[ModelHit] = []
    pos = 0
    # an HF repo or a local path names the model after its last "/": "Qwen2/Qwen2-7B-Instruct", "./Qwen3-235B-A22B"
    low = _REPO_PREFIX.sub(lambda m: " " * (m.end() - m.start()), text.lower())
    low = UNDERSCORE_VERSION_RE.sub(".", low)  # "qwen1_5-14b": same length, so the spans still index `text`
    while True:
        fm = _family_regex().search(low, pos)
        if not fm:
            return hits
        tail = low[fm.end() :]
        run = (
            _TOKEN_RUN.match(tail.lstrip(" -_:"))
            if tail[:1] in ("", " ", "-", "_", ":") or tail[:1].isalnum()
            else None
        )
        gap = len(tail) - len(tail.lstrip(" -_:")) if run else 0
        tokens = [t for t in re.split(r"[\s\-_/:]+", run.group(0))] if run else []
        if tokens and not tail[:1].isalnum() and gap > 1:
            tokens = []  # "qwen  and 7b": only one separator between a family and its version
        family = low[fm.start() : fm.end()]
        size_at = next((i for i, t in enumerate(tokens) if _SIZE_TOKEN.match(t)), None)
        hit = _resolve(family, tokens, size_at, find_entry)
        if hit is not None and hit[0] == 0 and run and _is_unknown_version(tokens, run.group(0), tail[gap:]):
            hit = None  # "Kimi-K3", "DeepSeek-V4", "GLM-5": a version the catalog lacks is not the family's default
        if hit is None:
            pos = fm.end()
            continue
        n_tokens, catalog_id, variant = hit
        end = fm.end() + gap + (_span_len(run.group(0), n_tokens) if run and n_tokens else 0)
        size = _size_b(tokens[size_at]) if size_at is not None and size_at < n_tokens else None
        hits.append(ModelHit(fm.start(), end, text[fm.start() : end], catalog_id, variant, size))
        pos = end


# A release number after a family word: "v4", "k3", "r2", "5", "4.9" — not a count ("deepseek 8卡") or a size
_VERSION_TOKEN = re.compile(r"^(?:[a-z]{1,2}\d+(?:\.\d+)*|\d+(?:\.\d+)*)[a-z]?$", re.I)
_COUNT_AFTER = re.compile(r"^\s*(?:张|块|台|个|卡|x\b|×|gpus?\b|cards?\b|nodes?\b|机)", re.I)


def _is_unknown_version(tokens: list[str], run: str, after_gap: str) -> bool:
    """The family word resolved alone although a release number follows it: that release is not in the catalog,
    and answering with the family's default model would size another model (the brief's worst outcome)."""
    if not tokens or not _VERSION_TOKEN.match(tokens[0]) or _SIZE_TOKEN.match(tokens[0]):
        return False
    first = re.match(r"[a-z0-9.]+", run, re.I)
    rest = after_gap[first.end() :] if first else ""
    return not _COUNT_AFTER.match(rest)


def family_version_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each catalog family word followed by a release number ("deepseek v4", "Kimi-K3", "glm 5"),
    counts after it excluded ("deepseek 8卡"). The caller decides whether the catalog has that release."""
    out: list[tuple[int, int]] = []
    low = text.lower()
    for fm in _family_regex().finditer(low):
        if not re.match(r"[a-z]+$", fm.group(0)):
            continue  # a Chinese family word (千问) is followed by its own version forms, read elsewhere
        m = re.match(r"[\s\-_]?([a-z0-9.]+)", low[fm.end() :])
        if not m or (fm.end() < len(low) and low[fm.end()].isalpha()):
            continue  # "deepseekmath": one word, not family + version
        token = m.group(1).rstrip(".")
        if _VERSION_TOKEN.match(token) and not _SIZE_TOKEN.match(token):
            end = fm.end() + m.start(1) + len(token)
            if not _COUNT_AFTER.match(low[end:]):
                out.append((fm.start(), end))
    return out


def _span_len(run: str, n_tokens: int) -> int:
    parts = re.finditer(_NAME_PIECE, run, re.I)
    last = None
    for i, m in enumerate(parts):
        if i == n_tokens - 1:
            last = m
            break
    return last.end() if last else 0


def _resolve(
    family: str, tokens: list[str], size_at: int | None, find_entry: Callable[[str], Any]
) -> tuple[int, str | None, bool] | None:
    """(tokens used, catalog id, is a variant) — the longest name the catalog knows. A name with a size
    must keep its size ("deepseek-r1-distill-qwen-32b" is never cut back to "deepseek-r1")."""
    from tools.models import family_default

    shortest = (size_at + 1) if size_at is not None else 0
    for n in range(len(tokens), shortest - 1, -1):
        cand = "-".join([family, *tokens[:n]])
        entry = find_entry(cand)
        if entry is not None:
            return n, entry.id, False
        # no size and a sub-family word ("deepseek-coder"): its 7B-class member, said on line 1 — not the bare family
        # word's model (「deepseek」 alone is R1). A family word alone ("chatglm") or with a bare version ("llama3") is
        # left to the fit reader (slots._family_default), which knows whether the question asks for a size.
        sub = size_at is None and n > 0 and any(t.isalpha() for t in tokens[:n])
        default = family_default(cand) if sub else None
        if default is not None:
            return n, default, True
    if size_at is None:
        return None
    used = tokens[: size_at + 1]
    if "distill" in used:  # "X-R1-Distill-Qwen-32B": the student is the architecture
        after = used[used.index("distill") + 1 :]
        if after and _family_regex().fullmatch(after[0]):
            entry = find_entry("-".join(after))
            if entry is not None:
                return size_at + 1, entry.id, True
    kept = [t for t in used if t not in _VARIANT_WORDS]
    if kept != used:
        entry = find_entry("-".join([family, *kept]))
        if entry is not None:
            return size_at + 1, entry.id, True
    return size_at + 1, None, False  # a named model the catalog does not have: the size still counts


def pipeline_mention(text: str) -> str | None:
    """An image/video/speech pipeline named in the text (FLUX.1, SDXL, Qwen-Image, Wan2.1, Whisper …): its id in
    knowledge/pipelines.yaml, whose names (incl. Chinese and casual spellings) are the only vocabulary."""
    from tools.pipeline_memory import pipeline_in_text

    hit = pipeline_in_text(text)
    return hit[0] if hit else None


_CARD_GB_RE = re.compile(r"(?<![\d.])(\d{1,3})\s*(?:gib|gb|g)(?![a-z0-9/])", re.I)
_NOT_CARD_RE = re.compile(r"内存|主机|硬盘|磁盘|\bram\b|\bdisk\b|\bssd\b|模型文件|权重文件|下载", re.I)


def pipeline_card_gb(text: str) -> float | None:
    """A card size said beside a pipeline model ("4张80G够吗", "a 2gb card", "两张24G"): the general reader only
    takes sizes of 4 GB and up in card phrasings; image/speech models run on 2 GB cards, and 「80G够吗」 names
    the card. Host RAM and file sizes nearby (内存 / RAM / disk) are not cards."""
    for m in _CARD_GB_RE.finditer(text):
        before = text[max(0, m.start() - 4) : m.start()]
        value = float(m.group(1))
        if 1 <= value <= 288 and not _NOT_CARD_RE.search(before + text[m.end() : m.end() + 4]):
            return value
    return None
