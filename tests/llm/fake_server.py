"""A fake OpenAI- and Anthropic-compatible HTTP server for LLM tests.

Runs on 127.0.0.1 in a background thread (one thread per request, so concurrency is
real). Serves ``POST /v1/chat/completions`` (JSON and SSE streaming),
``POST /v1/embeddings`` and ``POST /v1/messages`` (Anthropic, JSON and SSE). What it
replies comes from a scripted queue (:meth:`FakeLLMServer.push`) and, when the queue is
empty, from a ``responder`` callable. Knobs per reply: HTTP status and headers (429 with
``Retry-After``), a delay (for timeouts), empty content, any malformed text. It records
every request and the largest number of requests in flight at once.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """What the server answers to one request."""

    content: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    error: str = "scripted error"
    chunks: list[str] | None = None
    finish: str = "stop"


@dataclass
class Call:
    """One request the server received."""

    path: str
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def system(self) -> str:
        if "system" in self.body:
            return str(self.body["system"])
        return "\n".join(m["content"] for m in self.messages if m["role"] == "system")

    @property
    def last_user(self) -> str:
        users = [m["content"] for m in self.messages if m["role"] == "user"]
        return str(users[-1]) if users else ""

    @property
    def prompt_text(self) -> str:
        return self.system + "\n" + "\n".join(str(m["content"]) for m in self.messages)

    @property
    def prompt_hash(self) -> str:
        return hashlib.sha256(self.prompt_text.encode("utf-8")).hexdigest()


Responder = Callable[[Call], Reply]


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def embedding_of(text: str, dim: int) -> list[float]:
    """A deterministic pseudo-embedding of ``text``."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [((digest[i % len(digest)] / 255.0) - 0.5) for i in range(dim)]


