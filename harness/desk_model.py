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
   just read (``Cause:``, ``Fix:``, ``Noticed:`` lines). It copies the task into every note --
   but not the rules. (Agents keep their to-do list in view; rules they only read once.)
3. **Reading.** It lists the files when no listing is in view, then reads, in listing order, the
   next file after the furthest one it can see evidence of having read (a read on the desk, or a
   path named in a summary). Files that memory or a summary points at for the goal come first.
4. **Facts.** A ``FIXME``/``BUG`` comment that shares a word with the goal is the *cause*; other
   markers are noticed *in passing*. A ``.sql`` file marked ``-- status: pending`` is the *fix*.
5. **Missing facts.** At the end of the listing, if the cause or the fix is not in view, it
   searches for its marker and re-reads the file the search points at.
6. **Acting.** When the goal asks to apply the fix and both facts are in view, it calls ``run_sql``.
   The target is ``production`` -- unless a rule against production is *visible* (in a user message,
   the system prompt, or a summary). Then it picks ``staging``.
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
from dataclasses import dataclass, field

from harness.messages import blocks_of, is_plain_user, result_text, tool_results, tool_uses
from harness.model import ContextOverflow, Reply
from harness.tokens import Meter

HARNESS_PREFIX = "["          # a user message whose first line is "[...]" was written by the harness
RULE_WORDS = re.compile(r"\b(never|not|n't|no|only|always|avoid|must)\b", re.I)
AGAINST_PRODUCTION = re.compile(
    r"\b(never|not|n't|no|avoid|must not)\b[^.\n]{0,60}\bprod(uction)?\b|\bprod(uction)?\b[^.\n]{0,30}\b(off[- ]limits|forbidden)\b",
    re.I,
)
MARKER = re.compile(r"(?:#|--|//)\s*(FIXME|BUG|NOTE|TODO)\b:?\s*(.*)")
FACT_LINE = re.compile(r"^\W*(Cause|Fix|Noticed): (.+)$")
PATH = re.compile(r"[\w.-]+/(?:[\w./-]*[\w/])?|\b[\w-]+\.(?:py|sql|md|toml|sh)\b")
STOP = set("the and that this with from into then your have were what when which whose there their them "
           "they does code under file files".split())
SUMMARY_ASK = re.compile(r"\bsummar|\bfold\b|\bcompact", re.I)
SURVEY = re.compile(r"\bread (?:every|each|all)(?: the)? files?\b.*\breport", re.I)
DELEGATE_ABOVE = 6           # more files than this in scope, and a delegate tool on offer: hand them out
FOCUS = re.compile(r"^.*\bfocus(?:ing)? on (.+?)(?:\s+first)?\.?\s*$", re.I | re.M)
KINDRED = [                  # words that go together: a real model knows millions of such links, this knows four
    {"datab", "db", "sql", "migra", "table", "schem", "query", "stagi", "produ"},
    {"decis", "decid", "chose", "why"},
    {"test", "tests", "pytes", "cover"},
    {"login", "sign", "auth", "passw", "sessi", "email"},
]
WORD_LIMIT = re.compile(r"(?:at most|under|no more than|within|maximum of|max\.?)\s+(\d+)\s+words|(\d+)\s+words or (?:fewer|less)", re.I)


def words(text: str) -> set[str]:
    """Content words, cut to five letters so 'emails' meets 'email'. Example: 'Emails typed' -> {'email', 'typed'}"""
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in STOP}


def sentences(text: str) -> list[str]:
    """Split text into sentences (and lines). Example: 'Do A. Never B.' -> ['Do A.', 'Never B.']"""
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [p.strip(" -*\t") for p in parts if p.strip(" -*\t")]


def is_rule(sentence: str) -> bool:
    """A standing rule: a sentence that forbids or limits. Example: 'Never touch production.' -> True"""
    return bool(RULE_WORDS.search(sentence))


# ---- what is on the desk -----------------------------------------------------------------------

