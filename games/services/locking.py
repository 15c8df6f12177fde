"""The table row, locked for a write, and the seats that go with it."""

from __future__ import annotations

from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Vacation
from games.errors import NotFound
from games.models import Seat, Table
from games.rules import Rules, get_rules


def table_rules(table: Table) -> Rules:
    return get_rules(table.game)


def table_locked(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update(of=("self",)).get(pk=table_id)
    except Table.DoesNotExist:
        raise NotFound(_("There is no such table.")) from None


def table_seats(table: Table) -> list[Seat]:
    """The table's seats with their users, each marked ``on_vacation`` (its player is away now).

    One query: a turn that starts for a player on vacation keeps its clock standing.
    """
    away = Vacation.objects.filter(
        user_id=OuterRef("user_id"), ended_at__isnull=True, starts_at__lte=timezone.now()
    )
    return list(table.seats.select_related("user").annotate(on_vacation=Exists(away)))
