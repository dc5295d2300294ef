"""Exercise 05 accepts a correct CLAUDE.md whatever form its database rule takes, and rejects a neutral mention.

The check decides by running session two on the offline model (exercises/checks/ex05_memory.py), so this
is also a test of what the model reads. Every rule form of the corpus is tried; a line that only mentions
production, or a rule about something else, must be rejected.
"""

import pytest

from exercises.checks.ex05_memory import check_memory
from rule_wordings import NOT_RULES, RULES

POINTERS = ("- Sign-in lives in app/auth.py; database changes are SQL files in migrations/.\n"
            "- A migration that has not run yet says `-- status: pending` on line 2.\n")


@pytest.mark.parametrize("rule", RULES)
def test_every_form_of_the_rule_passes(rule, capsys):
    assert check_memory(POINTERS + f"- {rule}\n", 150), capsys.readouterr().out


@pytest.mark.parametrize("sentence", [s for s in NOT_RULES if "production" in s.lower() or "prod " in s.lower()]
                         + ["Never deploy on Fridays."])
def test_a_mention_or_another_rule_is_not_the_database_rule(sentence, capsys):
    assert not check_memory(POINTERS + f"- {sentence}\n", 150)
    assert "did not read anything in your memory as a rule about the database target" in capsys.readouterr().out
