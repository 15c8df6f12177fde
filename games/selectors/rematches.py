"""A finished table's rematch as one viewer sees it: the offer its players were made."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Subquery, Value
from django.utils import timezone

from games.models import Seat, Table

# games.services.tables.REMATCH_HOURS (a selector does not import a service).
REMATCH_AGE = dt.timedelta(hours=24)


@dataclass(frozen=True)
class NextTable:
    pk: int
    is_open: bool  # still waiting for players: a player of the old table may join it
    mine: bool  # the viewer has a seat there already
    opened_by: int | None  # the position, at the finished table, of the player who opened it


def next_table_for(table: Table, user_id: int | None) -> NextTable | None:
    """The table that ``table``'s players were invited to after it ended, unless it was aborted
    (then "Rematch" offers another): one query, none while there is no next table."""
    if table.next_table_id is None:
        return None
    mine = (
        Exists(Seat.objects.filter(table_id=OuterRef("pk"), user_id=user_id))
        if user_id is not None
        else Value(False)
    )
    opener = Seat.objects.filter(table_id=table.pk, user_id=OuterRef("created_by_id"))
    row = (
        Table.objects.filter(pk=table.next_table_id)
        .exclude(status=Table.Status.ABORTED)
        .annotate(mine=mine, opened_by=Subquery(opener.values("position")[:1]))
        .values_list("status", "mine", "opened_by", "created_at")
        .first()
    )
    if row is None:
        return None
    status, is_mine, opened_by, created_at = row
    if status == Table.Status.OPEN and created_at <= timezone.now() - REMATCH_AGE:
        return None  # withdrawn after REMATCH_HOURS: "Rematch" offers another
    return NextTable(table.next_table_id, status == Table.Status.OPEN, bool(is_mine), opened_by)
