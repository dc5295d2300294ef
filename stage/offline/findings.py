"""What the desk model jots down about a file it reads: the cause, the fix, things noticed in passing.

* **The cause** is the line that matches the request most (``locating.weigh``: its quoted text, identifiers
  and distinctive words; a line of code or a comment with the comment lines that follow it). From
  ``locating.CAUSE_AT`` up it is the *cause*, below that a *lead* (jotted only while no cause is in view).
  A marked comment -- ``FIXME``, ``BUG``, ``XXX``, ``HACK`` or ``TODO`` after ``#``, ``//``, ``--`` or ``/*`` --
  is the cause when it names two terms of the request, or one as the request writes it (``judge``); one
  related only through its file path and identifiers is a lead; other markers, and ``NOTE``s, are *noticed*.
  Files of tests, documents and fixes are never the cause.
* **The fix** is what the workspace offers: a SQL file whose comments say it has not run yet ("pending",
  "not applied", "not run yet" -- any naming scheme), or a script that a document names for the goal
  ("run ``scripts/repair.sql`` to ..."), read when it is reached. When there is none, the cause's own
  repair statement (SQL in backticks in the comment) will do; failing that, nothing is applied.

Every finding is one line, ``path:line (function) — what the line says``, so a summary can carry it word for
word and the model can judge it again later from the line alone (``cause_strength``). Each file is judged
once per goal (a cache): the same read on the desk lap after lap costs nothing more.

Left out: reading code as code. It never follows a call, a type or an import, and never runs anything; a bug
whose lines share no word with the request stays hidden.
"""

from __future__ import annotations

import re
from functools import lru_cache

from stage.offline.locating import COMMON, Terms, strong, terms, weigh

CAUSE_MARKERS = ("FIXME", "BUG", "XXX", "HACK", "TODO")
MARKER = re.compile(
    r"(?:#|//|--|/\*|;)\s*(FIXME|BUG|XXX|HACK|TODO|NOTE)\b(?:\([^)]*\))?[:!]?\s*(.*?)\s*(?:\*/)?$"
)
COMMENT = re.compile(r"(?:^|\s)(?:#|//|--|/\*)\s+(.*?)\s*(?:\*/)?$")
WRONG = re.compile(
    r"\b(?:wrong|broken|never|instead|mismatch|incorrect|mistake|fails?|bug|ignores?|should|"
    r"forgets?|drops?|skips?|off by)\b",
    re.I,
)
CAUSAL = re.compile(
    r"\b(?:so|because|hence|therefore|which means)\b", re.I
)  # a comment that explains an effect
DEF = re.compile(
    r"^\s*(?:async\s+)?(?:def|function|func|class|fn|sub)\s+([A-Za-z_]\w*)|"
    r"^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_]\w*)\s*=\s*(?:async\s*)?(?:function|\()"
)
PENDING = re.compile(
    r"\b(?:pending|not (?:yet )?(?:been )?(?:applied|run|executed)|not run yet|unapplied|to be applied|"
    r"awaiting|waiting to run|still to run)\b",
    re.I,
)
NOT_PENDING = re.compile(r"\bpending\s*[:=]\s*(?:no|false|0)\b", re.I)
APPLIED = re.compile(r"\b(?:applied|done|already run|executed|ran on)\b", re.I)
NAMED_SCRIPT = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.sql)\b")
TEST_PATH = re.compile(
    r"(?:^|/)(?:tests?|spec|__tests__)/|(?:^|/)test_[^/]*$|[._-](?:test|spec)\.\w+$", re.I
)
RUN_WORDS = re.compile(r"\b(?:run|apply|execute|repairs?|fix(?:es)?|use)\b", re.I)
SQL_IN_BACKTICKS = re.compile(r"`((?:UPDATE|ALTER|INSERT|DELETE|CREATE|DROP)\b[^`]+)`", re.I)
FACT_LINE = re.compile(r"^\W*(Cause|Fix|Noticed|Lead|Correction|Decision): (.+)$")
STOP = set(
    "the and that this with from into then your have were what when which whose there their them "
    "they does code under file files".split()
)
GOAL_NOISE = {
    "find",
    "cause",
    "apply",
    "pendi",
    "fix",
    "datab",
    "read",
    "look",
    "then",
    "every",
    "folde",
    "repor",
    "fixes",
    "chang",
    "probl",
    "issue",
    "pleas",
    "work",
    "using",
    "reaso",
    "repai",
    "throu",
    "bug",
    "answe",
    "somew",
}


def words(text: str) -> set[str]:
    """Content words, cut to five letters so 'emails' meets 'email'. Example: 'Emails typed' -> {'email', 'typed'}"""
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in STOP}


