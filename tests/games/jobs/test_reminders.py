"""Turn reminders by e-mail, as a player who checks in once a day expects them."""

from __future__ import annotations

import datetime as dt
import functools
from unittest import mock

import pytest
from django.core import mail
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import mailing
from accounts.models import REMINDERS_OFF
from games.jobs import sweeps
from games.models import Reminder, Seat, Table
from games.rules import get_rules
from games.services.presence import PRESENCE_REFRESH, seat_presence_touch
from games.services.reminders import reminders_queue, reminders_send_due
from games.services.tables import table_create, table_join
from tests.conftest import client_for, play_a_legal_move
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

DN = get_rules("district-noir")
HOUR = dt.timedelta(hours=1)


def _waiting_seat(table: Table) -> Seat:
    return table.seats.select_related("user").get(is_waiting=True)


def _new_game(first, second) -> Table:
    table = table_create(user=first, game="district-noir", num_seats=2, seconds_per_move=3 * 86400)
    table_join(table_id=table.pk, user=second)
    table.refresh_from_db()
    return table


def test_a_player_gets_one_email_listing_every_table_waiting_for_them(alice, bob, carol):
    tables = [_new_game(alice, bob), _new_game(alice, carol), _new_game(bob, carol)]
    for table in tables[:2]:  # make sure alice is the one to move at both
        if _waiting_seat(table).user != alice:
            play_a_legal_move(table)
    later = timezone.now() + 2 * HOUR
    sweeps.sweep_reminders(later)
    to_alice = [m for m in mail.outbox if m.to == [alice.email]]
    assert len(to_alice) == 1
    message = to_alice[0]
    for table in tables[:2]:
        assert reverse("table_detail", args=[table.pk]) in message.body
    assert reverse("table_detail", args=[tables[2].pk]) not in message.body
    html, mimetype = message.alternatives[0]
    assert mimetype == "text/html"
    assert reverse("table_detail", args=[tables[0].pk]) in html
    assert "/unsubscribe/" in message.body
    assert "List-Unsubscribe" in message.extra_headers


def test_no_reminder_before_the_players_delay_and_at_most_one_per_turn(running_table):
    seat = _waiting_seat(running_table)
    assert seat.user.reminder_delay == 60
    sweeps.sweep_reminders(timezone.now() + dt.timedelta(minutes=30))
    assert mail.outbox == []
    sweeps.sweep_reminders(timezone.now() + 2 * HOUR)
    sweeps.sweep_reminders(timezone.now() + 3 * HOUR)
    assert len(mail.outbox) == 1
    assert Reminder.objects.filter(seat=seat, kind="turn").count() == 1


def test_each_new_turn_gets_its_own_reminder(running_table):
    first = _waiting_seat(running_table)
    sweeps.sweep_reminders(timezone.now() + 2 * HOUR)
    play_a_legal_move(running_table)
    play_a_legal_move(running_table)  # back to the same player, a new turn
    sweeps.sweep_reminders(timezone.now() + 2 * HOUR)
    to_first = [m for m in mail.outbox if m.to == [first.user.email]]
    assert len(to_first) == 2


def test_reminder_settings_immediately_and_off(running_table):
    seat = _waiting_seat(running_table)
    other = running_table.seats.exclude(pk=seat.pk).get()
    for user, delay in [(seat.user, 0), (other.user, REMINDERS_OFF)]:
        user.reminder_delay = delay
        user.save()
    play_a_legal_move(running_table)
    play_a_legal_move(running_table)
    sweeps.sweep_reminders(timezone.now() + dt.timedelta(seconds=1))
    assert [m.to for m in mail.outbox] == [[seat.user.email]]
    sweeps.sweep_reminders(timezone.now() + 5 * 24 * HOUR)
    assert all(m.to != [other.user.email] for m in mail.outbox)


def test_no_email_while_the_player_has_the_table_open(running_table):
    seat = _waiting_seat(running_table)
    client_for(seat.user).get(reverse("table_detail", args=[running_table.pk]))
    seat.refresh_from_db()
    assert seat.seen_at is not None
    sweeps.sweep_reminders(seat.seen_at + dt.timedelta(seconds=30))
    Seat.objects.filter(pk=seat.pk).update(reminder_due_at=seat.seen_at)
    sweeps.sweep_reminders(seat.seen_at + dt.timedelta(seconds=30))
    assert mail.outbox == []
    seat.refresh_from_db()
    assert seat.reminder_due_at is not None  # postponed while they look at it


def test_no_turn_email_repeats_a_turn_seen_at_the_table(running_table):
    """The player opened the table during their turn and left without moving: the site told
    them already; the "your turn" e-mail never comes (the warning before the deadline does)."""
    seat = _waiting_seat(running_table)
    client_for(seat.user).get(reverse("table_detail", args=[running_table.pk]))
    seat.refresh_from_db()
    Seat.objects.filter(pk=seat.pk).update(reminder_due_at=seat.seen_at)
    sweeps.sweep_reminders(seat.seen_at + 2 * HOUR)
    assert mail.outbox == []
    seat.refresh_from_db()
    assert seat.reminder_due_at is None
    sweeps.sweep_reminders(seat.deadline - dt.timedelta(minutes=1))
    assert len(mail.outbox) == 1
    assert "nearly up" in mail.outbox[0].subject


