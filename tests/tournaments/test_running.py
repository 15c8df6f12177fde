"""Whole tournaments of every format run through the services and beat's sweep to their end
(#29.3, #29.7): the games finished through games' services as players and clocks finish them,
their ends counted from games' events; then every standing is worked out again here from the
stored results (tests/support/tournament_runs.py) and compared with what was stored, and the
winner, the number of rounds and each format's pairing rules are checked."""

from __future__ import annotations

import functools
import random
from collections import Counter

import pytest

from games.models import Seat
from tests.support.tournament_runs import (
    Played,
    assert_fewest_repeat_opponents,
    assert_stored,
    assert_swiss_rules,
    assert_timeouts_lost,
    game_events_for_tournaments,
    games_of,
    groups_played,
    met_counts,
    multiplayer_lines,
    round_robin_lines,
    rounds_of,
    run_to_end,
    seat_balance,
    stored_results,
    swiss_lines,
    table_points,
    tournament_made,
    tournament_tables,
    winner_expected,
)
from tournaments.models import Entry, Format, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def capture(django_capture_on_commit_callbacks):
    with game_events_for_tournaments():
        yield django_capture_on_commit_callbacks


def _players(make_user, count: int) -> list:
    return [make_user() for _ in range(count)]


def _finished(tournament: Tournament) -> Tournament:
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.finished_at is not None
    return tournament


def _seeds(tournament: Tournament) -> dict[int, int]:
    return dict(Entry.objects.filter(tournament=tournament).values_list("user_id", "seed"))


def test_a_swiss_runs_its_rounds_to_the_end_and_every_standing_is_its_results(make_user, capture):
    players = _players(make_user, 7)
    tournament = tournament_made(creator=make_user(), players=players, rounds=4)
    # The third game of round one is the last one running: its clock runs out through the
    # deadline sweep (the others' through the timeout it calls, for that seat alone).
    first = ("moves", "lost", "timeout")
    ways = run_to_end(tournament, rng=random.Random(29), capture=capture, first=first)
    tournament = _finished(tournament)
    assert ways[:3] == ["moves", "lost", "swept timeout"] and len(ways) == 12

    rounds = rounds_of(tournament)
    assert [r.number for r in rounds] == [1, 2, 3, 4]
    assert all(r.closed_at is not None for r in rounds)
    results = stored_results(tournament)
    ids = {p.pk for p in players}
    for number in range(1, 5):
        this = [r for r in results if r.round == number]
        # Seven players: three games and a bye every round, everyone once.
        assert sorted(len(r.seats) for r in this) == [1, 2, 2, 2]
        assert sorted(p for r in this for p in r.seats) == sorted(ids)
    assert_swiss_rules(results, {n: ids for n in range(1, 5)})
    # (No second bye while a pairing as free of repeats gives it to someone new: checked there.)
    assert len({r.seats[0] for r in results if r.bye}) >= 3
    assert assert_timeouts_lost(results) >= 1

    lines = swiss_lines(ids, results)
    assert_stored(tournament, lines)
    assert tournament.winner_id == winner_expected(lines, _seeds(tournament), set(), {})
    assert lines[tournament.winner_id].rank == 1


# Cheaper ways for the long runs: mostly played out, some games played or timed out to the end.
QUICK = (("play_out", 0.85), ("moves", 0.05), ("timeout", 0.1))


