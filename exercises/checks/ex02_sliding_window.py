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
from harness.messages import assistant, safe_cuts, text_of, user
from stage.tasks import file_reading_task

from .cases import desk_of
from .common import (
    RULES,
    Fail,
    call,
    call_on_copy,
    holder_of,
    how_it_stopped,
    is_messages,
    is_whole,
    need_function,
    not_messages,
    number,
    once,
    random_history,
    run,
    text_block,
    timed_run,
    verdict,
    words,
)
from .lap_cases import PLACES, LapCase, lap_cases, lap_hint, made_up_laps, show_lap_case
from .search import hunt
from .window_rules import (
    COUNTER_HINT,
    HEAD_HINT,
    measures_the_request_its_own_way,
    ignores_the_counter,
    user_remarks,
    COUNTERS,
    NOTICE,
    remarks_problem,
    remarks_cases,
    show_window_case,
    size_of,
    window_cases,
    window_problem,
)

_CHANGED = (
    "build a new list (a slice such as messages[start:], or [notice] + ...) and return it; never pop, "
    "insert into or edit the list you were given -- in the loop that list is the raw history."
)
_ALIAS = (
    "return a new list even when everything fits -- a copy of messages, not messages itself: the loop keeps "
    "appending to its history, and the desk it sent must not change with it."
)


# ---- task 1: the fresh histories every window is tried on ------------------------------------------------


def window_scenarios(seed: int, pinned: bool):
    """(messages, budget, counter): mixed sizes, two counters, loose, tight and roomy budgets, then the edges."""
    rng = random.Random(seed)
    chars4 = COUNTERS[0]
    for i in range(12):
        messages = random_history(
            rng, turns=rng.randint(2, 7), wide=0.1 if i % 5 == 0 else 0.0, big_inputs=i % 5 == 1
        )
        counter = COUNTERS[i % 2]
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
    messages = random_history(rng, turns=4, chat=False)
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


def _try_windows(window_fn, name: str, seed: int, pinned: bool) -> int:
    """Run the student's window on the edges, then on made-up cases; raise the smallest problem found."""
    need_function(window_fn, name)

    def a_right_window(case):
        messages, budget, counter = case
        out = call_on_copy(
            f"{name}(<{len(messages)} messages>, {budget}, counter)",
            window_fn,
            messages,
            budget,
            counter,
            changed_hint=_CHANGED,
            alias_hint=_ALIAS,
            hint=None
            if messages
            else "an empty history is a real input (nothing has happened yet): return [].",
        )
        problem = window_problem(messages, budget, counter, out, pinned=pinned, name=name)
        if problem:
            if is_messages(out):
                problem.what += f"; you sent {desk_of(out, messages, NOTICE)}"
                # Is the counter the mistake? Ask the window again, every count ten times as big.
                if ignores_the_counter(window_fn, messages, budget, counter, out):
                    problem.hint = COUNTER_HINT
                elif pinned and problem.hint in (COUNTER_HINT, HEAD_HINT):
                    # over the budget beside the request: did it forget the request, or measure it
                    # its own way? A request whose characters and tokens disagree tells.
                    own_way = measures_the_request_its_own_way(window_fn)
                    problem.hint = COUNTER_HINT if own_way else HEAD_HINT
                elif problem.hint == COUNTER_HINT:
                    problem.hint = window_problem(
                        messages, budget, counter, out, pinned=pinned, name=name, counted=True
                    ).hint
            raise problem

    edges = once(("window cases", seed, pinned), lambda: list(window_scenarios(seed, pinned)))
    return hunt(
        window_cases(pinned),
        a_right_window,
        show_window_case,
        seed=seed,
        explicit=[([], 100, COUNTERS[0])] + edges,
        examples=80 if pinned else 100,  # the pinned window's check also runs the agent three times
    )


def check_sliding_window(sliding_window, seed: int = 2) -> bool:
    """Checks sliding_window(messages, budget, counter), the rules as the task states them:

    - Never change `messages`: build and return a new list, even when everything fits.
    - If everything fits (a total `<=` the budget), send everything, unchanged.
    - Otherwise drop the oldest messages and put exactly one notice, `user(DROPPED_NOTICE)`, first, then `messages[cut:]` for one cut.
    - Cut only at a safe cut, `safe_cuts(messages)`: never between a tool_use and its tool_result. A cut may fall before an assistant message or before a user message that carries no tool result; the notice goes first either way.
    - Everything you send counts against the budget, the notice included; never go over it.
    - Keep as much as fits: the oldest safe cut whose desk fits is the one to take.
    - If not even the newest turn fits beside the notice, return `[]`. A budget of 0 is room for nothing. An empty history gives `[]`.

    On the edges (an empty history, one message, exact fits, a roomy budget, a budget of 0, a newest
    turn over the budget, a cut before a plain user message), then on 100 made-up histories with three
    counters and budgets at each cut's exact fit, one token short of it, or anywhere.
    """

    def body():
        n = _try_windows(sliding_window, "sliding_window", seed, pinned=False)
        return (
            f"{n} histories (the edges, and made-up ones with three counters): within budget, the "
            "newest kept, no tool pair split, the notice first, your input untouched."
        )

    return verdict("sliding_window", body)


