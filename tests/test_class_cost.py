"""class/lesson_cost.py counts the tokens of the models a lesson gets from pick_model, and only those."""

import lesson_cost

from harness.messages import user


def test_the_counter_adds_the_usage_of_picked_models_only(monkeypatch):
    import stage.switch

    monkeypatch.setattr(
        stage.switch, "pick_model", stage.switch.pick_model
    )  # restored after the test
    space = {}
    exec(lesson_cost.COUNTER_CELL, space)
    from stage.offline import OfflineModel
    from stage.switch import pick_model

    picked = pick_model(window=5000)
    replies = [
        picked.reply("You are a desk.", [user(f"Read the files, please ({n}).")], [], 200)
        for n in range(3)
    ]
    OfflineModel(window=5000).reply(
        "You are a desk.", [user("Not counted: built by hand.")], [], 200
    )

    tally = space["_tally"]
    assert tally["calls"] == 3
    assert tally["input_tokens"] == sum(r.usage["input_tokens"] for r in replies) > 0
    assert tally["output_tokens"] == sum(r.usage["output_tokens"] for r in replies)


def test_the_table_prices_every_lesson_and_the_total():
    bills = {
        "a": {"calls": 2, "input_tokens": 1_000_000, "output_tokens": 0},
        "b": {"calls": 1, "input_tokens": 0, "output_tokens": 200_000},
    }
    for tally in bills.values():
        tally["dollars"] = lesson_cost.price()[0].dollars(
            uncached=tally["input_tokens"], output=tally["output_tokens"]
        )
    table = lesson_cost.table(bills, class_size=30)
    total = lesson_cost.price()[0].dollars(uncached=1_000_000, output=200_000)
    assert f"| all lessons | 3 | 1,000,000 | 200,000 | {total:.3f} | {total * 30:.2f} |" in table


def test_the_price_is_the_default_models_from_the_one_table(monkeypatch):
    from stage.claude import CLAUDE_PRICES, DEFAULT_CLAUDE_MODEL

    assert lesson_cost.price()[0] is CLAUDE_PRICES[DEFAULT_CLAUDE_MODEL]
    monkeypatch.setenv("CONTEXT_DESK_MODEL", "claude-not-in-the-table")
    prices, source = lesson_cost.price()
    assert "not in CLAUDE_PRICES" in source
