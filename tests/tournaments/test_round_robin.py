"""Round robin (tournaments/pairing/round_robin.py): groups of at most ten, dealt by rating
like a snake; in each group everyone meets everyone exactly once, one round at a time, a
bye each round when the group is odd, and the first seat balanced within one."""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.tournaments import ratings_for
from tournaments.pairing.round_robin import berger_schedule, groups_by_rating, round_robin


@settings(max_examples=100, deadline=None)
@given(count=st.integers(2, 64), seed=st.integers(0, 2**32))
def test_groups_hold_everyone_at_most_ten_and_as_even_as_possible(count, seed):
    ratings = ratings_for(random.Random(seed), count)
    groups = groups_by_rating(ratings)
    assert sorted(p for group in groups for p in group) == sorted(ratings)
    assert len(groups) == math.ceil(count / 10)
    sizes = [len(group) for group in groups]
    assert max(sizes) <= 10
    assert max(sizes) - min(sizes) <= 1


def test_the_snake_deals_the_seeds_out_and_back():
    ratings = {p: 100.0 - p for p in range(1, 13)}  # 1 the best ... 12 the weakest
    assert groups_by_rating(ratings) == ((1, 4, 5, 8, 9, 12), (2, 3, 6, 7, 10, 11))


@settings(max_examples=100, deadline=None)
@given(count=st.integers(2, 64), seed=st.integers(0, 2**32))
def test_everyone_meets_everyone_in_their_group_exactly_once(count, seed):
    for group in round_robin(ratings_for(random.Random(seed), count)):
        size = len(group.players)
        assert len(group.rounds) == (size if size % 2 else size - 1)
        met = Counter(frozenset(table.seats) for paired in group.rounds for table in paired.tables)
        assert set(met) == {frozenset(pair) for pair in combinations(group.players, 2)}
        assert set(met.values()) == {1}
        for paired in group.rounds:
            assert sorted(paired.players()) == sorted(group.players)
            assert len(paired.byes) == size % 2
        byes = [p for paired in group.rounds for p in paired.byes]
        assert len(byes) == len(set(byes))


def test_the_first_seat_is_balanced_within_one_over_the_schedule():
    for size in range(2, 21):
        firsts, games = Counter(), Counter()
        for paired in berger_schedule(list(range(100, 100 + size))):
            for table in paired.tables:
                firsts[table.seats[0]] += 1
                games.update(table.seats)
        assert all(abs(2 * firsts[p] - games[p]) <= 1 for p in games), size


def test_a_schedule_is_the_same_for_the_same_group():
    assert berger_schedule([5, 3, 9]) == berger_schedule([5, 3, 9])
    assert berger_schedule([1]) == ()