def test_a_turn_seen_before_it_started_still_gets_its_email(running_table):
    seat = _waiting_seat(running_table)
    Seat.objects.filter(pk=seat.pk).update(
        seen_at=seat.waiting_since - HOUR, reminder_due_at=seat.waiting_since
    )
    sweeps.sweep_reminders(seat.waiting_since + 2 * HOUR)
    assert [m.to for m in mail.outbox] == [[seat.user.email]]


def test_a_seat_is_marked_seen_at_most_every_twenty_seconds(running_table):
    """Pages poll every few seconds and sockets ping every 30: the row is written only when
    the mark is older than PRESENCE_REFRESH, and only the player's own seat."""
    seat = _waiting_seat(running_table)
    other = running_table.seats.exclude(pk=seat.pk).get()
    now = timezone.now()
    touch = functools.partial(seat_presence_touch, table_id=running_table.pk, user_id=seat.user_id)
    assert touch(now=now) == 1
    assert touch(now=now + PRESENCE_REFRESH / 2) == 0
    assert touch(now=now + PRESENCE_REFRESH + dt.timedelta(seconds=1)) == 1
    seat.refresh_from_db()
    other.refresh_from_db()
    assert seat.seen_at == now + PRESENCE_REFRESH + dt.timedelta(seconds=1)
    assert other.seen_at is None


def test_quiet_hours_in_the_players_time_zone_postpone_the_email(running_table):
    seat = _waiting_seat(running_table)
    user = seat.user
    user.time_zone = "Asia/Tokyo"
    user.quiet_hours_start = dt.time(22, 0)
    user.quiet_hours_end = dt.time(7, 0)
    user.save()
    tokyo = user.zone
    night = dt.datetime(2030, 1, 10, 23, 30, tzinfo=tokyo)
    Seat.objects.filter(pk=seat.pk).update(reminder_due_at=night - HOUR, warn_at=None)
    sweeps.sweep_reminders(night)
    assert mail.outbox == []
    seat.refresh_from_db()
    assert seat.reminder_due_at == dt.datetime(2030, 1, 11, 7, 0, tzinfo=tokyo)
    sweeps.sweep_reminders(dt.datetime(2030, 1, 11, 7, 1, tzinfo=tokyo))
    assert len(mail.outbox) == 1


def test_a_warning_when_a_fifth_of_the_time_is_left(running_table):
    seat = _waiting_seat(running_table)
    assert seat.warn_at == seat.deadline - dt.timedelta(seconds=running_table.seconds_per_move / 5)
    sweeps.sweep_reminders(seat.warn_at + dt.timedelta(minutes=1))
    subjects = [m.subject for m in mail.outbox]
    assert subjects == ["Time is nearly up in one of your games"]
    assert "time is nearly up" in mail.outbox[0].body
    sweeps.sweep_reminders(seat.warn_at + dt.timedelta(minutes=2))
    assert len(mail.outbox) == 1


def test_a_reminder_for_a_turn_already_played_is_not_sent(running_table):
    seat = _waiting_seat(running_table)
    later = timezone.now() + 2 * HOUR
    reminders_queue(kind=Reminder.Kind.TURN, now=later)
    play_a_legal_move(running_table)
    sweeps.sweep_reminders(later)
    assert all(m.to != [seat.user.email] for m in mail.outbox)
    assert Reminder.objects.get(seat=seat).sent_at is not None


class WorkerKilled(BaseException):
    """The worker's process ends mid-send (not an error the sweep could catch)."""


def test_a_worker_dying_while_sending_loses_nothing(running_table, monkeypatch):
    later = timezone.now() + 2 * HOUR

    def die(*args, **kwargs):
        raise WorkerKilled

    monkeypatch.setattr("accounts.mailing.EmailMultiAlternatives.send", die)
    with pytest.raises(WorkerKilled):
        sweeps.sweep_reminders(later)
    assert Reminder.objects.filter(sent_at__isnull=True).count() == 1
    monkeypatch.undo()
    sweeps.sweep_reminders(later)
    assert len(mail.outbox) == 1
    sweeps.sweep_reminders(later)
    assert len(mail.outbox) == 1


def test_an_email_the_server_refuses_comes_again_and_the_others_go(alice, bob, carol):
    """The players of a sweep are e-mailed in one transaction; one refusal spares the others."""
    for first, second in ((alice, bob), (carol, UserFactory())):
        table = _new_game(first, second)
        if _waiting_seat(table).user != first:
            play_a_legal_move(table)
    later = timezone.now() + 2 * HOUR
    real_send = mailing.EmailMultiAlternatives.send

    def refuse_alice(message, *args, **kwargs):
        if message.to == [alice.email]:
            raise ConnectionError("550 mailbox unavailable")
        return real_send(message, *args, **kwargs)

    with mock.patch.object(mailing.EmailMultiAlternatives, "send", refuse_alice):
        assert sweeps.sweep_reminders(later) == 1
    assert [m.to for m in mail.outbox] == [[carol.email]]
    assert Reminder.objects.get(user=alice).sent_at is None
    assert Reminder.objects.get(user=carol).sent_at == later

    assert sweeps.sweep_reminders(later) == 1
    assert [m.to for m in mail.outbox] == [[carol.email], [alice.email]]
    assert sweeps.sweep_reminders(later) == 0


