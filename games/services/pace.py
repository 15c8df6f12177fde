"""Each player's reputation for pace, summed up from the moves already stored: one
``PlayerPace`` row per player, written by a periodic job (``games.jobs.tasks.sweep_pace``) so
that no page computes it on load.

Over the last ``WINDOW`` (90 days), for each player:

- the **median time to move** of their own moves: a move's ``created_at`` less the one of the
  table's move before it (``seq - 1``), or the table's ``started_at`` for its first move. In a
  simultaneous phase the move before may be another seat's, made while this one was thinking
  too: an accepted approximation (it can only make the player look quicker than they were);
- the **share of their turns played within their reminder delay** (before the "your turn"
  e-mail would go): a timeout never is. A player reminded at once (0) or never is measured
  against the site's default delay, ``DEFAULT_DELAY_MINUTES``;
- **timeouts per 100 moves**, where the moves are the turns they were due: their own moves
  and their timeouts. A seat's timeouts are its ``by=timeout`` moves, at most as many as the
  seat counts (``Seat.timeouts``): when a tournament's round window closes
  (``bot_moves.table_play_out``), every move the bot then plays for the seat is stored as a
  timeout, but only the first one was;
- **games abandoned**: their seats a bot took for good (``Seat.replaced_by_bot``: too many
  timeouts, a withdrawal, a round window closed) at tables that finished in the window or
  still run.

Moves a bot made for a seat handed over (``by=bot``) are not the player's. Only tables where
another person sits count: a game alone or against bots keeps nobody waiting.

The hourly job (``pace_refresh_changed``) writes again only the rows that can have changed since
its last run, each from the player's whole window as the full job (``pace_refresh``, daily)
writes it: the players seated at a table that moved, finished or was seated since, and those
whose row is ``stale_at`` (the oldest thing it counts leaves the window then, or their reminder
delay changed). What it cannot see (a table aborted or a seat given up without a move, an
account closed) the daily full run puts right.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import DateTimeField, Exists, F, Max, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import User
from games.models import ACTIVITY, Move, PlayerPace, Seat, Table

WINDOW = dt.timedelta(days=90)
DEFAULT_DELAY_MINUTES = User._meta.get_field("reminder_delay").get_default()
# A move committed after the last run began but made (``created_at``) before it: the next run
# looks this far further back for tables that moved.
OVERLAP = dt.timedelta(minutes=10)


@dataclass
class _SeatFacts:
    user_id: int
    timeouts: int  # the seat's own count: more timeout moves than this were played-out ones
    delay_seconds: int
    counted_timeouts: int = 0


@dataclass
class _Tally:
    durations: list[float] = field(default_factory=list)
    within: int = 0
    timeouts: int = 0
    abandoned: int = 0
    oldest: dt.datetime | None = None  # of what it counts: it leaves the window first

    def counts(self, moment: dt.datetime) -> None:
        if self.oldest is None or moment < self.oldest:
            self.oldest = moment

    @property
    def moves(self) -> int:
        return len(self.durations) + self.timeouts


def _delay_seconds(reminder_delay: int) -> int:
    minutes = reminder_delay if reminder_delay > 0 else DEFAULT_DELAY_MINUTES
    return int(minutes) * 60


def _seats(
    since: dt.datetime, tallies: dict[int, _Tally], players: set[int] | None
) -> dict[tuple[int, int], _SeatFacts]:
    """The players' seats at tables that moved in the window (a table with a move in it has
    its ``last_move_at`` in it), finished in it or still run, where another person sits, at
    the tables of ``players`` (all of their seats: whether another person sits) or at all;
    counts their abandoned seats in ``tallies`` on the way. One query."""
    chosen = Seat.objects.all()
    if players is not None:
        chosen = chosen.filter(table__in=Seat.objects.filter(user__in=players).values("table_id"))
    rows = (
        chosen.filter(
            Q(table__last_move_at__gte=since)
            | Q(table__finished_at__gte=since)
            | Q(table__status=Table.Status.RUNNING)
        )
        .filter(user__isnull=False, bot_level="")
        .values_list(
            "table_id",
            "position",
            "user_id",
            "timeouts",
            "replaced_by_bot",
            "user__reminder_delay",
            "table__status",
            "table__finished_at",
        )
    )
    people: dict[int, int] = defaultdict(int)
    found = []
    for row in rows:
        people[row[0]] += 1
        found.append(row)
    seats: dict[tuple[int, int], _SeatFacts] = {}
    for table_id, position, user_id, timeouts, replaced, delay, status, finished in found:
        if people[table_id] < 2:
            continue
        seats[(table_id, position)] = _SeatFacts(user_id, timeouts, _delay_seconds(delay))
        recent = status == Table.Status.RUNNING or (finished is not None and finished >= since)
        if replaced and recent:
            tallies[user_id].abandoned += 1
            if finished is not None and status != Table.Status.RUNNING:
                tallies[user_id].counts(finished)  # no longer counted once it left the window
    return seats


def _tally_moves(
    since: dt.datetime,
    seats: dict[tuple[int, int], _SeatFacts],
    tallies: dict[int, _Tally],
    players: set[int] | None,
) -> None:
    """One pass over the moves and timeouts in the window (of ``players``' seats, or all), each
    with the time the table's move before it was made. By index: the tables that moved in the
    window, then their log (unique by table and number); ``Move.created_at`` has no index of
    its own."""
    before = Move.objects.filter(table=OuterRef("table_id"), seq=OuterRef("seq") - 1)
    logs = Move.objects.all()
    if players is not None:
        theirs = Seat.objects.filter(
            table=OuterRef("table_id"), position=OuterRef("position"), user__in=players
        )
        logs = logs.filter(Exists(theirs))
    moves = (
        logs.filter(
            table__last_move_at__gte=since,
            created_at__gte=since,
            by__in=[Move.By.PLAYER, Move.By.TIMEOUT],
        )
        .annotate(
            waited_from=Coalesce(
                Subquery(before.values("created_at")[:1]),
                F("table__started_at"),
                output_field=DateTimeField(),
            )
        )
        .order_by("table_id", "seq")
        .values_list("table_id", "position", "by", "created_at", "waited_from")
    )
    for table_id, position, by, created_at, waited_from in moves.iterator(chunk_size=2000):
        seat = seats.get((table_id, position))
        if seat is None:
            continue
        if by == Move.By.TIMEOUT:
            if seat.counted_timeouts < seat.timeouts:
                seat.counted_timeouts += 1
                tallies[seat.user_id].timeouts += 1
                tallies[seat.user_id].counts(created_at)
            continue
        waited = max(0.0, (created_at - (waited_from or created_at)).total_seconds())
        tally = tallies[seat.user_id]
        tally.durations.append(waited)
        tally.within += waited <= seat.delay_seconds
        tally.counts(created_at)


def _row(user_id: int, tally: _Tally, now: dt.datetime) -> PlayerPace:
    moves = tally.moves
    median = statistics.median(tally.durations) if tally.durations else None
    return PlayerPace(
        user_id=user_id,
        median_seconds=round(median) if median is not None else None,
        within_delay_share=tally.within / moves if moves else None,
        timeouts_per_100=100 * tally.timeouts / moves if moves else 0.0,
        abandoned=tally.abandoned,
        moves=moves,
        computed_at=now,
        stale_at=tally.oldest + WINDOW if tally.oldest is not None else None,
    )


def _tallies(since: dt.datetime, players: set[int] | None = None) -> dict[int, _Tally]:
    """Every player's tally, or those of ``players`` (others' may be partial: left out)."""
    tallies: dict[int, _Tally] = defaultdict(_Tally)
    seats = _seats(since, tallies, players)
    _tally_moves(since, seats, tallies, players)
    return tallies


_UPSERT = """
    INSERT INTO games_playerpace (user_id, median_seconds, within_delay_share, timeouts_per_100,
        abandoned, moves, stale_at, computed_at)
    SELECT row.*, %(now)s FROM unnest(%(user)s::bigint[], %(median)s::int[], %(share)s::float8[],
        %(timeouts)s::float8[], %(abandoned)s::int[], %(moves)s::int[],
        %(stale)s::timestamptz[]) AS row
    ON CONFLICT (user_id) DO UPDATE SET median_seconds = excluded.median_seconds,
        within_delay_share = excluded.within_delay_share,
        timeouts_per_100 = excluded.timeouts_per_100, abandoned = excluded.abandoned,
        moves = excluded.moves, stale_at = excluded.stale_at, computed_at = excluded.computed_at
