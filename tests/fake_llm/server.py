"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 (house style §9).

Tests queue replies with :meth:`FakeLLMServer.script`; each ``POST
/v1/chat/completions`` takes the next one. Everything the server sees is
recorded in :attr:`FakeLLMServer.requests`; every broken invariant (an
unscripted call, a request to another path, a body that is not a chat request,
a tool call answered twice or never, a stream scripted for a non-streaming
call) lands in :attr:`FakeLLMServer.errors`, and :meth:`assert_all_used` fails
on any error and on scripted replies left over.

Example::

    with FakeLLMServer(expected_key="sk-test") as server:
        server.script(Reply.text("你好"), Reply.status(429, "slow down"))
        ...  # point the client at server.url
        server.assert_all_used()
"""

from __future__ import annotations

import json
import math
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHAT_PATH = "/v1/chat/completions"
_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                404: "not_found_error", 429: "rate_limit_error"}


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Build it with the class methods, not the constructor."""

    kind: str
    content: str = ""
    chunks: tuple[str, ...] = ()
    calls: tuple[dict, ...] = ()
    status_code: int = 200
    seconds: float = 0.0
    then: Reply | None = None
    content_type: str = "application/json"
    error_type: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    @classmethod
    def text(cls, text: str, *, prompt_tokens: int | None = None,
             completion_tokens: int | None = None) -> Reply:
        """A 200 completion whose message content is ``text`` (an SSE stream if the request streams)."""
        return cls("text", content=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)

    @classmethod
    def stream(cls, chunks: list[str], *, prompt_tokens: int | None = None,
               completion_tokens: int | None = None) -> Reply:
        """An SSE stream of ``chunks`` then ``data: [DONE]``; the request must ask for ``stream``."""
        return cls("stream", chunks=tuple(chunks), prompt_tokens=prompt_tokens,
                   completion_tokens=completion_tokens)

    @classmethod
    def tool_calls(cls, calls: list[dict], text: str = "") -> Reply:
        """A completion with tool calls: each ``{"name": str, "arguments": dict | str, "id"?: str}``."""
        return cls("tool_calls", content=text, calls=tuple(calls))

    @classmethod
    def status(cls, code: int, message: str, *, error_type: str | None = None) -> Reply:
        """An OpenAI-style error answer ``{"error": {"message", "type"}}`` with HTTP status ``code``."""
        kind = error_type or _ERROR_TYPES.get(code, "server_error" if code >= 500 else "api_error")
        return cls("status", content=message, status_code=code, error_type=kind)

    @classmethod
    def delay(cls, seconds: float, then: Reply | None = None) -> Reply:
        """Wait ``seconds`` before answering with ``then`` (default: a short text)."""
        return cls("delay", seconds=seconds, then=then or cls.text("late answer"))

    @classmethod
    def garbage(cls, body: str = "not json at all", *, content_type: str = "text/html; charset=utf-8") -> Reply:
        """A 200 whose body is not a completion."""
        return cls("garbage", content=body, content_type=content_type)

    @classmethod
    def disconnect(cls) -> Reply:
        """Close the connection without any answer."""
        return cls("disconnect")

    @classmethod
    def stream_then_fail(cls, chunks: list[str]) -> Reply:
        """Send the SSE ``chunks``, then drop the connection mid-body (no ``[DONE]``)."""
        return cls("stream_then_fail", chunks=tuple(chunks))


