"""The tool-calling loop on langchain_core alone, for the offline planner.

Why: `langchain.agents.create_agent` compiles this same loop as a LangGraph graph, and importing
LangGraph costs about 1 s of a cold `gpu-advisor ask` (it was ~4 s, ~13x `estimate`; issue 16).
The offline planner is still a LangChain chat model (`BaseChatModel`, `bind_tools`, `stream`) and
the tools are the same `StructuredTool`s; only the driver is smaller. It emits LangGraph's stream
shapes — `("updates", {"model" | "tools": {"messages": [...]}})` and
`("messages", (chunk, {"langgraph_node": "model"}))` — so `assistant.advisor` reads both alike.
LLM back-ends keep `create_agent` (ToolNode, recursion errors the fallback logic classifies).
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence


class StepLimitError(RuntimeError):
    """The model kept asking for tools past the step limit (LangGraph's recursion limit, same count)."""


class CoreAgent:
    """model → tool calls → tool messages → model …, until a reply without tool calls."""

    def __init__(self, model: Any, tools: Sequence[Any], system_prompt: str, name: str = "") -> None:
        from langchain_core.messages import SystemMessage

        self.name = name
        self.tools = {t.name: t for t in tools}
        self.bound = model.bind_tools(list(tools))
        self.system = SystemMessage(system_prompt)

    def invoke(self, inputs: dict[str, Any], config: dict[str, Any] | None = None) -> dict[str, Any]:
        messages = self._messages(inputs)
        for _ in self._run(messages, config, ("updates",)):
            pass
        return {"messages": messages}

    def stream(
        self, inputs: dict[str, Any], config: dict[str, Any] | None = None, stream_mode: str | list[str] = "updates"
    ) -> Iterator[Any]:
        single = isinstance(stream_mode, str)
        modes = (stream_mode,) if isinstance(stream_mode, str) else tuple(stream_mode)
        for mode, data in self._run(self._messages(inputs), config, modes):
            if mode in modes:
                yield data if single else (mode, data)

    # ------------------------------------------------------------------------------------
    @staticmethod
    def _messages(inputs: dict[str, Any]) -> list[Any]:
        from langchain_core.messages import convert_to_messages

        return list(convert_to_messages(inputs.get("messages") or []))

    def _run(self, messages: list[Any], config: dict[str, Any] | None, modes: tuple[str, ...]) -> Iterator[Any]:
        from langchain_core.messages import message_chunk_to_message

        limit = int((config or {}).get("recursion_limit", 25))
        steps = 0
        while True:
            steps += 1  # one superstep per model turn and one per tool turn, as LangGraph counts them
            if steps > limit:
                raise StepLimitError(f"more than {limit} steps")
            prompt = [self.system, *messages]
            if "messages" in modes:
                merged: Any = None
                for chunk in self.bound.stream(prompt):
                    yield "messages", (chunk, {"langgraph_node": "model"})
                    merged = chunk if merged is None else merged + chunk
                reply = message_chunk_to_message(merged)
            else:
                reply = self.bound.invoke(prompt)
            if self.name:
                reply.name = self.name
            messages.append(reply)
            yield "updates", {"model": {"messages": [reply]}}
            if not getattr(reply, "tool_calls", None):
                return
            steps += 1
            results = [self._call(call) for call in getattr(reply, "tool_calls", [])]
            messages.extend(results)
            yield "updates", {"tools": {"messages": results}}

    def _call(self, call: dict[str, Any]) -> Any:
        from langchain_core.messages import ToolMessage

        tool = self.tools.get(call["name"])
        if tool is None:
            return ToolMessage(
                f"Error: unknown tool {call['name']!r}", tool_call_id=call["id"], name=call["name"], status="error"
            )
        return tool.invoke({**call, "type": "tool_call"})
