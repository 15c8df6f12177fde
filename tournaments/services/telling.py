"""Telling the players of a tournament what happened: a round opened (one message a round, with
every table that waits for them), a bye, the tournament's end or cancel. Through community's
notifications (the bell, e-mail, push, as each player switched them).

Called by ``tournaments.services.rounds`` under the tournament's lock: ``notify`` only adds rows
in that transaction (its e-mail and push go from their sweeps, its bell's count after the
commit). A notification stores facts, not sentences (``Notification.data``: the round's number,
the tables, a game's latest start, the kind of bye); ``community/notes/text.html`` says them in
the reader's language when it is read.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from django.db.models import Prefetch
from django.urls import reverse

from accounts.notify import NoteKind
from community.services.notes import About, notify
from tournaments.models import Entry, Format, Pairing, PairingSeat, Round, Tournament


def _page(tournament: Tournament) -> str:
    return reverse("tournament_page", kwargs={"tournament_id": tournament.pk})


def _bye(tournament: Tournament) -> str:
    """What a bye is in this format: a win (Swiss), a middle place's points (multiplayer), a
    way into the next round (knockout), or a rest without a game (round robin, league)."""
    if tournament.format in (Format.SWISS, Format.SWISS_WINDOWS):
        return "win"
    if tournament.format == Format.MULTIPLAYER:
        return "points"
    if tournament.format == Format.KNOCKOUT:
        return "through"
    return "rest"


def _facts(tournament: Tournament, pairings: list[Pairing]) -> dict[str, Any]:
    """What one player's note of the round says: the tables waiting for them; else their window
    game's latest start; else a game won because the opponent withdrew; else their bye."""
    tables = sorted(p.table_id for p in pairings if p.table_id is not None and not p.done)
    if tables:
        return {"tables": tables}
    starts = [
        p.starts_by
        for p in pairings
        if p.starts_by is not None and p.table_id is None and not p.done and not p.is_bye
    ]
    if starts:
        return {"by": min(starts).isoformat()}
    if any(p.done and not p.is_bye and p.table_id is None for p in pairings):
        return {"walkover": True}
    if any(p.is_bye for p in pairings):
        return {"bye": _bye(tournament)}
    return {}


def round_opened(*, tournament: Tournament, round: Round) -> None:
    """One notification per player of the round: their tables (or their bye)."""
    seats = PairingSeat.objects.select_related("entry")
    pairings = list(round.pairings.prefetch_related(Prefetch("seats", queryset=seats)))
    by_player: dict[int, list[Pairing]] = defaultdict(list)
    for pairing in pairings:
        for seat in pairing.seats.all():
            if seat.entry.withdrawn_at is None:
                by_player[seat.entry.user_id].append(pairing)
    # Players told the same (the two at a table, the byes): one ``notify`` for them all.
    told: dict[str, list[int]] = defaultdict(list)
    for player, theirs in by_player.items():
        facts = _facts(tournament, theirs)
        if facts:
            told[json.dumps(facts, sort_keys=True)].append(player)
    for facts_text, players in told.items():
        facts = json.loads(facts_text)
        tables = facts.get("tables", [])
        notify(
            kind=NoteKind.TOURNAMENT_ROUND,
            user_ids=players,
            about=About(
                # One table: the note is that table's (opening it reads the note) and leads
                # there; otherwise to the tournament's page.
                table_id=tables[0] if len(tables) == 1 else None,
                detail=tournament.name,
                link="" if len(tables) == 1 else _page(tournament),
                data={**facts, "round": round.number, "game": tournament.game},
            ),
        )


def tournament_ended(*, tournament: Tournament) -> None:
    """Every player still in: it ended, and who won."""
    players = tournament.entries.filter(withdrawn_at__isnull=True).values_list("user_id", flat=True)
    notify(
        kind=NoteKind.TOURNAMENT_ENDED,
        user_ids=players,
        about=About(
            detail=tournament.name,
            player=tournament.winner,
            link=_page(tournament),
            data={"game": tournament.game},
        ),
    )


def tournament_cancelled(
    *, tournament: Tournament, entries: list[Entry], by_creator: bool = False
) -> None:
    """Every player who entered: too few did (or its creator cancelled it, who is not told),
    so it will not be played."""
    notify(
        kind=NoteKind.TOURNAMENT_ENDED,
        user_ids=[entry.user_id for entry in entries],
        about=About(
            actor=tournament.created_by if by_creator else None,
            detail=tournament.name,
            link=_page(tournament),
            data={"game": tournament.game, "cancelled": "creator" if by_creator else True},
        ),
    )
