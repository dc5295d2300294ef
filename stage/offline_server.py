"""A local Anthropic-compatible server on 127.0.0.1 that answers with the offline model.

Beside ``standin_server.py`` (canned replies, for testing the client's error handling), this one
*works*: every ``POST /v1/messages`` is answered by the real ``stage.offline.OfflineModel`` -- or by a
misbehaving model from ``misbehaving.py`` when the request's ``model`` names one -- fed exactly the
request's ``system``, ``messages`` and ``tools``. So a notebook run with ``ANTHROPIC_API_KEY`` and
``ANTHROPIC_BASE_URL`` pointed here goes through the real ``anthropic`` SDK and ``ClaudeModel``, and
the agent still decides from its context alone.

What it answers:
* ``POST /v1/messages`` (also ``?beta=true``, the SDK's beta path): a message, or a 400 "prompt is too
  long: N tokens > M maximum" when the request is over the server's window, as the API says it.
* ``POST /v1/messages/count_tokens``: ``{"input_tokens": N}``, counted with the harness's tiktoken meter;
  with ``context_management``, the count after the clearing edits and ``original_input_tokens`` before.
* ``GET /v1/models/{id}``: the model's capabilities, as the Models API lists them: every lever this server
  plays is supported, except the ones named in ``unsupported`` (to test a client's skip).
* the API levers of ``stage/api_levers.py`` (the rules and shapes are in ``stage/server_levers.py``):
  clearing old tool results and old thinking (``applied_edits`` says what), compaction at a threshold
  (``compact_20260112``, with ``pause_after_compaction`` and ``instructions``), compaction on demand
  (``compaction={"type": "summarize"}``: the block alone, signed, ``stop_reason`` ``"compaction"``).
  The offline model writes every summary. With a compaction beta on, ``usage.iterations`` lists each pass:
  the summarizing pass is there and not in the top-level figures, as in the API. A request that turns
  ``thinking`` on gets a thinking block first: the stand-in's trace of what it checked on the desk.

The key is checked as the API does (``x-api-key`` or ``Authorization: Bearer``); a wrong one gets a 401.
Every request is recorded (path, model, beta list, body) so a test can count what went through.
``min_trigger`` is the API's smallest threshold trigger (50,000 tokens); a notebook lowers it so the small
class task can reach one, and says so.
Left out: streaming, images, batches, the models list, prompt caching (no cache counts anywhere, so the
bill models the cache itself), ``clear_at_least``, real Claude tokenization (tiktoken's cl100k is the
count here), and validation of everything else.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler

from harness.messages import user
from harness.model import ContextOverflow
from harness.tokens import Meter
from stage import server_levers as levers
from stage.claude import CLAUDE_WINDOW
from stage.misbehaving import model_named
from stage.standin_server import TEST_KEY, LocalServer, error_body, message_body

CLEARED = levers.CLEARED
FEATURES = (
    "clear_tool_uses_20250919",
    "clear_thinking_20251015",
    "compact_20260112",
    "summarize",
    "adaptive thinking",
)


class OfflineServer(LocalServer):
    """The server. Example: with OfflineServer() as server: os.environ["ANTHROPIC_BASE_URL"] = server.url

    ``window`` is the server-side model's window (Claude's by default: the classroom desk is enforced
    by ``ClaudeModel(toy_window=...)`` on the client, as it would be with the real API).
    ``unsupported`` names features (of ``FEATURES``) this server's model refuses and the Models API denies.
    """

    def __init__(
        self,
        key: str = TEST_KEY,
        window: int = CLAUDE_WINDOW,
        port: int = 0,
        min_trigger: int = levers.API_MIN_TRIGGER,
        unsupported=(),
    ):
        unknown = set(unsupported) - set(FEATURES)
        if unknown:
            raise ValueError(f"Unknown features {sorted(unknown)}: choose among {list(FEATURES)}.")
        self.key, self.window, self.min_trigger, self.unsupported = (
            key,
            window,
            min_trigger,
            set(unsupported),
        )
        self.meter = Meter("tiktoken")
        self.requests: list[dict] = []
        self.seen: dict[str, dict] = {}  # every distinct message so far (see _same)
        self.lock = threading.Lock()  # one model call at a time: the meter's cache is shared
        self.listen(port, _handler_for(self))

    def count(self, path_end: str = "", model: str | None = None) -> int:
        """How many requests came in whose path ends with ``path_end`` (and named ``model``, if given)."""
        return sum(
            r["path"].endswith(path_end) and (model is None or r["model"] == model)
            for r in self.requests
        )

    # ---- answering ----------------------------------------------------------------------------

    def answer(self, path: str, headers: dict, body: dict) -> tuple[int, dict]:
        betas = [b.strip() for b in headers.get("anthropic-beta", "").split(",") if b.strip()]
        self.requests.append(
            {
                "path": path,
                "model": body.get("model"),
                "betas": betas,
                "body": body,
                "edits": (body.get("context_management") or {}).get("edits", []),
            }
        )
        given = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        if given != self.key:
            return 401, error_body("authentication_error", "invalid x-api-key")
        if path.startswith("/v1/models/"):
            return 200, self.model_info(path.removeprefix("/v1/models/"))
        counting = path.endswith("/count_tokens")
        problem = _bad_request(body, counting) or levers.problems(
            body, betas, self.min_trigger, self.unsupported, counting
        )
        if problem:
            return 400, error_body("invalid_request_error", problem)
        system, tools = _system_text(body.get("system")), body.get("tools") or []
        with self.lock:
            messages = levers.apply_blocks([self._same(m) for m in body["messages"]])
            if counting:
                return 200, self._count(body, system, messages, tools)
            return self._reply(body, betas, system, messages, tools)

    def _same(self, message: dict) -> dict:
        """One object per distinct message, kept across requests, so the meter counts each message once
        (a client re-sends its whole history every lap). Example: lap 9 counts only the two new messages."""
        plain = {"role": message["role"], "content": message["content"]}
        return self.seen.setdefault(json.dumps(plain, sort_keys=True), plain)

    def size(self, messages: list[dict], system: str, tools: list[dict]) -> int:
        """Tokens of a request as this server counts them: the harness's meter, plus any thinking."""
        return self.meter.total(messages, system=system, tools=tools) + levers.thinking_tokens(
            messages, self.meter
        )

    def _count(self, body, system, messages, tools) -> dict:
        def size(ms):
            return self.size(ms, system, tools)

        if "context_management" not in body:
            return {"input_tokens": size(messages)}
        edited, _ = levers.edit(messages, body["context_management"].get("edits") or [], size)
        return {
            "input_tokens": size(edited),
            "context_management": {"original_input_tokens": size(messages)},
        }

    def _reply(self, body, betas, system, messages, tools) -> tuple[int, dict]:
        model = model_named(body["model"], self.window, meter=self.meter)
        passes = (
            [] if _compaction_beta(betas) else None
        )  # usage.iterations: with a compaction beta on

        def size(ms):
            return self.size(ms, system, tools)

        try:
            if "compaction" in body:  # on demand: the summary alone, signed
                summary = self._summary(
                    model, messages, body["compaction"].get("instructions"), passes
                )
                block = {
                    "type": "compaction",
                    "content": summary or None,
                    "signature": levers.sign(summary),
                }
                return 200, self._message(
                    body,
                    [block] if summary else [],
                    "compaction" if summary else "end_turn",
                    0,
                    0,
                    passes,
                )
            edits = body.get("context_management", {}).get("edits") or []
            messages, applied = levers.edit(messages, edits, size)
            threshold = next((e for e in edits if e["type"] == "compact_20260112"), None)
            block = None
            if threshold and size(messages) > (threshold.get("trigger") or {}).get(
                "value", 150_000
            ):
                summary = self._summary(model, messages, threshold.get("instructions"), passes)
                block = {"type": "compaction", "content": summary or None}
                if threshold.get("pause_after_compaction"):
                    return 200, self._message(body, [block], "compaction", 0, 0, passes, applied)
                messages = (
                    [user(f"{levers.SUMMARY_HEADER}\n{summary}")] if summary else []
                ) + messages[-1:]
            reply = model.reply(system, messages, tools, max_tokens=body["max_tokens"])
        except ContextOverflow as overflow:
            sent = overflow.sent or size(messages)
            said = f"prompt is too long: {sent} tokens > {self.window} maximum"
            return 400, error_body("invalid_request_error", said)
        content = ([block] if block else []) + reply.content
        used_in = reply.usage.get("input_tokens", 0) + levers.thinking_tokens(messages, self.meter)
        used_out = reply.usage.get("output_tokens", 0)
        if (body.get("thinking") or {}).get("type") in ("enabled", "adaptive"):
            thought = levers.trace(system, messages, tools)
            content = [
                {"type": "thinking", "thinking": thought, "signature": levers.sign(thought)}
            ] + content
            used_out += self.meter.text(thought)
        if passes is not None:
            passes.append({"type": "message", "input_tokens": used_in, "output_tokens": used_out})
        return 200, self._message(
            body, content, reply.stop_reason, used_in, used_out, passes, applied
        )

    def _summary(self, model, messages, instructions, passes) -> str:
        """The offline model's summary of ``messages``; its pass is added to ``passes`` (billed, like the API's)."""
        written = model.reply(
            "", [user(levers.summary_prompt(messages, instructions))], [], max_tokens=1024
        )
        if passes is not None:
            passes.append({"type": "compaction", **written.usage})
        return written.text.strip()

    def _message(self, body, content, stop, used_in, used_out, passes, applied=None) -> dict:
        answer = message_body(content, stop, used_in, used_out)
        answer["model"] = body["model"]
        if passes is not None:
            answer["usage"]["iterations"] = passes
        if "context_management" in body:
            answer["context_management"] = {"applied_edits": applied or []}
        return answer

    # ---- the Models API -----------------------------------------------------------------------

    def model_info(self, name: str) -> dict:
        """What ``GET /v1/models/{name}`` says: the levers this server plays, minus ``unsupported``."""

        def yes(feature=None):
            return {"supported": feature not in self.unsupported}

        context = {f: yes(f) for f in FEATURES[:3]}
        thinking = {
            "adaptive": yes("adaptive thinking"),
            "enabled": yes(),
            "disabled": yes(),
            "between_tools": {"supported": False},
        }
        capabilities = {
            name: yes()
            for name in (
                "batch",
                "citations",
                "code_execution",
                "image_input",
                "pdf_input",
                "structured_outputs",
            )
        }
        capabilities.update(
            context_management={"supported": True, **context},
            compaction={
                "supported": "summarize" not in self.unsupported,
                "summarize": yes("summarize"),
            },
            thinking={"supported": True, "types": thinking},
            effort={
                "supported": False,
                **{k: {"supported": False} for k in ("low", "medium", "high", "max")},
            },
            server_tools={
                "supported": False,
                "code_execution": {"supported": False},
                "web_search": {"supported": False},
            },
        )
        return {
            "type": "model",
            "id": name,
            "display_name": f"{name} (the offline model, served locally)",
            "created_at": "2026-01-01T00:00:00Z",
            "lifecycle": "active",
            "max_input_tokens": self.window,
            "max_tokens": 8192,
            "capabilities": capabilities,
        }


