"""A player's vacations as the pages show them: the running one, and what is left this year.

``games.services.vacations`` reads the same figures to decide whether a vacation may start.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User, Vacation

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
