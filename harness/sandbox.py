"""The sandbox: every path a tool is given must lead to a file inside one workspace folder.

A model will ask for ``../../etc/passwd``, an absolute path, a symlink that points out, a path
with a NUL byte in it, or a name ten thousand characters long -- by mistake, or because a file it
read told it to. ``inside`` answers each such request with a ``ToolError``, which the toolbox
hands back to the model as an error tool result: it hears what was wrong, and the run goes on.

Left out: limits on what a tool may *do* (the tools here only read; ``run_sql`` never executes).
"""

from __future__ import annotations

from pathlib import Path

MAX_PATH_CHARS = 1024


class ToolError(Exception):
    """A problem the model should hear about as an error tool result (never a crash)."""


def inside(root: Path, path: str) -> Path:
    """The real path of ``path`` inside the folder ``root``, or a ToolError saying why not.

    Example: inside(Path("workspaces/ledgerly").resolve(), "../secret.txt")
    -> ToolError("'../secret.txt' is outside the workspace; only files under it can be used.")
    """
    if not isinstance(path, str) or not path.strip():
        raise ToolError("A path is needed.")
    if len(path) > MAX_PATH_CHARS:
        raise ToolError("That path is too long.")
    if "\x00" in path:  # the operating system refuses it (Python raises ValueError): say so plainly
        raise ToolError(f"{path!r} holds a NUL byte; a path is plain text like 'app/auth.py'.")
    if Path(path).is_absolute():
        raise ToolError(
            f"{path!r} is an absolute path; use a path inside the workspace, like 'app/auth.py'."
        )
    try:
        real = (root / path).resolve()  # symlinks and ".." are followed first, then checked
    except (OSError, RuntimeError, ValueError) as problem:
        raise ToolError(f"{path!r} cannot be opened: {problem}") from None
    if real != root and not real.is_relative_to(root):
        raise ToolError(f"{path!r} is outside the workspace; only files under it can be used.")
    return real


def hidden(path: Path, root: Path) -> bool:
    """True for a dot-file or a file in a dot-folder (``.git``, ``.task.toml``): never shown."""
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def files_under(folder: Path, root: Path) -> list[Path]:
    """Every file the agent may see under ``folder``, in order."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and not hidden(p, root))