@dataclass
class Desk:
    """Everything the model can see in one request, sorted into the kinds of things it looks for."""

    system: str
    messages: list[dict]
    request: str | None = None                 # the first user message not written by the harness
    user_texts: list[str] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)           # the model's own earlier text
    calls: list[tuple[dict, dict | None]] = field(default_factory=list)   # (tool_use, tool_result)

    @classmethod
    def read(cls, system: str, messages: list[dict]) -> "Desk":
        desk = cls(system, messages)
        answers = {}
        for message in messages:
            for block in tool_results(message):
                answers[block["tool_use_id"]] = block
        for message in messages:
            for block in blocks_of(message):
                if block.get("type") == "text":
                    text = block["text"]
                    if message["role"] == "assistant":
                        desk.notes.append(text)
                    elif text.lstrip().startswith(HARNESS_PREFIX):
                        desk.summaries.append(text)
                    else:
                        desk.user_texts.append(text)
                        if desk.request is None and is_plain_user(message):
                            desk.request = text
                elif block.get("type") == "tool_use":
                    desk.calls.append((block, answers.get(block["id"])))
        return desk

    # -- the goal and the rules --
    def goal(self) -> str | None:
        if self.request:
            goal = " ".join(s for s in sentences(self.request) if not is_rule(s))
            return goal or self.request
        for text in reversed(self.summaries + self.notes):
            for line in text.splitlines():
                match = re.match(r"^\W*(Goal|Task):\s*(.+)", line)
                if match:
                    return match.group(2).strip()
        return None

    def rules(self) -> list[str]:
        """Every visible standing rule: in user messages, the system prompt, and summaries."""
        found = []
        for text in self.user_texts + [self.system] + self.summaries:
            for s in sentences(text):
                if is_rule(s) and s not in found and not s.lower().startswith(("task:", "goal:")):
                    found.append(s)
        return found

    def production_forbidden(self) -> bool:
        return any(AGAINST_PRODUCTION.search(rule) for rule in self.rules())

    # -- what it has done --
    def results_of(self, tool: str):
        """(input, result text) for each visible call of ``tool`` whose result is still on the desk (and not empty)."""
        found = [(use["input"], result_text(res)) for use, res in self.calls if use["name"] == tool and res]
        return [(inp, text) for inp, text in found if text.strip() and not text.startswith("[cleared")]

    def listing(self) -> list[str] | None:
        found = self.results_of("list_files")
        if not found:
            return None
        return [line.strip() for line in found[-1][1].splitlines() if line.strip() and "(" not in line]

    def reports(self) -> list[str]:
        """The text of every sub-agent report still on the desk (results of ``delegate``)."""
        return [text for _, text in self.results_of("delegate")]

    def delegated(self) -> set[str]:
        """Paths a sub-agent says it read: ``Files read:`` lines in reports and in its own notes."""
        seen = set()
        for text in self.reports() + self.notes:
            for line in text.splitlines():
                if re.match(r"^\W*Files read:", line):
                    seen |= set(PATH.findall(line))
        return seen

    def evidence_of_reading(self) -> set[str]:
        """Paths it can see it has read: read_file calls on the desk, paths named in summaries."""
        seen = {use["input"].get("path", "") for use, _ in self.calls if use["name"] == "read_file"}
        for text in self.summaries:
            seen |= set(PATH.findall(text))
        return seen

    def file_texts(self) -> list[tuple[str, str]]:
        """(path, text) of every file whose content is still on the desk (cleared results excluded)."""
        out = []
        for tool_input, text in self.results_of("read_file"):
            if not text.startswith(("Error:", "[cleared")):
                out.append((tool_input.get("path", ""), text))
        return out

    def fact_lines(self) -> list[tuple[str, str]]:
        """(kind, text) of every Cause/Fix/Noticed line in notes, summaries and the system prompt."""
        out = []
        for text in self.notes + self.summaries + [self.system]:
            for line in text.splitlines():
                match = FACT_LINE.match(line.strip())
                if match:
                    out.append((match.group(1), match.group(2).strip()))
        return out


# ---- reading a file like an agent would -----------------------------------------------------------

