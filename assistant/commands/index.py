"""`gpu-advisor index add|list|remove|rebuild` — manage your own documents in the search index."""

from __future__ import annotations

import click

from assistant.commands._common import emit_json, print_table

_URL = click.option(
    "--chroma-url",
    envvar="CHROMA_URL",
    default=None,
    help="Chroma 服务地址（默认用本地文件夹）/ Chroma server URL (default: local folder)",
)


def _sync(chroma_url: str | None, force: bool = False):  # noqa: ANN202 - SyncStats
    from tools.search_guide import get_retriever

    retriever = get_retriever(chroma_url)
    stats = retriever.refresh(force=force)
    for message in retriever.messages:
        click.echo(message, err=True)
    retriever.messages.clear()
    return retriever, stats


@click.group(name="index")
def command() -> None:
    """添加、查看、删除你自己的文档（Markdown、纯文本）/ Add, list or remove your own documents.

    文档会复制到 $GPU_ADVISOR_HOME/user_docs/（默认 ~/.gpu_advisor），重启后仍在。
    Documents are copied into $GPU_ADVISOR_HOME/user_docs/ (default ~/.gpu_advisor) and survive restarts.
    """


@command.command(name="add")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="输出 JSON / machine-readable output")
@_URL
def add(paths: tuple[str, ...], as_json: bool, chroma_url: str | None) -> None:
    """添加文件或文件夹 / Add files or folders (.md .txt .csv …)."""
    from tools.retrieval.user_docs import UserDocs

    added = UserDocs().add(paths)
    retriever, stats = _sync(chroma_url)
    counts = {d.id: sum(1 for p in retriever.passages if p.doc_id == d.id) for d in added}
    if as_json:
        emit_json(
            {
                "added": [{"id": d.id, "name": d.name, "passages": counts[d.id], "chars": d.chars} for d in added],
                "index_added": stats.added,
                "index_removed": stats.removed,
            }
        )
        return
    for d in added:
        click.echo(f"已添加 / added  {d.id}  ({d.name}, {counts[d.id]} 段 / passages)")


@command.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON / machine-readable output")
def list_docs(as_json: bool) -> None:
    """列出已添加的文档 / List your documents."""
    from dataclasses import asdict

    from tools.retrieval.user_docs import UserDocs

    store = UserDocs()
    docs = store.list()
    for message in store.messages:  # e.g. a damaged manifest rebuilt from the stored copies
        click.echo(message, err=True)
    if as_json:
        emit_json({"docs": [asdict(d) for d in docs]})
        return
    if not docs:
        click.echo("还没有添加文档 / No documents yet — gpu-advisor index add PATH…")
        return
    print_table(
        "你的文档 / Your documents",
        ["id", "name", "format", "chars", "added_at"],
        [(d.id, d.name, d.format, d.chars, d.added_at) for d in docs],
    )


@command.command(name="remove")
@click.argument("doc_id")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON / machine-readable output")
@_URL
def remove(doc_id: str, as_json: bool, chroma_url: str | None) -> None:
    """删除文档：添加时的路径（文件夹则删除其下全部）、id、id 前缀或文件名 /
    Remove a document: the path it was added with (a folder removes everything added from it), id, id prefix or file name."""
    from tools.retrieval.user_docs import UserDocs

    docs = UserDocs().remove_path_or_id(doc_id)
    _, stats = _sync(chroma_url)
    if as_json:
        payload = {"removed_ids": [d.id for d in docs], "names": [d.name for d in docs], "index_removed": stats.removed}
        if len(docs) == 1:  # the single-document keys `index remove` always had
            payload = {"removed": docs[0].id, "name": docs[0].name, **payload}
        emit_json(payload)
        return
    for doc in docs:
        click.echo(f"已删除 / removed  {doc.id}  ({doc.name})")


@command.command(name="rebuild")
@click.option("--json", "as_json", is_flag=True, help="输出 JSON / machine-readable output")
@_URL
def rebuild(as_json: bool, chroma_url: str | None) -> None:
    """从指南和你的文档重建索引 / Rebuild the index from the guide and your documents."""
    retriever, stats = _sync(chroma_url, force=True)
    if as_json:
        emit_json(
            {
                "passages": len(retriever.passages),
                "seconds": round(stats.seconds, 3),
                "backend": retriever.store.backend,
            }
        )
        return
    click.echo(
        f"已重建 / rebuilt: {len(retriever.passages)} 段 / passages in {stats.seconds:.2f} s "
        f"({retriever.store.backend})"
    )
