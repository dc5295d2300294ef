"""How the offline model writes a summary: only the sections asked for, within the length allowed.

``summary_request(messages)`` spots a request to summarize or fold (a prompt holding a
``<transcript>`` or ``<events>`` block); ``write_summary(instruction, material)`` writes it:
the sections the instruction's bullets ask for, in their order, most salient lines first, cut to
the instruction's word limit. A vague instruction gets the gist only: the goal and the progress.
A ``Focus on X`` line lifts what is about X above the rest. ``Decision:`` lines (and the user's own
"apply X, not Y") go under a decisions heading, so only a prompt that asks for decisions keeps them.
What there is to choose from -- the goal, the rules, the facts, the progress line, a read made just before
the summary and not yet examined -- is ``transcripts.gather``'s.

Left out: paraphrase. It copies the lines it keeps, word for word -- which is why a template that
asks for exact identifiers works so well on it, and a vague prompt so badly.
"""

from __future__ import annotations

import re

from harness.messages import blocks_of
from stage.offline.findings import STOP
from stage.offline.transcripts import gather

SUMMARY_ASK = re.compile(r"\bsummar|\bfold\b|\bcompact", re.I)
FOCUS = re.compile(r"^.*\bfocus(?:ing)? on (.+?)(?:\s+first)?\.?\s*$", re.I | re.M)
KINDRED = [  # words that go together: a real model knows millions of such links, this knows four
    {"datab", "db", "sql", "migra", "table", "schem", "query", "stagi", "produ"},
    {"decis", "decid", "chose", "why"},
    {"test", "tests", "pytes", "cover"},
    {"login", "sign", "auth", "passw", "sessi", "email"},
]
WORD_LIMIT = re.compile(
    r"(?:at most|under|no more than|within|maximum of|max\.?)\s+(\d+)\s+words|(\d+)\s+words or (?:fewer|less)",
    re.I,
)

SECTION_KINDS = [  # (kind, words in a prompt bullet that ask for it)
    ("constraints", ("constraint", "rule", "instruction", "forbid")),
    ("goal", ("goal", "request", "objective", "task")),
    ("decisions", ("decision", "decided", "why")),
    ("pointers", ("pointer", "re-read", "reread", "re-run")),
    ("progress", ("done", "pending", "progress", "next", "remaining", "state")),
    ("facts", ("fact", "identifier", "discover", "learned", "finding")),
    ("files", ("file", "touched", "paths read")),
]


def summary_request(messages: list[dict]):
    """(instruction, material) if the newest message asks for a summary or a fold, else None."""
    if not messages or messages[-1]["role"] != "user":
        return None
    text = "\n".join(b.get("text", "") for b in blocks_of(messages[-1]) if b.get("type") == "text")
    match = re.search(r"<(transcript|events)>", text)
    if not match:
        return None
    instruction = re.sub(r"<(transcript|events|summary)>.*?</\1>", "", text, flags=re.S)
    if not SUMMARY_ASK.search(instruction):
        return None
    material = "\n".join(
        m.group(2) for m in re.finditer(r"<(summary|transcript|events)>(.*?)</\1>", text, re.S)
    )
    return instruction, material


def write_summary(instruction: str, material: str) -> str:
    """Write the summary the instruction asks for, from the material it was given."""
    items = gather(material)
    limit = _word_limit(instruction)
    focus = FOCUS.search(instruction)
    if focus:  # "/compact <focus>": what the focus names goes first, and is the last to be cut
        items = [
            (k, t, s + FOCUS_BONUS if on_focus(k, t, focus.group(1)) else s) for k, t, s in items
        ]
    sections = asked_sections(instruction)
    if not sections:  # a vague prompt: just the gist -- the goal and the progress
        return _trim([("", t, s) for k, t, s in items if k in ("goal", "progress")], limit)
    lines = []
    for heading, kind in sections:
        chosen = [(t, s) for k, t, s in items if k == kind or (kind, k) in WITHIN]
        lines.append((heading, None, 1000))
        lines += [(heading, t, s) for t, s in sorted(chosen, key=lambda ts: -ts[1])]
    return _trim(lines, limit)


