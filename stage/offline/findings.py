"""What the offline model jots down about a file it reads: the cause, the fix, things noticed in passing.

* **The cause** is the statement that matches the request most (``locating.weigh``: its quoted text,
  identifiers and distinctive words, and what the line does -- ``lines.kinds``). Code and comments compete
  for it: a ``raise`` beats a return or a comparison, which beats a comment; a comment that says something
  is wrong ("never", "instead", "drops") counts one more. A docstring, a file's opening text or a
  ``def``/``class`` statement that repeats the request's words is at most a *lead*: it says what the code is
  for, not where it goes wrong. From ``locating.CAUSE_AT`` up it is the *cause*, below that a *lead* (jotted
  only while no cause is in view).
* **Marked comments** -- ``FIXME``, ``BUG``, ``XXX``, ``HACK`` or ``TODO`` after ``#``, ``//``, ``--`` or
  ``/*`` -- are the cause when they name two terms of the request, or one as the request writes it
  (``judge``); one related only through its file path and identifiers is a lead; other markers, and
  ``NOTE``s, are *noticed*. When the request asks for defects ("report every bug", "any defects in
  parser.py"), a ``FIXME``/``BUG``/``XXX``/``HACK`` comment is a defect whatever words it shares.
* Files of tests, documents and fixes are never the cause. **The fix** is what the workspace offers
  (``fixes``): a pending SQL file, a repair a document names, or the statement a cause comment carries.

Every finding is one line, ``path:line (function) — what the line says``, so a summary can carry it word for
word and the model can judge it again later from the line alone (``cause_strength``). Each file is judged
once per goal (a cache): the same read on the desk lap after lap costs nothing more.

Left out: reading code as code. It never follows a call, a type or an import, and never runs anything; a bug
whose lines share no word with the request stays hidden, and a defect with no marker is found only if the
request describes it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from stage.offline.fixes import (  # noqa: F401  (re-exported: the fix is part of what a file gives)
    fix_statement,
    is_pending,
    is_repair_for,
    named_scripts,
    repair_in,
    sql_body,
)
from stage.offline.lines import DEF, kind_of_fact, kinds, statement
from stage.offline.locating import strong, weigh
from stage.offline.vocabulary import (  # noqa: F401  (re-exported for the other modules)
    GOAL_NOISE,
    STOP,
    goal_terms,
    identifier_words,
    relation,
    words,
)

CAUSE_MARKERS = ("FIXME", "BUG", "XXX", "HACK", "TODO")
DEFECT_MARKERS = ("FIXME", "BUG", "XXX", "HACK")  # a TODO is work to do, not a defect
MARKER = re.compile(
    r"(?:#|//|--|/\*|;)\s*(FIXME|BUG|XXX|HACK|TODO|NOTE)\b(?:\([^)]*\))?[:!]?\s*(.*?)\s*(?:\*/)?$"
)
COMMENT = re.compile(r"(?:^|\s)(?:#|//|--|/\*)\s+(.*?)\s*(?:\*/)?$")
OWN_COMMENT = re.compile(r"^\s*(?:#|//|--)\s*(.*)$")
WRONG = re.compile(
    r"\b(?:wrong|broken|never|instead|mismatch|incorrect|mistake|fail(?:s|ed)?|bug|ignor(?:es|ed)|should|"
    r"forg[eo]t(?:s|ten)?|drop(?:s|ped)?|skip(?:s|ped)?|lost|loses|off by)\b",
    re.I,
)
CAUSAL = re.compile(
    r"\b(?:so|because|hence|therefore|which means)\b", re.I
)  # a comment that explains an effect
DEFECTS = re.compile(r"\b(?:defects?|bugs?|flaws?)\b", re.I)
TEST_PATH = re.compile(
    r"(?:^|/)(?:tests?|spec|__tests__)/|(?:^|/)test_[^/]*$|[._-](?:test|spec)\.\w+$", re.I
)
FACT_LINE = re.compile(r"^\W*(Cause|Fix|Noticed|Lead|Correction|Decision): (.+)$")
CANDIDATES = ("raise", "act", "comment", "definition", "prose")  # lines weighed for the cause


def numbered(text: str) -> list[tuple[int, str]]:
    """(line number, line) from read_file's numbered output."""
    found = [re.match(r"\s*(\d+)  ?(.*)", raw) for raw in text.splitlines()]
    return [(int(m.group(1)), m.group(2)) for m in found if m]


