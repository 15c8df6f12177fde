"""The table row a write works on: locked for the write, with its seats and its rules.

Every write to a table starts by locking its row, inside its transaction, so that two
requests for one table are handled one at a time: here (``table_locked``), or for a move, in
the one statement that also reads all the move needs (``move_statements.move_read``).
``table_seats`` reads the seats that a write then changes, each marked ``on_vacation`` for the
clocks it starts. Each such write moves the table's version on: a move's read relies on it.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Vacation
from games.errors import NotFound
from games.models import Seat, Table
from games.rules import AnyRules, get_rules
from games.selectors.pace import SEAT_PACE


def table_rules(*, table: Table) -> AnyRules:
    return get_rules(table.game)


def table_locked(*, table_id: int) -> Table:
    """The table's row, locked until the transaction ends (``select_for_update``)."""
    try:
        return Table.objects.select_for_update(of=("self",)).get(pk=table_id)
    except Table.DoesNotExist:
        raise NotFound(_("There is no such table.")) from None


def table_seats(*, table: Table) -> list[Seat]:
    """The table's seats with their users, each marked ``on_vacation`` (its player is away now).

    One query: a turn that starts for a player on vacation keeps its clock standing. Their
    pace is joined too, so that the new board a move draws needs no query for its badges.
    """
    away = Vacation.objects.filter(
        user_id=OuterRef("user_id"), ended_at__isnull=True, starts_at__lte=timezone.now()
    )
    return list(table.seats.select_related("user", SEAT_PACE).annotate(on_vacation=Exists(away)))