# ---- task 2: first_lap_without ----------------------------------------------------------------------

# (name, on which laps the text is on the desk): the answer is part of the case, not worked out.
_SHAPES = [
    ("leaves at lap 5", [True] * 4 + [False] * 5),
    ("arrives at lap 3 and leaves at lap 6", [False] * 2 + [True] * 3 + [False] * 4),
    (
        "leaves at lap 4, comes back at lap 6, leaves again at lap 8",
        [True] * 3 + [False] * 2 + [True] * 2 + [False] * 3,
    ),
    ("is never on the desk", [False] * 9),
    ("never leaves", [True] * 10),
    ("leaves at the last lap", [True] * 7 + [False]),
    ("is on the desk at lap 1 only", [True] + [False] * 6),
    ("is on the one lap there is", [True]),
    ("is not on the one lap there is", [False]),
]

_LAP_SCENARIOS = [  # (pin_head, window, rule_at_lap, rule wording)
    (False, 4000, None, RULES[0]),
    (False, 4500, 3, RULES[1]),
    (True, 5000, None, RULES[1]),
]


def _sliding_run(pin_head, window, at, rule):
    """A real SlidingWindow run as a case: on each lap, is the message that carries the rule sent?"""
    laps, task = [], file_reading_task(rule_at_lap=at, rule=rule[0])  # the wording, as said
    run_ = run(SlidingWindow(pin_head=pin_head), window, task, on_lap=laps.append)
    holder = holder_of(run_.history, task)
    place = "request" if at is None else "remark"
    on = [holder in lap.sent for lap in laps]
    return LapCase(
        laps, rule[1], on, [place] * len(laps), [rule[0]] * len(laps), [None] * len(laps)
    )


def _hand_written(seed: int):
    """Real runs, then made-up lap records of every shape and place, then no laps: LapCase each."""
    for pin_head, window, at, rule in _LAP_SCENARIOS:
        case = once(
            ("sliding", pin_head, window, at, rule),
            lambda: _sliding_run(pin_head, window, at, rule),
        )
        case.where = (
            f"a real sliding-window run{', head pinned' if pin_head else ''}, window "
            f"{window:,}, the rule " + ("in the request" if at is None else f"said at lap {at}")
        )
        yield case
    rng = random.Random(seed)
    places = list(PLACES)
    # Every shape once, the places in turn; then every place again on a shape where the text leaves
    # (so a search that misses it there gives a wrong answer), in lowercase, then in other cases.
    shapes = _SHAPES + [_SHAPES[0]] * len(places) + [_SHAPES[1]] * len(places)
    for n, (shape_name, shape) in enumerate(shapes):
        place = places[n % len(places)]
        piece = "don't touch production" if place == "quotes" else rng.choice(RULES)[1]
        upper = n >= len(_SHAPES) + len(places)
        said = rng.choice([piece.capitalize(), piece.upper()]) if upper else piece
        laps = made_up_laps(rng, shape, place, said)
        yield LapCase(
            laps,
            piece,
            shape,
            [place] * len(shape),
            [said] * len(shape),
            [None] * len(shape),
            f"made-up laps where the text {shape_name}, written {said!r}, {PLACES[place]}",
        )
    yield LapCase([], RULES[0][1], [], where="no laps at all")


