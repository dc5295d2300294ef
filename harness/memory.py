"""Memory: the notebook beside the desk. What a new session knows before its first lap.

The desk is gone when a session ends; the memory file is not. This module does two things with it:

1. **Load** it at session start: the user's file, the project's ``CLAUDE.md``, then the local
   ``CLAUDE.local.md``, each followed by the files it imports with ``@relative/path``.
   ``system_prompt(memory)`` puts the result after the agent's usual system prompt.
2. **Measure** it: memory is sent with *every* request, so its tokens are paid again each lap.
   A file over the budget (200 tokens by default) gets a warning: keep it short.

**The piece** of lesson 05 is the loader, ``load_claude_md(path) -> system prompt``: the session's
prompt with one project file under the memory heading, passed to ``run_agent``'s ``system=``.
``load_memory`` and ``system_prompt`` below are the full version (three levels, imports). Writing
into memory is ``harness.promote``; recalled notes, the richer end, are ``harness.notes``.

Bad input never stops a session: a missing, non-UTF-8, oversized, cyclic or out-of-bounds file
is skipped or cut, and said so once in ``Memory.messages``.

Left out on purpose: the managed (company-wide) memory level, ``CLAUDE.md`` files in subfolders
that load when the agent works there, ``~/`` imports, editing memory by hand (``/memory``).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from harness.prompts import SYSTEM_PROMPT
from harness.tokens import Meter
from harness.tools import WORKSPACE

USER_MEMORY = "~/.claude/CLAUDE.md"  # expanded only when loaded
PROJECT_MEMORY = WORKSPACE / "CLAUDE.md"
LOCAL_MEMORY = WORKSPACE / "CLAUDE.local.md"  # personal notes for this project, not committed
BUDGET = 200  # tokens per memory file: the "keep it short" guardrail
MAX_CHARS = 20_000  # a bigger file is cut here, with a warning
MAX_IMPORT_DEPTH = 4  # hops of @imports followed from a top-level file

MEMORY_HEADER = "Project memory (CLAUDE.md), loaded at session start:"
RECALL_HEADER = "Notes recalled for this request:"
INVITE_TO_REMEMBER = (
    "Before you finish, use the remember tool to save each standing rule the user gave, "
    "so the next session starts knowing it."
)


@dataclass
class MemoryFile:
    """One file loaded: its level (user, project, local, import), where it came from, its cost."""

    level: str
    path: Path
    text: str
    tokens: int
    imported_by: Path | None = None


@dataclass
class Memory:
    """What was loaded at session start, from where, at what cost -- and what went wrong."""

    files: list[MemoryFile] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    budget: int = BUDGET
    meter: Meter | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        """The memory as written into the system prompt; "" if nothing was loaded.

        Example: one project file "- Run tests with pytest." -> "Project memory (CLAUDE.md), loaded
        at session start:\n\n## project: CLAUDE.md\n- Run tests with pytest."
        """
        loaded = [f for f in self.files if f.text.strip()]
        blocks = [f"## {f.level}: {f.path.name}\n{f.text.strip()}" for f in loaded]
        return "\n\n".join([MEMORY_HEADER] + blocks) if blocks else ""

    @property
    def tokens_per_lap(self) -> int:
        """Tokens memory adds to every request (every lap). Example: the workspace's file -> 105"""
        return (self.meter or Meter()).text(self.text) if self.text else 0

    def describe(self) -> str:
        """A small table of what was loaded, then the messages. For printing in a notebook."""
        rows = [
            f"{f.level:<8}{f.tokens:>6}  {f.path}"
            + (f"  (imported by {f.imported_by.name})" if f.imported_by else "")
            for f in self.files
        ]
        total = (
            f"{'total':<8}{self.tokens_per_lap:>6}  "
            f"tokens on every lap (budget {self.budget} per file)"
        )
        notes = [f"- {m}" for m in self.messages]
        return "\n".join([f"{'level':<8}{'tokens':>6}  file", *rows, total, *notes])


# ---- loading -------------------------------------------------------------------------------------


def load_memory(
    user: str | Path | None = USER_MEMORY,
    project: str | Path | None = PROJECT_MEMORY,
    local: str | Path | None = LOCAL_MEMORY,
    roots: Sequence[str | Path] = (),
    budget: int = BUDGET,
    meter: Meter | None = None,
    max_chars: int = MAX_CHARS,
    max_depth: int = MAX_IMPORT_DEPTH,
) -> Memory:
    """Load the user, project and local memory files, in that order, with their ``@`` imports.

    ``None`` skips a level. Imports reach only files under ``roots`` and the three files' folders.
    Example: load_memory(user=None, project="workspaces/ledgerly/CLAUDE.md", local=None).files
    -> [the project's four-line file]
    """
    levels = [("user", user), ("project", project), ("local", local)]
    levels = [(level, Path(path).expanduser()) for level, path in levels if path is not None]
    allowed = [Path(r).resolve() for r in roots] + [path.resolve().parent for _, path in levels]
    loader = _Loader(Memory(budget=budget, meter=meter or Meter()), allowed, max_chars, max_depth)
    for level, path in levels:
        if not path.exists():
            loader.memory.messages.append(f"No {level} memory at {path}: nothing loaded.")
            continue
        loader.load(path, level, imported_by=None, chain=[])
    return loader.memory


