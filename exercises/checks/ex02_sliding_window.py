"""Checks for exercise 02, the sliding window: ``sliding_window``, ``first_lap_without``, ``pinned_window``,
``remarks_window``.

A window function gets ``(messages, budget, counter)``: ``messages`` is the raw history (a list of
messages), ``budget`` the most tokens the desk may hold, ``counter(message)`` the tokens of one message.
The budget covers every message sent -- the notice and the pinned request included; the system prompt
and the tools are already taken off it. ``window_rules.py`` says what must hold of a right window; the
scenarios here include the edges a careful grader tries: an empty history, a history of one message, a
budget the whole history fits exactly, a budget of 0, a newest turn that alone is over the budget, a
turn that fits exactly beside the notice, a request that alone is over the budget.

``first_lap_without`` is judged on lap records the check built, so it knows on which laps the text is
on the desk (and where: in a request, a remark, a tool result, a note or a tool call's input), and on
real runs, where the message that carries the rule is known by the loop's structure.

``StudentWindow`` runs your window inside the loop, so the checks can watch the rule on a real desk.
Left out: windows that reorder messages, and notices longer than a few lines.
"""

from __future__ import annotations

import random

from harness.context import Assembly, Strategy
from harness.sliding_window import SlidingWindow
from harness.laps import Lap
from harness.messages import assistant, blocks_of, safe_cuts, text_of, user
from harness.tokens import Meter
from stage.tasks import file_reading_task

from .common import (
    RULES,
    Fail,
    call,
    call_on_copy,
    holder_of,
    how_it_stopped,
    is_messages,
    need_function,
    once,
    random_history,
    run,
    text_block,
    verdict,
    words,
)
from .window_rules import NOTICE, remarks_problem, size_of, window_problem

_CHANGED = (
    "build a new list (a slice such as messages[start:], or [notice] + ...) and return it; never pop, "
    "insert into or edit the list you were given -- in the loop that list is the raw history."
)
_ALIAS = (
    "return a new list even when everything fits -- list(messages), not messages itself: the loop keeps "
    "appending to its history, and the desk it sent must not change with it."
)


# ---- task 1: the fresh histories every window is tried on ------------------------------------------------


def _thirds(message) -> int:
    """A second counter, unlike chars/4: a window must use the counter it is given."""
    return len(text_of(message)) // 3 + 2


def window_scenarios(seed: int, pinned: bool):
    """(messages, budget, counter): mixed sizes, two counters, loose, tight and roomy budgets, then the edges."""
    rng = random.Random(seed)
    chars4 = Meter("chars4").count
    for i in range(40):
        messages = random_history(
            rng, turns=rng.randint(2, 14), wide=0.1 if i % 5 == 0 else 0.0, big_inputs=i % 5 == 1
        )
        counter = chars4 if i % 2 == 0 else _thirds
        head = counter(messages[0]) if pinned else 0
        total = size_of(messages, counter)
        cuts = [c for c in safe_cuts(messages)[:-1] if c >= 1 + pinned]
        smallest = (
            head + size_of(messages[cuts[-1] :], counter) + counter(user("[" + "x" * 80 + "]"))
        )
        if i % 8 == 7:  # everything fits
            budget = total + rng.randint(0, 50)
        elif i % 4 == 1 and len(cuts) > 1:  # a turn fits exactly, but not with a notice before it
            cut = rng.choice(cuts[1:])
            budget = max(smallest, head + size_of(messages[cut:], counter) + rng.randint(0, 3))
        else:
            budget = rng.randint(smallest, max(smallest, total))
        yield messages, budget, counter
    yield from edge_scenarios(rng, pinned, chars4)


