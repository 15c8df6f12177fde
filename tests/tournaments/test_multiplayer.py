"""Tables of three players or more (tournaments/pairing/multiplayer.py): the tables' sizes,
the fewest repeat opponents there can be (against every seating, for small rounds), the
first seat, and points by place."""

from __future__ import annotations

import random
from functools import partial
from itertools import combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.tournaments import partitions, play, times_met
from tournaments.pairing.history import Game, build_histories
from tournaments.pairing.multiplayer import Split, pair_tables, points_by_place, table_sizes

#: (preferred, minimum, maximum) of each game: Slide 2-6, Point City 2-4, Gnav exactly 4.
GAMES = {"slide": (4, 2, 6), "slide-3": (3, 2, 6), "point-city": (3, 2, 4), "gnav": (4, 4, 4)}


def every_split(count: int, minimum: int, maximum: int) -> list[tuple[int, ...]]:
    """Every multiset of allowed table sizes that seats exactly ``count``."""
    found = []
    for tables in range(1, count // minimum + 1):
        for sizes in combinations_with_replacement(range(minimum, maximum + 1), tables):
            if sum(sizes) == count:
                found.append(sizes)
    return found


@pytest.mark.parametrize("game", GAMES)
def test_table_sizes_seat_everyone_they_can_nearest_the_size_asked_for(game):
    preferred, minimum, maximum = GAMES[game]
    for count in range(0, 65):
        split = table_sizes(count, preferred, minimum, maximum)
        assert sum(split.sizes) + split.byes == count
        assert all(minimum <= size <= maximum for size in split.sizes)
        if count % preferred == 0:
            assert split == Split(sizes=(preferred,) * (count // preferred))
        options = every_split(count, minimum, maximum)
        if options:
            assert split.byes == 0
            gap = min(max(abs(s - preferred) for s in o) for o in options)
            assert max(abs(s - preferred) for s in split.sizes) == gap
        else:
            # The fewest byes: with one fewer, no split would fit.
            assert every_split(count - split.byes, minimum, maximum) or split.byes == count
            assert split.byes == 0 or not every_split(count - split.byes + 1, minimum, maximum)


def test_five_at_gnav_is_one_table_and_a_bye():
    assert table_sizes(5, 4, 4, 4) == Split(sizes=(4,), byes=1)
    assert table_sizes(3, 4, 4, 4) == Split(sizes=(), byes=3)
    assert table_sizes(7, 3, 2, 4) == Split(sizes=(4, 3))


def pairer(game: str):
    preferred, minimum, maximum = GAMES[game]
    return partial(pair_tables, preferred=preferred, minimum=minimum, maximum=maximum)


@settings(max_examples=60, deadline=None)
@given(
    game=st.sampled_from(sorted(GAMES)),
    count=st.integers(2, 64),
    rounds=st.integers(1, 6),
    seed=st.integers(0, 2**32),
)
def test_everyone_sits_once_and_the_byes_go_round(game, count, rounds, seed):
    tournament = play(random.Random(seed), count, rounds, pairer(game), withdraw=0.2)
    preferred, minimum, maximum = GAMES[game]
    for histories, paired in tournament.rounds:
        assert sorted(paired.players()) == sorted(histories)
        split = table_sizes(len(histories), preferred, minimum, maximum)
        assert sorted(len(t.seats) for t in paired.tables) == sorted(split.sizes)
        # The byes: to those who have had the fewest.
        if paired.byes:
            most = max(histories[p].byes for p in paired.byes)
            seated = [histories[p].byes for t in paired.tables for p in t.seats]
            assert min(seated, default=most) >= most


@settings(max_examples=60, deadline=None)
@given(
    game=st.sampled_from(sorted(GAMES)),
    count=st.integers(2, 64),
    rounds=st.integers(1, 6),
    seed=st.integers(0, 2**32),
)
def test_the_first_seat_goes_to_whoever_at_the_table_has_been_first_least(
    game, count, rounds, seed
):
    tournament = play(random.Random(seed), count, rounds, pairer(game))
    for histories, paired in tournament.rounds:
        for table in paired.tables:
            firsts = [histories[p].firsts for p in table.seats]
            assert firsts[0] == min(firsts)


@settings(max_examples=120, deadline=None)
@given(
    game=st.sampled_from(sorted(GAMES)),
    count=st.integers(2, 10),
    rounds=st.integers(1, 6),
    seed=st.integers(0, 2**32),
)
def test_no_seating_repeats_fewer_opponents(game, count, rounds, seed):
    tournament = play(random.Random(seed), count, rounds, pairer(game))
    for number, (_, paired) in enumerate(tournament.rounds):
        met = times_met([g for g in tournament.games if g.round < number])
        seated = sorted(p for t in paired.tables for p in t.seats)
        sizes = [len(t.seats) for t in paired.tables]
        every = [repeats(tables, met) for tables in partitions(seated, sizes)] if sizes else [0]
        assert repeats([t.seats for t in paired.tables], met) == min(every)


def repeats(tables, met) -> int:
    """Games already played together, over every pair that sits at the same table."""
    return sum(met[frozenset((a, b))] for t in tables for a in t for b in t if a < b)


def test_the_leaders_sit_together_when_nobody_has_met():
    ratings = {p: 2000.0 - p for p in range(1, 9)}
    paired = pair_tables(
        list(build_histories(ratings, []).values()), preferred=4, minimum=4, maximum=4
    )
    assert [sorted(t.seats) for t in paired.tables] == [[1, 2, 3, 4], [5, 6, 7, 8]]


def test_the_second_round_breaks_up_the_first_rounds_tables():
    ratings = {p: 2000.0 - p for p in range(1, 9)}
    games = [Game(0, (1, 2, 3, 4), (1, 2, 3, 4)), Game(0, (5, 6, 7, 8), (1, 2, 3, 4))]
    paired = pair_tables(
        list(build_histories(ratings, games).values()), preferred=4, minimum=4, maximum=4
    )
    assert all(len(set(t.seats) & {1, 2, 3, 4}) == 2 for t in paired.tables)


def test_points_by_place_share_ties():
    assert points_by_place((1, 2, 3, 4)) == (3, 2, 1, 0)
    assert points_by_place((3, 1, 2)) == (0, 2, 1)
    assert points_by_place((1, 1, 3, 4)) == (2.5, 2.5, 1, 0)
    assert points_by_place((2, 1)) == (0, 1)
    assert points_by_place((1, 1)) == (0.5, 0.5)
    assert points_by_place((1, 2, 2, 4), scale=(10, 6, 3, 0)) == (10, 4.5, 4.5, 0)
    assert points_by_place((1, 2, 2, 2)) == (3, 1, 1, 1)


@settings(max_examples=20, deadline=None)
@given(
    game=st.sampled_from(sorted(GAMES)),
    count=st.integers(32, 64),
    rounds=st.integers(1, 3),
    seed=st.integers(0, 2**32),
)
def test_a_large_round_meets_no_one_twice_in_the_first_rounds(game, count, rounds, seed):
    """Above multiplayer.EXACT_LIMIT the seating is searched, not proven: in a few rounds
    of many players, meeting no one twice is easy, and it must find it."""
    tournament = play(random.Random(seed), count, rounds, pairer(game))
    assert max(times_met(tournament.games).values()) == 1
