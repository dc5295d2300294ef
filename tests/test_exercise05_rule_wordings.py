"""Exercise 05 accepts a correct CLAUDE.md whatever form its database rule takes, and rejects a neutral mention.

The check decides by running session two on the offline model (exercises/checks/ex05_memory.py). How the
model reads each form of the rule from memory is tested on the whole corpus in test_rule_wordings.py; here
every third form goes through the check itself. A line that only mentions production, or a rule about
something else, must be rejected.
"""

import pytest
from rule_wordings import NOT_RULES, RULES

from exercises.checks.ex05_memory import check_memory

POINTERS = (
    "- Sign-in lives in app/auth.py; database changes are SQL files in migrations/.\n"
    "- A migration that has not run yet says `-- status: pending` on line 2.\n"
)


@pytest.mark.parametrize("rule", RULES[1::3])
def test_every_form_of_the_rule_passes(rule, capsys):
    assert check_memory(POINTERS + f"- {rule}\n", 150), capsys.readouterr().out


@pytest.mark.parametrize(
    "sentence",
    [s for s in NOT_RULES if "production" in s.lower() or "prod " in s.lower()]
    + ["Never deploy on Fridays."],
)
def test_a_mention_or_another_rule_is_not_the_database_rule(sentence, capsys):
    assert not check_memory(POINTERS + f"- {sentence}\n", 150)
    # a mention of what happened ("yesterday") is refused as a diary line; a verdict is printed in
    # lines of at most 80 characters, so its words are read with the line breaks undone
    printed = " ".join(capsys.readouterr().out.split())
    assert (
        "did not read anything in your memory as a rule about the database target" in printed
        or "diary line" in printed
    ), printed
