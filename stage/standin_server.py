"""A tiny Anthropic-compatible HTTP server on 127.0.0.1, so tests can run the real SDK offline.

It answers ``POST /v1/messages`` and ``POST /v1/messages/count_tokens``. A test scripts it by
pushing canned responses (status, JSON body, headers) onto a queue; each request takes the next
one, whatever its path. With the queue empty it answers with a short text reply (or a token
count). Every request is recorded (path, headers, JSON body) so a test can check what was sent.

The key is checked like the real API does: ``x-api-key: KEY`` or ``Authorization: Bearer KEY``
(the SDK 2.x sends the second). A wrong key gets a 401 without touching the queue.

Left out: streaming (SSE), every other endpoint, any real token counting (the default count
is a rough four-characters-per-token guess), validation of the request body.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TEST_KEY = "sk-ant-standin-0123456789-secret"
# What the SDK reads from the environment besides the key: cleared before a test points it at a local server.
SDK_ENV = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CONFIG_DIR",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_IDENTITY_TOKEN",
    "ANTHROPIC_IDENTITY_TOKEN_FILE",
    "ANTHROPIC_FEDERATION_RULE_ID",
    "ANTHROPIC_ORGANIZATION_ID",
    "CONTEXT_DESK_MODEL",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
]


def message_body(
    content: list[dict],
    stop_reason: str = "end_turn",
    input_tokens: int = 10,
    output_tokens: int = 5,
) -> dict:
    """A Messages API response body. Example: message_body([{"type": "text", "text": "hi"}])."""
    return {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": "stand-in",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def error_body(kind: str, message: str) -> dict:
    """An API error body. Example: error_body("rate_limit_error", "slow down")."""
    return {"type": "error", "error": {"type": kind, "message": message}}


class LocalServer:
    """A threaded HTTP server on 127.0.0.1 with start/stop and ``with`` support (shared by the test servers)."""

    def listen(self, port: int, handler) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self):
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class StandIn(LocalServer):
    """The server, its queue of canned responses and its record of requests.

    Example: with StandIn() as server: server.push_text("hello"); ... server.requests[0]["body"]
    """

    def __init__(self, key: str = TEST_KEY):
        self.key = key
        self.queue: deque[tuple[int, dict, dict]] = deque()
        self.requests: list[dict] = []
        self.listen(0, _handler_for(self))

    # ---- scripting --------------------------------------------------------------------

    def push(self, status: int, body: dict, headers: dict | None = None) -> None:
        """Queue one response for the next request."""
        self.queue.append((status, body, headers or {}))

    def push_text(self, text: str, **usage) -> None:
        """Queue a plain text reply."""
        self.push(200, message_body([{"type": "text", "text": text}], **usage))

    def push_tool_use(
        self, name: str, tool_input: dict, tool_id: str = "toolu_standin_1", text: str = ""
    ) -> None:
        """Queue a reply that asks for one tool call (with optional text before it)."""
        content = [{"type": "text", "text": text}] if text else []
        content.append({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
        self.push(200, message_body(content, stop_reason="tool_use"))

    def push_error(self, status: int, kind: str, message: str, headers: dict | None = None) -> None:
        """Queue an API error, e.g. push_error(429, "rate_limit_error", "slow down", {"retry-after": "0"})."""
        self.push(status, error_body(kind, message), headers)

    # ---- answering --------------------------------------------------------------------

    def answer(self, path: str, headers: dict, body: dict) -> tuple[int, dict, dict]:
        """Record one request and choose its response: key check, then the queue, then a default."""
        self.requests.append({"path": path, "headers": headers, "body": body})
        given = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        if given != self.key:
            return 401, error_body("authentication_error", "invalid x-api-key"), {}
        if self.queue:
            return self.queue.popleft()
        guess = len(json.dumps(body)) // 4
        if path.endswith("/count_tokens"):
            return 200, {"input_tokens": guess}, {}
        hello = [{"type": "text", "text": "Hello from the stand-in."}]
        return 200, message_body(hello, input_tokens=guess), {}


def _handler_for(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to one StandIn (http.server wants a class, not an object)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            path = self.path.split("?")[0]
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            if path not in ("/v1/messages", "/v1/messages/count_tokens"):
                self._send(404, error_body("not_found_error", f"no route {path}"), {})
                return
            self._send(*standin.answer(path, headers, json.loads(raw or b"{}")))

        def _send(self, status: int, body: dict, headers: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):  # keep test output quiet
            pass

    return Handler
