"""The ladder of the leaderboards (``RatingStep``): how many established ratings of a game lie in
each step of a quarter of a point, from which a page counts a place (``selectors.places``).

Triggers on the rating table keep it, in the transaction that writes a rating, whatever writes
it (migration 0019): each adds a row of -1 for the step an established rating leaves and +1 for
the one it enters. Rows are only added, never updated, so two games finishing at once never wait
for each other on a step. The periodic job (``games.jobs.sweeps.sweep_places``) adds them up into
one row a step, so that a place reads a few hundred rows at most.
"""

from __future__ import annotations

from collections import Counter

from django.db import connection, transaction
from django.db.models import Count, F
from django.db.models.functions import Floor

from games.models import PROVISIONAL_GAMES, STEPS_A_POINT, Rating, RatingStep

_TABLE = RatingStep._meta.db_table
# The steps of more than one row: with nothing changed since the last run, none.
_TAKE = f"""
DELETE FROM {_TABLE} WHERE (game, step) IN (
    SELECT game, step FROM {_TABLE} GROUP BY game, step HAVING COUNT(*) > 1
) RETURNING game, step, count"""


@transaction.atomic
def steps_compact() -> int:
    """Adds up the ladder's rows, one a step (none for a step left empty); how many rows it
    took in. A row a trigger adds meanwhile is not taken (the delete reads what was committed
    when it began), and stays for the next run."""
    with connection.cursor() as cursor:
        cursor.execute(_TAKE)
        taken = cursor.fetchall()
    totals: Counter[tuple[str, int]] = Counter()
    for game, step, count in taken:
        totals[(game, step)] += count
    RatingStep.objects.bulk_create(
        RatingStep(game=game, step=step, count=count)
        for (game, step), count in sorted(totals.items())
        if count
    )
    return len(taken)


@transaction.atomic
def steps_rebuild() -> int:
    """The ladder counted afresh from the ratings; how many steps. For rows the triggers did
    not see: loaded with them off (``session_replication_role = replica``, bench.years)."""
    RatingStep.objects.all().delete()
    counted = (
        Rating.objects.filter(games_played__gte=PROVISIONAL_GAMES)
        .annotate(step=Floor(F("ordinal") * STEPS_A_POINT))
        .values_list("game", "step")
        .annotate(count=Count("id"))
        .order_by("game", "step")
    )
    steps = RatingStep.objects.bulk_create(
        RatingStep(game=game, step=int(step), count=count) for game, step, count in counted
    )
    return len(steps)
