"""Years of a site's data, written by SQL: players, finished tables (each a copy of a recorded
game: ``bench/years/recorded.py``) with their seats, moves, results and rating changes, the
running and open tables, and what the periodic sweeps read.

A plan table draws, once, each finished table's recorded game, players, time per move, dates and
whether it is rated or has bots; the tables, seats and moves are then inserted from it a slice
at a time, the moves in the order they were made across tables (as a site stores them).
Players play unevenly: half of the seats go to players drawn evenly, half to players drawn
from a skewed law (a few play very many games). One player, ``STAR``, sits at exactly
``profile_games`` finished tables and at ``STAR_RUNNING`` running ones. A fixed handful of
things is due when the data is made, the same at any size (``DUE``): so a sweep's work, and
its queries, do not depend on the size, only what it must look through does.
"""

from __future__ import annotations

import datetime as dt
import importlib
import time
from dataclasses import dataclass, field
from typing import Any

from allauth.account.models import EmailAddress
from django.utils import timezone

from accounts.models import ReminderCadence, User
from bench.years import history, rows, running
from bench.years.plan import (
    EVERY_CADENCE,
    RESERVED,
    STAR,
    Ids,
    Size,
    move_gap,
    seat_user,
    skewed_player,
    time_per_move,
)
from bench.years.recorded import Recorded, recorded_games
from community.models import Notification
from games.models import Move, RatingChange, Reminder, Seat, Table
from games.services.pace import pace_refresh
from games.services.places import steps_rebuild

# The players' records counted from their seats, as the migration that added them counts the
# games finished before it.
PLAYER_RECORDS = importlib.import_module("games.migrations.0017_player_records")

SPAN = dt.timedelta(days=4 * 365)
SLICE = 25_000  # finished tables a statement
BOT_SHARE = 0.08  # of the tables of several seats: the other seats are bots (never rated)
RATED_SHARE = 0.85  # of the tables of people only


def _check(size: Size) -> None:
    if size.players < RESERVED + 30:
        raise ValueError(f"at least {RESERVED + 30} players")
    if size.running < running.least_running():
        raise ValueError(f"at least {running.least_running()} running tables")
    if not 0 < size.profile_games <= size.tables:
        raise ValueError("the profile's games must be among the tables")


@dataclass
class Made:
    """What the generator made, for the measures and the report."""

    size: Size
    now: dt.datetime
    star: str = STAR
    seconds: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "size": self.size.__dict__,
            "now": self.now.isoformat(),
            "star": self.star,
            "seconds": self.seconds,
            "counts": self.counts,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Made:
        return cls(
            size=Size(**data["size"]),
            now=dt.datetime.fromisoformat(data["now"]),
            star=data["star"],
            seconds=data["seconds"],
            counts=data["counts"],
        )