def load_claude_md(path: str | Path) -> str:
    """The piece of lesson 05: a session's system prompt with the project's memory file in it.

    A missing or empty file means no memory, never a crash.
    Example: a file holding "- Test with pytest." -> SYSTEM_PROMPT, a blank line, MEMORY_HEADER,
    a blank line, "## project: CLAUDE.md", then "- Test with pytest."
    """
    return system_prompt(load_memory(user=None, project=path, local=None))


def imports_in(text: str) -> list[str]:
    """The ``@path`` imports of a memory file; code blocks, inline code and e-mails do not count.

    Example: "See @docs/api.md and `@not/this`, mail a@b.com" -> ["docs/api.md"]
    """
    found = []
    fence = None  # inside a code block: the fence that opened it, ``` or ~~~
    for line in text.splitlines():
        opening = FENCE.match(line)
        if opening and (fence is None or opening.group(1)[0] == fence):
            # a fence opens, or the same kind closes it
            fence = None if fence else opening.group(1)[0]
            continue
        if fence:
            continue
        for match in IMPORT.finditer(INLINE_CODE.sub(" ", line)):
            path = match.group(1).rstrip(".,;:")
            if path:
                found.append(path)
    return found


def system_prompt(
    memory: Memory | None = None,
    recalled: Sequence = (),
    invite_remember: bool = False,
    base: str = SYSTEM_PROMPT,
) -> str:
    """A session's whole system prompt: the agent's prompt, its memory, then any recalled notes.

    ``invite_remember`` adds one sentence asking the agent to save standing rules with ``remember``.
    Example: system_prompt(None) == SYSTEM_PROMPT (no memory, nothing added).
    """
    parts = [base + (" " + INVITE_TO_REMEMBER if invite_remember else "")]
    if memory is not None and memory.text:
        parts.append(memory.text)
    if recalled:
        parts.append(recalled_section(recalled))
    return "\n\n".join(parts)


def recalled_section(notes: Sequence) -> str:
    """Recalled notes (``harness.notes``) as they are written into the system prompt."""
    return "\n\n".join(
        [RECALL_HEADER] + [f"## note: {n.path.name}\n{n.text.strip()}" for n in notes]
    )


# ---- helpers for loading -------------------------------------------------------------------------

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+).*?\1")
IMPORT = re.compile(r"(?<![\w@`])@((?:\.{1,2}/|/)?[\w-][\w./-]*)")


class _Loader:
    """Walks the memory files and their imports, keeping the result and the messages together."""

    def __init__(self, memory: Memory, roots: list[Path], max_chars: int, max_depth: int):
        self.memory = memory
        self.roots = roots  # the folders an import may reach into
        self.max_chars = max_chars
        self.max_depth = max_depth
        self.loaded: set[Path] = set()

    def load(self, path: Path, level: str, imported_by: Path | None, chain: list[Path]):
        real = path.resolve()
        if real in chain:
            loop = " -> ".join(p.name for p in chain + [real])
            return self.say(f"Import cycle {loop}: {path.name} is not loaded a second time.")
        if real in self.loaded:
            return self.say(f"{path} is already loaded; imported only once.")
        text = self.read(path)
        if text is None:
            return
        tokens = self.memory.meter.text(text)
        self.memory.files.append(MemoryFile(level, path, text, tokens, imported_by))
        self.loaded.add(real)
        if tokens > self.memory.budget:
            self.say(
                f"{path} is {tokens} tokens, over the {self.memory.budget}-token budget. "
                "It is sent on every lap: keep it short, "
                "and move details into files the agent can read when needed."
            )
        for name in imports_in(text):
            self.follow(name, path, chain + [real])

    def follow(self, name: str, importer: Path, chain: list[Path]):
        """Load one ``@name`` of ``importer``, if it is allowed, exists, and is not too deep."""
        target = importer.parent / name  # relative to the importing file
        if len(chain) > self.max_depth:
            return self.say(
                f"@{name} in {importer}: not followed, imports go at most {self.max_depth} deep."
            )
        real = target.resolve()
        if not any(real.is_relative_to(root) for root in self.roots):
            return self.say(f"@{name} in {importer} points outside the memory folders; refused.")
        if not real.is_file():
            return self.say(f"@{name} in {importer}: no such file; skipped.")
        self.load(target, "import", importer, chain)

    def read(self, path: Path) -> str | None:
        """The text of a memory file, cut at ``max_chars`` (None if it is unreadable, said why)."""
        try:
            with open(path, "rb") as file:
                data = file.read(self.max_chars * 4 + 4)  # UTF-8 needs at most 4 bytes a character
                more = file.read(1) != b""
        except OSError as problem:
            return self.say(f"{path} cannot be read ({problem.strerror or problem}); skipped.")
        try:  # an incremental decoder accepts a character cut in half at the end of what we read
            text = (
                codecs.getincrementaldecoder("utf-8")()
                .decode(data, final=not more)
                .lstrip("\ufeff")
            )
        except UnicodeDecodeError as problem:
            return self.say(
                f"{path} is not UTF-8 text (byte {data[problem.start]:#04x} at offset "
                f"{problem.start}); skipped."
            )
        if more or len(text) > self.max_chars:
            self.say(
                f"{path} is larger than {self.max_chars:,} characters; only the first "
                f"{self.max_chars:,} were loaded. A memory file this big defeats its purpose."
            )
            text = text[: self.max_chars]
        return text

    def say(self, message: str) -> None:
        if message not in self.memory.messages:
            self.memory.messages.append(message)
