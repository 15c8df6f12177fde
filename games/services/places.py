"""Places on the leaderboards, written by a periodic job (``games.jobs.sweeps.sweep_places``)
so that no page counts them on load.

A rating's place is one more than the number of established ratings of its game above it: equal
ratings share a place (``rank()``). Counting them on a profile read tens of thousands of index
entries a game (15 ms at 100,000 players); the job ranks each game's established ratings at once
and writes only the places that changed. A provisional rating has no place; one that has just
become established gets its place at the next run.
"""

from __future__ import annotations

from django.db import connection, transaction

from games.models import PROVISIONAL_GAMES, Rating

# PostgreSQL and SQLite both read this statement.
_PLACES = """
UPDATE {table} AS r SET place = p.place
FROM (
    SELECT id, rank() OVER (PARTITION BY game ORDER BY ordinal DESC) AS place
    FROM {table} WHERE games_played >= %s
    UNION ALL
    SELECT id, NULL FROM {table} WHERE games_played < %s AND place IS NOT NULL
) AS p
WHERE r.id = p.id AND (p.place IS NULL OR r.place IS NULL OR r.place <> p.place)
"""


@transaction.atomic
def places_refresh() -> int:
    """Writes every rating's place on its game's leaderboard; returns how many changed."""
    with connection.cursor() as cursor:
        cursor.execute(
            _PLACES.format(table=Rating._meta.db_table), [PROVISIONAL_GAMES, PROVISIONAL_GAMES]
        )
        return int(cursor.rowcount)
