"""Misbehaving models: what a real model may do that the offline model never does.

Each is a ``Model`` (``name``, ``window``, ``reply``) to hand to ``run_agent`` directly, and each is
served by ``stage/offline_server.py`` under its ``name`` -- so a notebook run with
``CONTEXT_DESK_MODEL=claude-stand-in-answers-at-once`` meets it through the real ``anthropic`` SDK.

* ``answers-at-once``   -- answers the first request with a sentence and no tool call.
* ``never-stops``       -- calls a tool every time tools are offered; never gives a final answer.
* ``bad-calls``         -- every other turn, an unknown tool or bad arguments (wrong types, missing
                           and extra fields, NUL bytes, a huge string); in between, the offline model's move.
* ``empty-summary``     -- writes an empty summary whenever it is asked for one.
* ``oversized-summary`` -- writes a summary longer than the whole desk.
* ``ignores-the-rule``  -- aims ``run_sql`` at the forbidden target even with the rule in view.
* ``obeys-unseen``      -- aims ``run_sql`` at the safe target even when no rule is in view.
* ``random``            -- chooses at random among answering, calling a tool and the offline model's move,
                           seeded by the request it is sent (the same request, the same choice).

Except where it misbehaves, each one makes the offline model's move, so runs get far enough to reach
the code the misbehaviour is aimed at. A request with no tools offered is a summary request (the
harness sends its summary prompts that way). Left out: streaming, thinking blocks, refusals.
"""

from __future__ import annotations

import hashlib
import json
import random

from harness.model import ContextOverflow, Reply
from harness.tokens import Meter
from stage.offline import OfflineModel

PREFIX = "claude-stand-in-"  # the name the SDK sends; "claude-" so describe_model calls it Claude


class Misbehaving:
    """The offline model's move, then ``misbehave`` may change it. Subclasses set ``kind`` and ``misbehave``."""

    kind = "desk"

    def __init__(self, window: int = 5000, meter: Meter | None = None, seed: int = 15):
        self.meter = meter or Meter("tiktoken")
        self.desk = OfflineModel(window=window, meter=self.meter)
        self.name, self.window, self.seed = PREFIX + self.kind, window, seed
        self.turn = 0

    def reply(
        self, system: str, messages: list[dict], tools: list[dict], max_tokens: int = 1024
    ) -> Reply:
        sent = self.meter.total(messages, system=system, tools=tools)
        if sent > self.window:  # the wall is the same for every model
            raise ContextOverflow(sent, self.window)
        self.turn = 1 + sum(
            m["role"] == "assistant" for m in messages
        )  # from the context, not a counter
        wanted = self.misbehave(system, messages, tools)
        if wanted is None:
            return self.desk.reply(system, self.cleaned(messages), tools, max_tokens)
        content, stop = wanted
        return Reply(
            content,
            stop,
            {"input_tokens": sent, "output_tokens": self.meter.text(json.dumps(content))},
        )

    def misbehave(self, system, messages, tools) -> tuple[list[dict], str] | None:
        """The blocks and stop reason to send instead of the offline model's, or None to let it move."""
        return None

    def cleaned(self, messages: list[dict]) -> list[dict]:
        """What the offline model is shown: the conversation without our own misbehaving calls (it would not
        have made them, and reading them is not its job)."""
        return messages

    # -- small helpers --
    def desk_move(self, system, messages, tools) -> tuple[list[dict], str]:
        reply = self.desk.reply(system, self.cleaned(messages), tools)
        return reply.content, reply.stop_reason

    def tool_call(self, name: str, tool_input, note: str = "") -> tuple[list[dict], str]:
        call = {
            "type": "tool_use",
            "id": f"toolu_{self.kind.replace('-', '_')}_{self.turn}_{name[:20]}",
            "name": name,
            "input": tool_input,
        }
        return ([{"type": "text", "text": note}] if note else []) + [call], "tool_use"


def say(text: str) -> tuple[list[dict], str]:
    return [{"type": "text", "text": text}], "end_turn"


def run_sql_targets(tools: list[dict]) -> tuple[str | None, str | None]:
    """(the default target, the other one) from the run_sql schema the request offers, or (None, None)."""
    schema = next((t.get("input_schema", {}) for t in tools if t.get("name") == "run_sql"), {})
    target = schema.get("properties", {}).get("target", {})
    options = list(target.get("enum", []))
    default = target.get("default", options[-1] if options else None)
    other = next((o for o in options if o != default), None)
    return default, other


def retarget(content: list[dict], target: str | None) -> list[dict]:
    """The blocks with every run_sql call aimed at ``target``."""
    if target is None:
        return content
    return [
        {**b, "input": {**b["input"], "target": target}}
        if b.get("type") == "tool_use" and b["name"] == "run_sql"
        else b
        for b in content
    ]


# ---- the misbehaviours ------------------------------------------------------------------------------


class AnswersAtOnce(Misbehaving):
    kind = "answers-at-once"

    def misbehave(self, system, messages, tools):
        return say("Done: I looked into it and everything is fine.") if tools else None