def asks_for_defects(goal: str) -> bool:
    """Does the request ask for defects ("report every bug", "any defects")? Example: 'List the bugs in x/' -> True"""
    return bool(DEFECTS.search(goal))


@lru_cache(maxsize=1024)  # the same file on the desk lap after lap is judged once (a pure function)
def facts_in_file(
    path: str, numbered_text: str, goal: str, leads: bool = False
) -> tuple[tuple[str, str], ...]:
    """The Cause / Fix / Lead / Noticed lines a careful reader would jot down about one file.

    Example: line 40 of app/auth.py, '... # FIXME: email match is case-sensitive', goal about email
    -> [("Cause", "app/auth.py:40 (find_user) — FIXME: email match is case-sensitive")]
    """
    lines, facts, where = numbered(numbered_text), [], ""
    labels = kinds(lines)
    prose = path.endswith((".md", ".txt", ".rst"))
    fix_file = path.endswith(".sql") and (is_pending(lines) or is_repair_for(goal, path, lines))
    may_cause = not prose and not TEST_PATH.search(path) and not fix_file  # a fix is not a cause
    best = {"code": (0.0, [], "", "act"), "prose": (0.0, [], "", "prose")}  # the best of each
    for i, (number, line) in enumerate(lines):
        found = DEF.match(line) if labels[i] == "definition" else None
        where = (found.group(1) or found.group(2)) if found else where
        place = f"{path}:{number}" + (f" ({where})" if where else "")
        if may_cause and labels[i] in CANDIDATES:
            candidate = weighed(lines, labels, i, where, place, goal)
            if candidate:
                slot = "prose" if candidate[3] in ("prose", "definition") else "code"
                best[slot] = max(best[slot], candidate, key=lambda c: c[0])
        marker = None if prose else MARKER.search(line)
        if marker:
            kind, comment = marker.group(1), marker.group(2).strip() + continued(lines, number)
            facts.append(
                (judge(kind, comment, goal, f"{place} {line}"), f"{place} — {kind}: {comment}")
            )
            continue
        comment = None if prose or not may_cause else COMMENT.search(line)
        if comment:  # an unmarked comment that says something is wrong about the goal: a lead
            text = comment.group(1).strip() + continued(lines, number)
            if (
                WRONG.search(comment.group(1))
                and relation(goal, comment.group(1), path, line, where) >= 2
            ):
                facts.append(("Lead", f"{place} — comment: {text}"))
        facts += [
            ("Fix", f"{s} (named in {path}:{number})") for s in named_scripts(path, line, goal)
        ]
    facts = [f for f in facts if not (f[0] == "Lead" and _place(f[1]) == _place(best["code"][2]))]
    marked = {_place(f) for k, f in facts if k in ("Cause", "Lead")}
    for slot in ("code", "prose"):
        score, matched, fact, kind = best[slot]
        verdict = strong(int(score), matched, kind) if matched else None  # the rank's whole part
        if verdict and (leads or verdict == "Cause") and _place(fact) not in marked:
            facts.append((verdict, fact))  # not a marked line again
            marked.add(_place(fact))
    if path.endswith(".sql") and is_pending(lines):
        facts.append(("Fix", f"{path} (pending) — {sql_body(lines)}"))
    elif path.endswith(".sql") and is_repair_for(goal, path, lines):
        facts.append(("Fix", f"{path} (a repair) — {sql_body(lines)}"))
    return tuple(facts)


def weighed(lines, labels, i, where, place, goal):
    """(rank, terms matched, the finding, kind) for line ``i`` as a candidate cause, or None if it matches nothing.

    A statement is weighed whole (its continuation lines too); a comment with the comment lines that follow
    it; a docstring line as it stands, written as ``docstring: ...``. The finding is judged from its text
    alone (``judged``), exactly as it will be when a note or a summary brings it back.
    """
    kind, line = labels[i], lines[i][1]
    if kind == "comment":
        own = OWN_COMMENT.match(line)
        said = "comment: " + (own.group(1).strip() + continued(lines, lines[i][0]) if own else line)
    elif kind == "prose":
        said = "docstring: " + " ".join(line.split())
    else:
        said = statement(lines, labels, i)
    fact = f"{place} — {said[:300]}"
    score, matched, rank = judged(fact, goal)
    return (rank, matched, fact, kind_of_fact(said)) if matched else None


