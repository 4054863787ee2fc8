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


def _citation_text(citation: dict[str, Any], tool_calls: list[dict[str, Any]]) -> str:
    """Find the cited passage's text among the search results the answer used."""
    for call in tool_calls:
        for hit in (call.get("result") or {}).get("hits", []) or []:
            if hit.get("doc_id") == citation.get("doc_id") and (
                not citation.get("section") or hit.get("section") == citation.get("section")
            ):
                return str(hit.get("text", ""))
    return ""


def _title_text(title: Any, lang: str) -> str:
    if isinstance(title, dict):
        return str(title.get(lang) or title.get("en") or title.get("zh") or "")
    return str(title or "")


def chat_events_to_messages(events: Iterator[dict[str, Any]], lang_hint: str) -> Iterator[list[dict[str, Any]]]:
    """Yield the growing list of assistant messages for one reply."""
    steps: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    answer = {"role": "assistant", "content": ""}
    tail: list[dict[str, Any]] = []
    lang = lang_hint if lang_hint in ("zh", "en") else "zh"
    for event in events:
        kind = event.get("type")
        if kind == "tool_call":
            step = {
                "role": "assistant",
                "content": tool_step_markdown(event.get("args") or {}, None, lang),
                "metadata": {
                    "title": f"工具 Tool · {event.get('name')}",
                    "id": str(event.get("id")),
                    "status": "pending",
                },
            }
            steps.append(step)
            by_id[str(event.get("id"))] = step
            step["_args"] = event.get("args") or {}
        elif kind == "tool_result":
            step = by_id.get(str(event.get("id")))
            if step is not None:
                step["content"] = tool_step_markdown(step.get("_args", {}), event.get("result") or {}, lang)
                step["metadata"]["status"] = "done"
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
            for cit in data.get("citations") or []:
                text = _citation_text(cit, data.get("tool_calls") or [])
                title = f"来源 Source · {cit.get('doc_id')} § {_title_text(cit.get('section'), lang)}"
                tail.append(
                    {
                        "role": "assistant",
                        "content": text or _title_text(cit.get("title"), lang),
                        "metadata": {"title": title, "status": "done"},
                    }
                )
        yield [_public(m) for m in steps] + ([answer] if answer["content"] else []) + tail
    yield [_public(m) for m in steps] + [answer] + tail


def _public(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if not k.startswith("_")}