# ---- helpers ---------------------------------------------------------------------------------


def _compaction_beta(betas: list[str]) -> bool:
    return levers.THRESHOLD_BETA in betas or levers.ON_DEMAND_BETA in betas


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


MODEL_PATH = re.compile(r"^/v1/models/[\w.:-]+$")


def _handler_for(server: OfflineServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            path = self.path.split("?")[0]
            headers = {k.lower(): v for k, v in self.headers.items()}
            if not MODEL_PATH.match(path):
                self._send(404, error_body("not_found_error", f"no route {path}"))
                return
            self._send(*server.answer(path, headers, {}))

        def do_POST(self):
            path = self.path.split("?")[0]
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            if path not in ("/v1/messages", "/v1/messages/count_tokens"):
                self._send(404, error_body("not_found_error", f"no route {path}"))
                return
            try:
                body = json.loads(raw or b"{}")
                status, answer = server.answer(
                    path, headers, body if isinstance(body, dict) else {}
                )
            except json.JSONDecodeError:
                status, answer = 400, error_body("invalid_request_error", "the body is not JSON")
            except Exception as problem:  # noqa: BLE001 -- a bug in a model: a 500, as a real server would say
                status, answer = (
                    500,
                    error_body("api_error", f"{type(problem).__name__}: {problem}"),
                )
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
    """Serve in the foreground, for trying a notebook by hand: python stage/offline_server.py [port]."""
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8765
    server = OfflineServer(port=port).start()
    print(
        f"Offline server on {server.url}\n  export ANTHROPIC_BASE_URL={server.url} ANTHROPIC_API_KEY={server.key}\n"
        f"  export CONTEXT_DESK_MODEL=claude-stand-in-<kind> for a misbehaving model (see stage/misbehaving.py)"
    )
    try:
        server._thread.join()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
