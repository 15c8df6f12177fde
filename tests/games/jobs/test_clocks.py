"""Every waiting seat has its own clock, shown to players in their own time zone."""

from __future__ import annotations

import datetime as dt
import io
import threading

import pytest
from asgiref.sync import async_to_sync
from django.core import mail
from django.core.management import call_command
from django.test import AsyncClient
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


@pytest.fixture
def fresh_process(settings, monkeypatch):
    """A process of the embedded default, outside a test run, whose sweeps have not started;
    a sweeps thread it starts waits, alive, until the test ends. Yields the live threads."""
    settings.TASKS_MODE = "thread"
    settings.TESTING = False
    release = threading.Event()
    monkeypatch.setattr(embedded, "_started", threading.Event())
    monkeypatch.setattr(embedded, "_loop", release.wait)

    def sweeping() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == embedded.THREAD_NAME]

    yield sweeping
    release.set()


def test_the_embedded_sweeps_start_with_the_first_request_a_process_serves_and_once(
    fresh_process, alice
):
    assert fresh_process() == []
    client_for(alice).get(reverse("lobby"))
    assert len(fresh_process()) == 1
    client_for(None).get(reverse("lobby"))
    client_for(alice).get(reverse("health"))
    assert len(fresh_process()) == 1


def test_an_asgi_server_starts_them_too(fresh_process):
    """`make run` serves through uvicorn: Django's ASGI handler sends the same signal."""

    async def two_requests() -> None:
        client = AsyncClient()
        await client.get(reverse("lobby"))
        await client.get(reverse("lobby"))

    async_to_sync(two_requests)()
    assert len(fresh_process()) == 1


def test_no_management_command_starts_the_embedded_sweeps(fresh_process):
    call_command("check", stdout=io.StringIO())
    call_command("sweeps", stdout=io.StringIO())
    assert fresh_process() == [] and not embedded._started.is_set()


def test_the_embedded_sweeps_stay_off_with_a_worker_or_in_a_test_run(fresh_process, settings):
    settings.TASKS_MODE = "celery"  # Redis: Celery beat sweeps
    client_for(None).get(reverse("lobby"))
    settings.TASKS_MODE = "thread"
    settings.TESTING = True  # tests (and tests/e2e's uvicorn servers) run the sweeps themselves
    client_for(None).get(reverse("lobby"))
    assert fresh_process() == []


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
