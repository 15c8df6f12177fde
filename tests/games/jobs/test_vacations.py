"""Vacations stop the clocks of a player's turn-based games, within a yearly allowance."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from games.errors import GameError
from games.jobs import sweeps
from games.models import Move, Seat, Table
from games.selectors import vacations as vacation_selectors
from games.services import vacations
from games.services.moves import move_play
from games.services.tables import table_create, table_join
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

DAY = dt.timedelta(days=1)
HOUR = dt.timedelta(hours=1)


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
    move_play(table_id=running_table.pk, user=mover.user, action=action, version=None)
    away.refresh_from_db()
    assert away.is_waiting and away.deadline is None
    assert away.paused_remaining == dt.timedelta(seconds=running_table.seconds_per_move)
    assert away.reminder_due_at is None


def test_live_games_keep_their_clocks_during_a_vacation(alice, bob):
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=300)
    table_join(table_id=table.pk, user=bob)
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
    vacations.vacation_end(
        vacation_id=vacation_selectors.vacation_current(alice).pk, now=now + 20 * DAY
    )
    assert vacation_selectors.vacation_left(alice, now + 20 * DAY) == 10 * DAY
    with pytest.raises(GameError, match="more vacation days"):
        vacations.vacation_start(user=alice, days=11, now=now + 20 * DAY)


def test_a_vacation_cut_short_counts_only_the_time_taken(alice):
    now = timezone.now()
    vacations.vacation_start(user=alice, days=10, now=now)
    vacations.vacation_end(
        vacation_id=vacation_selectors.vacation_current(alice).pk, now=now + 2 * DAY
    )
    assert vacation_selectors.vacation_left(alice, now + 2 * DAY) == 28 * DAY


@pytest.mark.parametrize(
    ("away", "used"),
    [
        (dt.timedelta(minutes=1), HOUR),  # a minute used a whole day of the allowance
        (dt.timedelta(hours=5), 5 * HOUR),
        (dt.timedelta(hours=5, seconds=1), 6 * HOUR),
        (2 * DAY + dt.timedelta(hours=3, minutes=10), 2 * DAY + 4 * HOUR),
    ],
)
def test_time_away_counts_by_the_hour_begun(alice, away, used):
    now = timezone.now()
    vacations.vacation_start(user=alice, days=3, now=now)
    vacations.vacation_end(
        vacation_id=vacation_selectors.vacation_current(alice).pk, now=now + away
    )
    assert vacation_selectors.vacation_left(alice, now + away) == 30 * DAY - used


def test_back_after_a_minute_the_pages_show_what_is_left_and_how_it_counts(alice):
    """A one-minute vacation took a whole day, and no page said the allowance counts days."""
    client = client_for(alice)
    assert client.post(reverse("vacation_start"), {"days": 3}).status_code == 302
    assert client.post(reverse("vacation_end")).status_code == 302
    for page in (reverse("play_settings"), reverse("profile_edit")):
        text = client.get(page).content.decode()
        assert "Vacation left this year: 29 days and 23 hours." in text, page
        assert "counts by the hour" in text, page
    assert client.post(reverse("vacation_start"), {"days": 30}).status_code == 400
    assert client.post(reverse("vacation_start"), {"days": 29}).status_code == 302
    whole = timezone.now() + 30 * DAY  # this one runs its full 29 days
    vacations.vacation_end(vacation_id=vacation_selectors.vacation_current(alice).pk, now=whole)
    page = client.get(reverse("play_settings")).content.decode()
    assert "Vacation left this year: 23 hours." in page
    assert "Start my vacation" not in page  # less than a day: no vacation can start


def test_what_is_left_reads_as_days_and_hours():
    assert vacation_selectors.vacation_left_text(30 * DAY) == "30 days"
    assert vacation_selectors.vacation_left_text(DAY) == "1 day"
    assert vacation_selectors.vacation_left_text(29 * DAY + 23 * HOUR) == "29 days and 23 hours"
    assert vacation_selectors.vacation_left_text(DAY + HOUR) == "1 day and 1 hour"
    assert vacation_selectors.vacation_left_text(5 * HOUR) == "5 hours"
    assert vacation_selectors.vacation_left_text(dt.timedelta(0)) == "0 hours"


def test_the_settings_page_shows_days_left_and_starts_and_ends_a_vacation(alice):
    client = client_for(alice)
    assert b"Vacation left this year: 30 days." in client.get(reverse("play_settings")).content
    assert client.post(reverse("vacation_start"), {"days": 40}).status_code == 400
    assert client.post(reverse("vacation_start"), {"days": 4}).status_code == 302
    page = client.get(reverse("play_settings")).content
    assert b"You are on vacation until" in page
    assert client.post(reverse("vacation_end")).status_code == 302
    assert (
        b"Vacation left this year: 29 days and 23 hours."
        in client.get(reverse("play_settings")).content
    )


def test_the_table_shows_a_paused_clock(running_table):
    seat = _waiting(running_table)
    vacations.vacation_start(user=seat.user, days=2)
    page = client_for(seat.user).get(reverse("table_detail", args=[running_table.pk]))
    assert b"on vacation" in page.content


def test_the_profile_shows_the_vacation_days_left(alice):
    vacations.vacation_start(user=alice, days=5)
    page = client_for(alice).get(reverse("profile_edit")).content
    assert b"Vacation left this year: 25 days." in page
    assert b"On vacation until" in page


def test_an_open_board_shows_the_clock_stop_and_start_again(running_table):
    """The board is cached by the table's version: a vacation's start and end are changes of
    their own, so a page that had the running clock gets the paused one, and back."""
    waiting = running_table.seats.select_related("user").get(is_waiting=True)
    client = client_for(waiting.user)
    url = reverse("table_detail", args=[running_table.pk])
    assert "data-deadline" in client.get(url, HTTP_HX_REQUEST="true").text  # cached now
    vacation = vacations.vacation_start(user=waiting.user, days=2)
    board = client.get(url, HTTP_HX_REQUEST="true").text
    assert "on vacation" in board and "data-deadline" not in board
    vacations.vacation_end(vacation_id=vacation.pk)
    assert "data-deadline" in client.get(url, HTTP_HX_REQUEST="true").text
