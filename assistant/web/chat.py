"""Chat streaming for the page: turns `assistant.advisor.stream` events into Gradio messages.

Tool calls become collapsible steps (a message whose metadata has a `title`), citations
become collapsible passages, and the answer streams token by token.
"""

from __future__ import annotations

from typing import Any, Iterator

from assistant.web.render import tool_step_markdown

LANG_CHOICES = {"自动 / Auto": "auto", "中文": "zh", "English": "en"}

# A pasted multi-line log is shown in a code block so its columns survive Markdown rendering;
# the fence is removed again before the text goes back to the advisor as history.
_FENCE_OPEN, _FENCE_CLOSE = "```text\n", "\n```"


def display_user_text(text: str) -> str:
    lines = text.splitlines()
    if len(lines) < 3 or "```" in text:
        return text
    return f"{_FENCE_OPEN}{text}{_FENCE_CLOSE}"


def _unfence(text: str) -> str:
    if text.startswith(_FENCE_OPEN) and text.endswith(_FENCE_CLOSE):
        return text[len(_FENCE_OPEN) : -len(_FENCE_CLOSE)]
    return text


def flatten_history(history: list[Any] | None) -> list[dict[str, str]]:
    """Gradio 6 history (content blocks, tool steps) → plain user/assistant turns."""
    turns: list[dict[str, str]] = []
    for msg in history or []:
        if not isinstance(msg, dict):
            msg = {
                "role": getattr(msg, "role", ""),
                "content": getattr(msg, "content", ""),
                "metadata": getattr(msg, "metadata", None),
            }
        if (msg.get("metadata") or {}).get("title"):
            continue
        content = msg.get("content")
        if isinstance(content, list):
            content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
        elif isinstance(content, dict):
            content = content.get("text", "")
        if msg.get("role") in ("user", "assistant") and content:
            turns.append({"role": msg["role"], "content": _unfence(str(content))})
    return turns


def _title_text(title: Any, lang: str) -> str:
    if isinstance(title, dict):
        return str(title.get(lang) or title.get("en") or title.get("zh") or "")
    return str(title or "")


TOOLS_GROUP_ID = "tool-steps"


def tools_group_title(steps: list[dict[str, Any]], lang: str) -> str:
    """One line for all of a reply's tool steps: 工具 Tools · 3 步 steps: estimate_memory, search_guide."""
    names = list(dict.fromkeys(str(s.get("_name", "")) for s in steps))
    shown = ", ".join(names[:4]) + (" …" if len(names) > 4 else "")
    count = f"{len(steps)} 步" if lang == "zh" else f"{len(steps)} step{'s' if len(steps) != 1 else ''}"
    return f"工具 Tools · {count}: {shown}"


def sources_line(citations: list[dict[str, Any]], lang: str) -> str:
    """The sources once, titles only, for an answer that did not list them itself."""
    titles = list(dict.fromkeys(_title_text(c.get("title"), lang) or str(c.get("doc_id", "")) for c in citations))
    titles = [t for t in titles if t]
    if not titles:
        return ""
    return ("来源：" + "；".join(titles)) if lang == "zh" else ("Sources: " + "; ".join(titles))


def chat_events_to_messages(events: Iterator[dict[str, Any]], lang_hint: str) -> Iterator[list[dict[str, Any]]]:
    """Yield the growing list of assistant messages for one reply: one collapsed line holding the
    tool steps, then the answer (its details block folded by the browser), then any notices."""
    from assistant.answer_shape import for_page, has_sources

    steps: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    answer = {"role": "assistant", "content": ""}
    tail: list[dict[str, Any]] = []
    lang = lang_hint if lang_hint in ("zh", "en") else "zh"
    extra = ""

    def messages() -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if steps:
            pending = any(s["metadata"]["status"] == "pending" for s in steps)
            out.append(
                {
                    "role": "assistant",
                    "content": "",
                    "metadata": {
                        "title": tools_group_title(steps, lang),
                        "id": TOOLS_GROUP_ID,
                        "status": "pending" if pending else "done",
                    },
                }
            )
            out += [_public(m) for m in steps]
        text = answer["content"]
        if text:
            out.append({"role": "assistant", "content": for_page(text) + extra})
        return out + tail

    for event in events:
        kind = event.get("type")
        if kind == "tool_call":
            step: dict[str, Any] = {
                "role": "assistant",
                "content": tool_step_markdown(event.get("args") or {}, None, lang),
                "metadata": {
                    "title": f"{event.get('name')}",
                    "id": str(event.get("id")),
                    "parent_id": TOOLS_GROUP_ID,
                    "status": "pending",
                },
                "_name": event.get("name"),
                "_args": event.get("args") or {},
            }
            steps.append(step)
            by_id[str(event.get("id"))] = step
        elif kind == "tool_result":
            done = by_id.get(str(event.get("id")))
            if done is not None:
                done["content"] = tool_step_markdown(done.get("_args", {}), event.get("result") or {}, lang)
                done["metadata"]["status"] = "done"
        elif kind == "token":
            answer["content"] += str(event.get("text", ""))
        elif kind == "notice":
            tail.append(
                {
                    "role": "assistant",
                    "content": str(event.get("text", "")),
                    "metadata": {"title": "提示 Notice", "status": "done"},
                }
            )
        elif kind == "final":
            result = event["result"]
            data = result.model_dump(mode="json") if hasattr(result, "model_dump") else dict(result)
            lang = data.get("language", lang)
            if not answer["content"]:
                answer["content"] = data.get("answer", "")
            if not has_sources(answer["content"]):
                line = sources_line(data.get("citations") or [], lang)
                extra = f"\n\n{line}" if line else ""
            for s in steps:
                s["metadata"]["status"] = "done"
        yield messages()
    yield messages()


def _public(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if not k.startswith("_")}
