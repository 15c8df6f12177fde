"""A Gnav bot that plays as a sensible person would, from its seat's view alone.

It keeps high cards and matadors, passes a Fool on, asks with low cards, never
asks a neighbour publicly marked with a Fool (it would get the Fool), and asks
less readily while Cats and Dragoons (a lost life for the asker) are unseen.
"""

from __future__ import annotations

import random
from typing import Any

from games.rules.base import Action

FOOL, HOUSE, CAT, DRAGOON, CUCKOO = 1, 17, 19, 20, 21
DANGER = {CAT: 2, DRAGOON: 2}  # copies in the pack
PACK = 42
# Ask with a card of at most this strength (VI is 10) when the risk is ordinary.
ASK_AT_MOST = 9
CAREFUL_ASK_AT_MOST = 6


class GnavBot:
    def choose(
        self, view: dict[str, Any], legal_actions: list[Action], rng: random.Random
    ) -> Action:
        kinds = {action["type"]: action for action in legal_actions}
        card = view.get("card") or {}
        strength = card.get("rank") or 0
        ask = kinds.get("ask") or kinds.get("draw")
        keep = kinds.get("keep")
        if ask is None or keep is None:
            return legal_actions[0]
        if strength >= HOUSE:
            return keep  # a matador: asking would only give it away
        if "ask" in kinds and self._left_is_marked_fool(view) and strength != FOOL:
            return keep
        if strength == FOOL:
            return ask
        limit = CAREFUL_ASK_AT_MOST if self._danger(view, strength) > 0.12 else ASK_AT_MOST
        return ask if strength <= limit else keep

    def _left_is_marked_fool(self, view: dict[str, Any]) -> bool:
        order, me = view.get("order") or [], view.get("seat")
        if me not in order:
            return False
        left = order[(order.index(me) + 1) % len(order)]
        return left in (view.get("fools") or [])

    def _danger(self, view: dict[str, Any], strength: int) -> float:
        """The chance that the card asked for is a Cat or a Dragoon, from what was seen."""
        seen = [card["rank"] for card in view.get("aside") or [] if card]
        if strength in DANGER:
            seen.append(strength)
        left = sum(DANGER.values()) - sum(1 for rank in seen if rank in DANGER)
        unknown = PACK - 1 - len(seen)
        return max(left, 0) / max(unknown, 1)