def edge_scenarios(rng, pinned: bool, counter):
    """The cases a careful grader tries. Each is (messages, budget, counter)."""
    messages = random_history(rng, turns=8, chat=False)
    head = counter(messages[0]) if pinned else 0
    total = size_of(messages, counter)
    cuts = [c for c in safe_cuts(messages)[:-1] if c >= 1 + pinned]
    yield messages, total, counter  # the whole history fits exactly
    yield messages, total + 10_000, counter  # a window that fits everything, roomily
    exact = head + counter(NOTICE) + size_of(messages[cuts[-3] :], counter)
    yield messages, exact, counter  # three turns fit exactly beside the notice
    yield (
        messages,
        head + counter(NOTICE) + size_of(messages[cuts[-1] :], counter) - 1,
        counter,
    )  # none fits
    request = messages[:1]
    yield request, counter(request[0]), counter  # the request alone, fitting exactly
    yield request, counter(request[0]) - 1, counter  # the request alone, one token too big
    yield (
        messages[:3],
        size_of(messages[:3], counter) - 1,
        counter,
    )  # the request and one turn, just too big
    if pinned:
        yield messages, counter(messages[0]) - 1, counter  # not even the request fits
    else:
        yield messages, 0, counter  # a budget of 0
    big = list(messages)  # the newest turn alone is over the budget
    call_ = {
        "type": "tool_use",
        "id": "toolu_big",
        "name": "read_file",
        "input": {"path": "app/huge.py"},
    }
    big += [
        assistant([text_block("Reading the big one."), call_]),
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_big", "content": words(rng, 3000)}
            ],
        },
    ]
    yield big, total, counter
    chat = [user("Please fix the export.")]  # a cut before a plain user message
    for n in range(6):
        chat += [
            assistant([text_block("A question: " + words(rng, 30))]),
            user("Answer: " + words(rng, 30)),
        ]
    yield chat, size_of(chat, counter) // 2, counter


def _try_window_scenarios(window_fn, name: str, seed: int, pinned: bool) -> int:
    """Run the student's window on the fresh histories; raise the first problem found. Returns how many."""
    need_function(window_fn, name)
    empty_hint = "an empty history is a real input (nothing has happened yet): return []."
    count = 0
    scenarios = once(("window cases", seed, pinned), lambda: list(window_scenarios(seed, pinned)))
    for messages, budget, counter in [([], 100, Meter("chars4").count)] + scenarios:
        out = call_on_copy(
            f"{name}(<{len(messages)} messages>, {budget}, counter)",
            window_fn,
            messages,
            budget,
            counter,
            changed_hint=_CHANGED,
            alias_hint=_ALIAS,
            hint=None if messages else empty_hint,
        )
        problem = window_problem(messages, budget, counter, out, pinned=pinned, name=name)
        if problem:
            raise problem
        count += 1
    return count


def check_sliding_window(sliding_window, seed: int = 2) -> bool:
    """Checks sliding_window(messages, budget, counter), the rules as the task states them:

    - Never change `messages`: build and return a new list, even when everything fits.
    - If everything fits (a total `<=` the budget), send everything, unchanged.
    - Otherwise drop the oldest messages and put exactly one notice, `user(DROPPED_NOTICE)`, first, then `messages[cut:]` for one cut.
    - Cut only at a safe cut, `safe_cuts(messages)`: never between a tool_use and its tool_result. A cut may fall before an assistant message or before a user message that carries no tool result; the notice goes first either way.
    - Everything you send counts against the budget, the notice included; never go over it.
    - Keep as much as fits: the oldest safe cut whose desk fits is the one to take.
    - If not even the newest turn fits beside the notice, return `[]`. A budget of 0 is room for nothing. An empty history gives `[]`.

    On 40 fresh histories (two counters) and the edges: an empty history, one message, exact fits, a
    roomy budget, a budget of 0, a newest turn over the budget, a cut before a plain user message.
    """

    def body():
        n = _try_window_scenarios(sliding_window, "sliding_window", seed, pinned=False)
        return (
            f"{n} histories (40 fresh, an empty one, one message, exact fits, a budget of 0, an oversize newest "
            "turn): within budget, the newest kept, no tool pair split, the notice first, your input untouched."
        )

    return verdict("sliding_window", body)


# ---- task 2: first_lap_without ----------------------------------------------------------------------