def test_sending_to_many_players_reads_their_notices_and_tables_once():
    """A batch: the pending notices, the waiting seats and the apps' notes (unread chat lines)
    read once for all the players; then each player's own transaction: their rows marked sent
    in one statement (with a savepoint and its release here, inside the test's transaction)."""

    def queries_for(players: int) -> int:
        for _ in range(players):
            table = _new_game(UserFactory(), UserFactory())
            if _waiting_seat(table).user != table.seats.get(position=0).user:
                play_a_legal_move(table)
        later = timezone.now() + 2 * HOUR
        for kind in Reminder.Kind:
            reminders_queue(kind=kind, now=later)
        mail.outbox = []
        with CaptureQueriesContext(connection) as captured:
            assert reminders_send_due(now=later) == players
        return len(captured)

    one, eight = queries_for(1), queries_for(8)
    assert eight - one == 7 * 3


def test_the_unsubscribe_link_turns_reminders_off_without_signing_in(running_table):
    seat = _waiting_seat(running_table)
    sweeps.sweep_reminders(timezone.now() + 2 * HOUR)
    link = next(line for line in mail.outbox[0].body.splitlines() if "/unsubscribe/" in line)
    path = "/" + link.split("://", 1)[1].split("/", 1)[1].strip()
    asked = Client().get(path)  # opening the link only asks: link scanners open every link
    assert asked.status_code == 200 and b"Stop reminders" in asked.content
    seat.user.refresh_from_db()
    assert seat.user.reminder_delay != REMINDERS_OFF
    response = Client().post(path)
    assert response.status_code == 200
    assert b"Reminders are off" in response.content
    seat.user.refresh_from_db()
    assert seat.user.reminder_delay == REMINDERS_OFF
    assert Client().get("/unsubscribe/forged-token/").status_code == 400


def test_the_settings_page_saves_reminder_choices_and_refuses_half_quiet_hours(alice):
    client = client_for(alice)
    page = client.get(reverse("play_settings"))
    assert b"quiet hours" in page.content.lower()
    bad = client.post(
        reverse("play_settings"), {"reminder_delay": 240, "quiet_hours_start": "22:00"}
    )
    assert bad.status_code == 400
    ok = client.post(
        reverse("play_settings"),
        {"reminder_delay": 240, "quiet_hours_start": "22:00", "quiet_hours_end": "07:00"},
    )
    assert ok.status_code == 302
    alice.refresh_from_db()
    assert (alice.reminder_delay, alice.quiet_hours_end) == (240, dt.time(7, 0))


def test_changing_the_delay_reschedules_a_waiting_turn(running_table):
    seat = _waiting_seat(running_table)
    client_for(seat.user).post(reverse("play_settings"), {"reminder_delay": 720})
    seat.refresh_from_db()
    assert seat.reminder_due_at == seat.waiting_since + dt.timedelta(hours=12)


def test_sweeps_select_only_due_seats_with_a_fixed_number_of_queries(
    running_table, django_assert_max_num_queries
):
    for _ in range(20):
        _new_game(UserFactory(), UserFactory())
    # Two passes (turns, warnings), each a savepoint, one indexed select and a release;
    # then one look for unsent reminders. Nothing is due, whatever the number of tables.
    with django_assert_max_num_queries(7):
        sweeps.sweep_reminders(timezone.now())


def _queue_queries(seats_due: int) -> tuple[int, int]:
    """(queries, reminders added) of queuing the turns of ``seats_due`` new games, due now."""
    for _ in range(seats_due):
        _new_game(UserFactory(), UserFactory())
    later = timezone.now() + 2 * HOUR
    with CaptureQueriesContext(connection) as captured:
        added = reminders_queue(kind=Reminder.Kind.TURN, now=later)
    Seat.objects.update(reminder_due_at=None)
    return len(captured), added


def test_queuing_costs_the_same_queries_for_one_seat_due_or_eight():
    assert _queue_queries(1) == (_queue_queries(8)[0], 1)
    assert Reminder.objects.count() == 9


def test_a_turn_queued_twice_gets_one_reminder(running_table):
    seat = _waiting_seat(running_table)
    later = timezone.now() + 2 * HOUR
    assert reminders_queue(kind=Reminder.Kind.TURN, now=later) == 1
    Seat.objects.filter(pk=seat.pk).update(reminder_due_at=later)  # a second sweep's look
    assert reminders_queue(kind=Reminder.Kind.TURN, now=later) == 0
    assert Reminder.objects.filter(seat=seat).count() == 1
