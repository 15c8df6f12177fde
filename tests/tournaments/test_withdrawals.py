"""Withdrawing from a running tournament (#29.3): the player's running game goes on with a bot
in their seat and counts as their loss; their games not started are lost at once, without a
table; a Swiss pairs them no more; their games still count for their opponents' tie-breaks.
And the entry rule "no vacations during it", both ways round."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.urls import reverse

from accounts.models import User, Vacation
from community.services.people import block_set
from games.errors import Conflict, Forbidden
from games.models import Seat, Table
from games.services.vacations import vacation_start
from tests.conftest import client_for
from tests.support.tournament_runs import (
    assert_stored,
    assert_swiss_rules,
    finish,
    game_events_for_tournaments,
    round_robin_lines,
    stored_results,
    sweep,
    swiss_lines,
    tournament_made,
    tournament_tables,
    winner_expected,
)
from tournaments.models import Entry, Format, Pairing, PairingSeat, Tournament
from tournaments.services.entries import (
    tournament_join,
    tournament_leave,
)
from tournaments.services.rounds import sweep_tournaments

pytestmark = pytest.mark.django_db


@pytest.fixture
def capture(django_capture_on_commit_callbacks):
    with game_events_for_tournaments():
        yield django_capture_on_commit_callbacks


def _seeds(tournament: Tournament) -> dict[int, int]:
    return dict(Entry.objects.filter(tournament=tournament).values_list("user_id", "seed"))


def _table_of(tournament: Tournament, user) -> Table:
    return next(t for t in tournament_tables(tournament) if t.seats.filter(user=user).exists())


def test_a_swiss_player_who_withdraws_loses_the_game_under_way_to_a_bot_and_is_paired_no_more(
    make_user, capture
):
    rng = random.Random(5)
    players = [make_user() for _ in range(6)]
    tournament = tournament_made(creator=make_user(), players=players, rounds=3)
    assert sweep(capture, tournament.starts_at) == 1
    quitter = players[2]
    table = _table_of(tournament, quitter)
    with capture(execute=True):
        tournament_leave(tournament_id=tournament.pk, user=quitter)
    seat = Seat.objects.get(table=table, user=quitter)
    assert seat.replaced_by_bot
    with pytest.raises(Conflict):  # once is enough
        tournament_leave(tournament_id=tournament.pk, user=quitter)
    with pytest.raises(Conflict):  # and there is no way back in
        tournament_join(tournament_id=tournament.pk, user=quitter)
    # Its opponent plays on against the bot, to the end: the withdrawn player is last.
    finish(table, "moves", rng, capture)
    table.refresh_from_db()
    assert table.outcome["ranks"][seat.position] == 1
    assert table.outcome["ranks"][1 - seat.position] == 0

    for _ in range(20):
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
        for running in tournament_tables(tournament):
            finish(running, "play_out", rng, capture)
    assert tournament.status == Tournament.Status.FINISHED

    results = stored_results(tournament)
    ids = {p.pk for p in players}
    later = [r for r in results if r.round > 1]
    assert later and all(quitter.pk not in r.seats for r in later)
    # Five still in: two games and a bye each round after the first.
    assert all(sorted(len(r.seats) for r in later if r.round == n) == [1, 2, 2] for n in (2, 3))
    assert_swiss_rules(results, {1: ids, 2: ids - {quitter.pk}, 3: ids - {quitter.pk}})
    lines = swiss_lines(ids, results)
    opponent = next(p for r in results if quitter.pk in r.seats for p in r.seats if p != quitter.pk)
    # Its game counts for its opponent's Buchholz (its points) and for its own standing.
    assert lines[opponent].tiebreak >= lines[quitter.pk].points
    assert_stored(tournament, lines)
    assert Entry.objects.get(tournament=tournament, user=quitter).rank == lines[quitter.pk].rank
    winner = winner_expected(lines, _seeds(tournament), {quitter.pk}, {})
    assert tournament.winner_id == winner != quitter.pk


def test_a_round_robin_player_who_withdraws_forfeits_the_games_to_come_without_tables(
    make_user, capture
):
    rng = random.Random(6)
    players = [make_user() for _ in range(5)]
    tournament = tournament_made(
        creator=make_user(), players=players, format=Format.ROUND_ROBIN, rounds=None
    )
    assert sweep(capture, tournament.starts_at) == 1
    # Round one played; in round two a player withdraws.
    for table in tournament_tables(tournament):
        finish(table, "play_out", rng, capture)
    quitter = next(
        p
        for p in players
        if any(t.seats.filter(user=p).exists() for t in tournament_tables(tournament))
    )
    under_way = _table_of(tournament, quitter)
    tables_before = Table.objects.count()
    with capture(execute=True):
        tournament_leave(tournament_id=tournament.pk, user=quitter)
    assert Seat.objects.get(table=under_way, user=quitter).replaced_by_bot
    for _ in range(20):
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
        for running in tournament_tables(tournament):
            finish(running, "play_out", rng, capture)
    assert tournament.status == Tournament.Status.FINISHED

    results = stored_results(tournament)
    quitters = [r for r in results if quitter.pk in r.seats and not r.bye]
    # Everyone met everyone once: its games to come were lost without a table.
    assert len(quitters) == 4
    forfeits = [r for r in quitters if r.forfeit]
    assert forfeits and forfeits == [r for r in quitters if r.round > 2]
    assert not Seat.objects.filter(user=quitter).exclude(table__in=[r.table_id for r in quitters])
    # Rounds three to five: two games each, a table for each but the forfeits.
    assert Table.objects.count() == tables_before + 3 * 2 - len(forfeits)
    for r in forfeits:
        assert r.places[r.seats.index(quitter.pk)] == 2 and min(r.places) == 1
        pairing = Pairing.objects.get(round__number=r.round, seats__entry__user=quitter)
        assert pairing.done and pairing.table_id is None
        assert sorted(
            PairingSeat.objects.filter(pairing=pairing).values_list("points", flat=True)
        ) == [0, 1]
    lines = round_robin_lines({p.pk for p in players}, results)
    assert_stored(tournament, lines)
    assert tournament.winner_id == winner_expected(lines, _seeds(tournament), {quitter.pk}, {})


def test_a_windowed_game_not_started_is_lost_at_once_by_who_withdraws(make_user, capture):
    players = [make_user() for _ in range(2)]
    tournament = tournament_made(
        creator=make_user(),
        players=players,
        format=Format.SWISS_WINDOWS,
        rounds=1,
        round_window=dt.timedelta(days=3),
        start_within=dt.timedelta(days=1),
    )
    assert sweep(capture, tournament.starts_at) == 1
    pairing = Pairing.objects.get(round__tournament=tournament)
    assert pairing.table_id is None
    with capture(execute=True):
        tournament_leave(tournament_id=tournament.pk, user=players[0])
    pairing.refresh_from_db()
    assert pairing.done and pairing.table_id is None and not Table.objects.exists()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.winner_id == players[1].pk
    points = dict(PairingSeat.objects.filter(pairing=pairing).values_list("entry__user", "points"))
    assert points == {players[0].pk: 0, players[1].pk: 1}


# -- no vacations during it ----------------------------------------------------------------


def test_no_vacation_may_start_while_in_such_a_tournament_and_none_may_be_on_one_to_enter(
    make_user, capture
):
    away, player, other = make_user(), make_user(), make_user()
    strict = tournament_made(
        creator=make_user(), players=[], no_vacations=True, rounds=1, max_players=4
    )
    relaxed = tournament_made(creator=make_user(), players=[], rounds=1)
    vacation_start(user=away, days=3)
    response = client_for(away).post(reverse("tournament_join", args=[strict.pk]))
    assert response.status_code == 403
    assert "for players not on vacation" in response.content.decode()
    assert not Entry.objects.filter(tournament=strict).exists()
    tournament_join(tournament_id=relaxed.pk, user=away)  # no such rule there

    for user in (player, other):
        tournament_join(tournament_id=strict.pk, user=user)
    with pytest.raises(Forbidden) as refused:
        vacation_start(user=player, days=3)
    assert refused.value.status == 403 and "withdraw from it first" in refused.value.message
    page = client_for(player).post(reverse("vacation_start"), {"days": 3})
    assert page.status_code == 403 and "withdraw from it first" in page.content.decode()
    assert not Vacation.objects.filter(user=player).exists()

    # While it runs, still no; once withdrawn, yes; once it is over, yes for everyone.
    assert sweep(capture, strict.starts_at) == 1
    with pytest.raises(Forbidden):
        vacation_start(user=player, days=3)
    with capture(execute=True):
        tournament_leave(tournament_id=strict.pk, user=player)
    vacation_start(user=player, days=3)
    with pytest.raises(Forbidden):
        vacation_start(user=other, days=3)
    strict.refresh_from_db()
    if strict.status == Tournament.Status.RUNNING:  # the bot in the seat plays it out
        for table in tournament_tables(strict):
            finish(table, "play_out", random.Random(1), capture)
    strict.refresh_from_db()
    assert strict.status == Tournament.Status.FINISHED
    assert vacation_start(user=other, days=3).user_id == other.pk


def test_a_knockout_match_whose_players_both_withdraw_still_has_a_winner(make_user, capture):
    rng = random.Random(8)
    players = [make_user() for _ in range(4)]
    tournament = tournament_made(
        creator=make_user(), players=players, format=Format.KNOCKOUT, rounds=None
    )
    assert sweep(capture, tournament.starts_at) == 1
    table = tournament_tables(tournament)[0]
    both = [s.user for s in table.seats.select_related("user")]
    for user in both:
        with capture(execute=True):
            tournament_leave(tournament_id=tournament.pk, user=user)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED  # bots in both seats played it out
    for _ in range(10):
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
        for running in tournament_tables(tournament):
            finish(running, "play_out", rng, capture)
    assert tournament.status == Tournament.Status.FINISHED
    gone = {u.pk for u in both}
    assert tournament.winner_id not in gone
    # Their first game (bots in both seats) was level; the better seed took the next,
    # unplayed, and then lost the final unplayed.
    results = stored_results(tournament)
    seeds = _seeds(tournament)
    theirs = [r for r in results if set(r.seats) == gone]
    better = min(gone, key=lambda p: seeds[p])
    assert theirs[0].table_id is not None and theirs[0].places == (1, 1)
    assert [r.forfeit for r in theirs] == [False, True]
    assert theirs[1].places[theirs[1].seats.index(better)] == 1
    (final,) = [r for r in results if r.round == 2]
    assert final.forfeit and better in final.seats
    assert final.places[final.seats.index(better)] == 2
    assert tournament.winner_id in final.seats


def test_leaving_when_the_start_is_due_but_not_yet_swept_takes_the_entry_out(make_user, capture):
    players = [make_user() for _ in range(3)]
    tournament = tournament_made(creator=make_user(), players=players, rounds=1)
    late = tournament.starts_at + dt.timedelta(seconds=30)  # beat's sweep has not run yet
    tournament_leave(tournament_id=tournament.pk, user=players[0], now=late)
    assert not Entry.objects.filter(tournament=tournament, user=players[0]).exists()
    assert sweep(capture, late) == 1
    assert sorted(
        PairingSeat.objects.filter(pairing__round__tournament=tournament).values_list(
            "entry__user", flat=True
        )
    ) == sorted(p.pk for p in players[1:])


# -- a block made after both entered -------------------------------------------------------


def _entered(make_user, count: int, **chosen: object) -> tuple[Tournament, list[User], dt.datetime]:
    players = [make_user(username=f"blk{k}") for k in range(count)]
    chosen = {"name": "Blocked Cup", "rounds": 2, "max_players": 16, **chosen}
    tournament = tournament_made(creator=players[0], players=players, **chosen)
    return tournament, players, tournament.starts_at


def _seated_together(tournament: Tournament, one: User, other: User) -> bool:
    return (
        Table.objects.filter(tournament_pairing__round__tournament=tournament, seats__user=one)
        .filter(seats__user=other)
        .exists()
    )


def test_a_swiss_never_seats_a_player_with_one_they_blocked_since_entering(make_user):
    tournament, players, start = _entered(make_user, 4)
    # Seeds 1 and 2 would meet in round one; the block comes after both entered.
    block_set(user=players[0], target=players[1], hide_lines=True, no_games=True, no_contact=True)
    sweep_tournaments(now=start)
    assert not _seated_together(tournament, players[0], players[1])
    assert Table.objects.filter(tournament_pairing__round__tournament=tournament).count() == 2


def test_when_no_other_pairing_is_left_the_barred_pair_draws_without_a_table(make_user):
    tournament, (one, other), start = _entered(make_user, 2, rounds=1)
    block_set(user=other, target=one, hide_lines=True, no_games=True, no_contact=True)
    sweep_tournaments(now=start)
    tournament.refresh_from_db()
    assert not Table.objects.exists()
    assert tournament.status == Tournament.Status.FINISHED
    points = dict(tournament.entries.values_list("user_id", "points"))
    assert points == {one.pk: 0.5, other.pk: 0.5}


def test_in_a_knockout_the_better_seed_goes_on_past_a_barred_opponent(make_user):
    tournament, (one, other), start = _entered(
        make_user, 2, format="knockout", rounds=None, match_games=3
    )
    block_set(user=one, target=other, hide_lines=True, no_games=True, no_contact=True)
    sweep_tournaments(now=start)
    tournament.refresh_from_db()
    assert not Table.objects.exists()
    assert tournament.status == Tournament.Status.FINISHED
    seeds = dict(tournament.entries.values_list("user_id", "seed"))
    assert tournament.winner_id == min(seeds, key=lambda player: seeds[player])
