"""Context Desk's harness: the lesson. A small agent loop and the pieces the class learns, one idea a module.

Read them in this order:

* ``messages``   -- the message array (the desk) and the tool-pair rule
* ``tokens``     -- counting: chars/4, the cl100k tokenizer offline, a cached meter
* ``model``      -- the one protocol every model speaks, and its two errors
* ``tools``      -- the agent's tools, sandboxed to one workspace folder
* ``laps``       -- what a run leaves: a record per lap, the run, and the words for what happened
* ``transcript`` -- the raw history on disk, one JSON line per message
* ``prompts``    -- the system prompt and the summary prompts
* ``context``    -- what is sent each lap: full history, the sliding window
* ``loop``       -- the bare loop (assemble, call, append, run tools, repeat) and ``run_agent``
* ``compaction`` -- three zones: pinned head, summarized middle, verbatim tail
* ``running_summary`` -- the living summary, folded every few turns
* ``clearing``   -- old tool results swapped for pointers
* ``cache_aware`` -- where cache breakpoints go, and clear-first-then-compact
* ``strategies`` -- every strategy by name, and the desk's settings in one object
* ``memory``, ``promote``, ``notes`` -- CLAUDE.md: loading, writing into it, recalled notes
* ``cost``       -- the token bill, with prompt caching

Everything around the lesson (the offline desk model, the Claude backend and the model switch, the
pictures and widgets, verdicts, test servers) is the stage, in the sibling package ``stage``.
Nothing here imports it.
"""
