"""Context Desk's harness: the lesson. A small agent loop and the pieces the class learns.

Read the modules in this order, one idea each; a module imports only modules above it
(``tests/test_layout.py`` checks):

* ``messages``        -- the message array, the tool-pair rule, turns, a message as text
* ``tokens``          -- counting: chars/4, the cl100k tokenizer offline, a cached meter
* ``model``           -- the one protocol every model speaks, and its two errors
* ``sandbox``         -- every path a tool is given stays inside the workspace
* ``arguments``       -- a tool call's arguments, checked against its schema
* ``tools``           -- the agent's five tools over one workspace folder
* ``transcript``      -- the raw history on disk, one JSON line per message
* ``laps``            -- what a run leaves: a record per lap, the run, the words for what happened
* ``prompts``         -- the system prompt and the summary prompts
* ``context``         -- what a strategy is; the simplest one: send the full history
* ``guards``          -- a piece the class wrote that breaks stops the run cleanly, saying why
* ``loop``            -- the bare loop (lesson 01), and ``run_agent``: the same loop, with records
* ``sliding_window``  -- lesson 02: keep the newest messages that fit
* ``summarizing``     -- the summary call every summarizing strategy shares
* ``compaction``      -- lesson 03: pinned head, summarized middle, verbatim tail
* ``running_summary`` -- lesson 04: one living summary, folded every few turns
* ``clearing``        -- old tool results swapped for pointers
* ``cache``           -- prompt caching: where breakpoints go, what a request reads from the cache
* ``clear_then_compact`` -- clear first, compact rarely and deeply: the cache kept warm
* ``strategies``      -- every strategy by name, and the dashboard's settings
* ``memory``          -- lesson 05: CLAUDE.md loaded into every session's system prompt
* ``promote``         -- writing a rule into CLAUDE.md, safely
* ``notes``           -- recalled notes: many small memory files, only the matching few loaded
* ``cost``            -- the token bill, with prompt caching

The lessons' words and the code's names (``notebooks/GLOSSARY.md`` defines the words):

* *desk* -- what is sent on one lap: ``desk`` in ``bare_loop``, ``Assembly.messages``, ``Lap.sent``
* *raw history* -- every message of the session, never shortened: ``history``, ``Run.history``
* *lap* -- one pass of the loop (assemble, call, run tools): ``Lap``, ``Lap.number``, ``max_laps``
* *turn* -- what one lap adds: the reply and its tool results: ``turn_starts``, ``tail_turns``
* *context window* -- ``model.window``, in tokens
* *threshold* -- ``threshold``, a fraction of the usable window (the window minus the reply's room)
* *pinned head*, *middle*, *verbatim tail* -- ``three_zones``, the zones "head", "middle", "tail"
* *summary card* -- ``Summary.card``, the zone "summary"
* *compaction template* -- ``COMPACTION_TEMPLATE``
* *running summary*, *fold* -- ``RunningSummary``, ``fold``; *standing constraint* -- a rule the
  template always carries
* what a lap did -- ``Did`` (``Lap.kind``); why a run stopped -- ``Stopped`` (``Run.stopped``)
* *memory*, *CLAUDE.md*, *promote* -- ``load_memory``, ``load_claude_md``, ``promote``

Everything around the lesson (the offline model, the Claude backend and the model switch, the
pictures and widgets, verdicts, test servers) is the stage, in the sibling package ``stage``.
Nothing here imports it.
"""
