"""The offline desk model: a small rule-based stand-in for an LLM, so the class runs with no key.

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
   (``Decision:``). It copies the task into every note -- but not the rules, nor its findings.
   (Agents keep their to-do list in view; the rest they jot once.)
3. **Reading.** It lists the files when no listing is in view, then reads, in listing order, the
   next file after the furthest one it can see evidence of having read (a read on the desk, or a
   path named in a summary). Files that memory or a summary points at for the goal come first.
   A long file shows its first part (read_file says which lines); the rest is reached by searching.
   A summary that says a read was made just before it and never examined, with nothing the agent
   wrote since (no verbatim tail), makes it read that file again -- once.
4. **Findings** (``findings``, ``locating``). The *cause* is the line that matches the request most:
   its quoted error text, its identifiers, its distinctive words (``locating.weigh``); a
   ``FIXME``/``BUG``/``XXX``/``HACK``/``TODO`` comment sharing them counts extra. Weaker matches are
   *leads*; other markers are noticed *in passing*. The *fix* is a SQL file whose comments say it has
   not run yet, or a repair script in the goal's folders, or the repair the cause comment carries in
   backticks -- never a statement of its own. Of several pending fixes it takes the one a decision in
   view chose, else the one most related to the goal, the first of equals (``decisions``).
5. **Missing findings** (``searching``). When a summary says where a lost finding is ("found the cause in
   X"), it re-reads X. At the end of the listing, with no cause in view, it searches for what the request
   names (most telling first) and reads around the best hit it cannot see; with no fix in view, it
   searches for pending SQL files. It never makes a call whose result (or error) is still in view.
6. **Acting** (``rules``). When the goal asks to apply the fix and the cause and the fix are in view (or
   it has looked everywhere and has the fix), it calls ``run_sql``. The target is the tool's default
   (``production``) -- unless a standing rule in view (a user message, the system prompt, or a summary)
   rules it out; then the first target left (``staging``). The targets are the ones the tool's schema
   lists. A correction in view ("the table is ``accounts``, not ``users``") changes the statement
   (``corrections``). With no fix it answers with the cause and says it applied nothing.
7. **Summaries.** Asked to summarize or fold (a prompt holding a ``<transcript>`` or ``<events>``),
   it writes only the sections the prompt asks for, within the prompt's word limit, most salient
   lines first. A vague prompt gets the gist only: the goal and the progress. A ``Focus on X``
   line (what ``/compact X`` adds) lifts the facts, rules and decisions about X above the rest,
   so under a tight limit they are the ones that survive.
8. **Delegating.** When a ``delegate`` tool is among the tools it is sent and the goal's scope holds
   more than six files, it does not read them itself: it hands out one folder at a time
   ("Read every file under app/ and report what you notice.") and works from the reports that
   come back. It judges each reported line against its own goal, as if it had read it.
9. **Reporting.** A goal that asks it to read every file under a folder and report (a sub-agent's
   task) is worked to the end of the folder, then answered with ``Files read:`` and every
   ``Cause:``/``Fix:``/``Noticed:`` line it can see.
10. **Limits.** It reports ``usage`` like the API, and raises ``ContextOverflow`` when the request is
   larger than its window.

Left out on purpose: language understanding (a table of four groups of kindred words stands in for
it when matching a focus), planning, editing files, anything random -- unless ``rot=ContextRot(...)``
is switched on: a seeded, deterministic SIMULATION of context rot, labelled as such (see ``ContextRot``).
"""

from __future__ import annotations

import hashlib
import json
import re

from harness.messages import result_text
from harness.model import ContextOverflow, Reply
from harness.tokens import Meter
from stage.offline.context_rot import ContextRot
from stage.offline.corrections import apply_corrections
from stage.offline.view import View, folders_to_hand_out, scope_of, sentences, words
from stage.offline.decisions import decision_note, decisions_in
from stage.offline.findings import (
    facts_in_file,
    facts_in_report,
    fix_statement,
    numbered,
    repair_in,
    sql_body,
)
from stage.offline.searching import findings_in_view, known, lead, look_again, next_file, pointed
from stage.offline.summaries import summary_request, write_summary

