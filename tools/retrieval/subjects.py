"""Is a passage about the question's own subject? Named things and a section's declared subject.

Lexical relevance (relevance.py) cannot tell a passage that shares the question's words from one that
answers it: 「GLM-4v-9b 在 3 张 T4 上推理太慢」 shares 推理/慢 with the section on CPU–GPU hybrid inference
(ktransformers, DeepSeek-V3), and a Qwen2.5-VL max_pixels question shares 显存 with the Whisper section of
the same document. Two checks, both read from data:

* named things — the GPUs (knowledge/gpus.yaml via tools.gpus), model families (the catalog in
  knowledge/models/ and the pipeline families in knowledge/pipelines.yaml) and engines
  (knowledge/engines.yaml, the engine words of knowledge/cpus.yaml) a section's heading names are its
  subject: "Whisper 要多少显存", "V100、T4、2080 上 fp16 出 NaN". The question must name one of them.
* declared subject — a guide document may say, in its front matter, what a section (or the whole
  document) is about as a regex (`about:`; a heading prefix → regex, `"*"` for every section). The
  section on the Windows sysmem fallback is about Windows; the one on hybrid inference is about the CPU.
  A section whose condition the question does not meet is not about this question, whatever words it shares.

A section that fails either check is `off_subject`: search.py flags it as not answering (low_relevance)
and moves it after the passages that do. No names live here; only how a name is written.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from tools.retrieval.corpus import split_front_matter

_MEM = re.compile(r"(?<![a-z0-9])\d{1,3}\s*(?:gib|gb|g)(?![a-z0-9])")
_FORM = re.compile(r"(?<![a-z0-9])(?:sxm\d?|pcie|pci-e|nvl|hgx|oam|nvidia|geforce|tesla|huawei|laptop|gpu)(?![a-z0-9])")


def _norm(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFKC", text or "").lower()


@lru_cache(maxsize=1)
def _gpu_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(regex, family) for every digit-bearing GPU name in the table: 'a100', 'rtx 4090', 't4', '910b'."""
    from tools.gpus import all_gpus

    names: dict[str, str] = {}
    for gpu in all_gpus():
        for alias in (gpu.id.replace("_", " "), gpu.name, *gpu.aliases):
            base = _FORM.sub(" ", _MEM.sub(" ", _norm(alias).replace("-", " ").replace("_", " ")))
            base = re.sub(r"\(.*?\)", " ", base)
            for word in base.split():
                if re.fullmatch(r"[a-z]{1,4}\d{1,4}[a-z]{0,2}|\d{3,4}[a-z]{0,2}", word):
                    names.setdefault(word, gpu.family)
    out = []
    for word in sorted(names, key=len, reverse=True):
        body = re.sub(r"(\d)([a-z])", r"\1\\s*\2", re.escape(word))
        out.append((re.compile(rf"(?<![a-z0-9.]){body}(?!(?!s\b)[a-z0-9])"), f"gpu:{names[word]}"))
    return tuple(out)


@lru_cache(maxsize=1)
def _model_patterns() -> tuple[tuple[re.Pattern[str], re.Pattern[str], str], ...]:
    """(strict regex for headings, loose regex for questions, family) per model family word.

    Strict: the family word followed by a version or size ("Qwen2.5-VL", "DeepSeek-V3"), so an English
    heading's ordinary word is never a model; pipeline families (Whisper) match as whole words.
    Loose: the family word at a word start ("qwenvl2.5", "glm-4v-9b", 「千问」)."""
    from tools.data import load_yaml
    from tools.models import family_words, load_catalog

    fams: dict[str, str] = {}
    for entry in load_catalog():
        for name in (entry.id, *entry.aliases):
            m = re.match(r"([a-z]{3,})(?=[\d\-. ])", _norm(name))
            if m:
                fams.setdefault(m.group(1), m.group(1))
    whole: set[str] = set()
    for row in (load_yaml("pipelines.yaml") or {}).get("pipelines") or []:
        fam = _norm(str(row.get("family") or "")) if isinstance(row, dict) else ""
        m = re.match(r"[a-z]{5,}", fam)  # whole words: 'whisper'; a short one ('step') is an English word
        if m:
            fams.setdefault(m.group(0), m.group(0))
            whole.add(m.group(0))
    out = []
    for word in sorted(fams, key=len, reverse=True):
        w = re.escape(word)
        strict = rf"(?<![a-z]){w}(?![a-z])" if word in whole else rf"(?<![a-z]){w}(?=[\d\-.]|-?v\d)"
        out.append((re.compile(strict), re.compile(rf"(?<![a-z]){w}"), f"model:{fams[word]}"))
    for zh, fam in family_words().items():
        out.append((re.compile(re.escape(zh)), re.compile(re.escape(zh)), f"model:{fam}"))
    return tuple(out)


