"""Small helpers for the notebooks' first cells: is everything installed, which model is active.

``setup_check()`` prints one line per check and never raises, so the first cell of a notebook
always runs, even on a half-installed machine; it says what to do about anything missing.
``say()`` prints what a lesson computed, wrapped between words at the projector's width.
Left out: fixing anything. It only tells.
"""

from __future__ import annotations

import os
from importlib import metadata

from stage.palette import wrap_printed
from stage.switch import describe_model, pick_model

PACKAGES = ["anthropic", "tiktoken", "ipywidgets", "matplotlib", "jupyterlab"]


def say(*parts) -> None:
    """Print ``parts`` joined by spaces, as ``print`` does, wrapped at the projector's width; a line
    that had to break goes on indented. Example: say("your window:", "The rule was on the desk ...")
    """
    print(wrap_printed(" ".join(str(part) for part in parts), indent="  "))


def setup_check(verbose: bool = True, brief: bool = False) -> dict:
    """Check packages, the offline tokenizer and the model; print a line each; return what was found.

    ``brief`` (the lessons' setup cells): what is fine is one line, what is missing keeps its own line
    and what to do about it, and the active model is always named.
    Example: setup_check() -> prints "ok  tiktoken cl100k_base loads offline (2 tokens for 'hello world')"
    """
    if brief:
        found = setup_check(verbose=False)
        problems = [name for name in PACKAGES if found[name] is None]
        for name in problems:
            _say(
                verbose, False, f"{name} is missing: run `make lab` (or `make test`) to install it"
            )
        if found["tokenizer"] is None:
            _say(verbose, False, "tokenizer: cl100k_base does not load offline (run setup_check())")
        if not problems and found["tokenizer"] is not None:
            _say(verbose, True, f"{len(PACKAGES)} packages and the offline tokenizer")
        if found["model"]:
            _say(verbose, True, describe_model(pick_model()))
        else:
            _say(verbose, False, "model: run setup_check() for what went wrong")
        return found
    found = {}
    for name in PACKAGES:  # asking the installer's records is instant; importing them all is not
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
            _say(
                verbose, False, f"{name} is missing: run `make lab` (or `make test`) to install it"
            )
        else:
            _say(verbose, True, f"{name} {found[name]}")
    try:
        from harness.tokens import tiktoken_count

        found["tokenizer"] = tiktoken_count("hello world")
        _say(
            verbose,
            True,
            f"tokenizer cl100k_base loads offline ({found['tokenizer']} tokens for 'hello world')",
        )
    except Exception as problem:
        found["tokenizer"] = None
        _say(verbose, False, f"tokenizer: {problem}")
    try:
        model = pick_model()
        found["model"] = model.name
        _say(verbose, True, describe_model(model))
    except Exception as problem:  # e.g. a key set but the SDK refusing it
        found["model"] = None
        _say(verbose, False, f"model: {problem}")
    found["key set"] = bool(os.environ.get("ANTHROPIC_API_KEY", "").strip())
    return found


def _say(verbose: bool, ok: bool, text: str) -> None:
    if verbose:
        print(wrap_printed(("ok   " if ok else "FIX  ") + text, indent="     "))
