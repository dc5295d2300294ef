"""Made-up cases for the checks (Hypothesis strategies), and how a FAIL shows one in a few short lines.

The strategies vary every dimension a task allows: empty and one-message histories, tool calls with
big inputs, results as text or as blocks, remarks beside the results, plain exchanges, a last answer,
text that is not ASCII or that holds characters a regular expression treats specially; lap records
numbered from any lap, not only from 1. Hypothesis shrinks a failing case towards fewer messages,
fewer and plainer words and smaller numbers, so the case a FAIL shows is small enough to read.

``show_messages`` and friends print a case in lines of at most 76 characters (the verdict indents
them by four).

Left out: images, thinking blocks and other content the workbook never sends.
"""

from __future__ import annotations

import json
import random

import hypothesis.strategies as st

from harness.laps import Lap
from harness.messages import assistant, blocks_of, text_of, tool_results, tool_uses, user

from .common import VOCAB, WIDE_WORDS, clip, text_block

# Words that mean something to a regular expression, or need escaping in JSON or in a printed list.
SPECIAL_WORDS = r"(x) [1] a+b *.py $5 ^_^ a|b \d+ what? {n} 1.5 it's \"ok\" 50% C:\tmp".split()
PLAIN, WIDE, SPECIAL = 0, 1, 2  # the kinds of text a recipe may ask for
_POOLS = {PLAIN: VOCAB, WIDE: VOCAB + WIDE_WORDS, SPECIAL: VOCAB + SPECIAL_WORDS}

# Hypothesis draws a small recipe -- a few whole numbers -- and the text is built from it with seeded
# word choices: drawing every word from Hypothesis would cost a few seconds a check on a busy machine,
# and a recipe still shrinks well (fewer turns, smaller sizes, plainer words).
STYLE = st.integers(0, 2)
SEED = st.integers(0, 9999)


def words(count: int, style: int = PLAIN, seed: int = 0) -> str:
    """``count`` words of one style, chosen by ``seed``. Example: words(3, PLAIN, 0) -> 'index login …'"""
    return _words(random.Random(seed), count, style)


def _words(rng: random.Random, count: int, style: int) -> str:
    return " ".join(rng.choices(_POOLS[style], k=count))


def phrase(max_words: int = 12, styled: bool = True):
    """A strategy for a text of 0 to ``max_words`` words (plain ASCII words only if not ``styled``)."""
    return st.builds(words, st.integers(0, max_words), STYLE if styled else st.just(PLAIN), SEED)


def file_lines(lines: int, style: int, seed: int) -> str:
    """The text of a file the agent read: ``lines`` numbered lines."""
    rng = random.Random(seed)
    return "\n".join(
        f"{n:>4}  {_words(rng, rng.randint(1, 8), style)}" for n in range(1, max(lines, 1) + 1)
    )


# A turn's recipe: (kind, extras, style, size, seed).
#   kind   0 read_file, 1 write_file with a whole file as input, 2 two calls, 3 a plain exchange
#          whose answer is a string, 4 a plain exchange whose answer is a text block
#   extras bit 1: a note before the calls; bit 2: results as lists of text blocks; bit 4: a remark
#   size   0..6: how long the texts are (a result of 1 line up to about 100)
def turns(kind=st.integers(0, 4), extras=st.integers(0, 7)):
    """A strategy for one turn's recipe; ``kind`` and ``extras`` narrow what it may be."""
    return st.tuples(kind, extras, STYLE, st.integers(0, 6), SEED)


TURN = turns()


def build_history(request: tuple, turns: list, final: tuple | None) -> list[dict]:
    """The messages a recipe describes (see TURN). ``request`` and ``final`` are (style, size, seed)."""
    style, size, seed = request
    messages = [user(("Please " + words(size * 3, style, seed)).strip() + ".")]
    ids = iter(range(1, 10_000))
    for number, (kind, extras, style, size, seed) in enumerate(turns, start=1):
        rng = random.Random(seed)
        text = lambda n: _words(rng, n, style)  # noqa: E731
        if kind >= 3:  # numbered, so no two messages of a history are ever equal
            messages.append(assistant([text_block(f"Question {number}: " + text(size * 2))]))
            answer = f"Answer {number}: " + text(size * 2)
            messages.append(user(answer) if kind == 3 else user_blocks([answer]))
            continue
        calls = []
        for _ in range(2 if kind == 2 else 1):
            n = next(ids)
            path = f"app/{rng.choice(VOCAB)}.py"
            if kind == 1:
                body = file_lines(2**size, PLAIN, rng.randrange(10**6))
                name, tool_input = "write_file", {"path": path, "content": body}
            else:
                name, tool_input = "read_file", {"path": path}
            calls.append(
                {"type": "tool_use", "id": f"toolu_{n:04d}", "name": name, "input": tool_input}
            )
        note = [text_block("Note: " + text(size * 2))] if extras & 1 else []
        messages.append(assistant(note + calls))
        results = []
        for c in calls:
            body = file_lines(rng.randint(1, 2**size), style, rng.randrange(10**6))
            content = [text_block(body)] if extras & 2 else body
            results.append({"type": "tool_result", "tool_use_id": c["id"], "content": content})
        if extras & 4:
            results.append(text_block("By the way: " + text(max(size, 1) * 2)))
        messages.append({"role": "user", "content": results})
    if final is not None:
        style, size, seed = final
        messages.append(assistant([text_block("Done. " + words(size * 3, style, seed))]))
    return messages


def histories(min_turns: int = 0, max_turns: int = 7, chat: bool = True, final: bool = True):
    """A strategy for made-up agent histories: the request, then turns (see TURN), maybe a last answer."""
    turn = TURN if chat else turns(kind=st.integers(0, 2))
    piece = st.tuples(STYLE, st.integers(0, 6), SEED)
    return st.builds(
        build_history,
        piece,
        st.lists(turn, min_size=min_turns, max_size=max_turns),
        st.one_of(st.none(), piece) if final else st.none(),
    )


