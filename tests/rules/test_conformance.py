"""One conformance suite, run over every registered game and player count, and High Card.

Random playouts check the contract of ``games/rules/base.py``: legal actions are
never empty before the end, every offered action applies, nothing else does,
states are never mutated, JSON round-trips, ``sample_state`` agrees with the view it
was drawn from, and ``games.rules.replay`` rebuilds every state from seed and actions.

Every view, a spectator's and each seat's, holds what the platform reads of one (``View``):
its ``seat`` and ``num_players``, ``active_seats``, ``legal_actions`` (the seat's, none for a
spectator), a ``log`` of events that each have a ``type``, ``over`` and, exactly when over,
``outcome``; and exactly the keys the game's own view type declares. High Card, the game
that lives in the tests (tests/fifth_game), keeps the same contract.
"""

from __future__ import annotations

import json
import random
import typing

import pytest

from games.rules import IllegalAction, all_rules
from games.rules.base import AnyRules, State, View
from games.rules.replay import final, replay
from tests.fifth_game.high_card import HighCard

MAX_ACTIONS = 5000
GAMES_PER_COUNT = 12

GAMES: list[AnyRules] = [*all_rules(), HighCard()]
CASES = [
    pytest.param(rules, n, id=f"{rules.slug}-{n}p")
    for rules in GAMES
    for n in range(rules.min_players, rules.max_players + 1)
]


def _snapshot(rules: AnyRules, state: State) -> str:
    return json.dumps(rules.to_json(state), sort_keys=True)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _declared_keys(rules: AnyRules) -> frozenset[str]:
    """The keys of the game's own view type (``Rules[State, ItsView]``), ``outcome`` among them."""
    (base,) = (b for b in type(rules).__orig_bases__ if typing.get_origin(b) is not None)
    view_type = typing.get_args(base)[1]
    return frozenset(typing.get_type_hints(view_type))


def test_the_common_view_is_what_the_platform_reads() -> None:
    hints = typing.get_type_hints(View, include_extras=True)
    optional = {key for key, hint in hints.items() if typing.get_origin(hint) is typing.NotRequired}
    assert optional == {"outcome"}, "only the outcome comes and goes (once the game is over)"
    conventional = "seat num_players active_seats legal_actions log over outcome"
    assert set(hints) == set(conventional.split()), "docs/rules-conventions.md: what a view holds"


def _check_view(
    rules: AnyRules, state: State, view: View, seat: int | None, num_players: int
) -> None:
    """What the platform reads of a view: the keys of ``View``, with their JSON types."""
    outcome = rules.outcome(state)
    assert json.loads(json.dumps(view)) == view, "a view is plain JSON: lists, dicts, scalars"
    keys = set(view)
    assert keys == _declared_keys(rules) - ({"outcome"} if outcome is None else set())
    assert view["seat"] == seat and (seat is None or _is_int(view["seat"]))
    assert _is_int(view["num_players"]) and view["num_players"] == num_players
    assert view["active_seats"] == rules.active_seats(state)
    assert all(_is_int(s) for s in view["active_seats"])
    expected = [] if seat is None else rules.legal_actions(state, seat)
    assert view["legal_actions"] == expected, "the seat's legal actions; none for a spectator"
    assert all(isinstance(a, dict) and isinstance(a.get("type"), str) for a in expected)
    assert isinstance(view["log"], list)
    for event in view["log"]:
        assert isinstance(event, dict) and isinstance(event.get("type"), str), event
    assert view["over"] is (outcome is not None)
    if outcome is not None:
        assert view["outcome"] == outcome.to_json()


def _check_state(rules: AnyRules, state: State, num_players: int, rng: random.Random) -> None:
    data = rules.to_json(state)
    assert _snapshot(rules, rules.from_json(json.loads(json.dumps(data)))) == _snapshot(
        rules, state
    )
    over = rules.outcome(state) is not None
    active = rules.active_seats(state)
    assert (not active) == over, "active seats must be empty exactly when the game is over"
    for seat in [None, *range(num_players)]:
        view = rules.view(state, seat)
        _check_view(rules, state, view, seat, num_players)
        if seat is not None and seat in active:
            assert view["legal_actions"], f"seat {seat} is active but has no legal action"
        elif seat is not None:
            assert view["legal_actions"] == []
    if not over:
        seat = rng.randrange(num_players)
        view = rules.view(state, seat)
        sampled = rules.sample_state(view, seat, rng)
        assert rules.view(sampled, seat) == view, "sample_state must agree with the view"


@pytest.mark.parametrize(("rules", "num_players"), CASES)
def test_random_playouts_keep_the_contract(rules: AnyRules, num_players: int) -> None:
    for game in range(GAMES_PER_COUNT):
        rng = random.Random(game * 7919 + num_players)
        seed = rng.randrange(2**31)
        state = rules.setup(num_players, seed)
        assert _snapshot(rules, rules.setup(num_players, seed)) == _snapshot(rules, state)
        history: list[tuple[int, dict]] = []
        played: list[str] = []  # every state the game went through
        while rules.outcome(state) is None:
            assert len(history) < MAX_ACTIONS, "the game did not end"
            if len(history) % 7 == 0:
                _check_state(rules, state, num_players, rng)
            seat = rng.choice(rules.active_seats(state))
            actions = rules.legal_actions(state, seat)
            action = rng.choice(actions)
            before = _snapshot(rules, state)
            played.append(before)
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

        played.append(_snapshot(rules, state))
        states = replay(rules, num_players, seed, None, history)
        assert [_snapshot(rules, s) for s in states] == played, "a replay goes the same way"
        last = final(replay(rules, num_players, seed, None, history))
        assert _snapshot(rules, last) == played[-1]


@pytest.mark.parametrize(("rules", "num_players"), CASES)
def test_actions_not_offered_are_refused(rules: AnyRules, num_players: int) -> None:
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
