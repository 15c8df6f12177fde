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
  and their timeouts. A seat's timeouts are its first ``by=timeout`` moves, as many as the
  seat counts (``Seat.timeouts``): when a tournament's round window closes
  (``bot_moves.table_play_out``), every move the bot then plays for the seat is stored as a
  timeout, but only the first one was;
- **games abandoned**: their seats a bot took for good (``Seat.replaced_by_bot``: too many
  timeouts, a withdrawal, a round window closed) at tables that finished in the window or
  still run.

Moves a bot made for a seat handed over (``by=bot``) are not the player's. Only tables where
another person sits count: a game alone or against bots keeps nobody waiting.

The counted turns are kept (``PaceMove``: each with its wait) so that a run reads a player's
turns, not the tables' logs. The job every minute (``pace_refresh_changed``) adds the turns
stored at the tables that moved since its last run (``PaceRun``; ``OVERLAP`` further back: a
move committed late is not missed, and one found twice is kept once), drops those that left the
window, and writes again the rows that changed: the players of the turns it added, of a seat a
bot took at a table that moved, and those whose row is ``stale_at`` (the oldest thing it counts
leaves the window then, or their reminder delay changed), each from the player's kept turns,
summed up by PostgreSQL. Whether another person sat at the table, and which of a seat's
timeouts are its own, is decided once, when a turn is first counted: a turn stays counted after
the other player's account was deleted (the seat left empty).

