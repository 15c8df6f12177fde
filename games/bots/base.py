"""The bot interface and the registry of bots by game and level.

Levels: "easy" (the game's greedy bot, with the odd random move), "medium" (the greedy
bot), "hard" (information-set MCTS, see ``games.bots.ismcts``; Gnav's works out its best
reply over every deal its view allows, ``games.bots.gnav_exact``), and "random" (tests
and timeouts). A bot is made per game from the game's ``GameBots`` (games/bots/games.py),
which its record in the catalog holds: ``games.catalog.get_bot(level, slug)``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from games.rules.base import Action, View, gettext_noop


class Bot(Protocol):
    def choose(self, view: View, legal_actions: list[Action], rng: random.Random) -> Action:
        """One of ``legal_actions``, chosen from what ``view`` shows."""
        ...


def seat_of(view: View) -> int:
    """The seat whose view a bot was given: a bot always plays one, never watches."""
    seat = view["seat"]
    assert seat is not None, "a bot is given a seat's view, never a spectator's"
    return seat


def within_budget(iterations: int, seconds: float | None) -> Iterator[int]:
    """0, 1, 2, ... up to ``iterations``, stopping early once ``seconds`` of wall clock
    have passed (never before the first): a search's budget."""
    deadline = None if seconds is None else time.perf_counter() + seconds
    for iteration in range(iterations):
        if deadline is not None and iteration and time.perf_counter() > deadline:
            return
        yield iteration


class RandomBot:
    """Plays a uniformly random legal action: for tests, and for a player who ran out of time."""

    def choose(self, view: View, legal_actions: list[Action], rng: random.Random) -> Action:
        return rng.choice(legal_actions)


BOT_LEVELS = (gettext_noop("easy"), gettext_noop("medium"), gettext_noop("hard"))
"""The bot levels, weakest first: the one place they are written (forms and pages read them)."""
DEFAULT_BOT_LEVEL = "medium"

EASY_BLUNDER = 0.3
"""How often the easy bot plays a random legal move instead of its greedy choice."""


@dataclass
class HardBudget:
    """What caps every game's hard bot: wall-clock seconds per move and, for tests and
    benchmarks that shrink them, playouts.

    Each game's own playouts per move are in its bots' spec (``GameBots.playouts``). Gnav's
    hard bot needs none.
    """

    seconds: float | None = 0.7
    playouts: int | None = None
    """At most this many playouts per move, whatever the game's own (None: each game's own)."""


HARD_BUDGET = HardBudget()