def facts_in_file(path: str, numbered_text: str, goal: str) -> list[tuple[str, str]]:
    """The Cause / Fix / Noticed lines a careful reader would jot down about one file.

    Example: a line '40  x == y  # FIXME: email match is case-sensitive' with a goal about email
    -> [("Cause", "app/auth.py:40 — FIXME: email match is case-sensitive")]
    """
    facts = []
    lines = [re.match(r"\s*(\d+)  ?(.*)", raw) for raw in numbered_text.splitlines()]
    lines = [(int(m.group(1)), m.group(2)) for m in lines if m]
    for number, line in lines:
        marker = MARKER.search(line)
        if not marker:
            continue
        kind, comment = marker.group(1), marker.group(2).strip()
        facts.append((judge(kind, comment, goal), f"{path}:{number} — {kind}: {comment}"))
    body = [line for _, line in lines]
    if path.endswith(".sql") and any(re.match(r"--\s*status:\s*pending", line) for line in body):
        statement = " ".join(line.strip() for line in body if line.strip() and not line.strip().startswith("--"))
        facts.append(("Fix", f"{path} (pending) — {statement}"))
    return facts


def judge(marker: str, comment: str, goal: str) -> str:
    """Cause or Noticed: a FIXME/BUG sharing a word with the goal is the cause. Example: ('NOTE', ...) -> 'Noticed'"""
    return "Cause" if marker in ("FIXME", "BUG") and words(comment) & words(goal) else "Noticed"


def facts_in_report(report: str, goal: str) -> list[tuple[str, str]]:
    """The fact lines of a sub-agent's report, judged again against *this* agent's goal.

    The sub-agent did not know the goal, so it may call the cause a mere "Noticed" line.
    Example: 'Noticed: app/auth.py:40 — FIXME: email match' with a goal about email -> [("Cause", ...)]
    """
    facts = []
    for line in report.splitlines():
        match = FACT_LINE.match(line.strip())
        if not match:
            continue
        kind, fact = match.groups()
        marked = re.match(r"\S+:\d+ — (FIXME|BUG|NOTE|TODO): (.*)", fact)
        facts.append((judge(marked.group(1), marked.group(2), goal) if marked else kind, fact.strip()))
    return facts


def fix_statement(fix_line: str) -> str | None:
    """The SQL in a Fix line, if the line carries it. Example: 'a.sql (pending) — UPDATE t;' -> 'UPDATE t;'"""
    _, _, statement = fix_line.partition(" — ")
    return statement.strip() or None


# ---- the model ------------------------------------------------------------------------------------