@dataclass
class RecordedRequest:
    """One request as the server saw it. ``headers`` keys are lower case; ``body`` is parsed JSON or None."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes = field(repr=False, default=b"")

    @property
    def messages(self) -> list[dict]:
        """The ``messages`` of a chat request (``[]`` if absent)."""
        return self.body.get("messages", []) if isinstance(self.body, dict) else []

    @property
    def streaming(self) -> bool:
        """True when the request asked for an SSE stream."""
        return isinstance(self.body, dict) and self.body.get("stream") is True


class FakeLLMServer:
    """A threaded HTTP server answering chat completions from a script.

    Args:
        expected_key: when set, a request without ``Authorization: Bearer <key>``
            gets 401 (and consumes no scripted reply).
    """

    def __init__(self, expected_key: str | None = None) -> None:
        self.expected_key = expected_key
        self.requests: list[RecordedRequest] = []
        self.errors: list[str] = []
        self.verify_on_exit = True
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle -------------------------------------------------------
    def start(self) -> FakeLLMServer:
        """Bind 127.0.0.1 on a free port and serve in a daemon thread."""
        handler = type("_BoundHandler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="fake-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; wakes delayed replies so no thread lingers."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound TCP port."""
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The OpenAI base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_url(self) -> str:
        """The full chat-completions URL."""
        return f"http://127.0.0.1:{self.port}{CHAT_PATH}"

    # -- script -----------------------------------------------------------
    def script(self, *replies: Reply) -> FakeLLMServer:
        """Queue ``replies``; each chat request takes the next one."""
        with self._lock:
            self._replies.extend(replies)
        return self

    @property
    def remaining(self) -> int:
        """Scripted replies not used yet."""
        with self._lock:
            return len(self._replies)

    def assert_all_used(self) -> None:
        """Fail when a scripted reply is left or any invariant was broken."""
        with self._lock:
            left, errors = len(self._replies), list(self.errors)
        problems = errors + ([f"{left} scripted reply/replies never requested"] if left else [])
        assert not problems, "fake LLM server: " + "; ".join(problems)

    def assert_key_only_in_auth(self, key: str) -> None:
        """Fail unless every request carried ``key`` in ``Authorization`` and nowhere else."""
        assert self.requests, "no request reached the fake LLM server"
        for req in self.requests:
            assert req.headers.get("authorization") == f"Bearer {key}", f"bad Authorization on {req.path}"
            others = {k: v for k, v in req.headers.items() if k != "authorization"}
            assert key not in req.path and key.encode() not in req.raw, "key leaked into path or body"
            assert key not in json.dumps(others), "key leaked into another header"

    # -- used by the handler ----------------------------------------------
    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    def _error(self, message: str) -> None:
        with self._lock:
            self.errors.append(message)

    def _next_reply(self) -> Reply | None:
        with self._lock:
            return self._replies.popleft() if self._replies else None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeLLMServer  # set on the bound subclass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr logging
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        self._unexpected(self._read_request("GET"))

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        req = self._read_request("POST")
        fake = self.fake
        if fake.expected_key is not None and req.headers.get("authorization") != f"Bearer {fake.expected_key}":
            self._send_json(401, _error_body("Incorrect API key provided.", "authentication_error"))
            return
        if req.path.split("?")[0] != CHAT_PATH:
            self._unexpected(req)
            return
        problem = _check_chat_body(req.body)
        if problem:
            fake._error(problem)
            self._send_json(400, _error_body(f"fake_llm: {problem}", "invalid_request_error"))
            return
        reply = fake._next_reply()
        if reply is None:
            self._unexpected(req)
            return
        self._serve(reply, req)

    # -- request ----------------------------------------------------------
    def _read_request(self, method: str) -> RecordedRequest:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        req = RecordedRequest(method=method, path=self.path, headers=headers, body=body, raw=raw)
        self.fake._record(req)
        return req

    def _unexpected(self, req: RecordedRequest) -> None:
        self.fake._error(f"unexpected request {req.method} {req.path} (script empty or wrong path)")
        self._send_json(500, _error_body("fake_llm: unexpected request", "fake_llm_error"))

    # -- replies ----------------------------------------------------------
    def _serve(self, reply: Reply, req: RecordedRequest) -> None:
        try:
            self._serve_kind(reply, req)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            pass  # the client gave up (timeout); nothing to answer

    def _serve_kind(self, reply: Reply, req: RecordedRequest) -> None:
        if reply.kind == "delay":
            if not self.fake._stopping.wait(reply.seconds):
                self._serve(reply.then or Reply.text(""), req)
        elif reply.kind == "status":
            self._send_json(reply.status_code, _error_body(reply.content, reply.error_type))
        elif reply.kind == "garbage":
            self._send_bytes(200, reply.content.encode(), reply.content_type)
        elif reply.kind == "disconnect":
            self._drop()
        elif reply.kind in ("stream", "stream_then_fail") and not req.streaming:
            self.fake._error(f"a {reply.kind} reply was scripted but the request did not ask for stream")
            self._send_json(500, _error_body("fake_llm: stream scripted for a non-streaming call", "fake_llm_error"))
        elif req.streaming:
            self._send_stream(reply, req)
        else:
            self._send_json(200, _completion(reply, req))

    def _send_json(self, status: int, payload: dict) -> None:
        self._send_bytes(status, json.dumps(payload, ensure_ascii=False).encode(), "application/json")

    def _send_bytes(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self.close_connection = True

    def _send_stream(self, reply: Reply, req: RecordedRequest) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        events = _stream_events(reply, req)
        if reply.kind == "stream_then_fail":
            for event in events[:-3]:  # role and content chunks only: no finish, no usage, no [DONE]
                self._write_chunk(event)
            self._drop()
            return
        for event in events:
            self._write_chunk(event)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _write_chunk(self, event: str) -> None:
        data = f"data: {event}\n\n".encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


# -- payloads ---------------------------------------------------------------
def _error_body(message: str, error_type: str) -> dict:
    return {"error": {"message": message, "type": error_type, "code": None}}


def _check_chat_body(body: Any) -> str:
    if not isinstance(body, dict):
        return "request body is not a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "request has no model name"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "request has no messages"
    return _check_tool_answers(messages)


def _check_tool_answers(messages: list) -> str:
    """Every assistant tool call is answered by exactly one tool message, and no tool message is stray."""
    asked: dict[str, int] = {}
    for msg in messages:
        if not isinstance(msg, dict):
            return "a message is not an object"
        for call in msg.get("tool_calls") or []:
            asked[str(call.get("id"))] = 0
        if msg.get("role") == "tool":
            call_id = str(msg.get("tool_call_id"))
            if call_id not in asked:
                return f"tool message answers unknown call {call_id}"
            asked[call_id] += 1
    bad = {k: v for k, v in asked.items() if v != 1}
    return f"tool calls not answered exactly once: {bad}" if bad else ""


def _estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4)) if text else 0


