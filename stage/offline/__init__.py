"""The offline stand-in: a rule-based model, so the class runs with no key and no network.

This package is the *stage*, not the lesson. The lesson code (loop, messages, tokens, tools,
context strategies, prompts, memory) lives one folder up and works the same with Claude.
Read these modules only to see how the stand-in decides; each looks at nothing but the
request it is sent.

* ``offline_model``  -- ``OfflineModel``: one decision per call, from what is on the desk
* ``view``        -- what it sees: the request, the notes, the files and results on the desk
* ``locating``, ``findings``, ``searching`` -- where the cause is: the request's own terms, weighed; the fix
* ``rules``, ``corrections``, ``decisions`` -- what the user said: standing rules, names put right, choices
* ``summaries``   -- how it writes a summary or a fold: only the sections asked for, within the limit
* ``context_rot`` -- a seeded simulation of context rot (off unless switched on)
"""

from stage.offline.context_rot import ContextRot
from stage.offline.view import View
from stage.offline.offline_model import OfflineModel
from stage.offline.summaries import summary_request, write_summary

__all__ = ["OfflineModel", "View", "ContextRot", "summary_request", "write_summary"]
