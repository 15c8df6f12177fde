"""High Card's bots: what ``games/bots/<game>.py`` holds for a real game, its heuristic and
its ``BOTS``.

From the seat's view alone: keep a card better than what the deck is likely to give, else swap.
"""

from __future__ import annotations

from typing import Any

from games.bots.games import GameBots
from games.rules.base import Action
from tests.fifth_game.high_card import RANKS


def scores(view: dict[str, Any], legal_actions: list[Action]) -> list[float]:
    """The card kept (keep) against the mean of the ranks this seat has not seen (swap)."""
    mine = view["cards"][view["seat"]]["rank"]
    unseen = list(RANKS)
    for card in [*view["discard"], *(c for c in view["cards"] if c is not None)]:
        unseen.remove(card["rank"])
    expected = sum(unseen) / len(unseen)
    return [float(mine) if action["type"] == "keep" else expected for action in legal_actions]


BOTS = GameBots(scores, playouts=40)
"""The greedy bots play ``scores``; the hard one searches 40 playouts a move (a game of two
decisions needs no more)."""
