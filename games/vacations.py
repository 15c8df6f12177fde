"""Vacations: while one lasts, the clocks of the player's turn-based games stand still."""

from __future__ import annotations

import datetime as dt
import math

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User, Vacation
from games import clocks
from games.errors import Conflict, GameError
from games.models import Seat, Table

DAY = dt.timedelta(days=1)


def _days(start: dt.datetime, end: dt.datetime) -> int:
    return max(0, math.ceil((end - start) / DAY))


def vacation_days_used(user: User, now: dt.datetime | None = None) -> int:
    """Days of vacation started this calendar year, counting a cut-short one as taken."""
    now = now or timezone.now()
    year_start = now.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    used = 0
    for vacation in Vacation.objects.filter(user=user, starts_at__gte=year_start):
        used += _days(vacation.starts_at, vacation.ended_at or vacation.ends_at)
    return used


def vacation_days_left(user: User, now: dt.datetime | None = None) -> int:
    return max(0, settings.VACATION_DAYS_PER_YEAR - vacation_days_used(user, now))


def current_vacation(user: User) -> Vacation | None:
    return Vacation.objects.filter(user=user, ended_at__isnull=True).first()


def _turn_based_seats(user_id: int):
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
    if current_vacation(user) is not None:
        raise Conflict(_("You are already on vacation."))
    if days < 1:
        raise GameError(_("A vacation lasts at least one day."))
    if days > vacation_days_left(user, now):
        raise GameError(_("That is more vacation days than you have left this year."))
    vacation = Vacation.objects.create(user=user, starts_at=now, ends_at=now + days * DAY)
    for seat in _turn_based_seats(user.pk):
        clocks.pause(seat, seat.table, now)
        seat.save(update_fields=clocks.CLOCK_FIELDS)
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
        clocks.resume(seat, seat.table, now)
        seat.save(update_fields=clocks.CLOCK_FIELDS)
    return 1
