"""One conformance suite, run over every registered game and player count.

Random playouts check the contract of ``games/rules/base.py``: legal actions are
never empty before the end, every offered action applies, nothing else does,
states are never mutated, JSON round-trips, views are JSON and carry the seat's
legal actions, ``sample_state`` agrees with the view it was drawn from, and the
game replays exactly from seed and actions.
"""

from __future__ import annotations

import json
import random

import pytest

from games.rules import IllegalAction, all_rules
from games.rules.base import Rules, State

MAX_ACTIONS = 5000
GAMES_PER_COUNT = 12

CASES = [
    pytest.param(rules, n, id=f"{rules.slug}-{n}p")
    for rules in all_rules()
    for n in range(rules.min_players, rules.max_players + 1)
]


def _snapshot(rules: Rules, state: State) -> str:
    return json.dumps(rules.to_json(state), sort_keys=True)


def _check_state(rules: Rules, state: State, num_players: int, rng: random.Random) -> None:
    data = rules.to_json(state)
    assert _snapshot(rules, rules.from_json(json.loads(json.dumps(data)))) == _snapshot(
        rules, state
    )
    over = rules.outcome(state) is not None
    active = rules.active_seats(state)
    assert (not active) == over, "active seats must be empty exactly when the game is over"
    for seat in [None, *range(num_players)]:
        view = rules.view(state, seat)
        json.dumps(view)
        assert "log" in view
        if seat is None:
            continue
        assert view["legal_actions"] == rules.legal_actions(state, seat)
        if seat in active:
            assert view["legal_actions"], f"seat {seat} is active but has no legal action"
        else:
            assert view["legal_actions"] == []
    if not over:
        seat = rng.randrange(num_players)
        view = rules.view(state, seat)
        sampled = rules.sample_state(view, seat, rng)
        assert rules.view(sampled, seat) == view, "sample_state must agree with the view"


@pytest.mark.parametrize(("rules", "num_players"), CASES)
def test_random_playouts_keep_the_contract(rules: Rules, num_players: int) -> None:
    for game in range(GAMES_PER_COUNT):
        rng = random.Random(game * 7919 + num_players)
        seed = rng.randrange(2**31)
        state = rules.setup(num_players, seed)
        assert _snapshot(rules, rules.setup(num_players, seed)) == _snapshot(rules, state)
        history: list[tuple[int, dict]] = []
        while rules.outcome(state) is None:
            assert len(history) < MAX_ACTIONS, "the game did not end"
            if len(history) % 7 == 0:
                _check_state(rules, state, num_players, rng)
            seat = rng.choice(rules.active_seats(state))
            actions = rules.legal_actions(state, seat)
            action = rng.choice(actions)
            before = _snapshot(rules, state)
            new_state = rules.apply(state, seat, json.loads(json.dumps(action)))
            assert _snapshot(rules, state) == before, "apply mutated its input"
            history.append((seat, action))
            state = new_state
        _check_state(rules, state, num_players, rng)
        outcome = rules.outcome(state)
        assert len(outcome.ranks) == len(outcome.scores) == num_players
        if num_players == 1:  # won or lost against the game (games/rules/base.py: Outcome)
            assert outcome.ranks == [0 if outcome.details["solo"]["won"] else 1]
        else:
            assert min(outcome.ranks) == 0
        json.dumps(outcome.to_json())

        replayed = rules.setup(num_players, seed)
        for seat, action in history:
            replayed = rules.apply(replayed, seat, action)
        assert _snapshot(rules, replayed) == _snapshot(rules, state)


@pytest.mark.parametrize(("rules", "num_players"), CASES)
def test_actions_not_offered_are_refused(rules: Rules, num_players: int) -> None:
    rng = random.Random(num_players)
    state = rules.setup(num_players, 12345)
    for _ in range(60):
        if rules.outcome(state) is not None:
            break
        active = rules.active_seats(state)
        idle = [s for s in range(num_players) if s not in active]
        for bad in [None, "take", 7, [], {}, {"type": "no-such-move"}, {"type": None}]:
            with pytest.raises(IllegalAction):
                rules.apply(state, active[0], bad)  # type: ignore[arg-type]
        if idle:
            offered = rules.legal_actions(state, active[0])[0]
            with pytest.raises(IllegalAction):
                rules.apply(state, idle[0], offered)
        seat = rng.choice(active)
        state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
    finished = state
    while rules.outcome(finished) is None:
        seat = rng.choice(rules.active_seats(finished))
        finished = rules.apply(finished, seat, rng.choice(rules.legal_actions(finished, seat)))
    with pytest.raises(IllegalAction):
        rules.apply(finished, 0, {"type": "play"})


def test_every_game_has_a_unique_slug_and_a_sane_seat_range() -> None:
    slugs = [rules.slug for rules in all_rules()]
    assert len(slugs) == len(set(slugs))
    for rules in all_rules():
        assert 1 <= rules.min_players <= rules.max_players <= 6
