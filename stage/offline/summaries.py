"""How the desk model writes a summary: only the sections asked for, within the length allowed.

``summary_request(messages)`` spots a request to summarize or fold (a prompt holding a
``<transcript>`` or ``<events>`` block); ``write_summary(instruction, material)`` writes it:
the sections the instruction's bullets ask for, in their order, most salient lines first, cut to
the instruction's word limit. A vague instruction gets the gist only: the goal and the progress.
A ``Focus on X`` line lifts what is about X above the rest. ``Decision:`` lines (and the user's own
"apply X, not Y") go under a decisions heading, so only a prompt that asks for decisions keeps them.
A read at the very end of what it is given, with no reply of the agent after it, is named as such
("Opened X just before this summary; not yet examined"): the agent has not examined it yet.

Left out: paraphrase. It copies the lines it keeps, word for word -- which is why a template that
asks for exact identifiers works so well on it, and a vague prompt so badly.
"""

from __future__ import annotations

import json
import re

from harness.messages import blocks_of
from stage.offline.corrections import corrections_in
from stage.offline.decisions import decision_note, decisions_in
from stage.offline.view import (
    HARNESS_PREFIX,
    PART,
    PATH,
    is_rule,
    scope_of,
    sentences,
    without_rules,
)
from stage.offline.findings import FACT_LINE, STOP, facts_in_file

SUMMARY_ASK = re.compile(r"\bsummar|\bfold\b|\bcompact", re.I)
FOCUS = re.compile(r"^.*\bfocus(?:ing)? on (.+?)(?:\s+first)?\.?\s*$", re.I | re.M)
KINDRED = [  # words that go together: a real model knows millions of such links, this knows four
    {"datab", "db", "sql", "migra", "table", "schem", "query", "stagi", "produ"},
    {"decis", "decid", "chose", "why"},
    {"test", "tests", "pytes", "cover"},
    {"login", "sign", "auth", "passw", "sessi", "email"},
]
WORD_LIMIT = re.compile(
    r"(?:at most|under|no more than|within|maximum of|max\.?)\s+(\d+)\s+words|(\d+)\s+words or (?:fewer|less)",
    re.I,
)

SECTION_KINDS = [  # (kind, words in a prompt bullet that ask for it)
    ("constraints", ("constraint", "rule", "instruction", "forbid")),
    ("goal", ("goal", "request", "objective", "task")),
    ("decisions", ("decision", "decided", "why")),
    ("pointers", ("pointer", "re-read", "reread", "re-run")),
    ("progress", ("done", "pending", "progress", "next", "remaining", "state")),
    ("facts", ("fact", "identifier", "discover", "learned", "finding")),
    ("files", ("file", "touched", "paths read")),
]
SALIENCE = {
    "goal": 100,
    "constraints": 90,
    "Correction": 85,
    "Cause": 80,
    "Lead": 30,
    "Fix": 80,
    "Decision": 75,
    "progress": 70,
    "plan": 65,
    "decisions": 60,
    "files": 50,
    "Noticed": 20,
    "pointers": 10,
}


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
    material = "\n".join(
        m.group(2) for m in re.finditer(r"<(summary|transcript|events)>(.*?)</\1>", text, re.S)
    )
    return instruction, material


def write_summary(instruction: str, material: str) -> str:
    """Write the summary the instruction asks for, from the material it was given."""
    items = gather(material)
    limit = _word_limit(instruction)
    focus = FOCUS.search(instruction)
    if focus:  # "/compact <focus>": what the focus names goes first, and is the last to be cut
        items = [
            (k, t, s + FOCUS_BONUS if on_focus(k, t, focus.group(1)) else s) for k, t, s in items
        ]
    sections = asked_sections(instruction)
    if not sections:  # a vague prompt: just the gist -- the goal and the progress
        return _trim([("", t, s) for k, t, s in items if k in ("goal", "progress")], limit)
    lines = []
    for heading, kind in sections:
        chosen = [(t, s) for k, t, s in items if k == kind or (kind, k) in WITHIN]
        lines.append((heading, None, 1000))
        lines += [(heading, t, s) for t, s in sorted(chosen, key=lambda ts: -ts[1])]
    return _trim(lines, limit)


