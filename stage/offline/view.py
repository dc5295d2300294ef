"""What the offline model sees: the request, the rules, its notes, the files on the desk.

``View.read(system, messages, tools)`` sorts one request into the kinds of things the offline model
looks for. Rules are read by ``rules``, findings in files by ``findings``, corrections by
``corrections``; the targets an action may go to come from the tools it was sent.
Everything here is plain text matching -- the offline model's whole "understanding".

Left out: anything a real model would infer (see each module's list of what it misses).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.messages import blocks_of, is_plain_user, result_text, text_of, tool_results
from stage.offline.corrections import corrections_in
from stage.offline.decisions import decisions_in
from stage.offline.findings import FACT_LINE, words  # noqa: F401  (words: re-exported for the model)
from stage.offline.goal import is_rule, sentences, without_rules  # noqa: F401  (re-exported)
from stage.offline.rules import choose_target, declared_targets

HARNESS_PREFIX = "["  # a user message whose first line is "[...]" was written by the harness
NOT_A_RULE = re.compile(
    r"^\W*(Cause|Fix|Noticed|Lead|Correction|Decision|Goal|Task|Files read|Still to read|Done|Re-read|"
    r"Opened)\b"
)
UNEXAMINED = re.compile(
    r"^\W*Opened (\S+?)(?::(\d+)-(\d+))? just before this summary; not yet examined"
    r"(?: \((\d+) times\))?",
    re.M,
)
PART = re.compile(
    r"^\[lines (\d+)-(\d+) of \d+ shown", re.M
)  # read_file's note on a part of a long file
# A path starts where a word starts and its parts are bounded, so one huge token (a misbehaving tool's output)
# is scanned in linear time, not tried again from each of its characters.
PATH = re.compile(
    r"(?<![\w.-])[\w.-]{1,200}/(?:[\w./-]{0,400}[\w/])?|(?<![\w-])[\w-]{1,200}\.[a-z]{1,5}\b"
)


# ---- what is on the desk -----------------------------------------------------------------------


@dataclass
class View:
    """Everything the model can see in one request, sorted into the kinds of things it looks for."""

    system: str
    messages: list[dict]
    targets: list[str] = field(default_factory=list)  # where run_sql may aim, from the tools sent
    default_target: str | None = None
    request: str | None = None  # the first user message not written by the harness
    user_texts: list[str] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # the model's own earlier text
    calls: list[tuple[dict, dict | None]] = field(default_factory=list)  # (tool_use, tool_result)

    @classmethod
    def read(cls, system: str, messages: list[dict], tools: list[dict] | None = None) -> "View":
        desk = cls(system, messages, *declared_targets(tools or []))
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
            return without_rules(self.request, self.targets or None) or self.request
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
                found += [
                    s
                    for s in sentences(line)
                    if is_rule(s, self.targets or None) and s not in found
                ]
        return found

    def target(self) -> str | None:
        """Where an action should go: the tool's default, unless a rule in view rules it out (None: all are)."""
        return choose_target(self.rules(), self.targets, self.default_target)

    def decisions(self) -> list[tuple[str, str]]:
        """(chosen, passed over) fix files decided on, newest first: the agent's Decision notes, summaries, the user."""
        found = []
        for text in self.notes + self.summaries + self.user_texts + [self.system]:
            found += decisions_in(text)
        return list(dict.fromkeys(reversed(found)))

    def unexamined(self) -> tuple[str, int | None, int | None, int] | None:
        """The file the newest summary says was opened just before it and not yet examined -- unless the agent
        has written since that summary (its note then covers the file). With no verbatim tail, a read is
        summarized before the agent ever saw it; this is how the agent notices."""
        marks = [
            i
            for i, m in enumerate(self.messages)
            if m["role"] == "user" and text_of(m).lstrip().startswith(HARNESS_PREFIX)
        ]
        if not marks or any(m["role"] == "assistant" for m in self.messages[marks[-1] + 1 :]):
            return None
        found = UNEXAMINED.search(text_of(self.messages[marks[-1]]))
        if not found:
            return None
        path, first, last, times = found.groups()
        return path, first and int(first), last and int(last), int(times or 1)

    def corrections(self) -> list[tuple[str, str]]:
        """(old, new) names the user put right, in summaries and user messages, oldest first."""
        pairs = []
        for text in self.summaries + self.user_texts:
            for line in text.splitlines():
                pairs += corrections_in(line)
        return pairs

    # -- what it has done --
    def results_of(self, tool: str):
        """(input, result text) for each visible call of ``tool`` whose result is still on the desk (and not empty)."""
        found = [
            (use["input"], result_text(res))
            for use, res in self.calls
            if use["name"] == tool and res
        ]
        return [
            (inp, text) for inp, text in found if text.strip() and not text.startswith("[cleared")
        ]

    def listing(self) -> list[str] | None:
        """The files in view: the newest list_files result, or a summary's files read + still to read."""
        found = self.results_of("list_files")
        if found:
            return [
                line.strip()
                for line in found[-1][1].splitlines()
                if line.strip() and "(" not in line
            ]
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
        return seen | self.summary_paths()

    def summary_paths(self) -> set[str]:
        """Paths a summary names as read or found (not those it lists as still to read)."""
        seen = set()
        for text in self.summaries:
            for line in text.splitlines():
                if not re.match(r"^\W*Still to read:", line):
                    seen |= set(PATH.findall(line))
        return seen

    def shows(self, path: str, number: int) -> bool:
        """Is line ``number`` of ``path`` on the desk now? Example: after reading a.py whole, ('a.py', 40) -> True"""
        return any(number in shown for shown in self.lines_in_view().get(path, []))

    def file_texts(self) -> list[tuple[str, str]]:
        """(path, text) of every file (or part of one) whose content is still on the desk (cleared results excluded)."""
        out = []
        for tool_input, text in self.results_of("read_file"):
            if (
                not text.startswith(("Error:", "[cleared"))
                and " is a folder, not a file." not in text.split("\n")[0]
            ):
                out.append((tool_input.get("path", ""), text))
        return out

    def lines_in_view(self) -> dict[str, list[range]]:
        """{path: line ranges} of the files and parts on the desk now. Example: {'a.py': [range(1, 10**9)]}"""
        shown: dict[str, list[range]] = {}
        for path, text in self.file_texts():
            part = PART.search(text)
            shown.setdefault(path, []).append(
                range(int(part[1]), int(part[2]) + 1) if part else range(1, 10**9)
            )
        return shown

    def applied_in_summaries(self) -> dict | None:
        """{"target", "statement"} if a summary says the fix has already run ('ran the fix on staging: ...')."""
        for text in reversed(self.summaries):
            found = re.findall(r"ran the fix on (\w+): (.+?)\. Pending", text)
            if found:
                return {"target": found[-1][0], "statement": found[-1][1]}
        return None

    def searched(self) -> dict[str, str | None]:
        """What it has searched for: {text: result} for searches on the desk, {text: None} for those a summary
        or its newest to-do line says were done, or whose result was cleared (their hits are gone, so they
        cannot be followed again; searching again would only lose them again)."""
        found: dict[str, str | None] = {}
        for text in self.summaries + self.notes[-1:]:  # and the newest note's to-do line
            for line in re.findall(r"searched for (.+?)\. Pending", text):
                found.update({t: None for t in line.split(" | ")})
        found.update(
            {
                use["input"].get("text"): None
                for use, result in self.calls
                if use["name"] == "search" and result and result_text(result).startswith("[cleared")
            }
        )
        found.update({inp.get("text"): hits for inp, hits in self.results_of("search")})
        return found

    def fact_lines(self) -> list[tuple[str, str]]:
        """(kind, text) of every Cause/Fix/Noticed line in notes, summaries and the system prompt."""
        out = []
        for text in self.notes + self.summaries + [self.system]:
            for line in text.splitlines():
                match = FACT_LINE.match(line.strip())
                if match:
                    out.append((match.group(1), match.group(2).strip()))
        return out


# ---- where the goal points ----------------------------------------------------------------------


def named_folders(goal: str) -> list[str]:
    """The folders a goal names. Example: '... under app/ and migrations/, then ...' -> ['app/', 'migrations/']"""
    return re.findall(r"(?<![\w./-])((?:[\w.-]+/)+)(?=[\s,.;)]|$)", goal)


def folders_to_hand_out(goal: str, listing: list[str]) -> list[str]:
    """The folders to hand out: those the goal names, or else the top-level folders of the listing."""
    return named_folders(goal) or list(
        dict.fromkeys(p.split("/")[0] + "/" for p in listing if "/" in p)
    )


def scope_of(goal: str, listing: list[str]) -> list[str]:
    """The files the goal points at (folders it names), or the whole listing if it names none."""
    folders = named_folders(goal)
    if not folders:
        return listing
    return [p for p in listing if any(p.startswith(f) for f in folders)]
