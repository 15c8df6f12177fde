"""What the generator's statements share: the ids the rows start after, who sits where, and the
draws of a time per move, a pace of play and a player."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

STAR = "veteran"  # the player with ``profile_games`` finished games
STAR_RUNNING = 12  # and this many running ones
DUE = 5  # seats due for a timeout, a reminder, a warning; notifications due by e-mail, push
VACATIONS_DUE = 3
SESSIONS_DUE = 5
# The reserved players (after the others): each sits at one due seat and nowhere else.
DUE_PLAYERS = {"deadline": 0, "reminder": DUE, "warning": 2 * DUE, "vacation": 3 * DUE}
RESERVED = 3 * DUE + VACATIONS_DUE
EVERY_CADENCE = 2  # of the players due a reminder, the first ones remind "every few hours"
REMINDER_DELAY = dt.timedelta(minutes=60)  # every generated player's (the site's default)


@dataclass(frozen=True)
class Size:
    tables: int = 1_000_000
    players: int = 100_000
    running: int = 10_000
    profile_games: int = 5_000
    recorded: int = 400  # finished games recorded; running ones: half as many


@dataclass(frozen=True)
class Ids:
    """Where the generated rows' ids start, and the parameters every statement shares."""

    user0: int
    table0: int
    players: int
    now: dt.datetime

    @property
    def star(self) -> int:
        return self.user0 + 1

    @property
    def others(self) -> int:
        """How many players the draws choose from: all but the star and the reserved ones."""
        return self.players - 1 - RESERVED

    def due_player(self, kind: str, k: int) -> int:
        """The reserved player of the ``k``-th seat due for ``kind`` (``DUE_PLAYERS``)."""
        return self.user0 + self.players - DUE_PLAYERS[kind] - k

    def params(self, **more: Any) -> dict[str, Any]:
        return {
            "user0": self.user0,
            "table0": self.table0,
            "star": self.star,
            "others": self.others,
            "step": max(1, self.others // 7),
            "now": self.now,
            **more,
        }


def seat_user(plan: str, position: str) -> str:
    """The player at ``position`` of a planned table: the star at the star's seat, nobody at a
    bot's, the reserved player at a due seat, else ``h`` moved on by a step a seat (so that the
    seats of one table never draw the same player: at most six seats, steps of a seventh)."""
    return (
        f"CASE WHEN {plan}.star_pos = {position} THEN %(star)s"
        f" WHEN {plan}.due_pos = {position} THEN {plan}.due_user"
        f" WHEN {plan}.bots AND {position} > 0 THEN NULL"
        f" ELSE %(user0)s + 2 + mod({plan}.h + {position} * %(step)s, %(others)s) END"
    )


def skewed_player() -> str:
    """A draw of ``h``: half evenly, half from a skewed law (a few players play very often)."""
    return (
        "floor(%(others)s * CASE WHEN random() < 0.5 THEN random()"
        " ELSE power(random(), 2) END)::int"
    )


def time_per_move(u: str) -> str:
    """Live (5 minutes) for some tables, mostly a day, some two or three."""
    return (
        f"CASE WHEN {u} < 0.15 THEN 300 WHEN {u} < 0.25 THEN 43200 WHEN {u} < 0.75 THEN 86400"
        f" WHEN {u} < 0.9 THEN 172800 ELSE 259200 END"
    )


def move_gap(spm: str, u: str) -> str:
    """Seconds between two moves: live, 10 to 60; else 2% to 22% of the time per move."""
    return f"CASE WHEN {spm} = 300 THEN 10 + 50 * {u} ELSE {spm} * (0.02 + 0.2 * {u}) END"
