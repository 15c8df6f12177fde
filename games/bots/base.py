"""The bot interface and the registry of bot levels."""

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


_LEVELS: dict[str, Bot] = {"random": RandomBot()}


def get_bot(level: str) -> Bot:
    """The bot for ``level``; unknown levels play randomly rather than stall a game."""
    return _LEVELS.get(level, _LEVELS["random"])
