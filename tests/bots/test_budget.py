"""The hard bot keeps to its budget: a number of playouts, and a wall-clock limit."""

from __future__ import annotations

import random
import time

import pytest

from games.bots import get_bot
from games.bots.base import HARD_BUDGET, HardBudget
from games.bots.games import SPECS
from games.rules import all_rules, get_rules
from games.rules.base import Rules

#: Games whose hard bot searches within a budget (Gnav's weighs every world: no budget).
BUDGETED = [rules for rules in all_rules() if SPECS[rules.slug].strong is None]


def _early_decision(rules: Rules) -> tuple[dict, list]:
    """A view with a real choice, a few moves into a game."""
    rng = random.Random(4)
    state = rules.setup(max(2, rules.min_players), 4)
    for _ in range(6):
        seat = rules.waiting_seats(state)[0]
        state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
    while True:
        seat = rules.waiting_seats(state)[0]
        view = rules.view(state, seat)
        if len(view["legal_actions"]) > 1:
            return view, view["legal_actions"]
        state = rules.apply(state, seat, view["legal_actions"][0])


@pytest.mark.parametrize("rules", BUDGETED, ids=lambda rules: rules.slug)
def test_it_makes_exactly_its_playouts_when_there_is_no_clock(rules: Rules) -> None:
    view, legal = _early_decision(rules)
    bot = SPECS[rules.slug].hard(iterations=12, seconds=None)
    assert bot.choose(view, legal, random.Random(0)) in legal
    assert bot.last_iterations == 12


@pytest.mark.parametrize("rules", BUDGETED, ids=lambda rules: rules.slug)
def test_it_answers_in_time_whatever_its_playouts(rules: Rules) -> None:
    view, legal = _early_decision(rules)
    bot = SPECS[rules.slug].hard(iterations=10**9, seconds=0.2)
    started = time.perf_counter()
    assert bot.choose(view, legal, random.Random(0)) in legal
    # One playout may run past the limit; a busy test machine may pause the process.
    assert time.perf_counter() - started < 1.5
    assert 0 < bot.last_iterations < 10**9


def test_the_platforms_hard_bot_answers_within_a_second_by_default() -> None:
    defaults = HardBudget()
    assert defaults.seconds is not None and defaults.seconds < 1.0
    assert set(defaults.iterations) == {rules.slug for rules in BUDGETED}
    assert {rules.slug for rules in all_rules()} - set(defaults.iterations) == {"gnav"}
    bot = get_bot("hard", "slide")  # the suite shrinks the budget the platform reads
    assert (bot.iterations, bot.seconds) == (HARD_BUDGET.iterations["slide"], HARD_BUDGET.seconds)


def test_a_forced_move_is_played_without_searching() -> None:
    rules = get_rules("district-noir")
    bot = SPECS[rules.slug].hard(iterations=50, seconds=None)
    only = [{"type": "take"}]
    assert bot.choose({"seat": 0}, only, random.Random(0)) == only[0]
    assert bot.last_iterations == 0
