"""Where the cause is: the request's own words, looked for in the code the way an agent greps for them.

Told "Loading fails with 'duplicate name' when a key appears twice in `parse_ini_data`", an agent does not
wait for a comment saying FIXME. It looks for what the request names -- the quoted error text, the
identifiers, the request's distinctive words -- and reads the code around the hits. ``terms(goal)`` pulls
those out of a request; ``weigh`` says how much of the request one line (or statement) of code matches:

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
"works") is never a term, so one shared common word is never a match. ``lookups`` lists what an agent
searches for before it reads file by file -- the quotes, then the identifiers -- and ``search_terms`` what
it searches for when reading turned up nothing: quotes, identifiers, then the longest words.

Left out: following calls, types and imports, running anything, synonyms ("sign in" never meets "login"),
and words in another language.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass

from stage.offline.lines import DEF, RAISES

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
TEXTS = re.compile(r"""(?:"([^"]*)"|'([^']*)'|(?:#|//|--)\s(.*)$)""")  # what a line says in words
DOES = {
    "raise": 2,
    "act": 1,
}  # what a line does, added to its score (prose, comments, definitions: 0)
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
    pairs: frozenset = frozenset()  # each two words in a row of the request ("super class")

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
    """The longest run of plain words in a quote, as typed (a search finds it as it stands): what the code holds
    whatever the values were. A colon ends a run: what follows it is the value ("Token not recognizable: O").

    Example: "'80a' is not a valid port number." -> 'is not a valid port number'
    """
    runs, run = [], []
    for token in quote.split():
        bare = token.strip(".,;:!?()")
        if re.fullmatch(r"[A-Za-z][A-Za-z-]*", bare) and bare == token.rstrip(".,;:!?)"):
            run.append(token.lstrip("(").lower())
            if token.endswith(":"):
                runs, run = runs + [run], []
        else:
            runs, run = runs + [run], []
    best = max(runs + [run], key=len)
    text = " ".join(best).rstrip(".,;:!?)")
    return text if len(best) >= 2 or (best and len(best[0]) >= 8) else None


def halves(quote: str) -> list[str]:
    """The two halves of a quote of six words or more, for when the code holds the message with a value in
    its middle. Example: 'found character that cannot start any token' -> ['found character that',
    'cannot start any token']"""
    said = quote.split()
    return (
        [" ".join(said[: len(said) // 2]), " ".join(said[len(said) // 2 :])]
        if len(said) >= 6
        else []
    )


def plain(text: str) -> str:
    """Text without punctuation or extra spaces, to compare a quote with a line. Example: 'a, b.' -> 'a b'"""
    return " ".join(re.sub(r"[.,;:!?]", " ", text.lower()).split())


def terms(goal: str, stop: set[str] = frozenset()) -> Terms:
    """The terms of a request; folders and file names it mentions are its scope, not terms -- and so is a
    word that is part of a folder's name: in ``invoices/`` every line is about invoices.

    Example: 'find_user() fails for "Mixed Case" emails under app/' -> quotes ('mixed case',),
    identifiers ('find_user',), words ('find', 'user', 'email') -- 'fails' is too common to count.
    """
    places = re.sub(r"[^a-z0-9]", "", " ".join(re.findall(r"([\w.-]+)/", goal)).lower())
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
            and not (
                len(stem(word)) >= 4 and stem(word) in places
            )  # a folder's name: where, not what
        ):
            spelled.setdefault(stem(word), word.lower())
    said = re.findall(r"[a-z]+", unquoted.lower())
    pairs = {f"{a} {b}" for a, b in zip(said, said[1:])}
    return Terms(quotes, tuple(dict.fromkeys(idents)), tuple(spelled), spelled, frozenset(pairs))


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
    for stem in found.words:
        if stem in seen:
            matched, score = matched + [found.spelled[stem]], score + 1
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


def lookups(found: Terms) -> list[str]:
    """What an agent searches for before reading file by file: the quoted error texts, then the identifiers
    (their last part: ``remove`` finds where ``Basket.remove`` is defined), never an error everyone raises.

    Example: terms of "`Store.remove` fails with 'not in list' (a ValueError)" -> ['not in list', 'remove']
    """
    names = [i.split(".")[-1] for i in found.identifiers]
    return list(dict.fromkeys(list(found.quotes) + [n for n in names if n not in GENERIC_ERRORS]))


def search_terms(found: Terms, limit: int = 6) -> list[str]:
    """What an agent would search for, most telling first: quotes, identifiers, then the longest words.

    Example: terms of "parse_lines fails with 'unexpected value continuation'" ->
    ['unexpected value continuation', 'parse_lines', 'continuation', 'unexpected']
    """
    words = sorted(found.spelled.values(), key=lambda w: (-len(w), w))
    return list(
        dict.fromkeys(list(found.quotes) + [i.split(".")[-1] for i in found.identifiers] + words)
    )[:limit]