"""


def _write(rows: list[PlayerPace], now: dt.datetime) -> None:
    """Every row in one statement (arrays, not a batch of rows a statement): a fixed number of
    queries for any number of players. In the players' order, as a second run writes them:
    two never wait for each other's rows."""
    rows = sorted(rows, key=lambda row: row.user_id)
    if not rows:
        return
    if connection.vendor != "postgresql":
        PlayerPace.objects.bulk_create(
            rows,
            batch_size=500,
            update_conflicts=True,
            unique_fields=["user"],
            update_fields=[*_FIELDS, "computed_at", "stale_at"],
        )
        return
    with connection.cursor() as cursor:
        cursor.execute(
            _UPSERT,
            {
                "now": now,
                "user": [r.user_id for r in rows],
                "median": [r.median_seconds for r in rows],
                "share": [r.within_delay_share for r in rows],
                "timeouts": [r.timeouts_per_100 for r in rows],
                "abandoned": [r.abandoned for r in rows],
                "moves": [r.moves for r in rows],
                "stale": [r.stale_at for r in rows],
            },
        )


_FIELDS = ["median_seconds", "within_delay_share", "timeouts_per_100", "abandoned", "moves"]


@transaction.atomic
def pace_refresh(*, now: dt.datetime | None = None) -> int:
    """Writes every player's pace row afresh (an upsert) and deletes the rows of players who
    no longer played in the window; how many rows it wrote. Safe to run twice or on two
    workers: only rows older than this run's are deleted. Daily: the hourly job writes only
    the rows that changed (``pace_refresh_changed``)."""
    now = now or timezone.now()
    tallies = _tallies(now - WINDOW)
    _write([_row(user_id, tally, now) for user_id, tally in tallies.items()], now)
    PlayerPace.objects.filter(computed_at__lt=now).delete()
    return len(tallies)


