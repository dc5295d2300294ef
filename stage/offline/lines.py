"""What kind of line the offline model is looking at: code that acts, a definition, or prose about the code.

An agent hunting the cause of a symptom looks first at the lines that *do* something -- raise an error,
return or compare a value, assign one -- and only then at the text that talks about them. ``kinds(lines)``
labels each numbered line of a file (or of a part of one):

* ``raise``      -- raises or throws: ``raise``, ``throw``, ``panic(`` (where an error starts)
* ``act``        -- any other line of code: a return, a comparison, an assignment, a call, a test
* ``definition`` -- a ``def``/``class``/``function`` statement: *where* something is, not what goes wrong
* ``comment``    -- a comment line after the first line of code (``findings`` weighs what it says)
* ``prose``      -- a docstring or block comment, a file's opening comments, a doctest: words *about* code
* ``more``       -- a line that continues the statement above it (an open ``(`` or ``[`` carried over)
* ``blank``

``statement(lines, labels, i)`` is line ``i`` with the lines that continue it, so ``raise ValueError(`` with
its message on the next line is weighed as one statement. ``kind_of_fact(text)`` guesses the kind of a
finding from its text alone (a summary keeps the line, not the file around it).

Left out: parsing. A triple quote inside a string, a part of a file that starts inside a docstring, and
comment styles other than ``#``, ``//``, ``--``, ``;`` and ``/* */`` are guessed, not known.
"""

from __future__ import annotations

import re

DEF = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:def|function|func|class|fn|sub)\s+([A-Za-z_]\w*)|"
    r"^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_]\w*)\s*=\s*(?:async\s*)?(?:function|\()"
)
RAISES = re.compile(r"^\s*(?:raise|throw)\b|^\s*(?:panic|abort)\(|\bthrow\s+new\b")
COMMENT_START = re.compile(r"^\s*(?:#|//|--|;)")
DOC_OPEN = re.compile(r"""^\s*(?:[rRbBuUfF]{0,2})("{3}|'{3})""")
STRING_OPEN = re.compile(
    r"""=\s*(?:[rRbBuUfF]{0,2})("{3}|'{3})"""
)  # x = \"\"\" ... (a text, not code)
BLOCK_OPEN = re.compile(r"^\s*/\*")
DOCTEST = re.compile(r"^\s*(?:>>>|\.\.\.\s)")
MAX_STATEMENT = 6  # lines joined into one statement at most
SPLIT_STRING = re.compile(r"""(["'])\s+[rRbBuUfF]{0,2}(["'])""")  # "a " f"b" -> one text


def kinds(lines: list[tuple[int, str]]) -> list[str]:
    """One label per numbered line. Example: ['def f(x):', '    \"\"\"Check x.\"\"\"', '    return x > 1']
    -> ['definition', 'prose', 'act']. Comments before the first line of code are the file's opening prose
    (only when the lines start at line 1: a part further down cannot know)."""
    labels, inside, depth = [], _starts_inside(lines), 0
    opening = (
        bool(lines) and lines[0][0] == 1
    )  # the top of the file: its first comments are a header
    for _, line in lines:
        stripped = line.strip()
        if inside:  # in a docstring or a block comment until it closes
            labels.append("prose")
            if inside in stripped:
                inside = None
            continue
        if depth > 0:  # the statement above is still open
            labels.append("more")
            depth = max(0, depth + _balance(line))
            continue
        if not stripped:
            labels.append("blank")
            continue
        doc = DOC_OPEN.match(line) or STRING_OPEN.search(line)
        if doc:
            quote = doc.group(1)
            rest = line[doc.end() :]
            inside = None if quote in rest else quote
            labels.append("prose" if DOC_OPEN.match(line) else "act")
            continue
        if BLOCK_OPEN.match(line):
            inside = None if "*/" in stripped[2:] else "*/"
            labels.append("prose")
            continue
        if COMMENT_START.match(line) or stripped == "*" or stripped.startswith(("* ", "*/")):
            labels.append("prose" if opening or not COMMENT_START.match(line) else "comment")
            continue
        if DOCTEST.match(line):
            labels.append("prose")
            continue
        opening = False
        labels.append(
            "definition" if DEF.match(line) else "raise" if RAISES.search(line) else "act"
        )
        depth = max(0, _balance(line))
    return labels


def statement(lines: list[tuple[int, str]], labels: list[str], i: int) -> str:
    """Line ``i`` and the lines that continue it, as one line of text (split strings joined).

    Example: ['raise ValueError(', '    "Plugin name already registered: "', '    f"{name}")']
    -> 'raise ValueError( "Plugin name already registered: {name}")'
    """
    parts = [lines[i][1]]
    for j in range(i + 1, min(len(lines), i + MAX_STATEMENT)):
        if labels[j] != "more":
            break
        parts.append(lines[j][1])
    return SPLIT_STRING.sub("", " ".join(" ".join(parts).split()))


def kind_of_fact(said: str) -> str:
    """The kind of a finding, from its text alone (what follows the place in a Cause or Lead line).

    Example: 'raise ValueError(...)' -> 'raise'; 'docstring: Parse the text.' -> 'prose'; 'comment: ...' -> 'comment'
    """
    if said.startswith("docstring: "):
        return "prose"
    if said.startswith("comment: ") or re.match(r"(?:FIXME|BUG|XXX|HACK|TODO|NOTE): ", said):
        return "comment"
    if DEF.match(said):
        return "definition"
    return "raise" if RAISES.search(said) else "act"


def _starts_inside(lines: list[tuple[int, str]]) -> str | None:
    """For a part of a file that starts further down: does it start inside a docstring? A guess -- yes when
    its first triple quote closes one (a line that is only the quotes, or text that ends with them).

    Example: lines 434-478 whose line 445 is '        \"\"\"' -> '\"\"\"' (434-444 are the docstring's end)
    """
    if not lines or lines[0][0] == 1:
        return None
    before = ""  # the last line with something on it before the first triple quote
    for _, line in lines:
        found = re.search(r'"""|' + "'''", line)
        if found:
            stripped, quote = line.strip(), found.group()
            opens = before.rstrip().endswith(":") or STRING_OPEN.search(
                line
            )  # after def f(): it opens
            closes = stripped == quote or (
                stripped.endswith(quote) and stripped.count(quote) == 1 and not DOC_OPEN.match(line)
            )
            return quote if closes and not opens else None
        before = line if line.strip() else before
    return None


def _balance(line: str) -> int:
    """Round and square brackets opened minus closed on a line, outside its strings and trailing comment.
    Braces do not count: ``func f() {`` opens a block, not a longer statement. Example: 'f(a, [b' -> 2"""
    code = re.sub(r"""(["'])(?:\\.|(?!\1).)*\1""", "", line)  # strings on the line do not count
    code = re.split(r"\s#", code)[
        0
    ]  # a Python or shell comment (a // comment is left: // divides too)
    return sum(code.count(c) for c in "([") - sum(code.count(c) for c in ")]")
