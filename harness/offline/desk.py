"""What the desk model sees: the request, the rules, its notes, the files on the desk.

``Desk.read(system, messages)`` sorts one request into the kinds of things the offline model
looks for; the helpers below read files and reports the way a careful agent would jot them down.
Everything here is plain text matching -- the desk model's whole "understanding".

Left out: anything a real model would infer. A rule must say never / not / only / avoid / must;
a bug must carry a ``FIXME`` or ``BUG`` marker; a fix is a ``.sql`` file marked ``-- status: pending``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.messages import blocks_of, is_plain_user, result_text, tool_results

HARNESS_PREFIX = "["          # a user message whose first line is "[...]" was written by the harness
RULE_WORDS = re.compile(r"\b(never|not|n't|no|only|always|avoid|must)\b", re.I)
AGAINST_PRODUCTION = re.compile(
    r"\b(never|not|n't|no|avoid|must not)\b[^.\n]{0,60}\bprod(uction)?\b|\bprod(uction)?\b[^.\n]{0,30}\b(off[- ]limits|forbidden)\b",
    re.I,
)
MARKER = re.compile(r"(?:#|--|//)\s*(FIXME|BUG|NOTE|TODO)\b:?\s*(.*)")
NOT_A_RULE = re.compile(r"^\W*(Cause|Fix|Noticed|Goal|Task|Files read|Still to read|Done|Re-read)\b")
FACT_LINE = re.compile(r"^\W*(Cause|Fix|Noticed): (.+)$")
PATH = re.compile(r"[\w.-]+/(?:[\w./-]*[\w/])?|\b[\w-]+\.(?:py|sql|md|toml|sh)\b")
STOP = set("the and that this with from into then your have were what when which whose there their them "
           "they does code under file files".split())


def words(text: str) -> set[str]:
    """Content words, cut to five letters so 'emails' meets 'email'. Example: 'Emails typed' -> {'email', 'typed'}"""
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in STOP}


def sentences(text: str) -> list[str]:
    """Split text into sentences (and lines). Example: 'Do A. Never B.' -> ['Do A.', 'Never B.']"""
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [p.strip(" -*\t") for p in parts if p.strip(" -*\t")]


def is_rule(sentence: str) -> bool:
    """A standing rule: a sentence that forbids or limits. Example: 'Never touch production.' -> True"""
    return bool(RULE_WORDS.search(sentence) or AGAINST_PRODUCTION.search(sentence))


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
        """Every visible standing rule: in user messages, the system prompt, and summaries.

        A summary's fact lines ("Noticed: ... no test covers this") are findings, not rules.
        """
        found = []
        for text in self.user_texts + [self.system] + self.summaries:
            for line in text.splitlines():
                if NOT_A_RULE.match(line):
                    continue
                found += [s for s in sentences(line) if is_rule(s) and s not in found]
        return found

    def production_forbidden(self) -> bool:
        return any(AGAINST_PRODUCTION.search(rule) for rule in self.rules())

    # -- what it has done --
    def results_of(self, tool: str):
        """(input, result text) for each visible call of ``tool`` whose result is still on the desk (and not empty)."""
        found = [(use["input"], result_text(res)) for use, res in self.calls if use["name"] == tool and res]
        return [(inp, text) for inp, text in found if text.strip() and not text.startswith("[cleared")]

    def listing(self) -> list[str] | None:
        """The files in view: the newest list_files result, or a summary's files read + still to read."""
        found = self.results_of("list_files")
        if found:
            return [line.strip() for line in found[-1][1].splitlines() if line.strip() and "(" not in line]
        for text in reversed(self.summaries):
            planned = re.findall(r"^\W*Still to read:\s*(.*)$", text, re.M)
            if planned:
                done = re.findall(r"^\W*Files read:\s*(.*)$", text, re.M)
                return sorted({p for line in done + planned for p in PATH.findall(line)})
        return None

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
            for line in text.splitlines():
                if not re.match(r"^\W*Still to read:", line):
                    seen |= set(PATH.findall(line))
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


def named_folders(goal: str) -> list[str]:
    """The folders a goal names. Example: '... under app/ and migrations/, then ...' -> ['app/', 'migrations/']"""
    return re.findall(r"\b([\w.-]+/)(?=[\s,.;)]|$)", goal)


def folders_to_hand_out(goal: str, listing: list[str]) -> list[str]:
    """The folders to hand out: those the goal names, or else the top-level folders of the listing."""
    return named_folders(goal) or list(dict.fromkeys(p.split("/")[0] + "/" for p in listing if "/" in p))


def scope_of(goal: str, listing: list[str]) -> list[str]:
    """The files the goal points at (folders it names), or the whole listing if it names none."""
    folders = named_folders(goal)
    if not folders:
        return listing
    return [p for p in listing if any(p.startswith(f) for f in folders)]
