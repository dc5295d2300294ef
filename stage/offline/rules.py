"""Standing rules: which sentences limit where an action may go, and which target that leaves.

A rule is a clause that **forbids** a target or **restricts** the work to some targets:

* forbid:   "Never touch production."  "Production must never be touched."  "Don't run it on prod."
            "No schema changes on live."  "Prod is off limits."  "Stay away from production."
            "Leave the live database alone."  "Hands off prod."  "Under no circumstances use production."
* restrict: "Only on staging."  "Staging only."  "Exclusively on stage."  "Staging and nowhere else."
            "Keep every schema change on staging."  "All database work goes to staging."

The target names come from the tools the model is sent (the ``enum`` of run_sql's ``target``), and each
may be written with a common alias (production: prod, prd, live; staging: stage, stg). So a toolbox with
other targets (``sandbox``, ``primary``) works the same way.

Not rules: a sentence that only *mentions* a target ("The migration has not reached production yet.",
"Production runs Postgres 15."). A rule about something else ("Never deploy on Fridays.") is a standing
rule -- summaries carry it -- but it binds no target.

A message quoted in a sentence is not an order ("it fails with 'must not be empty'" binds nothing).

Left out (wordings it misses, on purpose): a rule spread over two sentences ("Production is special.
Ask first."), one that needs world knowledge ("Treat the customer database as sacred."), double
negatives ("It is not unwise to avoid prod."), a rule given only by an example, and rules inside files
the agent reads: only the user, the system prompt and summaries bind it.
"""

from __future__ import annotations

import re

ALIASES = {
    "production": ("prod", "prd", "live"),
    "staging": ("stage", "stg"),
    "development": ("dev",),
    "testing": ("test",),
}
WEAK = {
    "live",
    "stage",
    "test",
    "dev",
}  # ordinary words too: they count only where a target would stand
TARGET_AFTER = r"\s+(?:database|db|server|environment|env|data|system|instance|cluster|copy)"