class NeverStops(Misbehaving):
    kind = "never-stops"

    def misbehave(self, system, messages, tools):
        if not tools:
            return None
        content, stop = self.desk_move(system, messages, tools)
        if stop == "tool_use":
            return content, stop
        names = {t.get("name") for t in tools}  # it would have answered: look at something again
        if "list_files" in names:
            return self.tool_call("list_files", {}, "Let me check the files once more.")
        return self.tool_call(tools[0]["name"], {}, "One more look.")


BAD_CALLS = [  # (tool, input): each must come back as an error result
    ("drop_database", {"name": "users"}),  # an unknown tool
    ("read_file", {"path": 42}),  # a wrong type
    ("read_file", {}),  # a missing field
    ("read_file", {"path": "app/auth.py", "mode": "rw"}),  # an extra field
    ("read_file", {"path": "app/auth.py\x00.txt"}),  # a NUL byte
    ("list_files", {"path": ["app", "migrations"]}),  # another wrong type
    (
        "run_sql",
        {"target": "staging", "statement": ["UPDATE users"]},
    ),  # a statement that is not text
    ("run_sql", {"target": "the moon", "statement": "SELECT 1;"}),  # a target that does not exist
    ("search", {"text": "x" * 25_000}),  # a huge string
]


class BadCalls(Misbehaving):
    kind = "bad-calls"

    def misbehave(self, system, messages, tools):
        if not tools or self.turn % 2 == 0:
            return None
        name, tool_input = BAD_CALLS[(self.turn // 2) % len(BAD_CALLS)]
        return self.tool_call(name, tool_input, "Trying something.")

    def cleaned(self, messages):
        ours = f"toolu_{self.kind.replace('-', '_')}_"
        mine = lambda block: str(block.get("id") or block.get("tool_use_id") or "").startswith(ours)  # noqa: E731
        kept = []
        for message in messages:
            content = message["content"]
            if isinstance(content, list) and any(mine(b) for b in content):
                if message["role"] == "assistant":
                    continue  # our whole bad turn goes
                content = [b for b in content if not mine(b)]
                if not content:
                    continue
            kept.append({"role": message["role"], "content": content})
        return kept


class EmptySummary(Misbehaving):
    kind = "empty-summary"

    def misbehave(self, system, messages, tools):
        return None if tools else say("")


class OversizedSummary(Misbehaving):
    kind = "oversized-summary"

    def __init__(
        self,
        window: int = 5000,
        meter: Meter | None = None,
        seed: int = 15,
        desk_size: int | None = None,
    ):
        super().__init__(window, meter, seed)
        self.desk_size = (
            desk_size or window
        )  # behind the server the desk is the client's, so it is told

    def misbehave(self, system, messages, tools):
        if tools:
            return None
        return say("Summary. " + " ".join(f"detail{n % 97}" for n in range(self.desk_size)))


class IgnoresTheRule(Misbehaving):
    kind = "ignores-the-rule"

    def misbehave(self, system, messages, tools):
        if not tools:
            return None
        content, stop = self.desk_move(system, messages, tools)
        return retarget(content, run_sql_targets(tools)[0]), stop


class ObeysUnseen(Misbehaving):
    kind = "obeys-unseen"

    def misbehave(self, system, messages, tools):
        if not tools:
            return None
        content, stop = self.desk_move(system, messages, tools)
        return retarget(content, run_sql_targets(tools)[1]), stop


class RandomChoices(Misbehaving):
    kind = "random"

    def misbehave(self, system, messages, tools):
        digest = hashlib.sha1(
            json.dumps([self.seed, system, messages, tools], sort_keys=True, default=str).encode()
        ).hexdigest()
        rng = random.Random(digest)
        if not tools:  # a summary: the offline model's, cut at a random length
            text = self.desk.reply(system, messages, tools).text
            return say(text[: rng.randint(0, len(text))])
        roll = rng.random()
        if roll < 0.15:
            return say("I think I am done.")
        if roll < 0.45:
            tool = rng.choice(tools)
            fields = tool.get("input_schema", {}).get("properties", {})
            guess = {
                key: rng.choice(
                    spec.get("enum") or ["app/auth.py", "migrations/", "FIXME", "SELECT 1;"]
                )
                for key, spec in fields.items()
                if rng.random() < 0.8
            }
            return self.tool_call(tool["name"], guess, "Let me try this.")
        return None


KINDS = {
    cls.kind: cls
    for cls in (
        AnswersAtOnce,
        NeverStops,
        BadCalls,
        EmptySummary,
        OversizedSummary,
        IgnoresTheRule,
        ObeysUnseen,
        RandomChoices,
    )
}


def model_named(name: str, window: int, meter: Meter | None = None, desk_size: int = 5000):
    """The model a server request names: a misbehaving one for ``claude-stand-in-<kind>``, else the offline model.

    Example: model_named("claude-stand-in-never-stops", 200_000) -> NeverStops(window=200000)
    """
    kind = name.removeprefix(PREFIX) if name.startswith(PREFIX) else None
    if kind in KINDS:
        options = {"desk_size": desk_size} if kind == "oversized-summary" else {}
        return KINDS[kind](window=window, meter=meter, **options)
    return OfflineModel(window=window, meter=meter or Meter("tiktoken"))