# (name, on which laps the text is on the desk, the answer): the answer is part of the case, not worked out.
_SHAPES = [
    ("leaves at lap 5", [True] * 4 + [False] * 5, 5),
    ("arrives at lap 3 and leaves at lap 6", [False] * 2 + [True] * 3 + [False] * 4, 6),
    (
        "leaves at lap 4, comes back at lap 6, leaves again at lap 8",
        [True] * 3 + [False] * 2 + [True] * 2 + [False] * 3,
        4,
    ),
    ("is never on the desk", [False] * 9, None),
    ("never leaves", [True] * 10, None),
    ("leaves at the last lap", [True] * 7 + [False], 8),
    ("is on the desk at lap 1 only", [True] + [False] * 6, 2),
    ("is on the one lap there is", [True], None),
    ("is not on the one lap there is", [False], None),
]
_PLACES = {
    "request": "in the request",
    "remark": "in a remark inside a tool-results message",
    "result": "inside a tool result",
    "result list": "inside a tool result whose content is a list of blocks",
    "note": "in the assistant's own note",
    "call": "in the input of a tool call (remember)",
    "quotes": "in a message that also holds both kinds of quotes",
}


def _put(sent: list[dict], place: str, said: str) -> None:
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
    else:  # quotes: the printed form of the list escapes the apostrophe, the text itself does not
        sent[0] = user(f'The ticket says "urgent". {said}.')


def made_up_laps(rng: random.Random, shape: list[bool], place: str, said: str) -> list[Lap]:
    """Lap records whose desks hold ``said`` exactly on the laps ``shape`` marks, in one ``place``."""
    laps = []
    for number, present in enumerate(shape, start=1):
        sent = random_history(rng, turns=2, chat=False)
        if present:
            _put(sent, place, said)
        laps.append(Lap(number, 1000 + 100 * number, 900, sent=sent))
    return laps


_LAP_SCENARIOS = [  # (pin_head, window, rule_at_lap, rule wording)
    (False, 4000, None, RULES[0]),
    (False, 4500, 3, RULES[1]),
    (False, 6000, 2, RULES[2]),
    (False, 5000, 4, RULES[1]),
    (True, 5000, None, RULES[1]),
]


def _sliding_run(pin_head, window, at, rule):
    """A real SlidingWindow run: (laps, the lap number at which the rule's message first left the desk)."""
    laps, task = [], file_reading_task(rule_at_lap=at, rule=rule)
    run_ = run(SlidingWindow(pin_head=pin_head), window, task, on_lap=laps.append)
    holder = holder_of(run_.history, task)
    on = [holder in lap.sent for lap in laps]
    left = next((lap.number for i, lap in enumerate(laps) if any(on[:i]) and not on[i]), None)
    return laps, on, left


def _lap_cases(seed: int):
    """(where, laps, text, expected, on, place, said): real runs, then made-up lap records, then no laps.

    ``on`` says on which laps the text is on the desk: by construction, or by where the rule's message is.
    """
    for pin_head, window, at, (rule, piece) in _LAP_SCENARIOS:
        laps, on, left = once(
            ("sliding", pin_head, window, at, rule),
            lambda: _sliding_run(pin_head, window, at, rule),
        )
        where = (
            f"sliding window{', head pinned' if pin_head else ''}, window {window:,}, the rule "
            + ("in the request" if at is None else f"said at lap {at}")
        )
        yield where, laps, piece, left, on, "request" if at is None else "remark", rule
    rng = random.Random(seed)
    places = list(_PLACES)
    for n, (shape_name, shape, expected) in enumerate(_SHAPES):
        place = places[n % len(places)]
        piece = "don't touch production" if place == "quotes" else rng.choice(RULES)[1]
        # each place first in lowercase (so a miss there is about the place), then in other cases
        said = (
            piece
            if n < len(places)
            else rng.choice([piece.capitalize(), piece.upper(), piece.title()])
        )
        yield (
            f"made-up laps where the text {shape_name}, written {_PLACES[place]}",
            made_up_laps(rng, shape, place, said),
            piece,
            expected,
            shape,
            place,
            said,
        )
    for place in ("call", "result list", "note", "quotes"):  # every place again, on the usual shape
        piece = "don't touch production" if place == "quotes" else rng.choice(RULES)[1]
        said = piece.capitalize()
        yield (
            f"made-up laps where the text leaves at lap 5, written {_PLACES[place]}",
            made_up_laps(rng, _SHAPES[0][1], place, said),
            piece,
            5,
            _SHAPES[0][1],
            place,
            said,
        )
    yield "no laps at all", [], RULES[0][1], None, [], "request", RULES[0][0]


