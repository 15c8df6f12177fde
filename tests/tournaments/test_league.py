"""The league (tournaments/pairing/league.py): divisions of round-robin groups of about ten;
at a season's end the top two of each group go up, the bottom two go down, everyone who
stays is entered again and the new players join the lowest division."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.pairing.league import League, league_next_season, league_start, movers


def division_of(league: League) -> dict[int, int]:
    return {p: level for level, d in enumerate(league.divisions) for p in d.players()}


def test_the_first_season_fills_divisions_of_ten_from_the_top():
    league = league_start(list(range(1, 25)))
    assert league.divisions[0].players() == tuple(range(1, 11))
    assert [len(g) for g in league.divisions[1].groups] == [7, 7]


def test_two_go_up_and_two_go_down():
    league = league_start(list(range(1, 21)))
    top, bottom = league.divisions[0].groups[0], league.divisions[1].groups[0]
    results = {top: sorted(top), bottom: sorted(bottom)}
    following = league_next_season(league, results, leaving={5}, joining=[99])
    assert set(following.divisions[0].players()) == {1, 2, 3, 4, 6, 7, 8, 11, 12}
    assert set(following.divisions[1].players()) == {9, 10, *range(13, 21), 99}


def test_groups_of_five_or_fewer_move_one_each_way():
    assert [movers(size) for size in range(1, 8)] == [0, 0, 1, 1, 1, 2, 2]


@settings(max_examples=100, deadline=None)
@given(count=st.integers(2, 80), seasons=st.integers(1, 4), seed=st.integers(0, 2**32))
def test_each_group_sends_its_top_up_and_its_bottom_down(count, seasons, seed):
    rng = random.Random(seed)
    league = league_start(rng.sample(range(1, 1000), count))
    fresh = iter(range(1000, 2000))
    for _ in range(seasons):
        groups = [g for d in league.divisions for g in d.groups]
        assert all(len(g) <= 10 for g in groups)
        results = {g: tuple(rng.sample(g, len(g))) for g in groups}
        everyone = [p for g in groups for p in g]
        leaving = set(rng.sample(everyone, rng.randint(0, len(everyone) // 5)))
        joining = [next(fresh) for _ in range(rng.randint(0, 12))]
        following = league_next_season(league, results, leaving=leaving, joining=joining)

        after = division_of(following)
        assert len(following.divisions) == len(league.divisions)
        assert sorted(after) == sorted([p for p in everyone if p not in leaving] + joining)
        lowest = len(league.divisions) - 1
        for level, division in enumerate(league.divisions):
            for group in division.groups:
                ranked, moving = results[group], movers(len(group))
                up = ranked[:moving] if level > 0 else ()
                down = ranked[len(ranked) - moving :] if level < lowest and moving else ()
                for player in set(ranked) - leaving:
                    went = after[player] - level
                    assert went == (-1 if player in up else 1 if player in down else 0)
        assert all(after[p] == lowest for p in joining)
        league = following
