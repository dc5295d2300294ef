"""The offline model: a small rule-based stand-in for an LLM, so the class runs with no key.

It is NOT a language model and does not pretend to be one. It follows a handful of rules, and
every rule looks only at the context it is sent -- the system prompt and the message array.
It never knows which lesson, strategy or test is running. Take something off the desk and its
behaviour changes, which is exactly what the lessons need to show.

How it works a task (one decision per call):

1. **The goal.** The goal is the request's sentences that are not rules. If the request is gone,
   it uses a ``Goal:`` line of a summary, or the ``Task:`` line of its own latest note.
   If none is visible, it says it cannot tell the goal and stops.
2. **Notes.** Each reply starts with a note: ``Task: <goal>``, then what it noticed in the file it
   just read (``Cause:``, ``Lead:``, ``Fix:``, ``Noticed:`` lines) and any decision the user just made
   (``Decision:``), and ends with its to-do line (``progress``: read up to, where the cause is, what it
   searched for, what is pending). The task and the to-do line go into every note -- the rules and the
   findings do not. (Agents keep their to-do list in view; the rest they jot once.)
3. **The next call** (``steps``): a file the request names, the quoted error text and the identifiers it
   names (searched, and read around the hits: ``looking``), the files of the scope in listing order, then
   searches for the request's words and for pending fixes. Never a call whose result is still in view, never
   one that would repeat a cycle of visible calls.
4. **Findings** (``findings``, ``locating``, ``lines``): the cause is the statement of code that matches
   the request most -- code over prose; the fix is one the workspace offers (``fixes``).
5. **Acting.** When the goal asks to apply the fix, the cause is *settled* (``searching.settled``) and a fix
   is in view, it calls ``run_sql``; with the scope read and searched and nothing settled, it acts on the best
   candidate. Never without a cause: with a fix and no cause in view it re-finds the cause (the to-do line
   says where) or stops and says so. The target is the tool's default (``production``) unless a standing rule
   in view rules it out (``rules``); a correction in view changes the statement (``corrections``); of several
   pending fixes it takes the one a decision in view chose (``decisions``).
6. **Summaries** (``summaries``): asked to summarize or fold, it writes only the sections the prompt asks
   for, within the prompt's word limit, most salient lines first.
7. **Sub-agents** (``delegating``), and **limits**: it reports ``usage`` like the API, and raises
   ``ContextOverflow`` when the request is larger than its window.

Left out on purpose: language understanding, planning, editing files, anything random -- unless
``rot=ContextRot(...)`` is switched on: a seeded, deterministic SIMULATION of context rot, labelled as such.
"""

from __future__ import annotations

import hashlib
import json
import re

from harness.model import ContextOverflow, Reply
from harness.tokens import Meter
from stage.offline.acting import NO_FIX, Step, answer, apply, finish, give_up
from stage.offline.context_rot import ContextRot
from stage.offline.delegating import SURVEY, report, survey_step
from stage.offline.view import View, words
from stage.offline.fixes import repair_in
from stage.offline.jotting import fresh_notes, pending, todo
from stage.offline.progress import todo_line
from stage.offline.searching import known, lead, settled
from stage.offline.steps import failed, lost_lead, next_call, tried
from stage.offline.summaries import summary_request, write_summary

APPLY_WORDS = {
    "apply",
    "execu",
    "migra",
    "datab",
    "patch",
    "pendi",
}  # a goal that asks to run the fix
RUN_SQL = re.compile(r"\brun\b[^.]*\bSQL\b", re.I)  # "then run the SQL fix"
CIRCLING = "I stopped a cycle: my next calls would repeat calls I have just made."


