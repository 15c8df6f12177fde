"""A bot sees what a human in its seat would see, and nothing more.

The interface gives a bot the seat's view and legal actions, never a state. So two
different states that look the same from a seat must get the same answer from a bot
with the same random seed, and the search bot builds its states only from the view.
"""

from __future__ import annotations

import inspect
import json
import random

import pytest

from games.bots import BOT_LEVELS
from games.bots.gnav_exact import GnavExactBot
from games.catalog import get_bot, get_game
from games.rules import all_rules
from games.rules.base import Rules, State

LEVELS = ("random", *BOT_LEVELS)


def _snapshot(rules: Rules, state: State) -> str:
    return json.dumps(rules.to_json(state), sort_keys=True)


def _twin_states(rules: Rules, num_players: int, seed: int) -> list[tuple[State, State, int]]:
    """Pairs of different states with the same view for a seat, from a random game."""
    rng = random.Random(seed)
    state = rules.setup(num_players, seed)
    twins = []
    while rules.outcome(state) is None:
        seat = rng.choice(rules.waiting_seats(state))
        view = rules.view(state, seat)
        if len(view["legal_actions"]) > 1 and rng.random() < 0.2:
            for _ in range(20):
                twin = rules.sample_state(view, seat, rng)
                if _snapshot(rules, twin) != _snapshot(rules, state):
                    assert rules.view(twin, seat) == view
                    twins.append((state, twin, seat))
                    break
        state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
    return twins


@pytest.mark.parametrize("rules", all_rules(), ids=lambda rules: rules.slug)
def test_states_that_look_the_same_to_a_seat_get_the_same_move(rules: Rules) -> None:
    twins = _twin_states(rules, rules.min_players if rules.min_players > 1 else 2, seed=11)
    assert len(twins) >= 3, "the game should have states with hidden differences"
    for level in LEVELS:
        bot = get_bot(level, rules.slug)
        for state, twin, seat in twins[:6]:
            chosen = [
                bot.choose(rules.view(s, seat), rules.legal_actions(s, seat), random.Random(99))
                for s in (state, twin)
            ]
            assert chosen[0] == chosen[1], (level, seat)


def test_the_bot_interface_takes_a_view_and_legal_actions_never_a_state() -> None:
    for rules in all_rules():
        for level in LEVELS:
            bot = get_bot(level, rules.slug)
            parameters = list(inspect.signature(bot.choose).parameters)
            assert parameters == ["view", "legal_actions", "rng"]


#: Games whose hard bot searches worlds drawn with ``sample_state``. Gnav's reads its view
#: alone and never touches the rules engine (``test_gnav_exact``).
SAMPLING = [rules for rules in all_rules() if get_game(rules.slug).bots.strong is None]


def test_every_hard_bot_but_gnavs_searches_drawn_worlds() -> None:
    assert {rules.slug for rules in all_rules()} - {rules.slug for rules in SAMPLING} == {"gnav"}
    assert isinstance(get_bot("hard", "gnav"), GnavExactBot)


@pytest.mark.parametrize("rules", SAMPLING, ids=lambda rules: rules.slug)
def test_the_search_bot_builds_its_worlds_only_from_the_view(monkeypatch, rules: Rules) -> None:
    """Every state the hard bot plays on descends from a ``sample_state`` of its own view
    (which it may shorten to the log's latest part)."""
    state = rules.setup(max(2, rules.min_players), 5)
    seat = rules.waiting_seats(state)[0]
    view = rules.view(state, seat)
    drawn: list[State] = []
    applied_to: list[State] = []
    real_sample, real_apply = type(rules).sample_state, type(rules).apply

    def sample(self, view_arg, seat_arg, rng):
        assert seat_arg == seat
        assert {k: v for k, v in view_arg.items() if k != "log"} == {
            k: v for k, v in view.items() if k != "log"
        }
        log = view["log"]
        assert view_arg["log"] == log[len(log) - len(view_arg["log"]) :]
        world = real_sample(self, view_arg, seat_arg, rng)
        drawn.append(world)
        return world

    def apply(self, world, who, action):
        applied_to.append(world)
        new = real_apply(self, world, who, action)
        drawn.append(new)
        return new

    monkeypatch.setattr(type(rules), "sample_state", sample)
    monkeypatch.setattr(type(rules), "apply", apply)
    get_bot("hard", rules.slug).choose(view, view["legal_actions"], random.Random(1))
    assert applied_to, "the search should have played some moves"
    assert all(any(world is d for d in drawn) for world in applied_to)
    assert not any(world is state for world in applied_to)
