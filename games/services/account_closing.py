"""What a closed account leaves at the tables (``accounts.closing``): its open tables close and
its seats at others' are freed, a bot plays its running seats to the end, and every board that
named it is drawn again (a cached part names the players, so each table's version moves on)."""

from __future__ import annotations

from django.db.models import F

from accounts.models import User
from games.models import Reminder, Seat, Table
from games.services.bot_moves import player_tables_leave, table_redraw


def player_games_close(*, user: User) -> None:
    running = Seat.objects.filter(user=user, table__status=Table.Status.RUNNING)
    # A seat a bot took over before (timeouts) is not left again: its table is only redrawn.
    bots_before = list(running.filter(replaced_by_bot=True).values_list("table_id", flat=True))
    player_tables_leave(user_id=user.pk)
    for table_id in bots_before:
        table_redraw(table_id=table_id)
    Reminder.objects.filter(user=user, sent_at__isnull=True).delete()
    # The tables no one moves at any more: their version moves on in one statement (a running
    # one's only under its lock, above: a bot's queued turn names the version it is for).
    done = Table.objects.filter(seats__user=user).exclude(status=Table.Status.RUNNING)
    Table.objects.filter(pk__in=done.values("pk")).update(version=F("version") + 1)
