"""The goal: what the request asks for, once its standing rules are taken out of it.

``sentences`` cuts a text into sentences (and lines); ``without_rules`` keeps the sentences that are not rules
(``rules.is_rule``), and of a rule sentence only the clauses that neither order nor name a target -- what is
left is the goal the model copies into every note.

Left out: a goal spread over several messages. The goal is the first request's, whatever the user adds later.
"""

from __future__ import annotations

import re

from stage.offline.rules import clauses, mentions
from stage.offline.rules import is_rule as _is_rule


def sentences(text: str) -> list[str]:
    """Split text into sentences (and lines). Example: 'Do A. Never B.' -> ['Do A.', 'Never B.']"""
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [p.strip(" -*\t") for p in parts if p.strip(" -*\t")]


def is_rule(sentence: str, targets: list[str] | None = None) -> bool:
    """A standing rule (see ``rules``). Example: 'Never touch production.' -> True"""
    return _is_rule(sentence, targets)


def without_rules(text: str, targets: list[str] | None = None) -> str:
    """The text with its rule clauses taken out: what is left is the goal.

    A clause of a rule sentence that names a target ("staging is fine") belongs to the rule, not the goal.
    Example: 'Fix the login. Never touch production: staging only.' -> 'Fix the login.'
    """
    kept, named = [], targets or ["staging", "production"]
    for sentence in sentences(text):
        if not is_rule(sentence, targets):
            kept.append(sentence)
            continue
        rest = [
            c
            for c in clauses(sentence)
            if not is_rule(c, targets) and not any(mentions(c, t) for t in named)
        ]
        if rest:
            kept.append(", ".join(rest).rstrip(".") + ".")
    return " ".join(kept)
