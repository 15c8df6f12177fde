"""Tournaments for the page tests (tests/tournaments/test_pages.py, the axe test): made and
entered through ``tournaments.services.entries``, started by beat's sweep, and their games
finished by random legal moves through games' services.

A game's end is counted by calling the tournaments' receiver of it (``game_ended``) at once:
inside a test's transaction the events that games publish on commit are never sent (and where
they are, as in a browser test, counting it again changes nothing).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from typing import Any

from accounts.models import User
from games.models import Table
from games.services.bot_moves import table_play_out
from tests.conftest import play_random_moves
from tests.support.tournament_runs import tournament_made
from tournaments.models import Tournament
from tournaments.services.rounds import game_ended, sweep_tournaments

HOUR = dt.timedelta(hours=1)


def tournament_started(
    *, creator: User, players: Sequence[User], now: dt.datetime | None = None, **chosen: Any
) -> Tournament:
    """A District Noir Swiss of 3 rounds (or as ``chosen`` says) with ``players`` in it, started
    by the sweep an hour from ``now``; its first round is open."""
    chosen = {"name": "Page cup", "rounds": 3, **chosen}
    tournament = tournament_made(creator=creator, players=players, now=now, **chosen)
    sweep_tournaments(now=tournament.starts_at)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    return tournament


def running_tables(tournament: Tournament) -> list[Table]:
    return list(
        Table.objects.filter(
            tournament_pairing__round__tournament=tournament, status=Table.Status.RUNNING
        ).order_by("pk")
    )


def game_finish(table: Table, rng: random.Random) -> None:
    """Plays the table to its end and counts its result for the tournament: a few random moves
    by its players, then played out as a round's window ends (the seat to move loses on time,
    bots play the rest: much quicker than a whole game of single moves); a game with a bot in
    a seat (a withdrawn player's) is played out at once."""
    if not table.seats.filter(replaced_by_bot=True).exists():
        table = play_random_moves(table, rng.randrange(4), rng)
    if table.is_running:
        table_play_out(table_id=table.pk)
        table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    game_ended(table_id=table.pk)


def round_finish(tournament: Tournament, rng: random.Random) -> None:
    """Finishes every game under way (a knockout match's next games too) until the round
    closes: the next round opens, or the tournament ends."""
    tournament.refresh_from_db()
    opened = tournament.round_set.filter(closed_at__isnull=True).first()
    assert opened is not None, "no round is being played"
    for _ in range(100):
        opened.refresh_from_db()
        if opened.closed_at is not None:
            break
        tables = running_tables(tournament)
        assert tables, "an open round with no game under way"
        for table in tables:
            game_finish(table, rng)
    tournament.refresh_from_db()


def rounds_played(tournament: Tournament, count: int, rng: random.Random) -> Tournament:
    for _ in range(count):
        round_finish(tournament, rng)
    return tournament


def tournament_finish(tournament: Tournament, rng: random.Random) -> Tournament:
    for _ in range(100):
        if tournament.status != Tournament.Status.RUNNING:
            return tournament
        round_finish(tournament, rng)
    raise AssertionError("the tournament did not end")
