"""Context Desk's harness: a small agent loop and its parts, one idea per module.

Read them in this order:

* ``messages``   -- the message array (the desk) and the tool-pair rule
* ``tokens``     -- counting: chars/4, the cl100k tokenizer offline, a cached meter
* ``tools``      -- the agent's tools, sandboxed to ``workspace/``
* ``model``      -- one protocol for every model, and the switch between them
* ``claude``     -- the real Claude through the ``anthropic`` SDK
* ``loop``       -- the bare loop: assemble, call, append, run tools, repeat
* ``prompts``    -- the system prompt and the summary prompts
* ``context``    -- the strategies: full history, sliding window, three zones, running summary, clearing
* ``memory``, ``promote``, ``notes`` -- CLAUDE.md: loading, writing into it, recalled notes
* ``cost``       -- the token bill, with prompt caching
* ``cache_aware``, ``frontier`` -- cache breakpoints, a strategy that keeps them, dollars vs tokens
* ``plots``, ``widgets`` -- the pictures and the live dashboard
* ``tasks``, ``classroom`` -- the class task, and the notebooks' setup check
* ``subagent``, ``api_levers`` -- going further: sub-agents, and the API's server-side features

The offline stand-in model is a package of its own, ``harness.offline``: the stage, not the lesson.
"""
