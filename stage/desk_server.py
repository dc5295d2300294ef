"""A local Anthropic-compatible server on 127.0.0.1 that answers with the offline desk model.

Beside ``standin_server.py`` (canned replies, for testing the client's error handling), this one
*works*: every ``POST /v1/messages`` is answered by the real ``stage.offline.DeskModel`` -- or by a
misbehaving model from ``misbehaving.py`` when the request's ``model`` names one -- fed exactly the
request's ``system``, ``messages`` and ``tools``. So a notebook run with ``ANTHROPIC_API_KEY`` and
``ANTHROPIC_BASE_URL`` pointed here goes through the real ``anthropic`` SDK and ``ClaudeModel``, and
the agent still decides from its context alone.

What it answers:
* ``POST /v1/messages`` (also ``?beta=true``, the SDK's beta path): a message, or a 400 "prompt is too
  long: N tokens > M maximum" when the request is over the server's window, as the API says it.
* ``POST /v1/messages/count_tokens``: ``{"input_tokens": N}``, counted with the harness's tiktoken meter.
* the API levers the notebooks use (``stage/api_levers.py``): ``context_management.edits`` of type
  ``clear_tool_uses_20250919`` (past the trigger, all but the newest ``keep`` tool results become a
  placeholder, and ``context_management.applied_edits`` says how many) and ``compact_20260112`` (past
  the trigger, the desk model summarizes the conversation into a ``compaction`` block; a compaction block
  sent back stands in for everything before it). The memory tool is an ordinary client tool here.

The key is checked as the API does (``x-api-key`` or ``Authorization: Bearer``); a wrong one gets a 401.
Every request is recorded (path, model, headers' beta list) so a test can count what went through.
Left out: streaming, images, thinking, batches, the models list, prompt caching, ``clear_at_least``,
real Claude tokenization (tiktoken's cl100k is the count here), and validation of everything else.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler

from harness.messages import blocks_of, user
from harness.model import ContextOverflow
from harness.prompts import compaction_prompt, render
from harness.tokens import Meter
from stage.claude import CLAUDE_WINDOW
from stage.misbehaving import model_named
from stage.standin_server import TEST_KEY, LocalServer, error_body, message_body

CLEARED = "[tool result cleared by the server's context management]"


class DeskServer(LocalServer):
    """The server. Example: with DeskServer() as server: os.environ["ANTHROPIC_BASE_URL"] = server.url

    ``window`` is the server-side model's window (Claude's by default: the classroom desk is enforced
    by ``ClaudeModel(toy_window=...)`` on the client, as it would be with the real API).
    """

    def __init__(self, key: str = TEST_KEY, window: int = CLAUDE_WINDOW, port: int = 0):
        self.key, self.window = key, window
        self.meter = Meter("tiktoken")
        self.requests: list[dict] = []
        self.lock = threading.Lock()            # one model call at a time: the meter's cache is shared
        self.listen(port, _handler_for(self))

    def count(self, path_end: str = "", model: str | None = None) -> int:
        """How many requests came in whose path ends with ``path_end`` (and named ``model``, if given)."""
        return sum(r["path"].endswith(path_end) and (model is None or r["model"] == model) for r in self.requests)

    # ---- answering ----------------------------------------------------------------------------

    def answer(self, path: str, headers: dict, body: dict) -> tuple[int, dict]:
        betas = [b.strip() for b in headers.get("anthropic-beta", "").split(",") if b.strip()]
        self.requests.append({"path": path, "model": body.get("model"), "betas": betas, "body": body,
                              "edits": (body.get("context_management") or {}).get("edits", [])})
        given = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        if given != self.key:
            return 401, error_body("authentication_error", "invalid x-api-key")
        problem = _bad_request(body, counting=path.endswith("/count_tokens"))
        if problem:
            return 400, error_body("invalid_request_error", problem)
        system, tools = _system_text(body.get("system")), body.get("tools") or []
        messages = [{"role": m["role"], "content": m["content"]} for m in body["messages"]]
        with self.lock:
            if path.endswith("/count_tokens"):
                return 200, {"input_tokens": self.meter.total(messages, system=system, tools=tools)}
            return self._reply(body, system, messages, tools)

    def _reply(self, body, system, messages, tools) -> tuple[int, dict]:
        model = model_named(body["model"], self.window, meter=self.meter)
        messages, applied, compaction = self._edits(body, system, messages, tools, model)
        try:
            reply = model.reply(system, messages, tools, max_tokens=body["max_tokens"])
        except ContextOverflow as overflow:
            sent = overflow.sent or self.meter.total(messages, system=system, tools=tools)
            return 400, error_body("invalid_request_error",
                                   f"prompt is too long: {sent} tokens > {self.window} maximum")
        content = ([compaction] if compaction else []) + reply.content
        answer = message_body(content, reply.stop_reason, reply.usage.get("input_tokens", 0),
                              reply.usage.get("output_tokens", 0))
        answer["model"] = body["model"]
        if "context_management" in body:
            answer["context_management"] = {"applied_edits": applied}
        return 200, answer

    # ---- the levers ---------------------------------------------------------------------------

    def _edits(self, body, system, messages, tools, model):
        """Apply the request's context-management edits: (messages the model reads, applied edits, block)."""
        messages = _after_last_compaction(messages)
        applied, compaction = [], None
        for edit in (body.get("context_management") or {}).get("edits", []):
            size = self.meter.total(messages, system=system, tools=tools)
            trigger = (edit.get("trigger") or {}).get("value", 100_000)
            if size <= trigger:
                continue
            if edit.get("type") == "clear_tool_uses_20250919":
                keep = (edit.get("keep") or {}).get("value", 3)
                messages, cleared = _clear_tool_results(messages, keep)
                if cleared:
                    after = self.meter.total(messages, system=system, tools=tools)
                    applied.append({"type": "clear_tool_uses_20250919", "cleared_tool_uses": cleared,
                                    "cleared_input_tokens": max(0, size - after)})
            elif edit.get("type") == "compact_20260112":
                prompt = compaction_prompt(render(messages), focus=edit.get("instructions") or "")
                summary = model.reply("", [user(prompt)], [], max_tokens=1024).text.strip()
                compaction = {"type": "compaction", "content": summary or None}
                messages = ([user("[Summary of the conversation so far]\n" + summary)] if summary else []) + \
                    messages[-1:]
        return messages, applied, compaction


