"""A player's games and ratings in their data export (``accounts.export``).

Each table they sat at, with its seats by public name, its result and its moves: every move
of a finished game (its record is public, ``table_record``), but only their own moves and their
own seat's view of a game still open or running, so that the export shows no card another seat
holds. Four queries however many games.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from accounts.export import when
from accounts.models import User
from games.models import Move, Rating, RatingChange, Seat, Table
from games.rules import get_rules


def games_export(*, user: User) -> dict[str, Any]:
    mine = {
        s.table_id: s
        for s in Seat.objects.filter(user=user).select_related("table").order_by("table_id")
    }
    seats: dict[int, list[Seat]] = defaultdict(list)
    for seat in Seat.objects.filter(table_id__in=list(mine)).select_related("user"):
        seats[seat.table_id].append(seat)
    finished = [t for t, s in mine.items() if s.table.is_finished]
    moves: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for move in Move.objects.filter(table_id__in=list(mine)).order_by("table_id", "seq").iterator():
        if move.table_id in finished or move.position == mine[move.table_id].position:
            moves[move.table_id].append(
                {
                    "seq": move.seq,
                    "seat": move.position,
                    "action": move.action,
                    "by": move.by,
                    "at": when(move.created_at),
                }
            )
    return {
        "tables": [
            _table(seat.table, seat, seats[table_id], moves[table_id])
            for table_id, seat in mine.items()
        ],
        "ratings": [
            {
                "game": r.game,
                "rating": r.ordinal,
                "mu": r.mu,
                "sigma": r.sigma,
                "rated_games": r.games_played,
                "last_played": when(r.last_played),
            }
            for r in Rating.objects.filter(user=user).order_by("game")
        ],
        "rating_changes": [
            {
                "table": c.table_id,
                "game": c.game,
                "place": c.rank,
                "before": c.ordinal_before,
                "after": c.ordinal_after,
                "at": when(c.created_at),
            }
            for c in RatingChange.objects.filter(user=user).order_by("created_at", "pk")
        ],
    }


def _table(table: Table, mine: Seat, seats: list[Seat], moves: list[dict[str, Any]]) -> dict:
    entry: dict[str, Any] = {
        "table": table.pk,
        "game": table.game,
        "options": table.options,
        "status": table.status,
        "rated": table.rated,
        "seconds_per_move": table.seconds_per_move,
        "created_at": when(table.created_at),
        "started_at": when(table.started_at),
        "finished_at": when(table.finished_at),
        "my_seat": mine.position,
        "seats": [
            {"seat": s.position, "player": str(s.player_name), "rank": s.rank, "score": s.score}
            for s in sorted(seats, key=lambda s: s.position)
        ],
        "my_timeouts": mine.timeouts,
        "outcome": table.outcome if table.is_finished else None,
        "moves": moves,
    }
    if table.is_running and table.state is not None:
        rules = get_rules(table.game)
        entry["my_view"] = rules.view(rules.from_json(table.state), mine.position)
    return entry
