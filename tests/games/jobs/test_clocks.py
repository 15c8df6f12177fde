"""Every waiting seat has its own clock, shown to players in their own time zone."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from games.jobs import embedded, tasks
from games.models import Move, Seat
from games.services.moves import move_play
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_the_clock_of_the_seat_to_move_starts_with_the_tables_time(running_table):
    seat = running_table.seats.select_related("user").get(is_waiting=True)
    budget = dt.timedelta(seconds=running_table.seconds_per_move)
    assert seat.deadline == seat.waiting_since + budget
    assert seat.reminder_due_at == seat.waiting_since + dt.timedelta(minutes=60)
    assert seat.warn_at == seat.deadline - budget / 5
    idle = running_table.seats.get(is_waiting=False)
    assert idle.deadline is None and idle.reminder_due_at is None


def test_the_clock_moves_to_the_next_player_after_a_move(running_table):
    from games.rules import get_rules

    rules = get_rules("district-noir")
    seat = running_table.seats.select_related("user").get(is_waiting=True)
    state = rules.from_json(running_table.state)
    action = rules.legal_actions(state, seat.position)[0]
    move_play(table_id=running_table.pk, user=seat.user, action=action, version=None)
    seat.refresh_from_db()
    assert not seat.is_waiting and seat.deadline is None
    other = running_table.seats.get(is_waiting=True)
    assert other.turn == 1 and other.deadline is not None


def test_the_table_and_lobby_give_the_deadline_for_the_browser_to_count_down(running_table):
    """The board is the same for every viewer: its clock is the deadline in UTC, which the
    browser counts down in the viewer's zone (static/js/clocks.js); the lobby, a page of the
    viewer's own, writes it in their zone."""
    seat = running_table.seats.select_related("user").get(is_waiting=True)
    viewer = seat.user
    viewer.time_zone = "Asia/Tokyo"
    viewer.save()
    page = client_for(viewer).get(reverse("table_detail", args=[running_table.pk])).content.decode()
    assert f'<time datetime="{seat.deadline.isoformat()}" data-deadline>' in page
    assert f"move by {seat.deadline:%-d %b, %H:%M} UTC" in page
    assert 'data-clock-left="{time} left"' in page and "js/clocks.js" in page
    lobby = client_for(viewer).get(reverse("lobby")).content.decode()
    local = timezone.localtime(seat.deadline, viewer.zone)
    assert f"move by {local:%-d %b, %H:%M} JST" in lobby and "data-deadline" in lobby


def test_the_embedded_default_sweeps_without_redis_or_a_worker(running_table, settings):
    settings.TASKS_MODE = "thread"
    seat = running_table.seats.get(is_waiting=True)
    Seat.objects.filter(pk=seat.pk).update(
        deadline=timezone.now() - dt.timedelta(seconds=1),
        reminder_due_at=timezone.now() - dt.timedelta(seconds=1),
    )
    embedded.run_once()
    assert Move.objects.filter(table=running_table, by=Move.By.TIMEOUT).count() == 1
    other = running_table.seats.select_related("user").get(is_waiting=True)
    Seat.objects.filter(pk=other.pk).update(reminder_due_at=timezone.now())
    embedded.run_once()
    assert [m.to for m in mail.outbox] == [[other.user.email]]


def test_the_embedded_sweeps_start_only_in_a_server_without_redis(settings, monkeypatch):
    settings.TASKS_MODE = "thread"
    settings.TESTING = False
    monkeypatch.setenv("RUN_MAIN", "true")
    monkeypatch.setattr("sys.argv", ["manage.py", "runserver"])
    assert embedded.should_start()
    settings.TASKS_MODE = "celery"
    assert not embedded.should_start()
    assert not embedded.should_start(asgi_server=True)
    settings.TASKS_MODE = "thread"
    monkeypatch.setattr("sys.argv", ["manage.py", "migrate"])
    assert not embedded.should_start()
    # `make run`: uvicorn loads config.asgi, which asks.
    monkeypatch.setattr("sys.argv", [".venv/bin/uvicorn", "--reload", "config.asgi:application"])
    assert not embedded.should_start()
    assert embedded.should_start(asgi_server=True)
    # A test run's servers (tests/e2e's uvicorn) leave the sweeps to the tests.
    settings.TESTING = True
    assert not embedded.should_start(asgi_server=True)


def test_bot_turns_on_the_embedded_default_run_off_the_request_thread(
    running_table, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.TASKS_MODE = "thread"
    settings.BOT_MOVE_DELAY_SECONDS = 0
    submitted = []

    class Pool:
        def submit(self, fn, *args):
            submitted.append((fn, args))

    monkeypatch.setattr(tasks, "_embedded_pool", Pool())
    with django_capture_on_commit_callbacks(execute=True):
        tasks.bot_turn_schedule(running_table.pk, running_table.version)
    assert submitted == [(tasks._embedded_bot_turn, (running_table.pk, running_table.version))]
