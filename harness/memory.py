"""Memory: the notebook beside the desk. What a new session knows before its first lap.

The desk (the context window) is wiped when a session ends; the notebook is not. This module
does four small things with it:

1. **Load** it at session start: the user's file, the project's ``CLAUDE.md``, then the local
   ``CLAUDE.local.md``, each followed by the files it imports with ``@relative/path``.
   ``system_prompt(memory)`` puts the result after the agent's usual system prompt.
2. **Measure** it: the notebook is sent on *every* turn, so its tokens are paid once per lap.
   A file over the budget (200 tokens by default) gets a warning: keep it short.
3. **Promote** into it: the standing constraints of a compaction summary, or a fact the agent
   saves with its ``remember`` tool. Writes are atomic and never add a line that is already there.
4. **Recall** notes: the richer end of the spectrum. Notes live in a folder, one file each, and
   only the few that share words with the request are pulled onto the desk.

Bad input never stops a session: a missing, non-UTF-8, oversized, cyclic or out-of-bounds file
is skipped or cut, and said so once in ``Memory.messages``.

Left out on purpose: the managed (company-wide) memory level, ``CLAUDE.md`` files in subfolders
that load when the agent works there, ``~/`` imports, editing memory by hand (``/memory``), and
any real search index (recall is plain word overlap, no embeddings).
"""

from __future__ import annotations

import codecs
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from harness.prompts import SYSTEM_PROMPT
from harness.tokens import Meter
from harness.tools import WORKSPACE, ToolError

USER_MEMORY = "~/.claude/CLAUDE.md"             # expanded only when loaded
PROJECT_MEMORY = WORKSPACE / "CLAUDE.md"
LOCAL_MEMORY = WORKSPACE / "CLAUDE.local.md"    # personal notes for this project, not committed
BUDGET = 200                                    # tokens per memory file: the "keep it short" guardrail
MAX_CHARS = 20_000                              # a bigger file is cut here, with a warning
MAX_IMPORT_DEPTH = 4                            # hops of @imports followed from a top-level file

MEMORY_HEADER = "Project memory (CLAUDE.md), loaded at session start:"
RECALL_HEADER = "Notes recalled for this request:"
INVITE_TO_REMEMBER = ("Before you finish, use the remember tool to save each standing rule the user gave, "
                      "so the next session starts knowing it.")


class MemoryFileError(Exception):
    """A memory file cannot be updated safely; it was left exactly as it was."""


@dataclass
class MemoryFile:
    """One file that was loaded: its level (user, project, local, import), where it came from, its cost."""

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
        return memory_section(self)

    @property
    def tokens_per_turn(self) -> int:
        """Tokens the memory section adds to every request. Example: the workspace's four lines -> 105."""
        return (self.meter or Meter()).text(self.text) if self.text else 0

    def over_session(self, laps: int) -> int:
        """Tokens memory costs over a whole session: it rides along on every lap.

        Example: 105 tokens per turn, 7 laps -> 735 tokens.
        """
        return self.tokens_per_turn * laps

    @property
    def over_budget(self) -> list[MemoryFile]:
        return [f for f in self.files if f.tokens > self.budget]

    def describe(self) -> str:
        """A small table of what was loaded, then the messages. For printing in a notebook."""
        rows = [f"{f.level:<8}{f.tokens:>6}  {f.path}" + _imported_by(f) for f in self.files]
        total = f"{'total':<8}{self.tokens_per_turn:>6}  tokens on every turn (budget {self.budget} per file)"
        notes = [f"- {m}" for m in self.messages]
        return "\n".join([f"{'level':<8}{'tokens':>6}  file", *rows, total, *notes])


def _imported_by(file: MemoryFile) -> str:
    return f"  (imported by {file.imported_by.name})" if file.imported_by else ""


# ---- 1. loading --------------------------------------------------------------------------------