# A negation that gives an order, not one that describes ("has not reached", "was never run").
DESCRIBES = set(
    "has have had was were did does been hasn't haven't wasn't weren't didn't doesn't it's that's".split()
)
NEVER = re.compile(r"(\S+)?\s*\bnever\b(?!\s+(?:been|reached|seen|had|ran)\b)", re.I)
FORBID_BEFORE = re.compile(
    "|".join(
        [
            r"\b(?:do not|don't|dont|do n't|does not need to)\b",
            r"\b(?:must not|mustn't|must never|may not|may never|shall not|shan't|should not|shouldn't|should never|ought not)\b",
            r"\b(?:you|we|agents?|nobody|no one)\s+(?:can ?not|can't|cant|are not to|are never to)\b",
            r"\b(?:is not to|are not to|not to be|never to be)\b",
            r"^(?:(?:and|but|so|also|please|absolutely|just)\s+)*(?:no|not|nothing|none)\b",
            r"(?:,|\bbut)\s+(?:never|not)\b",
            r"\b(?:avoid|avoiding|away from|stay away from|staying away from|keep away from|keep off|keep out of|steer clear of)\b",
            r"\b(?:refrain from|hands off|under no circumstances?|in no case|at no time|at no point|nothing (?:goes|runs|is run))\b",
            r"\b(?:not allowed|not permitted|forbidden|prohibited|never allowed) to\b",
            r"\b(?:forbid|forbids|prohibit|prohibits|ban|bans)\b",
        ]
    ),
    re.I,
)
FORBID_AFTER = re.compile(
    "|".join(
        [
            r"^\W*(?:\w+\W+){0,2}?(?:is|are|stays?|remains?|must stay|must remain|should stay)?\s*(?:strictly\s+|completely\s+|absolutely\s+)?"
            r"(?:off[- ]limits|forbidden|prohibited|banned|out of bounds|not allowed|not permitted|disallowed|untouchable|"
            r"read[- ]only|a no[- ]go|no[- ]go|not to be \w+|never to be \w+|not for \w+|untouched|left alone)",
            r"^\W*(?:\w+\W+){0,2}?(?:must not|mustn't|must never|may not|may never|can ?not be|can't be|cannot be|should never|"
            r"should not|shouldn't|shall not|is never|are never|will never be|is not to|are not to)\b",
            r"^\W*(?:\w+\W+){0,4}?alone\b",
            r"^\W*(?:hands off|keep out|do not touch|don't touch|no touching)\b|^\W*never\W*$",
        ]
    ),
    re.I,
)
DOING = (
    r"(?:run|runs|go|goes|be|is|are|applied|apply|executed|execute|happen|happens|land|lands|deploy|write|writes|work|"
    r"use|used|touch|target|made|done|do|ever|changes?|it|them|this|that|queries|sql|statements?|migrations?|fixes?)"
)
ONLY_BEFORE = re.compile(
    rf"\b(?:only|exclusively|solely)\b(?:\s+{DOING}){{0,3}}\s+(?:on|to|against|in|into|with|at)\s+"
    rf"(?:the\s+|our\s+)?$|\b(?:only|exclusively|solely)\s+(?:ever\s+)?(?:use|using|touch|target|targeting)\s+"
    rf"(?:the\s+)?$|^\W*(?:only|exclusively)\s+$",
    re.I,
)
ONLY_AFTER = re.compile(
    r"^(?:\s+(?:database|db|server|environment|env|data))?\s*(?:-|\s)(?:only|exclusively)\b"
    r"(?!\s+(?:has|have|had|is|are|was|were|runs|ran|contains|holds|shows|knows)\b)|"
    r"^\s+(?:is|are)\s+the\s+only\s+(?:place|target|environment|database|one)\b",
    re.I,
)
ELSEWHERE = re.compile(
    r"\b(?:nowhere else|not anywhere else|never anywhere else|and no other|nothing but)\b", re.I
)
INTO = re.compile(
    r"\b(?:on|to|against|in|into|with|at|use|using|target|targeting)\s+(?:the\s+|our\s+)?$", re.I
)
KEEP_TO = re.compile(
    r"\b(?:keep|kept|stick|stay|confine|confined|limit|limited|restrict|restricted)\b", re.I
)
ALL_GO = re.compile(
    r"^\W*(?:(?:and|so|also|please)\s+)*(?:all|every|each|any)\b.*\b(?:go|goes|run|runs|is run|are run|happen|"
    r"happens|belong|belongs|land|lands|applied|done|made|executed|sent)\b|\b(?:must|should|has to|have to|"
    r"needs? to|is to|are to|shall)\b(?:\s+\w+){0,3}\s+\w+\s+$",
    re.I,
)
ALWAYS = re.compile(r"\balways\b", re.I)
ORDER = re.compile(
    r"^\W*(?:please\s+)?(?:use|run|apply|do|send|put|make|point|target|work)\b", re.I
)  # an imperative
EVERY = re.compile(r"\b(?:all|every|each|any|instead)\b", re.I)
NOT_EXCLUSIVE = re.compile(r"\b(?:first|before|then|also|too|as well|after|later)\b", re.I)
GENERAL = re.compile(
    "|".join(
        [  # a standing rule about anything: an order that forbids or limits
            r"^(?:(?:and|but|so|also|please|absolutely|just)\s+)*(?:never|don't|dont|do not|always|avoid|only|no|not|"
            r"under no circumstances|refrain|stay away|keep away|hands off|leave)\b",
            r"\b(?:must not|mustn't|must never|may not|should never|should not|shouldn't|shall not|is not allowed|are not allowed|"
            r"not permitted|forbidden|prohibited|off[- ]limits|under no circumstances|refrain from)\b",
        ]
    ),
    re.I,
)
REMINDER = re.compile(
    r"\b(?:don't|do not|never|not)\s+(?:forget|hesitate|worry)\b", re.I
)  # a nudge, not a limit
QUOTED = re.compile(r"(?<!\w)(['\"`\u2018\u201c])([^\n]+?)(?:\1|[\u2019\u201d])(?!\w)")  # 'a quote'
CLAUSE = re.compile(r"\s*(?:[;:\u2014\u2013]|\s-\s|\(|\))\s*")


# ---- the targets a toolbox declares ------------------------------------------------------------


def declared_targets(tools: list[dict]) -> tuple[list[str], str | None]:
    """(targets, default) from the first tool argument with an ``enum``, e.g. run_sql's ``target``.

    Example: the class toolbox -> (["staging", "production"], "production"). No such argument -> ([], None).
    """
    for tool in tools or []:
        properties = (tool.get("input_schema") or {}).get("properties") or {}
        for spec in properties.values():
            values = [v for v in (spec or {}).get("enum") or [] if isinstance(v, str)]
            if values:
                default = spec.get("default")
                return values, default if default in values else values[0]
    return [], None


# ---- reading one sentence -------------------------------------------------------------------------


def clauses(sentence: str) -> list[str]:
    """A sentence cut at ; : dashes and brackets. Example: 'Never prod: staging only.' -> ['Never prod', 'staging only.']

    A piece of one or two words stays with the next one ('Prod: hands off.' is one clause).
    """
    out, carry = [], ""
    for piece in (c.strip() for c in CLAUSE.split(sentence)):
        if not piece:
            continue
        piece = f"{carry} {piece}".strip() if carry else piece
        carry = piece if len(piece.split()) <= 2 and not piece.endswith(".") else ""
        if not carry:
            out.append(piece)
    return out + ([carry] if carry else [])


def mentions(clause: str, target: str) -> list[tuple[int, int]]:
    """(start, end) of each place a clause names a target (or an alias of it)."""
    spans = []
    for hit in _matcher(target).finditer(clause):
        lead = re.match(PLACE, hit.group(), re.I)  # a weak alias is matched with the word before it
        spans.append((hit.start() + (lead.end() if lead else 0), hit.end()))
    return spans


