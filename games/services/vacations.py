"""Vacations: while one lasts, the clocks of the player's turn-based games stand still.

What a player has left comes from ``games.selectors.vacations``, read here under the lock of
the player's row so that two requests cannot both spend the same days.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User, Vacation
from games import extensions
from games.errors import Conflict, Forbidden, GameError
from games.models import Seat, Table
from games.selectors.vacations import DAY, vacation_current, vacation_left
from games.services import clocks, events


def _turn_based_seats(user_id: int) -> QuerySet[Seat]:
    """The player's seats whose turn it is at running tables, locked, their tables first.

    A move locks its table's row, then writes its seats: taking a seat before its table, a
    vacation starting while its player moved made each wait for the other (a deadlock, which
    PostgreSQL ends by failing one of them). The tables are locked in the order of their ids,
    as any two vacations would."""
    tables = (
        Table.objects.select_for_update(of=("self",))
        .filter(status=Table.Status.RUNNING, seats__user_id=user_id, seats__is_waiting=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    return (
        Seat.objects.select_for_update(of=("self",))
        .select_related("table", "user")
        .filter(user_id=user_id, is_waiting=True, table_id__in=list(tables))
        .order_by("table_id")
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
    for refusal in extensions.vacation_refusals:
        reason = refusal(user)
        if reason:
            raise Forbidden(reason)
    vacation = Vacation.objects.create(user=user, starts_at=now, ends_at=now + days * DAY)
    for seat in _turn_based_seats(user.pk):
        clocks.seat_clock_pause(seat=seat, table=seat.table, now=now)
        seat.save(update_fields=clocks.CLOCK_FIELDS)
        table_clocks_changed(table_id=seat.table_id)
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
        clocks.seat_clock_resume(seat=seat, table=seat.table, now=now)
        seat.save(update_fields=clocks.CLOCK_FIELDS)
        table_clocks_changed(table_id=seat.table_id)
    return 1


def table_clocks_changed(*, table_id: int) -> None:
    """A clock of the table stopped or started again: a new version, so that its board (cached
    by version) shows it, and open pages are told after the commit."""
    Table.objects.filter(pk=table_id).update(version=F("version") + 1)
    version = Table.objects.values_list("version", flat=True).get(pk=table_id)
    events.publish_on_commit(events=[events.table_changed(table_id=table_id, version=version)])
