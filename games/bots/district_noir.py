"""District Noir's greedy heuristic, from docs/rules/district-noir.md §6 and a seat's view.

A collection is worth what it would score if the game ended now, judged against the
opponent's: Support majorities (a lead of two is safer than a lead of one), complete
sets and the start of the next one, Alliance plus Betrayal, and the City cards (all
three win at once; two are a threat while the opponent holds none). A take is worth
what it adds to the bot's standing now, less what waiting might still bring; a play
is judged by what the row it leaves would give the opponent if they took it next, and
what it gives the bot when the row is the bot's to take.
"""

from __future__ import annotations

from typing import Any

from games.bots.base import seat_of
from games.bots.games import GameBots
from games.rules.base import Action
from games.rules.district_noir.game import DistrictNoirView

TAKE_SIZE = 5
SUPPORT = (5, 6, 7, 8)
CITY_WIN = 100.0
# What keeping the take for later is worth, per card still in hand: a later row may be better.
PATIENCE = 0.8
# How much of a row the bot may take later counts now (the row still changes before then).
LATER = 1.0

Counts = dict[Any, int]


def counts_of(cards: list[dict[str, Any]]) -> Counts:
    """Support cards by value, ``"points"``: Alliance plus Betrayal, ``"cities"``."""
    counts: Counts = {5: 0, 6: 0, 7: 0, 8: 0, "points": 0, "cities": 0}
    return add(counts, cards)


def add(counts: Counts, cards: list[dict[str, Any]]) -> Counts:
    counts = dict(counts)
    for card in cards:
        kind = card["kind"]
        if kind == "support":
            counts[card["value"]] += 1
        elif kind == "city":
            counts["cities"] += 1
        else:
            counts["points"] += card["value"]
    return counts


def _own(mine: Counts, theirs: Counts) -> float:
    """What one side's collection is worth apart from the majorities."""
    if mine["cities"] == 3:
        return CITY_WIN
    held = [mine[v] for v in SUPPORT]
    sets = min(held)
    started = sum(1 for n in held if n > sets)  # progress towards the next set
    threat = 3.0 if mine["cities"] == 2 and theirs["cities"] == 0 else 0.0
    return 5.0 * sets + 0.75 * started + mine["points"] + threat


def standing(mine: Counts, theirs: Counts) -> float:
    """The bot's score minus the opponent's, as things stand."""
    majorities = 0.0
    for value in SUPPORT:
        lead = mine[value] - theirs[value]
        if lead:
            sure = 1.0 if abs(lead) >= 2 else 0.75
            majorities += value * sure * (1 if lead > 0 else -1)
    return majorities + _own(mine, theirs) - _own(theirs, mine)


def scores(view: DistrictNoirView, legal_actions: list[Action]) -> list[float]:
    me = seat_of(view)
    mine = counts_of(view["collections"][me])
    theirs = counts_of(view["collections"][1 - me])
    now = standing(mine, theirs)
    row = view["row"]
    assert view["hand"] is not None  # a seat's view shows its own hand
    hand = {card["id"]: card for card in view["hand"]}
    i_took, they_took = view["taken"][me], view["taken"][1 - me]
    result = []
    for action in legal_actions:
        if action["type"] == "take":
            gain = standing(add(mine, row[-TAKE_SIZE:]), theirs) - now
            result.append(gain - PATIENCE * len(hand) * (0.5 if they_took else 1.0))
            continue
        after = [*row, hand[action["card"]]][-TAKE_SIZE:]
        value = 0.0
        if not they_took:
            their_gain = now - standing(mine, add(theirs, after))
            value -= max(0.0, their_gain)
        if not i_took:
            my_gain = standing(add(mine, after), theirs) - now
            value += (1.0 if they_took else LATER) * my_gain
        result.append(value)
    return result


BOTS = GameBots(scores, playouts=1500, prior_weight=1.0)
"""District Noir's bots: this heuristic, and the hard bot leaning towards its favourites."""