def load_memory(user: str | Path | None = USER_MEMORY, project: str | Path | None = PROJECT_MEMORY,
                local: str | Path | None = LOCAL_MEMORY, roots: Sequence[str | Path] = (),
                budget: int = BUDGET, meter: Meter | None = None, max_chars: int = MAX_CHARS,
                max_depth: int = MAX_IMPORT_DEPTH) -> Memory:
    """Load the user, project and local memory files, in that order, with their ``@`` imports.

    ``None`` skips a level. Imports may only reach files under ``roots`` and the three files' folders.
    Example: load_memory(user=None, project="workspace/CLAUDE.md", local=None).files -> [the four-line file]
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


def imports_in(text: str) -> list[str]:
    """The ``@path`` imports of a memory file, skipping code blocks, inline code and e-mail addresses.

    Example: "See @docs/api.md and `@not/this`, mail a@b.com" -> ["docs/api.md"]
    """
    found, fence = [], None
    for line in text.splitlines():
        opening = FENCE.match(line)
        if opening and (fence is None or opening.group(1)[0] == fence):
            fence = None if fence else opening.group(1)[0]    # a fence opens, or the same kind closes it
            continue
        if fence:
            continue
        for match in IMPORT.finditer(INLINE_CODE.sub(" ", line)):
            path = match.group(1).rstrip(".,;:")
            if path:
                found.append(path)
    return found


def memory_section(memory: Memory) -> str:
    """The memory as it is written into the system prompt; empty if nothing was loaded.

    Example: one project file "- Run tests with pytest." -> "Project memory (CLAUDE.md), loaded at
    session start:\\n\\n## project: CLAUDE.md\\n- Run tests with pytest."
    """
    blocks = [f"## {f.level}: {f.path.name}\n{f.text.strip()}" for f in memory.files if f.text.strip()]
    return "\n\n".join([MEMORY_HEADER] + blocks) if blocks else ""


def system_prompt(memory: Memory | None = None, recalled: Sequence["Note"] = (),
                  invite_remember: bool = False, base: str = SYSTEM_PROMPT) -> str:
    """The full system prompt of a session: the agent's prompt, then its memory, then any recalled notes.

    ``invite_remember`` adds one sentence asking the agent to save standing rules with its remember tool.
    Example: system_prompt(None) == SYSTEM_PROMPT (no memory, nothing added).
    """
    parts = [base + (" " + INVITE_TO_REMEMBER if invite_remember else "")]
    if memory is not None and memory.text:
        parts.append(memory.text)
    if recalled:
        parts.append(recalled_section(recalled))
    return "\n\n".join(parts)


# ---- helpers for loading ------------------------------------------------------------------------

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+).*?\1")
IMPORT = re.compile(r"(?<![\w@`])@((?:\.{1,2}/|/)?[\w-][\w./-]*)")


class _Loader:
    """Walks the memory files and their imports, keeping the result and the messages in one place."""

    def __init__(self, memory: Memory, roots: list[Path], max_chars: int, max_depth: int):
        self.memory, self.roots, self.max_chars, self.max_depth = memory, roots, max_chars, max_depth
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
            self.say(f"{path} is {tokens} tokens, over the {self.memory.budget}-token budget. It is sent on "
                     "every turn: keep it short, and move details into files the agent can read when needed.")
        for name in imports_in(text):
            self.follow(name, path, chain + [real])

    def follow(self, name: str, importer: Path, chain: list[Path]):
        """Load one ``@name`` found in ``importer``, if it is allowed, exists, and is not too deep."""
        target = importer.parent / name                        # relative to the importing file
        if len(chain) > self.max_depth:
            return self.say(f"@{name} in {importer}: not followed, imports go at most {self.max_depth} deep.")
        real = target.resolve()
        if not any(real.is_relative_to(root) for root in self.roots):
            return self.say(f"@{name} in {importer} points outside the memory folders; refused.")
        if not real.is_file():
            return self.say(f"@{name} in {importer}: no such file; skipped.")
        self.load(target, "import", importer, chain)

    def read(self, path: Path) -> str | None:
        """The text of a memory file, cut at ``max_chars``; None (and a message) if it cannot be read."""
        try:
            with open(path, "rb") as file:
                data = file.read(self.max_chars * 4 + 4)       # UTF-8 needs at most 4 bytes a character
                more = file.read(1) != b""
        except OSError as problem:
            return self.say(f"{path} cannot be read ({problem.strerror or problem}); skipped.")
        try:   # an incremental decoder accepts a character cut in half at the end of what we read
            text = codecs.getincrementaldecoder("utf-8")().decode(data, final=not more).lstrip("\ufeff")
        except UnicodeDecodeError as problem:
            return self.say(f"{path} is not UTF-8 text (byte {data[problem.start]:#04x} at offset "
                            f"{problem.start}); skipped.")
        if more or len(text) > self.max_chars:
            self.say(f"{path} is larger than {self.max_chars:,} characters; only the first "
                     f"{self.max_chars:,} were loaded. A memory file this big defeats its purpose.")
            text = text[:self.max_chars]
        return text

    def say(self, message: str) -> None:
        if message not in self.memory.messages:
            self.memory.messages.append(message)


# ---- 2. promotion: from the desk into the notebook ----------------------------------------------

def standing_constraints(summary: str) -> list[str]:
    """The lines under the "Standing constraints:" heading of a compaction summary.

    Example: "Goal: fix it\\nStanding constraints:\\n- Never touch production.\\nFacts:\\n- ..."
    -> ["Never touch production."]
    """
    found, inside = [], False
    for line in (raw.strip() for raw in summary.splitlines()):
        heading, bullet = CONSTRAINTS_HEADING.match(line), BULLET.match(line)
        if heading:
            inside, rule = True, heading.group(1)              # a rule may share the heading's line
        elif inside and bullet:
            rule = bullet.group(1)
        else:
            inside = inside and not line                       # blank lines are skipped; other text ends it
            continue
        if rule and not NOTHING.match(rule):
            found.append(rule)
    return found


def promote(summary: str, memory_path: str | Path) -> list[str]:
    """Copy the standing constraints of a summary into a memory file; return the lines added.

    Lines already in the file (ignoring case, spacing and bullets) are not added again.
    Example: promote("Standing constraints:\\n- Never touch production.", "CLAUDE.md")
    -> ["- Never touch production."]
    """
    return append_to_memory(memory_path, standing_constraints(summary))


def remember_into(memory_path: str | Path) -> Callable[[str], str]:
    """A callback for the agent's ``remember`` tool that writes each fact into ``memory_path``.

    Example: Toolbox(remember=remember_into("CLAUDE.md")); the agent's remember("Use staging.")
    -> "Saved to CLAUDE.md: Use staging."  (a second time: "Already in CLAUDE.md: ...")
    """
    name = Path(memory_path).name

    def remember(fact: str) -> str:
        try:
            added = append_to_memory(memory_path, [fact])
        except MemoryFileError as problem:
            raise ToolError(str(problem)) from None            # the agent hears it as an error tool result
        return f"{'Saved to' if added else 'Already in'} {name}: {one_line(fact)}"

    return remember


def append_to_memory(memory_path: str | Path, facts: list[str]) -> list[str]:
    """Append each new fact as a ``- `` line, atomically; return the lines actually added.

    The file is read first: if it is not UTF-8 (or not a file), nothing is written.
    Example: a file holding "- Never touch production." and facts ["never touch production"] -> []
    """
    path = Path(memory_path).expanduser()
    old = _read_for_update(path)
    known = {normalise(line) for line in old.splitlines()}
    added = []
    for fact in facts:
        key = normalise(fact)
        if key and key not in known:
            known.add(key)
            added.append(f"- {one_line(fact).lstrip('-*• ')}")
    if added:
        joint = "" if not old or old.endswith("\n") else "\n"
        _write_atomically(path, old + joint + "\n".join(added) + "\n")
    return added


def normalise(line: str) -> str:
    """A line reduced to what it says, to spot duplicates.

    Example: "-  Never touch PRODUCTION. " -> "never touch production"
    """
    return re.sub(r"\s+", " ", line.strip().lstrip("-*• ")).strip().rstrip(".;").lower()


def one_line(fact: str) -> str:
    """A fact on one line, so it cannot add headings of its own. Example: "a\\n b" -> "a b" """
    return " ".join(fact.split())


# ---- helpers for promotion ----------------------------------------------------------------------

CONSTRAINTS_HEADING = re.compile(r"^\W*standing constraints\s*\**\s*(?::\s*\**\s*(.*?))?\s*$", re.I)
BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+(.+)$")
NOTHING = re.compile(r"^\(?(none|nothing|n/a|-)\)?\.?$", re.I)


def _read_for_update(path: Path) -> str:
    """The current text of a memory file ("" if it does not exist yet), or MemoryFileError."""
    if not path.exists():
        return ""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as problem:
        raise MemoryFileError(f"{path} is not UTF-8 text (offset {problem.start}); "
                              "nothing was written, and the file is untouched.") from None
    except OSError as problem:
        raise MemoryFileError(f"{path} cannot be read ({_why(problem)}); nothing was written.") from None


def _write_atomically(path: Path, text: str) -> None:
    """Write a temporary file beside ``path``, then swap it in.

    Readers see the old file or the new one, never half of it; on failure the old file stays as it was.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as problem:
        raise MemoryFileError(f"Cannot write beside {path} ({_why(problem)}); nothing was written.") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644   # keep the file's permissions
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError as problem:
        Path(temporary).unlink(missing_ok=True)
        raise MemoryFileError(f"Writing {path} failed ({_why(problem)}); the file is untouched.") from None


