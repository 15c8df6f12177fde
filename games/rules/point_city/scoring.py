"""Final scoring in Point City: buildings, civic tokens (§8) and the Automa (§9)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from games.rules.point_city.cards import INGENUITY, PRODUCER, RESOURCES, TOKENS, Card
from games.rules.point_city.state import Player


def permanent(cards: Sequence[Card], city: Iterable[int]) -> tuple[int, int, int, int, int]:
    """Permanent resources per basic type: the producers among ``city`` (catalogue indices)."""
    perm = [0] * 5
    for index in city:
        card = cards[index]
        if card.kind == PRODUCER:
            perm[card.produces] += 1
    return (perm[0], perm[1], perm[2], perm[3], perm[4])


def token_points(token: int, perm: Sequence[int], ingenuity_cards: int) -> int:
    """What one civic token scores. Only the Ingenuity token looks at resource cards."""
    kind, resources, points = TOKENS[token]
    if kind == "resource":
        return points * perm[resources[0]]
    if kind == "ingenuity":
        return points * ingenuity_cards
    if kind == "pair":
        return points * min(perm[resources[0]], perm[resources[1]])
    if kind == "set":
        return points * min(perm)
    if kind == "two-plus":
        return points * sum(1 for n in perm if n >= 2)
    if kind == "three-plus":
        return points * sum(1 for n in perm if n >= 3)
    if kind == "missing":
        return points * sum(1 for n in perm if n == 0)
    return points  # flat


def score(cards: Sequence[Card], order: Sequence[int], player: Player) -> dict[str, Any]:
    """A player's score breakdown; ``order`` maps card ids to indices into ``cards``."""
    perm = player.perm
    ingenuity = sum(1 for c in player.stock if cards[order[c]].resource == INGENUITY)
    buildings = sum(cards[order[c]].points for c in player.city)
    by_token = [{"token": t, "points": token_points(t, perm, ingenuity)} for t in player.tokens]
    token_total = sum(entry["points"] for entry in by_token)
    return {
        "buildings": buildings,
        "tokens": by_token,
        "token_points": token_total,
        "permanent": {RESOURCES[r]: n for r, n in enumerate(perm)},
        "resource_cards": len(player.stock),
        "total": buildings + token_total,
    }


AUTOMA_COPIES = {2: (0, 1, 2, 3), 3: (0, 1, 3, 6)}
"""Points per type by copies held (0, 1, 2, 3+) at two and three stars."""
AUTOMA_TOKEN_POINTS = {1: 3, 2: 5, 3: 7}


def automa_score(
    cards: Sequence[Card], order: Sequence[int], automa: Player, difficulty: int
) -> dict[str, Any]:
    """The Automa's score at ``difficulty`` (1-3 stars). "Copies" are permanent resources."""
    perm = automa.perm
    buildings = sum(cards[order[c]].points for c in automa.city)
    if difficulty == 1:
        resources = sum(perm)
    else:
        table = AUTOMA_COPIES[difficulty]
        resources = sum(table[min(n, 3)] for n in perm)
    ingenuity = 0
    if difficulty == 3:
        ingenuity = sum(1 for c in automa.stock if cards[order[c]].resource == INGENUITY)
    token_total = AUTOMA_TOKEN_POINTS[difficulty] * len(automa.tokens)
    return {
        "difficulty": difficulty,
        "buildings": buildings,
        "resources": resources,
        "token_points": token_total,
        "ingenuity": ingenuity,
        "total": buildings + resources + token_total + ingenuity,
    }
