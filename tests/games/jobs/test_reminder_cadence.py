"""Reminders on the player's own cadence (#30.4): once after a delay (and a warning), a daily
digest at their hour, every N hours, or escalating towards the deadline; never more often than
they chose, never in their quiet hours, never for a table they have open."""

from __future__ import annotations

import datetime as dt
import itertools
import zoneinfo
from collections.abc import Iterator

import pytest
from django.db.migrations.loader import MigrationLoader
from django.urls import reverse
from django.utils import timezone

from accounts.models import ReminderCadence, User
from games.jobs import sweeps
from games.models import Reminder, Seat, Table
from games.services.clocks import reminder_due_next
from games.services.presence import seat_presence_touch
from games.services.reminders import turn_reminders_drop
from games.services.tables import table_create, table_join
from tests.conftest import client_for
from tests.factories import UserFactory
from tests.support.mail import turn_of

UTC = dt.UTC
PRAGUE = zoneinfo.ZoneInfo("Europe/Prague")
HOUR = dt.timedelta(hours=1)
MINUTE = dt.timedelta(minutes=1)
DAY = dt.timedelta(days=1)


def _player(**settings: object) -> User:
    """An unsaved player in Prague who keeps quiet from 22:00 to 07:00."""
    values: dict[str, object] = {
        "time_zone": "Europe/Prague",
        "quiet_hours_start": dt.time(22),
        "quiet_hours_end": dt.time(7),
        "reminder_delay": 60,
        "reminder_hour": 9,
        "reminder_every_hours": 4,
    }
    values.update(settings)
    return User(**values)


def _prague(day: int, hour: int, minute: int = 0, month: int = 1) -> dt.datetime:
    return dt.datetime(2030, month, day, hour, minute, tzinfo=PRAGUE)


_UNSET = dt.datetime.min.replace(tzinfo=UTC)


def _due(
    user: User,
    start: dt.datetime,
    *,
    budget: dt.timedelta = 3 * DAY,
    deadline: dt.datetime | None = _UNSET,
    after: dt.datetime | None = None,
    last_sent: dt.datetime | None = None,
) -> dt.datetime | None:
    """The helper, for a turn begun at ``start`` whose deadline is ``budget`` later."""
    return reminder_due_next(
        user=user,
        turn_start=start,
        deadline=start + budget if deadline is _UNSET else deadline,
        budget=budget,
        after=after,
        last_sent=last_sent,
    )


# The pure schedule, cadence by cadence.


def test_delay_is_todays_rule_one_notice_after_the_delay_out_of_quiet_hours():
    user = _player(reminder_cadence="delay")
    assert _due(user, _prague(10, 12)) == _prague(10, 13)
    assert _due(user, _prague(10, 12), after=_prague(10, 13)) is None  # one a turn
    assert _due(user, _prague(10, 21, 30)) == _prague(11, 7)  # 22:30 is quiet: at 07:00
    user.reminder_delay = 0
    assert _due(user, _prague(10, 12), deadline=None) == _prague(10, 12)


def test_daily_comes_at_the_players_hour_in_their_time_zone_once_a_day():
    user = _player(reminder_cadence="daily", quiet_hours_start=None, quiet_hours_end=None)
    first = _due(user, _prague(10, 16))
    assert first == _prague(11, 9) == dt.datetime(2030, 1, 11, 8, tzinfo=UTC)  # CET
    assert _due(user, _prague(10, 16), after=first) == _prague(12, 9)
    assert _due(user, _prague(10, 8, 30)) == _prague(10, 9)  # today's, not yet past
    summer = _due(user, _prague(10, 16, month=7))
    assert summer == dt.datetime(2030, 7, 11, 7, tzinfo=UTC)  # CEST
    # The digest went out late (10:00) for another table: this one waits for tomorrow's.
    assert _due(user, _prague(11, 8, 30), last_sent=_prague(11, 10)) == _prague(12, 9)
    # The deadline comes before the next digest: none for this turn.
    assert _due(user, _prague(10, 16), budget=12 * HOUR) is None


