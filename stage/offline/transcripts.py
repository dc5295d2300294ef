"""How the offline model reads what it is asked to summarize: a transcript, or an old summary with new events.

``gather(material)`` turns the material into ``(kind, line, salience)`` items -- the goal, the standing
rules, corrections and decisions the user stated, the fact lines of notes and reads (``findings``), the
files read and still to read, and one progress line -- for ``summaries.write_summary`` to choose from.

* The progress line carries on from an earlier one: ``Done: read 7 files (last: app/db.py); found the cause
  in app/auth.py:40; searched for x | y. Pending: apply the fix in migrations/003.sql.`` -- where the cause
  and the fix are (not what they say) and what was searched for, so even a vague summary leaves pointers.
* A read at the very end of the material, with no reply of the agent after it, is named as such
  ("Opened X just before this summary; not yet examined"): the agent has not examined it yet.

Left out: paraphrase. Every item is a line of the material, or made from its lines, word for word.
"""

from __future__ import annotations

import json
import re

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
from stage.offline.findings import FACT_LINE, facts_in_file

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
    path, place = r"([\w./-]+\w)", r"([\w./-]+\w(?::\d+)?)"  # a place: a path and maybe a line
    count, last, cause_at, fix_at, searched = 0, "", "", [], []
    for line in re.findall(r"Done: read \d+ files.*", material):
        count = int(re.search(r"read (\d+) files", line).group(1))
        last = (re.search(rf"\(last: {path}\)", line) or [None, last])[1]
        cause_at = (re.search(rf"found the cause in {place}", line) or [None, cause_at])[1]
        earlier = re.search(r"apply the fix in (.+?)\.(?: |$)", line)
        fix_at = earlier.group(1).split(" or ") if earlier else fix_at
        earlier = re.search(r"searched for (.+?)\. Pending", line)
        searched += earlier.group(1).split(" | ") if earlier else []
    searched += re.findall(r'assistant -> search \{"text": "([^"]*)"\}', material)
    causes = [t for k, t, _ in items if k == "Cause"]
    fixes = [t for k, t, _ in items if k == "Fix"]
    cause_at = re.sub(r":(\d+).*", r":\1", causes[-1].split(" ")[1]) if causes else cause_at
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
