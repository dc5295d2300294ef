"""Where the cause is: the request's own words, looked for in the code the way an agent greps for them.

Told "Loading fails with 'duplicate name' when a key appears twice in `parse_ini_data`", an agent does not
wait for a comment saying FIXME. It looks for what the request names -- the quoted error text, the
identifiers, the request's distinctive words -- and reads the code around the hits. ``terms(goal)`` pulls
those out of a request; ``weigh`` says how much of the request one line of code matches:

* a quoted text of the request (its longest run of plain words), found in the line: 4
* an identifier of the request (``find_user``, ``dueAt``, ``pkg.mod``), in the line or its function's name: 3,
  and 1 more (a second term) where the line raises or throws it, unless it is an error every codebase raises
  (``ValueError``, ``TypeError``): the request named the error, this is where it starts
* each distinctive word of the request, in the line or its function's name: 1
* a marker comment (FIXME, BUG, XXX, HACK, TODO) in the line: 2; the line is code, not prose: 1

From ``CAUSE_AT`` up the line is a cause, from ``LEAD_AT`` (with two different terms) a lead. A word every
sentence uses ("only", "value", "works") is never a term, so one shared common word is never a match.
``search_terms`` lists what to search for, most telling first: quotes, identifiers, then the longest words.

Left out: following calls, types and imports, running anything, synonyms ("sign in" never meets "login"),
and words in another language.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass

CAUSE_AT, LEAD_AT = 5, 3
QUOTE = re.compile(
    "|".join(
        rf"(?<!\w){a}([^{b}\n]{{3,160}}?){b}(?!\w)"
        for a, b in (("'", "'"), ('"', '"'), ("`", "`"), ("\u2018", "\u2019"), ("\u201c", "\u201d"))
    )
)
IDENT = re.compile(r"(?<![\w/.-])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(\(\))?")
FILE_NAME = re.compile(
    r"\.(?:py|js|ts|sql|md|txt|rst|toml|ini|cfg|json|ya?ml|sh|go|rb|java|html|css)$", re.I
)
MARKED = re.compile(r"(?:#|//|--|/\*|;)\s*(?:FIXME|BUG|XXX|HACK|TODO)\b")
PROSE_START = re.compile(r"^\s*(?:#|//|--|/?\*|>>>|\.\.\.|:param|:raises|:return|\"\"\"|''')")
CODE_SIGN = re.compile(r"[(=\[{;]|^\s*(?:raise|return|throw|if|elif|else|for|while)\b")
COMMON = set(
    """about above after again against along also although always among another anything anyone around
