"""Point City's components: resources, the card list (loaded from data) and the civic tokens.

The shipped card set (``cards.json``) is an original design built to the
structure of §7 of docs/rules/point-city.md; ``load_cards`` accepts any list in the
same format, so another set can replace it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESOURCES = ("community", "economy", "energy", "ecology", "industry")
INGENUITY = 5
"""Resource index of Ingenuity, the wild; 0-4 are the basic resources above."""
RESOURCE_NAMES = (*RESOURCES, "ingenuity")
KINDS = ("producer", "points", "civic")
PRODUCER, POINTS, CIVIC = 0, 1, 2

CARD_FILE = Path(__file__).with_name("cards.json")


@dataclass(frozen=True, slots=True)
class Card:
    """Both sides of one card. ``resource`` is an index into ``RESOURCE_NAMES``."""

    tier: int
    resource: int
    double: bool
    name: str
    kind: int
    produces: int  # a basic resource index for producers, -1 otherwise
    cost: tuple[int, int, int, int, int]
    points: int

    @property
    def units(self) -> int:
        """Units of its resource the resource side pays: 2 for a double symbol."""
        return 2 if self.double else 1


def _resource(value: Any, allow_ingenuity: bool) -> int:
    names = RESOURCE_NAMES if allow_ingenuity else RESOURCES
    if value not in names:
        raise ValueError(f"unknown resource {value!r}")
    return names.index(value)


def _card(raw: dict[str, Any]) -> Card:
    tier = raw["tier"]
    if tier not in (1, 2, 3):
        raise ValueError(f"tier must be 1, 2 or 3, not {tier!r}")
    resource = _resource(raw["resource"], allow_ingenuity=True)
    double = raw["double"]
    if not isinstance(double, bool) or (double and resource == INGENUITY):
        raise ValueError("double must be a bool, and Ingenuity is always single")
    if raw["kind"] not in KINDS:
        raise ValueError(f"unknown kind {raw['kind']!r}")
    kind = KINDS.index(raw["kind"])
    produces = raw.get("produces")
    if (kind == PRODUCER) != (produces is not None):
        raise ValueError("a producer, and only a producer, names what it produces")
    cost = [0] * 5
    for name, amount in raw["cost"].items():
        if not isinstance(amount, int) or amount < 1:
            raise ValueError(f"bad cost amount {amount!r}")
        cost[_resource(name, allow_ingenuity=False)] = amount
    points = raw["points"]
    if not isinstance(points, int) or points < 0:
        raise ValueError(f"bad points {points!r}")
    return Card(
        tier=tier,
        resource=resource,
        double=double,
        name=str(raw["name"]),
        kind=kind,
        produces=-1 if produces is None else _resource(produces, allow_ingenuity=False),
        cost=(cost[0], cost[1], cost[2], cost[3], cost[4]),
        points=points,
    )


def load_cards(data: list[dict[str, Any]]) -> tuple[Card, ...]:
    """Cards from a list of dicts in the card-file format; ``ValueError`` if malformed."""
    try:
        return tuple(_card(raw) for raw in data)
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"malformed card: {exc}") from exc


def load_card_file(path: Path = CARD_FILE) -> tuple[Card, ...]:
    with open(path, encoding="utf-8") as handle:
        return load_cards(json.load(handle)["cards"])


CARDS = load_card_file()
STARTER = Card(
    tier=0, resource=INGENUITY, double=False, name="Ingenuity", kind=-1, produces=-1,
    cost=(0, 0, 0, 0, 0), points=0,
)  # fmt: skip
"""An Ingenuity starting card: a resource card with no building side (shown as tier 0)."""


def building_json(card: Card) -> dict[str, Any]:
    return {
        "name": card.name,
        "kind": KINDS[card.kind],
        "cost": {RESOURCES[r]: n for r, n in enumerate(card.cost) if n},
        "points": card.points,
        "produces": RESOURCES[card.produces] if card.produces >= 0 else None,
    }


# Civic tokens (§8): (kind, resources, points).
TOKENS: tuple[tuple[str, tuple[int, ...], int], ...] = (
    *(("resource", (r,), 2) for r in range(5)),  # T1-T5
    ("ingenuity", (), 2),  # T6
    *(("pair", (a, b), 3) for a in range(5) for b in range(a + 1, 5)),  # T7-T16
    ("set", (), 6),  # T17
    ("two-plus", (), 2),  # T18
    ("three-plus", (), 3),  # T19
    ("missing", (), 4),  # T20
    ("flat", (), 5),  # T21
    ("flat", (), 7),  # T22
)


def token_json(token: int) -> dict[str, Any]:
    kind, resources, points = TOKENS[token]
    return {
        "id": token,
        "kind": kind,
        "resources": [RESOURCES[r] for r in resources],
        "points": points,
    }
