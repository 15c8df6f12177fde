"""A table full of bots plays to the end through the platform, and the result is recorded.

The human who opened the table against bots lets their clock run out again and again:
the deadline sweep plays for them, then a bot takes their seat for good, and the bots
play every move through ``bot_turns`` (tasks run inline in tests, on commit).
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games.bots.base import HARD_BUDGET
from games.jobs import sweeps
from games.models import Move, Seat, Table
from games.rules import get_rules
from games.selectors.replays import state_replay
from games.services.tables import table_create_against_bots

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def tiny_hard_budget(monkeypatch):
    monkeypatch.setattr(HARD_BUDGET, "playouts", 4)
    monkeypatch.setattr(HARD_BUDGET, "seconds", None)


def _let_the_human_time_out_until_the_end(table: Table, capture) -> Table:
    for _ in range(500):
        table.refresh_from_db()
        if not table.is_running:
            return table
        late = timezone.now() - dt.timedelta(seconds=1)
        waiting = Seat.objects.filter(table=table, is_waiting=True, user__isnull=False)
        assert waiting.exists(), "only the human should ever be waited for"
        waiting.update(deadline=late)
        with capture(execute=True):
            assert sweeps.sweep_deadlines() >= 1
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(
    ("game", "num_seats", "level"),
    [
        ("district-noir", 2, "hard"),
        ("slide", 3, "hard"),
        ("slide", 2, "easy"),
        ("gnav", 4, "hard"),
        ("point-city", 2, "hard"),
        ("point-city", 3, "medium"),
    ],
)
def test_a_table_of_bots_plays_to_the_end_and_records_the_result(
    alice, django_capture_on_commit_callbacks, game, num_seats, level
):
    with django_capture_on_commit_callbacks(execute=True):
        table = table_create_against_bots(
            user=alice, game=game, num_seats=num_seats, level=level, seconds_per_move=86400
        )
    assert table.status == Table.Status.RUNNING

    table = _let_the_human_time_out_until_the_end(table, django_capture_on_commit_callbacks)

    assert table.status == Table.Status.FINISHED and table.finished_at is not None
    rules = get_rules(game)
    assert rules.to_json(state_replay(table)) == table.state
    outcome = table.outcome
    assert len(outcome["ranks"]) == len(outcome["scores"]) == num_seats
    human = table.seats.get(position=0)
    assert outcome["ranks"][0] == max(outcome["ranks"])
    for seat in table.seats.all():
        assert seat.rank == outcome["ranks"][seat.position]
        assert seat.score == outcome["scores"][seat.position]
        assert not seat.is_waiting
    by = set(Move.objects.filter(table=table).values_list("by", flat=True))
    bot_positions = set(
        Move.objects.filter(table=table, by=Move.By.BOT).values_list("position", flat=True)
    )
    if human.timeouts < table.max_timeouts:
        # Gnav: the bots knocked the absent player out of the match before a third timeout.
        assert game == "gnav" and not human.replaced_by_bot
        assert by == {Move.By.BOT, Move.By.TIMEOUT}
        assert bot_positions == set(range(1, num_seats))
        return
    assert human.timeouts == table.max_timeouts and human.replaced_by_bot
    assert outcome["forfeited"] == [0]
    assert by == {Move.By.BOT, Move.By.TIMEOUT}
    assert bot_positions <= set(range(num_seats)) and set(range(1, num_seats)) <= bot_positions