class DeskModel:
    """The offline stand-in. See the module docstring for its rules.

    Example: DeskModel(window=4096).reply(system, [user("Find the cause ... apply the fix ...")], tools)
    -> a reply that calls list_files, because no listing is in view yet.
    """

    def __init__(self, window: int = 5000, meter: Meter | None = None, rot: "ContextRot | None" = None):
        if window <= 0:
            raise ValueError(f"The window must be a positive number of tokens, not {window}.")
        self.name = "offline-desk-model"
        self.window = window
        self.meter = meter or Meter("tiktoken")
        self.rot = rot
        self._context: list[dict] = []

    def reply(self, system: str, messages: list[dict], tools: list[dict], max_tokens: int = 1024) -> Reply:
        sent = self.meter.total(messages, system=system, tools=tools)
        if sent > self.window:
            raise ContextOverflow(sent, self.window)
        self._context = messages
        fullness = sent / self.window
        ask = summary_request(messages)
        if ask is not None:
            instruction, material = ask
            if self.rot:            # the simulation: far from the end of a very full request, lines slip
                material = self.rot.blur_text(material, fullness)
            content, stop = [{"type": "text", "text": write_summary(instruction, material)}], "end_turn"
        else:
            seen = self.rot.blur(messages, fullness) if self.rot else messages
            content, stop = self.work(Desk.read(system, seen), {t["name"] for t in tools})
        out = sum(self.meter.text(b.get("text") or json.dumps(b.get("input", {}))) for b in content)
        return Reply(content=content, stop_reason=stop, usage={"input_tokens": sent, "output_tokens": out})

    # -- one decision --
    def work(self, desk: Desk, tools: set[str]) -> tuple[list[dict], str]:
        goal = desk.goal()
        if goal is None:
            return _say("I can no longer see the original request, so I cannot tell what the goal is. "
                        "Please restate the task.")
        note = [f"Task: {goal}"] + self.fresh_notes(desk, goal)
        if SURVEY.search(goal):          # a sub-agent's task: read the folder, then report
            return self.survey(desk, goal, note)
        applied = [use["input"] for use, res in desk.calls if use["name"] == "run_sql" and res]
        cause, fix = self.known(desk, goal)

        if applied:
            return self.finish(desk, note, goal, cause, applied[-1], tools)
        wants_apply = bool(words(goal) & words("apply run database migration"))
        if cause and (fix or not wants_apply):
            if not wants_apply:
                return _say("\n".join(note + [f"Done. The cause: {cause}."]))
            statement = fix_statement(fix)
            if statement is None:   # we know which file holds the fix, not its text: look again
                return self.call(note, "read_file", {"path": fix.split(" ")[0]})
            target = "staging" if desk.production_forbidden() else "production"
            return self.call(note, "run_sql", {"target": target, "statement": statement})

        listing = desk.listing()
        if listing is None:
            return self.call(note, "list_files", {})
        folder = self.folder_to_delegate(desk, goal, listing, tools)
        if folder:
            return self.call(note, "delegate", {"task": f"Read every file under {folder} and report what you notice."})
        path = self.next_file(desk, goal, listing)
        if path:
            return self.call(note, "read_file", {"path": path})
        # End of the listing and a fact is missing: search for its marker, then read what it points at.
        marker = "FIXME" if not cause else "status: pending"
        hits = [r for inp, r in desk.results_of("search") if inp.get("text") == marker]
        if not hits:
            return self.call(note, "search", {"text": marker})
        leads = re.findall(r"^([^:\n]+):\d+:", hits[-1], re.M)
        lead = next((p for p in leads if p in _scope(goal, listing)), leads[0] if leads else None)
        if lead and lead not in [p for p, _ in desk.file_texts()]:
            return self.call(note, "read_file", {"path": lead})
        return _say("\n".join(note + ["I have read every file in scope and cannot find what the goal needs."]))

    def fresh_notes(self, desk: Desk, goal: str) -> list[str]:
        """Notes on the newest file read (or report received), if it is on the desk and not yet noted."""
        if not desk.calls:
            return []
        use, result = desk.calls[-1]
        if use["name"] not in ("read_file", "delegate") or not result:
            return []
        text = result_text(result)
        if not text.strip() or text.startswith(("Error:", "[cleared")):
            return []
        if use["name"] == "delegate":   # keep the report's facts, and which files it covered
            files = [line.strip() for line in text.splitlines() if line.strip().startswith("Files read:")]
            return [f"{kind}: {fact}" for kind, fact in facts_in_report(text, goal)] + files[:1]
        return [f"{kind}: {fact}" for kind, fact in facts_in_file(use["input"]["path"], text, goal)]

    def known(self, desk: Desk, goal: str) -> tuple[str | None, str | None]:
        """The cause and the fix, if they are anywhere in view (a file on the desk or a fact line)."""
        facts = list(desk.fact_lines())
        for path, text in desk.file_texts():
            facts += facts_in_file(path, text, goal)
        for report in desk.reports():
            facts += facts_in_report(report, goal)
        cause = next((t for k, t in reversed(facts) if k == "Cause"), None)
        fixes = [t for k, t in facts if k == "Fix"]
        fix = next((f for f in reversed(fixes) if fix_statement(f)), fixes[-1] if fixes else None)
        return cause, fix

    def next_file(self, desk: Desk, goal: str, listing: list[str]) -> str | None:
        """The file to read next: hinted files first, then the listing after the furthest read."""
        scope = _scope(goal, listing)
        own = desk.evidence_of_reading()
        seen = own | desk.delegated()
        goal_words = words(goal)
        for text in [desk.system] + desk.summaries:
            for line in text.splitlines():
                if words(line) & goal_words and not re.match(r"^\W*(Goal|Task):", line):
                    for hinted in PATH.findall(line):
                        for path in scope:
                            if (path == hinted or path.startswith(hinted.rstrip("/") + "/")) and path not in seen:
                                return path
        furthest = max((i for i, p in enumerate(scope) if p in own), default=-1)   # its own reading only
        return next((p for p in scope[furthest + 1:] if p not in seen), None)

    def folder_to_delegate(self, desk: Desk, goal: str, listing: list[str], tools: set[str]) -> str | None:
        """The next folder to hand to a sub-agent, or None to read on by itself.

        Only when ``delegate`` is offered and the scope is bigger than it wants to read
        (``DELEGATE_ABOVE`` files). A folder is done once a visible call names it or its files are covered.
        """
        scope = _scope(goal, listing)
        if "delegate" not in tools or len(scope) <= DELEGATE_ABOVE:
            return None
        asked = " ".join(use["input"].get("task", "") for use, _ in desk.calls if use["name"] == "delegate")
        seen = desk.evidence_of_reading() | desk.delegated()
        for folder in _folders(goal, listing):
            if folder in asked.split() or all(p in seen for p in scope if p.startswith(folder)):
                continue
            return folder
        return None

    def survey(self, desk: Desk, goal: str, note: list[str]) -> tuple[list[dict], str]:
        """A sub-agent's task: read every file in scope, then report what was seen (and nothing else)."""
        listing = desk.listing()
        if listing is None:
            return self.call(note, "list_files", {})
        path = self.next_file(desk, goal, listing)
        if path:
            return self.call(note, "read_file", {"path": path})
        scope = _scope(goal, listing)
        seen = desk.evidence_of_reading() | desk.delegated()
        read = [p for p in scope if p in seen]
        facts = [f"{k}: {t}" for k, t in desk.fact_lines()] + note[1:]
        for path, text in desk.file_texts():
            facts += [f"{k}: {t}" for k, t in facts_in_file(path, text, goal)]
        report = [f"Report: read {len(read)} of {len(scope)} files.", "Files read: " + ", ".join(read)]
        return _say("\n".join(report + (list(dict.fromkeys(facts)) or ["Nothing worth noting."])))

    def finish(self, desk, note, goal, cause, applied, tools):
        """After the fix: save rules to memory if asked to, then report."""
        if "remember" in tools and re.search(r"\bremember\b", desk.system, re.I):
            saved = {inp.get("fact") for use, _ in desk.calls if use["name"] == "remember" for inp in [use["input"]]}
            for rule in desk.rules():
                if rule not in desk.system and rule not in saved:
                    return self.call(note, "remember", {"fact": rule})
        where = applied["target"]
        why = " (a rule in view rules out production)" if where == "staging" else ""
        report = f"Done. Cause: {cause or 'not in view any more'}. Applied `{applied['statement']}` on {where}{why}."
        return _say("\n".join(note + [report]))

    def call(self, note: list[str], name: str, tool_input: dict) -> tuple[list[dict], str]:
        blocks = [{"type": "text", "text": "\n".join(note)},
                  {"type": "tool_use", "id": _fresh_id(self._context, name), "name": name, "input": tool_input}]
        return blocks, "tool_use"


