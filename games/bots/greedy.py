"""Greedy bots: one look ahead, scored by a game's own heuristic, from the seat's view alone.

A game's heuristic is a *scorer*: ``scorer(view, legal_actions) -> list[float]``, one
score per legal action, higher is better. ``GreedyBot`` plays the best-scored action
(ties broken at random); with ``blunder`` set it sometimes plays a random legal action
instead, which is the easy level: sensible, but beatable.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games.rules.base import Action, View

Scorer = Callable[[Any, list[Action]], list[float]]
"""``scorer(view, legal_actions)``. A scorer is one game's own and reads that game's view type
(``DistrictNoirView``, ...): the bots' registry (``games.bots.games``) pairs it with its game."""


def best_actions(scores: list[float], legal_actions: list[Action]) -> list[Action]:
    """Every action whose score is the highest (within a rounding error)."""
    top = max(scores)
    return [a for a, s in zip(legal_actions, scores, strict=True) if s >= top - 1e-9]


class GreedyBot:
    """Plays the action its game's scorer likes best; see the module docstring."""

    def __init__(self, scorer: Scorer, blunder: float = 0.0) -> None:
        self.scorer = scorer
        self.blunder = blunder

    def choose(self, view: View, legal_actions: list[Action], rng: random.Random) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        if self.blunder and rng.random() < self.blunder:
            return rng.choice(legal_actions)
        best = best_actions(self.scorer(view, legal_actions), legal_actions)
        return best[0] if len(best) == 1 else rng.choice(best)