def test_a_round_robin_of_eleven_plays_two_groups_everyone_once_seats_balanced(make_user, capture):
    players = _players(make_user, 11)
    tournament = tournament_made(
        creator=make_user(), players=players, format=Format.ROUND_ROBIN, rounds=None
    )
    run_to_end(tournament, rng=random.Random(7), capture=capture, ways=QUICK, first=["timeout"])
    tournament = _finished(tournament)
    results = stored_results(tournament)
    entries = list(Entry.objects.filter(tournament=tournament))
    stored_groups = sorted(
        ({e.user_id for e in entries if e.group == g} for g in {e.group for e in entries}), key=min
    )
    groups = groups_played(results)
    # More than ten: two groups, as even as can be, each its own round robin.
    assert groups == stored_groups and sorted(map(len, groups)) == [5, 6]
    met = met_counts(results)
    for group in groups:
        pairs = {frozenset((a, b)) for a in group for b in group if a < b}
        assert {pair for pair in met if pair <= group} == pairs
    assert set(met.values()) == {1} and sum(met.values()) == 15 + 10
    # Six play five rounds, five play five with a rest each: five rounds.
    assert [r.number for r in rounds_of(tournament)] == [1, 2, 3, 4, 5]
    rests = Counter(r.seats[0] for r in results if r.bye)
    odd = next(g for g in groups if len(g) == 5)
    assert set(rests) == odd and set(rests.values()) == {1}
    # Over the schedule, each player's first seats and other seats differ by one at most.
    assert all(abs(b) <= 1 for b in seat_balance(results).values())

    lines = {}
    for group in groups:
        group_lines = round_robin_lines(group, results)
        assert all(
            group_lines[p].points
            == sum(
                table_points(r.places)[r.seats.index(p)] for r in games_of(results) if p in r.seats
            )
            for p in group
        )  # a rest is no points
        lines.update(group_lines)
    assert_stored(tournament, lines)
    assert tournament.winner_id == winner_expected(lines, _seeds(tournament), set(), {})


@pytest.mark.parametrize(
    ("game", "table_size", "count", "rounds"),
    [("slide", 3, 7, 3), ("point-city", 4, 10, 2), ("gnav", 4, 9, 3)],
)
def test_multiplayer_rounds_run_to_the_end_with_points_by_place(
    make_user, capture, game, table_size, count, rounds
):
    players = _players(make_user, count)
    tournament = tournament_made(
        creator=make_user(),
        players=players,
        game=game,
        format=Format.MULTIPLAYER,
        table_size=table_size,
        rounds=rounds,
    )
    ways = run_to_end(
        tournament,
        rng=random.Random(count),
        capture=capture,
        ways=QUICK,
        first=["timeout", "moves"],
    )
    tournament = _finished(tournament)
    results = stored_results(tournament)
    ids = {p.pk for p in players}
    assert [r.number for r in rounds_of(tournament)] == list(range(1, rounds + 1))
    for number in range(1, rounds + 1):
        this = [r for r in results if r.round == number]
        assert sorted(p for r in this for p in r.seats) == sorted(ids)
        assert all(2 <= len(r.seats) <= table_size for r in games_of(this))
    if game == "gnav":  # exactly four a table: nine is two tables and a bye
        assert all(len(r.seats) in (1, 4) for r in results)
    byes = Counter(r.seats[0] for r in results if r.bye)
    assert max(byes.values(), default=0) <= 1
    assert_fewest_repeat_opponents(results)
    # The first seat: to whoever at the table had been first least.
    for r in games_of(results):
        before = Counter(g.seats[0] for g in games_of(results) if g.round < r.round)
        assert before[r.seats[0]] == min(before[p] for p in r.seats)
    assert assert_timeouts_lost(results) >= 1 and ways[1] == "moves"

    lines = multiplayer_lines(ids, results, table_size)
    assert_stored(tournament, lines)
    assert tournament.winner_id == winner_expected(lines, _seeds(tournament), set(), {})


