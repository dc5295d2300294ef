"""What a request names: its quoted error texts, its identifiers, its distinctive words.

``terms(goal)`` pulls them out of a request, the way an agent picks what to grep for:

* a quote's longest run of plain words, as typed ("'80a' is not a valid port number" -> "is not a valid port
  number"); a colon ends a run (what follows it is the value); a long quote also has two ``halves``, for a
  message whose code writes a value in its middle
* identifiers: ``find_user``, ``dueAt``, ``pkg.mod``, ``parse()``, anything in backticks
* words of four letters or more that are not common (``COMMON``: "only", "value", "works", code keywords),
  not part of an identifier, not part of a folder's name the request points at, cut to their ``stem``
* the request's pairs of words in a row, for a message the user repeats without quoting it

``lookups`` is what it searches for before reading file by file (quotes, then identifiers); ``search_terms``
what it searches for when reading turned up nothing (quotes, identifiers, then the longest words).

Left out: synonyms ("sign in" never meets "login"), words in another language, and meaning of any kind.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass

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
