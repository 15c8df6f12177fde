"""Point City's state, its JSON form and the market geometry.

Card ids say nothing about faces: ids ``0 .. deck_size-1`` are the draw pile in deal
order (id 0 was dealt first), the ids after them are the cards removed at setup
(grouped by tier), and the last ``num_players`` ids are the Ingenuity starting cards.
``order[id]`` is the catalogue index of the card with that id; it is the only place a
hidden face lives, so views never show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.rules.point_city.cards import Card

SIZE = 4
CELLS = SIZE * SIZE
SETUP: dict[int, tuple[tuple[int, int, int], int]] = {
    1: ((40, 24, 18), 10),
    2: ((40, 24, 18), 10),
    3: ((52, 36, 28), 12),
    4: ((64, 48, 38), 14),
}
"""Per player count: cards used of tiers 1, 2, 3, and civic tokens on display (§2)."""

PAIRS: tuple[tuple[int, int], ...] = tuple(
    sorted(
        [(r * SIZE + c, r * SIZE + c + 1) for r in range(SIZE) for c in range(SIZE - 1)]
        + [(r * SIZE + c, (r + 1) * SIZE + c) for r in range(SIZE - 1) for c in range(SIZE)]
    )
)
"""The orthogonally adjacent pairs of market cells, first cell first in reading order."""
LINES: tuple[tuple[int, ...], ...] = tuple(
    tuple(r * SIZE + c for c in range(SIZE)) for r in range(SIZE)
) + tuple(tuple(r * SIZE + c for r in range(SIZE)) for c in range(SIZE))
"""The rows, then the columns, as tuples of cells."""

EMPTY = -1
TAKE, CHOOSE, OVER = "take", "civic", "over"


def cell_json(cell: int) -> list[int]:
    return [cell // SIZE, cell % SIZE]


@dataclass(frozen=True, slots=True)
class Player:
    """A city owner: a player or the Automa. ``perm`` is derived from ``city`` for speed."""

    stock: tuple[int, ...]
    city: tuple[int, ...]
    tokens: tuple[int, ...]
    perm: tuple[int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class PointCityState:
    num_players: int
    seed: int
    difficulty: int
    order: tuple[int, ...]
    deck_size: int
    next_card: int  # id of the top of the draw pile; == deck_size when it is empty
    market: tuple[int, ...]  # card id per cell in reading order, EMPTY for a gap
    up: tuple[bool, ...]  # per cell: True when the building side shows
    supply: tuple[int, ...]  # civic tokens on display, left to right
    players: tuple[Player, ...]
    discard: tuple[int, ...]
    current: int
    phase: str  # TAKE, CHOOSE (civic tokens) or OVER
    flipped: bool  # the free flip was used this turn
    pending: int  # civic tokens still to choose this turn
    holes: tuple[tuple[int, bool], ...]  # cells taken this turn, and whether a building was
    turn: int  # turns finished so far, the Automa's included
    automa: Player | None
    automa_at: tuple[int, int]  # (row, column) where the Automa's market tokens cross
    log: tuple[dict[str, Any], ...]

    @property
    def deck_count(self) -> int:
        return self.deck_size - self.next_card


def tier_of_position(cards: tuple[Card, ...], num_players: int) -> tuple[int, ...]:
    """The tier of every id below the starting cards, from the setup table alone."""
    used = SETUP[num_players][0]
    sizes = [sum(1 for card in cards if card.tier == tier) for tier in (1, 2, 3)]
    tiers = [tier for tier in (1, 2, 3) for _ in range(used[tier - 1])]
    return tuple(
        tiers + [tier for tier in (1, 2, 3) for _ in range(sizes[tier - 1] - used[tier - 1])]
    )


def player_json(player: Player) -> dict[str, Any]:
    return {"stock": list(player.stock), "city": list(player.city), "tokens": list(player.tokens)}


def copy_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


def state_to_json(state: PointCityState) -> dict[str, Any]:
    return {
        "num_players": state.num_players,
        "seed": state.seed,
        "difficulty": state.difficulty,
        "order": list(state.order),
        "deck_size": state.deck_size,
        "next_card": state.next_card,
        "market": list(state.market),
        "up": list(state.up),
        "supply": list(state.supply),
        "players": [player_json(p) for p in state.players],
        "discard": list(state.discard),
        "current": state.current,
        "phase": state.phase,
        "flipped": state.flipped,
        "pending": state.pending,
        "holes": [[cell, built] for cell, built in state.holes],
        "turn": state.turn,
        "automa": None if state.automa is None else player_json(state.automa),
        "automa_at": list(state.automa_at),
        "log": list(state.log),  # events are never mutated, so they are shared, not copied
    }


def player_from_json(data: dict[str, Any], order: tuple[int, ...], perm_of: Any) -> Player:
    city = tuple(data["city"])
    return Player(
        stock=tuple(data["stock"]),
        city=city,
        tokens=tuple(data["tokens"]),
        perm=perm_of(order[i] for i in city),
    )


def state_from_json(data: dict[str, Any], perm_of: Any) -> PointCityState:
    """The inverse of ``state_to_json``; ``perm_of`` maps catalogue indices to permanents."""
    order = tuple(data["order"])
    automa = data["automa"]
    return PointCityState(
        num_players=data["num_players"],
        seed=data["seed"],
        difficulty=data["difficulty"],
        order=order,
        deck_size=data["deck_size"],
        next_card=data["next_card"],
        market=tuple(data["market"]),
        up=tuple(bool(x) for x in data["up"]),
        supply=tuple(data["supply"]),
        players=tuple(player_from_json(p, order, perm_of) for p in data["players"]),
        discard=tuple(data["discard"]),
        current=data["current"],
        phase=data["phase"],
        flipped=data["flipped"],
        pending=data["pending"],
        holes=tuple((cell, bool(built)) for cell, built in data["holes"]),
        turn=data["turn"],
        automa=None if automa is None else player_from_json(automa, order, perm_of),
        automa_at=(data["automa_at"][0], data["automa_at"][1]),
        log=tuple(copy_json(event) for event in data["log"]),
    )