@transaction.atomic
def pace_refresh_changed(
    *, now: dt.datetime | None = None, after: dt.datetime | None = None
) -> int:
    """Writes again the rows that may have changed since ``after`` (the last run: the latest
    row's ``computed_at``), as ``pace_refresh`` would write them, and deletes those of players
    left with nothing in the window; how many rows it wrote. With no row yet, the full job."""
    now = now or timezone.now()
    if after is None:
        after = PlayerPace.objects.aggregate(last=Max("computed_at"))["last"]
        if after is None:
            return pace_refresh(now=now)
    after -= OVERLAP
    moved = Table.objects.alias(active=ACTIVITY).filter(active__gte=after).values("pk")
    players = set(
        Seat.objects.filter(table__in=moved, user__isnull=False).values_list("user_id", flat=True)
    )
    players.update(PlayerPace.objects.filter(stale_at__lte=now).values_list("user_id", flat=True))
    if not players:
        return 0
    tallies = _tallies(now - WINDOW, players)
    rows = [_row(user_id, tallies[user_id], now) for user_id in players if user_id in tallies]
    _write(rows, now)
    PlayerPace.objects.filter(user__in=players - set(tallies)).delete()
    return len(rows)


def pace_stale(*, user_id: int, now: dt.datetime) -> None:
    """The player's row is written again at the next hourly run (their reminder delay, which
    their figures are measured against, changed)."""
    PlayerPace.objects.filter(user_id=user_id).update(stale_at=now)
