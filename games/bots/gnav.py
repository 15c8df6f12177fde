"""A Gnav bot that plays as a sensible person would, from its seat's view alone.

It keeps high cards and matadors, passes a Fool on, asks with low cards, never
asks a neighbour publicly marked with a Fool (it would get the Fool), and asks
less readily while Cats and Dragoons (a lost life for the asker) are unseen.

The hard bot's search uses the same judgement as its model of the others: ``scores``
(this bot as a heuristic), ``plausible`` (what the others' keeps and trades say about
their cards) and ``evaluate`` (a deal judged by the lives it leaves).
"""

from __future__ import annotations

import random
from typing import Any

from games.rules.base import Action, Rules, State

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


_GNAV = GnavBot()


def scores(view: dict[str, Any], legal_actions: list[Action]) -> list[float]:
    """The Gnav bot as a scorer: 1 for the action it plays, 0 for the other."""
    chosen = _GNAV.choose(view, legal_actions, random.Random(0))
    return [1.0 if action == chosen else 0.0 for action in legal_actions]


def survival(lives: list[int]) -> list[float]:
    """Each seat's chance to win the match, guessed from the lives left: lives squared, shared."""
    weights = [n * n for n in lives]
    total = sum(weights)
    return [w / total for w in weights] if total else [0.0] * len(lives)


def evaluate(
    rules: Rules, world: State, root_view: dict[str, Any], plies: int
) -> list[float] | None:
    """Judges a search's world once the deal being searched is over, by the lives left.

    The deals after it are dealt from a seed the bot drew itself: playing them out only
    adds noise to what this deal's decision changed.
    """
    view = rules.view(world, None)
    if view["deal"] == root_view["deal"]:
        return None
    return survival(view["lives"])


def _keep_likelihood(strength: int) -> float:
    """How likely a sensible player keeps a card of this strength (see ``GnavBot``)."""
    if strength > ASK_AT_MOST:
        return 1.0
    if strength > CAREFUL_ASK_AT_MOST:
        return 0.4
    return 0.05 if strength == FOOL else 0.1


def plausible(rules: Rules, world: State, view: dict[str, Any]) -> float:
    """How well a drawn world explains what the others did this deal, were they sensible.

    A player who kept probably holds a high card; a player who received a trade holds
    what the asker gave away, probably a low card. The search keeps a drawn world with
    this probability, so its worlds lean the way a careful observer's guesses would.
    """
    log, me = view["log"], view["seat"]
    start = max(i for i, event in enumerate(log) if event["type"] == "deal")
    kept: set[int] = set()
    given_low: set[int] = set()
    for event in log[start + 1 :]:
        kind = event["type"]
        if kind == "keep":
            kept.add(event["seat"])
        elif kind == "trade":
            asker, target = event["seat"], event["target"]
            kept -= {asker, target}
            given_low -= {asker, target}
            given_low.add(target)
        elif kind == "undo":
            kept.clear()
            given_low.clear()
    likelihood = 1.0
    for seat in (kept | given_low) - {me}:
        card = rules.view(world, seat)["card"]
        if card is None:
            continue
        strength = card["rank"]
        if seat in kept:
            likelihood *= _keep_likelihood(strength)
        elif strength > ASK_AT_MOST:
            likelihood *= 0.1
    return likelihood