def test_a_daily_hour_in_the_quiet_hours_comes_at_their_end_every_day_without_a_gap():
    user = _player(reminder_cadence="daily", reminder_hour=23)
    first = _due(user, _prague(10, 12))
    assert first == _prague(11, 7)
    second = _due(user, _prague(10, 12), after=first, last_sent=first)
    assert second == _prague(12, 7)


def test_every_n_hours_from_the_turn_start_and_never_sooner_than_n_hours():
    user = _player(reminder_cadence="every")
    start = _prague(10, 10)
    assert _due(user, start) == _prague(10, 14)
    assert _due(user, start, after=_prague(10, 14)) == _prague(10, 18)
    assert _due(user, start, after=_prague(10, 18)) == _prague(11, 7)  # 22:00 is quiet
    # After the 07:00 one the next is four hours on, not at 10:00 on the turn's grid.
    assert _due(user, start, after=_prague(11, 7), last_sent=_prague(11, 7)) == _prague(11, 11)
    # Another table's e-mail at 13:00: this one waits until 17:00.
    assert _due(user, start, last_sent=_prague(10, 13)) == _prague(10, 17)
    assert _due(user, start, budget=3 * HOUR) is None  # past the deadline
    assert _due(user, start, deadline=None) is None  # a clock that stands


def test_escalating_at_half_four_fifths_and_an_hour_before_the_deadline():
    user = _player(reminder_cadence="escalating", quiet_hours_start=None, quiet_hours_end=None)
    start = dt.datetime(2030, 1, 10, 8, tzinfo=UTC)
    points = []
    after = None
    for _ in range(5):
        after = _due(user, start, budget=DAY, after=after)
        if after is None:
            break
        points.append(after)
    assert points == [start + 12 * HOUR, start + dt.timedelta(hours=19.2), start + 23 * HOUR]
    # An hour per move: the "hour before" is the start itself, so two points.
    assert _due(user, start, budget=HOUR) == start + 30 * MINUTE
    assert _due(user, start, budget=HOUR, after=start + 30 * MINUTE) == start + 48 * MINUTE
    assert _due(user, start, budget=HOUR, after=start + 48 * MINUTE) is None
    assert _due(user, start, deadline=None) is None


def test_escalating_points_in_the_quiet_hours_move_to_their_end_and_merge():
    user = _player(reminder_cadence="escalating")
    start = _prague(10, 10)  # a day per move: 22:00, 05:12 and 09:00 in Prague
    first = _due(user, start, budget=DAY)
    assert first == _prague(11, 7)
    assert _due(user, start, budget=DAY, after=first) == _prague(11, 9)
    assert _due(user, start, budget=DAY, after=_prague(11, 9)) is None


# The sweep, as the e-mails arrive.


def _new_game(first: User, second: User, seconds: int = 3 * 86400) -> Table:
    table = table_create(user=first, game="district-noir", num_seats=2, seconds_per_move=seconds)
    table_join(table_id=table.pk, user=second)
    table.refresh_from_db()
    return table


def _seat(table: Table, user: User) -> Seat:
    return Seat.objects.select_related("user").get(table=table, user=user)


def _waiting_for(user: User, count: int, seconds: int = 3 * 86400) -> list[Table]:
    tables = [_new_game(user, UserFactory(), seconds) for _ in range(count)]
    for table in tables:
        turn_of(table, user)
    return tables


def _times(start: dt.datetime, end: dt.datetime, step: dt.timedelta) -> Iterator[dt.datetime]:
    now = start
    while now <= end:
        yield now
        now += step


def _sent_at(user: User, mailoutbox, times: Iterator[dt.datetime]) -> list[dt.datetime]:
    """Sweeps at each of ``times``; when an e-mail went to ``user``."""
    sent = []
    for now in times:
        before = len([m for m in mailoutbox if m.to == [user.email]])
        sweeps.sweep_reminders(now)
        if len([m for m in mailoutbox if m.to == [user.email]]) > before:
            sent.append(now)
    return sent


