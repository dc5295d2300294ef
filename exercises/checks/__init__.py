"""The exercise checks: each runs your code on fresh cases and prints PASS, or FAIL with a hint.

One module per exercise, so the checks of exercise 03 are all in ``ex03_three_zones.py``. What they
share: verdicts and calling your code safely (``common.py``); trying a property on a hundred cases
made up by Hypothesis and keeping the smallest that fails (``search.py``); the made-up cases
themselves (``cases.py``, and beside the exercises that need their own: ``lap_cases.py``,
``made_up_runs.py``, ``promote_cases.py``); what a right window or a right memory must look like
(``window_rules.py``, ``memory_rules.py``); and a check cell run too early in a notebook
(``in_notebook.py``). The notebooks only ``import checks`` and call ``checks.check_...``: every check
is re-exported here.

Nothing here answers a task: the checks judge by properties, by cases they built themselves, and by
runs of the offline model they make. ``exercises/INSTRUCTOR_ONLY`` lists the files that do hold answers.

Left out: grading and scores (a check says PASS or FAIL and why, nothing more).
"""

from .common import GOALS, METER, RULES, hello, random_history, show, worked_history
from .ex01_desk import (
    check_overflow_prediction,
    check_smallest_window,
    check_tokens_of,
    compare_with_tokenizer,
)
from .ex02_sliding_window import (
    StudentWindow,
    check_first_lap_without,
    check_pinned_window,
    check_remarks_window,
    check_sliding_window,
)
from .ex03_three_zones import (
    CARD_HEADER,
    TIGHT_WORDS,
    check_compact,
    check_compaction_prompt,
    check_split_zones,
    check_two_rules_prompt,
    two_rules_task,
)
from .ex04_running_summary import (
    CHUNKS,
    KEEPS,
    FoldLoop,
    check_cheapest_settings,
    check_running_summary,
    check_token_bill,
    run_with,
)
from .ex05_memory import (
    GREENHOUSE,
    GREENHOUSE_GOALS,
    MEMORY_CAP,
    TIGHT_CAP,
    check_greenhouse_memory,
    check_memory,
    check_promote,
    check_tight_memory,
    with_memory,
)
from .in_notebook import guard_check_cells
from .window_rules import user_remarks

guard_check_cells()  # in a notebook, a check cell run too early says what to run first

__all__ = [
    "GOALS",
    "METER",
    "RULES",
    "hello",
    "show",
    "random_history",
    "worked_history",
    "check_tokens_of",
    "compare_with_tokenizer",
    "check_overflow_prediction",
    "check_smallest_window",
    "check_sliding_window",
    "check_first_lap_without",
    "check_pinned_window",
    "check_remarks_window",
    "StudentWindow",
    "user_remarks",
    "check_split_zones",
    "check_compact",
    "check_compaction_prompt",
    "check_two_rules_prompt",
    "CARD_HEADER",
    "TIGHT_WORDS",
    "two_rules_task",
    "check_running_summary",
    "check_token_bill",
    "check_cheapest_settings",
    "FoldLoop",
    "CHUNKS",
    "KEEPS",
    "run_with",
    "check_memory",
    "check_tight_memory",
    "check_promote",
    "check_greenhouse_memory",
    "with_memory",
    "MEMORY_CAP",
    "TIGHT_CAP",
    "GREENHOUSE",
    "GREENHOUSE_GOALS",
]
