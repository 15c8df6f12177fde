"""Gnav's sensible player, and what the hard bot (``games.bots.gnav_exact``) builds on.

``GnavBot`` (medium) plays as a sensible person would. It keeps high cards and matadors,
passes a Fool on, asks with low cards, never asks a neighbour publicly marked with a Fool
(it would get the Fool), and asks less readily while Cats and Dragoons (a lost life for
the asker) are unseen. ``scores`` is ``GnavBot`` as a heuristic for the generic bots (the
easy level's occasional random move). ``match_value`` is a seat's chance to win the
match from the lives left; ``deal_value`` plays a deal out with the rules engine (the
benches' oracle and the tests of the hard bot use it).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, cast

from games.rules.base import Action, AnyRules, State
from games.rules.gnav.view import GnavView

FOOL, HOUSE, CAT, DRAGOON, CUCKOO = 1, 17, 19, 20, 21
DANGER = {CAT: 2, DRAGOON: 2}  # copies in the pack
PACK = 42
# Ask with a card of at most this strength (VI is 10) when the risk is ordinary.
ASK_AT_MOST = 9
CAREFUL_ASK_AT_MOST = 6


class GnavBot:
    """Reads a Gnav view's ``seat``, ``order``, ``fools``, ``aside`` and ``card``, each with a
    default: a sketch of a view will do (``gnav_exact``'s table of its choices)."""

    def choose(
        self, view: Mapping[str, Any], legal_actions: list[Action], rng: random.Random
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

    def _left_is_marked_fool(self, view: Mapping[str, Any]) -> bool:
        order, me = view.get("order") or [], view.get("seat")
        if me not in order:
            return False
        left = order[(order.index(me) + 1) % len(order)]
        return left in (view.get("fools") or [])

    def _danger(self, view: Mapping[str, Any], strength: int) -> float:
        """The chance that the card asked for is a Cat or a Dragoon, from what was seen."""
        seen = [card["rank"] for card in view.get("aside") or [] if card]
        if strength in DANGER:
            seen.append(strength)
        left = sum(DANGER.values()) - sum(1 for rank in seen if rank in DANGER)
        unknown = PACK - 1 - len(seen)
        return max(left, 0) / max(unknown, 1)


_GNAV = GnavBot()


def scores(view: GnavView, legal_actions: list[Action]) -> list[float]:
    """The Gnav bot as a scorer: 1 for the action it plays, 0 for the other."""
    chosen = _GNAV.choose(view, legal_actions, random.Random(0))
    return [1.0 if action == chosen else 0.0 for action in legal_actions]


def survival(lives: list[int]) -> list[float]:
    """Each seat's chance to win the match, guessed from the lives left: lives squared, shared."""
    weights = [n * n for n in lives]
    total = sum(weights)
    return [w / total for w in weights] if total else [0.0] * len(lives)


#: Each seat's chance to win the match from the lives left, measured over 30,000 matches
#: between four ``GnavBot``s (at the start of each deal). The key is the seat's own lives,
#: then the others' from most to fewest (0: out).
_MEASURED_MATCH_VALUE = """
    1100 0.500  1110 0.333  1111 0.250  1200 0.239  1210 0.196  1211 0.162
    1220 0.132  1221 0.115  1222 0.083  1300 0.121  1310 0.105  1311 0.098
    1320 0.077  1321 0.073  1322 0.055  1330 0.048  1331 0.052  1332 0.041
    1333 0.028  2100 0.761  2110 0.609  2111 0.513  2200 0.500  2210 0.434
    2211 0.385  2220 0.333  2221 0.306  2222 0.250  2300 0.310  2310 0.289
    2311 0.265  2320 0.234  2321 0.217  2322 0.187  2330 0.179  2331 0.171
    2332 0.148  2333 0.117  3100 0.879  3110 0.791  3111 0.705  3200 0.690
    3210 0.634  3211 0.589  3220 0.533  3221 0.512  3222 0.440  3300 0.500
    3310 0.476  3311 0.448  3320 0.411  3321 0.394  3322 0.352  3330 0.333
    3331 0.324  3332 0.294  3333 0.250
"""
MATCH_VALUE: dict[tuple[int, ...], float] = {
    tuple(int(digit) for digit in key): float(value)
    for key, value in zip(*[iter(_MEASURED_MATCH_VALUE.split())] * 2, strict=True)
}


def match_value(lives: list[int], seat: int) -> float:
    """``seat``'s chance to win the match from the lives left (``MATCH_VALUE``)."""
    if lives[seat] <= 0:
        return 0.0
    others = sorted((n for s, n in enumerate(lives) if s != seat), reverse=True)
    key = (lives[seat], *others)
    if key in MATCH_VALUE:
        return MATCH_VALUE[key]
    return survival(list(lives))[seat]  # not a four-seat match: a rougher guess


def deal_value(rules: AnyRules, world: State, seat: int, deal: int, rng: random.Random) -> float:
    """``seat``'s chance to win the match once deal number ``deal`` of ``world`` is played
    out by ``GnavBot`` players: its match value from the lives left, or its share of the
    win if the match ended."""
    while True:
        seats = rules.active_seats(world)
        if not seats:
            outcome = rules.outcome(world)
            assert outcome is not None
            return 1.0 / outcome.ranks.count(0) if outcome.ranks[seat] == 0 else 0.0
        seen = cast(GnavView, rules.view(world, seats[0]))  # a Gnav world: Gnav's rules
        if seen["deal"] != deal:
            return match_value(seen["lives"], seat)
        world = rules.apply(world, seats[0], _GNAV.choose(seen, seen["legal_actions"], rng))