def _next_local(hour: int, zone: zoneinfo.ZoneInfo, after: dt.datetime) -> dt.datetime:
    local = after.astimezone(zone)
    at = dt.datetime.combine(local.date(), dt.time(hour), tzinfo=zone)
    return at if at > after else dt.datetime.combine(local.date() + DAY, dt.time(hour), tzinfo=zone)


@pytest.mark.django_db
def test_the_daily_digest_lists_every_waiting_table_in_one_email_once_a_day(mailoutbox):
    alice = UserFactory(time_zone="Europe/Prague", reminder_cadence="daily", reminder_hour=9)
    tables = _waiting_for(alice, 3)
    digest = _next_local(9, PRAGUE, max(_seat(t, alice).waiting_since for t in tables))
    for table in tables:
        seat = _seat(table, alice)
        assert seat.reminder_due_at == digest and seat.warn_at is None
    sent = _sent_at(alice, mailoutbox, _times(timezone.now(), digest + 30 * HOUR, 20 * MINUTE))
    assert len(sent) == 2
    assert digest <= sent[0] < digest + 20 * MINUTE
    assert sent[1] - sent[0] == DAY
    first = next(m for m in mailoutbox if m.to == [alice.email])
    for table in tables:
        assert reverse("table_detail", args=[table.pk]) in first.body
    assert "3 games are waiting for your move" in first.subject
    steps = Reminder.objects.filter(user=alice).values_list("step", flat=True)
    assert sorted(steps) == [0, 0, 0, 1, 1, 1]


@pytest.mark.django_db
def test_every_n_hours_never_writes_more_often_than_n_hours(mailoutbox):
    alice = UserFactory(reminder_cadence="every", reminder_every_hours=2)
    first, second = _waiting_for(alice, 2)
    seat = _seat(second, alice)  # this turn began an hour later
    start = seat.waiting_since + HOUR
    Seat.objects.filter(pk=seat.pk).update(waiting_since=start, reminder_due_at=start + 2 * HOUR)
    begun = _seat(first, alice).waiting_since
    sent = _sent_at(alice, mailoutbox, _times(begun, begun + 12 * HOUR, 10 * MINUTE))
    assert len(sent) >= 5
    assert all(later - earlier >= 2 * HOUR for earlier, later in itertools.pairwise(sent))
    assert sent[0] - begun <= 2 * HOUR + 10 * MINUTE
    rows = Reminder.objects.filter(user=alice)
    assert rows.filter(seat__table=second).exists()  # the later table rides along


@pytest.mark.django_db
def test_escalating_sends_at_the_three_points_and_no_more(mailoutbox):
    alice = UserFactory(reminder_cadence="escalating")
    (table,) = _waiting_for(alice, 1, seconds=86400)
    seat = _seat(table, alice)
    start, deadline = seat.waiting_since, seat.deadline
    assert deadline == start + DAY
    step = 10 * MINUTE
    sent = _sent_at(alice, mailoutbox, _times(start, deadline + 2 * HOUR, step))
    expected = [start + 12 * HOUR, start + dt.timedelta(hours=19.2), deadline - HOUR]
    assert len(sent) == 3
    for at, point in zip(sent, expected, strict=True):
        assert point <= at < point + step
    assert sorted(Reminder.objects.filter(seat=seat).values_list("step", flat=True)) == [0, 1, 2]


@pytest.mark.django_db
@pytest.mark.parametrize("cadence", ["daily", "every", "escalating"])
def test_a_table_the_player_has_open_gets_no_reminder(cadence, mailoutbox):
    alice = UserFactory(reminder_cadence=cadence)
    (table,) = _waiting_for(alice, 1)
    due = _seat(table, alice).reminder_due_at
    assert due is not None
    seat_presence_touch(table_id=table.pk, user_id=alice.pk, now=due - 10 * dt.timedelta(seconds=1))
    sweeps.sweep_reminders(due)
    assert [m for m in mailoutbox if m.to == [alice.email]] == []
    later = _seat(table, alice).reminder_due_at
    assert later is not None and later > due + HOUR  # that one skipped, the next one stays
    assert not Reminder.objects.filter(user=alice).exists()