def check_first_lap_without(first_lap_without, seed: int = 8) -> bool:
    """Checks first_lap_without(laps, text), the rules as the task states them:

    - `laps` are lap records in order; `text` is a piece of text in lowercase.
    - Return the `number` of the first lap whose desk (`lap.sent`) holds `text` nowhere -- in no message and no block (text, tool call, tool result, a remark), in no case: compare with `text_of(message).lower()` -- after a lap that did hold it.
    - Return `None` if it never leaves, if it is never there, or if there are no laps. If it leaves, comes back and leaves again, the answer is the first time it left.
    - Do not change `laps`.

    On 5 real SlidingWindow runs (the rule said at lap 2-4, other wordings, a pinned head), on lap records
    built with the text in every kind of message, in any case, on one lap or many, and on no laps.
    """

    def body():
        need_function(first_lap_without, "first_lap_without")
        wrong, answers = (
            [],
            [],
        )  # (where, got, expected, on, place, said, laps) for every case it got wrong
        for where, laps, piece, expected, on, place, said in once(
            ("lap cases", seed), lambda: list(_lap_cases(seed))
        ):
            got = call_on_copy(
                f"first_lap_without(laps, {piece!r}) [{where}]",
                first_lap_without,
                list(laps),
                piece,
                changed_hint="only read the laps; do not sort, pop or edit them.",
                hint="an empty list of laps is a real input: return None." if not laps else None,
            )
            answers.append((got, expected))
            if got != expected or isinstance(got, bool):
                wrong.append((where, got, expected, on, place, said, laps))
        if not wrong:
            return (
                f"right on {len(answers)} cases: 5 real runs, made-up laps (the text in every kind of message, any "
                "case, one lap or many), no laps."
            )
        # One hint for the whole pattern: the same number whatever the laps is typed in; one lap early on
        # every case is counting from 0.
        if (
            len({repr(got) for got, _ in answers}) == 1
            and len({repr(want) for _, want in answers}) > 2
        ):
            where, got, expected, *_ = wrong[0]
            raise Fail(
                f"[{where}] you said {got!r}, the laps say {expected!r}",
                "your answer is the same whatever the laps: work it out from the laps you are given, not "
                "from the class run's number.",
            )
        if all(
            isinstance(got, int) and expected is not None and got == expected - 1
            for _, got, expected, *_ in wrong
        ):
            where, got, expected, *_ = wrong[0]
            raise Fail(
                f"[{where}] you said {got!r}, the laps say {expected!r}",
                "lap numbers start at 1: return lap.number, not the position of the lap in the list.",
            )
        where, got, expected, on, place, said, laps = next(
            (w for w in wrong if w[2] is None or w[1] != w[2] - 1), wrong[0]
        )
        raise Fail(
            f"[{where}] you said {got!r}, the laps say {expected!r}",
            _lap_hint(got, expected, on, place, said, laps),
        )

    return verdict("first_lap_without", body)


_MISSED = {
    "request": "in the request, a plain string message",
    "remark": "in a remark: a text block of a user message that also carries tool results",
    "result": "inside a tool result: text_of(message) includes what the tools returned",
    "result list": "inside a tool result whose content is a list of text blocks: text_of(message) reads it",
    "note": "in the assistant's own note: search the assistant's messages too",
    "call": (
        "in the input of a tool call, in an assistant message: text_of(message) includes every tool call, as "
        "`name {json of the input}`"
    ),
    "quotes": (
        "in a message that also holds quotes, and the printed form of a list escapes an apostrophe "
        "(\\'): search text_of(message) of each message, not str(lap.sent)"
    ),
}


