"""`gpu-advisor search "query" [--k 5] [--json] [--chroma-url URL]` — search the guide."""

from __future__ import annotations

import textwrap

import click

from assistant.commands._common import emit_json

_SNIPPET = 360  # characters of passage text shown to people (JSON carries the whole passage)
_CODE_LINES = 14  # a longer code block is shown with its middle elided


def _side(text: str, zh: bool) -> str:
    """'中文 / English' heading → the side in the reader's language."""
    if " / " in text:
        left, _, right = text.partition(" / ")
        return (left if zh else right).strip()
    return text


def _snippet(text: str) -> str:
    """The start of a passage for people: prose re-wrapped, fenced code blocks kept line by line.

    Commands must stay copyable, so a ``` block is never flattened or cut in the middle; it is
    shown whole (up to `_CODE_LINES` lines) when it starts within the first `_SNIPPET` characters.
    """
    from tools.retrieval.corpus import split_paragraphs

    out: list[str] = []
    used = 0
    for block in split_paragraphs(text):
        if used >= _SNIPPET:
            out.append("…")
            break
        if block.lstrip().startswith(("```", "~~~")):
            lines = block.splitlines()
            if len(lines) > _CODE_LINES:
                lines = lines[: _CODE_LINES - 1] + ["…", lines[-1]]
            out.append("\n".join(lines))
            used += sum(len(line) for line in lines)
            continue
        flat = " ".join(block.split())
        room = _SNIPPET - used
        if len(flat) > room:
            flat = flat[:room].rstrip() + "…"
        out.append(textwrap.fill(flat, width=96))
        used += len(flat)
    return "\n".join(out)


@click.command(name="search")
@click.argument("query", nargs=-1, required=True)
@click.option(
    "--k", "k", type=click.IntRange(1, 50), default=5, show_default=True, help="返回几段 / number of passages"
)
@click.option("--json", "as_json", is_flag=True, help="输出 JSON / machine-readable output")
@click.option(
    "--chroma-url",
    envvar="CHROMA_URL",
    default=None,
    help="Chroma 服务地址（默认用本地文件夹）/ Chroma server URL (default: local folder)",
)
def command(query: tuple[str, ...], k: int, as_json: bool, chroma_url: str | None) -> None:
    """检索指南和你添加的文档 / Search the guidance corpus and your own documents.

    例 / e.g.  gpu-advisor search "GPU利用率不到50%咋回事"
    """
    from tools.search_guide import search

    result = search(" ".join(query), k=k, chroma_url=chroma_url)
    for message in result.messages:
        click.echo(message, err=True)
    if as_json:
        emit_json(result)
        return
    zh = result.language == "zh"
    if not result.hits or result.low_relevance:
        click.echo(
            "资料里没有找到相关内容（以下结果相关度低，仅供参考）。"
            if zh
            else "Not in my sources (the results below are only loosely related)."
        )
    for rank, hit in enumerate(result.hits, start=1):
        title = hit.title.zh if zh else hit.title.en
        flag = ("  [相关度低]" if zh else "  [low relevance]") if hit.low_relevance else ""
        click.secho(f"{rank}. {title} — {_side(hit.section, zh)}{flag}", bold=True)
        click.echo(f"   {hit.doc_id} · score {hit.score:.3f} · relevance {hit.relevance:.2f} · {hit.source}")
        click.echo(textwrap.indent(_snippet(hit.text), "   "))
        click.echo("")