def _knockout_checked(
    tournament: Tournament, results: list[Played], seeds: dict[int, int], best_of: int
) -> list[int]:
    """The bracket from the stored games: the byes to the top seeds, seed s against the mirror
    seed, each match's games alternating who plays first (in game one the better seed), no
    game once a match is won (more than half of ``best_of`` points, or a lead after them), and
    each round the winners of neighbouring matches. The champion, then the finalist."""
    size = 1 << (len(seeds) - 1).bit_length()
    numbers = sorted({r.round for r in results})
    assert numbers == list(range(1, size.bit_length()))
    previous: list[int] = []
    for number in numbers:
        matches: dict[int, list[Played]] = {}
        for r in results:
            if r.round == number:
                matches.setdefault(r.group, []).append(r)
        winners, pairs = [], []
        for group in sorted(matches):
            games = sorted(matches[group], key=lambda g: g.game_number)
            if games[0].bye:
                assert number == 1 and len(games) == 1
                assert seeds[games[0].seats[0]] <= size - len(seeds)
                winners.append(games[0].seats[0])
                pairs.append({games[0].seats[0]})
                continue
            top, bottom = games[0].seats
            assert seeds[top] < seeds[bottom]  # the better seed plays first in game one
            if number == 1:
                assert seeds[top] + seeds[bottom] == size + 1
            else:
                assert {top, bottom} == {previous[2 * group], previous[2 * group + 1]}
            score = {top: 0.0, bottom: 0.0}
            winner = None
            for k, game in enumerate(games, start=1):
                assert winner is None, "a game played after the match was won"
                assert game.game_number == k
                assert game.seats == ((top, bottom) if k % 2 else (bottom, top))
                for player, earned in zip(game.seats, table_points(game.places), strict=True):
                    score[player] += earned
                leader = max(score, key=lambda p: score[p])
                if score[leader] > min(score.values()) and (
                    score[leader] > best_of / 2 or k >= best_of
                ):
                    winner = leader
            assert winner is not None
            if best_of == 3:
                assert len(games) >= 2  # two wins end it; never one game
            winners.append(winner)
            pairs.append({top, bottom})
        if previous:
            assert pairs == [{previous[k], previous[k + 1]} for k in range(0, len(previous), 2)]
        previous = winners
    assert len(previous) == 1
    final = next(r for r in results if r.round == numbers[-1])
    return [previous[0], *(p for p in final.seats if p != previous[0])]


@pytest.mark.parametrize(("best_of", "count"), [(1, 6), (3, 5)])
def test_a_knockout_advances_each_match_winner_to_the_final(make_user, capture, best_of, count):
    players = _players(make_user, count)
    tournament = tournament_made(
        creator=make_user(),
        players=players,
        format=Format.KNOCKOUT,
        rounds=None,
        match_games=best_of,
    )
    run_to_end(tournament, rng=random.Random(best_of), capture=capture, first=["timeout"])
    tournament = _finished(tournament)
    results = stored_results(tournament)
    seeds = _seeds(tournament)
    assert sorted(seeds.values()) == list(range(1, count + 1))
    champion, finalist = _knockout_checked(tournament, results, seeds, best_of)
    assert tournament.winner_id == champion
    # The standing: the further a player went, the better (the champion first), then points.
    reached = {p: max(r.round for r in results if p in r.seats) for p in seeds}
    points = Counter()
    for r in games_of(results):
        for player, earned in zip(r.seats, table_points(r.places), strict=True):
            points[player] += earned
    key = {p: (-(reached[p] + (p == champion)), -points[p]) for p in seeds}
    entries = {e.user_id: e for e in Entry.objects.filter(tournament=tournament)}
    for player in seeds:
        rank = 1 + sum(key[other] < key[player] for other in seeds)
        entry = entries[player]
        assert (entry.rank, entry.points, entry.tiebreak) == (
            rank,
            points[player],
            float(reached[player]),
        ), player
    assert entries[champion].rank == 1 and entries[finalist].rank == 2


def _movers(size: int) -> int:
    """How many of a group go up, and how many down: two of more than five, one of three to
    five, none of fewer."""
    return 2 if size > 5 else 1 if size > 2 else 0


