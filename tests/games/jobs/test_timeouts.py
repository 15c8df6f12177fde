"""When a player's time runs out, a bot moves for them; too many times, and it takes the seat."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.urls import reverse
from django.utils import timezone

from games.jobs import sweeps
from games.models import Move, Seat, Table
from games.rules import get_rules
from games.selectors.replays import state_replay
from games.services import bot_moves
from games.services.moves import move_play
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

DN = get_rules("district-noir")


def _expire(table: Table) -> Seat:
    """Moves the waiting seat's deadline into the past; returns that seat."""
    seat = table.seats.get(is_waiting=True)
    Seat.objects.filter(pk=seat.pk).update(deadline=timezone.now() - dt.timedelta(seconds=1))
    return seat


def test_a_seat_out_of_time_gets_a_legal_move_played_and_marked_as_a_timeout(running_table):
    seat = _expire(running_table)
    assert sweeps.sweep_deadlines() == 1
    move = Move.objects.get()
    assert (move.position, move.by) == (seat.position, Move.By.TIMEOUT)
    seat.refresh_from_db()
    assert seat.timeouts == 1 and not seat.replaced_by_bot
    table = Table.objects.get(pk=running_table.pk)
    assert DN.to_json(state_replay(table)) == table.state
    other = table.seats.get(is_waiting=True)
    assert other.position != seat.position
    assert other.deadline > timezone.now()


def test_running_the_sweep_twice_plays_the_timeout_once(running_table):
    _expire(running_table)
    now = timezone.now()
    assert sweeps.sweep_deadlines(now) == 1
    assert sweeps.sweep_deadlines(now) == 0
    assert bot_moves.seat_time_out(table_id=running_table.pk, position=0, now=now) is None
    assert Move.objects.count() == 1


def test_a_seat_still_in_time_is_left_alone(running_table):
    assert sweeps.sweep_deadlines() == 0
    assert not Move.objects.exists()


def test_the_log_shows_a_move_made_by_the_clock(running_table):
    seat = _expire(running_table)
    sweeps.sweep_deadlines()
    page = client_for(seat.user).get(reverse("table_detail", args=[running_table.pk]))
    assert b"timeouts: 1/3" in page.content


def test_after_three_timeouts_a_bot_takes_the_seat_and_the_player_is_ranked_last(
    running_table, django_capture_on_commit_callbacks
):
    table = running_table
    loser = None
    rng = random.Random(5)
    while loser is None or not Seat.objects.get(pk=loser.pk).replaced_by_bot:
        table.refresh_from_db()
        state = DN.from_json(table.state)
        seat = table.seats.select_related("user").get(is_waiting=True)
        if loser is None:
            loser = seat
        if seat.pk == loser.pk:
            _expire(table)
            sweeps.sweep_deadlines()
        else:
            action = rng.choice(DN.legal_actions(state, seat.position))
            move_play(table_id=table.pk, user=seat.user, action=action, version=None)
    loser.refresh_from_db()
    assert loser.timeouts == 3
    refused = client_for(loser.user).post(
        reverse("table_act", args=[table.pk]), {"action": '{"type": "take"}'}, HTTP_HX_REQUEST="1"
    )
    assert refused.status_code in (400, 403)
    # The human plays on; every turn of the replaced seat is now played by the bot at once.
    while True:
        table.refresh_from_db()
        if not table.is_running:
            break
        seat = table.seats.select_related("user").get(is_waiting=True)
        assert seat.pk != loser.pk, "the bot should have moved already"
        state = DN.from_json(table.state)
        action = rng.choice(DN.legal_actions(state, seat.position))
        with django_capture_on_commit_callbacks(execute=True):
            move_play(table_id=table.pk, user=seat.user, action=action, version=None)
    loser.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert loser.rank == 1
    assert table.outcome["forfeited"] == [loser.position]
    assert Move.objects.filter(table=table, position=loser.position, by=Move.By.BOT).exists()
    assert DN.to_json(state_replay(table)) == table.state


def test_a_failing_bot_still_plays_a_legal_move(running_table, monkeypatch):
    class BrokenBot:
        def choose(self, view, legal_actions, rng):
            raise RuntimeError("search exploded")

    monkeypatch.setattr(bot_moves, "get_bot", lambda level, game=None: BrokenBot())
    _expire(running_table)
    assert sweeps.sweep_deadlines() == 1
    assert Move.objects.count() == 1


def test_a_bot_answering_nonsense_still_plays_a_legal_move(running_table, monkeypatch):
    class SillyBot:
        def choose(self, view, legal_actions, rng):
            return {"type": "fly"}

    monkeypatch.setattr(bot_moves, "get_bot", lambda level, game=None: SillyBot())
    _expire(running_table)
    assert sweeps.sweep_deadlines() == 1
    move = Move.objects.get()
    assert move.action["type"] in {"play", "take"}
