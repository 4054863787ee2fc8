"""A local OpenAI-compatible server for tests and the benchmark (stdlib only, 127.0.0.1, ephemeral port).

Serves `POST /v1/chat/completions` (JSON, or SSE when `"stream": true`) and `GET /v1/models`.
The request's `model` field picks a scripted behaviour, so one server serves every test:

| model                 | behaviour |
| ---                   | --- |
| `tool_then_answer`    | first turn: one tool call (`plan[0]`); after tool results: a final answer built from them |
| `parallel`            | first turn: all calls in `plan` in one message; then the final answer |
| `answer_direct`       | a final answer with no tool call (quotes numbers from the question only) |
| `bad_json`            | a tool call whose `arguments` is not valid JSON |
| `unknown_tool`        | a call to a tool that does not exist |
| `rate_limit_then_ok`  | the first request of each conversation gets 429 (`retry-after-ms`), then as `tool_then_answer` |
| `rate_limited`        | always 429 (`retry-after-ms: 10`) |
| `server_error`        | always 500 |
| `slow`                | sleeps `slow_seconds` before answering (past the client timeout) |
| `endless`             | calls a tool on every turn, forever |
| `invented`            | after tool results, answers with a number no tool gave (987654 GB), also after a repair request |
| `invented_then_fixed` | invents a number once; after the repair request, answers from the tool results |
| `noindex`             | like `tool_then_answer`, but streamed tool-call deltas lack `index` (a broken server) |
| `trickle`             | a 200 reply whose body arrives one byte every `trickle_interval` s, forever (each read within the per-read timeout) |
| `huge`                | a final answer of `huge_chars` characters (default 30 million) |
| `many_tools`          | one turn with `many_count` tool calls (default 40) |

Streaming splits tool calls OpenAI-style: a header delta (index, id, name, `arguments: ""`), then
argument fragments carrying only `index`. Every request is recorded (path, headers, JSON body).
"""

from __future__ import annotations

import itertools
import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

INVENTED = "987654"
REPAIR_MARKERS = ("do not come from any tool result", "不来自任何工具结果")


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None