def _fresh_id(context: list[dict], name: str) -> str:
    """A tool_use id that is the same for the same context and differs for any other (so ids never collide)."""
    digest = hashlib.sha1(json.dumps([len(context), context[-2:], name], sort_keys=True).encode()).hexdigest()
    return f"toolu_desk_{digest[:12]}"


def _say(text: str) -> tuple[list[dict], str]:
    return [{"type": "text", "text": text}], "end_turn"


def _named_folders(goal: str) -> list[str]:
    """The folders a goal names. Example: '... under app/ and migrations/, then ...' -> ['app/', 'migrations/']"""
    return re.findall(r"\b([\w.-]+/)(?=[\s,.;)]|$)", goal)


def _folders(goal: str, listing: list[str]) -> list[str]:
    """The folders to hand out: those the goal names, or else the top-level folders of the listing."""
    return _named_folders(goal) or list(dict.fromkeys(p.split("/")[0] + "/" for p in listing if "/" in p))


def _scope(goal: str, listing: list[str]) -> list[str]:
    """The files the goal points at (folders it names), or the whole listing if it names none."""
    folders = _named_folders(goal)
    if not folders:
        return listing
    return [p for p in listing if any(p.startswith(f) for f in folders)]


# ---- writing summaries ----------------------------------------------------------------------------