WITHIN = {
    ("facts", "Cause"),
    ("facts", "Fix"),
    ("facts", "Noticed"),
    ("facts", "Lead"),
    ("facts", "Correction"),
    ("progress", "plan"),
    ("decisions", "Decision"),
}  # sub-kinds of a section
FOCUS_BONUS = 65  # lifts a focused fact above every unfocused fact, even the cause
FOCUSABLE = (
    "constraints",
    "Cause",
    "Fix",
    "Noticed",
    "Lead",
    "Correction",
    "decisions",
    "Decision",
)
FOCUS_STOP = {
    "on",
    "in",
    "of",
    "to",
    "for",
    "all",
    "any",
    "is",
    "it",
    "an",
    "be",
    "first",
    "and",
    "the",
}


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
        if re.match(r"^[A-Z][\w /]{2,40}:$", line):  # a heading of an earlier summary
            section = line.lower()
            continue
        if re.match(r"^(?:Files read|Still to read|Done|Opened|Re-read|Goal|Task):? ", line):
            section = ""  # a line that names its own section
        fact = FACT_LINE.match(line)
        if fact:
            items.append(
                (fact.group(1), f"{fact.group(1)}: {fact.group(2)}", SALIENCE[fact.group(1)])
            )
            continue
        head = re.match(r"^(?:assistant:\s*)?(Goal|Task):\s*(.+)", line)
        if head:
            goal = goal or head.group(2)
            continue
        said = re.match(r"^user:\s*(.+)", line)
        if said and said.group(1).startswith(HARNESS_PREFIX):
            continue  # a summary header, not the user
        if said or "constraint" in section or "rule" in section:
            found = sentences(said.group(1) if said else line)
            items += [("constraints", s, SALIENCE["constraints"]) for s in found if is_rule(s)]
            items += [
                ("Correction", f"Correction: {s}", SALIENCE["Correction"])
                for s in found
                if corrections_in(s)
            ]
            items += [
                (
                    "Decision",
                    decision_note(chosen, passed, f"the user said: {s}"),
                    SALIENCE["Decision"],
                )
                for s in found
                if said
                for chosen, passed in decisions_in(s)
            ]
            if said and goal is None:  # the first thing the user said: the request
                goal = without_rules(said.group(1)) or None
        elif "decision" in section and line:
            items.append(("decisions", line, SALIENCE["decisions"]))
        applied = re.search(r"Recorded on (\w+)", line)
        if applied:
            items.append(
                ("decisions", f"Ran the fix on {applied.group(1)}.", SALIENCE["decisions"])
            )
    reads, read = reads_in(material), []
    for m in re.finditer(r"^\W*Files read:\s*(.+)$", material, re.M):
        read += re.split(r",\s*", m.group(1).strip())
    read = list(dict.fromkeys(read + [shown for shown, _, _, _ in reads]))
    for (
        _,
        path,
        text,
        _,
    ) in reads:  # the summary writer reads the results too (the last has no notes yet)
        items += [(k, f"{k}: {t}", SALIENCE[k]) for k, t in facts_in_file(path, text, goal or "")]
    if reads and not re.search(r"^assistant:", material[reads[-1][3] :], re.M):
        # read just before the cut and not reacted to in what it was given: say so
        items.append(("plan", unexamined_line(reads[-1][0], material), SALIENCE["progress"] - 1))
    if goal:
        items.append(("goal", f"Goal: {goal}", SALIENCE["goal"]))
    if read:
        items.append(("files", "Files read: " + ", ".join(read), SALIENCE["files"]))
    still = still_to_read(material, read, goal or "")
    if still is not None:
        items.append(
            ("plan", "Still to read: " + (", ".join(still) or "nothing"), SALIENCE["plan"])
        )
    items.append(("progress", progress(material, items, read), SALIENCE["progress"]))
    for kind, text, _ in list(items):
        if kind in ("Cause", "Fix", "Noticed", "Lead"):
            path = text.split(" ")[1].split(":")[0]
            items.append(("pointers", f"Re-read {path} for the exact lines.", SALIENCE["pointers"]))
    return _dedupe(items)


def reads_in(material: str) -> list[tuple[str, str, str, int]]:
    """(what was shown, path, result text, where the result ends) for each read_file in a transcript.

    What was shown is the path, or ``path:first-last`` for a part of a long file (read_file's own note says which).
    """
    found = []
    for m in re.finditer(
        r"^assistant -> read_file (\{[^\n]*\})\ntool result:\n(.*?)(?=\n(?:user|assistant)\b|\Z)",
        material,
        re.S | re.M,
    ):
        try:
            path = json.loads(m.group(1)).get("path", "")
        except ValueError:
            continue
        part = PART.search(m.group(2))
        if isinstance(path, str) and path and not m.group(2).startswith("Error:"):
            found.append(
                (f"{path}:{part[1]}-{part[2]}" if part else path, path, m.group(2), m.end())
            )
    return found


def unexamined_line(shown: str, material: str) -> str:
    """'Opened X just before this summary; not yet examined' -- counted, when the earlier summary said the same."""
    earlier = re.search(
        rf"Opened {re.escape(shown)} just before this summary; not yet examined(?: \((\d+) times\))?",
        material,
    )
    calls = re.findall(r"^assistant -> \w+", material[earlier.end() :], re.M) if earlier else []
    times = int(earlier.group(1) or 1) + 1 if earlier and len(calls) == 1 else 1
    return f"Opened {shown} just before this summary; not yet examined" + (
        f" ({times} times)" if times > 1 else ""
    )