def _lap_hint(got, expected, on, place, said, laps) -> str:
    where_it_is = _MISSED[place]
    if got is None:
        if said != said.lower():
            return (
                f"the text is on the desk written {said!r}, and `text` is lowercase: compare in lowercase, "
                "text in text_of(message).lower(). It sits " + where_it_is + "."
            )
        return (
            "the text does leave the desk here; before that it sits "
            + where_it_is
            + ". Look in every message of lap.sent, with text_of(message), in lowercase."
        )
    if expected is None:
        return (
            "here the text never leaves the desk (or is never on it): return None."
            if laps
            else "with no laps there is nothing to find: return None."
        )
    numbers = [lap.number for lap in laps]
    if isinstance(got, bool) or got not in numbers:
        return "return the number of a lap (lap.number), or None if the text never leaves the desk."
    i = numbers.index(got)
    if on[i]:
        return (
            f"at lap {got} the text is still on the desk (something else was dropped): it sits {where_it_is}. "
            "Search every message of lap.sent, with text_of(message), in lowercase."
        )
    if not any(on[:i]):
        return (
            f"at lap {got} the text had not been on the desk yet, so it cannot have left. Find the first "
            "lap without it AFTER a lap that had it."
        )
    return (
        f"the text had already left at lap {expected}; you found a later absence. Return at the FIRST lap "
        "without it, the moment you see one after a lap that had it."
    )


# ---- task 3: pin the head ---------------------------------------------------------------------------


class StudentWindow(Strategy):
    """Runs a window function ``fn(messages, budget, counter)`` inside the loop, like SlidingWindow does.

    The budget is the model's window minus ``output_reserve`` and the fixed cost of the system prompt
    and tool definitions; ``counter`` is the run's token meter. Your function gets a copy of the history.
    """

    def __init__(self, fn, output_reserve: int = 512, name: str = "your window"):
        self.fn, self.output_reserve, self.name = fn, output_reserve, name

    def assemble(self, history, *, lap=0, system="", tools=None, meter, model, **_):
        budget = model.window - self.output_reserve - meter.total([], system=system, tools=tools)
        sent = call(
            f"{self.name} inside the loop at lap {lap}", self.fn, list(history), budget, meter.count
        )
        if not is_messages(sent):
            raise Fail(
                f"{self.name} returned {type(sent).__name__} inside the loop",
                "return a list of messages.",
            )
        ids = {id(m) for m in history}
        zones = [
            "head" if history and m is history[0] else "tail" if id(m) in ids else "notice"
            for m in sent
        ]
        dropped = len(history) - sum(z != "notice" for z in zones)
        return Assembly(
            sent,
            zones,
            "drop" if dropped else "none",
            f"dropped {dropped} oldest messages" if dropped else "",
        )


def check_pinned_window(pinned_window, seed: int = 3) -> bool:
    """Checks pinned_window(messages, budget, counter), the rules as the task states them:

    - The request, `messages[0]`, is always sent first, unchanged; its tokens count against the budget.
    - After it, a sliding window over `messages[1:]` within what the request leaves of the budget -- every rule of `sliding_window`, so the notice goes right after the request.
    - If nothing after the request fits, return `[messages[0]]`. If not even the request fits, return `[]`. An empty history gives `[]`.
    - Never change `messages`: build and return a new list, even when everything fits.

    On fresh histories and the edges, then inside the loop at three window sizes: the request must be
    first on every lap's desk, and the fix must go to staging.
    """

    def body():
        n = _try_window_scenarios(pinned_window, "pinned_window", seed, pinned=True)
        for window in (4000, 5000, 6000):
            laps = []
            run_ = run(
                StudentWindow(pinned_window, name="pinned_window"), window, on_lap=laps.append
            )
            lost = [lap.number for lap in laps if lap.sent[:1] != run_.history[:1]]
            if lost:
                raise Fail(
                    f"in a run with a {window:,}-token window the request was not first on the desk at lap "
                    f"{lost[0]}",
                    "the rule lives in the request: pin messages[0] so it is sent on every lap.",
                )
            if run_.database_target != "staging":
                raise Fail(
                    f"in a run with a {window:,}-token window the fix went to {run_.database_target} "
                    f"({how_it_stopped(run_)})",
                    "keep the request (and its rule) pinned at the front of every desk.",
                )
        return (
            f"{n} histories (an empty one, one message, a request over the budget, ...), and 3 runs where the "
            "request stayed first on every desk and the fix went to staging."
        )

    return verdict("pinned_window", body)