def forbids(clause: str, target: str) -> bool:
    """Does this clause forbid ``target``? Example: ('Production must never be touched', 'production') -> True"""
    for start, end in mentions(clause, target):
        before, after = clause[:start], clause[end:]
        if _orders_against(before, after) or FORBID_AFTER.search(after):
            return True
    return False


def _orders_against(before: str, after: str = "") -> bool:
    """A negation that gives an order stands before the target ('never', 'don't', 'stay away from' ...)."""
    before = REMINDER.sub(" ", before)  # "don't worry, production is fine" forbids nothing
    if re.search(r"\bleave\b(?:\s+\w+){0,3}\s*$", before, re.I) and re.match(
        r"^(?:\s+\w+){0,3}\s+alone\b", after, re.I
    ):
        return True
    if FORBID_BEFORE.search(before):
        return True
    return any((m.group(1) or "").lower() not in DESCRIBES for m in NEVER.finditer(before))


def allows_only(clause: str, target: str) -> bool:
    """Does this clause restrict the work to ``target``? Example: ('Keep every schema change on staging', 'staging') -> True"""
    if NOT_EXCLUSIVE.search(clause) or forbids(clause, target):
        return False
    for start, end in mentions(clause, target):
        before, after = clause[:start] + " ", clause[end:]
        if ONLY_BEFORE.search(before) or ONLY_AFTER.match(after) or ELSEWHERE.search(clause):
            return True
        if INTO.search(before) and (
            KEEP_TO.search(before) or ALL_GO.search(before) or ALWAYS.search(before)
        ):
            return True
        if (
            INTO.search(before) and ORDER.match(clause) and EVERY.search(after + " " + before)
        ):  # "use stage for all"
            return True
    return False


def is_rule(sentence: str, targets: list[str] | None = None) -> bool:
    """A standing rule: an order that forbids or limits, about a target or anything else.

    A message quoted in the sentence (three words or more) is what someone saw, not what the user orders:
    "It fails with 'Label must not start with a hyphen'." is no rule.
    Example: 'Never deploy on Fridays.' -> True; 'The fix has not reached production yet.' -> False
    """
    targets = targets or ["production", "staging"]
    said = QUOTED.sub(lambda m: " " if len(m.group(2).split()) >= 3 else m.group(), sentence)
    for clause in clauses(said):
        if any(forbids(clause, t) or allows_only(clause, t) for t in targets):
            return True
        if (
            GENERAL.search(clause)
            and not REMINDER.search(clause)
            and not any(mentions(clause, t) for t in targets)
        ):
            return True
    return False


# ---- what the rules in view leave -------------------------------------------------------------------


def ruled_out(rules: list[str], targets: list[str]) -> set[str]:
    """The targets that the visible rules forbid: named by a forbidding clause, or left out of an 'only' clause.

    Example: (['Keep every schema change on staging.'], ['staging', 'production']) -> {'production'}
    """
    forbidden, allowed = set(), set()
    for rule in rules:
        for clause in clauses(rule):
            for target in targets:
                if forbids(clause, target):
                    forbidden.add(target)
                elif allows_only(clause, target):
                    allowed.add(target)
    if allowed:
        forbidden |= set(targets) - allowed
    return forbidden


def choose_target(rules: list[str], targets: list[str], default: str | None) -> str | None:
    """The tool's default target, unless a rule in view rules it out; then the first target left.

    None when every target is ruled out (the agent then says so instead of acting).
    Example: ([], ['staging', 'production'], 'production') -> 'production'
    """
    out = ruled_out(rules, targets)
    if default and default not in out:
        return default
    return next((t for t in targets if t not in out), None)


_CACHE: dict[str, re.Pattern] = {}
PLACE = r"\b(?:on|to|in|against|the|into|from|touch|use|hit|off|and|or|change|modify|alter|update|leave|avoid)\s+"


def _matcher(target: str) -> re.Pattern:
    """A pattern for one target and its aliases; a weak alias ('live') counts only where a target stands."""
    if target not in _CACHE:
        names = [target] + [a for a in ALIASES.get(target.lower(), ()) if a != target.lower()]
        strong = "|".join(re.escape(n) for n in names if n.lower() not in WEAK)
        weak = "|".join(re.escape(n) for n in names if n.lower() in WEAK)
        parts = [rf"\b(?:{strong})\b"] if strong else []
        if weak:
            parts += [
                rf"{PLACE}(?:{weak})\b(?!\s+(?:in|at|on|with)\b)",
                rf"\b(?:{weak})(?={TARGET_AFTER}\b)",
                rf"^\W*(?:{weak})\b(?=\s*(?::|is|must|should|stays?|remains?)\b)",
                rf"\b(?:{weak})(?=\s+only\b|-only\b)",
            ]
        _CACHE[target] = re.compile("|".join(parts), re.I)
    return _CACHE[target]
