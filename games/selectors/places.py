"""Places on the leaderboards, counted when a page shows one, from the ladder the database keeps
(``RatingStep``).

A rating's place is one more than the number of established ratings of its game above it: equal
ratings share a place. Counting them in the ratings' index read tens of thousands of entries a
game (15 ms at 100,000 players), and ranking every game in a periodic job took 0.36 s a run
(bench.years). The ladder counts the established ratings by steps of a quarter of a point: a
place is the counts of the steps above the rating's own, plus the ratings above it in its own
step (a few hundred index entries at most). It is exact as soon as the rating is written: the
ladder is kept by triggers in the same transaction (migration 0019, ``services.places``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from django.db import connection

from games.models import PROVISIONAL_GAMES, STEPS_A_POINT, Rating, RatingStep

# The bound of established written in (a constant of the code, not a parameter): a plan made
# for any parameters (a prepared statement's generic plan) can then use the established
# ratings' partial index; with a parameter it read the game's every rating (49 ms, not 1).
_ONE_PLACE = f"""
SELECT %s, 1 + COALESCE((
    SELECT SUM(s.count) FROM {RatingStep._meta.db_table} s WHERE s.game = %s AND s.step > %s
), 0) + (
    SELECT COUNT(*) FROM {Rating._meta.db_table} r
    WHERE r.game = %s AND r.games_played >= {int(PROVISIONAL_GAMES)} AND r.ordinal > %s
    AND r.ordinal < %s
)"""


def step_of(ordinal: float) -> int:
    """The ladder's step of a rating (its bounds are exact: ``STEPS_A_POINT`` is a power of
    two)."""
    return math.floor(ordinal * STEPS_A_POINT)


def places_set(ratings: Sequence[Rating]) -> None:
    """Sets ``place`` on each rating: its place on its game's leaderboard, None while
    provisional. One query for them all."""
    established = []
    for rating in ratings:
        rating.place = None
        if rating.games_played >= PROVISIONAL_GAMES:
            established.append(rating)
    if not established:
        return
    params: list[str | int | float] = []
    for index, rating in enumerate(established):
        step = step_of(rating.ordinal)
        top = (step + 1) / STEPS_A_POINT
        params += [index, rating.game, step, rating.game, rating.ordinal, top]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join([_ONE_PLACE] * len(established)), params)
        for index, place in cursor.fetchall():
            established[index].place = int(place)
