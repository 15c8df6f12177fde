"""A Swiss with round windows run through the services and beat's sweep (#29.3): a round's
pairings are published when it opens, with no table; a game starts when its players are all
ready, or at the latest at its ``starts_by``; the clocks do the rest; at the window's end the
sweep ends a game still running as a timeout of the seat to move, closes the round and opens
the next. Then the standings are worked out again from what was stored."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from games.errors import Conflict, Forbidden, NotFound
from games.models import Seat, Table
from games.rules import get_rules
from tests.support.tournament_runs import (
    HOUR,
    assert_stored,
    assert_swiss_rules,
    assert_timeouts_lost,
    finish,
    game_events_for_tournaments,
    move_as_player,
    stored_results,
    sweep,
    swiss_lines,
    tournament_made,
    winner_expected,
)
from tournaments.models import Entry, Format, Pairing, Round, Tournament
from tournaments.services import entries

pytestmark = pytest.mark.django_db
WINDOW = dt.timedelta(days=3)
WITHIN = dt.timedelta(days=1)
SECOND = dt.timedelta(seconds=1)


@pytest.fixture
def capture(django_capture_on_commit_callbacks):
    with game_events_for_tournaments():
        yield django_capture_on_commit_callbacks


def _round(tournament: Tournament, number: int) -> Round:
    return Round.objects.get(tournament=tournament, number=number)


def _pairings(round_: Round) -> list[Pairing]:
    return list(round_.pairings.filter(is_bye=False).prefetch_related("seats__entry__user"))


def _users(pairing: Pairing) -> list:
    return [s.entry.user for s in sorted(pairing.seats.all(), key=lambda s: s.position)]


def _to_move(table: Table) -> int:
    table.refresh_from_db()
    rules = get_rules(table.game)
    (position,) = rules.active_seats(rules.from_json(table.state))
    return int(position)


def test_a_windowed_swiss_starts_games_when_ready_or_by_the_window_and_ends_them_at_its_close(
    make_user, capture
):
    rng = random.Random(3)
    creator = make_user()
    players = [make_user() for _ in range(4)]
    tournament = tournament_made(
        creator=creator,
        players=players,
        format=Format.SWISS_WINDOWS,
        rounds=2,
        round_window=WINDOW,
        start_within=WITHIN,
    )
    opens = tournament.starts_at
    assert sweep(capture, opens) == 1

    # Round one is published at once: who plays whom, no table yet, when they start at the latest.
    first = _round(tournament, 1)
    assert (first.opens_at, first.closes_at) == (opens, opens + WINDOW)
    ready_both, ready_one = _pairings(first)
    for pairing in (ready_both, ready_one):
        assert pairing.table_id is None and pairing.starts_by == opens + WITHIN
        assert pairing.seats.count() == 2
    assert not Table.objects.exists()

    # Both say they are ready: their game starts, its seats in the pairing's order.
    a, b = _users(ready_both)
    assert entries.pairing_ready(pairing_id=ready_both.pk, user=a, now=opens + HOUR) is False
    with capture(execute=True):
        assert entries.pairing_ready(pairing_id=ready_both.pk, user=b, now=opens + HOUR) is True
    ready_both.refresh_from_db()
    table = ready_both.table
    assert table is not None and table.status == Table.Status.RUNNING
    assert [s.user_id for s in table.seats.order_by("position")] == [a.pk, b.pk]
    # Bad input: not theirs, already started, no such game; nothing changes.
    stranger, other = _users(ready_one)
    for user, pairing_id, error in [
        (stranger, ready_both.pk, Forbidden),
        (a, ready_both.pk, Conflict),
        (creator, ready_one.pk, Forbidden),
        (a, 999999, NotFound),
    ]:
        with pytest.raises(error) as refused:
            entries.pairing_ready(pairing_id=pairing_id, user=user, now=opens + HOUR)
        assert refused.value.message and 400 <= refused.value.status < 500

    # Only one is ready: nothing starts before the latest start; the sweep starts it then.
    entries.pairing_ready(pairing_id=ready_one.pk, user=other, now=opens + HOUR)
    assert sweep(capture, opens + WITHIN - SECOND) == 0
    ready_one.refresh_from_db()
    assert ready_one.table_id is None
    assert sweep(capture, opens + WITHIN) == 1
    ready_one.refresh_from_db()
    late = ready_one.table
    assert late is not None and late.status == Table.Status.RUNNING

    # The first game is played to its end; the second still runs when the window closes.
    finish(table, "moves", rng, capture)
    first.refresh_from_db()
    assert first.closed_at is None
    for _ in range(3):
        move_as_player(late, rng, capture)
    loser = _to_move(late)
    with pytest.raises(Conflict):  # its creator may end it only once the window has passed
        entries.round_end(tournament_id=tournament.pk, user=creator, now=opens + HOUR)
    with pytest.raises(Forbidden):
        entries.round_end(tournament_id=tournament.pk, user=a, now=opens + WINDOW)
    assert sweep(capture, opens + WINDOW - SECOND) == 0
    assert sweep(capture, opens + WINDOW) == 1
    late.refresh_from_db()
    assert late.status == Table.Status.FINISHED
    ranks = late.outcome["ranks"]
    assert ranks[loser] == 1 and ranks[1 - loser] == 0  # the seat to move lost on time
    timed_out = Seat.objects.get(table=late, position=loser)
    assert timed_out.timeouts == 1 and timed_out.replaced_by_bot
    first.refresh_from_db()
    assert first.closed_at == opens + WINDOW

    # Round two opened at the close, published with no table; nobody says they are ready.
    second = _round(tournament, 2)
    assert second.opens_at == opens + WINDOW and second.closes_at == opens + 2 * WINDOW
    pairings = _pairings(second)
    assert len(pairings) == 2 and all(p.table_id is None for p in pairings)
    assert sweep(capture, opens + WINDOW + WITHIN) == 2
    tables = [Pairing.objects.get(pk=p.pk).table for p in pairings]
    assert all(t is not None and t.status == Table.Status.RUNNING for t in tables)
    # One player lets their clock run out until a bot takes the seat; the other game runs on.
    finish(tables[0], "timeout", rng, capture)
    move_as_player(tables[1], rng, capture)
    assert sweep(capture, opens + 2 * WINDOW) == 1

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    results = stored_results(tournament)
    ids = {p.pk for p in players}
    assert_swiss_rules(results, {1: ids, 2: ids})
    assert assert_timeouts_lost(results) >= 3  # the two window ends and the clock run out
    lines = swiss_lines(ids, results)
    assert_stored(tournament, lines)
    seeds = dict(Entry.objects.filter(tournament=tournament).values_list("user_id", "seed"))
    assert tournament.winner_id == winner_expected(lines, seeds, set(), {})
    # Over: no more ends, readiness or leaving.
    with pytest.raises(Conflict):
        entries.round_end(tournament_id=tournament.pk, user=creator, now=opens + 3 * WINDOW)
    with pytest.raises(Conflict) as over:
        entries.tournament_leave(tournament_id=tournament.pk, user=players[0])
    assert over.value.message == "This tournament is over."
