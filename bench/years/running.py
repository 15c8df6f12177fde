"""The tables still in play when the data is made: open ones waiting for players in the lobby, and
running ones, each a recorded game stopped halfway (its state the replay of its seed and moves),
whose waiting seats' clocks run out over the coming days.

The running tables come in groups: the star's (``STAR_RUNNING``), then ``DUE`` tables whose
waiting seat's time ran out a minute ago, ``DUE`` whose "your turn" reminder, ``DUE`` whose
"time is nearly up" warning fell due, and ``VACATIONS_DUE`` whose player's vacation ended a
minute ago (the seat's clock paused), each due seat a reserved player's (``DUE_PLAYERS``), at a
table that waits for that seat alone; then all the others.
"""

from __future__ import annotations

from accounts.models import Vacation
from bench.years import rows
from bench.years.plan import (
    DUE,
    DUE_PLAYERS,
    EVERY_CADENCE,
    REMINDER_DELAY,
    STAR_RUNNING,
    VACATIONS_DUE,
    Ids,
    Size,
    move_gap,
    seat_user,
    skewed_player,
    time_per_move,
)
from bench.years.recorded import Recorded
from community.models import Notification
from games.models import Move, Seat, Table

OPEN_SHARE = 20  # one table in this many waits for players
GROUPS = [("star", STAR_RUNNING), ("deadline", DUE), ("reminder", DUE), ("warning", DUE)]
GROUPS += [("vacation", VACATIONS_DUE)]
WARNING_SHARE = 5  # games.services.clocks: the warning when a fifth of the time is left


def least_running() -> int:
    return 1 + sum(count for _kind, count in GROUPS) + 1