def test_a_league_plays_two_seasons_with_promotion_a_newcomer_and_a_withdrawal(
    make_user, capture, monkeypatch
):
    """Twelve players in divisions of four (groups of at most four here, so that twelve make
    three divisions; ten on the site): a player withdraws in the first season, its games
    forfeited, and one joins while it runs, in the lowest division from the second."""
    from tournaments.pairing import league
    from tournaments.services.entries import tournament_join, tournament_leave

    monkeypatch.setattr(
        league, "league_start", functools.partial(league.league_start, group_size=4)
    )
    monkeypatch.setattr(
        league, "league_next_season", functools.partial(league.league_next_season, group_size=4)
    )
    players = _players(make_user, 12)
    newcomer = make_user()
    tournament = tournament_made(
        creator=make_user(), players=players, format=Format.LEAGUE, rounds=2
    )
    first_season: dict[int, tuple[int, int]] = {}
    leaving: list[int] = []
    running: list[int] = []

    def between(t: Tournament) -> None:
        if first_season:
            return
        first_season.update(
            {e.user_id: (e.division, e.seed) for e in Entry.objects.filter(tournament=t)}
        )
        # A player of the first division whose game is under way.
        under_way = Seat.objects.filter(table__in=tournament_tables(t)).order_by("table_id")
        quitter = next(s for s in under_way if first_season[s.user_id][0] == 1)
        leaving.append(quitter.user_id)
        running.append(quitter.table_id)
        with capture(execute=True):
            tournament_leave(tournament_id=t.pk, user=quitter.user)
        tournament_join(tournament_id=t.pk, user=newcomer)

    run_to_end(
        tournament,
        rng=random.Random(12),
        capture=capture,
        ways=QUICK,
        first=["timeout"],
        between=between,
    )
    tournament = _finished(tournament)
    gone = leaving[0]
    results = stored_results(tournament)
    assert sorted(d for d, _s in first_season.values()) == [1] * 4 + [2] * 4 + [3] * 4

    # Season one: three round robins of four; the withdrawn player's later games forfeited.
    first = [r for r in results if r.season == 1]
    groups = groups_played(first)
    assert sorted(map(sorted, groups)) == sorted(
        sorted(p for p, (d, _s) in first_season.items() if d == level) for level in (1, 2, 3)
    )
    forfeits = [r for r in first if r.forfeit]
    assert forfeits and all(gone in r.seats for r in forfeits)
    # Its game under way went on with a bot in its seat, a loss; the rest were lost unplayed.
    assert running and Seat.objects.get(table_id=running[0], user_id=gone).replaced_by_bot
    later = [r for r in first if r.forfeit or r.table_id in running]
    # (Last, or level last when it was played out and the other seat lost on time too.)
    assert all(r.places[r.seats.index(gone)] == max(r.places) for r in later)
    assert all(r.places[r.seats.index(gone)] > min(r.places) for r in forfeits)
    assert max(r.number for r in rounds_of(tournament) if r.season == 1) == 3

    # Promotion and relegation from season one's places (level places: the better seed).
    expected: dict[int, set[int]] = {1: set(), 2: set(), 3: set()}
    for group in groups:
        level = first_season[next(iter(group))][0]
        lines = round_robin_lines(group, first)
        ranked = sorted(group, key=lambda p: (lines[p].rank, first_season[p][1]))
        moving = _movers(len(ranked))
        for position, player in enumerate(ranked):
            target = level
            if level > 1 and position < moving:
                target = level - 1
            elif level < 3 and position >= len(ranked) - moving:
                target = level + 1
            if player != gone:
                expected[target].add(player)
    expected[3].add(newcomer.pk)
    entries = {e.user_id: e for e in Entry.objects.filter(tournament=tournament)}
    for level, members in expected.items():
        assert {p for p, e in entries.items() if e.division == level} == members, level
    assert entries[gone].division == 0 and entries[gone].rank is None

    # Season two: each group a round robin of its own, its standings stored.
    second = [r for r in results if r.season == 2]
    assert all(gone not in r.seats for r in second)
    assert newcomer.pk in {p for r in second for p in r.seats}
    lines = {}
    longest = 0
    for group in groups_played(second):
        assert len({entries[p].division for p in group}) == 1
        longest = max(longest, len(group) if len(group) % 2 else len(group) - 1)
        lines.update(round_robin_lines(group, second))
    assert max(r.number for r in rounds_of(tournament) if r.season == 2) == longest
    assert set(lines) == set(entries) - {gone}
    assert_stored(tournament, lines)
    divisions = {p: e.division for p, e in entries.items()}
    assert tournament.winner_id == winner_expected(lines, _seeds(tournament), {gone}, divisions)
    assert divisions[tournament.winner_id] == 1
