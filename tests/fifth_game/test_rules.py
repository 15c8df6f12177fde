"""High Card's rules on their own: two decisions, one hidden card each, a showdown."""

from __future__ import annotations

import random

import pytest

from games.rules.base import GAME_OVER, NOT_ALLOWED, NOT_YOUR_TURN, IllegalAction
from tests.fifth_game.high_card import KEEP, SWAP, HighCard

RULES = HighCard()


def test_each_player_decides_once_in_turn_then_the_cards_are_compared():
    state = RULES.setup(2, seed=3)
    assert RULES.active_seats(state) == [0]
    assert RULES.legal_actions(state, 0) == [KEEP, SWAP] and RULES.legal_actions(state, 1) == []
    state = RULES.apply(state, 0, SWAP)
    assert RULES.active_seats(state) == [1]
    state = RULES.apply(state, 1, KEEP)
    assert RULES.active_seats(state) == [] and RULES.outcome(state) is not None


def test_a_swap_takes_the_decks_top_card_and_discards_the_old_one_face_up():
    state = RULES.setup(2, seed=3)
    mine, top = state.faces[0], state.faces[2]
    after = RULES.apply(state, 0, SWAP)
    assert RULES.view(after, 0)["cards"][0] == {"id": 2, "rank": top}
    assert RULES.view(after, None)["discard"] == [{"id": 0, "rank": mine}]
    assert RULES.view(after, None)["deck_size"] == RULES.view(state, None)["deck_size"] - 1


def test_a_card_is_seen_by_its_holder_alone_until_the_showdown():
    state = RULES.apply(RULES.setup(2, seed=5), 0, SWAP)
    assert RULES.view(state, None)["cards"] == [None, None]
    assert RULES.view(state, 1)["cards"][0] is None and RULES.view(state, 1)["cards"][1]
    assert "drew" not in RULES.view(state, 1)["log"][0], "the card drawn is the swapper's secret"
    assert RULES.view(state, 0)["log"][0]["drew"] == RULES.view(state, 0)["cards"][0]
    over = RULES.apply(state, 1, KEEP)
    assert None not in RULES.view(over, None)["cards"]


def test_the_higher_card_wins_and_equal_cards_share_first_place():
    outcomes = []
    for seed in range(40):
        state = RULES.setup(2, seed)
        over = RULES.apply(RULES.apply(state, 0, KEEP), 1, KEEP)
        outcomes.append((state.faces[0], state.faces[1], RULES.outcome(over)))
    for first, second, outcome in outcomes:
        assert outcome.scores == [first, second]
        if first == second:
            assert (outcome.ranks, outcome.reason) == ([0, 0], "tie")
        else:
            assert outcome.ranks == ([0, 1] if first > second else [1, 0])
    assert any(first == second for first, second, _ in outcomes), "ties happen"


@pytest.mark.parametrize(
    "seat, action, message",
    [
        (1, KEEP, NOT_YOUR_TURN),
        (0, {"type": "fold"}, NOT_ALLOWED),
        (0, ["keep"], NOT_ALLOWED),
        (0, {"type": "keep", "card": 1}, NOT_ALLOWED),
    ],
)
def test_anything_else_is_refused_with_a_sentence(seat, action, message):
    with pytest.raises(IllegalAction) as refused:
        RULES.apply(RULES.setup(2, seed=1), seat, action)
    assert refused.value.message == message


def test_a_finished_game_takes_no_more_moves():
    state = RULES.apply(RULES.apply(RULES.setup(2, seed=1), 0, KEEP), 1, SWAP)
    with pytest.raises(IllegalAction, match=GAME_OVER):
        RULES.apply(state, 0, KEEP)


def test_states_round_trip_and_a_sample_agrees_with_everything_its_seat_knows():
    rng = random.Random(7)
    for seed in range(30):
        state = RULES.setup(2, seed)
        for seat in (0, 1):
            assert RULES.from_json(RULES.to_json(state)) == state
            view = RULES.view(state, seat)
            sample = RULES.sample_state(view, seat, rng)
            assert RULES.view(sample, seat) == view
            state = RULES.apply(state, seat, rng.choice([KEEP, SWAP]))
        assert RULES.from_json(RULES.to_json(state)) == state