class OfflineModel:
    """The offline model. ``window``: the largest request it accepts, in tokens (like a real model's)."""

    def __init__(
        self, window: int = 200_000, meter: Meter | None = None, rot: ContextRot | None = None
    ):
        if window <= 0:
            raise ValueError(f"The window must be a positive number of tokens, not {window}.")
        self.name = "offline-desk-model"
        self.window = window
        self.meter = meter or Meter("tiktoken")
        self.rot = rot
        self._context: list[dict] = []

    def reply(
        self, system: str, messages: list[dict], tools: list[dict], max_tokens: int = 1024
    ) -> Reply:
        sent = self.meter.total(messages, system=system, tools=tools)
        if sent > self.window:
            raise ContextOverflow(sent, self.window)
        self._context = messages
        fullness = sent / self.window
        ask = summary_request(messages)
        if ask is not None:
            instruction, material = ask
            if self.rot:  # the simulation: far from the end of a very full request, lines slip
                material = self.rot.blur_text(material, fullness)
            content, stop = _say(write_summary(instruction, material))
        else:
            seen = self.rot.blur(messages, fullness) if self.rot else messages
            desk = View.read(system, seen, tools)
            content, stop = self.send(desk, self.work(desk, {t["name"] for t in tools}))
        out = sum(self.meter.text(b.get("text") or json.dumps(b.get("input", {}))) for b in content)
        return Reply(
            content=content, stop_reason=stop, usage={"input_tokens": sent, "output_tokens": out}
        )

    # -- one decision --
    def work(self, desk: View, tools: set[str]) -> Step:
        """The one thing to do now, from what is on the desk (see the module docstring, steps 1-5)."""
        goal = desk.goal()
        if goal is None:
            return Step(
                [
                    "I can no longer see the original request, so I cannot tell what the goal is. "
                    "Please restate the task."
                ]
            )
        note = [f"Task: {goal}"] + fresh_notes(desk, goal)
        if SURVEY.search(goal):  # a sub-agent's task: read the folder, then report
            step = survey_step(desk, goal)
            return Step(note, *step) if step else Step([report(desk, goal, note)])
        applied = [
            use["input"]
            for use, res in desk.calls
            if use["name"] == "run_sql" and res and not failed(res)
        ] or [ran for ran in [desk.applied_in_summaries()] if ran]  # or a summary says it ran
        cause, fix = known(desk, goal)
        if applied:
            return finish(desk, note, cause or lead(desk, goal), applied[-1], tools)
        wants_apply = bool(words(goal) & APPLY_WORDS) or bool(RUN_SQL.search(goal))
        done = settled(cause, goal)
        if done and not wants_apply:
            return Step(note + answer(desk, goal, cause))
        if done and (fix or repair_in(cause)):  # a prepared fix, or the repair the cause carries
            return apply(desk, note, cause, fix)
        call, circling = next_call(desk, goal, cause, fix, wants_apply, tools)
        if call:
            return Step(note, *call)
        note += [CIRCLING] * circling
        best = cause or lead(desk, goal)  # nothing left to look at: the best it has seen
        again = None if best else lost_lead(desk)
        if again and not tried(
            desk, *again
        ):  # its to-do line says where the best lead was: look again
            return Step(note, *again)
        if wants_apply and best and (fix or repair_in(best)):
            return apply(desk, note, best, fix)
        if best:
            return Step(note + answer(desk, goal, best) + [NO_FIX] * wants_apply)
        return give_up(note, fix)

    def send(self, desk: View, step: Step) -> tuple[list[dict], str]:
        """The reply's blocks: the note alone (an answer), or the note with its to-do line and the call."""
        if step.name is None:
            return _say("\n".join(step.lines))
        line = todo_line(todo(desk, step.name, step.tool_input), pending(desk, step.name))
        blocks = [
            {"type": "text", "text": "\n".join(step.lines + ([line] if line else []))},
            {
                "type": "tool_use",
                "id": _fresh_id(self._context, step.name),
                "name": step.name,
                "input": step.tool_input,
            },
        ]
        return blocks, "tool_use"


def _fresh_id(context: list[dict], name: str) -> str:
    """A tool_use id that is the same for the same context and differs for any other (so ids never collide)."""
    digest = hashlib.sha1(
        json.dumps([len(context), context[-2:], name], sort_keys=True).encode()
    ).hexdigest()
    return f"toolu_desk_{digest[:12]}"


def _say(text: str) -> tuple[list[dict], str]:
    return [{"type": "text", "text": text}], "end_turn"