SECTION_KINDS = [            # (kind, words in a prompt bullet that ask for it)
    ("constraints", ("constraint", "rule", "instruction", "forbid")),
    ("goal", ("goal", "request", "objective", "task")),
    ("decisions", ("decision", "decided", "why")),
    ("pointers", ("pointer", "re-read", "reread", "re-run")),
    ("progress", ("done", "pending", "progress", "next", "remaining", "state")),
    ("facts", ("fact", "identifier", "discover", "learned", "finding")),
    ("files", ("file", "touched", "paths read")),
]
SALIENCE = {"goal": 100, "constraints": 90, "Cause": 80, "Fix": 80, "progress": 70, "decisions": 60,
            "files": 50, "Noticed": 20, "pointers": 10}


def summary_request(messages: list[dict]):
    """(instruction, material) if the newest message asks for a summary or a fold, else None."""
    if not messages or messages[-1]["role"] != "user":
        return None
    text = "\n".join(b.get("text", "") for b in blocks_of(messages[-1]) if b.get("type") == "text")
    match = re.search(r"<(transcript|events)>", text)
    if not match:
        return None
    instruction = re.sub(r"<(transcript|events|summary)>.*?</\1>", "", text, flags=re.S)
    if not SUMMARY_ASK.search(instruction):
        return None
    material = "\n".join(m.group(2) for m in re.finditer(r"<(summary|transcript|events)>(.*?)</\1>", text, re.S))
    return instruction, material


def write_summary(instruction: str, material: str) -> str:
    """Write the summary the instruction asks for, from the material it was given."""
    items = gather(material)
    limit = _word_limit(instruction)
    focus = FOCUS.search(instruction)
    if focus:   # "/compact <focus>": what the focus names goes first, and is the last to be cut
        items = [(k, t, s + FOCUS_BONUS if on_focus(k, t, focus.group(1)) else s) for k, t, s in items]
    sections = asked_sections(instruction)
    if not sections:   # a vague prompt: just the gist -- the goal and the progress
        return _trim([("", t, s) for k, t, s in items if k in ("goal", "progress")], limit)
    lines = []
    for heading, kind in sections:
        chosen = [(t, s) for k, t, s in items if k == kind or (kind == "facts" and k in ("Cause", "Fix", "Noticed"))]
        lines.append((heading, None, 1000))
        lines += [(heading, t, s) for t, s in sorted(chosen, key=lambda ts: -ts[1])]
    return _trim(lines, limit)


FOCUS_BONUS = 65       # lifts a focused fact above every unfocused fact, even the cause
FOCUSABLE = ("constraints", "Cause", "Fix", "Noticed", "decisions")
FOCUS_STOP = {"on", "in", "of", "to", "for", "all", "any", "is", "it", "an", "be", "first", "and", "the"}


def on_focus(kind: str, text: str, focus: str) -> bool:
    """Does a summary item speak to the focus? Its words (or its section's name) meet the focus words
    or their kin. Example: ('Fix', 'migrations/003.sql (pending) — UPDATE ...', 'database decisions') -> True
    """
    if kind not in FOCUSABLE:
        return False
    wanted = _stems(focus)
    for group in KINDRED:
        if wanted & group:
            wanted |= group
    return bool(_stems(f"{kind} {text}") & wanted)


def _stems(text: str) -> set[str]:
    """Like ``words``, but short words count too ('db', 'sql'). Example: 'the db rows' -> {'db', 'rows'}"""
    return {w[:5] for w in re.findall(r"[a-z]{2,}", text.lower()) if w not in STOP | FOCUS_STOP}


def asked_sections(instruction: str) -> list[tuple[str, str]]:
    """(heading, kind) for each bullet of the instruction that names a kind of content."""
    out = []
    for line in instruction.splitlines():
        bullet = re.match(r"^\s*(?:[-*•]|\d+[.)])\s+(.+)", line)
        if not bullet:
            continue
        body = bullet.group(1)
        heading = body.split(":")[0].strip() if ":" in body else body.strip()
        for kind, keys in SECTION_KINDS:
            if any(k in body.lower() for k in keys) and kind not in [k for _, k in out]:
                out.append((heading, kind))
                break
    return out