def _place(fact: str) -> str:
    return fact.split(" — ")[0]


def continued(lines: list[tuple[int, str]], number: int) -> str:
    """The comment lines right after a marked one, without a marker of their own: the rest of its sentence."""
    more = []
    for n, line in lines:
        if n <= number:
            continue
        comment = COMMENT.match(line) or re.match(r"^\s*(?:#|//|--|\*)\s*(.*)$", line)
        if not comment or MARKER.search(line) or not comment.group(1).strip():
            break
        more.append(comment.group(1).strip())
        if len(more) == 3:
            break
    return (" " + " ".join(more)) if more else ""


def judge(marker: str, comment: str, goal: str, context: str = "") -> str:
    """Cause, Lead or Noticed: a cause marker whose comment names two terms of the goal, or one written exactly
    as the goal writes it (a distinctive word, an identifier, a quote; common words never count), is the cause;
    so is any FIXME/BUG/XXX/HACK when the goal asks for defects. One term in another form is a coincidence:
    'ids are zero-padded text' is not about 'reminder texts'.

    Example: ('XXX', 'readings are compared as Celsius, but Fahrenheit beds...', 'Beds whose sensors report in
    Fahrenheit ...') -> 'Cause'
    """
    if marker not in CAUSE_MARKERS:
        return "Noticed"
    if marker in DEFECT_MARKERS and asks_for_defects(goal):
        return "Cause"
    matched = weigh(comment, "", goal_terms(goal), "comment")[1]
    if len(matched) >= 2 or any(
        re.search(rf"(?<!\w){re.escape(m.strip(chr(39)))}(?!\w)", comment, re.I) for m in matched
    ):
        return "Cause"
    return (
        "Lead" if relation(goal, comment, context) >= 2 else "Noticed"
    )  # only its path and names relate


def judged(fact: str, goal: str) -> tuple[int, list[str], float]:
    """(score, terms matched, rank) of a Cause or Lead line, judged from the line alone (``locating.weigh``,
    with what the line does), plus 1 for a comment that says what goes wrong or why, and 2 for a defect
    marker when the request asks for defects. The rank breaks ties: a raise, a comment that explains, then
    the line that names more of the request. Example: 'a.py:3 (f) — raise E("bad key")' -> (score, [...], rank)
    """
    place, _, said = fact.partition(" — ")
    where = re.search(r"\(([\w.]+)\)", place)
    kind = kind_of_fact(said)
    text = re.sub(r"^(?:comment|docstring): ", "", said)
    score, matched = weigh(
        f"# {text}" if kind == "comment" else text,
        where[1] if where else "",
        goal_terms(goal),
        kind,
    )
    explains = kind == "comment" and bool(CAUSAL.search(text))
    score += 1 if matched and kind == "comment" and (WRONG.search(text) or explains) else 0
    marker = re.match(rf"({'|'.join(CAUSE_MARKERS)}): ", said)
    if marker and marker.group(1) in DEFECT_MARKERS and asks_for_defects(goal):
        score += 2  # a defect, asked for by name
    ties = 0.5 * (kind == "raise") + 0.5 * explains + len(matched) / 10
    return score, matched, score + ties / 10


def cause_strength(fact: str, goal: str) -> float:
    """How strongly a Cause or Lead line matches the goal, judged from the line alone (``judged``'s rank).

    Example: 'app/auth.py:40 (find_user) — FIXME: case-sensitive email match ...' -> words + a marker's 2.
    """
    return judged(fact, goal)[2]


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
        marked = re.match(rf"(\S+:\d+(?: \(\w+\))?) — ({'|'.join(CAUSE_MARKERS)}|NOTE): (.*)", fact)
        facts.append(
            (
                judge(marked.group(2), marked.group(3), goal, marked.group(1)) if marked else kind,
                fact.strip(),
            )
        )
    return tuple(facts)
