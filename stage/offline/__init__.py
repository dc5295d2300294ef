"""The offline stand-in: a rule-based model, so the class runs with no key and no network.

This package is the *stage*, not the lesson. The lesson code (loop, messages, tokens, tools,
context strategies, prompts, memory) lives one folder up and works the same with Claude.
Read these modules only to see how the stand-in decides; each looks at nothing but the
request it is sent.

* ``offline_model``  -- ``OfflineModel``: one decision per call, from what is on the desk
* ``view``, ``goal`` -- what it sees: the request (its goal without the rules), the notes, the files on the desk
* ``steps``, ``looking``, ``progress`` -- what it does next: its options in order, the searches an agent
  makes, its to-do line and the check that it is not going round in circles
* ``terms``, ``vocabulary``, ``locating``, ``lines`` -- what the request names; how a line of code matches it
* ``findings``, ``fixes``, ``searching`` -- what a file tells it: the cause, the fix; whether that settles it
* ``acting``, ``jotting``, ``delegating`` -- answering or running the fix; its notes; sub-agents
* ``rules``, ``corrections``, ``decisions`` -- what the user said: standing rules, names put right, choices
* ``summaries``, ``transcripts`` -- how it writes a summary or a fold, from what it is given
* ``context_rot`` -- a seeded simulation of context rot (off unless switched on)
"""

from stage.offline.context_rot import ContextRot
from stage.offline.view import View
from stage.offline.offline_model import OfflineModel
from stage.offline.summaries import summary_request, write_summary

__all__ = ["OfflineModel", "View", "ContextRot", "summary_request", "write_summary"]
