"""Ratings: openskill's Plackett-Luce model, one rating per player and game.

A rated game moves its players' ratings in the transaction that finishes it
(``state_store`` calls ``ratings_settle``), and every move is written down as a
``RatingChange`` (before, after, place), so any rating can be replayed from that
history (``ratings_recompute``). Places come from ``table.outcome["ranks"]``:
a player replaced by a bot after too many timeouts is already ranked last there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby

from openskill.models import PlackettLuce, PlackettLuceRating

from accounts.models import User
from games.models import Rating, RatingChange, Seat, Table

MODEL = PlackettLuce()


def new_rating() -> PlackettLuceRating:
    return MODEL.rating()


def table_counts_for_ratings(*, table: Table, seats: Sequence[Seat]) -> bool:
    """Whether this game moves ratings: a rated table, two or more players, no bot invited.

    A solo game (one seat) is won or lost against the game, never against people: it is
    never rated, whatever its table says.

    A seat a bot took over after timeouts still has its player, who is ranked last:
    that game counts (as a loss for them), unlike one against a bot from the start.
    """
    if not (
        table.rated
        and len(seats) >= 2
        and all(seat.user_id is not None and not seat.bot_level for seat in seats)
    ):
        return False
    return _bot_accounts_agreed([seat.user for seat in seats if seat.user is not None])


def _bot_accounts_agreed(users: Sequence[User]) -> bool:
    """A bot account (a program on the API) is rated against people only if each of them opted
    in; bots among themselves always are."""
    if not any(user.is_bot for user in users):
        return True
    return all(user.is_bot or user.rated_against_bots for user in users)


def rate(
    *, ratings: Sequence[PlackettLuceRating], ranks: Sequence[int]
) -> list[PlackettLuceRating]:
    """New ratings for players who finished at ``ranks`` (0 = first; ties share a place)."""
    teams = MODEL.rate([[rating] for rating in ratings], ranks=[float(r) for r in ranks])
    return [team[0] for team in teams]


def ratings_settle(*, table: Table, seats: Sequence[Seat]) -> list[RatingChange]:
    """Moves the ratings of the players of a finished rated table; returns the changes.

    Runs inside the caller's transaction. The players' rating rows are created if
    missing and locked, both in user order so two tables finishing at once cannot
    deadlock, before they are read: two games that share a player update that
    rating one after the other.
    """
    if table.outcome is None or not table_counts_for_ratings(table=table, seats=seats):
        return []
    ranks = table.outcome["ranks"]
    # Every seat is a person's (table_counts_for_ratings): the filter only tells mypy so.
    user_ids = [seat.user_id for seat in seats if seat.user_id is not None]
    fresh = new_rating()
    Rating.objects.bulk_create(
        [
            Rating(
                user_id=uid,
                game=table.game,
                mu=fresh.mu,
                sigma=fresh.sigma,
                ordinal=fresh.ordinal(),
            )
            for uid in sorted(user_ids)
        ],
        ignore_conflicts=True,
    )
    locked = Rating.objects.select_for_update().filter(game=table.game, user_id__in=user_ids)
    by_user = {rating.user_id: rating for rating in locked.order_by("user_id")}
    rows = [by_user[uid] for uid in user_ids]
    places = [ranks[seat.position] for seat in seats]
    after = rate(ratings=[MODEL.rating(mu=r.mu, sigma=r.sigma) for r in rows], ranks=places)
    changes = []
    for row, new, place in zip(rows, after, places, strict=True):
        changes.append(
            RatingChange(
                table=table,
                user_id=row.user_id,
                game=table.game,
                rank=place,
                mu_before=row.mu,
                sigma_before=row.sigma,
                ordinal_before=row.ordinal,
                mu_after=new.mu,
                sigma_after=new.sigma,
                ordinal_after=new.ordinal(),
            )
        )
        row.mu, row.sigma, row.ordinal = new.mu, new.sigma, new.ordinal()
        row.games_played += 1
        row.last_played = table.finished_at
    Rating.objects.bulk_update(rows, ["mu", "sigma", "ordinal", "games_played", "last_played"])
    return RatingChange.objects.bulk_create(changes)


def ratings_recompute(*, game: str) -> dict[int, PlackettLuceRating]:
    """Every player's rating at ``game`` replayed from fresh through the recorded games.

    Only the places are taken from the history; the before/after columns are
    recomputed, so the result can be checked against the stored ``Rating`` rows.
    """
    changes = RatingChange.objects.filter(game=game).order_by("id")
    current: dict[int, PlackettLuceRating] = {}
    for _table, group in groupby(_by_table(changes), key=lambda c: c.table_id):
        players = list(group)
        before = [current.get(c.user_id) or new_rating() for c in players]
        after = rate(ratings=before, ranks=[c.rank for c in players])
        for change, new in zip(players, after, strict=True):
            current[change.user_id] = new
    return current


def _by_table(changes: Iterable[RatingChange]) -> list[RatingChange]:
    """The changes grouped by game, the games in the order they were settled."""
    first_seen: dict[int, int] = {}
    rows = list(changes)
    for index, change in enumerate(rows):
        first_seen.setdefault(change.table_id, index)
    return sorted(rows, key=lambda c: (first_seen[c.table_id], c.id))