def _why(problem: OSError) -> str:
    return problem.strerror or str(problem)


# ---- 3. recalled notes: the richer end ----------------------------------------------------------

@dataclass
class Note:
    """One note file, and how many words it shares with the request it was recalled for."""

    path: Path
    text: str
    score: int = 0


def write_note(folder: str | Path, title: str, text: str) -> Path:
    """Save a note as ``<folder>/<title-as-slug>.md`` (atomically; the same title replaces the note).

    Example: write_note("notes", "Email login bug", "auth.py:40 compares emails case-sensitively")
    -> notes/email-login-bug.md
    """
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "note"
    path = Path(folder) / f"{slug}.md"
    _write_atomically(path, f"# {one_line(title)}\n\n{text.strip()}\n")
    return path


def recall(folder: str | Path, request: str, k: int = 3) -> list[Note]:
    """The ``k`` notes that share the most words with ``request``; notes sharing none are never recalled.

    Example: a note on the email login bug and one on tax rounding, request "emails cannot log in"
    -> [the email note]
    """
    wanted = keywords(request)
    scored = [Note(n.path, n.text, len(keywords(n.text) & wanted)) for n in read_notes(folder)]
    return sorted((n for n in scored if n.score > 0), key=lambda n: (-n.score, n.path.name))[:k]


