"""The stage around the lesson: everything the notebooks use that is not what the class learns.

``harness/`` is the lesson (the loop and its parts); this package imports it and is never imported by it.

* ``switch``       -- ``pick_model()``: Claude when a key is set, the offline model otherwise
* ``offline``      -- the offline model: a few readable rules that react to what is on the desk
* ``claude``       -- the real Claude through the ``anthropic`` SDK, the model list and prices; ``api_levers`` --
  the API's own levers (``lever_model`` sends them, ``server_compaction`` asks for summaries on demand)
* ``plots``, ``picture``, ``widgets`` -- the pictures, the dashboard's fast picture, and the live dashboard;
  ``palette`` -- the one palette they (and the slides, and the verdicts) share, readable without colour
* ``kernel``       -- the workbook's kernel: IPython's, naming its language as the lessons are saved
* ``outcomes``     -- one-line verdicts computed from a run ("it ran the fix on staging")
* ``tasks``, ``classroom`` -- the class task, and the notebooks' setup check
* ``registry``     -- the lesson registry: notebooks/lessons.toml, one row per lesson
* ``pieces``       -- the class's agent: the pieces the build cells keep in my_agent.py, or the harness's own
* ``frontier``, ``subagent`` -- going further: dollars against tokens, and a fresh desk for a sub-task
* ``standin_server``, ``offline_server``, ``misbehaving``, ``notebook_matrix`` -- local servers that speak the
  Messages API (canned, or answered by the offline model), models that misbehave on purpose, and the
  notebook-by-model matrix the tests and ``make bench`` run
  (``server_levers`` is the desk server's side of the API levers)
"""
