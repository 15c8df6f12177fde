"""Single elimination (tournaments/pairing/knockout.py): the seeded bracket, the next round
from the winners, and who won a match of 1, 3 or 5 games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.pairing.history import Game
from tournaments.pairing.knockout import (
    Match,
    bracket_order,
    first_round,
    game_seats,
    match_winner,
    next_round,
)


def test_eight_seeds_are_placed_as_a_seeded_bracket():
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]


def test_five_players_leave_three_byes_to_the_top_three_seeds():
    assert first_round([11, 12, 13, 14, 15]) == (
        Match(11),
        Match(14, 15),
        Match(12),
        Match(13),
    )


@settings(max_examples=100, deadline=None)
@given(count=st.integers(2, 64))
def test_when_the_better_seed_always_wins_seed_s_meets_the_mirror_seed(count):
    seeds = list(range(1, count + 1))  # the player's id is their seed
    places = 1 << (count - 1).bit_length()
    matches = first_round(seeds)
    assert len(matches) == places // 2
    assert sorted(m.top for m in matches if m.bottom is None) == seeds[: places - count]
    size = places
    while matches:
        for match in matches:
            assert match.bottom in (None, size + 1 - match.top)
        winners = [match.top for match in matches]
        matches, size = next_round(matches, winners), size // 2
    assert winners == [1]


@settings(max_examples=100, deadline=None)
@given(count=st.integers(2, 64), seed=st.integers(0, 2**32))
def test_any_results_leave_one_champion_after_count_less_one_matches(count, seed):
    rng = random.Random(seed)
    players = rng.sample(range(1, 1000), count)
    matches, played, lost = first_round(players), 0, []
    while True:
        seen = [p for m in matches for p in (m.top, m.bottom) if p is not None]
        assert len(seen) == len(set(seen))
        winners = [m.top if m.bottom is None else rng.choice([m.top, m.bottom]) for m in matches]
        played += sum(m.bottom is not None for m in matches)
        lost += [
            p for m, w in zip(matches, winners) for p in (m.top, m.bottom) if p not in (w, None)
        ]
        following = next_round(matches, winners)
        if not following:
            break
        matches = following
    assert played == count - 1
    assert sorted(lost + winners) == sorted(players)


def win(match_number: int, winner: int, loser: int) -> Game:
    return Game.two_player(match_number, winner, loser, 1)


def draw(match_number: int, a: int, b: int) -> Game:
    return Game.two_player(match_number, a, b, 0.5)


def test_a_best_of_three_is_won_at_two_wins():
    match = Match(1, 2)
    assert match_winner(match, [win(0, 1, 2)], 3) is None
    assert match_winner(match, [win(0, 1, 2), win(0, 2, 1)], 3) is None
    assert match_winner(match, [win(0, 1, 2), win(0, 2, 1), win(0, 2, 1)], 3) == 2
    assert match_winner(match, [win(0, 2, 1), win(0, 2, 1)], 3) == 2


def test_draws_count_half_and_a_level_match_goes_on_until_someone_leads():
    match = Match(1, 2)
    assert match_winner(match, [draw(0, 1, 2)], 1) is None
    assert match_winner(match, [draw(0, 1, 2), win(0, 2, 1)], 1) == 2
    three = [win(0, 1, 2), draw(0, 2, 1), win(0, 2, 1)]  # 1.5 each after three
    assert match_winner(match, three, 3) is None
    assert match_winner(match, [*three, draw(0, 1, 2)], 3) is None
    assert match_winner(match, [*three, draw(0, 1, 2), win(0, 1, 2)], 3) == 1
    assert match_winner(match, [win(0, 1, 2), draw(0, 2, 1), win(0, 1, 2)], 5) is None
    assert match_winner(match, [win(0, 1, 2), draw(0, 2, 1), win(0, 1, 2), draw(0, 1, 2)], 5) == 1


def test_a_forfeit_loses_the_game_and_a_bye_wins_the_match():
    forfeit = Game.forfeited(0, (1, 2), losers=[1])
    assert match_winner(Match(1, 2), [forfeit], 1) == 2
    assert match_winner(Match(7), [], 5) == 7


def test_the_better_seed_plays_first_then_they_take_turns():
    assert [game_seats(Match(1, 2), k).seats for k in range(3)] == [(1, 2), (2, 1), (1, 2)]


def test_a_winner_must_have_played_the_match():
    with pytest.raises(ValueError):
        next_round([Match(1, 2), Match(3, 4)], [1, 5])
    with pytest.raises(ValueError):
        match_winner(Match(1, 2), [win(0, 1, 2)], 2)