def _usage(reply: Reply, req: RecordedRequest, completion: str) -> dict:
    prompt = reply.prompt_tokens
    if prompt is None:
        prompt = _estimate_tokens("".join(str(m.get("content") or "") for m in req.messages))
    done = reply.completion_tokens if reply.completion_tokens is not None else _estimate_tokens(completion)
    return {"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done}


def _tool_call_list(reply: Reply) -> list[dict]:
    calls = []
    for n, call in enumerate(reply.calls):
        args = call.get("arguments", {})
        calls.append({"id": call.get("id", f"call_{n}"), "type": "function",
                      "function": {"name": call["name"],
                                   "arguments": args if isinstance(args, str) else json.dumps(args)}})
    return calls


def _completion(reply: Reply, req: RecordedRequest) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    finish = "stop"
    if reply.kind == "tool_calls":
        message["tool_calls"] = _tool_call_list(reply)
        message["content"] = reply.content or None
        finish = "tool_calls"
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": _model(req),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": _usage(reply, req, reply.content)}


def _model(req: RecordedRequest) -> str:
    return str(req.body.get("model", "")) if isinstance(req.body, dict) else ""


def _stream_events(reply: Reply, req: RecordedRequest) -> list[str]:
    """Role chunk, content chunks, finish chunk, usage chunk (``choices: []``), ``[DONE]``."""
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": _model(req)}

    def chunk(delta: dict, finish: str | None = None) -> str:
        return json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]},
                          ensure_ascii=False)

    pieces = list(reply.chunks) if reply.kind in ("stream", "stream_then_fail") else [reply.content]
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in pieces if piece]
    finish = "stop"
    if reply.kind == "tool_calls":
        calls = [{"index": n, **call} for n, call in enumerate(_tool_call_list(reply))]
        events.append(chunk({"tool_calls": calls}))
        finish = "tool_calls"
    events.append(chunk({}, finish))
    events.append(json.dumps({**base, "choices": [], "usage": _usage(reply, req, "".join(pieces))}))
    events.append("[DONE]")
    return events