def progress(material: str, items: list, read: list[str]) -> str:
    """The progress line, carried on from an earlier one, e.g. 'Done: read 7 files (last: app/db.py); found the
    cause in app/auth.py; searched for FIXME. Pending: apply the fix in migrations/003.sql.'

    It says where the cause and the fix are (not what they say) and what was searched for already, so even a
    vague summary leaves pointers and the agent does not search for the same thing again.
    """
    path = r"([\w./-]+\w)"
    count, last, cause_at, fix_at, searched = 0, "", "", [], []
    for line in re.findall(r"Done: read \d+ files.*", material):
        count = int(re.search(r"read (\d+) files", line).group(1))
        last = (re.search(rf"\(last: {path}\)", line) or [None, last])[1]
        cause_at = (re.search(rf"found the cause in {path}", line) or [None, cause_at])[1]
        earlier = re.search(r"apply the fix in (.+?)\.(?: |$)", line)
        fix_at = earlier.group(1).split(" or ") if earlier else fix_at
        earlier = re.search(r"searched for (.+?)\. Pending", line)
        searched += earlier.group(1).split(" | ") if earlier else []
    searched += re.findall(r'assistant -> search \{"text": "([^"]*)"\}', material)
    causes = [t for k, t, _ in items if k == "Cause"]
    fixes = [t for k, t, _ in items if k == "Fix"]
    cause_at = causes[-1].split(" ")[1].split(":")[0] if causes else cause_at
    fix_at = (
        list(dict.fromkeys(f.split(" ")[1] for f in fixes)) if fixes else fix_at
    )  # every fix seen, in order
    last = read[-1] if read else last
    done = (
        f"read {max(count, len(read))} files"
        + (f" (last: {last})" if last else "")
        + (f"; found the cause in {cause_at}" if cause_at else "")
        + (f"; searched for {' | '.join(dict.fromkeys(searched))}" if searched else "")
    )
    ran = re.findall(
        r"Recorded on (\w+)[^:]*: (.+?)(?: FLAGGED|\n|$)|ran the fix on (\w+): (.+?)\. Pending",
        material,
    )
    if ran:  # the fix has run: say where and what, so a later lap does not run it again
        target, statement = (ran[-1][0], ran[-1][1]) if ran[-1][0] else (ran[-1][2], ran[-1][3])
        done += f"; ran the fix on {target}: {statement.strip()}"
        return f"Done: {done}. Pending: nothing, report back."
    pending = (
        f"apply the fix in {' or '.join(fix_at)}"
        if fix_at
        else ("find the fix" if cause_at else "find the cause")
    )
    return f"Done: {done}. Pending: {pending}."


def still_to_read(material: str, read: list[str], goal: str) -> list[str] | None:
    """The files of the goal's scope not read yet, if a listing (or an earlier plan) is in the material.

    Keeping this in the summary saves listing the files again after every compaction.
    """
    listed = []
    for m in re.finditer(
        r"assistant -> list_files \{.*?\}\ntool result:\n(.*?)(?=\n(?:user|assistant)\b|\Z)",
        material,
        re.S,
    ):
        listed = [line.strip() for line in m.group(1).splitlines() if PATH.fullmatch(line.strip())]
    planned = [
        p
        for line in re.findall(r"^\W*Still to read:\s*(.*)$", material, re.M)
        for p in PATH.findall(line)
    ]
    if not listed and not planned:
        return None
    done = {
        shown.split(":")[0] for shown in read
    }  # a part read counts: the rest is found by searching
    return [p for p in scope_of(goal, sorted(set(listed + planned))) if p not in done]


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
        n = len(text.split()) + (
            0 if bare else 1 + (len(f"{heading}:".split()) if heading not in opened else 0)
        )
        if used + n <= limit:
            kept.add(i)
            used += n
            opened |= set() if bare else {heading}
    out, last_heading = [], None
    for i, (heading, text, _) in enumerate(lines):
        if i not in kept:
            continue
        if not heading or text.startswith(f"{heading}:"):  # the line names its own section
            out.append(text)
            continue
        if heading != last_heading:
            out.append(f"{heading}:")
            last_heading = heading
        out.append(f"- {text}")
    if not out:  # the limit is too tight for even one line: cut the best one
        best = max((ln for ln in lines if ln[1]), key=lambda ln: ln[2], default=("", "", 0))
        out = [" ".join(best[1].split()[:limit])]
    return "\n".join(out)
