"""Lap records for ``first_lap_without``: desks that hold a text exactly on the laps the case says.

A case (``LapCase``) knows its answer because it was built to: the text is put on chosen laps, in
one kind of message or block per lap (the request, a remark beside tool results, a tool result as
text or as blocks, the assistant's note, a tool call's input, a user's plain answer, a message full
of quotes), written in any case. Laps without the text may hold a decoy that only a wrong search
finds: the text's words in another order, a string a regular expression built from the text would
match, or the text split across two messages. Lap numbers start anywhere, not only at 1.

The texts hold what trips a search that is not ``text in text_of(message).lower()``: characters a
regular expression treats specially, letters outside ASCII (JSON escapes them), both kinds of quotes
(a printed list escapes one of them).

Left out: texts a tool call's input would hold in JSON-escaped form (quotes, non-ASCII): text_of
shows a tool call's input as JSON, so such a text is never on the desk in its own words.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

import hypothesis.strategies as st

from harness.laps import Lap
from harness.messages import assistant, blocks_of, user

from .common import random_history, text_block

# (the text, as the task gives it: lowercase; a string an unescaped regular expression finds instead)
PHRASES = [
    ("never touch production", None),
    ("prod is off limits (really)", "prod is off limits really"),
    ("keep every change on staging.", "keep every change on staging!"),
    ("use staging only: $db?", None),
    ("migrations/* are [read-only]", None),
    ("ne touchez pas à la prod", None),
    ("本番には触らない", None),
    ('don\'t say "prod"', None),
]
PLACES = {  # where the text sits, in the words a hint uses
    "request": "in the request, a plain string message",
    "remark": "in a remark: a text block of a user message that also carries tool results",
    "result": "inside a tool result: text_of(message) includes what the tools returned",
    "result list": "inside a tool result whose content is a list of text blocks: text_of(message) "
    "reads it",
    "note": "in the assistant's own note: search the assistant's messages too",
    "call": "in the input of a tool call, in an assistant message: text_of(message) includes every "
    "tool call, as `name {json of the input}`",
    "answer": "in the user's plain answer to a question, later in the desk",
    "quotes": "in a message that also holds quotes, and the printed form of a list escapes an "
    "apostrophe (\\'): search text_of(message) of each message, not str(lap.sent)",
}
CASES = (str.lower, str.upper, str.title, str.capitalize)
DECOYS = {
    "words": "its words, in another order",
    "regex": "a string that a regular expression built from the text matches",
    "across": "the text split across two messages",
}


@dataclass
class LapCase:
    """Lap records, the text, and what the case was built to hold on each lap."""

    laps: list[Lap]
    text: str
    on: list[bool]  # is the text on that lap's desk?
    places: list[str | None] = field(default_factory=list)  # where (or where its decoy is)
    said: list[str | None] = field(default_factory=list)  # in which form
    decoys: list[str | None] = field(default_factory=list)  # a decoy on a lap without the text
    where: str = ""  # the case in a few words, when it was written by hand

    @property
    def expected(self) -> int | None:
        """The number of the first lap without the text after a lap with it; None if there is none."""
        for i, here in enumerate(self.on):
            if not here and any(self.on[:i]):
                return self.laps[i].number
        return None


def fits_a_tool_call(text: str) -> bool:
    """JSON shows an ASCII text without quotes or backslashes as it is."""
    return text.isascii() and not set(text) & set("\"'\\")


def put(sent: list[dict], place: str, said: str) -> None:
    """Put ``said`` on a made-up desk (a request and two turns), in one kind of message or block."""
    if place == "request":
        sent[0] = user(f"Fix the login. {said}: use staging.")
    elif place == "remark":
        sent[2] = {
            "role": "user",
            "content": list(sent[2]["content"]) + [text_block(f"Also: {said}.")],
        }
    elif place in ("result", "result list"):
        content = f"  1  # {said}\n  2  x = 1"
        result = dict(
            sent[2]["content"][0], content=content if place == "result" else [text_block(content)]
        )
        sent[2] = {"role": "user", "content": [result] + list(sent[2]["content"][1:])}
    elif place == "note":
        sent[1] = assistant([text_block(f"Remember: {said}.")] + blocks_of(sent[1])[1:])
    elif place == "call":
        remember = {
            "type": "tool_use",
            "id": "toolu_note",
            "name": "remember",
            "input": {"fact": said},
        }
        sent[3] = assistant(blocks_of(sent[3]) + [remember])
        sent[4] = {
            "role": "user",
            "content": list(sent[4]["content"])
            + [{"type": "tool_result", "tool_use_id": "toolu_note", "content": "Saved."}],
        }
    elif place == "answer":
        sent += [assistant([text_block("Anything else?")]), user(f"Yes: {said}")]
    else:  # quotes: the printed form of the list escapes the apostrophe, the text itself does not
        sent[0] = user(f'The ticket says "urgent". {said}.')


def put_decoy(sent: list[dict], place: str, text: str, kind: str, regex_match: str | None) -> None:
    """Put something that is NOT the text, but that a wrong search finds, on a desk."""
    if kind == "across":  # the end of one message, then the start of the next
        parts = text.split(" ")
        half = len(parts) // 2
        first, rest = (
            (" ".join(parts[:half]), " ".join(parts[half:]))
            if half
            else (text[: len(text) // 2], text[len(text) // 2 :])
        )
        sent += [assistant([text_block("Noted: " + first)]), user(rest + " - ok")]
    elif kind == "regex" and regex_match:
        put(sent, place, regex_match)
    else:  # its words, newest first, with a word between each
        put(sent, place, " and ".join(reversed(text.split())))


def made_up_laps(rng: random.Random, shape: list[bool], place: str, said: str) -> list[Lap]:
    """Lap records whose desks hold ``said`` exactly on the laps ``shape`` marks, in one ``place``."""
    laps = []
    for number, present in enumerate(shape, start=1):
        sent = random_history(rng, turns=2, chat=False)
        if present:
            put(sent, place, said)
        laps.append(Lap(number, 1000 + 100 * number, 900, sent=sent))
    return laps


# One lap's recipe: (the text is there, place, case, decoy kind or 0 for none, seed of the filler).
LAP = st.tuples(
    st.booleans(),
    st.integers(0, len(PLACES) - 1),
    st.integers(0, len(CASES) - 1),
    st.integers(0, len(DECOYS)),
    st.integers(0, 9999),
)


def build_lap_case(phrase: int, first: int, recipe: list[tuple]) -> LapCase:
    text, regex_match = PHRASES[phrase]
    case = LapCase([], text, [])
    for k, (present, place_i, case_i, decoy_i, seed) in enumerate(recipe):
        sent = random_history(random.Random(seed), turns=2, chat=False)
        place = list(PLACES)[place_i]
        if place == "call" and not fits_a_tool_call(text):
            place = "note"
        said = decoy = None
        if present:
            said = CASES[case_i](text)
            put(sent, place, said)
        elif decoy_i:
            decoy = list(DECOYS)[decoy_i - 1]
            if decoy == "regex" and not regex_match:
                decoy = "words"
            if decoy == "words" and " " not in text:
                decoy = "across"
            put_decoy(sent, place, text, decoy, regex_match)
        case.laps.append(Lap(first + k, 1000 + 100 * k, 900, sent=sent))
        case.on.append(present)
        case.places.append(place if present or decoy else None)
        case.said.append(said)
        case.decoys.append(decoy)
    return case


def lap_cases(max_laps: int = 10):
    """A strategy for LapCase: a text of PHRASES, the first lap's number, one recipe per lap."""
    return st.builds(
        build_lap_case,
        st.integers(0, len(PHRASES) - 1),
        st.integers(1, 60),
        st.lists(LAP, max_size=max_laps),
    )


