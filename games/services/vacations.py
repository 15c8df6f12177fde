"""Vacations: while one lasts, the clocks of the player's turn-based games stand still."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User, Vacation
from games.errors import Conflict, GameError
from games.models import Seat, Table
from games.services import clocks, events

DAY = dt.timedelta(days=1)
HOUR = dt.timedelta(hours=1)


def _hours_begun(start: dt.datetime, end: dt.datetime) -> dt.timedelta:
    """The time between, in whole hours, an hour begun counting as a whole one."""
    return max(0, math.ceil((end - start) / HOUR)) * HOUR


def vacation_used(user: User, now: dt.datetime | None = None) -> dt.timedelta:
    """Vacation started this calendar year: what a vacation cut short really used, counted
    by the hour begun (a one-minute break is an hour, not a day), a running one in full."""
    now = now or timezone.now()
    year_start = now.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    used = dt.timedelta(0)
    for vacation in Vacation.objects.filter(user=user, starts_at__gte=year_start):
        used += _hours_begun(vacation.starts_at, vacation.ended_at or vacation.ends_at)
    return used


def vacation_left(user: User, now: dt.datetime | None = None) -> dt.timedelta:
    """What is left of this year's allowance, in whole hours."""
    allowance = settings.VACATION_DAYS_PER_YEAR * DAY
    return max(dt.timedelta(0), allowance - vacation_used(user, now))


def vacation_left_text(left: dt.timedelta) -> str:
    """What is left, as a player reads it: "29 days and 23 hours", "1 day", "5 hours"."""
    hours = int(left / HOUR)
    days, hours = divmod(hours, 24)
    day_text = ngettext("%(count)d day", "%(count)d days", days) % {"count": days}
    hour_text = ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours}
    if days and hours:
        return _("%(days)s and %(hours)s") % {"days": day_text, "hours": hour_text}
    if days:
        return day_text
    return hour_text  # "0 hours" when nothing is left


def vacation_current(user: User) -> Vacation | None:
    return Vacation.objects.filter(user=user, ended_at__isnull=True).first()


def vacation_context(user: User) -> dict[str, Any]:
    """What the profile and settings pages show: the running vacation, what is left of the
    allowance, and whether a vacation (a day at least) can start."""
    left = vacation_left(user)
    return {
        "vacation": vacation_current(user),
        "vacation_left": vacation_left_text(left),
        "vacation_can_start": left >= DAY,
    }


def _turn_based_seats(user_id: int) -> QuerySet[Seat]:
    return (
        Seat.objects.select_for_update(of=("self",))
        .select_related("table", "user")
        .filter(user_id=user_id, is_waiting=True, table__status=Table.Status.RUNNING)
    )


@transaction.atomic
def vacation_start(*, user: User, days: int, now: dt.datetime | None = None) -> Vacation:
    """Starts a vacation now for ``days`` days and stops the clocks of the player's turns."""
    now = now or timezone.now()
    User.objects.select_for_update().get(pk=user.pk)  # one vacation request at a time
    if vacation_current(user) is not None:
        raise Conflict(_("You are already on vacation."))
    if days < 1:
        raise GameError(_("A vacation lasts at least one day."))
    if days * DAY > vacation_left(user, now):
        raise GameError(_("That is more vacation days than you have left this year."))
    vacation = Vacation.objects.create(user=user, starts_at=now, ends_at=now + days * DAY)
    for seat in _turn_based_seats(user.pk):
        clocks.seat_clock_pause(seat, seat.table, now)
        seat.save(update_fields=clocks.CLOCK_FIELDS)
        table_clocks_changed(seat.table_id)
    return vacation


@transaction.atomic
def vacation_end(*, vacation_id: int, now: dt.datetime | None = None) -> int:
    """Ends a vacation (when it runs out, or earlier) and starts the clocks again; 1 if it ended."""
    now = now or timezone.now()
    vacation = Vacation.objects.select_for_update().filter(pk=vacation_id).first()
    if vacation is None or vacation.ended_at is not None:
        return 0
    vacation.ended_at = min(now, vacation.ends_at)
    vacation.save(update_fields=["ended_at"])
    for seat in _turn_based_seats(vacation.user_id):
        clocks.seat_clock_resume(seat, seat.table, now)
        seat.save(update_fields=clocks.CLOCK_FIELDS)
        table_clocks_changed(seat.table_id)
    return 1


def table_clocks_changed(table_id: int) -> None:
    """A clock of the table stopped or started again: a new version, so that its board (cached
    by version) shows it, and open pages are told after the commit."""
    Table.objects.filter(pk=table_id).update(version=F("version") + 1)
    version = Table.objects.values_list("version", flat=True).get(pk=table_id)
    events.publish_on_commit([events.table_changed(table_id, version)])
