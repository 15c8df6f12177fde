"""The years-of-data bench (``bench/years``) at a tiny size, in the test database: it makes what
it promises (the counts, the profile's games, the due handful), every table it makes replays
exactly to its stored state, and every page and sweep it measures answers with a fixed number
of queries. (The full size takes half an hour: ``python -m bench.years``.)"""

from __future__ import annotations

import pytest

from bench.years import measure
from bench.years.fill import generate
from bench.years.plan import DUE, SESSIONS_DUE, VACATIONS_DUE, Size
from games.catalog import playable_games
from games.models import Move, Seat, Table
from games.rules import get_rules
from games.selectors.replays import state_replay

pytestmark = pytest.mark.django_db

TINY = Size(tables=200, players=60, running=45, profile_games=20, recorded=24)


@pytest.fixture
def made():
    return generate(TINY, echo=False)


def test_it_makes_the_players_and_tables_it_is_asked_for(made):
    counts = made.counts
    assert counts["players"] == TINY.players
    assert counts["finished tables"] == TINY.tables
    assert counts["running tables"] + counts["open tables"] == TINY.running
    assert counts["open tables"] >= 1
    assert counts["profile's finished games"] == TINY.profile_games
    assert counts["moves"] == Move.objects.count() > TINY.tables * 10
    games = set(Table.objects.values_list("game", flat=True))
    assert games == {rules.slug for rules in playable_games()}
    # Nobody sits twice at a table; a running table waits for someone.
    for table in Table.objects.filter(status=Table.Status.RUNNING):
        users = [s.user_id for s in table.seats.all() if s.user_id is not None]
        assert len(users) == len(set(users)) == table.num_seats
        assert any(seat.is_waiting for seat in table.seats.all())


def test_every_table_replays_exactly_to_its_stored_state(made):
    for table in Table.objects.exclude(status=Table.Status.OPEN).order_by("?")[:40]:
        rules = get_rules(table.game)
        state = state_replay(table)
        assert rules.to_json(state) == table.state, table
        assert table.moves_played == table.moves.count()
        if table.is_finished:
            assert rules.outcome(state).to_json() == table.outcome
            ranks = [seat.rank for seat in table.seats.all()]
            assert ranks == table.outcome["ranks"]
        else:
            waiting = {s.position for s in table.seats.all() if s.is_waiting}
            assert waiting == set(rules.waiting_seats(state))


def test_a_handful_is_due_whatever_the_size(made):
    due = Seat.objects.filter(is_waiting=True, deadline__lte=made.now)
    assert due.count() == DUE
    assert Seat.objects.filter(reminder_due_at__lte=made.now).count() == DUE
    assert Seat.objects.filter(warn_at__lte=made.now).count() == DUE
    assert Seat.objects.filter(is_waiting=True, deadline=None).count() == VACATIONS_DUE


def test_every_page_and_sweep_answers_with_a_fixed_number_of_queries(made):
    games = [rules.slug for rules in playable_games()]
    found = measure.subjects(made.star, games)
    assert found.history_last == 1 + (TINY.profile_games - 1) // 20
    pages = list(measure.pages(found, games, runs=2, warmup=1))
    assert len(pages) == 2 + 2 * len(games) + 4 + 4
    for item in pages:
        assert item.statuses == {200}, item.name
        assert item.fixed, (item.name, item.queries)
    sweeps = {item.name: item for item in measure.sweeps(made.now, runs=2, warmup=1)}
    for item in sweeps.values():
        assert item.fixed, (item.name, item.queries)
        assert len(item.done) == 1, (item.name, item.done)  # the same work on every run
    assert sweeps["deadlines"].done == {DUE}
    assert sweeps["vacations"].done == {VACATIONS_DUE}
    assert sweeps["notifications by e-mail"].done == {DUE}
    assert sweeps["sessions (hourly)"].done == {2 * SESSIONS_DUE}
