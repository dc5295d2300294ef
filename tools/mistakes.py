"""The wrong pieces a room most often writes in each build cell, and what to say when one appears.

Each lesson's build cell has the class write one piece (notebooks/lessons.toml names it). These are the
two or three mistakes a room makes most often there, each as a whole piece with the build cell's
interface. The runbook (``make runbook``) runs the lesson's verdict cells with each one and shows what
it printed and drew, so the instructor recognises it from the screen; ``say`` is what to tell the room,
about the mistake itself (what the run shows is the run's, never written here).
``tests/test_class_pieces.py`` runs the same pieces: each must change what its lesson prints or draws.

Left out: mistakes that stop the cell before the verdict (a syntax error, a misspelt name): Python's
own message names them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mistake:
    """One wrong piece: what the room got wrong (a few words), the piece, and what to say about it."""

    label: str
    source: str
    say: str


LOOP_HEAD = """def bare_loop(request, model, tools, max_laps=40, *,
              assemble=send_everything, system=SYSTEM_PROMPT):
    history = [user(request)]
    for lap in range(max_laps):
        desk = assemble(history)
        reply = model.reply(system, desk, tools.schemas)
"""

MISTAKES: dict[str, list[Mistake]] = {
    "bare_loop": [
        Mistake(
            "never appends the tool results",
            LOOP_HEAD
            + """        history.append(assistant(reply.content))
        calls = tool_uses(history[-1])
        if not calls:
            break
        results = [tools.run(call) for call in calls]   # run, never appended
    return history""",
            "The tools run but their results never reach the desk, so the model asks again for "
            "what it cannot see, lap after lap. The history must hold what the tools said.",
        ),
        Mistake(
            "appends the reply's text, not its blocks",
            LOOP_HEAD
            + """        history.append(assistant([{"type": "text", "text": reply.text}]))
        calls = tool_uses(history[-1])                  # the tool calls are gone
        if not calls:
            break
        history.append(user([tools.run(call) for call in calls]))
    return history""",
            "The reply's tool calls are content blocks; keeping only its text throws them away, so "
            "the loop sees no call and stops at once. Append reply.content whole.",
        ),
        Mistake(
            "sends the results back as the assistant",
            LOOP_HEAD
            + """        history.append(assistant(reply.content))
        calls = tool_uses(history[-1])
        if not calls:
            break
        history.append(assistant([tools.run(call) for call in calls]))
    return history""",
            "Tool results are the user's turn: the API refuses two assistant messages in a row "
            "(the offline model does not check, so read the roles). Append them with user(...).",
        ),
    ],
    "keep_newest": [
        Mistake(
            "keeps the oldest messages that fit",
            """def keep_newest(history, room, count):
    kept = []
    for message in history:                 # oldest first: the wrong end
        if sum(count(m) for m in kept) + count(message) > room:
            break
        kept.append(message)
    return kept""",
            "The window walks from the wrong end: it keeps the past and drops the present, so the "
            "agent never sees what its last tool call returned. Walk back from the newest.",
        ),
        Mistake(
            "cuts anywhere, not at a safe cut",
            """def keep_newest(history, room, count):
    start = len(history)
    for cut in reversed(range(len(history))):    # any index, even inside a tool pair
        if sum(count(m) for m in history[cut:]) > room:
            break
        start = cut
    return history[start:]""",
            "A cut between a tool call and its result is a request the API refuses, so the harness "
            "stops the run and names the piece. Start only at an index of safe_cuts(history).",
        ),
        Mistake(
            "keeps one turn more than fits",
            """def keep_newest(history, room, count):
    start = len(history)
    for cut in reversed(safe_cuts(history)[:-1]):
        start = cut                               # moved before the test: one too many
        if sum(count(m) for m in history[cut:]) > room:
            break
    return history[start:]""",
            "It takes the cut before checking it, so the last turn kept is the one that did not "
            "fit: the desk goes over the edge it was meant to respect. Check first, then move.",
        ),
    ],
    "three_zones": [
        Mistake(
            "puts everything in the tail",
            """def three_zones(history, tail_turns):
    return history[:1], [], history[1:]      # nothing is ever summarized""",
            "With an empty middle there is nothing to summarize, so the desk grows as in lesson "
            "01. The tail is only the newest tail_turns turns.",
        ),
        Mistake(
            "ignores tail_turns (no tail)",
            """def three_zones(history, tail_turns):
    return history[:1], history[1:], []      # the newest turns are summarized too""",
            "The turn the agent is acting on goes into the summary: it loses the exact words of "
            "its last step and redoes (or botches) it. Keep the newest turns word for word.",
        ),
        Mistake(
            "no pinned head",
            """def three_zones(history, tail_turns):
    starts = turn_starts(history)
    cut = starts[-tail_turns] if 0 < tail_turns <= len(starts) else len(history)
    return [], history[:cut], history[cut:]  # the request is summarized with the rest""",
            "The request itself goes into the summary: the mission and any rule in it now survive "
            "only as well as the summary keeps them. Pin history[:1].",
        ),
    ],
    "fold": [
        Mistake(
            "appends the events instead of folding",
            """def fold(summary, events, write):
    return (summary + "\\n" + render(events)).strip()   # no model call: the minutes only grow""",
            "Nothing is summarized: the minutes are the transcript again, so the desk climbs as "
            "if nothing were managed. A fold asks the model to rewrite the minutes, shorter.",
        ),
        Mistake(
            "headings without the standing constraints",
            """def fold(summary, events, write):
    headings = ["Goal", "Facts", "Done / pending"]      # no place for the rules
    asked = "\\n".join(f"- {heading}" for heading in headings)
    return write(f"Fold the new events into the running summary, in at most 150 words, "
                 f"under these headings:\\n{asked}\\n<summary>\\n{summary}\\n</summary>\\n"
                 f"<events>\\n{render(events)}\\n</events>")""",
            "The model writes only the headings it is asked for: with no heading for rules, a rule "
            "said in passing is gone at the first fold. The constraints need a heading of their own.",
        ),
    ],
    "load_claude_md": [
        Mistake(
            "never reads the file",
            """def load_claude_md(path):
    return SYSTEM_PROMPT                       # the memory never reaches the prompt""",
            "Session two starts as blank as with no memory at all: the file exists, but nothing "
            "puts it in front of the model. Memory is text in the system prompt.",
        ),
        Mistake(
            "replaces the system prompt with the file",
            """def load_claude_md(path):
    return Path(path).read_text(encoding="utf-8")   # the agent's own instructions are gone""",
            "The memory is there, but the agent's own instructions are not: memory goes beside "
            "the system prompt, not instead of it.",
        ),
        Mistake(
            "crashes on a missing file",
            '''def load_claude_md(path):
    text = Path(path).read_text(encoding="utf-8")   # no file: FileNotFoundError
    return f"{SYSTEM_PROMPT}\\n\\n{text}"''',
            "A project without a CLAUDE.md is normal: no file means no memory, never a crash.",
        ),
    ],
}


def mistakes_for(piece: str) -> list[Mistake]:
    """The common wrong pieces of one build cell (none for a piece nobody listed)."""
    return MISTAKES.get(piece, [])