@lru_cache(maxsize=64)
def goal_terms(goal: str) -> Terms:
    """What the goal names, for ``locating.weigh``: its quotes, identifiers and distinctive words."""
    return terms(goal, GOAL_NOISE)


def identifier_words(text: str) -> set[str]:
    """Words inside identifiers: find_user -> find, user; dueAt -> due. Example: 'readCelsius(x)' -> {'celsi', 'read'}"""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ")
    return words(spaced)


def relation(goal: str, *texts: str) -> int:
    """How many content words the texts share with the goal (its boilerplate and common words do not count)."""
    wanted = {w for w in words(goal) - GOAL_NOISE if not any(c.startswith(w) for c in COMMON)}
    seen = set()
    for text in texts:
        seen |= words(text) | identifier_words(text)
    return len(wanted & seen)


# ---- one file ------------------------------------------------------------------------------------------


def numbered(text: str) -> list[tuple[int, str]]:
    """(line number, line) from read_file's numbered output."""
    found = [re.match(r"\s*(\d+)  ?(.*)", raw) for raw in text.splitlines()]
    return [(int(m.group(1)), m.group(2)) for m in found if m]


@lru_cache(maxsize=1024)  # the same file on the desk lap after lap is judged once (a pure function)
def facts_in_file(
    path: str, numbered_text: str, goal: str, leads: bool = False
) -> tuple[tuple[str, str], ...]:
    """The Cause / Fix / Lead / Noticed lines a careful reader would jot down about one file.

    Example: line 40 of app/auth.py, '... # FIXME: email match is case-sensitive', goal about email
    -> [("Cause", "app/auth.py:40 (find_user) — FIXME: email match is case-sensitive")]
    """
    lines, facts, where = numbered(numbered_text), [], ""
    prose = path.endswith((".md", ".txt", ".rst"))
    found_terms, best = (
        goal_terms(goal),
        (0, [], "", 0),
    )  # the line of code that matches the goal most
    fix_file = path.endswith(".sql") and (is_pending(lines) or is_repair_for(goal, path, lines))
    may_cause = not prose and not TEST_PATH.search(path) and not fix_file  # a fix is not a cause
    for number, line in lines:
        found = DEF.match(line)
        if found:
            where = found.group(1) or found.group(2)
        place = f"{path}:{number}" + (f" ({where})" if where else "")
        if may_cause:
            score, matched = weigh(line, where, found_terms)
            if score and score >= best[0]:
                own = COMMENT.match(line) or re.match(
                    r"^\s*(?:#|//|--)\s*(.*)$", line
                )  # a comment line: with its sequel
                said = (
                    f"comment: {own.group(1).strip()}{continued(lines, number)}"
                    if own
                    else " ".join(line.split())
                )
                fact = f"{place} — {said[:300]}"
                ranked = cause_strength(fact, goal)  # ties: the same rule as across files
                if (score, ranked) > (best[0], best[3]):
                    best = (score, matched, fact, ranked)
        marker = None if prose else MARKER.search(line)
        if marker:
            kind, comment = marker.group(1), marker.group(2).strip() + continued(lines, number)
            facts.append(
                (judge(kind, comment, goal, f"{place} {line}"), f"{place} — {kind}: {comment}")
            )
            continue
        comment = None if prose or not may_cause else COMMENT.search(line)
        if (
            comment
        ):  # an unmarked comment: weighed like code, a little more if it says something is wrong
            text = comment.group(1).strip() + continued(lines, number)
            score, matched = weigh(f"# {text}", where, found_terms)
            wrong = bool(WRONG.search(comment.group(1)))
            kind = strong(score + wrong, matched) if matched else None
            if kind == "Cause" or (
                wrong and relation(goal, comment.group(1), path, line, where) >= 2
            ):
                facts.append((kind or "Lead", f"{place} — comment: {text}"))
        for script in NAMED_SCRIPT.findall(line):
            if script != path and RUN_WORDS.search(line) and relation(goal, line, script):
                facts.append(("Fix", f"{script} (named in {path}:{number})"))
    kind = strong(best[0], best[1]) if best[0] else None
    marked = {f.split(" — ")[0] for k, f in facts if k in ("Cause", "Lead")}
    if (
        kind and (leads or kind == "Cause") and best[2].split(" — ")[0] not in marked
    ):  # not a marked line again
        facts.append((kind, best[2]))
    if path.endswith(".sql") and is_pending(lines):
        facts.append(("Fix", f"{path} (pending) — {sql_body(lines)}"))
    elif path.endswith(".sql") and is_repair_for(goal, path, lines):
        facts.append(("Fix", f"{path} (a repair) — {sql_body(lines)}"))
    return tuple(facts)


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