def user_blocks(texts: list[str]) -> dict:
    return {"role": "user", "content": [text_block(t) for t in texts]}


# ---- lap records ------------------------------------------------------------------------------------


@st.composite
def full_history_laps(draw, max_laps: int = 25):
    """Lap records of a FullHistory run that finished: numbered from any lap, the desk only grows."""
    first = draw(st.integers(1, 60))
    start, growth = (
        draw(st.integers(300, 3000)),
        draw(st.lists(st.integers(1, 2500), max_size=max_laps - 1)),
    )
    rng = random.Random(draw(SEED))
    laps, sent, total = [], start, 0
    for number, grew in enumerate([0] + growth, start=first):
        sent += grew
        total += sent
        laps.append(
            Lap(
                number,
                sent,
                sent,
                billed_input=sent,
                billed_output=rng.randint(10, 300),
                total_input=total,
            )
        )
    return laps


# ---- showing a case --------------------------------------------------------------------------------

SHOWN = 14  # at most this many messages or laps are listed; the rest are counted


def short(text: str, width: int = 28) -> str:
    """repr of a text, cut to about ``width`` characters, with its length when cut.

    Example: short('a' * 50, 10) -> "'aaaaaaa…' (50 chars)"
    """
    text = str(text)
    if len(text) <= width:
        return repr(text)
    return repr(text[: width - 3])[:-1] + f"…' ({len(text):,} chars)"


def describe_message(message) -> str:
    """One message in a few words. Example: "assistant: 'Note: …' + read_file app/db.py [toolu_0001]" """
    if not isinstance(message, dict):
        return f"a {type(message).__name__}: {short(repr(message), 40)}"
    try:
        parts = []
        for block in blocks_of(message):
            kind = block.get("type")
            if kind == "text":
                parts.append(short(block["text"]))
            elif kind == "tool_use":
                shown = block["input"].get("path", "") if isinstance(block["input"], dict) else ""
                size = len(json.dumps(block["input"]))
                parts.append(
                    f"{block['name']} {shown}".strip()
                    + (f" ({size:,} chars of input)" if size > 60 else "")
                    + f" [{block['id']}]"
                )
            elif kind == "tool_result":
                text = text_of({"role": "user", "content": [block]})
                listed = " as blocks" if isinstance(block.get("content"), list) else ""
                parts.append(f"result [{block['tool_use_id']}] {len(text):,} chars{listed}")
            else:
                parts.append(f"a {kind!r} block")
        return f"{message.get('role')}: " + " + ".join(parts or ["(no blocks)"])
    except Exception:
        return f"{message.get('role')}: {short(repr(message.get('content')), 50)}"


def show_messages(messages, name: str = "messages", counter=None) -> list[str]:
    """The lines that show a list of messages: one per message, with its tokens if a counter is given."""
    if not messages:
        return [f"{name} = []  (empty)"]
    lines = [f"{name} = {len(messages)} message{'s' if len(messages) != 1 else ''}:"]
    for i, message in enumerate(messages[:SHOWN]):
        cost = f" ({counter(message):,} tokens)" if counter else ""
        lines.append(clip(f"  [{i}]{cost} {describe_message(message)}", 76))
    if len(messages) > SHOWN:
        lines.append(f"  ... and {len(messages) - SHOWN} more")
    return lines


def desk_of(out, messages, notice=None) -> str:
    """What a returned desk holds, in the input's terms. Example: "[notice] + messages[3:7]" """
    if not isinstance(out, list):
        return short(repr(out), 60)
    if not out:
        return "[]"
    parts, run = [], None  # run: (start index, length) of a stretch of the input, in order
    for m in out:
        i = next((k for k, x in enumerate(messages) if x is m), None)
        if i is None:
            i = next((k for k, x in enumerate(messages) if _same(x, m)), None)
        if i is not None and run and run[0] + run[1] == i:
            run = (run[0], run[1] + 1)
            continue
        if run:
            parts.append(_stretch(run, len(messages)))
            run = None
        if i is not None:
            run = (i, 1)
        elif notice is not None and _same(m, notice):
            parts.append("[notice]")
        else:
            parts.append(f"[new {describe_message(m)}]")
    if run:
        parts.append(_stretch(run, len(messages)))
    return " + ".join(parts)


def _stretch(run, n) -> str:
    start, length = run
    if length == 1:
        return f"[messages[{start}]]"
    end = "" if start + length == n else str(start + length)
    return f"messages[{start}:{end}]"


def _same(a, b) -> bool:
    try:
        return bool(a == b) is True
    except Exception:
        return False


def show_laps(laps, fields=("assembled_tokens",), name: str = "laps") -> list[str]:
    """One line per lap record: its number and the fields that matter to the task."""
    if not laps:
        return [f"{name} = []  (no laps)"]
    lines = [f"{name} = {len(laps)} lap record{'s' if len(laps) != 1 else ''}:"]
    for lap in laps[:SHOWN]:
        values = ", ".join(f"{f}={getattr(lap, f):,}" for f in fields)
        lines.append(clip(f"  lap {lap.number}: {values}", 76))
    if len(laps) > SHOWN:
        lines.append(f"  ... and {len(laps) - SHOWN} more")
    return lines


def pairs_ok(messages) -> bool:
    """Every tool_use answered in the next message, every tool_result answering the one before."""
    for i, m in enumerate(messages):
        asked = {b["id"] for b in tool_uses(messages[i - 1])} if i else set()
        if any(b["tool_use_id"] not in asked for b in tool_results(m)):
            return False
    return True