@lru_cache(maxsize=1)
def _engine_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Engines by their own words: the keys of knowledge/engines.yaml sections and the engine regexes of
    knowledge/cpus.yaml (KTransformers, llama.cpp, Ollama …). 'hf' is left out: it names no engine a reader
    would recognise in a heading (Hugging Face is the default, not a subject)."""
    from tools.data import load_yaml

    out: list[tuple[re.Pattern[str], str]] = []
    engines = load_yaml("engines.yaml") or {}
    for section in ("inference", "training", "local_runtimes"):
        for key in engines.get(section) or {}:
            k = str(key).lower()
            if k in {"hf", "bf16", "fused", "chunked"} or len(k) < 4:
                continue
            body = re.escape(k).replace(r"\.", r"\.?").replace(r"\-", r"[\s\-]*")
            out.append((re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])"), f"engine:{k}"))
    words = ((load_yaml("cpus.yaml") or {}).get("words") or {}).get("engines") or {}
    for name, rx in words.items():
        out.append((re.compile(str(rx), re.I), f"engine:{_norm(str(name)).replace(' ', '')}"))
    return tuple(out)


def named(text: str, strict: bool = False) -> frozenset[str]:
    """Kind-prefixed keys of the GPUs, model families and engines `text` names ('gpu:t4', 'model:whisper',
    'engine:ktransformers'). `strict` for headings: a model family only with its version or size."""
    low = _norm(text)
    found: set[str] = set()
    for rx, key in _gpu_patterns():
        if rx.search(low):
            found.add(key)
    for strict_rx, loose_rx, key in _model_patterns():
        if (strict_rx if strict else loose_rx).search(low):
            found.add(key)
    for rx, key in _engine_patterns():
        if rx.search(low):
            found.add(key)
    return frozenset(found)


# ---------------------------------------------------------------- declared subjects (front matter)
@lru_cache(maxsize=4)
def _declared(folder: str) -> dict[str, tuple[tuple[str, re.Pattern[str]], ...]]:
    """doc id → ((heading prefix or '*', regex), …) from each guide document's `about:` front matter."""
    out: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {}
    for path in sorted(Path(folder).glob("*.md")):
        try:
            meta, _ = split_front_matter(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        about = meta.get("about")
        if not isinstance(about, dict):
            continue
        rows = tuple((str(k), re.compile(str(v), re.I | re.S)) for k, v in about.items())
        out[str(meta.get("id") or path.stem)] = rows
    return out


def declared_subject(doc_id: str, section: str, folder: Path) -> re.Pattern[str] | None:
    """The regex a question must match for this section to be about it (a section's own entry wins over the
    document's '*'); None when the document declares none."""
    rows = _declared(str(folder)).get(doc_id) or ()
    fallback = None
    for key, rx in rows:
        if key == "*":
            fallback = rx
        elif section.startswith(key):
            return rx
    return fallback


def guide_subject(doc_id: str) -> re.Pattern[str] | None:
    """A whole guide document's declared subject (`about['*']`) in the guidance corpus: where other layers (the
    diagnosis rules, the intents) need the same vocabulary the guide keeps, e.g. which accelerators are Chinese."""
    from tools.retrieval.paths import guide_dir

    return declared_subject(doc_id, "", guide_dir())


def kinds(keys: Iterable[str]) -> set[str]:
    return {k.partition(":")[0] for k in keys}


def subject_check(query: str, query_named: Iterable[str], heading_named: Iterable[str], rx: Any) -> str:
    """'' when the section is about the question's subject; 'other' when it is about something else the
    question rules out (its declared subject is not in the question, or its heading names a GPU / model /
    engine while the question names a different one of that kind); 'unnamed' when its heading names things
    the question does not bring up, while it names things of other kinds (the section may still help, after
    the others)."""
    if rx is not None:  # a declared subject decides: "语音识别要多少显存" is about the Whisper section
        return "" if rx.search(query or "") else "other"
    heading, asked = set(heading_named), set(query_named)
    if not heading or heading & asked:
        return ""
    if kinds(heading) & kinds(asked):
        return "other"
    # the question names things of other kinds only (a card, where the heading names an engine): moved after
    # the sections about what it names; a question that names nothing keeps every section where it ranked
    return "unnamed" if asked else ""


def off_subject(query: str, query_named: Iterable[str], heading_named: Iterable[str], rx: Any) -> bool:
    """True when the section's subject is something the question does not bring up: its heading names GPUs,
    models or engines and the question names none of them; where the document declares the section's subject
    (`about:`), that regex decides instead."""
    return subject_check(query, query_named, heading_named, rx) != ""