def check_first_lap_without(first_lap_without, seed: int = 8) -> bool:
    """Checks first_lap_without(laps, text), the rules as the task states them:

    - `laps` are lap records in order, numbered by `lap.number` (not always from 1); `text` is a piece of text in lowercase.
    - Return the `number` of the first lap whose desk (`lap.sent`) holds `text` nowhere -- in no message and no block (text, tool call, tool result, a remark), in no case: compare with `text_of(message).lower()` -- after a lap that did hold it.
    - The text must stand whole inside one message: its words elsewhere, in another order, or split across two messages do not count; and it is plain text, not a pattern.
    - Return `None` if it never leaves, if it is never there, or if there are no laps. If it leaves, comes back and leaves again, the answer is the first time it left.
    - Do not change `laps`.

    On 3 real SlidingWindow runs (the rule said at lap 3, other wordings, a pinned head), on lap
    records built with the text in every kind of message, and on 100 made-up cases: numbered from any
    lap, the text in any case, with regular-expression characters, letters outside ASCII and quotes,
    and decoys (its words in another order, a pattern's match, the text split across two messages).
    """

    def body():
        need_function(first_lap_without, "first_lap_without")

        def answer(case):
            got = call_on_copy(
                f"first_lap_without(laps, {case.text!r})",
                first_lap_without,
                list(case.laps),
                case.text,
                changed_hint="only read the laps; do not sort, pop or edit them.",
                hint="an empty list of laps is a real input: return None."
                if not case.laps
                else None,
            )
            if got is None or isinstance(got, bool) or not is_whole(got):
                return got
            return int(number(got))

        def the_first_lap_without(case):
            got = answer(case)
            if got != case.expected or isinstance(got, bool):
                raise Fail(
                    f"you said {got!r:.40}, the laps say {case.expected!r}", lap_hint(got, case)
                )

        # On the hand-written cases, look at every answer first: a pattern (the same number every
        # time, one lap early every time) names its mistake better than any one case.
        cases = once(("lap cases", seed), lambda: list(_hand_written(seed)))
        answers = [(answer(case), case) for case in cases]
        wrong = [(got, case) for got, case in answers if got != case.expected]
        if wrong:
            got, case = wrong[0]
            if len({repr(g) for g, _ in answers}) == 1:
                hint = (
                    "your answer is the same whatever the laps: work it out from the laps you are "
                    "given, not from the class run's number."
                )
            elif all(
                isinstance(g, int) and c.expected is not None and g == c.expected - 1
                for g, c in wrong
            ):
                hint = "lap numbers start at 1: return lap.number, not the position of the lap in the list."
            else:
                # a case where the text does leave says most about the mistake
                got, case = next(
                    ((g, c) for g, c in wrong if c.expected is not None),
                    wrong[0],
                )
                hint = lap_hint(got, case)
            raise Fail(
                f"you said {got!r:.40}, the laps say {case.expected!r}",
                hint,
                case=show_lap_case(case),
            )
        tried = hunt(lap_cases(), the_first_lap_without, show_lap_case, seed=seed)
        return (
            f"right on {len(cases)} hand-written cases (3 real runs, the text in every kind of "
            f"message, no laps) and {tried} made-up ones (numbered from any lap, any case, "
            "decoys)."
        )

    return verdict("first_lap_without", body)


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
                f"{self.name} returned {not_messages(sent)}, inside the loop at lap {lap}",
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


def _runs_with_the_request_pinned(pinned_window) -> None:
    """Run pinned_window inside the loop at three windows: the request first on every desk, fix on staging."""
    for window in (4000, 5000, 6000):
        laps = []
        run_ = timed_run(
            f"a run with pinned_window inside, window {window:,}",
            lambda: run(
                StudentWindow(pinned_window, name="pinned_window"), window, on_lap=laps.append
            ),
        )
        lost = [lap.number for lap in laps if lap.sent[:1] != run_.history[:1]]
        if lost:
            raise Fail(
                f"in a run with a {window:,}-token window the request was not first on the desk "
                f"at lap {lost[0]}",
                "the rule lives in the request: pin messages[0] so it is sent on every lap.",
            )
        if run_.database_target != "staging":
            raise Fail(
                f"in a run with a {window:,}-token window the fix went to "
                f"{run_.database_target} ({how_it_stopped(run_)})",
                "keep the request (and its rule) pinned at the front of every desk.",
            )


def check_pinned_window(pinned_window, seed: int = 3) -> bool:
    """Checks pinned_window(messages, budget, counter), the rules as the task states them:

    - The request, `messages[0]`, is always sent first, unchanged; its tokens count against the budget.
    - After it, a sliding window over `messages[1:]` within what the request leaves of the budget -- every rule of `sliding_window`, so the notice goes right after the request.
    - If nothing after the request fits, return `[messages[0]]`. If not even the request fits, return `[]`. An empty history gives `[]`.
    - Never change `messages`: build and return a new list, even when everything fits.

    On the edges and 80 made-up histories (three counters, budgets at each cut's exact fit, one token
    short, the request alone), then inside the loop at three window sizes: the request must be first
    on every lap's desk, and the fix must go to staging.
    """

    def body():
        n = _try_windows(pinned_window, "pinned_window", seed, pinned=True)
        _runs_with_the_request_pinned(pinned_window)
        return (
            f"{n} histories (an empty one, one message, a request over the budget, made-up "
            "ones), and 3 runs where the request stayed first on every desk and the fix went to "
            "staging."
        )

    return verdict("pinned_window", body)