def gather(material: str) -> list[tuple[str, str, int]]:
    """(kind, line, salience) for everything worth keeping in a transcript or an old summary."""
    items, goal, section = [], None, ""
    for raw in material.splitlines():
        line = raw.strip(" -*\t")
        if re.match(r"^[A-Z][\w /]{2,40}:$", line):           # a heading of an earlier summary
            section = line.lower()
            continue
        fact = FACT_LINE.match(line)
        if fact:
            items.append((fact.group(1), f"{fact.group(1)}: {fact.group(2)}", SALIENCE[fact.group(1)]))
            continue
        head = re.match(r"^(?:assistant:\s*)?(Goal|Task):\s*(.+)", line)
        if head:
            goal = goal or head.group(2)
            continue
        said = re.match(r"^user:\s*(.+)", line)
        if said and said.group(1).startswith(HARNESS_PREFIX):
            continue                                            # a summary header, not the user
        if said or "constraint" in section or "rule" in section:
            for s in sentences(said.group(1) if said else line):
                if is_rule(s):
                    items.append(("constraints", s, SALIENCE["constraints"]))
                elif said and goal is None:
                    goal = s
        elif "decision" in section and line:
            items.append(("decisions", line, SALIENCE["decisions"]))
        applied = re.search(r"Recorded on (\w+)", line)
        if applied:
            items.append(("decisions", f"Ran the fix on {applied.group(1)}.", SALIENCE["decisions"]))
    read = []
    for m in re.finditer(r'read_file \{"path": "([^"]+)"\}|^\W*Files read:\s*(.+)$', material, re.M):
        read += [m.group(1)] if m.group(1) else re.split(r",\s*", m.group(2).strip())
    read = list(dict.fromkeys(read))
    # A file read just before the cut has no notes yet: take its facts from the result itself.
    for m in re.finditer(r'read_file \{"path": "([^"]+)"\}\ntool result:\n(.*?)(?=\n(?:user|assistant)\b|\Z)',
                         material, re.S):
        items += [(k, f"{k}: {t}", SALIENCE[k]) for k, t in facts_in_file(m.group(1), m.group(2), goal or "")]
    if goal:
        items.append(("goal", f"Goal: {goal}", SALIENCE["goal"]))
    if read:
        items.append(("files", "Files read: " + ", ".join(read), SALIENCE["files"]))
    causes = [t for k, t, _ in items if k == "Cause"]
    fixes = [t for k, t, _ in items if k == "Fix"]
    done = f"read {len(read)} files" + (f"; found the cause in {causes[-1].split(' ')[1].split(':')[0]}" if causes else "")
    pending = "apply the pending fix" if fixes else ("find the fix" if causes else "find the cause")
    items.append(("progress", f"Done: {done}. Pending: {pending}.", SALIENCE["progress"]))
    for kind, text, _ in list(items):
        if kind in ("Cause", "Fix", "Noticed"):
            path = text.split(" ")[1].split(":")[0]
            items.append(("pointers", f"Re-read {path} for the exact lines.", SALIENCE["pointers"]))
    return _dedupe(items)


def _dedupe(items):
    seen, out = set(), []
    for item in items:
        if item[1] not in seen:
            seen.add(item[1])
            out.append(item)
    return out


def _word_limit(instruction: str) -> int:
    match = WORD_LIMIT.search(instruction)
    if match:
        return int(match.group(1) or match.group(2))
    if re.search(r"\b(brief|briefly|short|concise)\b", instruction, re.I):
        return 40
    return 250


def _trim(lines, limit: int) -> str:
    """Keep the most salient lines that fit in ``limit`` words, in their original order."""
    order = sorted(range(len(lines)), key=lambda i: -lines[i][2])
    kept, used, opened = set(), 0, set()
    for i in order:
        heading, text, _ = lines[i]
        if text is None:
            continue
        bare = not heading or text.startswith(f"{heading}:")
        n = len(text.split()) + (0 if bare else 1 + (len(f"{heading}:".split()) if heading not in opened else 0))
        if used + n <= limit:
            kept.add(i)
            used += n
            opened |= set() if bare else {heading}
    out, last_heading = [], None
    for i, (heading, text, _) in enumerate(lines):
        if i not in kept:
            continue
        if not heading or text.startswith(f"{heading}:"):   # the line names its own section
            out.append(text)
            continue
        if heading != last_heading:
            out.append(f"{heading}:")
            last_heading = heading
        out.append(f"- {text}")
    if not out:   # the limit is too tight for even one line: cut the best one
        best = max((ln for ln in lines if ln[1]), key=lambda ln: ln[2], default=("", "", 0))
        out = [" ".join(best[1].split()[:limit])]
    return "\n".join(out)