@pytest.mark.django_db
def test_an_existing_player_keeps_todays_reminder_and_warning(mailoutbox):
    """The new fields' defaults are today's behaviour: no data migration is needed."""
    migration = MigrationLoader(None).get_migration("accounts", "0013_user_reminder_cadence")
    defaults = {op.name: op.field.default for op in migration.operations}
    assert defaults["reminder_cadence"] == ReminderCadence.DELAY == "delay"
    alice = UserFactory()
    assert (alice.reminder_cadence, alice.reminder_delay) == ("delay", 60)
    (table,) = _waiting_for(alice, 1)
    seat = _seat(table, alice)
    budget = dt.timedelta(seconds=table.seconds_per_move)
    assert seat.reminder_due_at == seat.waiting_since + HOUR
    assert seat.warn_at == seat.deadline - budget / 5
    sent = _sent_at(alice, mailoutbox, _times(seat.waiting_since, seat.deadline, 30 * MINUTE))
    assert len(sent) == 2
    subjects = [m.subject for m in mailoutbox if m.to == [alice.email]]
    assert subjects == ["A game is waiting for your move", "Time is nearly up in one of your games"]


@pytest.mark.django_db
def test_reading_a_turn_in_the_site_spares_only_the_delay_cadences_email():
    alice = UserFactory(reminder_cadence="every")
    (table,) = _waiting_for(alice, 1)
    assert turn_reminders_drop(user=alice, table_ids=[table.pk]) == 0
    assert _seat(table, alice).reminder_due_at is not None


# The settings page.


@pytest.mark.django_db
def test_the_settings_page_offers_the_cadences_and_saves_one(mailoutbox):
    alice = UserFactory()
    (table,) = _waiting_for(alice, 1)
    client = client_for(alice)
    page = client.get(reverse("play_settings")).content.decode()
    for value in ReminderCadence.values:
        assert f'value="{value}"' in page
    assert 'name="reminder_hour"' in page and 'name="reminder_every_hours"' in page
    response = client.post(
        reverse("play_settings"),
        {"reminder_delay": 60, "reminder_cadence": "daily", "reminder_hour": 20},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert (alice.reminder_cadence, alice.reminder_hour) == ("daily", 20)
    seat = _seat(table, alice)
    assert seat.reminder_due_at == _next_local(20, zoneinfo.ZoneInfo("UTC"), seat.waiting_since)
    assert seat.warn_at is None
    # A post without the cadence (the form before it had one) keeps the player's.
    assert client.post(reverse("play_settings"), {"reminder_delay": 240}).status_code == 302
    alice.refresh_from_db()
    assert (alice.reminder_cadence, alice.reminder_delay) == ("daily", 240)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "field, value",
    [
        ("reminder_cadence", "sometimes"),
        ("reminder_hour", "24"),
        ("reminder_hour", "-1"),
        ("reminder_hour", "nine"),
        ("reminder_every_hours", "5"),
        ("reminder_every_hours", "0"),
    ],
)
def test_a_bad_cadence_is_refused_with_a_message_and_changes_nothing(field, value):
    alice = UserFactory()
    (table,) = _waiting_for(alice, 1)
    due = _seat(table, alice).reminder_due_at
    post = {"reminder_delay": 240, "reminder_cadence": "every", "reminder_every_hours": 2}
    response = client_for(alice).post(reverse("play_settings"), {**post, field: value})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    alice.refresh_from_db()
    assert (alice.reminder_cadence, alice.reminder_delay, alice.reminder_every_hours) == (
        "delay",
        60,
        4,
    )
    assert _seat(table, alice).reminder_due_at == due
