"""Telling the players of a tournament what happened: a round opened (one message a round, with
every table that waits for them), a bye, the tournament's end or cancel. Through community's
notifications (the bell, e-mail, push, as each player switched them)."""

from __future__ import annotations

from tournaments.models import Entry, Round, Tournament


def round_opened(*, tournament: Tournament, round: Round) -> None:
    """One notification per player of the round: their tables (or their bye)."""


def tournament_ended(*, tournament: Tournament) -> None:
    """Every player still in: it ended, and who won."""


def tournament_cancelled(*, tournament: Tournament, entries: list[Entry]) -> None:
    """Every player who entered: too few did, so it will not be played."""