def show_lap_case(case: LapCase) -> list[str]:
    """One line per lap: whether the text is on its desk, and where; a decoy where there is one."""
    if case.where:
        return [case.where]
    lines = [f"text = {case.text!r}; {len(case.laps)} lap record(s):"]
    if not case.laps:
        lines[0] = f"text = {case.text!r}; laps = []  (no laps)"
    for lap, here, place, said, decoy in zip(
        case.laps, case.on, case.places, case.said, case.decoys
    ):
        if here:
            shown = f"the text, written {said!r}, {PLACES[place].split(':')[0]}"
        elif decoy:
            shown = f"not the text, but {DECOYS[decoy]}"
        else:
            shown = "the text is not on the desk"
        lines.append(f"  lap {lap.number}: {shown}")
    return lines


def lap_hint(got, case: LapCase) -> str:
    """The idea behind a wrong answer on a case, by what the answer said."""
    laps, on, expected = case.laps, case.on, case.expected
    numbers = [lap.number for lap in laps]
    place = next((p for p, here in zip(case.places, on) if here), "request")
    said = next((s for s in case.said if s), case.text)
    where_it_is = PLACES[place]
    position = next((i for i, n in enumerate(numbers) if n == expected), None)
    if (
        numbers[:1] != [1]  # numbered from another lap: a position is not a number
        and isinstance(got, int)
        and not isinstance(got, bool)
        and position is not None
        and got != expected
        and got in (position, position + 1)
    ):
        return (
            "lap numbers need not start at 1: return lap.number, not the position of the lap in "
            "the list."
        )
    if got is not None and not isinstance(got, bool) and got not in numbers:
        return "return the number of a lap (lap.number), or None if the text never leaves the desk."
    if got is None:
        if expected is None:
            return "with no laps there is nothing to find: return None."
        lap_i = numbers.index(expected)
        decoy = case.decoys[lap_i]
        if decoy:
            return _decoy_hint(decoy)
        if said != said.lower():
            return (
                f"the text is on the desk written {said!r}, and `text` is lowercase: compare in "
                "lowercase, as the rule says: text_of(message).lower(). It sits "
                + where_it_is
                + "."
            )
        if re.escape(case.text) != case.text and not re.search(case.text, case.text):
            return (
                "this text holds characters a regular expression treats specially -- ( ) . * [ ] ? "
                "$ -- so a pattern built from it does not find the text itself: look for it with "
                "`in`, on text_of(message).lower(), not with re. It sits " + where_it_is + "."
            )
        if place != "quotes" and (not case.text.isascii() or set(case.text) & set("\"'\\")):
            return (
                "search text_of(message) of each message, in lowercase, not str(lap.sent) or "
                "json.dumps(...): this text holds quotes or letters outside ASCII, which the printed "
                "form of a list and JSON write differently (\\', \\u00e0). It sits "
                + where_it_is
                + "."
            )
        return (
            "the text does leave the desk here; before that it sits "
            + where_it_is
            + ". Look in every message of lap.sent, with text_of(message), in lowercase."
        )
    if isinstance(got, bool):
        return "return the number of a lap (lap.number), or None if the text never leaves the desk."
    if expected is None:
        return (
            "here the text never leaves the desk (or is never on it): return None."
            if laps
            else "with no laps there is nothing to find: return None."
        )
    i = numbers.index(got)
    if on[i]:
        return (
            f"at lap {got} the text is still on the desk (something else was dropped): it sits "
            f"{PLACES[case.places[i]]}. Search every message of lap.sent, with text_of(message), "
            "in lowercase."
        )
    if not any(on[:i]):
        if any(case.decoys[:i]):
            return _decoy_hint(next(d for d in case.decoys[:i] if d))
        return (
            f"at lap {got} the text had not been on the desk yet, so it cannot have left. Find the "
            "first lap without it AFTER a lap that had it."
        )
    if case.decoys[numbers.index(expected)]:
        return _decoy_hint(case.decoys[numbers.index(expected)])
    return (
        "the text had already left at an earlier lap; you found a later absence. Return at the FIRST "
        "lap without it, the moment you see one after a lap that had it."
    )


def _decoy_hint(decoy: str) -> str:
    if decoy == "words":
        return (
            "on that lap the desk holds the text's words, but not the text: look for the whole "
            "text, in one piece, in each message's text_of(...).lower(), not for each word on its "
            "own."
        )
    if decoy == "regex":
        return (
            "on that lap a regular expression built from the text finds something that is not the "
            "text: ( . * [ ? $ are special to re. Look for the text itself with `in`, not with re."
        )
    return (
        "on that lap the text is split across two messages, so no message holds it: search each "
        "message's text_of on its own, not the whole desk joined into one string."
    )
