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
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import DateTimeField, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import User
from games.models import Move, PlayerPace, Seat, Table

WINDOW = dt.timedelta(days=90)
DEFAULT_DELAY_MINUTES = User._meta.get_field("reminder_delay").get_default()
_FIELDS = ["median_seconds", "within_delay_share", "timeouts_per_100", "abandoned", "moves"]


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

    @property
    def moves(self) -> int:
        return len(self.durations) + self.timeouts


def _delay_seconds(reminder_delay: int) -> int:
    minutes = reminder_delay if reminder_delay > 0 else DEFAULT_DELAY_MINUTES
    return int(minutes) * 60


def _seats(since: dt.datetime, tallies: dict[int, _Tally]) -> dict[tuple[int, int], _SeatFacts]:
    """The players' seats at tables that moved in the window (a table with a move in it has
    its ``last_move_at`` in it), finished in it or still run, where another person sits;
    counts their abandoned seats in ``tallies`` on the way. One query."""
    rows = (
        Seat.objects.filter(
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
    return seats


def _tally_moves(
    since: dt.datetime, seats: dict[tuple[int, int], _SeatFacts], tallies: dict[int, _Tally]
) -> None:
    """One pass over the players' moves and timeouts in the window, each with the time the
    table's move before it was made. By index: the tables that moved in the window, then
    their log (unique by table and number); ``Move.created_at`` has no index of its own."""
    before = Move.objects.filter(table=OuterRef("table_id"), seq=OuterRef("seq") - 1)
    moves = (
        Move.objects.filter(
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
            continue
        waited = max(0.0, (created_at - (waited_from or created_at)).total_seconds())
        tally = tallies[seat.user_id]
        tally.durations.append(waited)
        tally.within += waited <= seat.delay_seconds


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
    )


@transaction.atomic
def pace_refresh(*, now: dt.datetime | None = None) -> int:
    """Writes every player's pace row afresh (an upsert, in batches) and deletes the rows of
    players who no longer played in the window; how many rows it wrote. Safe to run twice or
    on two workers: only rows older than this run's are deleted."""
    now = now or timezone.now()
    since = now - WINDOW
    tallies: dict[int, _Tally] = defaultdict(_Tally)
    seats = _seats(since, tallies)
    _tally_moves(since, seats, tallies)
    rows = [_row(user_id, tally, now) for user_id, tally in tallies.items()]
    PlayerPace.objects.bulk_create(
        rows,
        batch_size=500,
        update_conflicts=True,
        unique_fields=["user"],
        update_fields=[*_FIELDS, "computed_at"],
    )
    PlayerPace.objects.filter(computed_at__lt=now).delete()
    return len(rows)
