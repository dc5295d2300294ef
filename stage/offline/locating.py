"""Where the cause is: the request's own words, looked for in the code the way an agent greps for them.

Told "Loading fails with 'duplicate name' when a key appears twice in `parse_ini_data`", an agent does not
wait for a comment saying FIXME. It looks for what the request names -- the quoted error text, the
identifiers, the request's distinctive words -- and reads the code around the hits. ``terms.terms(goal)``
pulls those out of a request; ``weigh`` says how much of the request one line (or statement) of code matches:

* a quoted text of the request (its longest run of plain words), found in the line: 4; only one half of a
  long one (the code put a value in the middle of the message): 3
* an identifier of the request (``find_user``, ``dueAt``, ``pkg.mod``), in the line or its function's name: 3,
  and 1 more where the line raises or throws it (the request named the error: this is where it starts);
  an error every codebase raises (``ValueError``, ``TypeError``) counts 1, like a word, and is never searched
* each distinctive word of the request, in the line or its function's name: 1; words the request says in a
  row, two of them distinctive, said in a row by a string or comment of the line: 2 more -- a user who does
  not quote a message often repeats part of it ("it finds no super class method")
* a marker comment (FIXME, BUG, XXX, HACK, TODO) in the line: 2
* what the line does (``lines.kinds``): it raises or throws: 2; any other code (a return, a comparison, an
  assignment, a call): 1; a comment, a docstring, a file's opening text, a ``def``/``class`` statement: 0.
  Code over prose: a docstring that repeats the request's words says *what* the code does; the ``raise``
  under it is *where* it goes wrong.

From ``CAUSE_AT`` up a line of code or a comment is a cause, from ``LEAD_AT`` (with two different terms) a
lead; prose and definitions are leads at most (``strong``). A word every sentence uses ("only", "value",
"works") is never a term, so one shared common word is never a match.

Left out: following calls, types and imports, running anything, synonyms ("sign in" never meets "login"),
and words in another language.
"""

from __future__ import annotations

import re

from stage.offline.lines import DEF, RAISES
from stage.offline.terms import (  # noqa: F401  (re-exported: what the request names, weighed here)
    COMMON,
    GENERIC_ERRORS,
    Terms,
    halves,
    lookups,
    plain,
    quote_core,
    search_terms,
    stem,
    stems,
    terms,
)

CAUSE_AT, LEAD_AT = 5, 3
MARKED = re.compile(r"(?:#|//|--|/\*|;)\s*(?:FIXME|BUG|XXX|HACK|TODO)\b")
PROSE_START = re.compile(r"^\s*(?:#|//|--|/?\*|>>>|\.\.\.|:param|:raises|:return|\"\"\"|''')")
CODE_SIGN = re.compile(r"[(=\[{;]|^\s*(?:raise|return|throw|if|elif|else|for|while)\b")
TEXTS = re.compile(r"""(?:"([^"]*)"|'([^']*)'|(?:#|//|--)\s(.*)$)""")  # what a line says in words
DOES = {
    "raise": 2,
    "act": 1,
}  # what a line does, added to its score (prose, comments, definitions: 0)


def weigh(line: str, where: str, found: Terms, kind: str | None = None) -> tuple[int, list[str]]:
    """How much of the request one line matches: (score, the terms it matched).

    ``kind`` says what the line does (``lines.kinds``); without it, it is guessed from the line alone.
    Example: ('if stored == email:  # FIXME: case-sensitive email match', 'find_user', terms of
    'Users with capital letters in their email cannot log in') -> (4, ['email']): 1 word, marker 2, code 1.
    """
    low, named = line.lower(), f"{line} {where}"
    matched, score = [], 0
    for quote in found.quotes:
        if plain(quote) in plain(low):
            matched, score = matched + [repr(quote)], score + 4
            continue
        half = next((h for h in halves(quote) if plain(h) in plain(low)), None)
        if (
            half
        ):  # the value sat in the middle of the message: "found character %r that cannot start ..."
            matched, score = matched + [repr(half)], score + 3
    for ident in found.identifiers:
        last = ident.split(".")[-1]
        if re.search(rf"(?<![\w]){re.escape(last)}(?![\w])", named, re.I):
            generic = last in GENERIC_ERRORS  # everyone raises it: it counts as a word, no more
            matched, score = matched + [ident], score + (1 if generic else 3)
            if not generic and re.search(
                rf"\b(?:raise|throw(?:\s+new)?)\s+{re.escape(last)}\b", line
            ):
                matched, score = (
                    matched + [f"raise {last}"],
                    score + 1,
                )  # where the named error starts
            elif not generic and (kind or guess_kind(line)) == "raise":
                matched = matched + [
                    f"raises in {last}"
                ]  # the named function fails here: a second term
    seen = stems(named, set())
    for word in found.words:  # (stems)
        if word in seen:
            matched, score = matched + [found.spelled[word]], score + 1
    phrase = repeated(low, found)
    if phrase and matched:  # the user repeated part of the message in their own sentence
        matched, score = matched + [f"«{phrase}»"], score + 2
    if not matched:
        return 0, []
    score += 2 if MARKED.search(line) else 0
    return score + DOES.get(kind or guess_kind(line), 0), matched


def repeated(line: str, found: Terms) -> str | None:
    """Words the request says in a row that a string or comment of the line says in a row too, two of them
    distinctive -- a message the user paraphrased. Example: ('raise E("No super class method found")', terms
    of 'the check finds no super class method') -> 'no super class method'"""
    said = " ".join(" ".join(groups) for groups in TEXTS.findall(line.lower()))
    words, run, best = re.findall(r"[a-z]+", said), [], None
    for word in words + [
        ""
    ]:  # a run grows while each next word follows the last one in the request
        if run and f"{run[-1]} {word}" in found.pairs:
            run.append(word)
            continue
        if sum(stem(w) in found.spelled for w in run) >= 2 and (
            best is None or len(run) > len(best)
        ):
            best = run
        run = [word]
    return " ".join(best) if best else None


def guess_kind(line: str) -> str:
    """What a line does, from the line alone (a search hit). Example: 'return x > 1' -> 'act'; '# x' -> 'comment'"""
    if PROSE_START.match(line):
        return "comment" if re.match(r"^\s*(?:#|//|--)", line) else "prose"
    if DEF.match(line):
        return "definition"
    if RAISES.search(line):
        return "raise"
    return "act" if CODE_SIGN.search(line) else "more"  # a bare fragment of a longer statement


def strong(score: int, matched: list[str], kind: str = "act") -> str | None:
    """'Cause', 'Lead' or None for a weighed line: one term alone is a lead at most (and only in a line that
    raises), a common word never counts, and prose or a definition (what the code is about, not what it
    does) is a lead at most."""
    code = kind not in ("prose", "definition")
    if score >= CAUSE_AT and (len(matched) >= 2 or matched[0].startswith("'")) and code:
        return "Cause"
    return "Lead" if score >= LEAD_AT and (len(matched) >= 2 or kind == "raise") else None