def read_notes(folder: str | Path) -> list[Note]:
    """Every readable ``.md`` note in the folder, by name. Unreadable or non-UTF-8 notes are skipped."""
    notes = []
    paths = sorted(Path(folder).glob("*.md")) if Path(folder).is_dir() else []
    for path in paths:
        try:
            notes.append(Note(path, path.read_text(encoding="utf-8")[:MAX_CHARS]))
        except (OSError, UnicodeDecodeError):
            continue
    return notes


def keywords(text: str) -> set[str]:
    """Words of four letters or more, cut to five letters so "emails" meets "email".

    Example: "Emails were typed" -> {"email", "typed"}
    """
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in COMMON}


def recalled_section(notes: Sequence[Note]) -> str:
    """Recalled notes as they are written into the system prompt."""
    return "\n\n".join([RECALL_HEADER] + [f"## note: {n.path.name}\n{n.text.strip()}" for n in notes])


def memory_costs(memory: Memory, folder: str | Path, request: str, k: int = 3,
                 meter: Meter | None = None) -> dict:
    """Tokens per turn of always-loaded memory, of every note if all were loaded, and of the recalled few.

    Example: the class task's notes -> {"always loaded": 105, "all notes": 207, "recalled": 103, ...}
    """
    meter = meter or memory.meter or Meter()
    every, chosen = read_notes(folder), recall(folder, request, k)
    return {
        "always loaded": memory.tokens_per_turn,
        "all notes": meter.text(recalled_section(every)) if every else 0,
        "recalled": meter.text(recalled_section(chosen)) if chosen else 0,
        "recalled notes": [n.path.name for n in chosen],
    }


COMMON = set("this that with from have when what which will were they them then than into your only also "
             "some there their these those been being does done each must should would could".split())
