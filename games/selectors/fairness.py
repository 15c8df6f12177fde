"""Provably fair shuffles: the seed is committed to when a game starts, revealed when it ends.

While a game runs its page shows ``seed_commitment(seed)``, the SHA-256 of the
secret seed. Once it is over the seed itself is shown, with the game's record
(``game_record``): anyone can hash the seed and compare, then replay the seed
and the move log with the open-source rules and get exactly the final state.
This proves the cards were not changed once play began; the seed itself is
drawn by the server from ``secrets`` when the table fills.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from games.models import Table
from games.rules import IllegalAction, get_rules
from games.rules.replay import final, replay


def seed_commitment(seed: int) -> str:
    """What the page shows before the seed may be known: sha256 of the seed in decimal."""
    return hashlib.sha256(str(seed).encode("ascii")).hexdigest()


@dataclass(frozen=True)
class GameRecord:
    """All it takes to check a finished game, as plain JSON-friendly data."""

    game: str
    num_seats: int
    options: dict[str, Any]
    seed: int
    moves: list[dict[str, Any]]
    final_state: dict[str, Any]

    @property
    def seed_sha256(self) -> str:
        return seed_commitment(self.seed)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "num_seats": self.num_seats,
            "options": self.options,
            "seed": self.seed,
            "seed_sha256": self.seed_sha256,
            "moves": self.moves,
            "final_state": self.final_state,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        return cls(
            game=data["game"],
            num_seats=int(data["num_seats"]),
            options=dict(data.get("options") or {}),
            seed=int(data["seed"]),
            moves=list(data["moves"]),
            final_state=data["final_state"],
        )


def game_record(table: Table) -> GameRecord:
    """The record of a finished table (its seed is no secret any more): 1 query, the moves."""
    if not table.is_finished or table.seed is None:
        raise ValueError("Only a finished game's seed may be revealed.")
    assert table.state is not None  # a finished table keeps its final state
    moves = table.moves.order_by("seq").values_list("position", "action")
    return GameRecord(
        game=table.game,
        num_seats=table.num_seats,
        options=table.options or {},
        seed=table.seed,
        moves=[{"seat": position, "action": action} for position, action in moves],
        final_state=table.state,
    )


def replays_exactly(record: GameRecord) -> bool:
    """Whether setup(seed) followed by every move gives exactly the recorded final state."""
    rules = get_rules(record.game)
    moves = ((move["seat"], move["action"]) for move in record.moves)
    try:
        state = final(replay(rules, record.num_seats, record.seed, record.options, moves))
    except IllegalAction:
        return False
    return _as_json(rules.to_json(state)) == _as_json(record.final_state)


def _as_json(data: Any) -> Any:
    """Both sides as they read back from JSON (tuples become lists, keys strings)."""
    return json.loads(json.dumps(data, sort_keys=True))