SURVEY = re.compile(r"\bread (?:every|each|all)(?: the)? files?\b.*\breport", re.I)
APPLY_WORDS = {
    "apply",
    "execu",
    "migra",
    "datab",
    "patch",
    "pendi",
}  # a goal with these words asks to run the fix
RUN_SQL = re.compile(r"\brun\b[^.]*\bSQL\b", re.I)  # "then run the SQL fix"
DELEGATE_ABOVE = 6  # more files than this in scope, and a delegate tool on offer: hand them out


# ---- the model ------------------------------------------------------------------------------------


class OfflineModel:
    """The offline stand-in. See the module docstring for its rules.

    Example: OfflineModel(window=4096).reply(system, [user("Find the cause ... apply the fix ...")], tools)
    -> a reply that calls list_files, because no listing is in view yet.
    """

    def __init__(
        self, window: int = 5000, meter: Meter | None = None, rot: "ContextRot | None" = None
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
            content, stop = (
                [{"type": "text", "text": write_summary(instruction, material)}],
                "end_turn",
            )
        else:
            seen = self.rot.blur(messages, fullness) if self.rot else messages
            content, stop = self.work(View.read(system, seen, tools), tools)
        out = sum(self.meter.text(b.get("text") or json.dumps(b.get("input", {}))) for b in content)
        return Reply(
            content=content, stop_reason=stop, usage={"input_tokens": sent, "output_tokens": out}
        )

    # -- one decision --
    def work(self, desk: View, tools: list[dict]) -> tuple[list[dict], str]:
        names = {t["name"] for t in tools}
        goal = desk.goal()
        if goal is None:
            return _say(
                "I can no longer see the original request, so I cannot tell what the goal is. "
                "Please restate the task."
            )
        note = [f"Task: {goal}"] + self.fresh_notes(desk, goal)
        if SURVEY.search(goal):  # a sub-agent's task: read the folder, then report
            return self.survey(desk, goal, note)
        applied = [
            use["input"]
            for use, res in desk.calls
            if use["name"] == "run_sql" and res and not _failed(res)
        ]
        applied = applied or [
            ran for ran in [desk.applied_in_summaries()] if ran
        ]  # a summary says it ran
        cause, fix = known(desk, goal)
        if applied:
            return self.finish(desk, note, cause or lead(desk, goal), applied[-1], names)
        wants_apply = bool(words(goal) & APPLY_WORDS) or bool(RUN_SQL.search(goal))
        if cause and not wants_apply:
            return _say("\n".join(note + [f"Done. The cause: {cause}."]))
        if cause and (
            fix or repair_in(cause)
        ):  # a prepared fix, or the repair the cause comment gives
            return self.apply(desk, note, cause, fix)
        for step in self.next_steps(desk, goal, cause, fix, wants_apply, names):
            if step and not _tried(
                desk, *step
            ):  # never the same call again while its result is in view
                return self.call(note, *step)
        cause = cause or lead(desk, goal)  # nothing left to look at: the best it has
        if wants_apply and (fix or (cause and repair_in(cause))):
            return self.apply(desk, note, cause, fix)
        if cause:
            return _say(
                "\n".join(
                    note
                    + [f"Done. The cause: {cause}."]
                    + (
                        [
                            "Nothing applied: no pending fix is in view (no SQL file marked as not yet run, no repair named "
                            "for this goal), and I do not write SQL of my own."
                        ]
                        if wants_apply
                        else []
                    )
                )
            )
        return _say(
            "\n".join(
                note
                + [
                    "I have read every file in scope and searched for what the request names, "
                    "and cannot find what the goal needs. Nothing applied."
                ]
            )
        )

    def next_steps(self, desk: View, goal: str, cause, fix, wants_apply: bool, names: set[str]):
        """The calls worth making now, best first (computed one at a time; ``work`` takes the first it has not
        just tried): look again at a read summarized unseen, follow a pointer to a lost finding, list the files,
        hand a folder to a sub-agent, read the next file, search and read around the hits."""
        yield self.reexamine(desk)
        lost = pointed(desk, cause, fix, wants_apply)
        yield (
            ("read_file", {"path": lost}) if lost else None
        )  # a summary says where the lost finding is
        listing = desk.listing()
        if listing is None:
            yield "list_files", {}
            return
        folder = self.folder_to_delegate(desk, goal, listing, names)
        yield (
            ("delegate", {"task": f"Read every file under {folder} and report what you notice."})
            if folder
            else None
        )
        searching = bool(desk.searched())  # it searches only once the listing is done
        path = None if searching and (cause or fix) else next_file(desk, goal, listing)
        yield ("read_file", {"path": path}) if path else None
        yield look_again(desk, goal, listing, cause, fix, wants_apply)

    def reexamine(self, desk: View):
        """The read a summary says was made just before it and never examined (no verbatim tail kept it): the
        agent has not seen it, so it reads it again -- once. Summarized unseen a second time, it moves on."""
        flagged = desk.unexamined()
        if not flagged or flagged[3] >= 2:
            return None
        path, first, last, _ = flagged
        return "read_file", {
            "path": path,
            **({} if first is None else {"offset": first, "limit": last - first + 1}),
        }

    def apply(
        self, desk: View, note: list[str], cause: str | None, fix: str | None
    ) -> tuple[list[dict], str]:
        """Run the fix on the target the rules in view leave (the tool's default when none rules it out).

        The statement is one the workspace gives -- a pending file's, a named script's, the cause comment's
        own repair -- never one the model makes up. Of several pending fixes it notes which it took, and why.
        """
        statement = fix_statement(fix) if fix else repair_in(cause or "")
        if fix and statement is None:  # a script named by the docs: its text, once read
            script = fix.split(" ")[0]
            text = next((t for p, t in desk.file_texts() if p == script), None)
            if text is None:
                return self.call(note, "read_file", {"path": script})
            statement = sql_body(numbered(text)) or None
        if not statement:
            return _say(
                "\n".join(
                    note
                    + [
                        f"Done. The cause: {cause or 'not found'}. Nothing applied: the fix in view "
                        f"({fix}) holds no statement I can run."
                    ]
                )
            )
        statement = apply_corrections(statement, desk.corrections())
        target = desk.target()
        if target is None:
            rules = "; ".join(desk.rules())
            return _say(
                "\n".join(
                    note
                    + [
                        f"The fix is ready, but the rules in view rule out every target "
                        f"({', '.join(desk.targets)}): {rules}. I will not run it."
                    ]
                )
            )
        return self.call(
            note + self.own_decision(desk, fix),
            "run_sql",
            {"target": target, "statement": statement},
        )

    def own_decision(self, desk: View, fix: str | None) -> list[str]:
        """A Decision note when it picks one of several pending fixes itself (no decision in view to follow)."""
        files = {
            t.split(" ")[0] for k, t in findings_in_view(desk, desk.goal() or "") if k == "Fix"
        }
        chosen = (fix or "").split(" ")[0]
        others = sorted(files - {chosen})
        if not others or any(c for c, _ in desk.decisions()):
            return []
        return [
            decision_note(
                chosen,
                others[0],
                "both are pending; this one matches the goal as well or better "
                "and comes first in order",
            )
        ]

    def fresh_notes(self, desk: View, goal: str) -> list[str]:
        """Notes on the newest file read (or report received), if it is on the desk and not yet noted; and a
        Decision line for a decision the user stated that its notes do not carry yet."""
        return self.decision_notes(desk) + self.reading_notes(desk, goal)

    def decision_notes(self, desk: View) -> list[str]:
        noted = {pair for text in desk.notes + desk.summaries for pair in decisions_in(text)}
        fresh = []
        for text in desk.user_texts:
            for sentence in sentences(text):
                fresh += [
                    decision_note(chosen, passed, f"the user said: {sentence}")
                    for chosen, passed in decisions_in(sentence)
                    if (chosen, passed) not in noted
                ]
        return list(dict.fromkeys(fresh))

    def reading_notes(self, desk: View, goal: str) -> list[str]:
        if not desk.calls:
            return []
        use, result = desk.calls[-1]
        if use["name"] not in ("read_file", "delegate") or not result:
            return []
        text = result_text(result)
        if not text.strip() or text.startswith(("Error:", "[cleared")):
            return []
        if use["name"] == "delegate":  # keep the report's facts, and which files it covered
            files = [
                line.strip() for line in text.splitlines() if line.strip().startswith("Files read:")
            ]
            return [f"{kind}: {fact}" for kind, fact in facts_in_report(text, goal)] + files[:1]
        leads = not known(desk, goal)[
            0
        ]  # weaker candidates are worth a note only while no cause is in view
        return [
            f"{kind}: {fact}"
            for kind, fact in facts_in_file(use["input"]["path"], text, goal, leads)
        ]

    def folder_to_delegate(
        self, desk: View, goal: str, listing: list[str], tools: set[str]
    ) -> str | None:
        """The next folder to hand to a sub-agent, or None to read on by itself.

        Only when ``delegate`` is offered and the scope is bigger than it wants to read
        (``DELEGATE_ABOVE`` files). A folder is done once a visible call names it or its files are covered.
        """
        scope = scope_of(goal, listing)
        if "delegate" not in tools or len(scope) <= DELEGATE_ABOVE:
            return None
        asked = " ".join(
            use["input"].get("task", "") for use, _ in desk.calls if use["name"] == "delegate"
        )
        seen = desk.evidence_of_reading() | desk.delegated()
        for folder in folders_to_hand_out(goal, listing):
            if folder in asked.split() or all(p in seen for p in scope if p.startswith(folder)):
                continue
            return folder
        return None

    def survey(self, desk: View, goal: str, note: list[str]) -> tuple[list[dict], str]:
        """A sub-agent's task: read every file in scope, then report what was seen (and nothing else)."""
        listing = desk.listing()
        if listing is None:
            return self.call(note, "list_files", {})
        path = next_file(desk, goal, listing)
        if path:
            return self.call(note, "read_file", {"path": path})
        scope = scope_of(goal, listing)
        seen = desk.evidence_of_reading() | desk.delegated()
        read = [p for p in scope if p in seen]
        facts = [f"{k}: {t}" for k, t in desk.fact_lines()] + note[1:]
        for path, text in desk.file_texts():
            facts += [f"{k}: {t}" for k, t in facts_in_file(path, text, goal)]
        report = [
            f"Report: read {len(read)} of {len(scope)} files.",
            "Files read: " + ", ".join(read),
        ]
        return _say("\n".join(report + (list(dict.fromkeys(facts)) or ["Nothing worth noting."])))

    def finish(self, desk, note, cause, applied, tools):
        """After the fix: save rules to memory if asked to, then report."""
        if "remember" in tools and re.search(r"\bremember\b", desk.system, re.I):
            saved = {
                inp.get("fact")
                for use, _ in desk.calls
                if use["name"] == "remember"
                for inp in [use["input"]]
            }
            for rule in desk.rules():
                if rule not in desk.system and rule not in saved:
                    return self.call(note, "remember", {"fact": rule})
        where = applied.get("target")
        default = desk.default_target
        why = f" (a rule in view rules out {default})" if default and where != default else ""
        report = f"Done. Cause: {cause or 'not in view any more'}. Applied `{applied.get('statement')}` on {where}{why}."
        return _say("\n".join(note + [report]))

    def call(self, note: list[str], name: str, tool_input: dict) -> tuple[list[dict], str]:
        blocks = [
            {"type": "text", "text": "\n".join(note)},
            {
                "type": "tool_use",
                "id": _fresh_id(self._context, name),
                "name": name,
                "input": tool_input,
            },
        ]
        return blocks, "tool_use"


def _fresh_id(context: list[dict], name: str) -> str:
    """A tool_use id that is the same for the same context and differs for any other (so ids never collide)."""
    digest = hashlib.sha1(
        json.dumps([len(context), context[-2:], name], sort_keys=True).encode()
    ).hexdigest()
    return f"toolu_desk_{digest[:12]}"


def _tried(desk: View, name: str, tool_input: dict) -> bool:
    """Is this exact call on the desk already, failed or with its result still in view? Then it is not made again.

    Example: read_file {"path": "app/"} failed two laps ago and its error is in view -> True (do something else).
    """
    return any(
        use["name"] == name
        and use.get("input") == tool_input
        and result is not None
        and (
            _failed(result)
            or (result_text(result).strip() and not result_text(result).startswith("[cleared"))
        )
        for use, result in desk.calls
    )


def _failed(result: dict) -> bool:
    return bool(result.get("is_error")) or result_text(result).startswith("Error:")


def _say(text: str) -> tuple[list[dict], str]:
    return [{"type": "text", "text": text}], "end_turn"