def is_repair_for(goal: str, path: str, lines: list[tuple[int, str]]) -> bool:
    """A SQL file not marked as run that changes data, and whose comments and name speak of the goal
    (two shared words, or one and the word repair / fix)."""
    notes = " ".join(line for _, line in lines if line.strip().startswith("--"))
    body = sql_body(lines)
    says_repair = re.search(
        r"\b(?:repairs?|fix(?:es)?|correct(?:s|ion)?)\b|(?:repair|fix)_", f"{notes} {path}", re.I
    )
    related = relation(goal, notes, path)
    return (
        bool(re.match(r"(?:UPDATE|DELETE|INSERT|ALTER)\b", body, re.I))
        and not APPLIED.search(notes)
        and (related >= 2 or (related >= 1 and bool(says_repair)))
    )


def judge(marker: str, comment: str, goal: str, context: str = "") -> str:
    """Cause, Lead or Noticed: a cause marker whose comment names two terms of the goal, or one written exactly
    as the goal writes it (a distinctive word, an identifier, a quote; common words never count), is the cause.
    One term in another form is a coincidence: 'ids are zero-padded text' is not about 'reminder texts'.

    Example: ('XXX', 'readings are compared as Celsius, but Fahrenheit beds...', 'Beds whose sensors report in
    Fahrenheit ...') -> 'Cause'
    """
    if marker not in CAUSE_MARKERS:
        return "Noticed"
    matched = weigh(comment, "", goal_terms(goal))[1]
    if len(matched) >= 2 or any(
        re.search(rf"(?<!\w){re.escape(m.strip(chr(39)))}(?!\w)", comment, re.I) for m in matched
    ):
        return "Cause"
    return (
        "Lead" if relation(goal, comment, context) >= 2 else "Noticed"
    )  # only its path and names relate


def is_pending(lines: list[tuple[int, str]]) -> bool:
    """A SQL file whose comments say it has not run yet (and that holds a statement)."""
    notes = [line for _, line in lines if line.strip().startswith("--")]
    pending = any(PENDING.search(n) and not NOT_PENDING.search(n) for n in notes)
    return pending and bool(sql_body(lines))


def sql_body(lines: list[tuple[int, str]]) -> str:
    """The statements of a SQL file, comments left out. Example: ['-- x', 'UPDATE t SET a = 1;'] -> 'UPDATE t SET a = 1;'"""
    return " ".join(
        line.strip() for _, line in lines if line.strip() and not line.strip().startswith("--")
    )


def cause_strength(fact: str, goal: str) -> float:
    """How strongly a Cause or Lead line matches the goal, judged from the line alone (``locating.weigh``).

    Example: 'app/auth.py:40 (find_user) — FIXME: case-sensitive email match ...' -> words + a marker's 2.
    """
    place, _, said = fact.partition(" — ")
    where = re.search(r"\(([\w.]+)\)", place)
    marked = re.match(rf"(?:{'|'.join(CAUSE_MARKERS)}): ", said)
    score, matched = weigh(
        f"# {said}" if marked or said.startswith("comment: ") else said,
        where[1] if where else "",
        goal_terms(goal),
    )
    comment = said.startswith("comment: ")
    wrong = (1 if WRONG.search(said) else 0) + (0.5 if CAUSAL.search(said) else 0) if comment else 0
    return (
        score + wrong + len(matched) / 10
    )  # of equal scores: a comment that explains, more of the goal


def repair_in(cause: str) -> str | None:
    """The repair statement a cause comment carries in backticks, if any. Example: '... `UPDATE t SET a=1`' -> 'UPDATE t SET a=1;'"""
    found = SQL_IN_BACKTICKS.search(cause)
    if not found:
        return None
    statement = found.group(1).strip()
    return statement if statement.endswith(";") else statement + ";"


def written_fix(cause: str) -> str:
    """The statement the agent writes itself when the workspace offers none: the cause's repair, or a marked stand-in.

    The offline model cannot write real SQL; it says so in the statement, which the harness only records.
    """
    return (
        repair_in(cause)
        or f"-- fix for {cause.split(' ')[0]}: written by the offline model, which cannot write real SQL"
    )


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


def fix_statement(fix_line: str) -> str | None:
    """The SQL in a Fix line, if the line carries it. Example: 'a.sql (pending) — UPDATE t;' -> 'UPDATE t;'"""
    _, _, statement = fix_line.partition(" — ")
    return statement.strip() or None
