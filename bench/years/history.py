"""What years of play leave besides the tables: each rated game's rating changes and the
players' ratings, a reminder and a notification a finished game's player, the signed-in
sessions, the vacations; and how many rows of each kind were made."""

from __future__ import annotations

from allauth.usersessions.models import UserSession
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session

from accounts.models import Vacation
from bench.years import rows
from bench.years.plan import SESSIONS_DUE, Ids, Size, seat_user
from community.models import Notification
from games.models import Rating, RatingChange, Reminder

SESSION_SHARE = 10  # one player in this many is signed in somewhere
VACATION_SHARE = 10  # one player in this many took a vacation once


def ratings(ids: Ids) -> None:
    """A rating change for every player of a rated table, chained per player and game (each
    starts where the one before ended, as the site's would), and each player's rating: where
    their last change left it. The winner gains, the last loses, the others between; the
    uncertainty shrinks with the games played."""

    def sigma(k: str) -> str:
        return f"greatest(0.85, 25.0 / 3 / sqrt(1 + 0.3 * {k}))"

    rows.insert_select(
        RatingChange,
        {
            "table_id": "c.table_id",
            "user_id": "c.user_id",
            "game": "c.game",
            "rank": "c.rank",
            "mu_before": "c.mu - c.delta",
            "sigma_before": sigma("c.k - 1"),
            "ordinal_before": f"c.mu - c.delta - 3 * {sigma('c.k - 1')}",
            "mu_after": "c.mu",
            "sigma_after": sigma("c.k"),
            "ordinal_after": f"c.mu - 3 * {sigma('c.k')}",
            "created_at": "c.created_at",
        },
        f"""FROM (
            SELECT x.*, 25 + sum(x.delta) OVER w AS mu, row_number() OVER w AS k
            FROM (
                SELECT p.id AS table_id, {seat_user("p", "s.pos")} AS user_id, p.game,
                    (y.outcome->'ranks'->>s.pos)::int AS rank, p.finished_at AS created_at,
                    (p.num_seats - 1 - 2 * (y.outcome->'ranks'->>s.pos)::int)::float8
                        / (p.num_seats - 1) * 1.2 AS delta
                FROM years_plan p JOIN years_game y USING (t)
                CROSS JOIN LATERAL generate_series(0, p.num_seats - 1) AS s(pos)
                WHERE p.rated
            ) x
            WINDOW w AS (PARTITION BY x.user_id, x.game ORDER BY x.created_at, x.table_id)
        ) c ORDER BY c.created_at, c.table_id""",
        ids.params(),
    )
    rows.insert_select(
        Rating,
        {
            "user_id": "c.user_id",
            "game": "c.game",
            "mu": "c.mu_after",
            "sigma": "c.sigma_after",
            "ordinal": "c.ordinal_after",
            "games_played": "c.played",
            "last_played": "c.created_at",
        },
        """FROM (
            SELECT DISTINCT ON (user_id, game) user_id, game, mu_after, sigma_after,
                ordinal_after, created_at, count(*) OVER (PARTITION BY user_id, game) AS played
            FROM games_ratingchange WHERE table_id > %(table0)s
            ORDER BY user_id, game, created_at DESC, id DESC
        ) c""",
        ids.params(),
    )


