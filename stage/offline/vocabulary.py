"""The words of a goal: what the offline model counts as the request's own vocabulary.

``words`` cuts a text into content words (five letters, so 'emails' meets 'email'); ``relation`` counts the
words two texts share, leaving out the boilerplate every request has ("find the cause", "apply the fix");
``goal_terms`` is what ``locating.terms`` makes of a goal (cached: every file is judged against it).

Left out: meaning. Two words are related only if they are spelled alike.
"""

from __future__ import annotations

import re
from functools import lru_cache

from stage.offline.terms import COMMON, Terms, terms

STOP = set(
    "the and that this with from into then your have were what when which whose there their them "
    "they does code under file files".split()
)
GOAL_NOISE = set(
    "find cause apply pendi fix datab read look then every folde repor fixes chang probl issue pleas "
    "work using reaso repai throu bug answe somew".split()
)  # the boilerplate of a request, cut to five letters like ``words``


def words(text: str) -> set[str]:
    """Content words, cut to five letters so 'emails' meets 'email'. Example: 'Emails typed' -> {'email', 'typed'}"""
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in STOP}


@lru_cache(maxsize=64)
def goal_terms(goal: str) -> Terms:
    """What the goal names, for ``locating.weigh``: its quotes, identifiers and distinctive words."""
    return terms(goal, GOAL_NOISE)


def identifier_words(text: str) -> set[str]:
    """Words inside identifiers: find_user -> find, user; dueAt -> due. Example: 'readCelsius(x)' -> {'celsi', 'read'}"""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ")
    return words(spaced)


def relation(goal: str, *texts: str) -> int:
    """How many content words the texts share with the goal (its boilerplate and common words do not count)."""
    wanted = {w for w in words(goal) - GOAL_NOISE if not any(c.startswith(w) for c in COMMON)}
    seen = set()
    for text in texts:
        seen |= words(text) | identifier_words(text)
    return len(wanted & seen)