@dataclass
class StubOpenAI:
    """Start with `with StubOpenAI() as stub:`; point clients at `stub.base_url`."""

    plan: list[tuple[str, dict[str, Any]]] = field(default_factory=lambda: [("gpu_specs", {"names": ["A100"]})])
    slow_seconds: float = 3.0
    trickle_interval: float = 0.2
    huge_chars: int = 30_000_000
    many_count: int = 40
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._seen_429: set[str] = set()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def setup(self) -> None:
                super().setup()
                # headers and body go out in separate writes; without this, Nagle + delayed ACK
                # add ~40 ms per keep-alive request
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_GET(self) -> None:  # noqa: N802
                stub._record(self, None)
                if self.path.rstrip("/") == "/v1/models":
                    names = [
                        "tool_then_answer",
                        "parallel",
                        "answer_direct",
                        "bad_json",
                        "unknown_tool",
                        "rate_limit_then_ok",
                        "rate_limited",
                        "server_error",
                        "slow",
                        "endless",
                        "invented",
                        "invented_then_fixed",
                        "noindex",
                    ]
                    stub._json(
                        self,
                        200,
                        {
                            "object": "list",
                            "data": [{"id": n, "object": "model", "created": 0, "owned_by": "stub"} for n in names],
                        },
                    )
                else:
                    stub._json(self, 404, {"error": {"message": "not found", "type": "invalid_request_error"}})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    body = {}
                stub._record(self, body)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    stub._json(self, 404, {"error": {"message": "not found", "type": "invalid_request_error"}})
                    return
                stub._chat(self, body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # -- lifecycle ------------------------------------------------------------------------
    def __enter__(self) -> "StubOpenAI":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def chat_requests(self, model: str | None = None) -> list[Recorded]:
        with self._lock:
            return [
                r
                for r in self.requests
                if r.path.endswith("/chat/completions") and (model is None or (r.body or {}).get("model") == model)
            ]

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._seen_429.clear()

    # -- plumbing -------------------------------------------------------------------------
    def _record(self, handler: BaseHTTPRequestHandler, body: dict[str, Any] | None) -> None:
        with self._lock:
            self.requests.append(Recorded(handler.command, handler.path, dict(handler.headers.items()), body))

    @staticmethod
    def _json(
        handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        try:
            handler.send_response(status)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                handler.send_header(k, v)
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    # -- behaviours -----------------------------------------------------------------------
    def _chat(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        model = str(body.get("model", "tool_then_answer"))
        messages = body.get("messages") or []
        after_tools = bool(messages) and messages[-1].get("role") == "tool"
        repair = _last_user_text(messages).startswith(REPAIR_MARKERS) or any(
            m in _last_user_text(messages) for m in REPAIR_MARKERS
        )
        conversation = _first_user_text(messages)

        if model == "server_error":
            self._json(handler, 500, {"error": {"message": "internal error", "type": "server_error"}})
            return
        if model == "rate_limited":
            self._json(
                handler,
                429,
                {"error": {"message": "Rate limit reached", "type": "rate_limit"}},
                headers={"retry-after-ms": "10"},
            )
            return
        if model == "rate_limit_then_ok":
            with self._lock:
                first = conversation not in self._seen_429
                self._seen_429.add(conversation)
            if first:
                self._json(
                    handler,
                    429,
                    {"error": {"message": "Rate limit reached", "type": "rate_limit"}},
                    headers={"retry-after-ms": "10"},
                )
                return
            model = "tool_then_answer"
        if model == "slow":
            time.sleep(self.slow_seconds)
            model = "tool_then_answer"

        if model == "trickle":
            self._trickle(handler)
            return
        tool_text = _tool_texts(messages)
        if model == "huge":
            reply = {"content": "A100 " * (self.huge_chars // 5)}
        elif model == "many_tools" and not after_tools:
            reply = {"tool_calls": [self._call(*self.plan[0]) for _ in range(self.many_count)]}
        elif model == "endless":
            reply = {"tool_calls": [self._call(*self.plan[0])]}
        elif model == "bad_json" and not after_tools:
            # not JSON at all: even LangChain's partial-JSON repair of streamed chunks cannot parse it
            reply = {"tool_calls": [{"id": self._id(), "name": self.plan[0][0], "arguments": "names=A100, please"}]}
        elif model == "unknown_tool":
            reply = {"tool_calls": [self._call("launch_rockets", {"count": 3})]}
        elif model == "answer_direct":
            reply = {"content": "Answer: " + ", ".join(re.findall(r"\d+", conversation)[:3] or ["none"])}
        elif model in ("invented", "invented_then_fixed") and (after_tools or repair):
            if model == "invented_then_fixed" and repair:
                reply = {"content": _answer_from(tool_text)}
            else:
                reply = {"content": f"You need {INVENTED} GB. " + _answer_from(tool_text)}
        elif after_tools:
            reply = {"content": _answer_from(tool_text)}
        elif model == "parallel":
            reply = {"tool_calls": [self._call(n, a) for n, a in self.plan]}
        else:  # tool_then_answer, noindex, invented (first turn)
            reply = {"tool_calls": [self._call(*self.plan[0])]}

        if body.get("stream"):
            self._sse(handler, model, reply, noindex=(model == "noindex"))
        else:
            self._json(handler, 200, _completion(model, reply))

    def _trickle(self, handler: BaseHTTPRequestHandler) -> None:
        try:
            handler.send_response(200)
            handler.send_header("content-type", "application/json")
            handler.end_headers()
            handler.wfile.write(b"{")
            handler.wfile.flush()
            for _ in range(100_000):
                time.sleep(self.trickle_interval)
                handler.wfile.write(b" ")
                handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass

    def _id(self) -> str:
        return f"call_stub_{next(self._ids)}"

    def _call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"id": self._id(), "name": name, "arguments": json.dumps(args, ensure_ascii=False)}

    def _sse(self, handler: BaseHTTPRequestHandler, model: str, reply: dict[str, Any], *, noindex: bool) -> None:
        cid = f"chatcmpl-stub-{next(self._ids)}"
        chunks: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
        if "tool_calls" in reply:
            for i, call in enumerate(reply["tool_calls"]):
                head = {"id": call["id"], "type": "function", "function": {"name": call["name"], "arguments": ""}}
                if not noindex:
                    head["index"] = i
                chunks.append({"tool_calls": [head]})
                args = call["arguments"]
                for j in range(0, len(args), 7):  # split arguments across deltas
                    frag: dict[str, Any] = {"function": {"arguments": args[j : j + 7]}}
                    if not noindex:
                        frag["index"] = i
                    chunks.append({"tool_calls": [frag]})
            finish = "tool_calls"
        else:
            text = reply["content"]
            chunks += [{"content": text[j : j + 5]} for j in range(0, len(text), 5)]
            finish = "stop"
        try:
            handler.send_response(200)
            handler.send_header("content-type", "text/event-stream")
            handler.send_header("cache-control", "no-cache")
            handler.send_header("connection", "close")
            handler.end_headers()
            for delta in chunks:
                event = {
                    "id": cid,
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                }
                handler.wfile.write(f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode())
            end = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
            }
            handler.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
            handler.wfile.flush()
            handler.close_connection = True
        except (BrokenPipeError, ConnectionResetError):
            pass


def _completion(model: str, reply: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    finish = "stop"
    if "tool_calls" in reply:
        message["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in reply["tool_calls"]
        ]
        finish = "tool_calls"
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return content or ""


def _first_user_text(messages: list[dict[str, Any]]) -> str:
    return next((_text(m.get("content")) for m in messages if m.get("role") == "user"), "")


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    return next((_text(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), "")


def _tool_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [_text(m.get("content")) for m in messages if m.get("role") == "tool"]


def _answer_from(tool_texts: list[str]) -> str:
    """A final answer that quotes numbers exactly as the tools gave them (so it is grounded)."""
    numbers: list[str] = []
    for text in tool_texts:
        for value in _numbers(_safe_json(text)):
            if value not in numbers:
                numbers.append(value)
    shown = ", ".join(numbers[:4]) if numbers else "no figures"
    return f"From the tools: {shown}."


def _safe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text


def _numbers(obj: Any) -> list[str]:
    if isinstance(obj, bool):
        return []
    if isinstance(obj, (int, float)):
        return [repr(obj)] if obj not in (0, 1) else []
    if isinstance(obj, dict):
        return [n for v in obj.values() for n in _numbers(v)]
    if isinstance(obj, list):
        return [n for v in obj for n in _numbers(v)]
    return []


if __name__ == "__main__":  # manual use: python tests/stub_openai_server.py
    with StubOpenAI() as s:
        print(s.base_url, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