# ---- task 4 (homework): carry the user's remarks ---------------------------------------------------


def _remarks_scenarios(seed: int):
    rng = random.Random(seed)
    counter = Meter("chars4").count
    for i in range(25):
        messages = random_history(rng, turns=rng.randint(4, 12), wide=0.1 if i % 4 == 0 else 0.0)
        for m in messages[2::2][:-1]:  # plenty of remarks, in older messages above all
            if m["role"] == "user" and rng.random() < 0.4 and not isinstance(m["content"], str):
                m["content"] = m["content"] + [
                    text_block("Note from the user: " + words(rng, rng.randint(3, 9)))
                ]
        total = size_of(messages, counter)
        yield messages, rng.randint(total // 2, total), counter
    messages = random_history(rng, turns=6, chat=False)
    yield messages, size_of(messages, counter), counter  # everything fits exactly
    yield messages[:1], counter(messages[0]) - 1, counter  # not even the request fits
    yield messages[:1], counter(messages[0]), counter  # the request alone, fitting exactly


_REMARK_RUNS = [(2, 5000, RULES[0]), (3, 4500, RULES[1]), (4, 5000, RULES[2])]


def check_remarks_window(remarks_window, seed: int = 9) -> bool:
    """Checks remarks_window(messages, budget, counter), the rules as the task states them:

    - Like `pinned_window`: the request first, then one notice, then the newest messages after one safe cut; everything fits, so everything is sent; an empty history, or a request that alone is over the budget, gives `[]`.
    - The notice starts with `DROPPED_NOTICE` and carries, word for word and in the order they were said, everything the user wrote in the dropped messages: every block of type "text" in a user message, and none of the tool results.
    - The notice counts against the budget and grows as you drop more: try the cuts from the oldest on and keep the first desk that fits. If none fits, return `[messages[0]]`.
    - Never change `messages`: build and return a new list, even when everything fits.

    On fresh histories full of remarks and the edges, then inside the loop with the rule said at lap 2, 3
    or 4 in three wordings: the rule must stay on the desk on every later lap, and the fix go to staging.
    """

    def body():
        need_function(remarks_window, "remarks_window")
        scenarios = [([], 100, Meter("chars4").count)] + once(
            ("remarks cases", seed), lambda: list(_remarks_scenarios(seed))
        )
        for messages, budget, counter in scenarios:
            out = call_on_copy(
                f"remarks_window(<{len(messages)} messages>, {budget}, counter)",
                remarks_window,
                messages,
                budget,
                counter,
                changed_hint=_CHANGED,
                alias_hint=_ALIAS,
                hint=None if messages else "an empty history is a real input: return [].",
            )
            problem = remarks_problem(messages, budget, counter, out)
            if problem:
                raise problem
        for at, window, (rule, _) in _REMARK_RUNS:
            task = file_reading_task(rule_at_lap=at, rule=rule)
            laps = []
            run_ = run(
                StudentWindow(remarks_window, name="remarks_window"),
                window,
                task,
                on_lap=laps.append,
            )
            remark, holder = task.remarks[at], holder_of(run_.history, task)
            where = f"window {window:,}, the rule said at lap {at}"
            lost = [
                lap.number
                for lap in laps
                if lap.number > at
                and holder not in lap.sent
                and not any(remark in text_of(m) for m in lap.sent[1:2])
            ]
            if lost:
                raise Fail(
                    f"[{where}] the rule left the desk at lap {lost[0]}",
                    "the rule is a remark in a user message: when that message is dropped, its text must "
                    "travel on in the notice.",
                )
            if run_.database_target != "staging":
                raise Fail(
                    f"[{where}] the fix went to {run_.database_target} ({how_it_stopped(run_)})",
                    "keep the rule on the desk on every lap after it was said.",
                )
        return (
            "28 histories, and 3 runs with the rule said at lap 2, 3 or 4: it stayed on the desk, the fix went "
            "to staging."
        )

    return verdict("remarks_window", body)
