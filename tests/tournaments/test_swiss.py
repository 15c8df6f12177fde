"""The Swiss pairing (tournaments/pairing/swiss.py), from its rules: everyone paired once,
no pair twice while another pairing exists, one bye each, equal scores together, the
first seat to whoever has been first less; checked against every possible pairing for
small tournaments."""

from __future__ import annotations

import random
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.tournaments import (
    pairings,
    play,
    round_pairs,
    seat_balance,
    times_met,
    two_player_points,
)
from tournaments.pairing import swiss
from tournaments.pairing.history import Bye, Game, PlayerHistory, build_histories
from tournaments.pairing.swiss import pair_swiss

seeds = st.integers(0, 2**32)


@settings(max_examples=40, deadline=None)
@given(count=st.integers(2, 64), rounds=st.integers(1, 6), seed=seeds)
def test_every_player_is_paired_once_and_only_an_odd_count_has_a_bye(count, rounds, seed):
    tournament = play(random.Random(seed), count, rounds, pair_swiss, withdraw=0.2)
    for histories, paired in tournament.rounds:
        assert sorted(paired.players()) == sorted(histories)
        assert all(len(table.seats) == 2 for table in paired.tables)
        assert len(paired.byes) == len(histories) % 2


@settings(max_examples=40, deadline=None)
@given(count=st.integers(2, 64), rounds=st.integers(1, 6), seed=seeds)
def test_in_a_few_rounds_no_pair_meets_twice_and_no_one_has_two_byes(count, rounds, seed):
    # Fewer rounds than half the players: a pairing without repeats or a second bye exists.
    rounds = min(rounds, max(1, count // 2 - 1))
    tournament = play(random.Random(seed), count, rounds, pair_swiss)
    assert max(times_met(tournament.games).values(), default=0) <= 1
    byes = [bye.player for bye in tournament.byes]
    assert len(byes) == len(set(byes))


@settings(max_examples=40, deadline=None)
@given(count=st.integers(2, 64), rounds=st.integers(1, 6), seed=seeds)
def test_whoever_has_been_first_less_goes_first(count, rounds, seed):
    tournament = play(random.Random(seed), count, rounds, pair_swiss)
    for histories, paired in tournament.rounds:
        for table in paired.tables:
            first, second = (histories[p] for p in table.seats)
            assert first.seat_balance <= second.seat_balance


@settings(max_examples=20, deadline=None)
@given(count=st.integers(2, 64), rounds=st.integers(0, 5), seed=seeds)
def test_the_same_input_gives_the_same_round(count, rounds, seed):
    tournament = play(random.Random(seed), count, rounds, pair_swiss)
    players = list(tournament.active().values())
    expected = pair_swiss(players)
    random.Random(seed).shuffle(players)
    assert pair_swiss(players) == expected
    assert pair_swiss(list(reversed(players))) == expected


# Against every pairing there is (up to ten players, up to eight rounds: repeats and
# second byes become unavoidable, and the rules' order must still hold).


def best_pairings(games: list[Game], byes: list[Bye], players: list[int]):
    """The pairings the hard rules allow, each rule narrowing the previous one's: the fewest
    games repeated; then, when there is a bye, to a player who has had the fewest; then to
    the lowest score among those."""
    met = times_met(games)
    had = {p: sum(bye.player == p for bye in byes) for p in players}
    points = two_player_points(games, byes)
    options = list(pairings(players))

    def repeats(option):
        return sum(met[pair] for pair in option[0])

    least = min(map(repeats, options))
    options = [o for o in options if repeats(o) == least]
    if options[0][1] is not None:
        fewest = min(had[o[1]] for o in options)
        options = [o for o in options if had[o[1]] == fewest]
        lowest = min(points[o[1]] for o in options)
        options = [o for o in options if points[o[1]] == lowest]
    return options, met, points


@settings(max_examples=150, deadline=None)
@given(count=st.integers(2, 10), rounds=st.integers(1, 8), seed=seeds)
def test_the_pairing_keeps_the_hard_rules_whenever_any_pairing_can(count, rounds, seed):
    tournament = play(random.Random(seed), count, rounds, pair_swiss)
    for number, (histories, paired) in enumerate(tournament.rounds):
        games = [g for g in tournament.games if g.round < number]
        byes = [b for b in tournament.byes if b.round < number]
        allowed, _, points = best_pairings(games, byes, sorted(histories))
        chosen = (round_pairs(paired), paired.byes[0] if paired.byes else None)
        assert chosen in allowed
        if chosen[1] is None:
            continue
        # The bye: to the lowest-standing player of the lowest score that can take it.
        same_score = [o[1] for o in allowed if points[o[1]] == points[chosen[1]]]
        assert chosen[1] in same_score


@settings(max_examples=150, deadline=None)
@given(count=st.integers(2, 10), rounds=st.integers(1, 8), seed=seeds)
def test_equal_scores_play_each_other_whenever_the_hard_rules_allow(count, rounds, seed):
    tournament = play(random.Random(seed), count, rounds, pair_swiss)
    for number, (histories, paired) in enumerate(tournament.rounds):
        games = [g for g in tournament.games if g.round < number]
        byes = [b for b in tournament.byes if b.round < number]
        allowed, _, points = best_pairings(games, byes, sorted(histories))
        if any(across(pairs, points) == 0 for pairs, _ in allowed):
            assert across(round_pairs(paired), points) == 0


def across(pairs, points) -> int:
    """How many pairs join two different scores."""
    return sum(len({points[p] for p in pair}) > 1 for pair in pairs)


def test_a_first_round_pairs_neighbours_in_rating_and_gives_the_bye_to_the_lowest():
    ratings = {1: 1500.0, 2: 1400.0, 3: 1300.0, 4: 1200.0, 5: 1100.0}
    paired = pair_swiss(list(build_histories(ratings, []).values()))
    assert paired.byes == (5,)
    assert round_pairs(paired) == {frozenset((1, 2)), frozenset((3, 4))}


def test_the_bye_skips_the_player_who_has_had_one():
    ratings = {1: 1500.0, 2: 1400.0, 3: 1300.0}
    games = [Game.two_player(0, 1, 2, 1)]
    byes = [Bye(0, 3)]
    # 3 (1 point, a bye) and 2 (0 points) are last; 2 has had no bye.
    paired = pair_swiss(list(build_histories(ratings, games, byes).values()))
    assert paired.byes == (2,)
    assert round_pairs(paired) == {frozenset((1, 3))}


def test_a_repeat_is_played_only_when_no_other_pairing_exists():
    ratings = {1: 1500.0, 2: 1400.0}
    games = [Game.two_player(0, 1, 2, 1)]
    paired = pair_swiss(list(build_histories(ratings, games).values()))
    assert round_pairs(paired) == {frozenset((1, 2))}
    # 2 was second last time: now first.
    assert paired.tables[0].seats == (2, 1)


def test_seat_balance_stays_within_one_when_scores_allow_it():
    """Eight players, all draws: every score stays equal, so the seat decides."""
    rng = random.Random(3)
    ratings = {p: 1000.0 + p for p in range(1, 9)}
    games: list[Game] = []
    for number in range(5):
        histories: dict[int, PlayerHistory] = build_histories(ratings, games)
        for table in pair_swiss(list(histories.values())).tables:
            games.append(Game.two_player(number, *table.seats, 0.5))
        rng.random()
    assert max(abs(b) for b in seat_balance(games).values()) <= 1


@settings(max_examples=4, deadline=None)
@given(count=st.integers(65, 140), rounds=st.integers(1, 4), seed=seeds)
def test_a_large_tournament_keeps_the_rules_too(count, rounds, seed):
    """Above 64 players the graph is sparse (swiss.DENSE_LIMIT): the same rules hold."""
    tournament = play(random.Random(seed), count, rounds, pair_swiss)
    for histories, paired in tournament.rounds:
        assert sorted(paired.players()) == sorted(histories)
    assert max(times_met(tournament.games).values()) == 1
    byes = [bye.player for bye in tournament.byes]
    assert len(byes) == len(set(byes))


@settings(max_examples=6, deadline=None)
@given(count=st.integers(65, 110), rounds=st.integers(1, 6), seed=seeds)
def test_the_sparse_graph_pairs_as_well_as_every_pair(count, rounds, seed):
    """Repeats, the bye and the score gaps come out as the complete graph's would."""
    tournament = play(random.Random(seed), count, rounds, pair_swiss)
    for histories, paired in tournament.rounds:
        with patch.object(swiss, "DENSE_LIMIT", 10_000):
            exact = pair_swiss(list(histories.values()))
        assert quality(paired, histories) == quality(exact, histories)


def quality(paired, histories):
    """(games repeated, the bye's byes and points, the sum of the squared score gaps)."""
    pairs = [[histories[p] for p in table.seats] for table in paired.tables]
    return (
        sum(a.times_met(b.id) for a, b in pairs),
        [(histories[p].byes, histories[p].points) for p in paired.byes],
        sum((a.points - b.points) ** 2 for a, b in pairs),
    )