WITHIN = {
    ("facts", "Cause"),
    ("facts", "Fix"),
    ("facts", "Noticed"),
    ("facts", "Lead"),
    ("facts", "Correction"),
    ("progress", "plan"),
    ("decisions", "Decision"),
}  # sub-kinds of a section
FOCUS_BONUS = 65  # lifts a focused fact above every unfocused fact, even the cause
FOCUSABLE = (
    "constraints",
    "Cause",
    "Fix",
    "Noticed",
    "Lead",
    "Correction",
    "decisions",
    "Decision",
)
FOCUS_STOP = {
    "on",
    "in",
    "of",
    "to",
    "for",
    "all",
    "any",
    "is",
    "it",
    "an",
    "be",
    "first",
    "and",
    "the",
}


def on_focus(kind: str, text: str, focus: str) -> bool:
    """Does a summary item speak to the focus? Its words (or its section's name) meet the focus words
    or their kin. Example: ('Fix', 'migrations/003.sql (pending) — UPDATE ...', 'database decisions') -> True
    """
    if kind not in FOCUSABLE:
        return False
    wanted = _stems(focus)
    for group in KINDRED:
        if wanted & group:
            wanted |= group
    return bool(_stems(f"{kind} {text}") & wanted)


def _stems(text: str) -> set[str]:
    """Like ``words``, but short words count too ('db', 'sql'). Example: 'the db rows' -> {'db', 'rows'}"""
    return {w[:5] for w in re.findall(r"[a-z]{2,}", text.lower()) if w not in STOP | FOCUS_STOP}


def asked_sections(instruction: str) -> list[tuple[str, str]]:
    """(heading, kind) for each bullet of the instruction that names a kind of content."""
    out = []
    for line in instruction.splitlines():
        bullet = re.match(r"^\s*(?:[-*•]|\d+[.)])\s+(.+)", line)
        if not bullet:
            continue
        body = bullet.group(1)
        heading = body.split(":")[0].strip() if ":" in body else body.strip()
        for kind, keys in SECTION_KINDS:
            if any(k in body.lower() for k in keys) and kind not in [k for _, k in out]:
                out.append((heading, kind))
                break
    return out


def _word_limit(instruction: str) -> int:
    match = WORD_LIMIT.search(instruction)
    if match:
        return int(match.group(1) or match.group(2))
    if re.search(r"\b(brief|briefly|short|concise)\b", instruction, re.I):
        return 40
    return 250


def _trim(lines, limit: int) -> str:
    """Keep the most salient lines that fit in ``limit`` words, in their original order."""
    order = sorted(range(len(lines)), key=lambda i: -lines[i][2])
    kept, used, opened = set(), 0, set()
    for i in order:
        heading, text, _ = lines[i]
        if text is None:
            continue
        bare = not heading or text.startswith(f"{heading}:")
        n = len(text.split()) + (
            0 if bare else 1 + (len(f"{heading}:".split()) if heading not in opened else 0)
        )
        if used + n <= limit:
            kept.add(i)
            used += n
            opened |= set() if bare else {heading}
    out, last_heading = [], None
    for i, (heading, text, _) in enumerate(lines):
        if i not in kept:
            continue
        if not heading or text.startswith(f"{heading}:"):  # the line names its own section
            out.append(text)
            continue
        if heading != last_heading:
            out.append(f"{heading}:")
            last_heading = heading
        out.append(f"- {text}")
    if not out:  # the limit is too tight for even one line: cut the best one
        best = max((ln for ln in lines if ln[1]), key=lambda ln: ln[2], default=("", "", 0))
        out = [" ".join(best[1].split()[:limit])]
    return "\n".join(out)
