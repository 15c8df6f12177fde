"""Point City's greedy heuristic, from docs/rules/point-city.md (§3 turns, §5 and §8 scoring).

Everything is counted in victory points. A building is worth its points, plus for a
producer what its permanent resource will save over the turns left and what it adds
to the civic tokens held, plus for a civic building the best token on display. A
resource card is worth what it may later buy (about a point per unit while there is
time to spend it, little at the end). A take is worth what it builds and gains less
the cards it spends; a draw, the top card and an average card; a token, what it
scores now and a little of what it may still score.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.bots.base import seat_of
from games.bots.games import GameBots
from games.rules.base import Action, AnyRules, State
from games.rules.point_city.view import PointCityView

RESOURCES = ("community", "economy", "energy", "ecology", "industry")
UNIT = 1.2  # points a unit of resource buys while there is time to spend it
SAVING = 0.5  # points a permanent resource saves per turn left, up to SAVING_TURNS
SAVING_TURNS = 6
FLIP_WITH_UNITS = 3  # flip a card to see a building only with this much to pay with

Perm = dict[str, int]


def token_points(token: dict[str, Any], perm: Mapping[str, float], ingenuity_cards: int) -> float:
    """What a civic token scores for these permanent resources (rules §8)."""
    kind: str = token["kind"]
    points: int = token["points"]
    names: list[str] = token["resources"]
    counts = [perm[r] for r in RESOURCES]
    if kind == "resource":
        return points * perm[names[0]]
    if kind == "ingenuity":
        return points * ingenuity_cards
    if kind == "pair":
        return points * min(perm[names[0]], perm[names[1]])
    if kind == "set":
        return points * min(counts)
    if kind == "two-plus":
        return points * sum(1 for n in counts if n >= 2)
    if kind == "three-plus":
        return points * sum(1 for n in counts if n >= 3)
    if kind == "missing":
        return points * sum(1 for n in counts if n == 0)
    return points


class _Judge:
    """One seat's valuation of cards, buildings and tokens at one moment of the game."""

    def __init__(self, view: PointCityView) -> None:
        me = view["players"][seat_of(view)]
        self.perm: Perm = dict(me["permanent"])
        self.tokens = me["tokens"]
        self.ingenuity = sum(1 for card in me["stock"] if card["resource"] == "ingenuity")
        self.units = sum(self._units(card) for card in me["stock"])
        self.turns_left: float = view["deck"]["count"] / (2 * view["num_players"]) + 1
        self.unit: float = UNIT * min(1.0, self.turns_left / 3) + 0.1
        self.supply = view["supply"]

    @staticmethod
    def _units(card: dict[str, Any]) -> int:
        return 2 if card["double"] else 1

    def card(self, card: dict[str, Any]) -> float:
        """A resource card in stock."""
        if card["resource"] == "ingenuity":
            bonus: int = sum(t["points"] for t in self.tokens if t["kind"] == "ingenuity")
            return 1.1 * self.unit + bonus
        return (1.8 if card["double"] else 1.0) * self.unit

    def spent(self, pay: dict[str, int]) -> float:
        total = 0.0
        for kind, count in pay.items():
            if kind == "ingenuity":
                total += count * self.card({"resource": "ingenuity", "double": False})
            else:
                total += count * (1.8 if kind.startswith("double-") else 1.0) * self.unit
        return total

    def token(self, token: dict[str, Any]) -> float:
        now = token_points(token, self.perm, self.ingenuity)
        if token["kind"] in ("flat", "missing", "ingenuity"):
            return now
        grown = {r: n + self.turns_left / 8 for r, n in self.perm.items()}
        return max(now, 0.5 * (now + token_points(token, grown, self.ingenuity)))

    def building(self, building: dict[str, Any]) -> float:
        value = float(building["points"])
        if building["kind"] == "civic":
            value += max((self.token(t) for t in self.supply), default=0.0)
        produced = building["produces"]
        if produced:
            value += SAVING * min(self.turns_left - 1, SAVING_TURNS)
            more = dict(self.perm, **{produced: self.perm[produced] + 1})
            for token in self.tokens:
                value += token_points(token, more, self.ingenuity)
                value -= token_points(token, self.perm, self.ingenuity)
        return value


def scores(view: PointCityView, legal_actions: list[Action]) -> list[float]:
    judge = _Judge(view)
    market = view["market"]
    result = []
    for action in legal_actions:
        kind = action["type"]
        if kind == "take":
            value = -judge.spent(action["pay"])
            for row, col in action["cells"]:
                slot = market[row][col]
                if slot["side"] == "building":
                    value += judge.building(slot["card"]["building"])
                else:
                    value += judge.card(slot["card"])
            result.append(value)
        elif kind == "draw":
            top = view["deck"]["top"]
            result.append(judge.card(top) + 1.3 * judge.unit if top else 0.0)
        elif kind == "token":
            token = next(t for t in view["supply"] if t["id"] == action["token"])
            result.append(judge.token(token))
        elif kind == "flip":
            result.append(0.5 if judge.units >= FLIP_WITH_UNITS else -1.0)
        else:
            result.append(0.0)
    return result


def rollout(
    rules: AnyRules, world: State, seat: int, legal: list[Action], rng: random.Random
) -> Action:
    """A cheap playout policy that needs no view: it never flips, and prefers to build.

    A take that pays something builds a building; between such takes and the others it
    picks at random, as a hurried but purposeful player would.
    """
    kinds: dict[str, list[Action]] = {}
    for action in legal:
        kind = action["type"]
        if kind == "take" and action["pay"]:
            kind = "build"
        kinds.setdefault(kind, []).append(action)
    for kind in ("build", "take", "token", "draw"):
        if kind in kinds and (kind != "take" or "draw" not in kinds or rng.random() < 0.8):
            options = kinds[kind]
            return options[int(rng.random() * len(options))]
    return legal[int(rng.random() * len(legal))]


BOTS = GameBots(
    scores,
    playouts=120,
    rollout=rollout,
    root_width=8,  # takes differ in payments: the heuristic picks the few worth it
    prior_weight=1.0,
)
"""Point City's bots: its own rollouts, and a hard bot that searches the heuristic's best few."""
