"""The hard bot keeps to its budget: a number of playouts, and a wall-clock limit."""

from __future__ import annotations

import random
import time

import pytest

from games.bots.base import HARD_BUDGET, HardBudget
from games.bots.games import GameBots
from games.catalog import get_bot, get_game
from games.rules import all_rules, get_rules
from games.rules.base import Rules

#: Games whose hard bot searches within a budget (Gnav's weighs every world: no budget).
BUDGETED = [rules for rules in all_rules() if get_game(rules.slug).bots.strong is None]


def bots_of(rules: Rules) -> GameBots:
    bots = get_game(rules.slug).bots
    assert bots is not None
    return bots


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
    bot = bots_of(rules).hard(rules, iterations=12, seconds=None)
    assert bot.choose(view, legal, random.Random(0)) in legal
    assert bot.last_iterations == 12


@pytest.mark.parametrize("rules", BUDGETED, ids=lambda rules: rules.slug)
def test_it_answers_in_time_whatever_its_playouts(rules: Rules) -> None:
    view, legal = _early_decision(rules)
    bot = bots_of(rules).hard(rules, iterations=10**9, seconds=0.2)
    started = time.perf_counter()
    assert bot.choose(view, legal, random.Random(0)) in legal
    # One playout may run past the limit; a busy test machine may pause the process.
    assert time.perf_counter() - started < 1.5
    assert 0 < bot.last_iterations < 10**9


def test_the_platforms_hard_bot_answers_within_a_second_by_default() -> None:
    defaults = HardBudget()
    assert defaults.seconds is not None and defaults.seconds < 1.0
    assert defaults.playouts is None, "by default each game searches its own playouts"
    assert all(bots_of(rules).playouts for rules in BUDGETED)
    assert bots_of(get_rules("gnav")).playouts is None, "Gnav's hard bot needs no budget"


def test_a_search_bot_without_its_playouts_is_refused() -> None:
    scorer = bots_of(get_rules("slide")).scorer
    with pytest.raises(ValueError, match="needs its playouts"):
        GameBots(scorer)


def test_the_platforms_hard_bot_keeps_to_its_games_playouts_under_the_cap(monkeypatch) -> None:
    bot = get_bot("hard", "slide")  # the suite caps the playouts the platform reads
    assert (bot.iterations, bot.seconds) == (HARD_BUDGET.playouts, HARD_BUDGET.seconds)
    for rules in BUDGETED:
        monkeypatch.setattr(HARD_BUDGET, "playouts", None)
        assert get_bot("hard", rules.slug).iterations == bots_of(rules).playouts
        monkeypatch.setattr(HARD_BUDGET, "playouts", 10**9)
        assert get_bot("hard", rules.slug).iterations == bots_of(rules).playouts


def test_a_forced_move_is_played_without_searching() -> None:
    rules = get_rules("district-noir")
    bot = bots_of(rules).hard(rules, iterations=50, seconds=None)
    only = [{"type": "take"}]
    assert bot.choose({"seat": 0}, only, random.Random(0)) == only[0]
    assert bot.last_iterations == 0
