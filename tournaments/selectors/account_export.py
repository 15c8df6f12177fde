"""A player's tournaments in their data export (``accounts.export``): each one they entered,
how they stood, and their result in every round. A fixed number of queries however many."""

from __future__ import annotations

from typing import Any

from accounts.export import when
from accounts.models import User
from tournaments.models import Entry, PairingSeat


def tournaments_export(*, user: User) -> dict[str, Any]:
    entries = list(Entry.objects.filter(user=user).select_related("tournament").order_by("pk"))
    results: dict[int, list[dict[str, Any]]] = {entry.pk: [] for entry in entries}
    seats = (
        PairingSeat.objects.filter(entry__user=user)
        .select_related("pairing__round")
        .order_by("pairing__round__season", "pairing__round__number", "pairing__game_number")
    )
    for seat in seats:
        pairing = seat.pairing
        results[seat.entry_id].append(
            {
                "season": pairing.round.season,
                "round": pairing.round.number,
                "game": pairing.game_number,
                "table": pairing.table_id,
                "bye": pairing.is_bye,
                "seat": seat.position,
                "place": seat.place,
                "points": seat.points,
            }
        )
    return {
        "entries": [
            {
                "tournament": entry.tournament_id,
                "name": entry.tournament.name,
                "game": entry.tournament.game,
                "format": entry.tournament.format,
                "status": entry.tournament.status,
                "joined": when(entry.joined_at),
                "withdrawn": when(entry.withdrawn_at),
                "points": entry.points,
                "rank": entry.rank,
                "won": entry.tournament.winner_id == user.pk,
                "results": results[entry.pk],
            }
            for entry in entries
        ]
    }