class Steps:
    """Times each step of the generation, printing it as it ends."""

    def __init__(self, made: Made, echo: bool) -> None:
        self.made, self.echo = made, echo

    def __call__(self, name: str, work: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.monotonic()
        result = work(*args, **kwargs)
        seconds = time.monotonic() - started
        self.made.seconds[name] = round(seconds, 1)
        if self.echo:
            print(f"  {name}: {seconds:.1f} s", flush=True)
        return result


def generate(size: Size, *, now: dt.datetime | None = None, echo: bool = True) -> Made:
    """Fills the database Django is connected to (empty, or holding other rows: ids go after
    theirs). Returns what it made. Runs in whatever transaction the caller holds."""
    _check(size)
    made = Made(size=size, now=(now or timezone.now()).replace(microsecond=0))
    step = Steps(made, echo)
    finished = step("recorded finished games", recorded_games, size.recorded, finish=True)
    unfinished = step(
        "recorded running games", recorded_games, max(size.recorded // 2, 8), finish=False
    )
    ids = Ids(
        user0=rows.max_id(User), table0=rows.max_id(Table), players=size.players, now=made.now
    )
    step("recorded games copied in", _recorded_in, finished, unfinished)
    rows.run("SELECT setseed(0.31)")
    # The foreign keys' triggers off while loading (a check a row, at the commit, was most of
    # the time): every id the statements write is one they wrote before.
    rows.run("SET session_replication_role = replica")
    step("players", _players, size, ids)
    step("finished tables: plan", _plan, size, ids, len(finished))
    rows.run("SET maintenance_work_mem = '512MB'")
    with rows.indexes_later(Table, Seat, Move, RatingChange, Reminder, Notification):
        step("finished tables, seats, moves", _finished, size, ids, echo)
        step("rating changes and ratings", history.ratings, ids)
        step("running and open tables", running.running_tables, size, ids, finished, unfinished)
        step("reminders, notifications, sessions, vacations", history.history, size, ids)
        started = time.monotonic()
    made.seconds["indexes built"] = round(time.monotonic() - started, 1)
    rows.run("SET session_replication_role = DEFAULT")
    for model in (User, Table):
        rows.sequence_catch_up(model)
    step("players' records", rows.run, PLAYER_RECORDS.RECORDS_FROM_SEATS)
    step("players' pace (counted afresh, as the job's first run)", pace_refresh, now=made.now)
    # Loaded with the triggers off, the ratings' ladder among them.
    step("the leaderboards' ladder", steps_rebuild)
    made.counts = history.counts(ids)
    rows.run("DROP TABLE IF EXISTS years_game, years_game_move, years_plan, years_rplan")
    return made


def _recorded_in(finished: list[Recorded], unfinished: list[Recorded]) -> None:
    rows.run("DROP TABLE IF EXISTS years_game, years_game_move")
    rows.run(
        "CREATE TEMP TABLE years_game (t int PRIMARY KEY, finished bool NOT NULL,"
        " game text NOT NULL, num_seats int NOT NULL, options jsonb NOT NULL,"
        " seed bigint NOT NULL, state jsonb NOT NULL, outcome jsonb, moves int NOT NULL,"
        " waiting int[] NOT NULL, turns int[] NOT NULL)"
    )
    rows.run(
        "CREATE TEMP TABLE years_game_move (t int, seq int, position int, action jsonb,"
        " PRIMARY KEY (t, seq))"
    )
    games = list(enumerate([*finished, *unfinished]))
    rows.copy_rows(
        "years_game",
        [
            "t",
            "finished",
            "game",
            "num_seats",
            "options",
            "seed",
            "state",
            "outcome",
            "moves",
            "waiting",
            "turns",
        ],
        (
            (
                t,
                g.outcome is not None,
                g.game,
                g.num_seats,
                g.options,
                g.seed,
                g.state,
                g.outcome,
                len(g.moves),
                g.waiting,
                g.turns,
            )
            for t, g in games
        ),
    )
    rows.copy_rows(
        "years_game_move",
        ["t", "seq", "position", "action"],
        (
            (t, seq, position, action)
            for t, g in games
            for seq, (position, action) in enumerate(g.moves, start=1)
        ),
    )
    rows.run("ANALYZE years_game; ANALYZE years_game_move")


def _players(size: Size, ids: Ids) -> None:
    start = ids.now - SPAN
    zones = (
        "ARRAY['UTC','Europe/Prague','Europe/Bratislava','Europe/Budapest','Europe/Madrid',"
        "'America/New_York','Asia/Tokyo']"
    )
    rows.insert_select(
        User,
        {
            "id": "%(user0)s + i",
            "password": "'!'",
            "username": "CASE WHEN i = 1 THEN %(name)s ELSE 'y' || (%(user0)s + i) END",
            "first_name": "''",
            "last_name": "''",
            "email": "'y' || (%(user0)s + i) || '@example.org'",
            "is_superuser": "false",
            "is_staff": "false",
            "is_active": "true",
            "date_joined": "%(start)s - make_interval(days => floor(random() * 300)::int)",
            "last_login": "%(now)s - make_interval(days => floor(random() * 60)::int)",
            "display_name": "CASE WHEN mod(i, 3) = 0 THEN 'Player ' || i ELSE '' END",
            "time_zone": f"({zones})[1 + mod(i, 7)]",
        },
        "FROM generate_series(1, %(players)s) i",
        ids.params(name=STAR, start=start, players=size.players),
    )
    # Two of the players due a reminder have a cadence of their own: the sweep reads their
    # last e-mail (of any table) for them.
    every = [ids.due_player("reminder", k) for k in range(EVERY_CADENCE)]
    User.objects.filter(pk__in=every).update(reminder_cadence=ReminderCadence.EVERY)
    rows.insert_select(
        EmailAddress,
        {"user_id": "u.id", "email": "u.email", "verified": "true", "primary": "true"},
        "FROM accounts_user u WHERE u.id > %(user0)s",
        ids.params(),
    )


def _plan(size: Size, ids: Ids, recorded: int) -> None:
    """One row a finished table: its recorded game, players, time per move and dates."""
    rows.run("DROP TABLE IF EXISTS years_plan")
    rows.run(
        f"""CREATE TEMP TABLE years_plan AS
        SELECT d.g, %(table0)s + d.g AS id, d.t, y.game, y.num_seats, y.moves,
            CASE WHEN d.star THEN mod(d.g, y.num_seats)::int END AS star_pos,
            NULL::int AS due_pos, NULL::bigint AS due_user, d.h,
            (NOT d.star AND y.num_seats > 1 AND d.u_bots < %(bots)s) AS bots,
            (y.num_seats > 1 AND NOT (NOT d.star AND d.u_bots < %(bots)s)
                AND d.u_rated < %(rated)s) AS rated,
            d.spm, d.started_at,
            least(d.started_at + make_interval(secs => {move_gap("d.spm", "d.u_gap")} * y.moves),
                %(now)s - interval '1 hour') AS finished_at
        FROM (
            SELECT g, floor(random() * %(recorded)s)::int AS t,
                mod((g - 1) * %(star_games)s, %(tables)s) < %(star_games)s AS star,
                {skewed_player()} AS h,
                random() AS u_bots, random() AS u_rated, random() AS u_gap,
                {time_per_move("random()")} AS spm,
                %(start)s + make_interval(secs => (g - 1)::float8 / %(tables)s * %(spread)s)
                    AS started_at
            FROM generate_series(1::bigint, %(tables)s) g
        ) d JOIN years_game y USING (t)""",
        ids.params(
            recorded=recorded,
            star_games=size.profile_games,
            tables=size.tables,
            bots=BOT_SHARE,
            rated=RATED_SHARE,
            start=ids.now - SPAN,
            spread=(SPAN - dt.timedelta(days=3)).total_seconds(),
        ),
    )
    rows.run("ALTER TABLE years_plan ADD PRIMARY KEY (g); ANALYZE years_plan")


def _finished(size: Size, ids: Ids, echo: bool) -> None:
    source = "FROM years_plan p JOIN years_game y USING (t) WHERE p.g BETWEEN %(a)s AND %(b)s"
    made_at = "p.started_at - interval '7 minutes'"
    moved_at = "p.started_at + (p.finished_at - p.started_at) * (m.seq::float8 / p.moves)"
    started = time.monotonic()
    for a in range(1, size.tables + 1, SLICE):
        params = ids.params(a=a, b=min(a + SLICE - 1, size.tables))
        rows.insert_select(
            Table,
            {
                "id": "p.id",
                "game": "p.game",
                "options": "y.options",
                "num_seats": "p.num_seats",
                "status": "'finished'",
                "seconds_per_move": "p.spm",
                "rated": "p.rated",
                "created_by_id": seat_user("p", "0"),
                "invite_code": "'y' || p.id",
                "seed": "y.seed",
                "state": "y.state",
                "version": "p.num_seats + p.moves",
                "moves_played": "p.moves",
                "outcome": "y.outcome",
                "created_at": made_at,
                "started_at": "p.started_at",
                "finished_at": "p.finished_at",
                "last_move_at": "p.finished_at",
            },
            source + " ORDER BY p.g",
            params,
        )
        rows.insert_select(
            Seat,
            {
                "table_id": "p.id",
                "position": "s.pos",
                "user_id": seat_user("p", "s.pos"),
                "bot_level": "CASE WHEN p.bots AND s.pos > 0 THEN 'medium' ELSE '' END",
                "turn": "y.turns[s.pos + 1]",
                "rank": "(y.outcome->'ranks'->>s.pos)::int",
                "score": "(y.outcome->'scores'->>s.pos)::float8",
                "finished_at": "p.finished_at",
                "joined_at": made_at,
            },
            "FROM years_plan p JOIN years_game y USING (t)"
            " CROSS JOIN LATERAL generate_series(0, p.num_seats - 1) AS s(pos)"
            " WHERE p.g BETWEEN %(a)s AND %(b)s ORDER BY p.g, s.pos",
            params,
        )
        rows.insert_select(
            Move,
            {
                "table_id": "p.id",
                "seq": "m.seq",
                "version": "p.num_seats + m.seq",
                "position": "m.position",
                "action": "m.action",
                "by": "CASE WHEN p.bots AND m.position > 0 THEN 'bot' ELSE 'player' END",
                "created_at": moved_at,
            },
            "FROM years_plan p JOIN years_game_move m USING (t)"
            f" WHERE p.g BETWEEN %(a)s AND %(b)s ORDER BY {moved_at}, p.id, m.seq",
            params,
        )
        done = min(a + SLICE - 1, size.tables)
        if echo and (done // SLICE) % 8 == 0 and done < size.tables:
            rate = done / (time.monotonic() - started)
            print(f"    {done:,} finished tables ({rate:,.0f} a second)", flush=True)