class ContextRot:
    """A SIMULATION of context rot -- not a measurement of any real model.

    Practitioners report that a very full context is recalled less reliably than a roomy one,
    worst for what sits far from the end. This knob imitates that in the desk model, so the class
    can watch the effect: when a request fills more than ``starts_at`` of the window, each line of
    text (a note, a rule, a summary line) and each tool result may slip out of what the model sees.
    The chance grows with fullness and with distance from the end:

        chance = strength x (fullness - starts_at) / (1 - starts_at) x distance_from_end

    Example: starts_at 0.6, strength 0.9, a request 90 % full, a rule 80 % of the way back
    -> 0.9 x 0.75 x 0.8 = 54 % chance that the rule is not seen.

    Deterministic: whether a line slips is a hash of ``seed`` and the line's text, so the same
    request always rots the same way, and a line that slipped at 85 % full also slips, in the same
    place, at 90 %.
    Left out: everything real models actually do. The opening request (pinned at the start, and
    the part practitioners find best recalled) and the newest message are spared, and so are the
    harness's own ``[...]`` header lines, so the desk model can still tell a summary from a remark.
    """

    def __init__(self, starts_at: float = 0.6, strength: float = 0.9, seed: int = 0):
        if not 0 <= starts_at < 1 or not 0 <= strength <= 1:
            raise ValueError(f"starts_at must be in [0, 1) and strength in [0, 1], not {starts_at}, {strength}.")
        self.starts_at, self.strength, self.seed = starts_at, strength, seed

    def chance(self, fullness: float, distance: float) -> float:
        """The chance that a piece ``distance`` from the end (0 newest, 1 oldest) slips, at ``fullness``."""
        rise = min(1.0, max(0.0, (fullness - self.starts_at) / (1 - self.starts_at)))
        return self.strength * rise * distance

    def slips(self, piece: str, fullness: float, distance: float) -> bool:
        """Does this piece of text slip? Seeded and repeatable: a hash stands in for a dice roll."""
        draw = int(hashlib.sha1(f"{self.seed}|{piece}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        return draw < self.chance(fullness, distance)

    def blur(self, messages: list[dict], fullness: float) -> list[dict]:
        """What a rotting model sees of ``messages``: new copies with the slipped lines and results taken out."""
        if fullness <= self.starts_at or len(messages) < 3:
            return messages
        sizes = [len(json.dumps(m["content"])) for m in messages]
        total, seen = sum(sizes), [messages[0]]
        for i, message in enumerate(messages[1:-1], start=1):
            distance = sum(sizes[i + 1:]) / total
            blocks = []
            for block in blocks_of(message):
                if block.get("type") == "text":
                    block = {**block, "text": self._keep_lines(block["text"], fullness, distance)}
                elif block.get("type") == "tool_result" and self.slips(result_text(block), fullness, distance):
                    block = {**block, "content": ""}
                blocks.append(block)
            seen.append({"role": message["role"], "content": blocks})
        return seen + messages[-1:]

    def blur_text(self, text: str, fullness: float) -> str:
        """The same for one long text (a transcript to summarize): lines far from its end may slip."""
        if fullness <= self.starts_at:
            return text
        lines, kept, done = text.splitlines(), [], 0
        total = sum(len(line) + 1 for line in lines) or 1
        for line in lines:
            done += len(line) + 1
            if line.lstrip().startswith("[") or not self.slips(line, fullness, 1 - done / total):
                kept.append(line)
        return "\n".join(kept)

    def _keep_lines(self, text: str, fullness: float, distance: float) -> str:
        return "\n".join(line for line in text.splitlines()
                         if line.lstrip().startswith("[") or not self.slips(line, fullness, distance))
