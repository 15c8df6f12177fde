"""What the tournament pages read, each in a fixed number of queries however many players."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, Q, QuerySet

from accounts.models import User
from tournaments.models import Entry, Tournament

LISTED = 30


@dataclass(frozen=True)
class Listing:
    """The Tournaments tab: open for sign-up (soonest first), running, finished (latest)."""

    open: list[Tournament]
    running: list[Tournament]
    finished: list[Tournament]


def _with_entrants() -> QuerySet[Tournament]:
    return Tournament.objects.select_related("created_by", "winner").annotate(
        entrants=Count("entries", filter=Q(entries__withdrawn_at__isnull=True))
    )


def tournaments_listing() -> Listing:
    status = Tournament.Status
    rows = _with_entrants()
    return Listing(
        open=list(rows.filter(status=status.SIGNUP).order_by("starts_at", "pk")[:LISTED]),
        running=list(rows.filter(status=status.RUNNING).order_by("-started_at", "-pk")[:LISTED]),
        finished=list(rows.filter(status=status.FINISHED).order_by("-finished_at", "-pk")[:LISTED]),
    )


def tournament_of(tournament_id: int) -> Tournament | None:
    return _with_entrants().filter(pk=tournament_id).first()


def entries_of(tournament: Tournament) -> list[Entry]:
    """Its players, the standings' order: points, then the tie-breaks, then who entered first."""
    return list(
        tournament.entries.select_related("user").order_by(
            F("withdrawn_at").asc(nulls_first=True),
            "-points",
            "-tiebreak",
            "-second_tiebreak",
            "joined_at",
            "pk",
        )
    )


def entries_of_player(player: User, *, limit: int) -> list[Entry]:
    """The tournaments ``player`` entered, the latest first (cancelled ones left out)."""
    return list(
        Entry.objects.filter(user=player)
        .exclude(tournament__status=Tournament.Status.CANCELLED)
        .select_related("tournament")
        .order_by("-tournament__starts_at", "-pk")[:limit]
    )