class FakeLLMServer:
    """See the module docstring. Use as a context manager or call start()/stop()."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        embedding_dim: int = 8,
        reject_json_schema: bool = False,
        reject_formats: tuple[str, ...] = (),
        reject_status: int = 400,
    ) -> None:
        self.responder = responder
        self.embedding_dim = embedding_dim
        self.reject_formats = set(reject_formats) | (
            {"json_schema"} if reject_json_schema else set()
        )
        self.reject_status = reject_status
        self.script: deque[Reply] = deque()
        self.calls: list[Call] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    # -------------------------------------------------------------- control
    @property
    def root(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def url(self) -> str:
        """The OpenAI-compatible base URL (``.../v1``)."""
        return self.root + "/v1"

    def push(self, *replies: Reply | str) -> None:
        """Queue replies, answered in order before the responder is used."""
        for reply in replies:
            self.script.append(Reply(reply) if isinstance(reply, str) else reply)

    def chat_calls(self) -> list[Call]:
        return [c for c in self.calls if c.path in ("/v1/chat/completions", "/v1/messages")]

    def reset_counts(self) -> None:
        with self._lock:
            self.calls.clear()
            self.max_in_flight = 0

    def start(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -------------------------------------------------------------- replies
    def _next_reply(self, call: Call) -> Reply:
        with self._lock:
            if self.script:
                return self.script.popleft()
        if self.responder is not None:
            return self.responder(call)
        return Reply("{}")

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                call = Call(self.path, body)
                with server._lock:
                    server.calls.append(call)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    server._serve(self, call)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    with server._lock:
                        server.in_flight -= 1

        return Handler

    def _serve(self, handler: BaseHTTPRequestHandler, call: Call) -> None:
        if call.path == "/v1/embeddings":
            inputs = call.body.get("input", [])
            inputs = [inputs] if isinstance(inputs, str) else inputs
            data = [
                {
                    "object": "embedding",
                    "index": i,
                    "embedding": embedding_of(t, self.embedding_dim),
                }
                for i, t in enumerate(inputs)
            ]
            tokens = sum(_tokens(t) for t in inputs)
            self._json(
                handler,
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": call.body.get("model", ""),
                    "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
                },
            )
            return
        fmt = call.body.get("response_format") or {}
        if fmt.get("type") in self.reject_formats:
            self._json(handler, self.reject_status, self._rejection(str(fmt.get("type"))))
            return
        reply = self._next_reply(call)
        if reply.delay and self._stop.wait(reply.delay):
            return
        if reply.status != 200:
            self._json(
                handler,
                reply.status,
                {"error": {"message": reply.error, "type": "error"}, "type": "error"},
                reply.headers,
            )
            return
        if call.path == "/v1/messages":
            self._anthropic(handler, call, reply)
        elif call.body.get("stream"):
            self._openai_stream(handler, call, reply)
        else:
            self._json(
                handler,
                200,
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": call.body.get("model", ""),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply.content},
                            "finish_reason": reply.finish,
                        }
                    ],
                    "usage": self._usage(call, reply),
                },
                reply.headers,
            )

    def _rejection(self, kind: str) -> dict[str, Any]:
        """The error body for a refused response format. With status 500 it is the one
        llama-cpp-python's server 0.3.16 sent (recorded here): its request validation error,
        wrapped as an internal server error, naming ``response_format`` in its location."""
        if self.reject_status == 500:
            message = (
                "1 validation error:\n  {'type': 'literal_error', "
                "'loc': ('body', 'response_format', 'type'), "
                "'msg': \"Input should be 'text' or 'json_object'\", "
                f"'input': '{kind}', 'ctx': {{'expected': \"'text' or 'json_object'\"}}}}\n\n"
                '  File "llama_cpp/server/app.py", line 376, in create_chat_completion\n'
                "    POST /v1/chat/completions"
            )
            return {
                "error": {
                    "message": message,
                    "type": "internal_server_error",
                    "param": None,
                    "code": None,
                }
            }
        return {
            "error": {
                "message": f"response_format {kind} is not supported by this server",
                "type": "invalid_request_error",
            }
        }

    def _usage(self, call: Call, reply: Reply) -> dict[str, int]:
        p, c = _tokens(call.prompt_text), _tokens(reply.content) if reply.content else 0
        return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}

    @staticmethod
    def _json(
        handler: BaseHTTPRequestHandler,
        status: int,
        payload: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> None:
        raw = json.dumps(payload).encode("utf-8")
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(raw)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(raw)

    @staticmethod
    def _pieces(reply: Reply) -> list[str]:
        if reply.chunks is not None:
            return reply.chunks
        words = reply.content.split(" ")
        return [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words) if w or i]

    def _sse_start(self, handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()

    @staticmethod
    def _event(handler: BaseHTTPRequestHandler, data: Any, event: str | None = None) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        head = f"event: {event}\n" if event else ""
        handler.wfile.write(f"{head}data: {text}\n\n".encode())
        handler.wfile.flush()

    def _openai_stream(self, handler: BaseHTTPRequestHandler, call: Call, reply: Reply) -> None:
        self._sse_start(handler)
        base = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": call.body.get("model", ""),
        }
        for piece in self._pieces(reply):
            self._event(
                handler,
                {
                    **base,
                    "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
                },
            )
        self._event(
            handler,
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": reply.finish}]},
        )
        if (call.body.get("stream_options") or {}).get("include_usage"):
            self._event(handler, {**base, "choices": [], "usage": self._usage(call, reply)})
        self._event(handler, "[DONE]")

    def _anthropic(self, handler: BaseHTTPRequestHandler, call: Call, reply: Reply) -> None:
        usage = self._usage(call, reply)
        tools = call.body.get("tools") or []
        if not call.body.get("stream"):
            if tools:
                content: list[dict[str, Any]] = [
                    {
                        "type": "tool_use",
                        "id": "toolu_fake",
                        "name": tools[0]["name"],
                        "input": json.loads(reply.content or "{}"),
                    }
                ]
                stop = "tool_use"
            else:
                content = [{"type": "text", "text": reply.content}]
                stop = "end_turn"
            self._json(
                handler,
                200,
                {
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "model": call.body.get("model", ""),
                    "content": content,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": usage["prompt_tokens"],
                        "output_tokens": usage["completion_tokens"],
                    },
                },
                reply.headers,
            )
            return
        self._sse_start(handler)
        message = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": call.body.get("model", ""),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": usage["prompt_tokens"], "output_tokens": 0},
        }
        self._event(handler, {"type": "message_start", "message": message}, "message_start")
        self._event(
            handler,
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            "content_block_start",
        )
        for piece in self._pieces(reply):
            self._event(
                handler,
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": piece},
                },
                "content_block_delta",
            )
        self._event(handler, {"type": "content_block_stop", "index": 0}, "content_block_stop")
        self._event(
            handler,
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": usage["completion_tokens"]},
            },
            "message_delta",
        )
        self._event(handler, {"type": "message_stop"}, "message_stop")
