"""The bot interface and the registry of bots by game and level.

Levels: "easy" (the game's greedy bot, with the odd random move), "medium" (the greedy
bot), "hard" (information-set MCTS, see ``games.bots.ismcts``; Gnav's works out its best
reply over every deal its view allows, ``games.bots.gnav_exact``), and "random" (tests
and timeouts). A bot is made per game:
``get_bot(level, slug)``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
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
    """The hard bot's default budget: playouts per move, capped by wall-clock seconds.

    Measured with ``make bench`` (docs/benchmarks.md) so that a move takes well under a
    second on a small server; tests shrink it. Gnav's hard bot needs none.
    """

    iterations: dict[str, int] = field(
        default_factory=lambda: {
            "district-noir": 1500,
            "slide": 600,
            "point-city": 120,
        }
    )
    seconds: float | None = 0.7


HARD_BUDGET = HardBudget()


def get_bot(level: str, game: str | None = None) -> Bot:
    """The bot for ``game`` at ``level``. Unknown names never stall a game: they play at random."""
    from games.bots import games as per_game

    spec = per_game.SPECS.get(game or "")
    if level == "random" or spec is None:
        return RandomBot()
    if level == "hard":
        return spec.hard(HARD_BUDGET.iterations.get(spec.slug, 500), HARD_BUDGET.seconds)
    if level == "easy":
        return spec.greedy(EASY_BLUNDER)
    return spec.greedy(0.0)