because become been before behind being below between both bring built cannot case cause change changed changes
come comes could does doing done down during each either else even ever every everything example fail failed fails
fine first from give given gives going good happen happens have having here into just keep kind know last later
least less like line lines look looks made make makes many might more most much must need needs never next none
nothing once only other others over part place please point right same seem seems should show shows since some
something sometimes still such sure take than that their them then there these they thing things think this those
though through time times today together too under until upon used uses using very want wants well were what when
where whether which while whole whose will with within without work works working would wrong year years yet your
value values instead really again thanks code contains contain
return returns select import class function const self this true false null none print string async await
file files raise raises raised throw throws thrown""".split()
)
# (the last line: words a request may use that code is full of as keywords, so finding them there says nothing)


# Errors every codebase raises (Python's own, and JavaScript's): naming one says little about where it started.
GENERIC_ERRORS = {
    name for name in dir(builtins) if name.endswith(("Error", "Exception", "Warning"))
} | {"Error", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError", "EvalError"}


@dataclass(frozen=True)
class Terms:
    """What a request names: quoted texts, identifiers, distinctive words (their ``stem``)."""

    quotes: tuple[str, ...]
    identifiers: tuple[str, ...]
    words: tuple[str, ...]
    spelled: dict  # a word's stem -> the word as the request spells it (what a search types)

    def __bool__(self) -> bool:
        return bool(self.quotes or self.identifiers or self.words)


def stem(word: str) -> str:
    """A word without its ending, cut to six letters, so 'dropped' meets 'drops' and 'countries' is not 'count'.

    Example: 'dropped' -> 'drop', 'addresses' -> 'address'[:6] = 'addres', 'billing' -> 'bill'
    """
    w = word.lower()
    for suffix in ("ings", "ing", "ied", "ies", "ed", "es", "s"):
        if (
            w.endswith(suffix)
            and len(w) - len(suffix) >= 3
            and (suffix != "es" or re.search(r"(?:s|x|z|ch|sh)es$", w))
        ):
            w = w[: -len(suffix)] + ("y" if suffix in ("ied", "ies") else "")
            break
    if (
        len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "aeiouls"
    ):  # dropp -> drop (not bill, address)
        w = w[:-1]
    if len(w) >= 5 and w.endswith("e"):  # raise -> rais, as raised and raises
        w = w[:-1]
    return w[:6]


COMMON_STEMS = {stem(word) for word in COMMON}  # "imports" is as common as "import"


def stems(text: str, stop: set[str]) -> set[str]:
    """The stems of the words of four letters or more, inside identifiers too. Example: 'readCelsius' -> {'read', 'celsiu'}"""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ")
    return {stem(w) for w in re.findall(r"[a-z]{4,}", spaced.lower()) if w not in stop}


def quote_core(quote: str) -> str | None:
    """The longest run of plain words in a quote: what the code holds whatever the values were.

    Example: "'#0099cc' is not a valid hexadecimal color value." -> 'is not a valid hexadecimal color value'
    """
    runs, run = [], []
    for token in quote.split():
        bare = token.strip(".,;:!?()")
        if re.fullmatch(r"[A-Za-z][A-Za-z-]*", bare) and bare == token.rstrip(".,;:!?)"):
            run.append(bare.lower())
        else:
            runs, run = runs + [run], []
    best = max(runs + [run], key=len)
    return " ".join(best) if len(best) >= 2 or (best and len(best[0]) >= 8) else None


def terms(goal: str, stop: set[str] = frozenset()) -> Terms:
    """The terms of a request; folders and file names it mentions are its scope, not terms.

    Example: 'find_user() fails for "Mixed Case" emails under app/' -> quotes ('mixed case',),
    identifiers ('find_user',), words ('find', 'user', 'email') -- 'fails' is too common to count.
    """
    goal = re.sub(
        r"\S*/\S*|\S+\.(?:py|js|ts|sql|md|txt|toml|json|go|rb)\b", " ", goal
    )  # paths: where, not what
    quotes = tuple(
        dict.fromkeys(
            c for m in QUOTE.finditer(goal) if (c := quote_core(next(g for g in m.groups() if g)))
        )
    )
    unquoted = QUOTE.sub(" ", goal)
    idents = []
    for name, called in IDENT.findall(goal):
        looks = (
            "_" in name
            or re.search(r"[a-z][A-Z]", name)
            or "." in name
            or called
            or f"`{name}`" in goal
        )
        if looks and not FILE_NAME.search(name) and len(name) >= 3:
            idents.append(name)
    spelled, inside = (
        {},
        stems(" ".join(idents), set()),
    )  # an identifier's parts are not words of their own
    for word in re.findall(
        r"\b[A-Za-z]{4,}\b",
        IDENT.sub(lambda m: " " if m.group(1) in idents else m.group(0), unquoted),
    ):
        if (
            stem(word) not in COMMON_STEMS
            and word.lower()[:5] not in stop
            and stem(word) not in inside
        ):
            spelled.setdefault(stem(word), word.lower())
    return Terms(quotes, tuple(dict.fromkeys(idents)), tuple(spelled), spelled)


def weigh(line: str, where: str, found: Terms) -> tuple[int, list[str]]:
    """How much of the request one line matches: (score, the terms it matched).

    Example: ('if stored == email:  # FIXME: case-sensitive email match', 'find_user', terms of
    'Users with capital letters in their email cannot log in') -> (4, ['email']): 1 word, marker 2, code 1.
    """
    low, named = line.lower(), f"{line} {where}"
    matched, score = [], 0
    for quote in found.quotes:
        if quote in " ".join(low.split()):
            matched, score = matched + [repr(quote)], score + 4
    for ident in found.identifiers:
        last = ident.split(".")[-1]
        if re.search(rf"(?<![\w]){re.escape(last)}(?![\w])", named, re.I):
            matched, score = matched + [ident], score + 3
            if last not in GENERIC_ERRORS and re.search(
                rf"\b(?:raise|throw(?:\s+new)?)\s+{re.escape(last)}\b", line
            ):
                matched, score = (
                    matched + [f"raise {last}"],
                    score + 1,
                )  # where the named error starts
    seen = stems(named, set())
    for stem in found.words:
        if stem in seen:
            matched, score = matched + [found.spelled[stem]], score + 1
    if not matched:
        return 0, []
    score += 2 if MARKED.search(line) else 0
    score += 1 if CODE_SIGN.search(line) and not PROSE_START.match(line) else 0
    return score, matched


def strong(score: int, matched: list[str]) -> str | None:
    """'Cause', 'Lead' or None for a weighed line: one term alone is a lead at most, a common word never counts."""
    if score >= CAUSE_AT and (len(matched) >= 2 or matched[0].startswith("'")):
        return "Cause"
    return "Lead" if score >= LEAD_AT and len(matched) >= 2 else None


def search_terms(found: Terms, limit: int = 6) -> list[str]:
    """What an agent would search for, most telling first: quotes, identifiers, then the longest words.

    Example: terms of "parse_lines fails with 'unexpected value continuation'" ->
    ['unexpected value continuation', 'parse_lines', 'continuation', 'unexpected']
    """
    words = sorted(found.spelled.values(), key=lambda w: (-len(w), w))
    return list(
        dict.fromkeys(list(found.quotes) + [i.split(".")[-1] for i in found.identifiers] + words)
    )[:limit]
