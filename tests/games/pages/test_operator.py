"""The operator sees what the sweeps will do next and what they sent."""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from games.jobs import sweeps
from games.models import Reminder
from tests.conftest import client_for
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_sweeps_command_lists_whats_due_and_what_was_sent(running_table):
    seat = running_table.seats.select_related("user").get(is_waiting=True)
    out = StringIO()
    call_command("sweeps", stdout=out)
    report = out.getvalue()
    assert "Next deadlines (1 shown)" in report
    assert str(running_table) in report
    assert "Last reminders sent (0 shown)" in report

    sweeps.sweep_reminders(timezone.now() + dt.timedelta(hours=2))
    out = StringIO()
    call_command("sweeps", stdout=out)
    assert "Last reminders sent (1 shown)" in out.getvalue()
    assert seat.user.username in out.getvalue()


def test_the_sweeps_command_can_run_the_sweeps(running_table):
    out = StringIO()
    call_command("sweeps", "--run", stdout=out)
    assert "ran: 0 vacations ended, 0 timeouts played, 0 reminder e-mails sent" in out.getvalue()


def test_the_admin_lists_seats_by_deadline_and_the_reminders_sent(running_table):
    sweeps.sweep_reminders(timezone.now() + dt.timedelta(hours=2))
    admin = UserFactory(is_staff=True, is_superuser=True)
    client = client_for(admin)
    seats = client.get(reverse("admin:games_seat_changelist"))
    assert seats.status_code == 200
    reminders = client.get(reverse("admin:games_reminder_changelist"))
    assert reminders.status_code == 200
    assert Reminder.objects.count() == 1
    assert b"your turn" in reminders.content
    assert client.get(reverse("admin:accounts_vacation_changelist")).status_code == 200