``pace_refresh`` counts everything afresh from the stored moves: the job's first run, and by hand
after moves were loaded or changed outside the services.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from django.db import connection, transaction
from django.db.models import (
    Count,
    DateTimeField,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import User
from games.models import ACTIVITY, Move, PaceMove, PaceRun, PlayerPace, Seat, Table

WINDOW = dt.timedelta(days=90)
DEFAULT_DELAY_MINUTES = User._meta.get_field("reminder_delay").get_default()
# A move committed after the last run began but made (``created_at``) before it: the next run
# looks this far further back. A move's transaction lasts milliseconds; a minute is ample.
OVERLAP = dt.timedelta(minutes=1)
_BATCH = 2000
_RUN = 1  # ``PaceRun``'s one row


@dataclass
class _SeatFacts:
    user_id: int
    timeouts: int  # the seat's own count: its first timeout moves, later ones played out
    timeouts_seen: int = 0


@dataclass
class _Tally:
    """A player's counted turns in the window, summed up: by SQL on PostgreSQL, in Python
    elsewhere (``_tallies``), to the same figures."""

    waits: int = 0  # their own moves
    within: int = 0  # of them, within their reminder delay
    timeouts: int = 0
    median: float | None = None  # of their own moves' waits
    abandoned: int = 0
    oldest: dt.datetime | None = None  # of what it counts: it leaves the window first

    def counts(self, moment: dt.datetime | None) -> None:
        if moment is not None and (self.oldest is None or moment < self.oldest):
            self.oldest = moment

    @property
    def moves(self) -> int:
        return self.waits + self.timeouts


def _delay_seconds(reminder_delay: int) -> int:
    minutes = reminder_delay if reminder_delay > 0 else DEFAULT_DELAY_MINUTES
    return int(minutes) * 60


# -- the counted turns, from the stored moves -------------------------------------------------


def _people_seats(tables: QuerySet[Table]) -> dict[tuple[int, int], _SeatFacts]:
    """The seats of a person at ``tables`` where another person sits, by table and position."""
    rows = Seat.objects.filter(table__in=tables, user__isnull=False, bot_level="").values_list(
        "table_id", "position", "user_id", "timeouts"
    )
    found = list(rows)
    people: dict[int, int] = defaultdict(int)
    for table_id, *_ in found:
        people[table_id] += 1
    return {
        (table_id, position): _SeatFacts(user_id, timeouts)
        for table_id, position, user_id, timeouts in found
        if people[table_id] >= 2
    }


_Turn = tuple[int, int, dt.datetime, float | None]  # a PaceMove's move, user, at and waited


def _turns(tables: QuerySet[Table], since: dt.datetime, *, every: bool) -> Iterator[_Turn]:
    """The turns to count of the moves made at ``tables`` since ``since``: one pass over their
    logs, each move with the time of the table's move before it; every timeout move too,
    whenever made, to tell a seat's own."""
    seats = _people_seats(tables)
    before = Move.objects.filter(table=OuterRef("table_id"), seq=OuterRef("seq") - 1)
    moves = (
        Move.objects.filter(table__in=tables)
        .filter(
            Q(by=Move.By.PLAYER, created_at__gte=since) | Q(by=Move.By.TIMEOUT),
        )
        .annotate(
            waited_from=Coalesce(
                Subquery(before.values("created_at")[:1]),
                F("table__started_at"),
                output_field=DateTimeField(),
            )
        )
        .order_by("table_id", "seq")
        .values_list("pk", "table_id", "position", "by", "created_at", "waited_from")
    )
    # The first count streams millions of moves through a cursor; a minute's few are read at
    # once (a cursor's plan is chosen for its first rows: twice as slow for all of them).
    read = moves.iterator(_BATCH) if every else moves
    for pk, table_id, position, by, created_at, waited_from in read:
        seat = seats.get((table_id, position))
        if seat is None:
            continue
        if by == Move.By.TIMEOUT:
            seat.timeouts_seen += 1
            if seat.timeouts_seen <= seat.timeouts and created_at >= since:
                yield pk, seat.user_id, created_at, None
            continue
        waited = max(0.0, (created_at - (waited_from or created_at)).total_seconds())
        yield pk, seat.user_id, created_at, waited


def _count_turns(since: dt.datetime, *, every: bool = False) -> set[int]:
    """Keeps the turns to count of the moves made since ``since`` (one already kept stays as
    it is); the players of those it kept (PostgreSQL), or of all it found (elsewhere)."""
    if connection.vendor == "postgresql":
        return _count_turns_in_sql(since)
    return _count_turns_here(_moved_since(since), since, every=every)


_COUNT = """
    WITH found AS (
        SELECT move.id, move.table_id, move.position, move.by, move.seq, move.created_at,
            seat.user_id, seat.timeouts
        FROM games_move move
        JOIN games_seat seat ON seat.table_id = move.table_id AND seat.position = move.position
        WHERE move.created_at >= %(since)s AND move.by IN ('player', 'timeout')
            AND NOT EXISTS (SELECT FROM games_pacemove kept WHERE kept.move_id = move.id)
            AND seat.user_id IS NOT NULL AND seat.bot_level = ''
            AND EXISTS (SELECT FROM games_seat other WHERE other.table_id = seat.table_id
                AND other.position <> seat.position AND other.user_id IS NOT NULL
                AND other.bot_level = '')
    )
    INSERT INTO games_pacemove (move_id, user_id, at, waited)
    SELECT found.id, found.user_id, found.created_at, CASE WHEN found.by = 'player' THEN
        GREATEST(0, EXTRACT(EPOCH FROM found.created_at - COALESCE(
            (SELECT before.created_at FROM games_move before
             WHERE before.table_id = found.table_id AND before.seq = found.seq - 1),
            (SELECT tabled.started_at FROM games_table tabled WHERE tabled.id = found.table_id),
            found.created_at))::float8) END
    FROM found
    WHERE found.by = 'player' OR found.timeouts >= (
        SELECT count(*) FROM games_move earlier WHERE earlier.table_id = found.table_id
            AND earlier.position = found.position AND earlier.by = 'timeout'
            AND earlier.seq <= found.seq)
    ON CONFLICT (move_id) DO NOTHING
    RETURNING user_id
"""


def _count_turns_in_sql(since: dt.datetime) -> set[int]:
    """``_count_turns_here`` in one statement, the moves found by their time (index
    ``move_counted_at``): no timestamp crosses into Python and back. A move whose turn the last
    run kept (half of them: the runs overlap by a minute) is passed over before its seat, the
    other seat and the move before it are looked up."""
    with connection.cursor() as cursor:
        cursor.execute(_COUNT, {"since": since})
        return {user_id for (user_id,) in cursor.fetchall()}


def _count_turns_here(tables: QuerySet[Table], since: dt.datetime, *, every: bool) -> set[int]:
    """The turns found by ``_turns`` at ``tables`` (those that moved since ``since``) and kept
    in batches: a database without PostgreSQL's statement."""
    players: set[int] = set()
    batch: list[_Turn] = []
    for turn in _turns(tables, since, every=every):
        batch.append(turn)
        if len(batch) == _BATCH:
            players |= _keep(batch)
            batch = []
    if batch:
        players |= _keep(batch)
    return players


def _keep(turns: list[_Turn]) -> set[int]:
    kept = [PaceMove(move_id=m, user_id=u, at=at, waited=w) for m, u, at, w in turns]
    PaceMove.objects.bulk_create(kept, ignore_conflicts=True)
    return {turn[1] for turn in turns}


# -- each player's figures, from their counted turns ------------------------------------------


def _write_figures(since: dt.datetime, now: dt.datetime, players: set[int] | None) -> set[int]:
    """Writes the rows of ``players`` (or of everyone) from their kept turns in the window and
    their games abandoned; the players it wrote a row for. In one statement on PostgreSQL."""
    if connection.vendor == "postgresql":
        return _write_in_sql(since, now, players)
    return _write_here(since, now, players)


# The figures as ``_rows`` makes them: the median the mean of the two middle waits (one wait
# twice for an odd count; of n waits the ceil(n/2)-th and the ceil(n/2 + n * 1e-12)-th, one
# sort for both), rounded half to even as Python's ``round``; the window added as seconds.
_WRITE = """
    WITH summed AS (
        SELECT turn.user_id, count(turn.waited) AS waits,
            count(*) FILTER (WHERE turn.waited <= 60 * CASE WHEN player.reminder_delay > 0
                THEN player.reminder_delay ELSE %(default)s END) AS within,
            count(*) - count(turn.waited) AS timeouts,
            percentile_disc(ARRAY[0.5, 0.5 + 1e-12]) WITHIN GROUP (ORDER BY turn.waited)
                AS middle,
            min(turn.at) AS oldest
        FROM games_pacemove turn JOIN accounts_user player ON player.id = turn.user_id
        WHERE turn.at >= %(since)s {turns_of}
        GROUP BY turn.user_id
    ), abandoned AS (
        SELECT seat.user_id, count(*) AS games,
            min(tabled.finished_at) FILTER (WHERE tabled.status <> 'running') AS oldest
        FROM games_seat seat JOIN games_table tabled ON tabled.id = seat.table_id
        WHERE seat.replaced_by_bot AND seat.user_id IS NOT NULL AND seat.bot_level = ''
            AND (tabled.status = 'running' OR tabled.finished_at >= %(since)s) {seats_of}
            AND EXISTS (SELECT FROM games_seat other WHERE other.table_id = seat.table_id
                AND other.position <> seat.position AND other.user_id IS NOT NULL
                AND other.bot_level = '')
        GROUP BY seat.user_id
    ), figures AS (
        SELECT coalesce(summed.user_id, abandoned.user_id) AS user_id, summed.waits,
            summed.within, coalesce(summed.timeouts, 0) AS timeouts, summed.middle,
            coalesce(summed.waits + summed.timeouts, 0) AS moves,
            coalesce(abandoned.games, 0) AS abandoned,
            least(summed.oldest, abandoned.oldest) AS oldest
        FROM summed FULL JOIN abandoned ON abandoned.user_id = summed.user_id
    )
    INSERT INTO games_playerpace (user_id, median_seconds, within_delay_share, timeouts_per_100,
        abandoned, moves, stale_at, computed_at)
    SELECT user_id,
        CASE WHEN waits > 0 THEN round((middle[1] + middle[2]) / 2)::int END,
        CASE WHEN moves > 0 THEN within::float8 / moves END,
        CASE WHEN moves > 0 THEN (100 * timeouts)::float8 / moves ELSE 0 END,
        abandoned, moves, oldest + make_interval(secs => %(window)s), %(now)s
    FROM figures ORDER BY user_id
    ON CONFLICT (user_id) DO UPDATE SET median_seconds = excluded.median_seconds,
        within_delay_share = excluded.within_delay_share,
        timeouts_per_100 = excluded.timeouts_per_100, abandoned = excluded.abandoned,
        moves = excluded.moves, stale_at = excluded.stale_at, computed_at = excluded.computed_at
    RETURNING user_id
"""


def _write_in_sql(since: dt.datetime, now: dt.datetime, players: set[int] | None) -> set[int]:
    """``_write_here`` in one statement: the turns summed up, the games abandoned counted and
    the rows written by PostgreSQL, in the players' order (two runs never wait for each other's
    rows)."""
    # The players asked on both sides of the join: else PostgreSQL may merge with every account.
    chosen = "AND {}.user_id = ANY(%(players)s)"
    both = f"{chosen.format('turn')} AND player.id = ANY(%(players)s)"
    params = {
        "default": DEFAULT_DELAY_MINUTES,
        "since": since,
        "now": now,
        "window": WINDOW.total_seconds(),
        "players": sorted(players or ()),
    }
    statement = _WRITE.format(
        turns_of="" if players is None else both,
        seats_of="" if players is None else chosen.format("seat"),
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return {user_id for (user_id,) in cursor.fetchall()}


def _write_here(since: dt.datetime, now: dt.datetime, players: set[int] | None) -> set[int]:
    """The turns read and summed up here, the rows written by the ORM: a database without
    PostgreSQL's aggregates."""
    tallies = _tallies_read(since, players)
    _abandoned(since, tallies, players)
    rows = [PlayerPace(**row._asdict(), computed_at=now) for row in sorted(_rows(tallies))]
    PlayerPace.objects.bulk_create(
        rows,
        batch_size=500,
        update_conflicts=True,
        unique_fields=["user"],
        update_fields=[*_FIELDS, "computed_at", "stale_at"],
    )
    return set(tallies)


_FIELDS = ["median_seconds", "within_delay_share", "timeouts_per_100", "abandoned", "moves"]


def _tallies_read(since: dt.datetime, players: set[int] | None) -> dict[int, _Tally]:
    """The turns read and summed up here, for a database without PostgreSQL's aggregates."""
    turns = PaceMove.objects.filter(at__gte=since)
    if players is not None:
        turns = turns.filter(user__in=players)
    rows = turns.values_list("user_id", "at", "waited", "user__reminder_delay")
    waits: dict[int, list[float]] = defaultdict(list)
    tallies: dict[int, _Tally] = defaultdict(_Tally)
    for user_id, at, waited, delay in rows.iterator(_BATCH):
        tally = tallies[user_id]
        if waited is None:
            tally.timeouts += 1
        else:
            waits[user_id].append(waited)
            tally.waits += 1
            tally.within += waited <= _delay_seconds(delay)
        tally.counts(at)
    for user_id, theirs in waits.items():
        tallies[user_id].median = statistics.median(theirs)
    return tallies


def _abandoned(since: dt.datetime, tallies: dict[int, _Tally], players: set[int] | None) -> None:
    """Counts in ``tallies`` the players' seats a bot took for good at tables that still run or
    finished in the window, where another person sits."""
    people = (
        Seat.objects.filter(table=OuterRef("table_id"), user__isnull=False, bot_level="")
        .values("table_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    seats = Seat.objects.filter(replaced_by_bot=True, user__isnull=False, bot_level="")
    if players is not None:
        seats = seats.filter(user__in=players)
    rows = (
        seats.filter(Q(table__status=Table.Status.RUNNING) | Q(table__finished_at__gte=since))
        .annotate(people=Subquery(people, output_field=IntegerField()))
        .filter(people__gte=2)
        .values_list("user_id", "table__status", "table__finished_at")
    )
    for user_id, status, finished in rows:
        tally = tallies[user_id]
        tally.abandoned += 1
        if finished is not None and status != Table.Status.RUNNING:
            tally.counts(finished)  # no longer counted once it left the window


class _Row(NamedTuple):
    """A ``PlayerPace`` row's figures, as ``_write_here`` writes them."""

    user_id: int
    median_seconds: int | None
    within_delay_share: float | None
    timeouts_per_100: float
    abandoned: int
    moves: int
    stale_at: dt.datetime | None


def _rows(tallies: dict[int, _Tally]) -> list[_Row]:
    """Each tally's row."""
    rows = []
    for user_id, tally in tallies.items():
        moves = tally.moves
        rows.append(
            _Row(
                user_id=user_id,
                median_seconds=round(tally.median) if tally.median is not None else None,
                within_delay_share=tally.within / moves if moves else None,
                timeouts_per_100=100 * tally.timeouts / moves if moves else 0.0,
                abandoned=tally.abandoned,
                moves=moves,
                stale_at=tally.oldest + WINDOW if tally.oldest is not None else None,
            )
        )
    return rows


# -- the jobs ---------------------------------------------------------------------------------


@transaction.atomic
def pace_refresh(*, now: dt.datetime | None = None) -> int:
    """Counts every turn in the window afresh from the stored moves, writes every player's row
    (an upsert) and deletes the rows of players who no longer played in the window; how many
    rows it wrote. The job's first run, and by hand after moves were loaded or changed outside
    the services: the job every minute (``pace_refresh_changed``) adds to what this counted."""
    now = now or timezone.now()
    since = now - WINDOW
    PaceMove.objects.all().delete()
    _count_turns(since, every=True)
    written = _write_figures(since, now, None)
    PlayerPace.objects.filter(computed_at__lt=now).delete()
    PaceRun.objects.all().delete()
    PaceRun.objects.create(pk=_RUN, counted_to=now)
    return len(written)


# The key of the job's lock: a run that finds another one under way leaves it the work (the
# first count afresh takes a minute at 100,000 players, longer than the schedule's interval).
PACE_LOCK = 0x70616365


def _running_alone() -> bool:
    """Takes the job's lock until the transaction ends, if no other run holds it (PostgreSQL;
    the embedded default runs one loop)."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [PACE_LOCK])
        return bool(cursor.fetchone()[0])


def _moved_since(moment: dt.datetime) -> QuerySet[Table]:
    """The tables that moved or finished since ``moment``: by the index ``table_activity`` on
    PostgreSQL, whose GREATEST passes over a NULL. SQLite's MAX() of a NULL is NULL (a running
    table's ``finished_at``), so there the two are asked one by one."""
    if connection.vendor == "postgresql":
        return Table.objects.alias(active=ACTIVITY).filter(active__gte=moment)
    return Table.objects.filter(Q(last_move_at__gte=moment) | Q(finished_at__gte=moment))


@transaction.atomic
def pace_refresh_changed(
    *, now: dt.datetime | None = None, after: dt.datetime | None = None
) -> int:
    """Counts the turns stored since ``after`` (by default where the last run counted to),
    drops those that left the window, and writes again the rows that changed, as
    ``pace_refresh`` would write them: the players of the turns it counted, of a seat a bot took
    at a table that moved, and of the rows gone stale. Deletes the rows of those left with
    nothing in the window. How many rows it wrote. The first run is ``pace_refresh``."""
    now = now or timezone.now()
    since = now - WINDOW
    if not _running_alone():
        return 0
    last = PaceRun.objects.filter(pk=_RUN).first()
    if last is None:
        return pace_refresh(now=now)
    after = max((after or last.counted_to) - OVERLAP, since)
    moved = _moved_since(after).values("pk")
    players = _count_turns(after)
    PaceRun.objects.filter(pk=_RUN).update(counted_to=max(now, last.counted_to))
    handed = Seat.objects.filter(table__in=moved, replaced_by_bot=True, user__isnull=False)
    players.update(handed.values_list("user_id", flat=True))
    # A turn leaves the window when it is its player's oldest: their row is stale then.
    stale = set(PlayerPace.objects.filter(stale_at__lte=now).values_list("user_id", flat=True))
    PaceMove.objects.filter(user__in=stale, at__lt=since).delete()
    players |= stale
    if not players:
        return 0
    written = _write_figures(since, now, players)
    PlayerPace.objects.filter(user__in=players - written).delete()
    return len(written)


def pace_stale(*, user_id: int, now: dt.datetime) -> None:
    """The player's row is written again at the job's next run (their reminder delay, which
    their figures are measured against, changed)."""
    PlayerPace.objects.filter(user_id=user_id).update(stale_at=now)