def history(size: Size, ids: Ids) -> None:
    """What years of play leave besides the tables: a "your turn" reminder sent to each player
    of a finished game (once; a site sends one a turn), a "game ended" notification read, the
    signed-in sessions (a few expired, a few device rows without their session), vacations
    taken long ago, and a few due now."""
    finished = (
        "FROM games_seat s JOIN games_table t ON t.id = s.table_id"
        " WHERE t.id > %(table0)s AND t.status = 'finished' AND s.user_id IS NOT NULL"
        " AND s.bot_level = ''"
    )
    halfway = "t.started_at + (t.finished_at - t.started_at) / 2"
    rows.insert_select(
        Reminder,
        {
            "seat_id": "s.id",
            "user_id": "s.user_id",
            "turn": "1",
            "kind": "'turn'",
            "created_at": halfway,
            "sent_at": halfway,
        },
        finished + f" ORDER BY {halfway}",
        ids.params(),
    )
    rows.insert_select(
        Notification,
        {
            "user_id": "s.user_id",
            "kind": "'game_ended'",
            "table_id": "t.id",
            "created_at": "t.finished_at",
            "read_at": "t.finished_at + interval '1 hour'",
        },
        finished + " ORDER BY t.finished_at",
        ids.params(),
    )
    signed_in = max(size.players // SESSION_SHARE, SESSIONS_DUE + 1)
    session = {
        "session_key": "md5('y-session-' || i)",
        "session_data": "%(data)s",
        "expire_date": "CASE WHEN i <= %(due)s THEN %(now)s - interval '1 day'"
        " ELSE %(now)s + make_interval(days => 1 + mod(i, 14)) END",
    }
    params = ids.params(data=SessionStore().encode({}), due=SESSIONS_DUE, signed_in=signed_in)
    rows.insert_select(Session, session, "FROM generate_series(1, %(signed_in)s) i", params)
    rows.insert_select(  # the last few: device rows whose session is gone
        UserSession,
        {
            "user_id": "%(user0)s + 2 + mod(i * 7, %(others)s)",
            "created_at": "%(now)s - make_interval(days => mod(i, 30))",
            "last_seen_at": "%(now)s - make_interval(hours => mod(i, 48))",
            "ip": "'127.0.0.1'",
            "session_key": "md5('y-session-' || i)",
            "user_agent": "'bench/years'",
        },
        "FROM generate_series(1, %(signed_in)s + %(due)s) i",
        params,
    )
    rows.insert_select(
        Vacation,
        {
            "user_id": "%(user0)s + 2 + mod(i * 13, %(others)s)",
            "starts_at": "%(now)s - make_interval(days => 30 + mod(i * 37, 1200))",
            "ends_at": "%(now)s - make_interval(days => 23 + mod(i * 37, 1200))",
            "ended_at": "%(now)s - make_interval(days => 23 + mod(i * 37, 1200))",
        },
        "FROM generate_series(1, %(count)s) i",
        ids.params(count=size.players // VACATION_SHARE),
    )


def counts(ids: Ids) -> dict[str, int]:
    """How many rows of each kind the generator made."""
    found = {}
    for name, sql in {
        "players": "SELECT count(*) FROM accounts_user WHERE id > %(user0)s",
        "finished tables": "SELECT count(*) FROM games_table"
        " WHERE id > %(table0)s AND status = 'finished'",
        "running tables": "SELECT count(*) FROM games_table"
        " WHERE id > %(table0)s AND status = 'running'",
        "open tables": "SELECT count(*) FROM games_table WHERE id > %(table0)s AND status = 'open'",
        "seats": "SELECT count(*) FROM games_seat WHERE table_id > %(table0)s",
        "moves": "SELECT count(*) FROM games_move WHERE table_id > %(table0)s",
        "rating changes": "SELECT count(*) FROM games_ratingchange WHERE table_id > %(table0)s",
        "ratings": "SELECT count(*) FROM games_rating WHERE user_id > %(user0)s",
        "profile's finished games": "SELECT count(*) FROM games_seat s"
        " JOIN games_table t ON t.id = s.table_id"
        " WHERE s.user_id = %(star)s AND t.status = 'finished'",
        "notifications": "SELECT count(*) FROM community_notification WHERE user_id > %(user0)s",
        "reminders": "SELECT count(*) FROM games_reminder WHERE user_id > %(user0)s",
        "paces": "SELECT count(*) FROM games_playerpace WHERE user_id > %(user0)s",
    }.items():
        found[name] = int(rows.value(sql, ids.params()))
    return found
