"""Read-side queries for pages: each costs a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.db.models import Prefetch, QuerySet, prefetch_related_objects

from accounts.models import User
from accounts.relations import games_barred
from games.models import Seat, Table
from games.rules import View, get_rules
from games.selectors.pace import SEAT_PACE, seats_paced

LOBBY_OPEN_LIMIT = 50
LOBBY_FINISHED_LIMIT = 10
# A seat has no place until its game ends (``Seat.rank``): said of a player's seats at tables
# still open or running, it adds no condition but lets their index (``seat_unfinished``) find
# them among years of finished ones.
UNFINISHED = {"rank__isnull": True}

# Lobby rows never load a game's state: it grows with the game, the lobby must not.
_LOBBY_DEFER = ("state", "outcome", "options")


# What a row shows of a seat's player: a name (or "a former player", "(bot)") and a link. Their
# other columns (settings, addresses, times) are most of a player's row and are not read.
ROW_USER_FIELDS = frozenset({"id", "username", "display_name", "closed_at", "is_bot", "is_active"})


def row_seats() -> QuerySet[Seat]:
    """Seats with their players (as rows show them) and their pace, joined."""
    unread = [
        f"user__{field.name}"
        for field in User._meta.concrete_fields
        if field.name not in ROW_USER_FIELDS
    ]
    return Seat.objects.select_related("user", SEAT_PACE).defer(*unread)


def _rows(tables: QuerySet[Table]) -> QuerySet[Table]:
    """Tables as rows show them, without their seats (``_seated``)."""
    return tables.defer(*_LOBBY_DEFER)


def _seated(*lists: list[Table]) -> None:
    """Gives every row of the lists its seats (``table.seats.all()``) with their players and
    each player's pace (the badge beside their name): one query for all the lists' tables, as
    a prefetch of each list would make one per list."""
    tables = [table for listed in lists for table in listed]
    prefetch_related_objects(tables, Prefetch("seats", queryset=row_seats()))
    seats_paced(seat for table in tables for seat in table.seats.all())


def finished_seats(player: User | int) -> QuerySet[Seat]:
    """The player's seats at finished games, newest first: a range of ``seat_user_finished``
    (a game's end is set on its seats as it ends). The lobby's latest, a history's pages."""
    return Seat.objects.filter(user=player, finished_at__isnull=False).order_by(
        "-finished_at", "-table_id"
    )


@dataclass
class Lobby:
    my_tables: list[Table]
    waiting_for_me: set[int]
    open_tables: list[Table]
    finished_tables: list[Table]


def lobby_for(user: User | AnonymousUser) -> Lobby:
    if not user.is_authenticated:
        all_open = _rows(Table.objects.filter(status=Table.Status.OPEN, rematch_of=None))
        shown = list(all_open.order_by("-created_at")[:LOBBY_OPEN_LIMIT])
        _seated(shown)
        return Lobby([], set(), shown, [])
    active = [Table.Status.OPEN, Table.Status.RUNNING]
    my_seats = list(
        Seat.objects.filter(user=user, table__status__in=active, **UNFINISHED).values_list(
            "table_id", "is_waiting"
        )
    )
    waiting = {table_id for table_id, is_waiting in my_seats if is_waiting}
    mine = list(_rows(Table.objects.filter(pk__in=[t for t, _w in my_seats])))
    for table in mine:
        table.waiting_for_me = table.pk in waiting
    mine.sort(key=lambda t: (not t.waiting_for_me, t.status != Table.Status.RUNNING, -t.pk))
    open_tables = list(
        _rows(
            Table.objects.filter(status=Table.Status.OPEN, rematch_of=None)
            .exclude(seats__user=user)
            .exclude(seats__user__in=games_barred(user.pk))
        ).order_by("-created_at")[:LOBBY_OPEN_LIMIT]
    )
    # The latest found from one index alone (the player's seats with their game's end), then
    # only those ten tables read: years of games cost ten index entries, not rows.
    latest = finished_seats(user)
    finished = list(
        _rows(
            Table.objects.filter(pk__in=latest.values("table_id")[:LOBBY_FINISHED_LIMIT])
        ).order_by("-finished_at", "-pk")
    )
    _seated(mine, open_tables, finished)
    return Lobby(mine, waiting, open_tables, finished)


@dataclass
class TablePage:
    table: Table
    seats: list[Seat]
    position: int | None
    view: View | None

    @property
    def names(self) -> list[str]:
        return seat_names(self.seats, self.table.num_seats)


def seat_names(seats: list[Seat], num_seats: int) -> list[str]:
    """Each seat's name by position, in the active language ("Ada (bot)", "empty seat"); ""
    for a position without a seat: what the boards, the log and the replay name seats by."""
    by_position = {seat.position: str(seat.player_name) for seat in seats}
    return [by_position.get(position, "") for position in range(num_seats)]


def table_page_for(
    table: Table, user: User | AnonymousUser, seats: list[Seat] | None = None
) -> TablePage:
    """The table as ``user`` may see it: their seat's view, or the spectator's.

    ``seats`` (users loaded) spares the query when the caller has just read them.
    """
    if seats is None:
        seats = list(table.seats.select_related("user"))
    position = next(
        (s.position for s in seats if user.is_authenticated and s.user_id == user.pk), None
    )
    view = None
    if table.state is not None:
        rules = get_rules(table.game)
        view = rules.view(rules.from_json(table.state), position)
    return TablePage(table=table, seats=seats, position=position, view=view)
