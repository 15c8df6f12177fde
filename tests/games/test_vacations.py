"""Vacations stop the clocks of a player's turn-based games, within a yearly allowance."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services, sweeps, vacations
from games.errors import GameError
from games.models import Move, Seat, Table
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

DAY = dt.timedelta(days=1)


def _waiting(table: Table) -> Seat:
    return table.seats.select_related("user").get(is_waiting=True)


def test_a_vacation_stops_the_clock_and_the_sweep_plays_nothing(running_table):
    seat = _waiting(running_table)
    now = timezone.now()
    vacations.vacation_start(user=seat.user, days=3, now=now)
    seat.refresh_from_db()
    assert seat.deadline is None
    assert seat.paused_remaining == dt.timedelta(seconds=running_table.seconds_per_move) - (
        now - seat.waiting_since
    )
    assert sweeps.sweep_deadlines(now + 2 * DAY) == 0
    assert not Move.objects.exists()


def test_the_clock_runs_again_with_the_time_it_had_left_when_the_vacation_ends(running_table):
    seat = _waiting(running_table)
    start = timezone.now()
    vacations.vacation_start(user=seat.user, days=2, now=start)
    seat.refresh_from_db()
    left = seat.paused_remaining
    back = start + 2 * DAY
    assert sweeps.sweep_vacations(back) == 1
    seat.refresh_from_db()
    assert seat.deadline == back + left
    assert seat.paused_remaining is None


def test_a_turn_that_starts_during_a_vacation_waits_with_a_full_clock(running_table):
    mover = _waiting(running_table)
    away = running_table.seats.exclude(pk=mover.pk).select_related("user").get()
    vacations.vacation_start(user=away.user, days=5)
    from games.rules import get_rules

    rules = get_rules("district-noir")
    state = rules.from_json(running_table.state)
    action = rules.legal_actions(state, mover.position)[0]
    services.move_play(table_id=running_table.pk, user=mover.user, action=action, version=None)
    away.refresh_from_db()
    assert away.is_waiting and away.deadline is None
    assert away.paused_remaining == dt.timedelta(seconds=running_table.seconds_per_move)
    assert away.reminder_due_at is None


def test_live_games_keep_their_clocks_during_a_vacation(alice, bob):
    table = services.table_create(
        user=alice, game="district-noir", num_seats=2, seconds_per_move=300
    )
    services.table_join(table_id=table.pk, user=bob)
    seat = _waiting(table)
    deadline = seat.deadline
    vacations.vacation_start(user=seat.user, days=1)
    seat.refresh_from_db()
    assert seat.deadline == deadline


def test_at_most_thirty_vacation_days_a_year(alice):
    now = timezone.now()
    vacations.vacation_start(user=alice, days=20, now=now)
    with pytest.raises(GameError, match="already on vacation"):
        vacations.vacation_start(user=alice, days=1, now=now)
    vacations.vacation_end(vacation_id=vacations.current_vacation(alice).pk, now=now + 20 * DAY)
    assert vacations.vacation_days_left(alice, now + 20 * DAY) == 10
    with pytest.raises(GameError, match="more vacation days"):
        vacations.vacation_start(user=alice, days=11, now=now + 20 * DAY)


def test_a_vacation_cut_short_counts_only_the_days_taken(alice):
    now = timezone.now()
    vacations.vacation_start(user=alice, days=10, now=now)
    vacations.vacation_end(vacation_id=vacations.current_vacation(alice).pk, now=now + 2 * DAY)
    assert vacations.vacation_days_left(alice, now + 2 * DAY) == 28


def test_the_settings_page_shows_days_left_and_starts_and_ends_a_vacation(alice):
    client = client_for(alice)
    assert b"30 vacation days left" in client.get(reverse("play_settings")).content
    assert client.post(reverse("vacation_start"), {"days": 40}).status_code == 400
    assert client.post(reverse("vacation_start"), {"days": 4}).status_code == 302
    page = client.get(reverse("play_settings")).content
    assert b"You are on vacation until" in page
    assert client.post(reverse("vacation_end")).status_code == 302
    assert b"29 vacation days left" in client.get(reverse("play_settings")).content


def test_the_table_shows_a_paused_clock(running_table):
    seat = _waiting(running_table)
    vacations.vacation_start(user=seat.user, days=2)
    page = client_for(seat.user).get(reverse("table_detail", args=[running_table.pk]))
    assert b"on vacation" in page.content


def test_the_profile_shows_the_vacation_days_left(alice):
    vacations.vacation_start(user=alice, days=5)
    page = client_for(alice).get(reverse("profile_edit")).content
    assert b"25 vacation days left this year" in page
    assert b"On vacation until" in page
