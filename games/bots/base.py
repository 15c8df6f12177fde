"""The bot interface and the registry of bots by game and level."""

from __future__ import annotations

import random
from typing import Any, Protocol

from games.rules.base import Action


class Bot(Protocol):
    def choose(
        self, view: dict[str, Any], legal_actions: list[Action], rng: random.Random
    ) -> Action:
        """One of ``legal_actions``, chosen from what ``view`` shows."""
        ...


class RandomBot:
    """Plays a uniformly random legal action: for tests, and for a player who ran out of time."""

    def choose(
        self, view: dict[str, Any], legal_actions: list[Action], rng: random.Random
    ) -> Action:
        return rng.choice(legal_actions)


BOT_LEVELS = ("easy", "medium", "hard")


def _game_bots() -> dict[str, Bot]:
    from games.bots.gnav import GnavBot

    return {"gnav": GnavBot()}


def get_bot(level: str, game: str | None = None) -> Bot:
    """The bot for ``game`` at ``level``: "random" plays at random; the other levels play
    the game's own bot where it has one. Unknown names never stall a game: they play."""
    if level == "random":
        return RandomBot()
    return _game_bots().get(game or "", RandomBot())