# ---- helpers ---------------------------------------------------------------------------------

def _bad_request(body: dict, counting: bool) -> str:
    """What the API would refuse in this body ('' if nothing we check)."""
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    if not counting and not isinstance(body.get("max_tokens"), int):
        return "max_tokens: Field required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return f"messages.{i}.role: must be 'user' or 'assistant'"
        if i and message["role"] == messages[i - 1].get("role"):
            return f"messages.{i}: roles must alternate between 'user' and 'assistant'"
    return ""


def _system_text(system) -> str:
    """The system prompt as one string (the API accepts a string or a list of text blocks)."""
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    return system or ""


def _clear_tool_results(messages: list[dict], keep: int) -> tuple[list[dict], int]:
    """All but the newest ``keep`` tool results replaced by a placeholder; (new messages, how many)."""
    where = [(i, j) for i, m in enumerate(messages) for j, b in enumerate(blocks_of(m))
             if b.get("type") == "tool_result" and b.get("content") != CLEARED]
    to_clear = where[:-keep] if keep else where
    edited = [dict(m, content=list(blocks_of(m))) for m in messages]
    for i, j in to_clear:
        edited[i]["content"][j] = {**edited[i]["content"][j], "content": CLEARED}
    return edited, len(to_clear)


def _after_last_compaction(messages: list[dict]) -> list[dict]:
    """A compaction block sent back stands in for everything before it (its summary as a user turn)."""
    for i in range(len(messages) - 1, -1, -1):
        blocks = blocks_of(messages[i])
        at = next((k for k, b in enumerate(blocks) if b.get("type") == "compaction"), None)
        if at is None:
            continue
        summary = blocks[at].get("content")
        rest = blocks[at + 1:]
        head = [user("[Summary of the conversation so far]\n" + summary)] if summary else []
        tail = ([{"role": messages[i]["role"], "content": rest}] if rest else []) + messages[i + 1:]
        return head + tail
    return messages


def _handler_for(server: DeskServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            path = self.path.split("?")[0]
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            if path not in ("/v1/messages", "/v1/messages/count_tokens"):
                self._send(404, error_body("not_found_error", f"no route {path}"))
                return
            try:
                body = json.loads(raw or b"{}")
                status, answer = server.answer(path, headers, body if isinstance(body, dict) else {})
            except json.JSONDecodeError:
                status, answer = 400, error_body("invalid_request_error", "the body is not JSON")
            except Exception as problem:     # noqa: BLE001 -- a bug in a model: a 500, as a real server would say
                status, answer = 500, error_body("api_error", f"{type(problem).__name__}: {problem}")
            self._send(status, answer)

        def _send(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    return Handler


def main() -> None:
    """Serve in the foreground, for trying a notebook by hand: python stage/desk_server.py [port]."""
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8765
    server = DeskServer(port=port).start()
    print(f"Desk server on {server.url}\n  export ANTHROPIC_BASE_URL={server.url} ANTHROPIC_API_KEY={server.key}\n"
          f"  export CONTEXT_DESK_MODEL=claude-stand-in-<kind> for a misbehaving model (see stage/misbehaving.py)")
    try:
        server._thread.join()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