def _bounds(running: int) -> list[tuple[str, int, int]]:
    """(kind, first, last) of each group of ``r`` (1 to ``running``); the rest are "normal"."""
    bounds = [("open", 1, max(1, running // OPEN_SHARE))]
    for kind, count in GROUPS:
        first = bounds[-1][2] + 1
        bounds.append((kind, first, first + count - 1))
    return bounds


def running_tables(
    size: Size, ids: Ids, finished: list[Recorded], unfinished: list[Recorded]
) -> None:
    count = size.running
    bounds = _bounds(count)
    kind = " ".join(f"WHEN r BETWEEN {a} AND {b} THEN '{k}'" for k, a, b in bounds)
    first = " ".join(f"WHEN r BETWEEN {a} AND {b} THEN {a}" for _k, a, b in bounds)
    offset = " ".join(f"WHEN '{k}' THEN {n}" for k, n in DUE_PLAYERS.items())
    base = len(finished)
    single = [base + i for i, g in enumerate(unfinished) if len(g.waiting) == 1]
    every = list(range(base, base + len(unfinished)))
    assert single, "no recorded running game waits for one seat alone"
    due = "d.kind IN ('deadline', 'reminder', 'warning', 'vacation')"
    rows.run("DROP TABLE IF EXISTS years_rplan")
    rows.run(
        f"""CREATE TEMP TABLE years_rplan AS
        SELECT d.r, %(table0)s + %(tables)s + d.r AS id, d.t, d.kind, y.game, y.num_seats,
            y.moves, y.waiting,
            CASE WHEN d.kind = 'star' THEN mod(d.r, y.num_seats)::int END AS star_pos,
            CASE WHEN {due} THEN y.waiting[1] END AS due_pos,
            CASE WHEN {due} THEN %(last_user)s - (CASE d.kind {offset} END) - (d.r - d.first)
                END AS due_user,
            d.r - d.first AS k, d.h, false AS bots, d.spm, d.u < 0.85 AS rated,
            1 + mod(d.r, y.num_seats - 1)::int AS filled,
            d.ws AS waiting_since,
            d.ws - make_interval(secs => {move_gap("d.spm", "d.u")} * y.moves) AS started_at,
            CASE WHEN d.kind = 'open' THEN %(now)s - make_interval(secs => d.u * 259200)
                ELSE d.ws - make_interval(secs => {move_gap("d.spm", "d.u")} * y.moves)
                    - interval '10 minutes' END AS created_at
        FROM (
            SELECT e.*, CASE e.kind
                WHEN 'deadline' THEN %(now)s - make_interval(secs => e.spm + 60)
                WHEN 'reminder' THEN %(now)s - %(delay)s - interval '30 seconds'
                WHEN 'warning' THEN %(now)s - make_interval(secs => 0.8 * e.spm + 30)
                WHEN 'vacation' THEN %(now)s - make_interval(secs => 0.5 * e.spm)
                ELSE %(now)s - make_interval(secs => random() * 0.9 * e.spm) END AS ws
            FROM (
                SELECT c.*, CASE WHEN c.kind IN ('deadline', 'reminder', 'warning', 'vacation')
                    THEN 86400 ELSE {time_per_move("random()")} END AS spm,
                    CASE WHEN c.kind IN ('deadline', 'reminder', 'warning', 'vacation')
                    THEN (%(single)s::int[])[1 + floor(random() * %(singles)s)::int]
                    ELSE (%(every)s::int[])[1 + floor(random() * %(everys)s)::int] END AS t
                FROM (
                    SELECT r, CASE {kind} ELSE 'normal' END AS kind,
                        CASE {first} ELSE 0 END AS first, {skewed_player()} AS h, random() AS u
                    FROM generate_series(1, %(running)s) r
                ) c
            ) e
        ) d JOIN years_game y USING (t)""",
        ids.params(
            tables=size.tables,
            running=count,
            last_user=ids.user0 + ids.players,
            delay=REMINDER_DELAY,
            single=single,
            singles=len(single),
            every=every,
            everys=len(every),
        ),
    )
    rows.run("ALTER TABLE years_rplan ADD PRIMARY KEY (r); ANALYZE years_rplan")
    _tables(ids)
    _seats(ids)
    _moves(ids)
    _due_things(ids)


def _tables(ids: Ids) -> None:
    is_open = "p.kind = 'open'"
    rows.insert_select(
        Table,
        {
            "id": "p.id",
            "game": "p.game",
            "options": "y.options",
            "num_seats": "p.num_seats",
            "status": f"CASE WHEN {is_open} THEN 'open' ELSE 'running' END",
            "seconds_per_move": "p.spm",
            "rated": "p.rated",
            "created_by_id": seat_user("p", "0"),
            "invite_code": "'y' || p.id",
            "seed": f"CASE WHEN {is_open} THEN NULL ELSE y.seed END",
            "state": f"CASE WHEN {is_open} THEN NULL ELSE y.state END",
            "version": f"CASE WHEN {is_open} THEN p.filled - 1 ELSE p.num_seats + p.moves END",
            "moves_played": f"CASE WHEN {is_open} THEN 0 ELSE p.moves END",
            "created_at": "p.created_at",
            "started_at": f"CASE WHEN {is_open} THEN NULL ELSE p.started_at END",
            "last_move_at": f"CASE WHEN {is_open} OR p.moves = 0 THEN NULL"
            " ELSE p.waiting_since END",
        },
        "FROM years_rplan p JOIN years_game y USING (t) ORDER BY p.r",
        ids.params(),
    )


def _seats(ids: Ids) -> None:
    waiting = "(p.kind <> 'open' AND s.pos = ANY(p.waiting))"
    due_seat = "s.pos = p.due_pos"
    paused = f"(p.kind = 'vacation' AND {due_seat})"
    deadline = "p.waiting_since + make_interval(secs => p.spm)"
    warn = f"{deadline} - make_interval(secs => p.spm::float8 / {WARNING_SHARE})"
    reminder = "p.waiting_since + %(delay)s"
    cadence_own = f"(p.kind = 'reminder' AND {due_seat} AND p.k < {EVERY_CADENCE})"
    rows.insert_select(
        Seat,
        {
            "table_id": "p.id",
            "position": "s.pos",
            "user_id": seat_user("p", "s.pos"),
            "bot_level": "''",
            "is_waiting": waiting,
            "waiting_since": f"CASE WHEN {waiting} THEN p.waiting_since END",
            "turn": f"y.turns[s.pos + 1] + CASE WHEN {waiting} THEN 1 ELSE 0 END",
            "deadline": f"CASE WHEN {waiting} AND NOT {paused} THEN {deadline} END",
            "paused_remaining": f"CASE WHEN {paused} THEN make_interval(secs => 0.5 * p.spm) END",
            "reminder_due_at": f"CASE WHEN NOT {waiting} OR {paused} THEN NULL"
            f" WHEN p.kind = 'reminder' AND {due_seat} THEN {reminder}"
            f" WHEN {reminder} > %(now)s THEN {reminder} END",
            "warn_at": f"CASE WHEN NOT {waiting} OR {paused} OR {cadence_own} THEN NULL"
            f" WHEN p.kind = 'warning' AND {due_seat} THEN {warn}"
            f" WHEN {warn} > %(now)s THEN {warn} END",
            "joined_at": "p.created_at",
        },
        "FROM years_rplan p JOIN years_game y USING (t)"
        " CROSS JOIN LATERAL generate_series(0, p.num_seats - 1) AS s(pos)"
        " WHERE p.kind <> 'open' OR s.pos < p.filled ORDER BY p.r, s.pos",
        ids.params(delay=REMINDER_DELAY),
    )


def _moves(ids: Ids) -> None:
    moved_at = (
        "p.started_at + (p.waiting_since - p.started_at) * (m.seq::float8 / greatest(p.moves, 1))"
    )
    rows.insert_select(
        Move,
        {
            "table_id": "p.id",
            "seq": "m.seq",
            "version": "p.num_seats + m.seq",
            "position": "m.position",
            "action": "m.action",
            "by": "'player'",
            "created_at": moved_at,
        },
        "FROM years_rplan p JOIN years_game_move m USING (t)"
        f" WHERE p.kind <> 'open' ORDER BY {moved_at}, p.id, m.seq",
        ids.params(),
    )


def _due_things(ids: Ids) -> None:
    """A "your turn" notification unread at every seat a running table waits for (the
    deadline group's due by e-mail, the warning group's by push), and the vacations that
    ended a minute ago."""
    rows.insert_select(
        Notification,
        {
            "user_id": "s.user_id",
            "kind": "'turn'",
            "table_id": "p.id",
            "created_at": "s.waiting_since",
            "mail_due_at": "CASE WHEN p.kind = 'deadline' AND s.position = p.due_pos"
            " THEN %(now)s - interval '30 seconds' END",
            "push_due_at": "CASE WHEN p.kind = 'warning' AND s.position = p.due_pos"
            " THEN %(now)s - interval '5 seconds' END",
        },
        "FROM years_rplan p JOIN games_seat s ON s.table_id = p.id"
        " WHERE s.is_waiting AND s.user_id IS NOT NULL ORDER BY s.waiting_since",
        ids.params(),
    )
    rows.run(
        "UPDATE accounts_user u SET notes_unread = c.n FROM (SELECT user_id, count(*) AS n"
        " FROM community_notification WHERE read_at IS NULL AND shown GROUP BY user_id) c"
        " WHERE u.id = c.user_id AND u.id > %(user0)s",
        ids.params(),
    )
    rows.insert_select(
        Vacation,
        {
            "user_id": "p.due_user",
            "starts_at": "%(now)s - interval '7 days'",
            "ends_at": "%(now)s - interval '1 minute'",
        },
        "FROM years_rplan p WHERE p.kind = 'vacation'",
        ids.params(),
    )