# ---- task 4 (homework): carry the user's remarks ---------------------------------------------------


def _remarks_scenarios(seed: int):
    rng = random.Random(seed)
    counter = COUNTERS[0]
    for i in range(10):
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


def _fits_exactly(remarks_window, messages, counter, out) -> None:
    """Your desk dropped messages[1:start]. Take the next older cut, p: if no remark lies between p
    and start, your own notice would be the same there, so a budget of exactly that desk's size must
    keep messages[p:] -- a desk that fills the budget to the last token fits."""
    if len(out) < 3 or out == messages:
        return
    start = len(messages) - len(out) + 2
    older = [c for c in safe_cuts(messages)[:-1] if 1 < c < start]
    if not older or user_remarks(messages[older[-1] : start]):
        return
    p = older[-1]
    budget = size_of([messages[0], out[1]] + messages[p:], counter)
    if budget >= size_of(messages, counter):
        return
    again = call_on_copy(
        f"remarks_window(<{len(messages)} messages>, {budget}, counter)",
        remarks_window,
        messages,
        budget,
        counter,
        changed_hint=_CHANGED,
        alias_hint=_ALIAS,
    )
    problem = remarks_problem(messages, budget, counter, again)
    if problem:
        raise problem
    if again[2:] != messages[p:] and len(again[2:]) < len(messages) - p:
        raise Fail(
            f"for a budget of {budget:,} tokens -- exactly your own desk from message {p} on, "
            f"notice included -- you dropped message {p} too; you sent "
            f"{desk_of(again, messages, NOTICE)}",
            "a desk that brings the total exactly to the budget fits: compare with <=, not <.",
        )


_REMARK_RUNS = [(2, 5000, RULES[0]), (3, 4500, RULES[1]), (4, 5000, RULES[2])]


def check_remarks_window(remarks_window, seed: int = 9) -> bool:
    """Checks remarks_window(messages, budget, counter), the rules as the task states them:

    - Like `pinned_window`: the request first, then one notice, then the newest messages after one safe cut; everything fits, so everything is sent; an empty history, or a request that alone is over the budget, gives `[]`.
    - The notice starts with `DROPPED_NOTICE` and carries, word for word and in the order they were said, everything the user wrote in the dropped messages: every block of type "text" in a user message, and none of the tool results.
    - The notice counts against the budget and grows as you drop more: try the cuts from the oldest on and keep the first desk that fits. If none fits, return `[messages[0]]`.
    - Never change `messages`: build and return a new list, even when everything fits.

    On the edges, histories full of remarks and 100 made-up ones (remarks beside results, plain
    answers, non-ASCII and regex-special text, three counters), then inside the loop with the rule
    said at lap 2, 3 or 4 in three wordings: the rule must stay on the desk on every later lap, and
    the fix go to staging.
    """

    def body():
        need_function(remarks_window, "remarks_window")

        def carries_the_remarks(case):
            messages, budget, counter = case
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
                if is_messages(out):
                    problem.what += f"; you sent {desk_of(out, messages, NOTICE)}"
                raise problem
            _fits_exactly(remarks_window, messages, counter, out)

        edges = once(("remarks cases", seed), lambda: list(_remarks_scenarios(seed)))
        tried = hunt(
            remarks_cases(),
            carries_the_remarks,
            show_window_case,
            seed=seed,
            explicit=[([], 100, COUNTERS[0])] + edges,
        )
        for at, window, (rule, _) in _REMARK_RUNS:
            task = file_reading_task(rule_at_lap=at, rule=rule)
            laps = []
            run_ = timed_run(
                f"a run with remarks_window inside, window {window:,}",
                lambda: run(
                    StudentWindow(remarks_window, name="remarks_window"),
                    window,
                    task,
                    on_lap=laps.append,
                ),
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
                    "the rule is a remark in a user message: when that message is dropped, its "
                    "text must travel on in the notice.",
                )
            if run_.database_target != "staging":
                raise Fail(
                    f"[{where}] the fix went to {run_.database_target} ({how_it_stopped(run_)})",
                    "keep the rule on the desk on every lap after it was said.",
                )
        return (
            f"{tried} histories (the edges, and made-up ones full of remarks), and 3 runs with "
            "the rule said at lap 2, 3 or 4: it stayed on the desk, the fix went to staging."
        )

    return verdict("remarks_window", body)
