"""Load the guidance corpus and user documents and cut them into passages.

Guide documents (`knowledge/guide/<id>.md`) carry YAML front matter (`id`, `title: {zh, en}`,
`sources`, `as_of`, `tags`) and are split at `## ` headings; each section holds a Chinese
paragraph first and the English one after it. The whole section is indexed (so either
language finds it), and the Chinese and English paragraphs are also kept apart so a hit can
show the reader the paragraph in the language they asked in.

User documents (Markdown or plain text) are split at headings, then packed by paragraph into
passages of at most `MAX_CHARS` characters.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Iterable

import yaml

from tools.errors import ToolInputError

MAX_CHARS = 900  # user-document passage size: one screen, a few paragraphs
CHUNKER_VERSION = "1"  # bump when splitting rules change, so stores rebuild

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_REFERENCE = re.compile(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`")  # a backticked document id


@dataclass(frozen=True)
class Passage:
    """One searchable unit: a `## ` section of a guide document or a chunk of a user document."""

    doc_id: str
    index: int
    title_zh: str
    title_en: str
    section: str
    text: str  # the whole section body (both languages)
    text_zh: str
    text_en: str
    source: str  # where it came from: "knowledge/guide/<id>.md" or "user_docs/<file>"
    kind: str = "guide"  # "guide" | "user"
    citations: tuple[str, ...] = ()
    as_of: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def content_hash(self) -> str:
        return hashlib.blake2b(self.index_text().encode("utf-8"), digest_size=6).hexdigest()

    @property
    def passage_id(self) -> str:
        """Stable while the text is unchanged; a changed section gets a new id."""
        return f"{self.doc_id}#{self.index}-{self.content_hash}"

    def references(self) -> list[str]:
        """Document ids this passage points to ("see `cluster-networking`"), in order, once each."""
        return list(dict.fromkeys(_REFERENCE.findall(self.text)))

    def header_text(self) -> str:
        """Title, section heading and tags: the words that say what the passage is about."""
        titles = self.title_zh if self.title_zh == self.title_en else f"{self.title_zh} {self.title_en}"
        return " ".join(p for p in (titles, self.section, " ".join(self.tags)) if p)

    def index_text(self) -> str:
        """What gets embedded and tokenised: the header plus the whole section body."""
        return f"{self.header_text()}\n{self.text}"


# ---------------------------------------------------------------- language split


def is_chinese_paragraph(paragraph: str) -> bool:
    """True when the paragraph is mainly Chinese (an English paragraph may quote 掉卡)."""
    cjk = len(_CJK.findall(paragraph))
    latin = len(_LATIN.findall(paragraph))
    if cjk == 0:
        return False
    # a Latin word of ~5 letters carries about as much as 1–2 ideographs
    return cjk / (cjk + latin / 4.0) > 0.4


def split_paragraphs(body: str) -> list[str]:
    """Blank-line separated blocks; a fenced code block is always one block of its own, line
    breaks kept (commands must stay copyable), even without blank lines around it."""
    blocks: list[str] = []
    current: list[str] = []
    in_fence = False
    for line in body.splitlines():
        if _FENCE.match(line):
            if not in_fence and current:  # "运行：" directly above a fence: the code is its own block
                blocks.append("\n".join(current).strip())
                current = []
            in_fence = not in_fence
            current.append(line)
            if not in_fence:  # closing fence: text right below it starts a new block
                blocks.append("\n".join(current).strip())
                current = []
            continue
        if not in_fence and not line.strip():
            if current:
                blocks.append("\n".join(current).strip())
                current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current).strip())
    return [b for b in blocks if b]


def split_languages(body: str) -> tuple[str, str]:
    """(Chinese part, English part). Code blocks and tables belong to both."""
    zh: list[str] = []
    en: list[str] = []
    for block in split_paragraphs(body):
        if _FENCE.match(block) or block.lstrip().startswith("|"):
            zh.append(block)
            en.append(block)
        elif is_chinese_paragraph(block):
            zh.append(block)
        else:
            en.append(block)
    return "\n\n".join(zh), "\n\n".join(en)


# ---------------------------------------------------------------- Markdown structure


def split_front_matter(text: str) -> tuple[dict, str]:
    """YAML front matter between leading `---` lines, and the rest."""
    text = text.lstrip("\ufeff")
    if not text.startswith("---"):
        return {}, text
    match = re.match(r"^---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", text, re.S)
    if not match:
        return {}, text
    # libyaml's safe loader when present (as tools/data.py): same result, ~10x faster on a cold start
    meta = yaml.load(match.group(1), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}  # noqa: S506 - a safe loader
    if not isinstance(meta, dict):
        return {}, text
    return meta, text[match.end() :]


def split_sections(body: str, max_level: int) -> list[tuple[int, str, str]]:
    """[(level, heading, body)] cut at headings of level ≤ `max_level` (outside code fences).

    Text before the first such heading gets level 0 and the heading of the `# ` title if any.
    """
    sections: list[tuple[int, str, str]] = []
    level, heading = 0, ""
    lines: list[str] = []
    in_fence = False
    for line in body.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match and len(match.group(1)) <= max_level:
            if level == 0 and not heading and len(match.group(1)) == 1 and not "".join(lines).strip():
                heading = match.group(2)  # the `# title` line: heading of the intro
                continue
            sections.append((level, heading, "\n".join(lines).strip()))
            level, heading, lines = len(match.group(1)), match.group(2), []
            continue
        lines.append(line)
    sections.append((level, heading, "\n".join(lines).strip()))
    return [s for s in sections if s[2]]


# ---------------------------------------------------------------- guide documents


def _as_title(value: object, fallback: str) -> tuple[str, str]:
    if isinstance(value, dict):
        zh = str(value.get("zh") or value.get("en") or fallback)
        en = str(value.get("en") or value.get("zh") or fallback)
        return zh, en
    if value:
        return str(value), str(value)
    return fallback, fallback


def parse_guide(text: str, source: str, fallback_id: str) -> list[Passage]:
    """Passages of one guide document (one per `## ` section, plus a non-empty intro)."""
    meta, body = split_front_matter(text)
    doc_id = str(meta.get("id") or fallback_id)
    title_zh, title_en = _as_title(meta.get("title"), doc_id)
    sources = meta.get("sources") or []
    citations = tuple(str(s) for s in (sources if isinstance(sources, list) else [sources]))
    tags = meta.get("tags") or []
    tags_t = tuple(str(t) for t in (tags if isinstance(tags, list) else [tags]))
    as_of = str(meta.get("as_of") or "")
    passages = []
    for index, (level, heading, section_body) in enumerate(split_sections(body, max_level=2)):
        section = heading if level else (heading or f"{title_zh} / {title_en}")
        zh, en = split_languages(section_body)
        passages.append(
            Passage(
                doc_id=doc_id,
                index=index,
                title_zh=title_zh,
                title_en=title_en,
                section=section,
                text=section_body,
                text_zh=zh,
                text_en=en,
                source=source,
                kind="guide",
                citations=citations,
                as_of=as_of,
                tags=tags_t,
            )
        )
    return passages


def load_guide(guide_dir: Path) -> list[Passage]:
    """Every passage of every `*.md` in the guide folder, in file-name order."""
    passages: list[Passage] = []
    seen: set[str] = set()
    if not guide_dir.is_dir():
        return passages
    files = [p for p in sorted(guide_dir.glob("*.md")) if p.name.lower() not in {"readme.md", "index.md"}]
    key = _guide_key(guide_dir, files)
    cached = _read_guide_copy(key)
    if cached is not None:
        return cached
    for path in files:
        text = path.read_text(encoding="utf-8")
        doc = parse_guide(text, f"knowledge/guide/{path.name}", path.stem)
        if doc and doc[0].doc_id in seen:  # two files claim one id: the later one goes by its file name
            doc = [replace(p, doc_id=path.stem) for p in doc]
        seen.update(p.doc_id for p in doc)
        passages.extend(doc)
    _write_guide_copy(key, passages)
    return passages


# The parsed guide, kept in the state folder: parsing ~30 documents (front matter, sections, the
# language split) is ~20 ms of every cold `gpu-advisor ask` (issue 16). The copy is trusted only for
# the same folder, file names, sizes and mtimes, chunker and Python marshal format; anything else
# parses again. Plain data only (str, int, tuples), read with `marshal`.
def _guide_key(guide_dir: Path, files: list[Path]) -> str:
    parts = [CHUNKER_VERSION, str(guide_dir.resolve()), f"m{marshal.version}"]
    for path in files:
        st = path.stat()
        parts.append(f"{path.name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.blake2b("\n".join(parts).encode("utf-8"), digest_size=12).hexdigest()


def _guide_copy_path() -> Path | None:
    from tools.retrieval.paths import home_path

    home = home_path()
    return home / "cache" / "guide_passages.marshal" if home.is_dir() else None


def _read_guide_copy(key: str) -> list[Passage] | None:
    path = _guide_copy_path()
    if path is None:
        return None
    try:
        # our own plain-data file in the user's state folder, never code that runs
        stored_key, rows = marshal.loads(path.read_bytes())  # noqa: S302
        if stored_key != key:
            return None
        return [Passage(*row) for row in rows]
    except (OSError, EOFError, ValueError, TypeError):
        return None


def _write_guide_copy(key: str, passages: list[Passage]) -> None:
    path = _guide_copy_path()
    if path is None:
        return
    names = [f.name for f in fields(Passage)]
    try:
        blob = marshal.dumps((key, [tuple(getattr(p, n) for n in names) for p in passages]))
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(blob)
        tmp.replace(path)
    except (OSError, ValueError):  # a read-only home only costs speed
        return


# ---------------------------------------------------------------- user documents


def _pack(blocks: Iterable[str], limit: int = MAX_CHARS) -> list[str]:
    """Greedy packing of paragraphs into chunks ≤ limit; a huge paragraph is cut at sentences."""
    chunks: list[str] = []
    current = ""
    for block in blocks:
        pieces = [block]
        if len(block) > limit:  # lines first (a CSV price sheet), then sentences, then hard cuts
            pieces = [line for line in block.splitlines() if line.strip()]
            pieces = [
                s
                for p in pieces
                for s in (re.split(r"(?<=[。！？!?；;])\s*|(?<=\.)\s+", p) if len(p) > limit else [p])
                if s.strip()
            ]
            pieces = [p[i : i + limit] for p in pieces for i in range(0, len(p), limit)]
        for piece in pieces:
            if current and len(current) + len(piece) + 2 > limit:
                chunks.append(current)
                current = ""
            current = f"{current}\n\n{piece}" if current else piece
    if current:
        chunks.append(current)
    return chunks


def parse_user_document(text: str, doc_id: str, name: str, source: str, markdown: bool) -> list[Passage]:
    """Passages of a user's Markdown or plain-text file."""
    if markdown:
        meta, body = split_front_matter(text)
        sections = split_sections(body, max_level=6)
        top = re.search(r"^#\s+(.+?)\s*#*\s*$", body, re.M)
        first_heading = top.group(1) if top else next((h for _, h, _ in sections if h), "")
        title_zh, title_en = _as_title(meta.get("title"), first_heading or name)
    else:
        sections = [(0, "", text.strip())]
        title_zh = title_en = name
    # a table (CSV/TSV price sheet): repeat the header row in every chunk so each one reads alone
    header = ""
    if name.lower().endswith((".csv", ".tsv")):
        header = next((line for line in text.splitlines() if line.strip()), "")[:200]
    passages: list[Passage] = []
    for _level, heading, body in sections:
        limit = MAX_CHARS - (len(header) + 1 if header else 0)
        for n, chunk in enumerate(_pack(split_paragraphs(body), limit)):
            if header and not (n == 0 and chunk.startswith(header)):
                chunk = f"{header}\n{chunk}"
            zh, en = split_languages(chunk)
            passages.append(
                Passage(
                    doc_id=doc_id,
                    index=len(passages),
                    title_zh=title_zh,
                    title_en=title_en,
                    section=heading or name,
                    text=chunk,
                    text_zh=zh,
                    text_en=en,
                    source=source,
                    kind="user",
                    citations=(name,),
                )
            )
    if not passages:
        raise ToolInputError(f"文档 {name} 没有可检索的文字", f"Document {name} has no searchable text", field="path")
    return passages


def corpus_hash(passages: Iterable[Passage], extra: str = "") -> str:
    """Content hash of everything indexed (changes iff some passage or the chunker changed)."""
    h = hashlib.sha256(f"{CHUNKER_VERSION}|{extra}".encode())
    for p in passages:
        h.update(p.passage_id.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()
